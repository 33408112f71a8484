# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# What the shell test scripts share: the counters, ok/bad/skip, run (exit status checked,
# output kept in $TMP/out and $TMP/err), err_has/out_has on that output, and json_true on
# a saved document. Sourced by tests/run_*.sh and tests/netns/run.sh once TMP is set;
# FAIL_PREFIX (such as "mpi: ") goes in front of each failure.
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: ${FAIL_PREFIX:-}$*" >&2; }
skip() { skip=$((skip + 1)); echo "SKIP: ${FAIL_PREFIX:-}$*" >&2; }

# run NAME "EXPECTED_RCS" CMD...: stdout in $TMP/out, stderr in $TMP/err; EXPECTED_RCS is one
# status or a list ("0 1")
run() {
	local name=$1 want=$2 got=0
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" || got=$?
	case " $want " in
	*" $got "*) ok ;;
	*) bad "$name: exit $got, expected $want ($(head -c 400 "$TMP/err"))" ;;
	esac
}
# err_has NAME TEXT / out_has NAME TEXT: the last run's stderr / stdout holds TEXT
err_has() { if grep -qF -- "$2" "$TMP/err"; then ok; else bad "$1: stderr lacks '$2': $(head -c 400 "$TMP/err")"; fi; }
out_has() { if grep -qF -- "$2" "$TMP/out"; then ok; else bad "$1: stdout lacks '$2'"; fi; }
# json_true NAME FILE PYTHON-EXPR: the expression holds for the document d in FILE
json_true() {
	if python3 - "$2" "$3" <<'PY'; then ok; else bad "$1: $3"; fi
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
