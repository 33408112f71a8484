#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attack 11: a hostname with invalid UTF-8 made promtool reject the whole .prom
# (node_exporter then drops every metric) and the JSON invalid UTF-8; raw ESC and newlines
# from document fields, logs and env values reached the text report and stderr. Every
# format must stay valid: JSON, Prometheus and HTML valid UTF-8 (U+FFFD for a bad byte),
# text and stderr without a control character of the input's.
# Usage: tests/security/utf8_controls.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-utf8.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/utf8: "

# a document whose strings carry a bad byte, an ESC sequence and a newline
python3 - tests/data/docs/h100-faulty.json "$TMP/evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
evil = "gpu-node07\\u001b[2J\\u001b[31mPASS\\nfake line"
s = s.replace('"gpu-node07"', '"' + evil + '"')
# an invalid byte (0xff) inside the hostname: raw bytes, as a broken writer would leave them
b = s.encode().replace(b"fake line", b"fake \xff line")
open(sys.argv[2], "wb").write(b)
PY

utf8_valid() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$2" 2>/dev/null && ok || bad "$1: not valid UTF-8"; }
no_controls() { if LC_ALL=C grep -q $'\x1b' "$2"; then bad "$1: an ESC reached it"; else ok; fi; }

run "report --json" 0 "$BIN" report --from "$TMP/evil.json" --json
cp "$TMP/out" "$TMP/evil-out.json"
utf8_valid "JSON" "$TMP/evil-out.json"
run "report --format prometheus" 0 "$BIN" report --from "$TMP/evil.json" --format prometheus
cp "$TMP/out" "$TMP/evil.prom"
utf8_valid "Prometheus" "$TMP/evil.prom"
if command -v promtool >/dev/null; then
	if promtool check metrics <"$TMP/evil.prom" >"$TMP/promtool" 2>&1; then ok; else
		bad "promtool rejects the metrics: $(head -c 300 "$TMP/promtool")"; fi
else
	skip "promtool not installed: the metrics are not parsed"
fi
run "report --format html" 0 "$BIN" report --from "$TMP/evil.json" --format html
cp "$TMP/out" "$TMP/evil.html"
utf8_valid "HTML" "$TMP/evil.html"
no_controls "HTML" "$TMP/evil.html"
run "report (text)" 0 "$BIN" report --from "$TMP/evil.json"
no_controls "text report" "$TMP/out"
if grep -q '^fake' "$TMP/out"; then bad "text report: a newline of a field started a line"; else ok; fi
# stderr: a message quoting the input (an import of a log with ESC in it)
printf '# nccl-tests\n\033[2J\033[31m# all good\n' >"$TMP/evil.log"
run "import of a log with ESC" "1 2" "$BIN" import nccl-tests "$TMP/evil.log"
no_controls "stderr of import" "$TMP/err"
no_controls "stdout of import" "$TMP/out"

echo "security/utf8: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
