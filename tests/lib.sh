# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# What the shell test scripts share: the counters, ok/bad/skip, run (exit status checked,
# output kept in $TMP/out and $TMP/err), err_has/out_has on that output, and json_true on
# a saved document, and schema_check over every document the suite's commands wrote.
# Sourced by tests/run_*.sh, tests/netns/run.sh and tests/slurm/run.sh; TMP is set before
# the first run. FAIL_PREFIX (such as "mpi: ") goes in front of each failure.
pass=0 fail=0 skip=0
CD_TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_schema_n=0

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
	schema_keep "$name"
}
# schema_keep NAME: a copy of the last run's stdout, when it is a JSON object, for schema_check
schema_keep() {
	local head=''
	IFS= read -r -d '' -n 256 head <"$TMP/out" || true # false at the end of the file
	head=${head#"${head%%[![:space:]]*}"}
	[ "${head:0:1}" = "{" ] || return 0
	_schema_n=$((_schema_n + 1))
	mkdir -p "$TMP/schema-docs"
	cp "$TMP/out" "$TMP/schema-docs/$BASHPID-$_schema_n" &&
		printf '%s\t%s\t%s\n' stdout "$TMP/schema-docs/$BASHPID-$_schema_n" "stdout of '${1//[$'\t\n']/ }'" \
			>>"$TMP/schema-docs/index"
	return 0
}
# err_has NAME TEXT / out_has NAME TEXT: the last run's stderr / stdout holds TEXT
err_has() { if grep -qF -- "$2" "$TMP/err"; then ok; else bad "$1: stderr lacks '$2': $(head -c 400 "$TMP/err")"; fi; }
out_has() { if grep -qF -- "$2" "$TMP/out"; then ok; else bad "$1: stdout lacks '$2'"; fi; }
# json_holds FILE PYTHON-EXPR: whether the expression holds for the document d in FILE (no verdict;
# for a try that may be repeated)
json_holds() {
	python3 - "$1" "$2" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}
# json_true NAME FILE PYTHON-EXPR: the expression holds for the document d in FILE
json_true() {
	if python3 - "$2" "$3" <<'PY'; then ok; else bad "$1: $3"; fi
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
	schema_keep_file "$2" "$1"
}
# schema_keep_file FILE NAME: a copy of FILE as it is now (a suite may overwrite it), for
# schema_check, which validates it only when commdiag wrote it
schema_keep_file() {
	case $1 in "$TMP"/*) [ -f "$1" ] || return 0 ;; *) return 0 ;; esac
	_schema_n=$((_schema_n + 1))
	mkdir -p "$TMP/schema-docs"
	cp "$1" "$TMP/schema-docs/$BASHPID-$_schema_n" 2>/dev/null &&
		printf '%s\t%s\t%s\n' file "$TMP/schema-docs/$BASHPID-$_schema_n" "${1#"$TMP"/} (at '${2//[$'\t\n']/ }')" \
			>>"$TMP/schema-docs/index"
	return 0
}
# schema_check [DIR...]: every results document (schema 1) the suite's commands wrote, on
# stdout through run or as a *.json file left under $TMP, and the committed documents under
# each DIR, validates against docs/schema/commdiag-results-1.schema.json (draft 2020-12,
# python3-jsonschema; tests/schema_check.py says which files count). One ok a valid
# document, one failure an invalid one. Call it once, right before the summary line.
# shellcheck disable=SC2120 # the directories are optional
schema_check() {
	local schema=${CD_SCHEMA:-$CD_TESTS_DIR/../docs/schema/commdiag-results-1.schema.json} rc=0 kind a b
	{
		if [ -f "$TMP/schema-docs/index" ]; then cat "$TMP/schema-docs/index"; fi
		find "$TMP" -path "$TMP/schema-docs" -prune -o -type f -name '*.json' -print 2>/dev/null | LC_ALL=C sort |
			sed 's/^/file\t/'
		for a in "$@"; do find "$a" -type f -name '*.json' | LC_ALL=C sort | sed 's/^/saved\t/'; done
	} >"$TMP/schema-manifest"
	: >"$TMP/schema-result"
	# Debian's python3 has the python3-jsonschema that bootstrap.sh installs; a python3 first
	# on PATH (pyenv, a venv) may not
	local py=python3
	if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then py=/usr/bin/python3; fi
	"$py" "$CD_TESTS_DIR/schema_check.py" "$schema" "$TMP" "$TMP/schema-result" <"$TMP/schema-manifest" || rc=$?
	if [ "$rc" = 77 ] && [ -n "${CI:-}" ]; then
		bad "schema: python3-jsonschema (4.0 or later) is missing in CI: scripts/bootstrap.sh installs it"
		return 0
	fi
	if [ "$rc" = 77 ]; then # not skip(): a suite may make that end the whole run (tests/netns/run.sh)
		skip=$((skip + 1))
		echo "SKIP: ${FAIL_PREFIX:-}schema: python3-jsonschema (4.0 or later) is not installed: no document was validated against $schema" >&2
		return 0
	fi
	while IFS=$'\t' read -r kind a b; do
		case $kind in
		valid) pass=$((pass + a)) ;;
		invalid) bad "schema: $a does not validate against $(basename "$schema"): $b" ;;
		esac
	done <"$TMP/schema-result"
	if [ "$rc" != 0 ]; then bad "schema: tests/schema_check.py failed (exit $rc) over $schema"; fi
}
