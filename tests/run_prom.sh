#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of --format prometheus and what ships with it: promtool accepts the
# metrics of saved documents and of this host, the commands without a document refuse
# the format, -o leaves the old file or the whole new one, the alerting rules pass
# `promtool check rules` and their unit tests. Without promtool those parts SKIP.
# The systemd units, as `make install` fills them in: tests/run_deploy.sh.
# Usage: tests/run_prom.sh ./commdiag
set -eu
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.."
DOCS=tests/data/docs
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-prom.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
has() { if grep -qxF -- "$3" "$2"; then ok; else bad "$1: no line '$3' in $2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then bad "$1: '$3' in $2"; else ok; fi; }
# no_tmp NAME DIR: no -o temporary (.NAME.XXXXXX) left behind
no_tmp() {
	local f
	for f in "$2"/.*.??????; do
		if [ -e "$f" ]; then
			bad "$1: temporary file $f left behind"
			return
		fi
	done
	ok
}

# promtool_clean NAME FILE: promtool parses the metrics and its linter says nothing. Its lint
# findings (a missing HELP, a counter without _total, a unit in the wrong place) print a line
# and exit 3; parse errors (a family twice, TYPE after samples) exit 1: both fail the test.
have_promtool=0
command -v promtool >/dev/null && have_promtool=1
promtool_clean() {
	local rc=0
	if [ "$have_promtool" = 0 ]; then
		skip "$1: promtool not installed (Debian package prometheus): metrics not checked"
		return
	fi
	promtool check metrics <"$2" >"$TMP/promtool" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$TMP/promtool" ]; then ok; else bad "$1: promtool check metrics exit $rc: $(head -c 600 "$TMP/promtool")"; fi
}

# --- saved documents: the faulty H100 node as recorded, and re-judged (findings, score) ---
run "report faulty" "0" "$BIN" report --from "$DOCS/h100-faulty.json" --format prometheus
cp "$TMP/out" "$TMP/report.prom"
promtool_clean "report faulty" "$TMP/report.prom"
has "report: run timestamp from run.started" "$TMP/report.prom" "commdiag_last_run_timestamp_seconds 1795255200"
has "report: per-size time" "$TMP/report.prom" \
	'commdiag_probe_time_seconds{host="gpu-node07",probe="copy.h2d",gpu="5",UUID="GPU-7a3c0005-1d2e-4f5a-8b9c-0d1e2f3a4b5c",size_bytes="268435456"} 0.00972592'
has "report: PCIe link" "$TMP/report.prom" 'commdiag_gpu_pcie_link_max_gen{host="gpu-node07",gpu="5",UUID="GPU-7a3c0005-1d2e-4f5a-8b9c-0d1e2f3a4b5c"} 5'
has "report: HCA port" "$TMP/report.prom" 'commdiag_hca_port_active{host="gpu-node07",hca="mlx5_0",port="1"} 1'
if [ "$(grep -c '^# TYPE ' "$TMP/report.prom")" = "$(grep '^# TYPE ' "$TMP/report.prom" | sort -u | wc -l)" ]; then ok; else bad "report: a family announced twice"; fi

run "score faulty" "1" "$BIN" score "$DOCS/h100-faulty.json" --format prometheus
cp "$TMP/out" "$TMP/score.prom"
promtool_clean "score faulty" "$TMP/score.prom"
has "score: a finding series" "$TMP/score.prom" \
	'commdiag_finding{host="gpu-node07",id="COPY001",severity="fail",subject="gpu5",threshold="copy.fail_pct"} 1'
has "score: finding counts" "$TMP/score.prom" 'commdiag_findings{severity="fail"} 3'
has "score: total" "$TMP/score.prom" "commdiag_score_ratio 0.57"

# the same document renders the same bytes, whatever the time zone and the run
TZ=America/New_York "$BIN" report --from "$DOCS/h100-faulty.json" --format prometheus >"$TMP/tz.prom"
if cmp -s "$TMP/report.prom" "$TMP/tz.prom"; then ok; else bad "report depends on TZ"; fi

# two hosts under MPI, and documents without a start time (COMMDIAG_DETERMINISTIC) or probes
for d in netns-two-hosts only-warn container-small-shm h100-clean; do
	run "report $d" "0 1" "$BIN" report --from "$DOCS/$d.json" --format prometheus
	cp "$TMP/out" "$TMP/$d.prom"
	promtool_clean "report $d" "$TMP/$d.prom"
	if [ -s "$TMP/err" ]; then bad "report $d: stderr: $(head -c 300 "$TMP/err")"; else ok; fi
done
hasnt "no start time, no timestamp" "$TMP/only-warn.prom" "commdiag_last_run_timestamp_seconds"
has "two hosts" "$TMP/netns-two-hosts.prom" 'commdiag_probes{host="hostB",status="ok"} 1'
has "reach" "$TMP/netns-two-hosts.prom" 'commdiag_reach_ok{host="hostA",peer="hostB",iface="docker0",address="172.17.0.1"} 0'

# a baseline (compare, score --baseline): the ratio gauge, lint-clean; none for runs not compared
run "compare" "1" "$BIN" compare "$DOCS/h100-clean.json" "$DOCS/baseline/allreduce-20pct-slower.json" --format prometheus
cp "$TMP/out" "$TMP/compare.prom"
promtool_clean "compare" "$TMP/compare.prom"
has "compare: the time ratio" "$TMP/compare.prom" \
	'commdiag_baseline_time_ratio{host="gpu-node07",probe="nccl.all_reduce",size_bytes="8"} 1.2'
has "compare: the finding" "$TMP/compare.prom" \
	'commdiag_finding{host="gpu-node07",id="BASE001",severity="fail",subject="8 ranks",threshold="baseline.fail_pct"} 1'
run "compare, other GPUs" "0" "$BIN" compare "$DOCS/h100-clean.json" "$DOCS/baseline/other-gpus.json" --format prometheus
cp "$TMP/out" "$TMP/compare-gpus.prom"
promtool_clean "compare, other GPUs" "$TMP/compare-gpus.prom"
hasnt "compare, other GPUs: no ratio" "$TMP/compare-gpus.prom" "commdiag_baseline_time_ratio"
hasnt "report without a baseline: no ratio" "$TMP/h100-clean.prom" "commdiag_baseline_time_ratio"

# --- a large document (issue 18): above 64 hosts no series per pair, and series of their own
# only for the hosts with a finding at warn or fail (64 at most, 200 each at most); the
# others are in the fleet's min, median and max ---
python3 tests/gen_fleet.py 1024 "$TMP/big.json" --faults "$TMP/big.faults"
slow=$(awk '$2 == "slow-pair" { print $1 }' "$TMP/big.faults")
run "1024 hosts" "1" "$BIN" check --from "$TMP/big.json" --timeout 3000 --format prometheus
cp "$TMP/out" "$TMP/big.prom"
promtool_clean "1024 hosts" "$TMP/big.prom"
series=$(grep -vc '^#' "$TMP/big.prom")
if [ "$series" -le $((200 * 64 + 2000)) ]; then ok; else bad "1024 hosts: $series series, over 64 hosts of 200 and the fleet's"; fi
# every faulty host has its findings, and so its own series
for h in $(awk '{ print $1 }' "$TMP/big.faults"); do
	if grep -qF "commdiag_gpu_pcie_link_gen{host=\"$h\",gpu=\"0\"," "$TMP/big.prom"; then ok; else bad "1024 hosts: faulty $h has no series of its own"; fi
done
# a pair is never a series: no peer label (GPU pairs, host pairs, reach)
hasnt "1024 hosts: no series per pair" "$TMP/big.prom" 'peer="'
has "1024 hosts: the GPU pairs of a host, counted" "$TMP/big.prom" "commdiag_probe_pairs{host=\"$slow\",probe=\"p2p.bw\"} 56"
# 100 to 199 GB/s: the slow pair (the others measure over 300)
if grep -Eq "^commdiag_probe_pair_min_bandwidth_bytes_per_second\{host=\"$slow\",probe=\"p2p.bw\"\} 1[0-9]{11}(\.[0-9]+)?\$" "$TMP/big.prom"; then
	ok
else
	bad "1024 hosts: the slow pair's host $slow has no slowest-pair bandwidth near 150 GB/s"
fi
has "1024 hosts: reach, over every host and interface" "$TMP/big.prom" 'commdiag_fleet_reach_attempts{stat="median"} 4'
has "1024 hosts: reach, how many host and interface pairs" "$TMP/big.prom" 'commdiag_fleet_reach_attempts_samples 2048'

# --- this host, live ---
run "check" "0 1" "$BIN" check --format prometheus
cp "$TMP/out" "$TMP/check.prom"
promtool_clean "check" "$TMP/check.prom"
if grep -q '^commdiag_last_run_timestamp_seconds [0-9]\{10\}$' "$TMP/check.prom"; then ok; else bad "check: no run timestamp"; fi
run "check --quick" "0 1" "$BIN" check --quick --format prometheus
promtool_clean "check --quick" "$TMP/out"
run "topo" "0" "$BIN" topo --format prometheus
promtool_clean "topo" "$TMP/out"
hasnt "topo: no judgement" "$TMP/out" "commdiag_score"
run "probe copy" "0 1" "$BIN" probe copy --format prometheus
promtool_clean "probe copy" "$TMP/out"
COMMDIAG_DETERMINISTIC=1 "$BIN" topo --format prometheus >"$TMP/det.prom" || true
hasnt "deterministic: no timestamp" "$TMP/det.prom" "commdiag_last_run_timestamp_seconds"
hasnt "deterministic: no duration" "$TMP/det.prom" "commdiag_run_duration_seconds"

# --- the commands that do not render the document refuse the format ---
for c in rules env version advise "advise --explain" "explain /dev/null"; do
	# shellcheck disable=SC2086 # the command and its argument are two words
	run "$c refuses prometheus" "2" "$BIN" $c --format prometheus
	err_has "$c refuses prometheus" "option '--format prometheus': '${c%% *}' does not render a results document; prometheus is for check, topo, probe NAME..., report, score, import, hang and compare"
done
run "--shell refuses prometheus" "2" "$BIN" check --shell --format prometheus
err_has "--shell refuses prometheus" "option '--shell' writes shell lines: it cannot be combined with '--format prometheus'"
run "unknown format" "2" "$BIN" check --format openmetrics
err_has "unknown format" "option '--format': unknown format 'openmetrics': expected text, json, prometheus or html"

# --- -o: the whole file or the old one, never a temporary or a partial file ---
mkdir "$TMP/textfile"
run "-o" "0" "$BIN" report --from "$DOCS/h100-faulty.json" --format prometheus -o "$TMP/textfile/commdiag.prom"
if cmp -s "$TMP/report.prom" "$TMP/textfile/commdiag.prom"; then ok; else bad "-o: file differs from stdout"; fi
no_tmp "-o" "$TMP/textfile"
run "-o after bad input" "2" "$BIN" report --from tests/bad_inputs/not-json.txt --format prometheus \
	-o "$TMP/textfile/commdiag.prom"
if cmp -s "$TMP/report.prom" "$TMP/textfile/commdiag.prom"; then ok; else bad "-o after bad input: old file changed"; fi
no_tmp "-o after bad input" "$TMP/textfile"
# a write that fails halfway (the file size limit: EFBIG once SIGXFSZ is ignored): exit 3,
# the old file untouched, the temporary removed
rc=0
(
	ulimit -f 4
	trap '' XFSZ
	exec "$BIN" score "$DOCS/h100-faulty.json" --format prometheus -o "$TMP/textfile/commdiag.prom"
) 2>"$TMP/err" || rc=$?
if [ "$rc" = 3 ]; then ok; else bad "-o write error: exit $rc, expected 3 ($(head -c 300 "$TMP/err"))"; fi
err_has "-o write error" "cannot write the report to '$TMP/textfile/commdiag.prom'"
if cmp -s "$TMP/report.prom" "$TMP/textfile/commdiag.prom"; then ok; else bad "-o write error: old file changed"; fi
no_tmp "-o write error" "$TMP/textfile"
# the --timeout deadline stops the run: the partial metrics are written, and say so
run "-o partial" "3" "$BIN" check --timeout 0.000001 --format prometheus -o "$TMP/textfile/partial.prom"
has "-o partial: marked" "$TMP/textfile/partial.prom" "commdiag_run_complete 0"
promtool_clean "-o partial" "$TMP/textfile/partial.prom"
no_tmp "-o partial" "$TMP/textfile"

# --- the alerting rules: valid, and their unit tests pass (firing and not firing) ---
if [ "$have_promtool" = 1 ]; then
	rc=0
	promtool check rules scripts/prometheus/commdiag-alerts.yml >"$TMP/promtool" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && grep -q 'SUCCESS: 8 rules found' "$TMP/promtool" && ! grep -qi 'warn' "$TMP/promtool"; then ok; else
		bad "promtool check rules exit $rc: $(head -c 600 "$TMP/promtool")"
	fi
	for t in tests/prometheus/*.test.yml; do
		rc=0
		promtool test rules "$t" >"$TMP/promtool" 2>&1 || rc=$?
		if [ "$rc" = 0 ]; then ok; else bad "promtool test rules $t exit $rc: $(head -c 2000 "$TMP/promtool")"; fi
	done
else
	skip "promtool not installed (Debian package prometheus): alerting rules not checked"
fi

schema_check

echo "prometheus: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
