#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# commdiag under srun, on a one-node Slurm cluster made of this machine: a private munged,
# slurmctld and slurmd (their configuration, keys, state and logs in a temporary directory,
# on ports of their own, so a Slurm already on the machine is left alone), then the jobs an
# admin runs: one document from srun --mpi=pmix, bad-node hunting with a slow rank, and a
# rank that never answers. (srun --mpi=none is not tried: Debian's Open MPI refuses a direct
# launch without PMI inside MPI_Init, with its own message, before commdiag can say a word.)
# Root only (slurmd must be); skips with the reason when Slurm, munge or PMIx support is
# missing, commdiag was built with MPI=0, or the daemons do not come up.
# Usage: tests/slurm/run.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-slurm.XXXXXX")
# shellcheck disable=SC2034 # read by tests/lib.sh
FAIL_PREFIX="slurm: "
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

skip_all() {
	echo "SKIP: slurm: $*" >&2
	exit 0
}

stop_daemons() {
	for f in "$TMP/slurmd.pid" "$TMP/slurmctld.pid" "$TMP/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.5
	rm -rf "$TMP"
}
trap stop_daemons EXIT

[ "$(id -u)" = 0 ] || skip_all "not root (slurmd runs as root)"
for c in munged slurmctld slurmd srun sinfo; do
	command -v "$c" >/dev/null || skip_all "$c not found (Debian: slurmctld slurmd slurm-client munge)"
done
if ! "$BIN" version --json | python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["mpi"] else 1)'; then
	skip_all "commdiag built with MPI=0"
fi

# OpenMPI keeps allocations until exit (as in run_mpi.sh)
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
export NO_COLOR=1
NODE=$(hostname -s)
PORT=$((17000 + $$ % 2000))
export SLURM_CONF="$TMP/slurm.conf"
mkdir -p "$TMP/spool/ctld" "$TMP/spool/d"
head -c 1024 /dev/urandom >"$TMP/munge.key"
chmod 400 "$TMP/munge.key"
munged -f --socket="$TMP/munge.sock" --key-file="$TMP/munge.key" --pid-file="$TMP/munged.pid" \
	--seed-file="$TMP/munge.seed" --log-file="$TMP/munged.log" 2>"$TMP/munged.err" ||
	skip_all "munged did not start: $(head -c 300 "$TMP/munged.err")"
cat >"$SLURM_CONF" <<CONF
ClusterName=commdiagtest
SlurmctldHost=$NODE
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$TMP/munge.sock
CredType=cred/munge
SlurmUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmdSpoolDir=$TMP/spool/d
StateSaveLocation=$TMP/spool/ctld
SlurmctldLogFile=$TMP/slurmctld.log
SlurmdLogFile=$TMP/slurmd.log
ReturnToService=2
MpiDefault=none
NodeName=$NODE CPUs=$(nproc) State=UNKNOWN
PartitionName=commdiag Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
srun --mpi=list 2>&1 | grep -q pmix || skip_all "this Slurm has no PMIx plugin (srun --mpi=list)"
slurmctld -i 2>"$TMP/ctld.err" || skip_all "slurmctld did not start: $(tail -c 300 "$TMP/ctld.err")"
slurmd 2>"$TMP/d.err" || skip_all "slurmd did not start: $(tail -c 300 "$TMP/d.err")"
for _ in $(seq 1 60); do
	state=$(sinfo -h -o %t 2>/dev/null)
	[ "$state" = idle ] && break
	sleep 0.5
done
[ "${state:-}" = idle ] || skip_all "the node did not become idle (state '${state:-}'): $(tail -c 300 "$TMP/slurmd.log" 2>/dev/null)"

# srun -O: more tasks than this machine's cores, as mpirun --oversubscribe
SRUN=(srun -O --mpi=pmix)

# 1. two tasks: one document, the launcher is srun and said 2, the MPI probes ran
"${SRUN[@]}" -n 2 "$BIN" check --json -o "$TMP/two.json" 2>"$TMP/err"
rc=$?
if [ $rc -le 1 ]; then ok; else bad "2 tasks: exit $rc: $(tail -c 400 "$TMP/err")"; fi
json_true "2 tasks: one document, launcher srun" "$TMP/two.json" \
	'd["run"]["ranks"] == 2 and d["run"]["launcher"] == "srun" and d["run"]["launcher_ranks"] == 2 and [k["rank"] for k in d["ranks"]] == [0, 1] and all(k["answered"] for k in d["ranks"])'
json_true "2 tasks: mpi.latency and mpi.bw between them" "$TMP/two.json" \
	'[p for p in d["probes"] if p["name"] == "mpi.latency" and p["status"] == "ok" and p["peer"] == 1] and [p for p in d["probes"] if p["name"] == "mpi.bw" and p["status"] == "ok"]'
json_true "2 tasks: no launcher finding" "$TMP/two.json" 'not [f for f in d["findings"] if f["id"] in ("MPI001", "MPI002")]'

# 2. bad-node hunting: task 2 is slow (test-only knob; srun passes the environment on)
COMMDIAG_TESTING=1 COMMDIAG_FAULT=slow_rank=2 "${SRUN[@]}" -n 4 "$BIN" check --pairs --json >"$TMP/slow.json" 2>"$TMP/err"
rc=$?
if [ $rc = 1 ]; then ok; else bad "slow task: exit $rc, expected 1: $(tail -c 400 "$TMP/err")"; fi
json_true "slow task: MPI003 names rank 2 only" "$TMP/slow.json" \
	'[f["subject"] for f in d["findings"] if f["id"] == "MPI003"] == ["rank 2"] and d["run"]["launcher"] == "srun"'

# 3. a task that never answers: rank 0 names it, writes the partial document, exits 3
t0=$(date +%s)
COMMDIAG_TESTING=1 COMMDIAG_FAULT=hang_rank=1 timeout 60 "${SRUN[@]}" -n 2 "$BIN" check --quick --json --timeout 8 \
	>"$TMP/hang.json" 2>"$TMP/err"
rc=$?
if [ $rc = 3 ]; then ok; else bad "hung task: exit $rc, expected 3: $(tail -c 400 "$TMP/err")"; fi
if [ $(($(date +%s) - t0)) -lt 30 ]; then ok; else bad "hung task: the job took $(($(date +%s) - t0)) s"; fi
json_true "hung task: the partial document names rank 1" "$TMP/hang.json" \
	'[k for k in d["ranks"] if k["rank"] == 1 and k["answered"] is False] and [f for f in d["findings"] if f["id"] == "MPI002" and f["subject"] == "rank 1"]'
schema_check

echo "slurm: $pass passed, $fail failed"
[ "$fail" = 0 ]
