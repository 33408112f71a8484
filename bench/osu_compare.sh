#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# commdiag's mpi.latency (and mpi.bw) against the OSU micro-benchmarks' osu_latency
# (osu_bw) in the same session, same two ranks, same warm-up and iterations, runs
# interleaved. Prints, per message size, the median of each over RUNS runs and the ratio
# commdiag / OSU (latency: 1.00 = same time; bandwidth: 1.00 = same rate).
#
# Build OSU yourself (it is not part of commdiag and this script does not fetch it):
#   ./configure CC=mpicc CXX=mpicxx && make
# then:  OSU_DIR=/path/to/osu/mpi/pt2pt bench/osu_compare.sh [./commdiag]
# Knobs: RUNS (5), ITERS (1000), WARMUP (100), NP_FLAGS (extra mpirun flags).
# Prints ratios of the median run and of the best run of each (see table() for why).
# Differences that remain by design: OSU times a loop of blocking MPI_Send/MPI_Recv and
# reports the mean; commdiag times batches of 10 ping-pongs up to 8 KiB and each one
# above (MPI_Isend/Irecv + MPI_Test) and reports the median. Both start at 0 bytes.
set -eu
BIN=$(realpath "${1:-./commdiag}")
OSU_DIR=${OSU_DIR:?set OSU_DIR to the directory holding osu_latency (and osu_bw)}
RUNS=${RUNS:-5} ITERS=${ITERS:-1000} WARMUP=${WARMUP:-100}
MPIRUN="mpirun --allow-run-as-root -np 2 ${NP_FLAGS:-}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for r in $(seq "$RUNS"); do
	$MPIRUN "$OSU_DIR/osu_latency" -x "$WARMUP" -i "$ITERS" >"$TMP/osu_lat.$r"
	$MPIRUN "$BIN" probe mpi.latency -b 0 -e 1M -w "$WARMUP" -n "$ITERS" --json >"$TMP/cd_lat.$r" || true
	if [ -x "$OSU_DIR/osu_bw" ]; then
		$MPIRUN "$OSU_DIR/osu_bw" >"$TMP/osu_bw.$r"
		$MPIRUN "$BIN" probe mpi.bw -b 8K -e 1M --json >"$TMP/cd_bw.$r" || true
	fi
done

python3 - "$TMP" "$RUNS" <<'PY'
import glob, json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])

def osu(kind):
    out = {}
    for f in glob.glob(f"{tmp}/osu_{kind}.*"):
        for line in open(f):
            p = line.split()
            if len(p) == 2 and p[0].isdigit():
                out.setdefault(int(p[0]), []).append(float(p[1]))
    return out

def cd(kind, key):
    out = {}
    for f in glob.glob(f"{tmp}/cd_{kind}.*"):
        d = json.load(open(f))
        for p in d["probes"]:
            if p["status"] == "ok" and p["results"]:
                for s in p["results"]:
                    out.setdefault(s["bytes"], []).append(s[key])
    return out

def table(title, unit, o, c, scale=1.0, best=min):
    # A small VM's two vCPUs land on different host cores from one launch to the next, and
    # a whole run is then fast or slow (0.15 or 0.40 us at 8 B for osu_latency alike): the
    # median of runs mixes the two modes, the best run of each compares like with like.
    print(f"# {title}: median of {runs} runs each, and the best run of each")
    print(f"{'bytes':>9} {'osu ' + unit:>12} {'commdiag':>10} {'ratio':>7} {'best osu':>10} {'commdiag':>10} {'ratio':>7}")
    ratios, best_ratios = [], []
    for b in sorted(set(o) & set(c)):
        ov, cv = statistics.median(o[b]), statistics.median(c[b]) * scale
        ob, cb = best(o[b]), best(c[b]) * scale
        ratios.append(cv / ov)
        best_ratios.append(cb / ob)
        print(f"{b:>9} {ov:>12.2f} {cv:>10.2f} {cv / ov:>7.3f} {ob:>10.2f} {cb:>10.2f} {cb / ob:>7.3f}")
    for name, r in (("median", ratios), ("best", best_ratios)):
        if r:
            print(f"{name} runs: median ratio {statistics.median(r):.3f}, range {min(r):.3f}-{max(r):.3f}")
    print()

table("latency (one way)", "us", osu("lat"), cd("lat", "time_us"))
if glob.glob(f"{tmp}/osu_bw.*"):
    # osu_bw prints MB/s (1e6 B/s); commdiag GB/s (1e9 B/s)
    table("bandwidth (window 64)", "MB/s", osu("bw"), cd("bw", "algbw_gbyte_s"), 1000.0, max)
PY
