#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of the commdiag binary: exit codes, JSON validity, round trip,
# bad input, atomic output, hwloc XML replay. Usage: tests/run_e2e.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
FIX=${CD_FIXTURES:-../shared/fixtures}/topology/hwloc/xml
DATA=tests/data
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
skip() { skip=$((skip + 1)); echo "SKIP: $*" >&2; }

# run NAME EXPECTED_RC CMD... : runs, keeps stdout/stderr in $TMP/out, $TMP/err
run() {
	local name=$1 want=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	local got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$name: exit $got, expected $want ($(head -c 300 "$TMP/err"))"; fi
}
# err_has NAME TEXT: stderr of the last run mentions TEXT
err_has() { if grep -qF -- "$2" "$TMP/err"; then ok; else bad "$1: stderr lacks '$2': $(head -c 300 "$TMP/err")"; fi; }
out_has() { if grep -qF -- "$2" "$TMP/out"; then ok; else bad "$1: stdout lacks '$2'"; fi; }
out_empty() { if [ ! -s "$TMP/out" ]; then ok; else bad "$1: stdout not empty: $(head -c 200 "$TMP/out")"; fi; }
# jq-like assertions with python: json_true NAME FILE PYTHON-EXPR (d is the document)
json_true() {
	if python3 - "$2" "$3" <<'EOF'; then ok; else bad "$1: $3"; fi
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# --- the report of this host ---
run "check text" 0 "$BIN" check --fail-on fail
[ $? ] && true
grep -q '^# host ' "$TMP/out" && ok || bad "check text: no host header"
out_has "check text" "## interfaces"
out_has "check text" "summary:"
if grep -q $'\033\[' "$TMP/out"; then bad "colour escape codes in piped output"; else ok; fi

"$BIN" check --json >"$TMP/check.json" 2>"$TMP/err"
rc=$?
if [ $rc -le 1 ]; then ok; else bad "check --json exit $rc"; fi
json_true "schema" "$TMP/check.json" 'd["schema"] == 1'
json_true "one host" "$TMP/check.json" 'len(d["hosts"]) == 1 and d["run"]["ranks"] == 1'
if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hosts"][0]["status"]["gpu"])' "$TMP/check.json")" != ok ]; then
	# no GPU here: every GPU probe of the default set is present, skipped, with the loader's reason
	json_true "gpu probes skipped" "$TMP/check.json" 'len([p for p in d["probes"] if p["name"].startswith("copy.")]) >= 3 and all(p["status"] == "skipped" and p["reason"].startswith("needs a GPU: ") and d["hosts"][0]["reason"]["gpu"] in p["reason"] for p in d["probes"] if p["name"].split(".")[0] in ("copy", "p2p", "nccl"))'
else
	skip "a GPU is present: the skip path is not exercised"
fi
json_true "lo present" "$TMP/check.json" '[n for n in d["hosts"][0]["nics"] if n["name"] == "lo" and n["kind"] == "loopback" and "127.0.0.1/8" in n["ipv4"]]'
if [ -e /sys/class/net/eth0 ]; then
	json_true "eth0 present" "$TMP/check.json" '[n for n in d["hosts"][0]["nics"] if n["name"] == "eth0"]'
else
	skip "no eth0 on this host"
fi
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	json_true "hcas empty" "$TMP/check.json" 'd["hosts"][0]["hcas"] == [] and d["hosts"][0]["status"]["ib"] == "ok"'
else
	skip "this host has RDMA devices"
fi
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
	json_true "gpu skipped with the loader's reason" "$TMP/check.json" \
		'd["hosts"][0]["status"]["gpu"] == "skipped" and "libcuda.so.1" in d["hosts"][0]["reason"]["gpu"] and d["hosts"][0]["gpus"] == []'
else
	skip "libcuda.so.1 is installed: the skip path is not exercised here"
fi
json_true "nulls are explicit" "$TMP/check.json" '"fabric_manager" in d["hosts"][0]["system"] and "score" in d'
json_true "run stamped" "$TMP/check.json" 'd["run"]["mode"] == "check" and d["run"]["started"].endswith("Z")'

