#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# commdiag's GPU probes against the references on the same GPUs, in one run: nvbandwidth
# (copy engine testcases) for copy.* and p2p.bw, nccl-tests (out-of-place busbw) for nccl.*.
# Prints one line per probe, GPU and size:
#   PROBE BYTES reference=X commdiag=Y ratio=Z        (GB/s; ratio = commdiag / reference)
# and writes a JSON record (hardware, driver, CUDA, NCCL and tool versions, every raw number)
# meant to be committed as tests/data/gpu-<machine>.json.
#
# The references are not part of commdiag and this script fetches nothing. Put their sources
# beside it (or name the folder with --src): bench/nccl-tests from
# https://github.com/NVIDIA/nccl-tests and bench/nvbandwidth from
# https://github.com/NVIDIA/nvbandwidth (git clone; never commit them). It builds both (and
# commdiag, unless --commdiag names a build). A GPU node may lack the build dependencies
# (hwloc, libnl, libibverbs, cJSON for commdiag; Boost program_options for nvbandwidth):
# --deps DIR takes Debian packages unpacked with `dpkg -x` into DIR. Make it on any Debian 12
# machine (the same release as the node), then copy deps/ to the node:
#   apt-get download libhwloc-dev libhwloc15 libnuma-dev libnl-3-dev libnl-3-200 \
#     libnl-route-3-dev libnl-route-3-200 libibverbs-dev libibverbs1 libcjson-dev libcjson1 \
#     libboost-program-options1.74-dev libboost-program-options1.74.0 libboost1.74-dev
#   for d in *.deb; do dpkg -x "$d" deps; done
#
# Which numbers meet (same GPU numbering: both honour CUDA_VISIBLE_DEVICES):
#   copy.h2d  GPU d  host_to_device_memcpy_ce          [CPU][d]
#   copy.d2h  GPU d  device_to_host_memcpy_ce          [CPU][d]
#   copy.d2d  GPU d  device_local_copy                 [d]
#   copy.bidir GPU d variant h2d: host_to_device_bidirectional_memcpy_ce [CPU][d] (host to
#                    device while device to host runs), variant d2h: device_to_host_bidirectional_
#                    memcpy_ce; commdiag times each direction with the other running, as nvbandwidth
#   p2p.bw d->p      device_to_device_memcpy_write_ce  [d][p]: the same copy (d's engine, d to p);
#                    also "p2p.bw(read)" against device_to_device_memcpy_read_ce [p][d]
#                    (the same data direction, p's engine)
#   nccl.X           X_perf out-of-place busbw at each size; commdiag's out-of-place busbw.
#                    commdiag captures each size's operations into one CUDA graph per GPU and
#                    times graph launches (nccl-tests' -G method; the probe's reason says when
#                    it fell back to launches back to back), so nccl-tests runs with -G too
#                    (--nt-graph N, default 10 graph launches; 0: plain launches). With -g N
#                    in one process, plain launches are host-bound below a few MiB: one thread
#                    launches a kernel per GPU per operation.
# nvbandwidth copies one buffer size (--size MiB, its --bufferSize, default 512): commdiag's
# copy probes run at that size. nccl-tests and commdiag's nccl probes sweep -b..-e by 2.
#
# Built references (--nccl-tests DIR holding the *_perf programs, --nvbandwidth BIN) are run
# as they are: build them once, elsewhere if the node has no compiler, and skip the sources.
#
# On one GPU nccl-tests' busbw is 0 for the reductions and gathers (its factor is 2(n-1)/n,
# (n-1)/n): there the nccl lines compare algbw, and say so ("nccl.X(algbw)").
#
# --dry-run (CI: tests/run_gpu_compare.sh): commdiag's probes on the fake driver
# (tests/fake/fake_cuda.c, FAKE_CUDA=two) and fake NCCL (tests/fake/fake_nccl_world.c),
# built here as tests/run_e2e.sh builds them, against recorded reference outputs
# (tests/data/gpu-compare, or --ref DIR): the plumbing and the parsers, not the numbers.
set -eu

