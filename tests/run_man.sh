#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The man page and the README against the binary they document: every command, option
# (short and long) and rule id that `help`, `help COMMAND` and `rules` list is in
# man/commdiag.1 (commands under COMMANDS, options under OPTIONS with the commands they
# apply to, rule ids under FINDINGS, probes under PROBES); every variable the decision tree
# can print has an entry under LIBRARY DEFAULTS; no sentence of an older version
# is left in the man page or the README; the README is at most 300 lines and its Quick
# start block is exactly the two commands CI runs in a bare clone; man renders the page
# without a warning (skipped without man).
# Usage: tests/run_man.sh ./commdiag
#   CD_MAN=FILE      check another man page (default man/commdiag.1)
#   CD_README=FILE   check another README (default README.md)
set -u
BIN=$(realpath "${1:-./commdiag}")
MAN=$(realpath "${CD_MAN:-$(dirname "$0")/../man/commdiag.1}")
README=$(realpath "${CD_README:-$(dirname "$0")/../README.md}")
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-man.XXXXXX")
trap '[ -n "${CD_KEEP:-}" ] || rm -rf "$TMP"' EXIT
export NO_COLOR=1
# shellcheck disable=SC2034 # read by tests/lib.sh
FAIL_PREFIX="man: "
# shellcheck source=tests/lib.sh
. tests/lib.sh

# The man source with troff's escapes undone, so names read as they are typed: \- is -,
# font changes (\fB \fI \fR \fP \f(CW) and the zero-width \& go, \(aq is '.
sed -e 's/\\-/-/g' -e 's/\\f([A-Z][A-Z]//g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e "s/\\\\(aq/'/g" \
	"$MAN" >"$TMP/man"
# section NAME: the lines of one .SH section of the normalised page
section() { awk -v s="$1" '/^\.SH / { f = ($0 == ".SH " s || $0 == ".SH \"" s "\"") } f' "$TMP/man"; }
# entries NAME: the tags of a section's .TP entries (the line after each .TP)
entries() { section "$1" | awk 'p { print; p = 0 } /^\.TP/ { p = 1 }'; }
# has_word FILE WORD: WORD occurs in FILE with no name character on either side
has_word() { grep -qE -- "(^|[^[:alnum:]_.-])$(printf '%s' "$2" | sed 's/[.]/\\./g')([^[:alnum:]_-]|$)" "$1"; }

# --- what the binary says it has ---
"$BIN" help >"$TMP/help" 2>&1 || bad "commdiag help exits $?"
awk '/^commands:/ { f = 1; next } /^$/ { f = 0 } f { print $1 }' "$TMP/help" >"$TMP/commands"
if [ -s "$TMP/commands" ]; then ok; else bad "no commands parsed from 'commdiag help'"; fi
# option lines: "  -j, --json  …" or "      --format …": the short option, if any, and the long one
options_of() { sed -nE 's/^ {2,8}(-([A-Za-z]), +)?--([a-z][a-z-]*).*/\2 \3/p'; }
options_of <"$TMP/help" >"$TMP/options"
while read -r c; do
	"$BIN" help "$c" >"$TMP/help-$c" 2>&1 || bad "commdiag help $c exits $?"
	options_of <"$TMP/help-$c" >"$TMP/options-$c"
	if [ -s "$TMP/options-$c" ]; then ok; else bad "no options parsed from 'commdiag help $c'"; fi
	cat "$TMP/options-$c" >>"$TMP/options"
done <"$TMP/commands"
sort -u "$TMP/options" -o "$TMP/options"
"$BIN" rules >"$TMP/rules" 2>&1 || bad "commdiag rules exits $?"
awk '$1 ~ /^[A-Z][A-Z0-9]*[0-9][0-9][0-9]$/ { print $1 }' "$TMP/rules" | sort -u >"$TMP/ids"
# the findings only explain's cause catalogue makes ('commdiag rules' lists the judge's)
sed -n 's/^finding *= *\([A-Z][A-Z0-9]*[0-9][0-9][0-9]\) *$/\1/p' rules/causes.catalog | sort -u >>"$TMP/ids"
sort -u "$TMP/ids" -o "$TMP/ids"
if [ "$(wc -l <"$TMP/ids")" -ge 10 ]; then ok; else bad "only $(wc -l <"$TMP/ids") rule ids parsed from 'commdiag rules'"; fi
"$BIN" probe >"$TMP/probes" 2>&1 || bad "commdiag probe exits $?"
awk 'NR > 1 && $1 ~ /^[a-z0-9_]+\.[a-z0-9_]+$/ { print $1 }' "$TMP/probes" >"$TMP/probe-names"
if [ -s "$TMP/probe-names" ]; then ok; else bad "no probes parsed from 'commdiag probe'"; fi

