#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# commdiag's GPU probes against the timed model of an 8-GPU node in the fake driver
# (tests/fake/fake_cuda.c, FAKE_CUDA=hgx8, with tests/fake/fake_nccl_world.c): no GPU
# needed. The model keeps a virtual clock (clock_gettime under LD_PRELOAD) and stream
# times; its parameters come back in FAKE_CUDA_STATS and this script prints them.
# For each bandwidth probe and size it prints
#   PROBE BYTES modelled=X measured=Y ratio=Y/X
# X is what the model delivers as nvbandwidth (copies: bytes / (latency + bytes / bw),
# device time of copies queued behind a held stream) or nccl-tests (busbw of the
# collective's device time) would report it, in GB/s; Y is commdiag's busbw (the median
# over GPUs, pairs or the communicator). The collectives are timed as nccl-tests -G
# does: captured into one CUDA graph per GPU (4 collectives each), the graphs launched
# back to back, one launch (launch_ns) per GPU per graph, so the host's cost of a
# collective is 8 x launch_ns / 4, below its device time at every size of the model.
# A run whose collectives could not be captured (its reason says so; FAKE_CUDA=hgx8-nograph
# makes the driver refuse) launches them back to back: a group over 8 blocking
# communicators (the timed twins, as nccl-tests' -g 8) launches 8 kernels, 8 x launch_ns,
# more than a small collective's device time. Its rows are marked host-bound where that
# is so, with what nccl-tests -g 8 without -G reads on the model (bus bytes / the
# launches' time). Then `check wall_s=W`: the default `commdiag check` on the modelled
# node, in seconds of this machine's time.
#   bench/gpu_model.sh [./commdiag]       (CC to pick the compiler; CHECK=0 skips the
#                                          check run; KEEP=1 keeps the JSON documents;
#                                          FAKE_CUDA=hgx8-nograph: the fallback's rows)
set -eu
BIN=$(realpath "${1:-./commdiag}")
SRC=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
TMP=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "files in $TMP" || trap 'rm -rf "$TMP"' EXIT

"$CC" -std=c11 -D_GNU_SOURCE -O2 -shared -fPIC -o "$TMP/libcuda.so.1" "$SRC/tests/fake/fake_cuda.c"
"$CC" -std=c11 -D_GNU_SOURCE -O2 -shared -fPIC -o "$TMP/libnccl.so.2" "$SRC/tests/fake/fake_nccl_world.c" -lrt -ldl
MODEL=(env FAKE_CUDA="${FAKE_CUDA:-hgx8}" FAKE_CUDA_STATS="$TMP/stats" FAKE_NCCL_TIMEOUT_S=600
	LD_PRELOAD="$TMP/libcuda.so.1" LD_LIBRARY_PATH="$TMP")

# one process per family, as `check` runs them: the GPU cache is made once
"${MODEL[@]}" "$BIN" probe copy p2p.bw -b 1M -e 64M -f 8 --probe-timeout 600 --timeout 1200 --json \
	>"$TMP/copy.json" 2>"$TMP/copy.err" || true
"${MODEL[@]}" "$BIN" probe nccl -b 1M -e 64M -f 4 --probe-timeout 600 --timeout 1200 --json \
	>"$TMP/nccl.json" 2>"$TMP/nccl.err" || true

python3 - "$TMP" <<'PY'
import glob, json, os, statistics, sys
tmp = sys.argv[1]
P = {}
for line in open(f"{tmp}/stats"):
    k, v = line.split()
    P[k] = float(v)
print("model: " + " ".join(f"{k}={P[k]:g}" for k in (
    "h2d_gbs", "d2h_gbs", "p2p_gbs", "hbm_gbs", "copy_lat_ns", "nccl_lat_ns", "ar_busbw_gbs", "coll_busbw_gbs")))
print("host costs (ns): " + " ".join(f"{k}={P[k]:g}" for k in (
    "launch_ns", "query_ns", "sync_ns", "nccl_group_ns", "ctx_ns", "alloc_ns")) + " (a graph launch: launch_ns)")
