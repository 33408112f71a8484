#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# commdiag as a CI preflight step: one check of the runner, the human report on stdout,
# the JSON document kept as an artifact, and the exit status of the check.
#
# Usage: ci-preflight.sh [--json PATH] [--fail-on info|warn|fail] [--budget SEC]
#                        [--commdiag PATH] [--require auto|none|GROUPS] [-- COMMDIAG-OPTIONS...]
#
#   --json PATH      where the document goes (default commdiag-preflight.json; written
#                    atomically by commdiag, so a cancelled job leaves no half file)
#   --fail-on SEV    passed to commdiag: the job fails on findings at or above SEV
#                    (default fail)
#   --budget SEC     passed as commdiag's --timeout (default: commdiag's own, 120 s)
#   --commdiag PATH  the binary (default $COMMDIAG, else commdiag on PATH)
#   --require GROUPS commdiag's --require, rule groups that must be evaluated, or none
#                    (default $COMMDIAG_REQUIRE, else auto: gpu,nccl when the runner's
#                    PCI bus shows NVIDIA GPUs, ib when /sys/class/infiniband has a
#                    device; nothing with --from, whose document is another machine's).
#                    A GPU runner whose driver or NCCL does not work then fails
#                    instead of passing with those rules unevaluated.
#   after --         more options for `commdiag check`, e.g. --full, --profile h100-sxm,
#                    --rules site.conf, or --from saved.json to judge a saved document
#
# The check runs once; the report printed is commdiag's rendering of the saved document
# (`commdiag report --from`), so the log and the artifact cannot disagree. When
# GITHUB_STEP_SUMMARY is set (GitHub Actions), the findings and the score are appended
# there too.
#
# Exit status: commdiag check's own: 0 no finding at or above --fail-on, 1 findings at or
# above it, 2 usage or input error, 3 runtime error or timeout (DESIGN.md).
set -eu

me=ci-preflight
die_usage() { echo "$me: $*" >&2; exit 2; }

json=commdiag-preflight.json
fail_on=fail
budget=
bin=${COMMDIAG:-}
require=${COMMDIAG_REQUIRE:-auto}
sysfs=${COMMDIAG_SYSFS:-/sys}

need_arg() { [ $# -ge 2 ] || die_usage "option '$1' needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--json) need_arg "$@"; json=$2; shift 2 ;;
	--fail-on) need_arg "$@"; fail_on=$2; shift 2 ;;
	--budget) need_arg "$@"; budget=$2; shift 2 ;;
	--commdiag) need_arg "$@"; bin=$2; shift 2 ;;
	--require) need_arg "$@"; require=$2; shift 2 ;;
	-h | --help) sed -n '/^# Usage:/,/^#  *--rules site.conf/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) die_usage "unknown option '$1' (commdiag's own options go after '--'; see --help)" ;;
	esac
done
[ -n "$json" ] || die_usage "option '--json': expected a file path"
if [ -z "$bin" ]; then
	bin=$(command -v commdiag || true)
	[ -n "$bin" ] || die_usage "commdiag not found on PATH ($PATH): install it or pass --commdiag PATH"
fi
[ -x "$bin" ] || die_usage "commdiag '$bin' is not an executable file"

# commdiag_expect, the hardware scan shared with slurm-prolog.sh, from commdiag-expect.sh
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

# --require auto: what this runner's hardware says must be tested (see --help); nothing
# for a saved document, which is another machine's
auto_require() {
	for arg in "$@"; do
		case $arg in --from | --from=*) return 0 ;; esac
	done
	commdiag_expect "$sysfs" gpu,nccl
}
case $require in
auto) require=$(auto_require "$@") ;;
none) require= ;;
esac
if [ -n "$require" ]; then
	set -- --require "$require" "$@"
fi
if [ -n "$budget" ]; then
	set -- --timeout "$budget" "$@"
fi
# a run that writes no document must not leave an older one looking like its result
tmp=$json.tmp.$$
trap 'rm -f "$tmp"' EXIT
rc=0
"$bin" check --json --fail-on "$fail_on" -o "$tmp" "$@" || rc=$?
if [ ! -s "$tmp" ]; then
	echo "$me: commdiag check exited $rc and wrote no document ('$json' not written)" >&2
	exit "$rc"
fi
mv -f "$tmp" "$json"
# report exits 1 too when the document holds findings at or above --fail-on
rrc=0
"$bin" report --fail-on "$fail_on" --from "$json" || rrc=$?
if [ "$rrc" -gt 1 ]; then
	echo "$me: commdiag could not render '$json' (exit $rrc)" >&2
	exit 3
fi
echo "$me: document written to $json; commdiag check exit $rc (--fail-on $fail_on)" >&2

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	{
		echo '### commdiag preflight'
		echo '```'
		"$bin" report --no-color --from "$json" | sed -n '/^# findings/,/^summary:/p;/^# score/p'
		echo '```'
	} >>"$GITHUB_STEP_SUMMARY"
fi
exit "$rc"
