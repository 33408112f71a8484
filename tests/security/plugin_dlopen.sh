#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attack 8: env, version, check and topo dlopen'ed whatever NCCL_NET_PLUGIN
# named, so a constructor in a user's library ran as root. A linter must not run code the
# environment it checks names: only --load-net-plugin loads it. The library here leaves a
# mark when it is loaded; an NCCL must load first (a two-line one that says 2.21.5), as
# NCCL's version is asked before its plugin is looked for.
# Usage: tests/security/plugin_dlopen.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-dl.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/plugin: "
CC=${CC:-cc}

mkdir -p "$TMP/lib"
cat >"$TMP/evil.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void)
{
	const char *m = getenv("EVIL_MARK");

	if (m)
		close(open(m, O_CREAT | O_WRONLY, 0644));
}
C
printf 'int ncclGetVersion(int *v);\nint ncclGetVersion(int *v) { *v = 22105; return 0; }\n' >"$TMP/nccl.c"
if ! "$CC" -shared -fPIC -o "$TMP/lib/evil.so" "$TMP/evil.c" || ! "$CC" -shared -fPIC -o "$TMP/lib/libnccl.so.2" "$TMP/nccl.c"; then
	skip "no C compiler to build the planted plugin"
else
	for cmd in "env" "version" "check" "topo"; do
		rm -f "$TMP/mark"
		# shellcheck disable=SC2086 # the command, split
		EVIL_MARK="$TMP/mark" NCCL_NET_PLUGIN="$TMP/lib/evil.so" LD_LIBRARY_PATH="$TMP/lib" \
			"$BIN" $cmd --json >"$TMP/out" 2>"$TMP/err"
		if [ -e "$TMP/mark" ]; then bad "$cmd loaded the library NCCL_NET_PLUGIN names"; else ok; fi
	done
	# asked for, it is loaded (the mark shows the test would see it)
	rm -f "$TMP/mark"
	EVIL_MARK="$TMP/mark" NCCL_NET_PLUGIN="$TMP/lib/evil.so" LD_LIBRARY_PATH="$TMP/lib" \
		"$BIN" topo --json --load-net-plugin >"$TMP/out" 2>"$TMP/err"
	if [ -e "$TMP/mark" ]; then ok; else bad "--load-net-plugin did not load it: $(head -c 300 "$TMP/err")"; fi
fi

echo "security/plugin: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
