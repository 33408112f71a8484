#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# commdiag hang against a fake NCCL RAS server (tests/fake/fake_ras.py) serving the recorded
# reports of tests/data/ras: stuck, moving, healthy, missing and dead jobs, in JSON (a 2.28.7+
# server) and in text (an older one, which refuses SET FORMAT json; and 2.24's own text); a
# server that stalls or closes mid-answer ends at the --timeout deadline or with an error
# naming what it waited for; bad --ras values are usage errors. PyTorch Flight Recorder dumps
# (tests/data/fr, pickle and JSON) name the rank and collective where a group diverged, with
# or without RAS; a pickle with code in it is refused. PyTorch watchdog logs (tests/data/hang/logs)
# name the rank behind or the one that did not report, alone and beside the dumps and RAS (agreeing
# or not); --nodes documents (tests/data/hang/nodes) give the named host's node and its failing
# findings, --check-host checks this host when it is the one named. Each server listens on a port
# the kernel picks, so runs never collide; no test asserts a duration.
# Usage: tests/run_hang.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-hang.XXXXXX")
FAKE_PID=
cleanup() {
	[ -z "$FAKE_PID" ] || kill "$FAKE_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
export NO_COLOR=1
unset NCCL_RAS_ADDR
# shellcheck disable=SC2034 # read by tests/lib.sh
FAIL_PREFIX="hang: "
# shellcheck source=tests/lib.sh
. tests/lib.sh
DATA=tests/data/ras
# a test's own limit, far above every deadline the commands are given
LIMIT=60

# fake [OPTIONS] STATE...: start a fake server; its port in $PORT, its log in $TMP/fake.log
fake() {
	stop_fake
	: >"$TMP/fake.log"
	# emptied here, not by the redirection below: that runs in the child, after the loop
	# may already have read the previous server's port (a refused connect under load)
	: >"$TMP/port"
	python3 tests/fake/fake_ras.py --log "$TMP/fake.log" "$@" >"$TMP/port" 2>"$TMP/fake.err" &
	FAKE_PID=$!
	PORT=
	for _ in $(seq 1 200); do
		PORT=$(head -n 1 "$TMP/port" 2>/dev/null)
		[ -n "$PORT" ] && break
		sleep 0.05
	done
	if [ -z "$PORT" ]; then
		bad "the fake RAS server did not start: $(cat "$TMP/fake.err")"
		PORT=1
	fi
}
# fake ARGS go before the folder; the folder is always tests/data/ras
fake_states() {
	local opts=()
	while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
		opts+=("$1")
		[ "$1" = --stall ] && opts+=("$2") && shift
		shift
	done
	fake "${opts[@]}" "$DATA" "$@"
}
stop_fake() {
	if [ -n "$FAKE_PID" ]; then
		kill "$FAKE_PID" 2>/dev/null
		wait "$FAKE_PID" 2>/dev/null
		FAKE_PID=
	fi
}
hang() { run "$1" "$2" timeout "$LIMIT" "$BIN" hang --ras "127.0.0.1:$PORT" --interval 0.2 "${@:3}"; }
out_lacks() { if grep -qF -- "$2" "$TMP/out"; then bad "$1: stdout has '$2'"; else ok; fi; }
# count_is NAME ID N: N findings of ID in the text report (the advice names them too: not counted)
count_is() {
	local n
	n=$(grep -cE -- "^  (FAIL|WARN|INFO) +$2" "$TMP/out")
	if [ "$n" = "$3" ]; then ok; else bad "$1: '$2' $n findings in stdout, expected $3"; fi
}

# --- the protocol: what the client sends ---
fake_states healthy-1 healthy-2
hang "healthy json" 0
if grep -qx "CLIENT PROTOCOL 2" "$TMP/fake.log"; then ok; else bad "protocol: no 'CLIENT PROTOCOL 2' sent"; fi
if grep -qE "^TIMEOUT [0-9]+$" "$TMP/fake.log"; then ok; else bad "protocol: no 'TIMEOUT n' sent"; fi
if grep -qx "SET FORMAT json" "$TMP/fake.log"; then ok; else bad "protocol: no 'SET FORMAT json' sent"; fi
n=$(grep -cx "VERBOSE STATUS" "$TMP/fake.log")
if [ "$n" -ge 2 ]; then ok; else bad "protocol: $n STATUS queries, expected two or more"; fi
out_has "healthy json" "HANG004"
out_has "healthy json" "the job progresses"
out_lacks "healthy json" "FAIL"

# --- stuck: the same counts twice, one rank behind ---
fake_states mismatch-1
hang "stuck json" 1
out_has "stuck json" "HANG003"
out_has "stuck json" "rank 2 GPU 0 pid 4200"
out_has "stuck json" "10.0.0.2"
out_has "stuck json" "AllReduce"
out_has "stuck json" "6649"
count_is "stuck json" "HANG003" 1
fake_states --old mismatch-1
hang "stuck text (old server)" 1
out_has "stuck text (old server)" "HANG003"
out_has "stuck text (old server)" "rank 2 GPU 0 pid 4200 of communicator #0-0 (27a079b828ff1a75)"
out_has "stuck text (old server)" "Rank 2 has launched up to operation 6649 -- GPU 0 managed by process 4200 on node 10.0.0.2"
out_has "stuck text (old server)" "ERROR: Unknown command SET FORMAT json"
n=$(grep -cx "SET FORMAT json" "$TMP/fake.log")
if [ "$n" = 1 ]; then ok; else bad "old server: SET FORMAT json sent $n times, expected once (then text)"; fi
fake_states --old v224-mismatch
hang "stuck text 2.24" 1
out_has "stuck text 2.24" "stuck in collective"
out_has "stuck text 2.24" "10.0.0.2"

# --- moving: a mismatch whose counts change between queries is transitional ---
fake_states mismatch-1 mismatch-2
hang "moving json" 0
out_has "moving json" "HANG004"
out_has "moving json" "transitional"
out_lacks "moving json" "HANG003"
fake_states --old mismatch-1 mismatch-2
hang "moving text" 0
out_has "moving text" "HANG004"
out_lacks "moving text" "HANG003"
fake_states --old healthy
hang "healthy text" 0
out_has "healthy text" "summary: 0 fail, 0 warn, 0 info"

# --- missing and dead ranks ---
fake_states missing
hang "missing json (2.28.9's missing comma)" 1
out_has "missing json (2.28.9's missing comma)" "HANG001"
out_has "missing json (2.28.9's missing comma)" "FAIL  HANG001 10.0.0.2 rank 3 GPU 1 pid 4201"
fake_states --old missing
hang "missing text" 1
out_has "missing text" "FAIL  HANG001 10.0.0.2 rank 3 GPU 1 pid 4201"
count_is "missing text" "HANG001" 1
out_has "missing text" "communication timeouts"
fake_states --old v224-missing
hang "missing text 2.24" 1
out_has "missing text 2.24" "HANG001 10.0.0.2 GPU 1 pid 4201"
out_has "missing text 2.24" "rank 3 of communicator #0-0"
fake_states dead
hang "dead json" 1
out_has "dead json" "FAIL  HANG002 10.0.0.2 rank 3 GPU 1 pid 4201"
fake_states --old dead
hang "dead text" 1
out_has "dead text" "FAIL  HANG002 10.0.0.2 rank 3 GPU 1 pid 4201"
count_is "dead text" "HANG00[12]" 1

# --- it reports like every command ---
fake_states missing
hang "json" 1 --json
json_true "json" "$TMP/out" "d['run']['mode'] == 'hang' and any(f['id'] == 'HANG001' and f['host'] == '10.0.0.2' for f in d['findings'])"
hang "prometheus" 1 --format prometheus
out_has "prometheus" 'HANG001'
hang "html" 1 --format html -o "$TMP/hang.html"
if grep -q HANG001 "$TMP/hang.html"; then ok; else bad "html: no HANG001 in the page"; fi
hang "-o" 1 --json -o "$TMP/hang.json"
json_true "-o" "$TMP/hang.json" "[f['subject'] for f in d['findings'] if f['id'] == 'HANG001'] == ['rank 3 GPU 1 pid 4201 of communicator 0x27a079b828ff1a75']"
run "report --from" "0 1" "$BIN" report --from "$TMP/hang.json"
out_has "report --from" "HANG001"

# --- a server that stalls ends at the deadline, with the step it waited in ---
fake_states --stall status healthy-1
hang "stall status" 3 --timeout 4 --json
err_has "stall status" "ras: waiting for STATUS"
json_true "stall status" "$TMP/out" "d['run']['stopped_phase'] == 'ras: waiting for STATUS' and d['run']['stopped_by'] and d['findings'] == []"
fake_states --stall protocol healthy-1
hang "stall protocol" 3 --timeout 4
err_has "stall protocol" "ras: waiting for SERVER PROTOCOL"
fake_states --stall format healthy-1
hang "stall format" 3 --timeout 4
err_has "stall format" "ras: waiting for the answer to SET FORMAT json"
fake_states --close-mid healthy-1
hang "close mid-answer (json)" 3 --timeout 30
err_has "close mid-answer (json)" "the answer to VERBOSE STATUS"
fake_states --close-mid --old healthy
hang "close mid-answer (text)" 3 --timeout 30
err_has "close mid-answer (text)" "ends before its 'Warnings' section"
# a closed port: nothing listens there once the fake is gone
fake_states healthy-1
stop_fake
hang "nothing listens" 3 --timeout 30
err_has "nothing listens" "cannot connect to 127.0.0.1:$PORT"

# --- bad --ras and --interval values: exit 2, the option named ---
bad_ras() {
	run "--ras '$1'" 2 "$BIN" hang --ras "$1"
	err_has "--ras '$1'" "$2"
}
bad_ras "" "commdiag: option '--ras': empty: expected HOST:PORT, like localhost:28028"
bad_ras "host:0" "commdiag: option '--ras': 'host:0': the port must be a number from 1 to 65535"
bad_ras "host:70000" "commdiag: option '--ras': 'host:70000': the port must be a number from 1 to 65535"
bad_ras "host:x" "commdiag: option '--ras': 'host:x': the port must be a number from 1 to 65535"
bad_ras ":28028" "commdiag: option '--ras': ':28028': no host before the ':' (expected HOST:PORT)"
bad_ras "a:b:c" "commdiag: option '--ras': 'a:b:c': an IPv6 address goes in brackets: [ADDR]:PORT"
bad_ras "ho st:1" "commdiag: option '--ras': 'ho st:1': the host is not a host name or an address"
bad_ras "[::1" "commdiag: option '--ras': '[::1': expected [IPV6]:PORT"
NCCL_RAS_ADDR="x:99999" run "NCCL_RAS_ADDR bad" 2 "$BIN" hang
err_has "NCCL_RAS_ADDR bad" "commdiag: NCCL_RAS_ADDR: 'x:99999': the port must be a number from 1 to 65535"
run "--interval bad" 2 "$BIN" hang --interval soon
err_has "--interval bad" "commdiag: option '--interval': 'soon' is not a number of seconds"
run "--interval elsewhere" 2 "$BIN" check --interval 1
err_has "--interval elsewhere" "option '--interval' does not apply to 'check'"
if [ ! -s "$TMP/out" ]; then ok; else bad "a usage error wrote a report"; fi

# --- PyTorch Flight Recorder dumps (tests/data/fr, see its README) ---
FR=tests/data/fr
fr() { run "$1" "$2" timeout "$LIMIT" "$BIN" hang "${@:3}"; }
fr "fr healthy" 0 --fr "$FR/healthy"
out_has "fr healthy" "summary: 0 fail, 0 warn, 0 info"
out_lacks "fr healthy" "advice ("
fr "fr resaved by Python" 0 --fr "$FR/resaved"
fr "fr missing" 1 --fr "$FR/missing"
out_has "fr missing" "FAIL  HANG006"
out_has "fr missing" "rank 2: never entered collective #6 (nccl:all_reduce) of process group '0' (default_pg) as group rank 2"
count_is "fr missing" "HANG006" 1
out_has "fr missing" "export TORCH_NCCL_DUMP_ON_TIMEOUT='1'"
out_has "fr missing" "rank 2: find its host"
out_has "fr missing" "timeout=timedelta(seconds=1200)"
fr "fr inside" 0 --fr "$FR/inside"
out_has "fr inside" "WARN  HANG008"
out_has "fr inside" "every rank entered collective #3 (nccl:broadcast) of process group '0' (default_pg) and none completed it"
out_has "fr inside" "export NCCL_DEBUG='INFO'"
fr "fr inside, --fail-on warn" 1 --fr "$FR/inside" --fail-on warn
fr "fr json" 1 --fr "$FR/json"
out_has "fr json" "rank 2: never entered collective #6"
fr "fr files and folders" 1 --fr "$FR/json/nccl_trace_rank_0.json" --fr "$FR/json/nccl_trace_rank_2.json" --fr "$FR/json/nccl_trace_rank_1.json"
out_has "fr files and folders" "rank 2: never entered collective #6"
out_has "fr files and folders" "HANG009"
fr "fr size" 1 --fr "$FR/size"
out_has "fr size" "rank 1: entered collective #3 of process group '0' (default_pg) as group rank 1 with different input sizes: [[512]] where 3 of 4 ranks have [[1024]]"
out_has "fr size" "make every rank of the process group call the same collectives"
fr "fr groups" 1 --fr "$FR/multi"
out_has "fr groups" "rank 3: never entered collective #4 (nccl:all_gather_into_tensor) of process group '2' (tp) as group rank 1"
out_has "fr groups" "it waits in collective #4 (nccl:all_gather_into_tensor) of process group '2'"
count_is "fr groups" "HANG006" 3
fr "fr json report" 1 --fr "$FR/missing" --json -o "$TMP/fr.json"
json_true "fr json report" "$TMP/fr.json" "[f['subject'] for f in d['findings']] == ['rank 2'] and d['findings'][0]['expected'] == 6 and any(a['env'] == 'TORCH_NCCL_TRACE_BUFFER_SIZE' for a in d['advice'])"
fr "fr prometheus" 1 --fr "$FR/missing" --format prometheus
out_has "fr prometheus" "HANG006"
fr "fr html" 1 --fr "$FR/missing" --format html -o "$TMP/fr.html"
if grep -q HANG006 "$TMP/fr.html"; then ok; else bad "fr html: no HANG006 in the page"; fi
# with RAS too: both judged in one report
fake_states mismatch-1
hang "fr and ras" 1 --fr "$FR/missing"
out_has "fr and ras" "HANG003"
out_has "fr and ras" "HANG006"
stop_fake
# refused: code in a pickle, a name without a rank, two dumps of one rank, an empty folder
fr "fr GLOBAL" 2 --fr "$FR/refused"
err_has "fr GLOBAL" "commdiag: option '--fr': '$FR/refused/nccl_trace_rank_0': pickle opcode GLOBAL (0x63) at byte 39 imports or calls code: refused"
if [ ! -s "$TMP/out" ]; then ok; else bad "fr GLOBAL: a refused dump wrote a report"; fi
cp "$FR/healthy/nccl_trace_rank_0" "$TMP/trace.pkl"
fr "fr no rank" 2 --fr "$TMP/trace.pkl"
err_has "fr no rank" "no rank at the end of the file name"
fr "fr same rank" 2 --fr "$FR/healthy/nccl_trace_rank_0" --fr "$FR/json/nccl_trace_rank_0.json"
err_has "fr same rank" "are both rank 0"
mkdir "$TMP/empty"
fr "fr empty folder" 2 --fr "$TMP/empty"
err_has "fr empty folder" "holds no file"
fr "fr missing file" 2 --fr "$TMP/nothing_0"
err_has "fr missing file" "cannot read '$TMP/nothing_0'"
head -c 100 "$FR/healthy/nccl_trace_rank_1" >"$TMP/nccl_trace_rank_1"
fr "fr truncated" 2 --fr "$TMP/nccl_trace_rank_1"
err_has "fr truncated" "truncated"
run "--fr elsewhere" 2 "$BIN" check --fr "$FR/healthy"
err_has "--fr elsewhere" "option '--fr' does not apply to 'check'"

# --- PyTorch watchdog logs (tests/data/hang/logs, see tests/data/hang/README.md) ---
LOGS=tests/data/hang/logs
NODES=tests/data/hang/nodes
fr "logs stuck" 1 "$LOGS"/stuck/rank0.log "$LOGS"/stuck/rank1.log "$LOGS"/stuck/rank2.log "$LOGS"/stuck/rank3.log
out_has "logs stuck" "FAIL  HANG011 node-b rank 2: did not report a timeout while rank 0, rank 1, rank 3 of PG GUID 0(default_pg) (4 ranks) timed out at SeqNum 6 ALLREDUCE"
out_has "logs stuck" "its log (rank2.log) shows it running with no watchdog timeout"
count_is "logs stuck" "HANG01[0-3]" 1
out_has "logs stuck" "ssh node-b commdiag check"
out_has "logs stuck" "srun -w node-b -N1 -n1 commdiag check"
fr "logs lag" 1 "$LOGS"/lag/rank0.log "$LOGS"/lag/rank1.log "$LOGS"/lag/rank2.log "$LOGS"/lag/rank3.log
out_has "logs lag" "FAIL  HANG010 node-a rank 1: behind in PG GUID 0(default_pg): its watchdog timed out at SeqNum 5 ALLREDUCE while rank 0, rank 2, rank 3 timed out at 6 or later"
count_is "logs lag" "HANG01[0-3]" 1
fr "logs quiet" 0 "$LOGS"/quiet/rank0.log "$LOGS"/quiet/rank1.log
out_has "logs quiet" "WARN  HANG012 n/a logs: no PyTorch watchdog timeout in the logs"
fr "logs without the group's size" 0 "$LOGS"/nosize/rank0.log "$LOGS"/nosize/rank1.log "$LOGS"/nosize/rank3.log
out_has "logs without the group's size" "WARN  HANG012"
out_has "logs without the group's size" "the logs do not show the group's size"
out_lacks "logs without the group's size" "HANG011"
# several process groups: the tensor-parallel group names rank 3 (its global rank from its own
# log's "global rank:"); in the world group, rank 2 waits in that group instead
fr "logs groups" 1 "$LOGS"/groups/rank0.log "$LOGS"/groups/rank1.log "$LOGS"/groups/rank2.log "$LOGS"/groups/rank3.log
out_has "logs groups" "FAIL  HANG011 node-b rank 3: did not report a timeout while rank 2 of PG GUID 2 (2 ranks) timed out at SeqNum 4 _ALLGATHER_BASE"
out_has "logs groups" "FAIL  HANG011 node-b rank 2: did not reach SeqNum 10 ALLREDUCE of PG GUID 0(default_pg), where rank 0, rank 1 wait: it timed out itself in PG GUID 2 at SeqNum 4 _ALLGATHER_BASE"
out_has "logs groups" "rank 3 on node-b"
out_lacks "logs groups" "rank 2 on node-b"
# PyTorch 2.1: no group named, NCCL's communicator of 4 ranks is the group
fr "logs 2.1" 1 "$LOGS"/old/rank0.log "$LOGS"/old/rank1.log "$LOGS"/old/rank2.log "$LOGS"/old/rank3.log
out_has "logs 2.1" "FAIL  HANG011 n/a group rank 2 of the unnamed group: did not report a timeout while group rank 0, group rank 1, group rank 3 of its process group (4 ranks) timed out at SeqNum 6 ALLREDUCE"
# one rank's log of four: the group's size names the three that did not report
fr "logs one rank" 1 "$LOGS"/stuck/rank0.log
count_is "logs one rank" "HANG011" 3
# a log on standard input, as explain reads it
run "logs stdin" 1 sh -c "cat '$LOGS'/lag/*.log | timeout $LIMIT '$BIN' hang -"
out_has "logs stdin" "HANG010"
fr "logs json" 1 "$LOGS"/stuck/rank0.log "$LOGS"/stuck/rank1.log "$LOGS"/stuck/rank2.log "$LOGS"/stuck/rank3.log --json -o "$TMP/logs.json"
json_true "logs json" "$TMP/logs.json" "[(f['id'], f['host'], f['subject']) for f in d['findings']] == [('HANG011', 'node-b', 'rank 2')] and d['findings'][0]['measured'] == 3 and d['findings'][0]['expected'] == 4 and 'watchdog' not in d"
# the sources together: agreeing raises confidence, disagreeing is said
fr "logs and fr agree" 1 "$LOGS"/stuck/rank0.log "$LOGS"/stuck/rank1.log "$LOGS"/stuck/rank2.log "$LOGS"/stuck/rank3.log --fr "$FR/missing"
out_has "logs and fr agree" "FAIL  HANG006 node-b rank 2: never entered collective #6"
out_has "logs and fr agree" "host node-b: rank 2's, from NCCL's host:pid:tid prefix in its log (rank2.log)"
out_has "logs and fr agree" "the watchdog logs name rank 2 too: the sources agree"
out_has "logs and fr agree" "the Flight Recorder dumps name rank 2 too: the sources agree"
out_lacks "logs and fr agree" "HANG013"
out_lacks "logs and fr agree" "find its host"
fr "logs and fr disagree" 1 "$LOGS"/lag/rank0.log "$LOGS"/lag/rank1.log "$LOGS"/lag/rank2.log "$LOGS"/lag/rank3.log --fr "$FR/missing"
out_has "logs and fr disagree" "WARN  HANG013 n/a sources: the hang's sources name different ranks"
out_has "logs and fr disagree" "the Flight Recorder dumps do not name rank 1 (they name rank 2)"
fake_states mismatch-1
hang "logs and ras agree" 1 "$LOGS"/stuck/rank0.log "$LOGS"/stuck/rank1.log "$LOGS"/stuck/rank2.log "$LOGS"/stuck/rank3.log
out_has "logs and ras agree" "HANG003"
out_has "logs and ras agree" "NCCL RAS names rank 2 too: the sources agree"
out_has "logs and ras agree" "the watchdog logs name rank 2 too: the sources agree"
# --- the job's nodes: the named host's node and what its last check failed ---
hang "ras and nodes" 1 --nodes "$NODES"
out_has "ras and nodes" "node: node-b ($NODES/node-b.json) failed IB001 mlx5_3/1: RDMA port is not active"
out_has "ras and nodes" "on 10.0.0.2 (node node-b), whose last check failed PCIE002 mlx5_6, IB001 mlx5_3/1, COPY001 gpu5"
stop_fake
fr "logs and nodes" 1 "$LOGS"/stuck/rank0.log "$LOGS"/stuck/rank1.log "$LOGS"/stuck/rank2.log "$LOGS"/stuck/rank3.log --nodes "$NODES"
out_has "logs and nodes" "rank 2 on node-b, whose last check failed PCIE002 mlx5_6, IB001 mlx5_3/1, COPY001 gpu5"
out_lacks "logs and nodes" "ssh node-b"
fr "logs and a clean node" 1 "$LOGS"/lag/rank0.log "$LOGS"/lag/rank1.log "$LOGS"/lag/rank2.log "$LOGS"/lag/rank3.log --nodes "$NODES/node-a.json"
out_has "logs and a clean node" "node: node-a ($NODES/node-a.json) has no finding at warn or fail"
out_has "logs and a clean node" "rank 1 on node-a, whose last check found nothing at warn or fail"
fr "a host in no node document" 1 "$LOGS"/lag/rank0.log "$LOGS"/lag/rank1.log "$LOGS"/lag/rank2.log "$LOGS"/lag/rank3.log --nodes "$NODES/node-b.json"
out_has "a host in no node document" "node: node-a is none of the 1 hosts of the --nodes documents"
out_has "a host in no node document" "ssh node-a commdiag check"
# --check-host: a remote host gets the command to run there, this host its check now
fr "check-host elsewhere" 1 "$LOGS"/stuck/rank0.log "$LOGS"/stuck/rank1.log "$LOGS"/stuck/rank2.log "$LOGS"/stuck/rank3.log --check-host
out_has "check-host elsewhere" "ssh node-b commdiag check"
out_lacks "check-host elsewhere" "node: "
me=$(hostname)
mkdir "$TMP/here"
for f in "$LOGS"/stuck/*.log; do sed "s/node-b/$me/g" "$f" >"$TMP/here/${f##*/}"; done
fr "check-host here" 1 "$TMP"/here/rank0.log "$TMP"/here/rank1.log "$TMP"/here/rank2.log "$TMP"/here/rank3.log --check-host --timeout 120
out_has "check-host here" "node: $me (--check-host: this host, discovered and judged now, no probes)"
out_lacks "check-host here" "ssh $me"
# bad logs and --nodes values: exit 2, nothing written
fr "log missing" 2 "$TMP/nothing.log"
err_has "log missing" "commdiag: hang: cannot open the log '$TMP/nothing.log'"
fr "log a device" 2 /dev/null
err_has "log a device" "commdiag: hang: '/dev/null' is a character device: expected a log file"
fr "--nodes missing" 2 "$LOGS"/stuck/rank0.log --nodes "$TMP/nothing"
err_has "--nodes missing" "commdiag: option '--nodes': cannot read '$TMP/nothing'"
fr "--nodes empty folder" 2 "$LOGS"/stuck/rank0.log --nodes "$TMP/empty"
err_has "--nodes empty folder" "commdiag: option '--nodes': the folder '$TMP/empty' holds no *.json document"
fr "--nodes not a document" 2 "$LOGS"/stuck/rank0.log --nodes "$LOGS/stuck/rank0.log"
err_has "--nodes not a document" "commdiag: option '--nodes': '$LOGS/stuck/rank0.log' is not a commdiag document"
if [ ! -s "$TMP/out" ]; then ok; else bad "--nodes not a document: a usage error wrote a report"; fi
run "--nodes elsewhere" 2 "$BIN" check --nodes "$NODES"
err_has "--nodes elsewhere" "option '--nodes' does not apply to 'check'"
run "--check-host elsewhere" 2 "$BIN" explain --check-host "$LOGS"/stuck/rank0.log
err_has "--check-host elsewhere" "option '--check-host' does not apply to 'explain'"

stop_fake
schema_check

echo "hang: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
