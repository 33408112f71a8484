#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/gpu_compare.sh --dry-run: commdiag's GPU probes on the fake driver and fake NCCL
# against the recorded nvbandwidth and nccl-tests outputs of tests/data/gpu-compare; the
# lines it prints, the JSON record, the parsers on other layouts (no root column, a
# waived testcase, one GPU's matrices) and its refusals (exit 2, naming what is wrong).
# Usage: tests/run_gpu_compare.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-gpucmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
CMP=bench/gpu_compare.sh
REF=tests/data/gpu-compare

if ! command -v "${CC:-cc}" >/dev/null; then
	skip "no C compiler: the fake driver cannot be built"
	echo "gpu_compare: $pass passed, $fail failed, $skip skipped"
	exit 0
fi

# line PROBE BYTES REFERENCE: the dry run printed that comparison, with a numeric commdiag value and ratio
line() {
	if grep -qE "^$(printf '%s' "$1" | sed 's/[].[()]/\\&/g') $2 reference=$3 commdiag=[0-9]+\.[0-9]{2} ratio=[0-9]+\.[0-9]{3}\$" "$TMP/out"; then
		ok
	else
		bad "no line '$1 $2 reference=$3 commdiag=N ratio=N' in: $(head -c 600 "$TMP/out")"
	fi
}

run "dry run" 0 "$CMP" --dry-run --commdiag "$BIN" --out "$TMP/rec.json"
if [ "$(grep -c ' reference=' "$TMP/out")" = 20 ]; then ok; else bad "dry run: $(grep -c ' reference=' "$TMP/out") comparisons, expected 20"; fi
line copy.h2d:gpu0 1048576 24.61
line copy.h2d:gpu1 1048576 25.02
line copy.d2h:gpu1 1048576 26.18
line copy.d2d:gpu0 1048576 30.12
line "copy.bidir(h2d):gpu1" 1048576 12.88
# p2p.bw 0->1 is write_ce[0][1] (GPU 0's engine); its read counterpart is read_ce[1][0]
line p2p.bw:gpu0-gpu1 1048576 22.73
line 'p2p.bw(read):gpu0-gpu1' 1048576 21.90
line p2p.bw:gpu1-gpu0 1048576 22.51
# nccl-tests: the out-of-place busbw, at the sizes both ran (1K, 4K, 16K, 64K)
line nccl.all_reduce 65536 4.17
line nccl.all_gather 1024 0.06
line nccl.all_gather 65536 2.59
if grep -q 'nccl.all_reduce 2048 ' "$TMP/out"; then bad "a size nccl-tests did not run was compared"; else ok; fi
json_true "record: versions, sizes, raw numbers" "$TMP/rec.json" \
	'd["dry_run"] is True and d["versions"]["nvbandwidth"] == "v0.8" and d["versions"]["nccl_tests"] == ["2.17.8"] and d["settings"]["copy_bytes"] == 1 << 20 and d["settings"]["nccl_tests_graph_launches"] == [0] and any("back to back" in m for m in d["settings"]["commdiag_nccl_method"]) and [g["bus_id"] for g in d["hardware"]["gpus"]] == ["0000:ab:00.0", "0000:ac:00.0"] and len(d["comparisons"]) == 20 and all(c["ratio"] > 0 for c in d["comparisons"]) and d["reference"]["nvbandwidth"]["device_to_device_memcpy_read_ce"]["matrix"] == [[None, 21.44], [21.9, None]] and d["reference"]["nccl_tests"]["all_reduce"]["65536"]["busbw_gbyte_s"] == 4.17 and any(r["name"] == "nccl.all_reduce" and r["variant"] == "out_of_place" for r in d["commdiag"])'
json_true "record: nvbandwidth's devices match commdiag's numbering" "$TMP/rec.json" \
	'd["nvbandwidth_devices"]["1"]["bus_id"] == d["hardware"]["gpus"][1]["bus_id"]'

# other layouts: nccl-tests without the root column (releases before 2.0 print none), a waived
# nvbandwidth testcase (one GPU has no peer), extra text between testcases
mkdir -p "$TMP/ref2"
sed -E 's/^(#? *)(size +count +type +redop) +root/\1\2/; s/^( +[0-9]+ +[0-9]+ +float +sum) +-1/\1/' \
	"$REF/all_reduce_perf.log" >"$TMP/ref2/all_reduce_perf.log"
python3 - "$REF/nvbandwidth.log" "$TMP/ref2/nvbandwidth.log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# nvbandwidth.cpp: a testcase whose filter() fails prints "Waived: " in place of "Running X."'s matrix
for key in ("device_to_device_memcpy_read_ce", "device_to_device_memcpy_write_ce"):
    text = re.sub(r"Running %s\.\n.*?\n\n.*?\n\n" % key, "Waived: \n", text, flags=re.S)
open(sys.argv[2], "w").write(text.replace("fakehost\n", "fakehost\nsome warning the driver printed\n"))
PY
run "other layouts" 0 "$CMP" --dry-run --commdiag "$BIN" --ref "$TMP/ref2" --out "$TMP/rec2.json"
line nccl.all_reduce 16384 1.44
line copy.h2d:gpu0 1048576 24.61
if grep -q '^p2p.bw' "$TMP/out"; then bad "a waived testcase was compared"; else ok; fi

