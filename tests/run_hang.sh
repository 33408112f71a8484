#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# commdiag hang against a fake NCCL RAS server (tests/fake/fake_ras.py) serving the recorded
# reports of tests/data/ras: stuck, moving, healthy, missing and dead jobs, in JSON (a 2.28.7+
# server) and in text (an older one, which refuses SET FORMAT json; and 2.24's own text); a
# server that stalls or closes mid-answer ends at the --timeout deadline or with an error
# naming what it waited for; bad --ras values are usage errors. PyTorch Flight Recorder dumps
# (tests/data/fr, pickle and JSON) name the rank and collective where a group diverged, with
# or without RAS; a pickle with code in it is refused. Each server listens on a port
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

stop_fake
schema_check

echo "hang: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
