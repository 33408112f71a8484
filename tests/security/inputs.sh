#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attacks 5, 10, 12 and 13: inputs that are not what they claim. A FIFO (or any
# file that is not a regular one) given to a loader blocked the read until the deadline:
# now exit 2 at once. An nccl.conf commdiag cannot read was skipped silently: now ENV010.
# A threshold past what its unit can mean was taken (and shown negative): now exit 2. A
# document with a key twice (cJSON keeps the first, jq and Python the last), a negative or
# infinite measurement, a grade that is not one of the three words (it reached the HTML
# page raw) or an interface without a name (it crashed the cross-host rules): exit 2.
# Usage: tests/security/inputs.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-in.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/inputs: "
DOC=tests/data/docs/h100-faulty.json
mkfifo "$TMP/fifo"

# each loader refuses the FIFO at once (a hang would end at --timeout 20 with exit 3)
for args in "report --from" "check --from" "topo --topology" "rules --rules" "explain" "import nccl-tests"; do
	# shellcheck disable=SC2086 # the command and its option, split
	run "$args FIFO" 2 timeout 60 "$BIN" $args "$TMP/fifo" --timeout 20
	err_has "$args FIFO" "a FIFO"
done
run "report --from /dev/zero" 2 timeout 60 "$BIN" report --from /dev/zero --timeout 20
err_has "report --from /dev/zero" "is a character device: expected a regular file ('-' reads standard input)"
# standard input is still "-"
run "report --from - (a pipe)" 0 sh -c "cat $DOC | \"$BIN\" report --from - --json"

# a PU without os_index made hwloc memset half a GiB (seconds of CPU per file): refused first
run "--topology with a PU without os_index" 2 "$BIN" topo --topology tests/security/data/pu-without-os-index.xml
err_has "--topology with a PU without os_index" "a PU or NUMA node without os_index: not an export hwloc wrote"

# an nccl.conf commdiag cannot check is a finding, not silence, and not a wait
run "NCCL_CONF_FILE is a FIFO" 0 env NCCL_CONF_FILE="$TMP/fifo" timeout 60 "$BIN" env --json --timeout 20
json_true "NCCL_CONF_FILE is a FIFO: ENV010" "$TMP/out" \
	'[f for f in d["findings"] if f["id"] == "ENV010" and "FIFO" in f["evidence"][0]]'
mkdir "$TMP/confdir"
run "NCCL_CONF_FILE is a directory" 0 env NCCL_CONF_FILE="$TMP/confdir" "$BIN" env --json
json_true "NCCL_CONF_FILE is a directory: ENV010" "$TMP/out" '[f for f in d["findings"] if f["id"] == "ENV010"]'
head -c 1200000 /dev/zero | tr '\0' '#' >"$TMP/big.conf"
run "NCCL_CONF_FILE over 1 MiB" 0 env NCCL_CONF_FILE="$TMP/big.conf" "$BIN" env --json
json_true "NCCL_CONF_FILE over 1 MiB: ENV010" "$TMP/out" \
	'[f for f in d["findings"] if f["id"] == "ENV010" and "1 MiB" in f["evidence"][0]]'
run "NCCL_CONF_FILE missing: nothing to say" 0 env NCCL_CONF_FILE="$TMP/none.conf" "$BIN" env --json
json_true "NCCL_CONF_FILE missing: no ENV010" "$TMP/out" 'not [f for f in d["findings"] if f["id"] == "ENV010"]'

# thresholds within what their unit can mean
run "-D 2^64-1 bytes" 2 "$BIN" rules -D system.shm_min_bytes=18446744073709551615
err_has "-D 2^64-1 bytes" "is out of range"
run "-D a count of ten million" 2 "$BIN" rules -D gpu.count_expected=10000000
run "-D 2^53 bytes is still fine" 0 "$BIN" rules -D system.shm_min_bytes=9007199254740992
printf 'system.shm_min_bytes = 18446744073709551615\n' >"$TMP/huge.conf"
run "--rules 2^64-1 bytes" 2 "$BIN" rules --rules "$TMP/huge.conf"
err_has "--rules 2^64-1 bytes" "huge.conf:1"

# documents that mean two things, or impossible things
mutate() { python3 - "$DOC" "$TMP/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(d if isinstance(d, str) else json.dumps(d))
PY
}
mutate dupkey 'd = json.dumps(d).replace("\"hostname\": \"gpu-node07\"", "\"hostname\": \"gpu-node07\", \"hostname\": \"elsewhere\"", 1)'
run "a key twice" 2 "$BIN" report --from "$TMP/dupkey.json"
err_has "a key twice" "hosts[0]: key 'hostname' appears twice: expected each key once"
mutate negative 'd["probes"][0]["results"][0]["time_us"] = -5'
run "a negative time" 2 "$BIN" report --from "$TMP/negative.json"
err_has "a negative time" "time_us: expected a number of at least 0 or null"
mutate infinite 'd = json.dumps(d).replace("\"time_us\": ", "\"time_us\": 1e999, \"x_\": ", 1)'
run "an infinite time" 2 "$BIN" report --from "$TMP/infinite.json"
err_has "an infinite time" "time_us: expected a finite number or null"
mutate grade 'd["score"] = {"total": 100, "grade": "<meta http-equiv=refresh content=0;url=file:///etc/passwd>", "bandwidth": 100, "latency": 100, "balance": 100, "stability": 100}'
run "a grade with markup" 2 "$BIN" report --from "$TMP/grade.json" --format html
err_has "a grade with markup" "score.grade: expected excellent, good, needs work or null"
mutate nullname 'd["hosts"][0]["nics"][0]["name"] = None'
run "an interface without a name" 2 "$BIN" check --from "$TMP/nullname.json"
err_has "an interface without a name" "nics[0].name: expected the interface's name (a string)"
if [ -s "$TMP/out" ]; then bad "refused documents printed a report"; else ok; fi

echo "security/inputs: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
