#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# How fast explain reads a large log, against another build measured in the same run (a ratio,
# never a bare number: the machine may be busy). The log is every failure log of
# tests/data/logs written REPEAT times one after another (a long job's log read at once);
# each binary reads it RUNS times, the shortest wall time counts.
# Usage: bench/explain_speed.sh ./commdiag OTHER-commdiag [REPEAT=5] [RUNS=3]   (no hardware)
set -u
NEW=$(realpath "${1:-./commdiag}") OLD=$(realpath "${2:?the build to compare against}")
REPEAT=${3:-5} RUNS=${4:-3}
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-speed.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for _ in $(seq "$REPEAT"); do cat tests/data/logs/*.log; done >"$TMP/big.log"
best() { # BIN: the shortest of RUNS wall times, in seconds
	local b=999999 t
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -o "$TMP/t" -f %e "$1" explain "$TMP/big.log" >/dev/null 2>&1
		t=$(tail -1 "$TMP/t")
		b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (t < a ? t : a) }')
	done
	echo "$b"
}
n=$(wc -l <"$TMP/big.log")
tn=$(best "$NEW") to=$(best "$OLD")
awk -v n="$n" -v tn="$tn" -v to="$to" -v new="$NEW" -v old="$OLD" 'BEGIN {
	printf "explain over %d lines: %s %.2f s, %s %.2f s; the first takes %.2f of the second'"'"'s time\n",
		n, new, tn, old, to, (to > 0 ? tn / to : 0) }'