# --- round trip: the loader reads back exactly what the emitter wrote ---
"$BIN" report --from "$TMP/check.json" --json >"$TMP/rt.json" 2>"$TMP/err"
if cmp -s "$TMP/check.json" "$TMP/rt.json"; then ok; else bad "round trip differs: $(diff "$TMP/check.json" "$TMP/rt.json" | head -5)"; fi
"$BIN" check --json 2>/dev/null | "$BIN" report --from - --json >"$TMP/rt2.json" 2>"$TMP/err"
json_true "stdin round trip" "$TMP/rt2.json" 'd["schema"] == 1 and len(d["hosts"]) == 1'
run "report text from file" 0 "$BIN" report --from "$TMP/check.json"
out_has "report text" "# host "
COMMDIAG_DETERMINISTIC=1 "$BIN" check --json >"$TMP/det.json" 2>/dev/null
json_true "deterministic drops time" "$TMP/det.json" 'd["run"]["started"] is None and d["run"]["duration_s"] is None'

# --- exit codes follow --fail-on over crafted documents ---
run "re-score small shm" 1 "$BIN" check --from "$DATA/docs/container-small-shm.json" --fail-on warn
out_has "SYS001 fires" "SYS001"
run "a warn passes the default --fail-on fail" 0 "$BIN" check --from "$DATA/docs/container-small-shm.json"
run "fail-on warn over a warn" 1 "$BIN" report --from "$DATA/docs/only-warn.json" --fail-on warn
run "fail-on fail over a warn" 0 "$BIN" report --from "$DATA/docs/only-warn.json" --fail-on fail
run "fail-on info over a warn" 1 "$BIN" report --from "$DATA/docs/only-warn.json" --fail-on info
run "check re-scores, ignoring saved findings" 0 "$BIN" check --from "$DATA/docs/only-warn.json" --fail-on info

# --- bad input: exit 2, a message naming what was wrong, nothing on stdout ---
run "unknown command" 2 "$BIN" frobnicate
err_has "unknown command" "unknown command 'frobnicate'"
out_empty "unknown command"
run "unknown option" 2 "$BIN" check --frobnicate
err_has "unknown option" "--frobnicate"
run "missing option value" 2 "$BIN" check --timeout
err_has "missing value" "--timeout"
run "negative timeout" 2 "$BIN" check --timeout -1
err_has "negative timeout" "--timeout"
run "zero timeout" 2 "$BIN" check --timeout 0
run "bad format" 2 "$BIN" check --format xml
err_has "bad format" "xml"
run "bad fail-on" 2 "$BIN" check --fail-on critical
err_has "bad fail-on" "critical"
run "option for another command" 2 "$BIN" topo --from "$TMP/check.json"
err_has "option for another command" "'--from' does not apply to 'topo'"
run "stray argument" 2 "$BIN" check extra
err_has "stray argument" "extra"
run "report without --from" 2 "$BIN" report
run "missing --from file" 2 "$BIN" report --from "$TMP/does-not-exist.json"
err_has "missing --from file" "$TMP/does-not-exist.json"
: >"$TMP/empty.json"
run "empty --from file" 2 "$BIN" report --from "$TMP/empty.json"
err_has "empty --from file" "empty.json"
printf '{"schema": 1, "hosts": [' >"$TMP/trunc.json"
run "truncated --from file" 2 "$BIN" report --from "$TMP/trunc.json"
err_has "truncated --from file" "not valid JSON"
printf '\x7fELF\x00\x01' >"$TMP/bin.json"
run "binary --from file" 2 "$BIN" report --from "$TMP/bin.json"
err_has "binary --from file" "binary"
echo '{"schema": 99}' >"$TMP/schema.json"
run "wrong schema" 2 "$BIN" report --from "$TMP/schema.json"
err_has "wrong schema" "schema 99"
echo '{"schema": 1, "hosts": [{"nics": [{"name": "eth0", "mtu": "big"}]}]}' >"$TMP/type.json"
run "wrong type" 2 "$BIN" report --from "$TMP/type.json"
err_has "wrong type names the path" "hosts[0].nics[0].mtu"
run "directory as --from" 2 "$BIN" report --from "$TMP"
if [ "$(id -u)" != 0 ]; then
	echo '{}' >"$TMP/unreadable.json" && chmod 000 "$TMP/unreadable.json"
	run "unreadable --from" 2 "$BIN" report --from "$TMP/unreadable.json"
	err_has "unreadable --from" "unreadable.json"
