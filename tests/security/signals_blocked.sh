#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attack 6: started with SIGALRM (and SIGTERM) blocked, as a parent's
# pthread_sigmask leaves them across exec, commdiag's --timeout never fired: a stalled
# discovery ran until something killed it. The deadline must hold whatever mask it inherits.
# Usage: tests/security/signals_blocked.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-sig.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/signals: "

# blocked NAMES -- CMD...: CMD with those signals blocked (exec keeps the mask), killed after 40 s
blocked() {
	local sigs=$1
	shift 2
	python3 - "$sigs" "$@" <<'PY'
import os, signal, sys
sigs = {getattr(signal, "SIG" + s) for s in sys.argv[1].split(",")}
signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
signal.signal(signal.SIGALRM, lambda *a: os.kill(pid, signal.SIGKILL))
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
signal.alarm(40)
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st) % 256)
PY
}

# a discovery section that never returns (test fault), --timeout 2: exit 3 at the deadline
run "SIGALRM blocked: --timeout still ends a stalled discovery" 3 \
	blocked ALRM -- env COMMDIAG_TESTING=1 COMMDIAG_FAULT=discover.stall=net "$BIN" check --json --timeout 2 -o "$TMP/a.json"
err_has "SIGALRM blocked" "timeout: the run exceeded --timeout (2 s)"
run "SIGALRM, SIGTERM, SIGINT blocked" 3 \
	blocked ALRM,TERM,INT -- env COMMDIAG_TESTING=1 COMMDIAG_FAULT=discover.stall=net "$BIN" topo --json --timeout 2 -o "$TMP/b.json"
if [ -s "$TMP/b.json" ]; then ok; else bad "SIGALRM, SIGTERM, SIGINT blocked: no partial document"; fi

echo "security/signals: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
