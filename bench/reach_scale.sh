#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 18: how tcp.reach and the gather scale. Prints what it measured on this machine and
# the model it extrapolates to 16, 256, 1024 and 4096 nodes.
#
# 1. tcp.reach across N "hosts" (network namespaces on this machine, as tests/netns/run.sh:
#    eth0 routed through a bridge, docker0 172.17.0.1/16 on every host, which never reaches
#    another host): rounds, attempts per host and wall time of the probe, sample and all.
#    Needs root; skipped with the reason otherwise.
# 2. The gather: rank 0's bytes received, time and peak RSS (VmHWM) at 16 and 32 ranks
#    (oversubscribed on this host), from commdiag -v's "dist: gather" line; then rank 0's
#    cost per host of the document, from documents of 64 and 256 copies of an 8-GPU node
#    (tests/data/docs/h100-clean.json) loaded and written back (report --from), fitted
#    linearly.
#
# Usage: bench/reach_scale.sh [./commdiag] [HOSTS=16]
set -u
BIN=$(realpath "${1:-./commdiag}")
N=${2:-16}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-reach.XXXXXX")
TAG=rs$$
cleanup() {
	for i in $(seq "$N"); do ip netns del "${TAG}h$i" 2>/dev/null; done
	ip link del "${TAG}br" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
command -v mpirun >/dev/null || { echo "bench: needs mpirun" >&2; exit 2; }
"$BIN" version --json | python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["mpi"] else 1)' ||
	{ echo "bench: commdiag built without MPI (make MPI=1)" >&2; exit 2; }

# ---- 1. tcp.reach across N namespaces ----
setup() {
	ip link add "${TAG}br" type bridge && ip addr add 10.78.0.254/24 dev "${TAG}br" && ip link set "${TAG}br" up || return 1
	for i in $(seq "$N"); do
		local ns=${TAG}h$i
		ip netns add "$ns" || return 1
		ip link add "${TAG}v$i" type veth peer name eth0 netns "$ns" || return 1
		ip link set "${TAG}v$i" master "${TAG}br" up || return 1
		ip -n "$ns" link set lo up
		ip -n "$ns" addr add "10.78.0.$i/24" dev eth0 && ip -n "$ns" link set eth0 up || return 1
		ip -n "$ns" link add docker0 type bridge forward_delay 0 || return 1
		ip -n "$ns" link add vethc0 type veth peer name vethc1 || return 1
		ip -n "$ns" link set vethc0 master docker0 up && ip -n "$ns" link set vethc1 up || return 1
		ip -n "$ns" addr add 172.17.0.1/16 dev docker0 && ip -n "$ns" link set docker0 up || return 1
		printf '%032x\n' "$i" >"$TMP/machine-id.host$i"
		printf 'host%s slots=1\n' "$i" >>"$TMP/hosts"
		MAP=${MAP:+$MAP,}host$i=$ns
	done
	for i in $(seq 100); do
		ip -n "${TAG}h$N" link show docker0 | grep -q 'state UP' && return 0
		sleep 0.1
	done
	return 1
}
reach() { # reach MODE: one tcp.reach run over the N hosts, its document in $TMP/reach-MODE.json
	local t0 t1
	t0=$(date +%s.%N)
	CD_NETNS_MAP=$MAP CD_NETNS_DIR=$TMP CD_NETNS_UTS=1 timeout 300 mpirun --allow-run-as-root --oversubscribe \
		-np "$N" --hostfile "$TMP/hosts" --map-by node \
		--mca plm_rsh_agent "$ROOT/tests/netns/rsh-agent.sh" --mca plm_rsh_no_tree_spawn 1 \
		--mca oob_tcp_if_include 10.78.0.0/24 --mca btl_tcp_if_include 10.78.0.0/24 \
		-x CD_NETNS_MAP -x CD_NETNS_DIR -x NO_COLOR=1 \
		"$BIN" probe tcp.reach --reach "$1" --json --timeout 240 -o "$TMP/reach-$1.json" 2>"$TMP/reach-$1.err"
	t1=$(date +%s.%N)
	python3 - "$TMP/reach-$1.json" "$1" "$N" "$t0" "$t1" <<'PY'
import json, sys
path, mode, n, t0, t1 = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
try:
    d = json.load(open(path))
except Exception as e:
    print(f"tcp.reach {mode}: no document ({e})"); sys.exit(0)
runs = [p for p in d["probes"] if p["name"] == "tcp.reach"]
rounds = max((p["results"][0]["iters"] for p in runs if p["results"]), default=0)
wall = max((p["results"][0]["time_us"] for p in runs if p["results"]), default=0) / 1e6
per = {}
for x in d["reach"]:
    per.setdefault(x["from"], set()).add(x["to"])
peers = sorted(len(v) for v in per.values())
dock = [x for x in d["reach"] if x["iface"] == "docker0"]
print(f"tcp.reach {mode:6s} {n} hosts: {rounds} rounds, peers per host {peers[0]}-{peers[-1]}, "
      f"{len(d['reach'])} attempts ({sum(1 for x in dock if not x['ok'])} docker0 failed, "
      f"{sum(1 for x in d['reach'] if x['iface'] == 'eth0' and x['ok'])} eth0 ok), "
      f"probe {wall:.2f} s (slowest host), mpirun {t1 - t0:.1f} s; statuses {sorted(set(p['status'] for p in runs))}")
PY
}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: tcp.reach across namespaces needs root"
elif ! setup 2>"$TMP/setup.err"; then
	echo "SKIP: cannot create $N network namespaces: $(head -c 200 "$TMP/setup.err")"
