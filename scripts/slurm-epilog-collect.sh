#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Put every node's commdiag document into one shared directory, and merge them into one
# fleet document (`commdiag merge`): the other half of slurm-prolog.sh, which keeps each
# node's document on the node (STATE_DIR/last.json) where no one sees 500 of them together.
#
# Usage: slurm-epilog-collect.sh [--shared DIR] [--state-dir DIR] [--node NAME]
#                                [--commdiag PATH]
#        slurm-epilog-collect.sh --merge [--shared DIR] [--max-age DAYS] [--commdiag PATH]
#                                [-- COMMDIAG-OPTIONS...]
#
# Collect (the default; on each node, as Slurm's Epilog after slurm-prolog.sh, or from
# cron): copy STATE_DIR/last.json to SHARED/nodes/NODE.json, written beside as a hidden
# file and renamed, so a merge never reads half a document. NODE is the scheduler's name
# for the node (SLURMD_NODENAME, else `hostname -s`), not what the document says: a node
# that reports another node's hostname keeps a file of its own, and the merge names it
# (HOST001). Exit 0 copied, 1 no document to copy (the prolog has not run here yet).
#
# Merge (--merge; on one host, from cron or after the job): commdiag merge of
# SHARED/nodes into SHARED/fleet.json (the JSON document) and SHARED/fleet.txt (the text
# report, with a verdict per host), each replaced atomically by commdiag's -o. With
# --max-age DAYS, documents older than that (nodes gone from the cluster) are left out.
# Exit status: commdiag's: 0 nothing at or above --fail-on, 1 findings, 2 a bad document
# (named on stderr; the old fleet files stay), 3 timeout.
#
# Settings: the environment, or the shell file COMMDIAG_SLURM_DEFAULTS (default
# /etc/default/commdiag-slurm, shared with slurm-prolog.sh):
#   COMMDIAG_SHARED_DIR  the shared directory (default /shared/commdiag)
#   COMMDIAG_STATE_DIR   the node's own state directory (default /var/lib/commdiag)
#   COMMDIAG             the commdiag binary (default: commdiag beside this script's
#                        $(PREFIX), else on PATH)
#
# Slurm: Epilog=/usr/libexec/commdiag/slurm-epilog-collect (after the node's own check,
# e.g. a script running slurm-epilog then slurm-epilog-collect). Cron, on the host that
# reads the fleet:
#   */15 * * * * root /usr/libexec/commdiag/slurm-epilog-collect --merge --max-age 7
set -eu

me=commdiag-collect
die_usage() { echo "$me: $*" >&2; exit 2; }

defaults=${COMMDIAG_SLURM_DEFAULTS:-/etc/default/commdiag-slurm}
if [ -f "$defaults" ]; then
	# shellcheck disable=SC1090
	. "$defaults"
fi
shared=${COMMDIAG_SHARED_DIR:-/shared/commdiag}
state_dir=${COMMDIAG_STATE_DIR:-/var/lib/commdiag}
node=${SLURMD_NODENAME:-}
bin=${COMMDIAG:-}
merge=0
max_age=

usage() {
	sed -n '/^# Usage:/,/^#                                \[-- COMMDIAG-OPTIONS/s/^# \{0,1\}//p' "$0"
}

need_arg() { [ $# -ge 2 ] || die_usage "option '$1' needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--shared) need_arg "$@"; shared=$2; shift 2 ;;
	--state-dir) need_arg "$@"; state_dir=$2; shift 2 ;;
	--node) need_arg "$@"; node=$2; shift 2 ;;
	--commdiag) need_arg "$@"; bin=$2; shift 2 ;;
	--merge) merge=1; shift ;;
	--max-age) need_arg "$@"; max_age=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) die_usage "unknown option '$1' (commdiag's own options go after '--'; see --help)" ;;
	esac
done
[ -n "$shared" ] || die_usage "no shared directory: set --shared or COMMDIAG_SHARED_DIR"
if [ "$merge" = 0 ] && [ $# -gt 0 ]; then
	die_usage "commdiag options ('$1') are for --merge"
fi
if [ -n "$max_age" ]; then
	case $max_age in
	'' | *[!0-9]*) die_usage "option '--max-age': '$max_age': expected a whole number of days" ;;
	esac
	# find -mtime -0 would mean "modified in the future", yet matches a file of this very second
	[ "$max_age" -ge 1 ] || die_usage "option '--max-age': '$max_age': expected at least 1 day"
	[ "$merge" = 1 ] || die_usage "option '--max-age' is for --merge"
fi

if [ "$merge" = 0 ]; then
	[ -n "$node" ] || node=$(hostname -s)
	case $node in
	'' | .* | */* | *[!A-Za-z0-9._-]*) die_usage "node name '$node': expected a host name (letters, digits, '.', '_', '-')" ;;
	esac
	if [ ! -s "$state_dir/last.json" ]; then
		echo "$me: no document to collect: $state_dir/last.json is missing or empty (has slurm-prolog.sh run on $node?)" >&2
		exit 1
	fi
	mkdir -p "$shared/nodes"
	tmp=$shared/nodes/.$node.json.$$
	trap 'rm -f "$tmp"' EXIT
	cp "$state_dir/last.json" "$tmp"
	mv -f "$tmp" "$shared/nodes/$node.json"
	exit 0
fi

if [ -z "$bin" ]; then
	# installed as $(PREFIX)/libexec/commdiag/slurm-*: prefer the commdiag of the same prefix
	here=$(cd "$(dirname "$0")" && pwd)
	if [ -x "$here/../../bin/commdiag" ]; then
		bin=$here/../../bin/commdiag
	else
		bin=$(command -v commdiag || true)
	fi
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then die_usage "commdiag not found: set --commdiag or COMMDIAG"; fi
[ -d "$shared/nodes" ] || die_usage "no directory $shared/nodes: nothing collected yet"

# the documents to merge: the directory, or its files younger than --max-age days; commdiag
# takes its options after them too (GNU getopt permutes), so they stay as given
if [ -n "$max_age" ]; then
	list=$(find "$shared/nodes" -maxdepth 1 -type f -name '*.json' ! -name '.*' -mtime "-$max_age" | LC_ALL=C sort)
	if [ -z "$list" ]; then
		echo "$me: no document in $shared/nodes younger than $max_age days" >&2
		exit 2
	fi
	# names are the collector's own (letters, digits, '.', '_', '-'): split on newlines only
	old_ifs=$IFS
	IFS='
'
	# shellcheck disable=SC2086 # one document per line
	set -- $list "$@"
	IFS=$old_ifs
else
	set -- "$shared/nodes" "$@"
fi
rc=0
"$bin" merge --json --no-color -o "$shared/fleet.json" "$@" || rc=$?
# the text report beside it: a verdict per host, for people (from the document just written)
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
	"$bin" report --no-color --from "$shared/fleet.json" -o "$shared/fleet.txt" >/dev/null 2>&1 || true
fi
exit "$rc"