usage() {
	cat <<'EOF'
usage: bench/gpu_compare.sh [--commdiag BIN] [--src DIR] [--deps DIR] [--out FILE]
                            [--nccl-tests DIR] [--nvbandwidth BIN]
                            [--size MIB] [-b MIN] [-e MAX] [--colls LIST] [--dry-run [--ref DIR]]
  --commdiag BIN  a commdiag build to test (default: build this checkout's)
  --src DIR       folder holding nccl-tests/ and nvbandwidth/ sources (default: bench/)
  --nccl-tests DIR  built nccl-tests programs (<coll>_perf) to run instead of building
  --nvbandwidth BIN a built nvbandwidth to run instead of building
  --deps DIR      Debian packages unpacked with dpkg -x, for a node without them
  --out FILE      the JSON record (default: gpu-compare-HOST.json here)
  --size MIB      nvbandwidth's buffer and commdiag's copy size, in MiB (default 512)
  -b, -e          nccl sweep, bytes with K/M/G (default 1M, 1G)
  --colls LIST    nccl-tests collectives (default all_reduce,all_gather,reduce_scatter,broadcast,reduce,sendrecv)
  --nt-graph N    nccl-tests' -G (CUDA graph launches per timing, default 10; 0: no graphs)
  --dry-run       fake driver and recorded references (--ref DIR, default tests/data/gpu-compare)
EOF
}
die() {
	echo "gpu_compare: $*" >&2
	exit 2
}

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BIN='' SRC=$HERE DEPS='' NT_BIN='' NVB_BIN='' OUT='' SIZE_MIB='' MINB=1M MAXB=1G DRY=0 REF=$ROOT/tests/data/gpu-compare NT_GRAPH=10
COLLS=all_reduce,all_gather,reduce_scatter,broadcast,reduce,sendrecv
while [ $# -gt 0 ]; do
	case $1 in
	--commdiag) BIN=${2:?--commdiag needs a path} && shift ;;
	--src) SRC=${2:?--src needs a folder} && shift ;;
	--deps) DEPS=${2:?--deps needs a folder} && shift ;;
	--nccl-tests) NT_BIN=${2:?--nccl-tests needs a folder} && shift ;;
	--nvbandwidth) NVB_BIN=${2:?--nvbandwidth needs a path} && shift ;;
	--out) OUT=${2:?--out needs a file} && shift ;;
	--size) SIZE_MIB=${2:?--size needs MiB} && shift ;;
	-b) MINB=${2:?-b needs a size} && shift ;;
	-e) MAXB=${2:?-e needs a size} && shift ;;
	--colls) COLLS=${2:?--colls needs a list} && shift ;;
	--nt-graph) NT_GRAPH=${2:?--nt-graph needs a count} && shift ;;
	--ref) REF=${2:?--ref needs a folder} && shift ;;
	--dry-run) DRY=1 ;;
	-h | --help) usage && exit 0 ;;
	*) usage >&2 && die "unknown option '$1'" ;;
	esac
	shift
done
case $SIZE_MIB in '' | *[!0-9]* | 0) [ -z "$SIZE_MIB" ] || die "option '--size': expected a whole number of MiB, got '$SIZE_MIB'" ;; esac
case $NT_GRAPH in '' | *[!0-9]*) die "option '--nt-graph': expected a whole number of graph launches (0: none), got '$NT_GRAPH'" ;; esac
case $COLLS in *[!a-z_,]*) die "option '--colls': expected names like all_reduce,all_gather, got '$COLLS'" ;; esac
command -v python3 >/dev/null || die "python3 is needed to read the outputs"
OUT=${OUT:-$PWD/gpu-compare-$(hostname -s).json}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpu-compare.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
CC=${CC:-cc}