else
	reach sample
	[ "$N" -le 64 ] && reach all
	cleanup_ns() { for i in $(seq "$N"); do ip netns del "${TAG}h$i" 2>/dev/null; done; ip link del "${TAG}br" 2>/dev/null; }
	cleanup_ns
fi

# ---- 2. the gather ----
for np in 16 32; do
	mpirun --allow-run-as-root --oversubscribe -np "$np" "$BIN" check --quick --json -v -o "$TMP/g$np.json" \
		2>"$TMP/g$np.err"
	echo "gather $np ranks (one host): $(grep -o 'dist: gather: .*' "$TMP/g$np.err" | head -1)"
done
python3 - "$BIN" "$ROOT/tests/data/docs/h100-clean.json" "$TMP" <<'PY'
import copy, json, subprocess, sys
bin_, base, tmp = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
host = base["hosts"][0]
def doc(n):
    d = copy.deepcopy(base)
    d["hosts"] = []
    for i in range(n):
        h = copy.deepcopy(host)
        h["hostname"] = f"node{i:04d}"
        h["host_id"] = f"{i:032x}"
        d["hosts"].append(h)
    d["probes"], d["findings"], d["advice"] = [], [], []
    return d
pts = []
for n in (64, 256):
    p = f"{tmp}/doc{n}.json"
    json.dump(doc(n), open(p, "w"))
    size = len(open(p).read())
    out = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", bin_, "report", "--from", p, "--json", "-o", f"{tmp}/out.json"],
                         capture_output=True, text=True)
    kb, user, sys_ = out.stderr.strip().splitlines()[-1].split()
    sec = float(user) + float(sys_)  # CPU time: this machine's wall time is other jobs' too
    pts.append((n, size, int(kb), sec))
    print(f"document of {n} 8-GPU hosts: {size / 1e6:.1f} MB of JSON; load + write: peak RSS {int(kb) / 1024:.0f} MiB, {sec:.2f} s CPU")
(n1, s1, m1, t1), (n2, s2, m2, t2) = pts
per_kb, per_s, per_b = (m2 - m1) / (n2 - n1), (t2 - t1) / (n2 - n1), (s2 - s1) / (n2 - n1)
print(f"per host: {per_b / 1e3:.0f} kB of JSON, {per_kb:.0f} kB of rank 0's memory, {per_s * 1e3:.1f} ms of CPU")
print("model (rank 0: the parts' text, held until all arrived, plus the merged document; linear in hosts):")
for n in (16, 256, 1024, 4096):
    print(f"  {n:5d} hosts: {n * per_b / 1e6:7.1f} MB received, peak RSS ~{(m1 + per_kb * (n - n1) + n * per_b / 1024) / 1024:6.0f} MiB, "
          f"load, merge and write ~{max(t1 + per_s * (n - n1), 0):5.1f} s of CPU")
PY

# ---- the model of tcp.reach ----
cat <<'EOF'
model of tcp.reach (REACH_TIMEOUT_S = 2 s per attempt, 256 connects in flight per host):
  before issue 18: N - 1 rounds of disjoint pairs, each up to 2 s while an address does not answer
  sample (default): 2 rounds (the sample, then a second sample of what failed), each bounded by
      2 s x ceil(attempts / 256); a host tests its 2 ring neighbours + 6 hashed peers + at most one
      host per interface name, subnet or naming no peer has (64 at most)
  hosts   before (N-1) x 2 s   sample: rounds  bound (8 peers x 4 addresses = 32 attempts, 1 window)
EOF
for n in 16 256 1024 4096; do
	printf '  %5d   %8d s            %d       %d s + exchange and 2 barriers (log2 N messages)\n' "$n" $(((n - 1) * 2)) 2 4
done
