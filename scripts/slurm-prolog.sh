#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# commdiag as a Slurm Prolog, Epilog or HealthCheckProgram: runs
# `commdiag check --quick --json` under a time budget, keeps the document, drains the
# node when the check fails and resumes it when a later check passes.
#
# Usage: slurm-prolog.sh [--mode prolog|epilog|health] [--budget SEC] [--grace SEC]
#                        [--state-dir DIR] [--fail-on info|warn|fail] [--node NAME]
#                        [--commdiag PATH] [--no-drain] [--require auto|none|GROUPS]
#                        [-- COMMDIAG-OPTIONS...]
#
# Slurm runs Prolog=, Epilog= and HealthCheckProgram= without arguments, so the mode also
# comes from the name it is called by: a name containing "epilog" is the epilog, one
# containing "health" the health check, anything else the prolog (make install puts
# slurm-prolog, slurm-epilog and slurm-healthcheck links in $(LIBEXECDIR)/commdiag).
# Settings without arguments: the environment, or the shell file COMMDIAG_SLURM_DEFAULTS
# (default /etc/default/commdiag-slurm) which may set the same variables:
#   COMMDIAG_BUDGET     seconds commdiag may take, passed as its --timeout (default 10)
#   COMMDIAG_GRACE      seconds past the budget before timeout(1) kills it (default 5)
#   COMMDIAG_STATE_DIR  where the documents go (default /var/lib/commdiag)
#   COMMDIAG_FAIL_ON    severity that fails the node, commdiag's --fail-on (default fail)
#   COMMDIAG            the commdiag binary (default: commdiag beside this script's
#                       $(PREFIX), else on PATH)
#   COMMDIAG_ARGS       more commdiag options, split on blanks (e.g. "--profile h100-sxm")
#   COMMDIAG_NO_DRAIN   1: judge and record only, never call scontrol update
#   COMMDIAG_REQUIRE    commdiag's --require: rule groups that must be evaluated, or
#                       "none"; default "auto": gpu when the PCI bus shows NVIDIA GPUs
#                       (vendor 0x10de, class 0x0300/0x0302 in sysfs), ib when
#                       /sys/class/infiniband has a device. A GPU node whose driver does
#                       not load then fails ("commdiag: REQ001 GPU004") instead of
#                       passing with its GPU rules unevaluated; a node without the
#                       hardware is not failed for lacking it. (COMMDIAG_SYSFS: sysfs
#                       root for that scan, default /sys; tests point it at a fake tree.)
#
# The node is SLURMD_NODENAME (set by slurmd), else `hostname -s`.
#
# What a run decides, from commdiag's exit code (DESIGN.md): 0 pass; 1 findings at or above
# --fail-on (reason: their ids, "commdiag: PCIE002 IB001"); 3 runtime error or commdiag's
# own --timeout, and timeout(1)'s kill past budget+grace (reason "commdiag: timeout" or
# "commdiag: runtime error"); 2 usage or input error, i.e. a broken configuration of this
# script ("commdiag: usage error"), which fails closed like the others and heals itself:
# once the configuration is fixed the next pass resumes every node it drained.
#
# Draining follows NHC: a node already drained or down with a reason that does not start
# with "commdiag:" is an admin's and is left alone (no drain, no resume); a node this
# script drained is resumed (State=RESUME) by the first run that passes; a node it drained
# gets its reason updated when the failing findings change.
#
# Exit status (Slurm semantics):
#   prolog  0 pass; 1 fail: Slurm then requeues the job (held, unless SchedulerParameters
#           has nohold_on_prolog_fail) instead of starting it on a bad node. The drain is
#           done here first, so the node carries commdiag's reason: Slurm's own "Prolog
#           error" drain is a no-op on a node that is already drained.
#   epilog  0 pass, and 0 after a successful drain (the job is over: a non-zero exit would
#   health  only make Slurm drain the node again with a vaguer reason); 1 when the check
#           failed and the drain itself failed, so Slurm's own drain is the fallback.
#   any     2 usage error of this script or scontrol missing (the message says which).
# Files in the state directory, each replaced atomically (temporary file + rename):
#   last.json       the document of the last run that produced one
#   last-fail.json  the document of the last failing run
#   last.log        commdiag's stderr of the last run
#   last.status     one line: time, mode, node, commdiag's exit code, verdict, reason
set -eu

