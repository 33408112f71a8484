#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The attacks of issue 19, one script each (tests/security/*.sh): run them all and sum.
# What needs root (devices, other users, mount namespaces) is tried when run as root (CI's
# make check is) and skipped with a reason otherwise. Usage: tests/security/run.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")" || exit 2
P=0 F=0 S=0 failed=
for t in ./*.sh; do
	[ "$t" = ./run.sh ] && continue
	# through a file, not tee /dev/stderr: reopening a stderr that is a regular file truncates it
	out=$("$t" "$BIN" 2>&1)
	printf '%s\n' "$out" >&2
	line=$(printf '%s\n' "$out" | tail -1)
	read -r p f s <<<"$(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' <<<"$line")"
	if [ -z "${p:-}" ]; then
		echo "FAIL: security: $t ended without its summary line" >&2
		F=$((F + 1)) failed="$failed $t"
		continue
	fi
	P=$((P + p)) F=$((F + f)) S=$((S + s))
	[ "$f" = 0 ] || failed="$failed $t"
done
echo "security: $P passed, $F failed, $S skipped${failed:+ (failed:$failed)}"
[ "$F" = 0 ]
