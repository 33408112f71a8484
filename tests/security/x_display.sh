#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attack 3: any local user could stall discovery, and so drain the node through
# the Slurm prolog, with a listener on an X display's port (127.0.0.1:6000, display :0) that
# accepts and never answers: hwloc's gl component connected there. Discovery must not
# touch it: the listener sees no connection, and the run ends well within its deadline.
# Usage: tests/security/x_display.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-x.XXXXXX")
trap 'kill "$lpid" 2>/dev/null; rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/x-display: "
lpid=

# the listener: accepts on 127.0.0.1:6000 (and 6001: display :1), counts connections, never answers
python3 - "$TMP/conns" "$TMP/ready" <<'PY' &
import select, socket, sys, time
socks = []
for port in (6000, 6001):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    s.listen(16)
    socks.append(s)
open(sys.argv[2], "w").write(str(len(socks)))
held, n, end = [], 0, time.time() + 120
while time.time() < end:
    r, _, _ = select.select(socks, [], [], 0.5)
    for s in r:
        c, _ = s.accept()
        held.append(c)  # never answered, never closed
        n += 1
        open(sys.argv[1], "w").write(str(n))
PY
lpid=$!
for _ in $(seq 50); do [ -s "$TMP/ready" ] && break; sleep 0.1; done
if [ "$(cat "$TMP/ready" 2>/dev/null)" != 2 ]; then
	skip "127.0.0.1:6000 and 6001 are not free here: the stalling X display cannot be set up"
else
	# topo discovers everything check does (hwloc included), without the probes' load
	run "topo beside a stalling X display" 0 env DISPLAY=:0 "$BIN" topo --json --timeout 20
	if grep -q '"stopped_by":	"timeout"\|"stopped_by": "timeout"' "$TMP/out"; then bad "topo: the run hit its deadline"; else ok; fi
	if [ -s "$TMP/conns" ]; then bad "discovery connected to the X display $(cat "$TMP/conns") time(s)"; else ok; fi
fi

echo "security/x-display: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