me=commdiag-slurm
die_usage() { echo "$me: $*" >&2; exit 2; }
note() { echo "$me: $*" >&2; }

defaults=${COMMDIAG_SLURM_DEFAULTS:-/etc/default/commdiag-slurm}
if [ -f "$defaults" ]; then
	# shellcheck disable=SC1090
	. "$defaults"
fi

case ${0##*/} in
*epilog*) mode=epilog ;;
*health*) mode=health ;;
*) mode=prolog ;;
esac
budget=${COMMDIAG_BUDGET:-10}
grace=${COMMDIAG_GRACE:-5}
state_dir=${COMMDIAG_STATE_DIR:-/var/lib/commdiag}
fail_on=${COMMDIAG_FAIL_ON:-fail}
node=${SLURMD_NODENAME:-}
no_drain=${COMMDIAG_NO_DRAIN:-0}
bin=${COMMDIAG:-}
require=${COMMDIAG_REQUIRE:-auto}
sysfs=${COMMDIAG_SYSFS:-/sys}

usage() {
	sed -n '/^# Usage:/,/^#                       root for that scan/s/^# \{0,1\}//p' "$0"
}

need_arg() { [ $# -ge 2 ] || die_usage "option '$1' needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--mode) need_arg "$@"; mode=$2; shift 2 ;;
	--epilog) mode=epilog; shift ;;
	--health) mode=health; shift ;;
	--budget) need_arg "$@"; budget=$2; shift 2 ;;
	--grace) need_arg "$@"; grace=$2; shift 2 ;;
	--state-dir) need_arg "$@"; state_dir=$2; shift 2 ;;
	--fail-on) need_arg "$@"; fail_on=$2; shift 2 ;;
	--node) need_arg "$@"; node=$2; shift 2 ;;
	--commdiag) need_arg "$@"; bin=$2; shift 2 ;;
	--no-drain) no_drain=1; shift ;;
	--require) need_arg "$@"; require=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) die_usage "unknown option '$1' (commdiag's own options go after '--'; see --help)" ;;
	esac
done

case $mode in
prolog | epilog | health) ;;
*) die_usage "option '--mode': '$mode': expected prolog, epilog or health" ;;
esac
is_seconds() {
	case $1 in
	'' | *[!0-9.]* | *.*.* | .) return 1 ;;
	esac
	awk -v s="$1" 'BEGIN { exit !(s + 0 > 0) }'
}
is_seconds "$budget" || die_usage "budget '$budget' (--budget or COMMDIAG_BUDGET): expected seconds > 0, like 10 or 2.5"
is_seconds "$grace" || die_usage "grace '$grace' (--grace or COMMDIAG_GRACE): expected seconds > 0, like 5"
case $fail_on in
info | warn | fail) ;;
*) die_usage "fail-on '$fail_on' (--fail-on or COMMDIAG_FAIL_ON): expected info, warn or fail" ;;
esac

# commdiag_expect, the hardware scan shared with ci-preflight.sh, from commdiag-expect.sh
# beside this script: scripts/ in the source tree, $(LIBEXECDIR)/commdiag installed; for a
# link to the script from elsewhere, beside the file it points at
load_expect() {
	cx=$(dirname "$0")/commdiag-expect.sh
	if [ ! -r "$cx" ] && [ -L "$0" ]; then cx=$(dirname "$(readlink -f "$0")")/commdiag-expect.sh; fi
	[ -r "$cx" ] || die_usage "--require auto needs commdiag-expect.sh beside this script ('$cx' not found; make install puts it there), or set --require"
	# shellcheck source=scripts/commdiag-expect.sh
	. "$cx"
}
[ "$require" != auto ] || load_expect

