#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attacks 9 and 13: small inputs, large costs. A 100k-host document took over
# 120 s in the cross-host identity rule (all pairs) and the tree's duplicate check; a
# 20k-host one made a 3 GB HTML page (host matrices of n^2 cells); a 100 MB hostname made a
# 13 GB Prometheus file. Costs now follow what the input means: sorted, not paired; no
# matrix past what a page can show; a host name at most 253 bytes. And a tiny descriptor
# limit (ulimit -n 4) no longer gives PCI devices of vendor 0x0000 under "topo ok".
# The bounds below are far from the old costs and far from the new ones: a loaded machine
# passes. Usage: tests/security/costs.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-cost.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/costs: "

python3 - "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
def doc(n, dup=False):
    hosts = [{"hostname": "n%06d" % (0 if dup and i < 3 else i), "host_id": "%032x" % i} for i in range(n)]
    return {"schema": 1, "tool": {"name": "commdiag", "version": "0.1.0"}, "run": {"mode": "check"}, "hosts": hosts}
json.dump(doc(100000), open(t + "/h100k.json", "w"))
json.dump(doc(100000, dup=True), open(t + "/h100k-dup.json", "w"))
json.dump(doc(20000), open(t + "/h20k.json", "w"))
d = doc(1)
d["hosts"][0]["hostname"] = "x" * 254
json.dump(d, open(t + "/longname.json", "w"))
PY

run "check --from 100k hosts (within 120 s)" 0 timeout 120 "$BIN" check --from "$TMP/h100k.json" --json --timeout 110
run "check --from 100k hosts, three named alike" 0 timeout 120 "$BIN" check --from "$TMP/h100k-dup.json" --json --timeout 110
json_true "three hosts named alike: their three pairs" "$TMP/out" \
	'sorted((f["evidence"][0].split()[1], f["evidence"][0].split()[4]) for f in d["findings"] if f["id"] == "HOST001") == [("0", "1"), ("0", "2"), ("1", "2")]'
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o "$TMP/rss" "$BIN" check --from "$TMP/h20k.json" --format html -o "$TMP/h20k.html" 2>>"$TMP/rss.err"
	kb=$(tail -1 "$TMP/rss")
	if [ "$kb" -lt 1048576 ]; then ok; else bad "HTML of 20k hosts took $kb KB (at most 1 GiB)"; fi
	if grep -q "the host-to-host matrices (reachability, tcp.bw, mpi.bw) are drawn for at most 64" "$TMP/h20k.html"; then ok; else
		bad "HTML of 20k hosts: no note where the matrices would be"; fi
else
	skip "no /usr/bin/time (Debian: time): the HTML's memory is not measured"
fi
run "a 254-byte host name" 2 "$BIN" report --from "$TMP/longname.json" --format prometheus
err_has "a 254-byte host name" "hosts[0].hostname: a host name of 254 bytes: expected at most 253"

# ulimit -n 4 (soft; the hard limit allows more): the PCI devices keep their vendors
python3 - "$BIN" "$TMP/fd.json" <<'PY'
import resource, subprocess, sys
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
def low():
    resource.setrlimit(resource.RLIMIT_NOFILE, (4, hard))
with open(sys.argv[2], "w") as out:
    subprocess.run([sys.argv[1], "topo", "--json"], preexec_fn=low, stdout=out, stderr=subprocess.DEVNULL)
PY
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["hosts"][0]["pci_devices"] else 1)' "$TMP/fd.json" 2>/dev/null; then
	json_true "ulimit -n 4: no vendor 0x0000" "$TMP/fd.json" 'all(p["vendor_id"] != "0x0000" for p in d["hosts"][0]["pci_devices"])'
else
	skip "ulimit -n 4: this machine shows no PCI device to compare (or topo failed)"
fi

echo "security/costs: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