print(f"graphs: {P.get('captures', 0):g} captured, {P.get('graph_launches', 0):g} launches (nccl run)")
N = 8

def copy_x(bw, traffic):
    return lambda s: s / (P["copy_lat_ns"] + s * traffic / bw)

def coll_t(factor, bw):
    return lambda s: P["nccl_lat_ns"] + s * factor / bw

def coll_x(factor, bw):
    return lambda s: s * factor / coll_t(factor, bw)(s)

f2, f1 = 2 * (N - 1) / N, (N - 1) / N
model = {
    "copy.h2d": copy_x(P["h2d_gbs"], 1), "copy.d2h": copy_x(P["d2h_gbs"], 1),
    "copy.d2d": copy_x(P["hbm_gbs"], 2), "copy.bidir": copy_x(P["h2d_gbs"], 1),
    "p2p.bw": copy_x(P["p2p_gbs"], 1),
    "nccl.all_reduce": coll_x(f2, P["ar_busbw_gbs"]), "nccl.all_gather": coll_x(f1, P["coll_busbw_gbs"]),
    "nccl.reduce_scatter": coll_x(f1, P["coll_busbw_gbs"]), "nccl.alltoall": coll_x(f1, P["coll_busbw_gbs"]),
    "nccl.broadcast": coll_x(1, P["coll_busbw_gbs"]), "nccl.reduce": coll_x(1, P["coll_busbw_gbs"]),
    "nccl.sendrecv": coll_x(1, P["coll_busbw_gbs"]),
}
factor = {n: f2 if n == "nccl.all_reduce" else f1 if n in (
    "nccl.all_gather", "nccl.reduce_scatter", "nccl.alltoall") else 1 for n in model}
runs = []
for f in ("copy", "nccl"):
    try:
        runs += json.load(open(f"{tmp}/{f}.json")).get("probes", [])
    except ValueError:
        print(f"{f}: no result: {open(f'{tmp}/{f}.err').read().strip()[-300:]}")
for name in model:
    rows, direct = {}, False
    for run in runs:
        if run["name"] != name:
            continue
        if run["status"] != "ok":
            print(f"{name} {run.get('variant') or ''} status={run['status']}: {run.get('reason')}")
        if run.get("variant") == "in_place":
            continue
        direct |= "back to back" in (run.get("reason") or "")
        for r in run.get("results") or []:
            if r.get("busbw_gbyte_s"):
                rows.setdefault(r["bytes"], []).append(r["busbw_gbyte_s"])
    for b in sorted(rows):
        x, y = model[name](b), statistics.median(rows[b])
        note = ""
        # launched directly (no graph): device time per operation below the host's cost of
        # launching one (a kernel per GPU, through the blocking communicators)
        if direct and name.startswith("nccl.") and b * factor[name] / x < N * P["launch_ns"]:
            # what nccl-tests -g 8 reads there: one group's launches per collective
            t = N * P["launch_ns"]
            note = f" host-bound nccl-tests={b * factor[name] / t:.1f} (measured/nccl-tests={y * t / (b * factor[name]):.3f})"
        print(f"{name} {b} modelled={x:.1f} measured={y:.1f} ratio={y / x:.3f}{note}")
PY

[ "${CHECK:-1}" = 0 ] && exit 0
start=$(date +%s.%N)
"${MODEL[@]}" "$BIN" check --json >"$TMP/check.json" 2>"$TMP/check.err" || true
end=$(date +%s.%N)
python3 - "$TMP/check.json" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f"{p['name']}:{p['status']}" for p in d.get("probes", []) if p["status"] not in ("ok", "skipped")]
print(f"check wall_s={float(sys.argv[3]) - float(sys.argv[2]):.1f} probes={len(d.get('probes', []))} not_ok={' '.join(bad) or 'none'}")
PY