if [ -n "$DEPS" ]; then
	[ -d "$DEPS/usr" ] || die "option '--deps': '$DEPS' has no usr/ (expected packages unpacked with dpkg -x)"
	DEPS=$(cd "$DEPS" && pwd)
	LIBD=$DEPS/usr/lib/$(${CC} -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
	# dpkg -x keeps the packages' prefix=/usr: point the pkg-config files at DIR instead
	for pc in "$LIBD"/pkgconfig/*.pc "$DEPS"/usr/share/pkgconfig/*.pc; do
		[ -f "$pc" ] && sed -i -E "s#^([A-Za-z_]+)=/usr(/|\$)#\\1=$DEPS/usr\\2#" "$pc"
	done
	export PKG_CONFIG_PATH=$LIBD/pkgconfig:$DEPS/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
	export LD_LIBRARY_PATH=$LIBD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LIBRARY_PATH=$LIBD${LIBRARY_PATH:+:$LIBRARY_PATH}
	export CPATH=$DEPS/usr/include${CPATH:+:$CPATH}
	export CMAKE_PREFIX_PATH=$DEPS/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
fi

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ -n "$BIN" ]; then
	[ -x "$BIN" ] || die "option '--commdiag': '$BIN' is not an executable"
	BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
else
	echo "gpu_compare: building commdiag" >&2
	make -C "$ROOT" -j"$(nproc)" commdiag CUDA_HOME="$CUDA_HOME" >"$TMP/build-commdiag.log" 2>&1 ||
		die "building commdiag failed (make -C $ROOT commdiag): $(tail -n 5 "$TMP/build-commdiag.log")"
	BIN=$ROOT/commdiag
fi

# ---- the references: recorded (dry run) or built and run here ----
PROBE_ENV=()
IFS=, read -r -a COLL_LIST <<<"$COLLS"
if [ "$DRY" = 1 ]; then
	SIZE_MIB=${SIZE_MIB:-1}
	[ -f "$REF/nvbandwidth.log" ] || die "option '--ref': '$REF' has no nvbandwidth.log"
	COLL_LIST=()
	for f in "$REF"/*_perf.log; do
		[ -f "$f" ] || continue
		c=$(basename "$f" _perf.log) && COLL_LIST+=("$c")
	done
	# the recorded nccl-tests ran -b 1K -e 64K -f 4 on two GPUs
	MINB=1K MAXB=64K
	mkdir -p "$TMP/fake"
	if ! { "$CC" -shared -fPIC -o "$TMP/fake/libcuda.so.1" "$ROOT/tests/fake/fake_cuda.c" &&
		"$CC" -std=c11 -D_GNU_SOURCE -shared -fPIC -o "$TMP/fake/libnccl.so.2" "$ROOT/tests/fake/fake_nccl_world.c" -lrt; }; then
		die "building the fake driver and NCCL (tests/fake) failed"
	fi
	PROBE_ENV=(env FAKE_CUDA=two FAKE_NCCL_TIMEOUT_S=5 LD_LIBRARY_PATH="$TMP/fake")
else
	SIZE_MIB=${SIZE_MIB:-512}
	# the references' own outputs are kept beside the record
	REF=${OUT%.json}-logs
	mkdir -p "$REF" || die "cannot make '$REF' for the reference outputs"
	NT=$SRC/nccl-tests NVB=$SRC/nvbandwidth NT_PERF=$NT_BIN
	if [ -n "$NT_BIN" ]; then
		[ -d "$NT_BIN" ] || die "option '--nccl-tests': '$NT_BIN' is not a folder"
	else
		[ -f "$NT/Makefile" ] || die "no nccl-tests sources in '$NT': git clone https://github.com/NVIDIA/nccl-tests there (or --src DIR, or --nccl-tests DIR)"
	fi
	if [ -n "$NVB_BIN" ]; then
		[ -x "$NVB_BIN" ] || die "option '--nvbandwidth': '$NVB_BIN' is not an executable"
	else
		[ -f "$NVB/CMakeLists.txt" ] || die "no nvbandwidth sources in '$NVB': git clone https://github.com/NVIDIA/nvbandwidth there (or --src DIR, or --nvbandwidth BIN)"
	fi
	command -v nvidia-smi >/dev/null || die "no nvidia-smi: this needs a node with NVIDIA GPUs and their driver"
	if [ -z "$NT_BIN" ]; then
		NCCL_HOME=${NCCL_HOME:-$([ -f "$CUDA_HOME/include/nccl.h" ] && echo "$CUDA_HOME" || echo /usr)}
		echo "gpu_compare: building nccl-tests" >&2
		make -C "$NT" -j"$(nproc)" MPI=0 CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NCCL_HOME" >"$TMP/build-nccl-tests.log" 2>&1 ||
			die "building nccl-tests failed: $(tail -n 5 "$TMP/build-nccl-tests.log")"
		NT_PERF=$NT/build
	fi
	if [ -z "$NVB_BIN" ]; then
		echo "gpu_compare: building nvbandwidth" >&2
		if ! { cmake -S "$NVB" -B "$NVB/build" -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" >"$TMP/build-nvbandwidth.log" 2>&1 &&
			cmake --build "$NVB/build" -j"$(nproc)" >>"$TMP/build-nvbandwidth.log" 2>&1; }; then
			die "building nvbandwidth failed (Boost program_options? see --deps): $(tail -n 5 "$TMP/build-nvbandwidth.log")"
		fi
		NVB_BIN=$NVB/build/nvbandwidth
	fi
fi

# ---- commdiag's probes (first: its document says how many GPUs there are) ----
echo "gpu_compare: commdiag probes" >&2
"${PROBE_ENV[@]}" "$BIN" probe copy.h2d copy.d2h copy.d2d copy.bidir p2p.bw -b "${SIZE_MIB}M" -e "${SIZE_MIB}M" \
	--json >"$TMP/cd-copy.json" 2>"$TMP/cd-copy.err" || [ $? -le 1 ] ||
	die "commdiag probe copy failed: $(tail -n 3 "$TMP/cd-copy.err")"
NCCL_PROBES=(nccl.init)
for c in "${COLL_LIST[@]}"; do NCCL_PROBES+=("nccl.$c"); done
"${PROBE_ENV[@]}" "$BIN" probe "${NCCL_PROBES[@]}" -b "$MINB" -e "$MAXB" -f 2 --json \
	>"$TMP/cd-nccl.json" 2>"$TMP/cd-nccl.err" || [ $? -le 1 ] ||
	die "commdiag probe nccl failed: $(tail -n 3 "$TMP/cd-nccl.err")"
# commdiag's own documents are kept beside the references' outputs
[ "$DRY" = 1 ] || cp "$TMP/cd-copy.json" "$TMP/cd-nccl.json" "$REF/"
NGPUS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["hosts"][0]["gpus"]))' "$TMP/cd-copy.json")

if [ "$DRY" = 0 ]; then
	[ "$NGPUS" -ge 1 ] || die "commdiag sees no GPU: $(tail -n 3 "$TMP/cd-copy.err")"
	echo "gpu_compare: nvbandwidth and nccl-tests on $NGPUS GPU(s)" >&2
	"$NVB_BIN" -b "$SIZE_MIB" -t host_to_device_memcpy_ce device_to_host_memcpy_ce \
		host_to_device_bidirectional_memcpy_ce device_local_copy device_to_device_memcpy_write_ce \
		device_to_device_memcpy_read_ce >"$REF/nvbandwidth.log" 2>&1 ||
		die "nvbandwidth failed: $(tail -n 5 "$REF/nvbandwidth.log")"
	for c in "${COLL_LIST[@]}"; do
		[ -x "$NT_PERF/${c}_perf" ] || die "nccl-tests has no ${c}_perf in '$NT_PERF' (option '--colls')"
		"$NT_PERF/${c}_perf" -b "$MINB" -e "$MAXB" -f 2 -g "$NGPUS" -G "$NT_GRAPH" >"$REF/${c}_perf.log" 2>&1 ||
			die "${c}_perf failed: $(tail -n 5 "$REF/${c}_perf.log")"
	done
fi

python3 - "$TMP" "$REF" "$OUT" "$DRY" "$SIZE_MIB" "${COLL_LIST[@]}" <<'PY'
import datetime, json, os, re, socket, sys

tmp, ref, out, dry, size_mib = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5])
colls = sys.argv[6:]


def fail(msg):
    print(f"gpu_compare: {msg}", file=sys.stderr)
    sys.exit(2)


def nvbandwidth(path):
    """nvbandwidth's text output (output.cpp, inline_common.h of v0.8): 'Running KEY.', a
    title line, a header of column numbers, rows 'INDEX v v ...' with N/A where nothing ran,
    a blank line, 'SUM KEY total'. A testcase that cannot run prints 'Waived: '."""
    res, version, lines = {}, None, open(path, errors="replace").read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"nvbandwidth Version: (\S+)", line)
        if m:
            version = m.group(1)
        m = re.match(r"Device (\d+): (.*) \(([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\)$", line.strip())
        if m:
            nvb_devices[int(m.group(1))] = {"name": m.group(2), "bus_id": "%04x:%s:%s.0" % (
                int(m.group(3), 16), m.group(4).lower(), m.group(5).lower())}
        m = re.match(r"Running (\w+)\.$", line.strip())
        if not m:
            i += 1
            continue
        key, i = m.group(1), i + 1
        if i < len(lines) and re.match(r"(Waived|ERROR)\b", lines[i].strip()):
            res[key] = {"status": lines[i].strip()}
            i += 1
            continue
        if i + 1 >= len(lines):
            fail(f"{path}: testcase {key}: no matrix after 'Running {key}.'")
        title, cols = lines[i].strip(), lines[i + 1].split()
        if not cols or not all(c.isdigit() for c in cols):
            fail(f"{path}:{i + 2}: testcase {key}: expected the column numbers, got '{lines[i + 1].strip()}'")
        rows, i = [], i + 2
        while i < len(lines) and lines[i].strip():
            p = lines[i].split()
            if len(p) != len(cols) + 1 or not p[0].isdigit():
                fail(f"{path}:{i + 1}: testcase {key}: expected a row of {len(cols)} values, got '{lines[i].strip()}'")
            rows.append([None if v == "N/A" else float(v) for v in p[1:]])
            i += 1
        res[key] = {"title": title, "matrix": rows}
    if not res:
        fail(f"{path}: no 'Running <testcase>.' line: not nvbandwidth's text output")
    return version, res


def nccl_tests(path):
    """nccl-tests' table: the column names line ('#  size count type redop root time algbw
    busbw #wrong ...'; older releases lack root or #wrong) places the first algbw and busbw,
    the out-of-place ones; data rows start with the size in bytes. Rows: bytes -> (algbw, busbw)."""
    version, col, rows = None, None, {}
    for n, line in enumerate(open(path, errors="replace"), 1):
        m = re.match(r"#\s*nccl-tests version (\S+)", line)
        if m:
            version = m.group(1)
        m = re.search(r"\bgraph: (\d+)", line)
        if m and line.startswith("#"):
            nt_graph[path] = int(m.group(1))
        p = line.split()
        if p[:1] == ["#"] and "size" in p and "busbw" in p:
            names = p[1:]
            col, acol = names.index("busbw"), names.index("algbw")
            continue
        if col is None or not p or not p[0].isdigit():
            continue
        if len(p) <= col:
            fail(f"{path}:{n}: a row without the out-of-place busbw column: '{line.strip()}'")
        try:
            rows[int(p[0])] = (float(p[acol]), float(p[col]))
        except ValueError:
            fail(f"{path}:{n}: algbw '{p[acol]}' or busbw '{p[col]}' is not a number")
    if col is None or not rows:
        fail(f"{path}: no nccl-tests table (a '# size ... busbw' header and rows)")
    return version, rows


nvb_devices = {}
nt_graph = {}  # the -G each nccl-tests log says it ran with ('graph: N' in its header)
cd_copy = json.load(open(f"{tmp}/cd-copy.json"))
cd_nccl = json.load(open(f"{tmp}/cd-nccl.json"))
host = cd_copy["hosts"][0]
nvb_version, nvb = nvbandwidth(f"{ref}/nvbandwidth.log")
nt = {c: nccl_tests(f"{ref}/{c}_perf.log") for c in colls}
size = size_mib << 20
lines, comparisons, raw = [], [], []


def cell(key, r, c):
    m = nvb.get(key, {}).get("matrix")
    if m is None or r >= len(m) or c >= len(m[r]):
        return None
    return m[r][c]


def compare(probe, nbytes, ref, mine, source):
    if ref is None or mine is None:
        return
    ratio = mine / ref if ref > 0 else None
    comparisons.append({"probe": probe, "bytes": nbytes, "reference_gbyte_s": ref, "commdiag_gbyte_s": mine,
                        "ratio": ratio, "reference": source})
    lines.append(f"{probe} {nbytes} reference={ref:.2f} commdiag={mine:.2f} ratio="
                 + (f"{ratio:.3f}" if ratio is not None else "n/a"))


copy_ref = {"copy.h2d": "host_to_device_memcpy_ce", "copy.d2h": "device_to_host_memcpy_ce",
            "copy.d2d": "device_local_copy"}
bidir_ref = {"h2d": "host_to_device_bidirectional_memcpy_ce", "d2h": "device_to_host_bidirectional_memcpy_ce"}
for p in cd_copy["probes"] + cd_nccl["probes"]:
    for s in p.get("results") or []:
        raw.append({k: p.get(k) for k in ("name", "variant", "device", "peer", "nranks", "status")} |
                   {k: s.get(k) for k in ("bytes", "iters", "time_us", "algbw_gbyte_s", "busbw_gbyte_s", "errors")})
    if p["status"] != "ok" or not p.get("results"):
        if p["name"] != "nccl.init":
            print(f"gpu_compare: {p['name']}: {p['status']}: {p.get('reason')}", file=sys.stderr)
        continue
    name, d, q = p["name"], p.get("device"), p.get("peer")
    for s in p["results"]:
        if name == "copy.bidir" and s["bytes"] == size:
            # one run per direction, each timed while the other direction runs, as nvbandwidth's
            ref = bidir_ref.get(p.get("variant"))
            if ref:
                compare(f"{name}({p.get('variant')}):gpu{d}", size, cell(ref, 0, d), s["algbw_gbyte_s"], ref)
        elif name in copy_ref and s["bytes"] == size:
            compare(f"{name}:gpu{d}", size, cell(copy_ref[name], 0, d), s["algbw_gbyte_s"], copy_ref[name])
        elif name == "p2p.bw" and s["bytes"] == size:
            compare(f"p2p.bw:gpu{d}-gpu{q}", size, cell("device_to_device_memcpy_write_ce", d, q),
                    s["algbw_gbyte_s"], "device_to_device_memcpy_write_ce")
            compare(f"p2p.bw(read):gpu{d}-gpu{q}", size, cell("device_to_device_memcpy_read_ce", q, d),
                    s["algbw_gbyte_s"], "device_to_device_memcpy_read_ce")
        elif name.startswith("nccl.") and name[5:] in nt and p.get("variant") in (None, "out_of_place"):
            ref = nt[name[5:]][1].get(s["bytes"])
            if ref is None:
                continue
            if ref[1] == 0 and p.get("nranks") == 1:
                # one GPU: busbw's factor is 0 for the reductions and gathers; algbw still measures
                compare(f"{name}(algbw)", s["bytes"], ref[0], s["algbw_gbyte_s"], f"{name[5:]}_perf algbw")
            else:
                compare(name, s["bytes"], ref[1], s["busbw_gbyte_s"], f"{name[5:]}_perf")
if not comparisons:
    fail("no probe met its reference: see the statuses above")
# both number GPUs the CUDA way: the same index must be the same device
for g in host.get("gpus", []):
    n = nvb_devices.get(g.get("index"))
    if n and g.get("bus_id") and n["bus_id"] != g["bus_id"].lower():
        print(f"gpu_compare: warning: GPU {g['index']} is {g['bus_id']} to commdiag but {n['bus_id']} to nvbandwidth",
              file=sys.stderr)
print("\n".join(lines))

v = host.get("versions", {})
record = {
    "kind": "commdiag gpu_compare",
    "dry_run": dry,
    "date": None if dry else datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "host": "fake" if dry else socket.gethostname(),
    "hardware": {"gpus": [{k: g.get(k) for k in ("index", "name", "bus_id", "uuid", "memory_bytes",
                                                 "compute_capability", "pcie_gen", "pcie_width")}
                          for g in host.get("gpus", [])],
                 "paths": host.get("paths", {}).get("gpu_gpu")},
    "versions": {"driver": v.get("driver"), "cuda_driver": v.get("cuda_driver"), "nccl": v.get("nccl"),
                 "commdiag": v.get("commdiag"), "nvbandwidth": nvb_version,
                 "nccl_tests": sorted({x[0] for x in nt.values() if x[0]})},
    "settings": {"copy_bytes": size, "nccl_tests_graph_launches": sorted(set(nt_graph.values())),
                 "commdiag_nccl_method": sorted({p.get("reason") or "graphs" for p in cd_nccl["probes"]
                                                 if p["name"] != "nccl.init" and p["status"] == "ok"}),
                 "nccl_sizes": sorted({s["bytes"] for s in raw if s["name"].startswith("nccl.") and s["name"] != "nccl.init"})},
    "nvbandwidth_devices": nvb_devices,
    "reference": {"nvbandwidth": nvb,
                  "nccl_tests": {c: {str(b): {"algbw_gbyte_s": bw[0], "busbw_gbyte_s": bw[1]} for b, bw in x[1].items()}
                                 for c, x in nt.items()}},
    "commdiag": raw,
    "comparisons": comparisons,
}
tmp_out = out + ".tmp"
with open(tmp_out, "w") as f:
    json.dump(record, f, indent=1)
    f.write("\n")
os.replace(tmp_out, out)
print(f"gpu_compare: {len(comparisons)} comparisons, record in {out}", file=sys.stderr)
PY