if [ -z "$bin" ]; then
	# installed as $(PREFIX)/libexec/commdiag/slurm-*: prefer the commdiag of the same prefix
	here=$(cd "$(dirname "$0")" && pwd)
	if [ -x "$here/../../bin/commdiag" ]; then
		bin=$here/../../bin/commdiag
	else
		bin=$(command -v commdiag || true)
	fi
	[ -n "$bin" ] || die_usage "commdiag not found beside this script nor on PATH ($PATH): set COMMDIAG or --commdiag"
fi
[ -x "$bin" ] || die_usage "commdiag '$bin' is not an executable file"
command -v timeout >/dev/null 2>&1 || die_usage "timeout(1) (coreutils) not found on PATH ($PATH): it is the backstop of the budget"
if [ "$no_drain" != 1 ]; then
	command -v scontrol >/dev/null 2>&1 ||
		die_usage "scontrol not found on PATH ($PATH): Slurm's client is needed to drain and resume the node (or --no-drain)"
fi
[ -n "$node" ] || node=$(hostname -s)
mkdir -p "$state_dir" || die_usage "cannot create the state directory '$state_dir' (--state-dir or COMMDIAG_STATE_DIR)"
[ -w "$state_dir" ] || die_usage "state directory '$state_dir' is not writable"

# One run's files live in a directory of its own that mktemp makes (mode 0700, a name no
# one can guess or take first): prologs of jobs starting together do not mix, and a link
# or file another user planted in a shared state directory is never opened as root. The
# results are renamed into the state directory (mv -T: over a planted link, never into a
# planted directory).
work=$(mktemp -d "$state_dir/.run.XXXXXX") || die_usage "cannot make a private directory in '$state_dir'"
trap 'rm -rf "$work"' EXIT
tmp_doc=$work/run.json
tmp_log=$work/run.log

# --require auto: what the hardware on the bus says must be tested (see COMMDIAG_REQUIRE)
case $require in
auto) require=$(commdiag_expect "$sysfs" gpu) ;;
none) require= ;;
esac
set -- ${require:+--require "$require"} "$@"

outer=$(awk -v b="$budget" -v g="$grace" 'BEGIN { print b + g }')
# COMMDIAG_ARGS is split on blanks on purpose: it is a list of options
# shellcheck disable=SC2086
set -- check --quick --json --no-color --fail-on "$fail_on" --timeout "$budget" -o "$tmp_doc" ${COMMDIAG_ARGS:-} "$@"
rc=0
timeout -k 2 "$outer" "$bin" "$@" >/dev/null 2>"$tmp_log" || rc=$?

# the ids of the findings at or above --fail-on, from commdiag's own text report of the
# document (lines "  FAIL  PCIE002 host subject: title" between "# findings" and "summary:")
finding_ids() {
	case $fail_on in
	fail) sev='FAIL' ;;
	warn) sev='FAIL|WARN' ;;
	*) sev='FAIL|WARN|INFO' ;;
	esac
	"$bin" report --no-color --from "$1" 2>/dev/null | awk -v sev="^(${sev})\$" '
		/^# findings/ { in_f = 1; next }
		/^summary:/ { in_f = 0 }
		in_f && $1 ~ sev && $2 ~ /^[A-Z]+[0-9]+$/ && !seen[$2]++ { ids = ids (n++ < 8 ? " " $2 : "") }
		END { if (n > 8) ids = ids " +" (n - 8) " more"; print substr(ids, 2) }'
}

