#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The catalogue's NCCL non-network section (rules/causes.catalog, "ncclwarn"): every line of
# tests/data/catalog/ncclwarn.log, written in the format NCCL prints its WARNs at the tag the
# fixture names, is explained alone and its first catalogue advice must come from the entry the
# line is listed under; and every entry of the section has a line there, so an entry that stops
# matching (or one added untested) fails here.
# Usage: tests/run_ncclwarn.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-ncclwarn.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1 COMMDIAG_DETERMINISTIC=1
unset COMMDIAG_VERSIONS COMMDIAG_CAUSES
# shellcheck disable=SC2034 # read by tests/lib.sh
FAIL_PREFIX="ncclwarn: "
# shellcheck source=tests/lib.sh
. tests/lib.sh
F=tests/data/catalog/ncclwarn.log
CAT=rules/causes.catalog

n=0
while IFS=$'\t' read -r want line; do
	case $want in '#'* | '') continue ;; esac
	n=$((n + 1))
	printf '%s\n' "$line" >"$TMP/case.log"
	run "case $n ($want)" "0 1" "$BIN" explain "$TMP/case.log" --json
	got=$(grep -o 'cause catalogue \[[a-z0-9.-]*\]' "$TMP/out" | head -n 1)
	if [ "$got" = "cause catalogue [$want]" ]; then ok; else bad "case $n: want [$want], got '${got:-no catalogue advice}' for: $line"; fi
done <"$F"
if [ "$n" -ge 60 ]; then ok; else bad "only $n cases in $F"; fi

# every entry of the section is exercised (but a release entry ranked inside it, [s12r.*]:
# it needs the "NCCL version" line beside the WARN, so its cases are in libmsgs.log)
ids=$(awk '/^# ---- NCCL non-network error paths \(ncclwarn\) ----/{on=1; next} on && /^# ---- /{on=0} on && /^\[/ && !/^\[s12r\./{gsub(/[][]/, ""); print}' "$CAT")
if [ -n "$ids" ]; then ok; else bad "no ncclwarn section in $CAT"; fi
for id in $ids; do
	if cut -f1 "$F" | grep -qxF -- "$id"; then ok; else bad "entry [$id] has no line in $F"; fi
done

# a consequence stays generic: with a cause beside it, the cause's entry speaks first
printf '%s\n' "n1:40:60 [0] proxy.cc:1326 NCCL WARN Socket recv failed while polling for opId=0x7f6f18cb7f40" \
	"n1:40:60 [0] misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-k2Yd0p to 9637892 bytes, error: No space left on device (28)" >"$TMP/two.log"
run "cause beside consequence" "0 1" "$BIN" explain "$TMP/two.log" --json
if grep -q 'cause catalogue \[nccl.proxy.peer-gone\]' "$TMP/out"; then bad "generic proxy entry spoke beside a cause"; else ok; fi
out_has "cause beside consequence" "cause catalogue [nccl.shm.dev-shm-full]"

echo "ncclwarn: $pass passed, $fail failed, $skip skipped ($n lines)"
[ "$fail" = 0 ]