# --- every command has an entry under COMMANDS ---
entries COMMANDS | sed -E 's/^\.[A-Z]+ +"?//; s/[" ].*//' >"$TMP/man-commands"
while read -r c; do
	if grep -qxF -- "$c" "$TMP/man-commands"; then ok; else bad "COMMANDS has no entry for '$c'"; fi
done <"$TMP/commands"

# --- every option, long and short, has an entry under OPTIONS ---
entries OPTIONS >"$TMP/man-options"
while read -r short long; do
	if [ -z "$long" ]; then # no short option: read put the long one in $short
		long=$short
		short=
	fi
	if has_word "$TMP/man-options" "--$long"; then ok; else bad "OPTIONS has no entry for --$long"; fi
	if [ -n "$short" ]; then
		if grep -E -- "(^|[^[:alnum:]-])-$short([^[:alnum:]-]|$)" "$TMP/man-options" | has_word - "--$long"; then
			ok
		else
			bad "OPTIONS has no entry for -$short beside --$long"
		fi
	fi
done <"$TMP/options"

# --- each OPTIONS entry names the commands that take it, as help COMMAND lists them ---
# "[check, probe]" after an entry (or a .PD 0 group of entries); "[all commands]"; "[all commands but help]"
section OPTIONS | awk '
	/^\.TP/ { tag = 1; next }
	tag { tag = 0; if (match($0, /--[a-z][a-z-]*/)) pending = pending " " substr($0, RSTART + 2, RLENGTH - 2); next }
	/^\[.*\]$/ { n = split(pending, o, " "); for (i = 1; i <= n; i++) print o[i] "\t" $0; pending = "" }
' >"$TMP/man-brackets"
all=$(paste -sd, "$TMP/commands" | sed 's/,/, /g')
while read -r short long; do
	[ -n "$long" ] || long=$short
	want=$(while read -r c; do
		awk '{ print $NF }' "$TMP/options-$c" | grep -qxF -- "$long" && printf '%s\n' "$c"
	done <"$TMP/commands" | paste -sd, - | sed 's/,/, /g')
	got=$(awk -F'\t' -v o="$long" '$1 == o { print $2; exit }' "$TMP/man-brackets" |
		sed -e 's/^\[//' -e 's/\]$//' -e "s/^all commands but help\$/$(printf '%s' "$all" | sed 's/help, //; s/, help$//')/" \
			-e "s/^all commands\$/$all/")
	# the same set in any order
	want_s=$(printf '%s' "$want" | tr -d ' ' | tr ',' '\n' | sort | paste -sd, -)
	got_s=$(printf '%s' "$got" | tr -d ' ' | tr ',' '\n' | sort | paste -sd, -)
	if [ -z "$got" ]; then
		bad "OPTIONS entry of --$long does not say which commands take it"
	elif [ "$want_s" = "$got_s" ]; then
		ok
	else
		bad "OPTIONS says --$long is for [$got], help says [$want]"
	fi
done <"$TMP/options"

# --- every rule id is documented under FINDINGS, every probe under PROBES ---
section FINDINGS >"$TMP/man-findings"
while read -r id; do
	if has_word "$TMP/man-findings" "$id"; then ok; else bad "FINDINGS lacks rule $id"; fi
done <"$TMP/ids"
section PROBES >"$TMP/man-probes"
while read -r p; do
	if has_word "$TMP/man-probes" "$p"; then ok; else bad "PROBES lacks probe $p"; fi
done <"$TMP/probe-names"

