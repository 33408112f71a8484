#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The HTML report (--format html): the pages of the fixture documents hold the expected
# cells, are self-contained, escape every string of the document, and a real browser
# (headless Chromium) renders them without a console message and with the same DOM.
# Usage: tests/run_html.sh ./commdiag
#   CHROMIUM=/path/to/chromium   another browser binary (default /usr/bin/chromium)
#   CD_UPDATE_GOLDEN=1           rewrite tests/golden/html-h100-p2p.{png,txt} from this run
# Without Chromium the browser part is skipped with a message; the rest always runs.
set -eu
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.."
DOCS=tests/data/docs
GOLD=tests/golden
hc() { python3 tests/html_check.py "$@"; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-html.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1
. tests/lib.sh
# expect NAME CMD...: the command succeeds
expect() {
	local name=$1
	shift
	if "$@"; then ok; else bad "$name"; fi
}
# render NAME WANT_RC ARGS...: commdiag ARGS > $TMP/NAME.html with exit WANT_RC (1: a failing finding)
render() {
	local name=$1 want=$2 rc=0
	shift 2
	"$BIN" "$@" --format html -o "$TMP/$name.html" 2>"$TMP/$name.err" || rc=$?
	if [ "$rc" = "$want" ] && [ -s "$TMP/$name.html" ]; then ok; else bad "$name: exit $rc, expected $want: $(head -c 300 "$TMP/$name.err")"; fi
}

# --- the pages as commdiag writes them ---
render p2p 1 check --from "$DOCS/h100-p2p.json"
render netns 0 check --from "$DOCS/netns-two-hosts.json"
render faulty 1 check --from "$DOCS/h100-faulty.json"
render unjudged 0 report --from "$DOCS/h100-p2p.json"
"$BIN" check --from "$DOCS/h100-faulty.json" --json -o "$TMP/faulty.json" || true
for p in p2p netns faulty unjudged; do
	expect "$p: self-contained" hc static "$TMP/$p.html"
done
expect "p2p: matrix cells, path classes, finding" hc p2p "$TMP/p2p.html"
expect "netns: reach and host bandwidth" hc netns "$TMP/netns.html"
expect "faulty: the findings of the document" hc findings "$TMP/faulty.html" "$TMP/faulty.json"
if grep -q 'Verdict: not judged' "$TMP/unjudged.html"; then ok; else bad "report --from an unjudged document: no 'not judged' verdict"; fi
# stdout, when no -o: the same page
rc=0
"$BIN" check --from "$DOCS/h100-p2p.json" --format html >"$TMP/stdout.html" 2>/dev/null || rc=$?
if [ "$rc" = 1 ] && cmp -s "$TMP/stdout.html" "$TMP/p2p.html"; then ok; else bad "html on stdout differs from -o (exit $rc)"; fi

# --- markup in the document stays text: a hostname, an interface name, an env value ---
EVIL='<script>alert(1)</script>'
python3 - "$DOCS/netns-two-hosts.json" "$TMP/evil.json" "$EVIL" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
evil = sys.argv[3]
def swap(o):
    if isinstance(o, dict):
        return {k: swap(v) for k, v in o.items()}
    if isinstance(o, list):
        return [swap(v) for v in o]
    return evil if o == "hostA" else o
d = swap(d)
d["hosts"][0]["nics"][-1]["name"] = '"><img src=x onerror=alert(2)>'
d["hosts"][0]["env"]["NCCL_SOCKET_IFNAME"] = "</pre><script>alert(3)</script>"
json.dump(d, open(sys.argv[2], "w"))
EOF
# exit 1: ENV006, the injected NCCL_SOCKET_IFNAME names no interface of the host
render evil 1 check --from "$TMP/evil.json"
expect "evil: self-contained" hc static "$TMP/evil.html"
expect "evil: markup stays text" hc inject "$TMP/evil.html" "$EVIL"

# --- a large document (issue 18): 1024 hosts, the page under 10 MB, the worst hosts drawn ---
# tests/gen_fleet.py: 8-GPU hosts with every GPU pair measured, an MPI job's pairs and reach,
# three faulty hosts (one with a slow NVLink pair). Above 64 hosts the page groups the
# hosts that pass, draws the worst hosts' heatmaps and a histogram per probe.
python3 tests/gen_fleet.py 1024 "$TMP/big.json" --faults "$TMP/big.faults"
slow=$(awk '$2 == "slow-pair" { print $1 }' "$TMP/big.faults")
slow_i=$((10#${slow#gpu}))
render big 1 check --from "$TMP/big.json" --timeout 3000
size=$(stat -c %s "$TMP/big.html")
if [ "$size" -le 10485760 ]; then ok; else bad "1024 hosts: the page is $size bytes, over 10 MB"; fi
expect "big: self-contained, every element closed" hc static "$TMP/big.html"
for want in "id=\"h$slow_i-p2p.bw\"" "class=\"hist\"" "aria-label=\"histogram of GB/s\"" \
	"1021 pass" "drawn for at most 64"; do
	if grep -qF "$want" "$TMP/big.html"; then ok; else bad "1024 hosts: no '$want' in the page (the slow pair's host $slow, the histograms, the summary)"; fi
done
# a host that passes is grouped, not drawn
if grep -q 'id="h1-paths"' "$TMP/big.html" && ! grep -q '^gpu00001 ' "$TMP/big.faults"; then
	bad "1024 hosts: the path matrix of gpu00001, which passes, is drawn"
else
	ok
fi
# text: the failing hosts in full before the summary of the others
rc=0
"$BIN" check --from "$TMP/big.json" --timeout 3000 >"$TMP/big.txt" 2>/dev/null || rc=$?
first_bad=$(grep -n "^# host gpu" "$TMP/big.txt" | head -1 | cut -d: -f1)
summary=$(grep -n "^# 1021 hosts pass" "$TMP/big.txt" | cut -d: -f1)
if [ "$rc" = 1 ] && [ -n "$first_bad" ] && [ -n "$summary" ] && [ "$first_bad" -lt "$summary" ] &&
	[ "$(grep -c '^# host gpu' "$TMP/big.txt")" = 3 ] && grep -q "^# host $slow\$" "$TMP/big.txt" &&
	grep -q "1021 hosts\$" "$TMP/big.txt"; then
	ok
else
	bad "1024 hosts, text (exit $rc): the 3 failing hosts in full, then '# 1021 hosts pass' and one group of 1021"
fi

# --- a real browser ---
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
	skip "$CHROMIUM not found (Debian package chromium): the browser tests did not run"
	echo "html: $pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
	exit
fi
# Chromium writes its profile, cache and crash database under HOME and XDG: a fresh one
# per run, writable by whoever runs the tests (root, or cdtest from /tmp in CI).
mkdir -p "$TMP/home" "$TMP/xdg-config" "$TMP/xdg-cache" "$TMP/xdg-runtime"
chmod 700 "$TMP/xdg-runtime"
# --no-sandbox: root cannot start the sandbox; --enable-logging=stderr makes every console
# message a "CONSOLE" line, and the page's Content-Security-Policy turns any load or script
# into one ("... violates the following Content Security Policy directive").
chrome() {
	timeout 120 env HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/xdg-config" XDG_CACHE_HOME="$TMP/xdg-cache" \
		XDG_RUNTIME_DIR="$TMP/xdg-runtime" "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--hide-scrollbars --enable-logging=stderr --v=0 --user-data-dir="$TMP/profile" "$@"
}
# console messages and failed loads; the rest of Chromium's stderr (D-Bus absent in a
# container, the Debian launcher's own shell warnings) is about the machine, not the page
page_errors() { grep -E 'CONSOLE|net::ERR_|Failed to load|Not allowed to load' "$1" || true; }

for p in p2p netns evil; do
	rc=0
	chrome --dump-dom "file://$TMP/$p.html" >"$TMP/$p.dom.html" 2>"$TMP/$p.dom.err" || rc=$?
	if [ "$rc" = 0 ] && [ -s "$TMP/$p.dom.html" ]; then ok; else bad "chromium --dump-dom $p: exit $rc: $(tail -c 300 "$TMP/$p.dom.err")"; fi
	if [ -z "$(page_errors "$TMP/$p.dom.err")" ]; then ok; else bad "chromium $p: $(page_errors "$TMP/$p.dom.err")"; fi
done
expect "p2p DOM: matrix cells" hc p2p "$TMP/p2p.dom.html"
expect "netns DOM: reach and host bandwidth" hc netns "$TMP/netns.dom.html"
expect "evil DOM: markup stayed text in the browser" hc inject "$TMP/evil.dom.html" "$EVIL"

# The screenshot: the whole p2p page at half scale (1280 CSS pixels wide, 640x2100 PNG).
rc=0
chrome --force-device-scale-factor=0.5 --window-size=1280,4200 --screenshot="$TMP/p2p.png" "file://$TMP/p2p.html" \
	>"$TMP/shot.out" 2>"$TMP/shot.err" || rc=$?
if [ "$rc" = 0 ] && [ -s "$TMP/p2p.png" ]; then ok; else bad "chromium --screenshot: exit $rc: $(tail -c 300 "$TMP/shot.err")"; fi
if [ -z "$(page_errors "$TMP/shot.err")" ]; then ok; else bad "chromium screenshot: $(page_errors "$TMP/shot.err")"; fi
hc text "$TMP/p2p.dom.html" >"$TMP/p2p.txt"
if [ "${CD_UPDATE_GOLDEN:-}" = 1 ]; then
	cp "$TMP/p2p.png" "$GOLD/html-h100-p2p.png"
	cp "$TMP/p2p.txt" "$GOLD/html-h100-p2p.txt"
	echo "html: golden files rewritten: $GOLD/html-h100-p2p.png $GOLD/html-h100-p2p.txt"
fi
# Two goldens, two strengths. The text the browser shows after parsing (the DOM's visible
# text) must match exactly: it does not depend on fonts or the Chromium version. Pixels
# do: antialiasing, hinting and font versions move every glyph a little, so the PNG is
# compared only as 32x32-pixel blocks of mean grey level, same size and within a
# tolerance. That still fails on a blank page, lost styling or a reflowed layout, and
# the golden PNG is the picture a reviewer looks at when the page changes.
if diff -u "$GOLD/html-h100-p2p.txt" "$TMP/p2p.txt" >"$TMP/txt.diff"; then ok; else bad "DOM text differs from $GOLD/html-h100-p2p.txt (CD_UPDATE_GOLDEN=1 to accept): $(head -c 1500 "$TMP/txt.diff")"; fi
expect "screenshot close to $GOLD/html-h100-p2p.png" hc png "$TMP/p2p.png" "$GOLD/html-h100-p2p.png"
schema_check

echo "html: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
