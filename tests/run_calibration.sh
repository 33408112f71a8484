#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The calibration corpus (tests/data/calibration, issue 16): every case of cases.tsv through
# `check --from DOC --json` (a nccl-tests .log through `import nccl-tests`) with its arguments,
# and its exit code, findings at warn or above and advice against what the manifest says they
# must be. One failure per case that is wrong, saying how; the committed documents validate
# against docs/schema. The confusion table over the same cases: bench/calibration.sh.
# Usage: tests/run_calibration.sh ./commdiag [CASE...]
set -u
BIN=$(realpath "${1:-./commdiag}")
shift $(($# > 0 ? 1 : 0))
cd "$(dirname "$0")/.." || exit 2
CAL=tests/data/calibration
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-calibration.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1 COMMDIAG_DETERMINISTIC=1
FAIL_PREFIX="calibration: "
. tests/lib.sh

mkdir -p "$TMP/cases"
if [ $# -gt 0 ]; then names=("$@"); else mapfile -t names < <(python3 tests/calibration.py names); fi
[ "${#names[@]}" -gt 0 ] || { bad "no case in $CAL/cases.tsv"; names=(); }
for name in "${names[@]}"; do
	mapfile -t cmd < <(python3 tests/calibration.py argv "$name" "$BIN") || true
	if [ "${#cmd[@]}" = 0 ]; then
		bad "$name: no such case in $CAL/cases.tsv"
		continue
	fi
	rc=0
	"${cmd[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cp "$TMP/out" "$TMP/cases/$name.json"
	cp "$TMP/err" "$TMP/cases/$name.err"
	echo "$rc" >"$TMP/cases/$name.rc"
	schema_keep "$name"
done
# one line per case: ok, or what is wrong with its verdict
if [ $# -gt 0 ]; then
	python3 tests/calibration.py judge "$TMP/cases" >"$TMP/verdicts" || bad "tests/calibration.py judge failed"
	grep -E "^(ok|bad)	($(IFS='|'; echo "${names[*]}"))( |:|$)" "$TMP/verdicts" >"$TMP/v" || true
	mv "$TMP/v" "$TMP/verdicts"
else
	python3 tests/calibration.py judge "$TMP/cases" >"$TMP/verdicts" || bad "tests/calibration.py judge failed"
fi
# The holdout part is never tuned on, so its misses are not fixed by changing rules for them:
# they are listed, with why, in holdout-misses.tsv. A listed case is reported (SKIP), not
# failed; a miss that is not listed fails (a regression), and so does a listed case that is
# now right (the list must say what is true).
known=$CAL/holdout-misses.tsv
while IFS=$'\t' read -r verdict rest; do
	name=${rest%%[: ]*}
	listed=0
	if grep -q "^$name	" "$known" 2>/dev/null; then listed=1; fi
	case $verdict/$listed in
	ok/0) ok ;;
	ok/1) bad "$name is listed in $known as a holdout miss but is now right: remove it" ;;
	bad/1) skip "known holdout miss (holdout-misses.tsv): $rest" ;;
	bad/0) bad "$rest" ;;
	esac
done <"$TMP/verdicts"
while IFS=$'\t' read -r name part _; do
	case $name in '#'* | '') continue ;; esac
	if [ "$part" != holdout ]; then bad "$known: $name is not a holdout case: a tune case must be right"; fi
done <"$known"
# what commdiag wrote above, and the committed documents, against docs/schema (draft 2020-12)
schema_check "$CAL/docs"

echo "calibration: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