# --- every variable the decision tree can print has an entry under LIBRARY DEFAULTS ---
# The list comes from the tree's sources, not the binary: no command lists the settings the
# tree can emit (advise --explain prints one summary per leaf, which names only some of them),
# and strings(1) of the binary would also return the embedded env catalogue, whose hundreds of
# names the tree never prints on its own (leaf.env only renames or unsets a variable the user
# set). So: every string literal in src/advise/advise*.[ch] (the tree; envlint.c and explain.c
# are the linter and the log reader), and in it every name of a family that commdiag advises
# on. That covers the walk_emit setting names and the names advice texts tell users to export
# ("slower fallback: export NCCL_SHM_DISABLE=1"); a new variable in either place fails here
# until the man page says what its library does when it is unset.
grep -ohE '"([^"\\]|\\.)*"' src/advise/advise*.c src/advise/advise*.h |
	grep -oE '(^|[^A-Za-z0-9_])(NCCL|TORCH|GLOO|UCX|OMPI|PRTE|PMIX|CUDA|FI|HCOLL|UCC|NVSHMEM|MPICH|I_MPI)_[A-Za-z0-9_]*' |
	sed -E 's/^[^A-Z]//' | grep -v '_$' | sort -u >"$TMP/tree-vars" # "OMPI_MCA_": a family prefix, no variable
if [ "$(wc -l <"$TMP/tree-vars")" -ge 15 ]; then
	ok
else
	bad "only $(wc -l <"$TMP/tree-vars") variable names found in src/advise/advise*.[ch]"
fi
entries "LIBRARY DEFAULTS" >"$TMP/man-defaults"
while read -r v; do
	if has_word "$TMP/man-defaults" "$v"; then ok; else bad "LIBRARY DEFAULTS has no entry for $v"; fi
done <"$TMP/tree-vars"

# --- nothing that describes an older version ---
stale=(
	"this version" "not yet" "foundation release" "next steps" "next step of the project"
	"early version" "future version" "in a future" "runs no probes" "no probes run"
	"gives no advice" "single host only" "what it does today" "../shared"
)
for f in "$MAN" "$README"; do
	for phrase in "${stale[@]}"; do
		if grep -qiF -- "$phrase" "$f"; then
			bad "$(basename "$f"): stale phrase '$phrase': $(grep -inF -- "$phrase" "$f" | head -1)"
		else
			ok
		fi
	done
done

# --- the README: short, and the Quick start CI runs verbatim ---
n=$(wc -l <"$README")
if [ "$n" -le 300 ]; then ok; else bad "README.md has $n lines, more than 300"; fi
if [ "$(grep -cx '## Quick start' "$README")" = 1 ]; then ok; else bad "README.md: no single '## Quick start' heading"; fi
# between the heading and the block: at most a short sentence; the block: ```sh, the two lines, ```
awk '
	$0 == "## Quick start" { f = 1; next }
	f == 1 && /^#/ { print "heading"; exit }
	f == 1 && $0 == "```sh" { f = 2; next }
	f == 1 && /^```/ { print "fence " $0; exit }
	f == 1 && NF { print "text" }
	f == 2 && $0 == "```" { print "end"; exit }
	f == 2 { print "line " $0 }
' "$README" >"$TMP/quick"
printf '%s\n' "line scripts/bootstrap.sh && make && ./commdiag check" "line make check" "end" >"$TMP/quick-want"
if [ "$(grep -c '^text' "$TMP/quick")" -le 2 ]; then ok; else bad "README.md: more than a short sentence before the Quick start block"; fi
if grep -v '^text' "$TMP/quick" | cmp -s - "$TMP/quick-want"; then
	ok
else
	bad "README.md: the Quick start block is not exactly the two commands: $(grep -v '^text' "$TMP/quick" | tr '\n' '|')"
fi
# the documents the README sends readers to exist
grep -oE '(docs|man|tests/data)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$README" | sort -u >"$TMP/readme-paths"
while read -r d; do
	if [ -e "$d" ]; then ok; else bad "README.md names $d, which does not exist"; fi
done <"$TMP/readme-paths"

# --- the page renders without a warning ---
if command -v man >/dev/null; then
	if MANWIDTH=80 man --warnings -l "$MAN" >/dev/null 2>"$TMP/err" && [ ! -s "$TMP/err" ]; then
		ok
	else
		bad "man --warnings: $(head -c 400 "$TMP/err")"
	fi
else
	skip "man not installed: rendering not checked (Debian: man-db, groff-base)"
fi

echo "man: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