# refusals: exit 2, the file and line or the option named
mkdir -p "$TMP/ref3"
cp "$REF/all_reduce_perf.log" "$TMP/ref3/"
sed '/^ 0     24.61/s/ 25.02$//' "$REF/nvbandwidth.log" >"$TMP/ref3/nvbandwidth.log"
run "a cut matrix row" 2 "$CMP" --dry-run --commdiag "$BIN" --ref "$TMP/ref3" --out "$TMP/rec3.json"
err_has "a cut matrix row" "$TMP/ref3/nvbandwidth.log:16: testcase host_to_device_memcpy_ce: expected a row of 2 values, got '0     24.61'"
if [ ! -e "$TMP/rec3.json" ]; then ok; else bad "a refused run left a record"; fi
cp "$REF/nvbandwidth.log" "$TMP/ref3/"
grep -v '^ ' "$REF/all_reduce_perf.log" >"$TMP/ref3/all_reduce_perf.log"
run "nccl-tests without rows" 2 "$CMP" --dry-run --commdiag "$BIN" --ref "$TMP/ref3" --out "$TMP/rec3.json"
err_has "nccl-tests without rows" "all_reduce_perf.log: no nccl-tests table"
run "no references" 2 "$CMP" --dry-run --commdiag "$BIN" --ref "$TMP/none"
err_has "no references" "option '--ref': '$TMP/none' has no nvbandwidth.log"
run "bad --size" 2 "$CMP" --dry-run --commdiag "$BIN" --size 1x
err_has "bad --size" "option '--size': expected a whole number of MiB, got '1x'"
run "bad --nt-graph" 2 "$CMP" --dry-run --commdiag "$BIN" --nt-graph -1
err_has "bad --nt-graph" "option '--nt-graph': expected a whole number of graph launches (0: none), got '-1'"
run "unknown option" 2 "$CMP" --bogus
err_has "unknown option" "gpu_compare: unknown option '--bogus'"
run "--deps without usr/" 2 "$CMP" --dry-run --commdiag "$BIN" --deps "$TMP"
err_has "--deps without usr/" "option '--deps': '$TMP' has no usr/"
run "no sources (not a dry run)" 2 "$CMP" --commdiag "$BIN" --src "$TMP"
err_has "no sources" "no nccl-tests sources in '$TMP/nccl-tests': git clone https://github.com/NVIDIA/nccl-tests there"

# a real run (tests/data/gpu-h100: one H100, its driver, NCCL, nccl-tests and nvbandwidth; README):
# the healthy node's own document judged again, and nccl-tests' one-GPU tables imported, give
# no finding (one GPU's busbw is 0 by nccl-tests' factor, not a failure; NCCL_VERSION is the
# image's record; microsecond jitter of sub-microsecond collectives is not instability)
H=tests/data/gpu-h100
run "H100 document, judged again" 0 "$BIN" score "$H/check.json" --json
json_true "H100 document: no finding, every section and GPU probe there" "$TMP/out" \
	'd["findings"] == [] and d["hosts"][0]["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3" and all(p["status"] == "ok" for p in d["probes"] if p["name"].startswith(("copy.", "nccl.")))'
run "H100 nccl-tests 2.19.6 tables, imported" 0 "$BIN" import nccl-tests "$H"/all_reduce_perf.log "$H"/sendrecv_perf.log --json
json_true "H100 nccl-tests: no finding, 11 sizes each" "$TMP/out" \
	'd["findings"] == [] and sorted({p["name"] for p in d["probes"]}) == ["nccl.all_reduce", "nccl.sendrecv"] and all(len(p["results"]) == 11 for p in d["probes"])'
# the same node with CUDA_VISIBLE_DEVICES= (hidden-check.json): GPU004 fails, names the variable,
# and the advice unsets it; without the variable in the document, GPU004 alone and no such advice
run "H100 hidden from CUDA, judged again" 1 "$BIN" score "$H/hidden-check.json" --json
json_true "H100 hidden: GPU004 names CUDA_VISIBLE_DEVICES, the advice unsets it" "$TMP/out" \
	'[f["id"] for f in d["findings"] if f["severity"] == "fail"] == ["GPU004"] and any("CUDA_VISIBLE_DEVICES=\x27\x27 is set" in e for f in d["findings"] for e in f["evidence"]) and [(a["env"], a.get("value")) for a in d["advice"]] == [("CUDA_VISIBLE_DEVICES", None)]'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["hosts"][0]["env"]["CUDA_VISIBLE_DEVICES"]; json.dump(d, open(sys.argv[2], "w"))' \
	"$H/hidden-check.json" "$TMP/hidden-noenv.json"
run "H100 without a GPU for CUDA, no variable" 1 "$BIN" score "$TMP/hidden-noenv.json" --json
json_true "no CUDA_VISIBLE_DEVICES: GPU004, no advice about it" "$TMP/out" \
	'[f["id"] for f in d["findings"] if f["severity"] == "fail"] == ["GPU004"] and not [a for a in d["advice"] if a["env"] == "CUDA_VISIBLE_DEVICES"]'
# the record gpu_compare wrote there: versions, and a comparison for every probe both ran
json_true "H100 record: versions and 70 comparisons" tests/data/gpu-h100.json \
	'd["dry_run"] is False and d["versions"]["driver"] == "580.159.04" and d["versions"]["nccl"] == "2.28.3" and d["versions"]["nccl_tests"] == ["2.19.6"] and d["versions"]["nvbandwidth"] == "v0.8" and len(d["comparisons"]) == 70'

echo "gpu_compare: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
