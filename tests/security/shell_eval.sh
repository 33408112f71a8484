#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19, attack 2: the "paste or eval" block and advise --shell from a crafted document
# (tests/security/data/shell-injection.json: names with '=' and ';', quotes, newlines and
# substitutions in values, hosts and comment text). Every line must be `export NAME='…'`,
# `unset NAME` (either behind a [ "$(hostname)" = '…' ] && guard) or a comment, and eval of
# the block, in a scratch directory, must create nothing.
# Usage: tests/security/shell_eval.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/../.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-sec-shell.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. tests/lib.sh
FAIL_PREFIX="security/shell: "
DOC=tests/security/data/shell-injection.json

# shell_lines NAME FILE: every line is one of the allowed forms
shell_lines() {
	local q="'([^']|'\\\\'')*'" name='[A-Za-z_][A-Za-z0-9_]*'
	if grep -Evx "(\\[ \"\\\$\\(hostname\\)\" = $q \\] && )?(export $name=$q|unset $name)( +#[^[:cntrl:]]*)?|#[^[:cntrl:]]*" "$2" >"$TMP/odd"; then
		bad "$1: lines not of the allowed forms: $(head -c 400 "$TMP/odd")"
	else ok; fi
}
# evals NAME FILE: eval of FILE in a scratch directory runs no command
evals() {
	rm -rf "$TMP/sandbox" && mkdir "$TMP/sandbox"
	(cd "$TMP/sandbox" && bash -c 'eval "$(cat "$1")"' _ "$2") >/dev/null 2>&1
	if [ -z "$(ls -A "$TMP/sandbox")" ]; then ok; else bad "$1: eval ran commands: $(ls -A "$TMP/sandbox" | tr '\n' ' ')"; fi
	(cd "$TMP/sandbox" && sh -n "$2") 2>"$TMP/syntax" && ok || bad "$1: not valid sh: $(head -c 300 "$TMP/syntax")"
}

run "report of the crafted document" 0 "$BIN" report --from "$DOC"
sed -n '/^# paste or eval/,$p' "$TMP/out" >"$TMP/block"
if [ "$(wc -l <"$TMP/block")" -ge 9 ]; then ok; else bad "report: the block has $(wc -l <"$TMP/block") lines, expected the 9 items and its heading"; fi
shell_lines "report block" "$TMP/block"
evals "report block" "$TMP/block"
# what is safe still comes out whole: quotes escaped, substitutions as text, the guard
out_has "report: quote escaped" "export NCCL_SOCKET_IFNAME='eth0'\\''; touch PWNED2; echo '\\'''"
out_has "report: substitutions stay text" "export UCX_TLS='\$(touch PWNED9)\`touch PWNED10\`'"
out_has "report: guard" "[ \"\$(hostname)\" = 'gpu-node07' ] && export NCCL_ALGO='Ring'"
out_has "report: a bad name refused" "# commdiag refused to print this line: not a shell variable name: X=1; touch PWNED1; export Y"
out_has "report: a value with a newline refused" "for: NCCL_DEBUG"
# ... and what the values are, once eval'ed
if (cd "$TMP" && bash -c 'eval "$(cat block)"; [ "$NCCL_SOCKET_IFNAME" = "eth0'"'"'; touch PWNED2; echo '"'"'" ] && [ "$UCX_TLS" = "\$(touch PWNED9)\`touch PWNED10\`" ]'); then ok; else bad "report: eval did not give the values as written"; fi

# the advice list above the block prints the same lines, and no raw newline from a command
sed -n '/^# advice/,/^# rules/p' "$TMP/out" >"$TMP/list"
if grep -q '^touch PWNED' "$TMP/list"; then bad "report: a newline in the advice list started a line of its own"; else ok; fi

# advise --shell and report --shell-like output of the same document (advise re-walks the
# tree over the crafted facts, check --shell too): always the allowed forms
for cmd in "advise --shell" "check --shell"; do
	run "$cmd over the crafted document" "0 1" "$BIN" $cmd --from "$DOC"
	cp "$TMP/out" "$TMP/shell.out"
	shell_lines "$cmd" "$TMP/shell.out"
	evals "$cmd" "$TMP/shell.out"
done

echo "security/shell: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
