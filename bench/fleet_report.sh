#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 18: what a large document costs. For each N (default 512 2048 4096) it writes an
# N-host document with tests/gen_fleet.py (8x H100 hosts, their probe runs including every
# GPU pair, an MPI job's pair runs and reach matrix, a few faulty hosts), scores it with
# `check --from` and its text report (wall seconds and peak RSS), and renders the judged
# document in each format (MB, and the Prometheus series), then scores the judged JSON document
# again (reload_s, reload_MB: what reading commdiag's own --json costs, the compact form above
# 64 hosts). One line per N; no assertion.
# Usage: bench/fleet_report.sh [./commdiag] [N...]
#   GEN_ARGS="--no-gpu-pairs"   passed to the generator (a document without p2p runs)
set -eu
BIN=$(realpath "${1:-./commdiag}")
shift || true
SIZES=${*:-512 2048 4096}
GEN_ARGS=${GEN_ARGS:-}
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (Debian: time)" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-fleet.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
printf '%6s %10s %9s %9s %10s %10s %10s %10s %9s %9s %9s\n' hosts doc_MB score_s rss_MB json_MB text_MB html_MB prom_MB \
	series reload_s reload_MB
for n in $SIZES; do
	# shellcheck disable=SC2086 # GEN_ARGS is a list of words
	python3 tests/gen_fleet.py $GEN_ARGS "$n" "$TMP/doc.json"
	# scoring as a person runs it (the text report), then the judged document for the other formats
	rc=0
	/usr/bin/time -f '%e %M' -o "$TMP/time" "$BIN" check --from "$TMP/doc.json" --timeout 3000 \
		-o "$TMP/out.text" 2>"$TMP/err" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "bench: check --from a $n-host document: exit $rc: $(head -c 300 "$TMP/err")" >&2
		exit 1
	fi
	# the last line: /usr/bin/time writes "Command exited with non-zero status 1" first when a finding fails
	read -r secs kb < <(tail -1 "$TMP/time")
	"$BIN" check --from "$TMP/doc.json" --timeout 3000 --json -o "$TMP/judged.json" 2>/dev/null || true
	for f in html prometheus; do
		"$BIN" report --from "$TMP/judged.json" --format "$f" -o "$TMP/out.$f" 2>/dev/null || true
	done
	/usr/bin/time -f '%e %M' -o "$TMP/time" "$BIN" check --from "$TMP/judged.json" --timeout 3000 \
		-o "$TMP/out2.text" 2>/dev/null || true
	read -r rsecs rkb < <(tail -1 "$TMP/time")
	mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }
	printf '%6s %10s %9s %9s %10s %10s %10s %10s %9s %9s %9s\n' "$n" "$(mb "$TMP/doc.json")" "$secs" "$((kb / 1024))" \
		"$(mb "$TMP/judged.json")" "$(mb "$TMP/out.text")" "$(mb "$TMP/out.html")" "$(mb "$TMP/out.prometheus")" \
		"$(grep -vc '^#' "$TMP/out.prometheus")" "$rsecs" "$((rkb / 1024))"
done