# Where a timeout struck, for the drain reason: the phase commdiag names on stderr, and the
# discovery sections its partial document marks timeout. "timeout in discovery (gpu)" is a
# driver that does not answer; a stall in a section that reads nothing of the hardware
# would say so by its name (hwloc no longer connects to X displays a user could stall).
timeout_where() {
	phase=$(sed -n 's/.*exceeded --timeout ([^)]*) during \([a-z ]*[a-z]\).*/\1/p; s/.*timeout: still in \([a-z ]*[a-z]\) [0-9.]* s after.*/\1/p' \
		"$tmp_log" | head -1)
	sections=
	if [ -s "$tmp_doc" ]; then
		sections=$(grep -o '"\(system\|topo\|net\|ib\|gpu\)":[[:space:]]*"timeout"' "$tmp_doc" | sed 's/^"\([a-z]*\)".*/\1/' |
			sort -u | tr '\n' ',' | sed 's/,$//')
	fi
	[ -n "$phase" ] && printf ' in %s' "$phase"
	[ -n "$sections" ] && printf ' (%s)' "$sections"
	return 0
}

verdict=pass
reason=
case $rc in
0) ;;
1)
	verdict=fail
	ids=$(finding_ids "$tmp_doc")
	reason="commdiag: ${ids:-findings at or above $fail_on}"
	;;
2) verdict=fail reason="commdiag: usage error" ;;
3)
	verdict=fail
	if grep -q 'timeout' "$tmp_log"; then reason="commdiag: timeout$(timeout_where)"; else reason="commdiag: runtime error"; fi
	;;
124 | 137) verdict=fail reason="commdiag: timeout" ;;
*) verdict=fail reason="commdiag: exit $rc" ;;
esac

# keep the documents: write beside, then rename (atomic on one file system)
if [ -s "$tmp_doc" ]; then
	if [ $verdict = fail ]; then
		cp "$tmp_doc" "$work/fail.json" && mv -fT "$work/fail.json" "$state_dir/last-fail.json"
	fi
	mv -fT "$tmp_doc" "$state_dir/last.json"
fi
mv -fT "$tmp_log" "$state_dir/last.log"
printf '%s %s %s exit=%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$mode" "$node" "$rc" "$verdict" "$reason" \
	>"$work/status"
mv -fT "$work/status" "$state_dir/last.status"

if [ $verdict = fail ]; then
	note "$node failed the check: $reason (document: $state_dir/last.json, log: $state_dir/last.log)"
	sed 's/^/  /' "$state_dir/last.log" >&2
fi
if [ "$no_drain" = 1 ]; then
	[ $verdict = pass ] || exit 1
	exit 0
fi

# State=IDLE+DRAIN and Reason=text [user@time] of `scontrol show node`
show=$(scontrol show node "$node" 2>&1) || {
	note "scontrol show node '$node' failed: $show"
	[ $verdict = pass ] && exit 0
	exit 1
}
cur_state=$(printf '%s\n' "$show" | sed -n 's/.*[[:space:]]State=\([^[:space:]]*\).*/\1/p' | head -n 1)
cur_reason=$(printf '%s\n' "$show" | sed -n 's/^[[:space:]]*Reason=\(.*\)$/\1/p' | head -n 1 | sed 's/ \[[^]]*\]$//')
case $cur_state in
*DRAIN* | *DOWN* | *FAIL*) drained=1 ;;
*) drained=0 ;;
esac
case $cur_reason in
commdiag:*) ours=1 ;;
*) ours=0 ;;
esac

if [ $verdict = pass ]; then
	if [ $drained = 1 ] && [ $ours = 1 ]; then
		note "$node passes again: resuming it (it was drained with '$cur_reason')"
		scontrol update NodeName="$node" State=RESUME || { note "scontrol could not resume '$node'"; exit 1; }
	fi
	exit 0
fi

if [ $drained = 1 ] && [ $ours = 0 ]; then
	note "$node is already $cur_state by someone else (reason '$cur_reason'): left alone"
elif [ $drained = 1 ] && [ "$cur_reason" = "$reason" ]; then
	note "$node is already drained with this reason"
elif scontrol update NodeName="$node" State=DRAIN Reason="$reason"; then
	note "$node drained: $reason"
else
	note "scontrol could not drain '$node'"
	exit 1
fi
[ "$mode" = prolog ] && exit 1
exit 0