fi
run "bad topology file" 2 "$BIN" topo --topology "$TMP/trunc.json"
err_has "bad topology file" "trunc.json"
run "missing topology file" 2 "$BIN" topo --topology "$TMP/nope.xml"
err_has "missing topology file" "nope.xml"

# --- -o: written atomically, nothing half-written, nothing left on failure ---
run "output to file" 0 "$BIN" topo --json -o "$TMP/topo.json"
out_empty "output to file"
json_true "output file is the document" "$TMP/topo.json" 'd["run"]["mode"] == "topo"'
if ls -a "$TMP" | grep -q '^\.topo\.json\.'; then bad "temporary file left behind"; else ok; fi
run "output dir missing" 2 "$BIN" check -o "$TMP/no/such/dir/x.json"
err_has "output dir missing" "$TMP/no/such/dir/x.json"
run "output is a directory" 2 "$BIN" check -o "$TMP"
err_has "output is a directory" "is a directory"
run "output after bad input" 2 "$BIN" report --from "$TMP/empty.json" -o "$TMP/never.json"
if [ -e "$TMP/never.json" ] || ls -a "$TMP" | grep -q '^\.never'; then bad "output written for bad input"; else ok; fi

# --- hwloc XML replay: facts of real machines ---
if [ -d "$FIX" ]; then
	"$BIN" topo --json --topology "$FIX/32em64t-2n8c2t-pci-normalio.xml" >"$TMP/conan.json" 2>"$TMP/err" && ok || bad "replay conan"
	json_true "conan: 2 NUMA nodes" "$TMP/conan.json" 'len(d["hosts"][0]["numa_nodes"]) == 2'
	json_true "conan: mlx5_0 and ib0 on NUMA 1 (as lstopo shows)" "$TMP/conan.json" \
		'[p for p in d["hosts"][0]["pci_devices"] if "mlx5_0" in p["os_devices"] and "ib0" in p["os_devices"] and p["numa"] == 1 and p["kind"] == "hca"]'
	json_true "conan: live net not mixed in" "$TMP/conan.json" 'd["hosts"][0]["nics"] == [] and d["hosts"][0]["status"]["net"] == "skipped"'
	"$BIN" topo --json --topology "$FIX/nvidiaDGX2.xml" >"$TMP/dgx2.json" 2>"$TMP/err" && ok || bad "replay dgx2"
	json_true "dgx2: 16 GPUs, 2 NUMA" "$TMP/dgx2.json" \
		'len([p for p in d["hosts"][0]["pci_devices"] if p["kind"] == "gpu"]) == 16 and len(d["hosts"][0]["numa_nodes"]) == 2'
	"$BIN" topo --json --topology "$FIX/192em64t-12gr2n8c2t.xml" >"$TMP/uv.json" 2>"$TMP/err" && ok || bad "replay uv2000"
	json_true "uv2000: 24 NUMA nodes" "$TMP/uv.json" 'len(d["hosts"][0]["numa_nodes"]) == 24'
	run "replay text" 0 "$BIN" topo --topology "$FIX/24em64t-2n6c2t-pci.xml"
	out_has "mirage: mlx4_0 listed" "mlx4_0"
else
	skip "shared fixtures not found at $FIX"
fi

