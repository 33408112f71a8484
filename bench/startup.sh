#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Startup + inventory time of `commdiag check --json` against the tools it replaces
# for the same facts (lstopo XML export, ip addr/route/link, ibv_devinfo), measured
# in the same run. Prints medians and the ratio commdiag / reference.
# Usage: bench/startup.sh [./commdiag] [runs]
set -eu
BIN=${1:-./commdiag}
RUNS=${2:-21}
for t in lstopo-no-graphics ip ibv_devinfo python3; do
	command -v "$t" >/dev/null || { echo "bench: needs $t (Debian: hwloc, iproute2, ibverbs-utils, python3)" >&2; exit 2; }
done
python3 - "$BIN" "$RUNS" <<'PY'
import statistics, subprocess, sys, time
bin_, runs = sys.argv[1], int(sys.argv[2])
cases = {
    "commdiag check --json": [bin_, "check", "--json"],
    "reference (lstopo xml + ip -j addr/route/link + ibv_devinfo -v)":
        ["sh", "-c", "lstopo-no-graphics --of xml >/dev/null; ip -j addr >/dev/null; ip -j route >/dev/null;"
                     " ip -j -d link >/dev/null; ibv_devinfo -v >/dev/null 2>&1; true"],
}
med = {}
for name, cmd in cases.items():
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ts.append(time.perf_counter() - t)
    med[name] = statistics.median(ts)
    print(f"{name:70s} median {med[name]*1e3:7.1f} ms  min {min(ts)*1e3:7.1f}  max {max(ts)*1e3:7.1f}  (n={runs})")
a, b = med.values()
print(f"ratio commdiag / reference: {a/b:.2f}")
PY
