#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attack 7: the Slurm prolog runs as root and wrote predictable names
# (.run.$$.log, .status.$$) with > in its state directory: in a directory others can
# write, a planted link made it overwrite a root-owned file. Here nobody plants links to
# a root-owned victim under every name the prolog ever wrote (the next 3000 pids' worth of
# .run.PID.* and .status.PID, and last.*) in a world-writable state directory; the
# prolog runs, and the victim must be untouched and last.* regular files.
# Needs root (links owned by another user). Usage: tests/security/prolog_symlinks.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-prolog.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/prolog: "

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "planted links of another user against root's prolog: needs root and the user nobody"
else
	chmod 755 "$TMP"
	state=$TMP/state
	mkdir -m 777 "$state" # world-writable, no sticky bit: links there are followed
	printf 'root only\n' >"$TMP/victim"
	chmod 600 "$TMP/victim"
	# one process plants them all (a process per link would use up the pids it guesses)
	python3 - "$state" "$TMP/victim" <<'PY'
import os, pwd, sys
state, victim = sys.argv[1], sys.argv[2]
nobody = pwd.getpwnam("nobody").pw_uid
last = int(open("/proc/sys/kernel/ns_last_pid").read())
names = ["last.json", "last.log", "last.status", "last-fail.json"]
for p in range(last + 1, last + 3000):
    names += [".run.%d.json" % p, ".run.%d.log" % p, ".status.%d" % p, ".fail.%d" % p]
for n in names:
    os.symlink(victim, os.path.join(state, n))
    os.lchown(os.path.join(state, n), nobody, -1)
PY
	mkdir -p "$TMP/bin"
	printf '#!/bin/sh\nexit 0\n' >"$TMP/bin/scontrol"
	chmod +x "$TMP/bin/scontrol"
	run "the prolog in a planted state directory" "0 1" env PATH="$TMP/bin:$PATH" scripts/slurm-prolog.sh \
		--node n1 --state-dir "$state" --commdiag "$BIN" -- --from tests/data/docs/h100-faulty.json
	if [ "$(cat "$TMP/victim")" = "root only" ]; then ok; else bad "the root-owned victim was overwritten"; fi
	for n in last.json last.log last.status; do
		if [ -f "$state/$n" ] && [ ! -L "$state/$n" ]; then ok; else bad "$n is not a regular file of the prolog's"; fi
	done
	# a directory planted where a result goes is not written into
	rm -f "$state/last.status"
	mkdir "$state/last.status"
	run "a directory planted as last.status" "0 1" env PATH="$TMP/bin:$PATH" scripts/slurm-prolog.sh \
		--node n1 --state-dir "$state" --commdiag "$BIN" -- --from tests/data/docs/h100-faulty.json
	if [ -z "$(ls -A "$state/last.status")" ]; then ok; else bad "the prolog wrote into a planted directory"; fi
	# nothing of a run is left behind
	if ls -A "$state" | grep -q '^\.run\.[A-Za-z0-9]\{6\}$'; then bad "a private run directory was left"; else ok; fi
fi

echo "security/prolog: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