# --- the run deadline: past --timeout, exit 3 naming the phase, no output file left ---
run "deadline" 3 "$BIN" check --timeout 0.000001 -o "$TMP/late.json"
err_has "deadline" "timeout: the run exceeded --timeout during"
if [ -e "$TMP/late.json" ] || ls -a "$TMP" | grep -q '^\.late'; then bad "deadline left an output file"; else ok; fi

# --- colour: only on a terminal, never with NO_COLOR or --no-color ---
if command -v script >/dev/null; then
	env -u NO_COLOR script -qec "$BIN check" /dev/null >"$TMP/tty.txt" 2>&1 </dev/null
	if grep -q $'\033\[' "$TMP/tty.txt"; then ok; else bad "no colour on a terminal"; fi
	NO_COLOR=1 script -qec "$BIN check" /dev/null >"$TMP/tty.txt" 2>&1 </dev/null
	if grep -q $'\033\[' "$TMP/tty.txt"; then bad "colour despite NO_COLOR"; else ok; fi
	env -u NO_COLOR script -qec "$BIN check --no-color" /dev/null >"$TMP/tty.txt" 2>&1 </dev/null
	if grep -q $'\033\[' "$TMP/tty.txt"; then bad "colour despite --no-color"; else ok; fi
else
	skip "script(1) not installed: colour on a terminal not checked"
fi

# --- help and version ---
run "help" 0 "$BIN" help
for c in check topo report version help; do out_has "help lists $c" "  $c "; done
run "help check" 0 "$BIN" help check
out_has "help check" "--topology"
run "check --help" 0 "$BIN" check --help
out_has "check --help" "--from"
run "help unknown" 2 "$BIN" help frobnicate
run "version" 0 "$BIN" version
for k in commdiag hwloc libnl libibverbs cJSON nccl; do out_has "version names $k" "$k"; done
"$BIN" version --json >"$TMP/v.json" 2>/dev/null
json_true "version json" "$TMP/v.json" 'd["commdiag"] and d["hwloc"] and d["cjson"]'

# --- probe: the list, a chosen probe, bad names and sizes ---
run "probe list" 0 "$BIN" probe
out_has "probe list" "copy.h2d"
run "probe copy --json" 0 "$BIN" probe copy --json -o "$TMP/probe.json"
json_true "probe copy: only copy probes" "$TMP/probe.json" 'd["run"]["mode"] == "probe" and d["probes"] and all(p["name"].startswith("copy.") for p in d["probes"]) and len({p["name"] for p in d["probes"]}) == 4'
run "probe unknown" 2 "$BIN" probe copy nosuch
err_has "probe unknown" "unknown probe 'nosuch'"
run "probe bad size" 2 "$BIN" probe copy -b 12Q
err_has "probe bad size" "-b: '12Q' is not a size"
run "probe bad iters" 2 "$BIN" probe copy -n 0
err_has "probe bad iters" "option '--iters': '0' is not a whole number from 1"
run "quick and full" 2 "$BIN" check --quick --full
err_has "quick and full" "exclude each other"
run "sweep on topo" 2 "$BIN" topo -b 8M
err_has "sweep on topo" "does not apply to 'topo'"
run "quick check" 0 "$BIN" check --quick --json -o "$TMP/quick.json"
json_true "quick set" "$TMP/quick.json" '{p["name"] for p in d["probes"]} == {"copy.h2d", "copy.d2h", "tcp.reach"}'

# --- the man page renders without warnings and documents every command help lists ---
if command -v groff >/dev/null; then
	if groff -man -ww -z man/commdiag.1 2>"$TMP/err" && [ ! -s "$TMP/err" ]; then ok; else bad "man page warnings: $(head -c 300 "$TMP/err")"; fi
else
	skip "groff not installed: man page rendering not checked"
fi
for c in $("$BIN" help | awk '/^commands:/{f=1;next} /^$/{f=0} f{print $1}'); do
	if grep -q "^\.BR\? $c\b\|^\.TP.*$c\|^\.SS.*$c\|commdiag $c" man/commdiag.1; then ok; else bad "man page lacks command '$c'"; fi
done

echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
