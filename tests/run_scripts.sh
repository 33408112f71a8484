#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Tests of the shell side: the Slurm prolog/epilog/health check against a fake scontrol,
# the CI preflight, the bash completion, make install/uninstall, shellcheck.
# Usage: tests/run_scripts.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
DOCS=$ROOT/tests/data/docs
SLURM=$ROOT/scripts/slurm-prolog.sh
CI=$ROOT/scripts/ci-preflight.sh
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-scripts.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1
# nothing of the caller's configuration may leak into the scripts under test
unset COMMDIAG COMMDIAG_ARGS COMMDIAG_BUDGET COMMDIAG_GRACE COMMDIAG_STATE_DIR COMMDIAG_FAIL_ON \
	COMMDIAG_NO_DRAIN SLURMD_NODENAME GITHUB_STEP_SUMMARY COMMDIAG_REQUIRE COMMDIAG_SYSFS COMMDIAG_SHARED_DIR
export COMMDIAG_SLURM_DEFAULTS=$TMP/no-defaults
. tests/lib.sh
file_has() { if grep -qF -- "$3" "$2"; then ok; else bad "$1: $2 lacks '$3': $(head -c 300 "$2" 2>&1)"; fi; }
file_lacks() { if ! grep -qF -- "$3" "$2"; then ok; else bad "$1: $2 has '$3'"; fi; }
is_file() { if [ -s "$2" ]; then ok; else bad "$1: no file $2"; fi; }
no_file() { if [ ! -e "$2" ]; then ok; else bad "$1: $2 exists"; fi; }

# ---------------------------------------------------------------- Slurm prolog / epilog
# A fake scontrol first on PATH: it appends each call, one argument per [ ], to
# $SCONTROL_LOG and answers `show node` with the file $SCONTROL_NODE; with
# SCONTROL_FAIL_UPDATE=1 `update` fails as a refused scontrol would.
mkdir -p "$TMP/bin" "$TMP/state"
cat >"$TMP/bin/scontrol" <<'EOF'
#!/bin/sh
{ printf 'scontrol'; for a in "$@"; do printf ' [%s]' "$a"; done; echo; } >>"$SCONTROL_LOG"
case $1 in
show) cat "$SCONTROL_NODE" ;;
update) [ "${SCONTROL_FAIL_UPDATE:-0}" != 1 ] || { echo "slurm_update error: Access/permission denied" >&2; exit 1; } ;;
esac
EOF
chmod +x "$TMP/bin/scontrol"
export SCONTROL_LOG=$TMP/scontrol.log SCONTROL_NODE=$TMP/node
PATH_FAKE=$TMP/bin:$PATH

# node_state STATE [REASON]: what `scontrol show node n1` answers
node_state() {
	{
		echo "NodeName=n1 Arch=x86_64 CoresPerSocket=56"
		echo "   CPUAlloc=0 CPUEfctv=224 CPUTot=224 CPULoad=0.50"
		echo "   State=$1 ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A"
		echo "   Partitions=gpu"
		if [ $# -ge 2 ]; then echo "   Reason=$2 [root@2026-11-21T09:00:00]"; fi
	} >"$SCONTROL_NODE"
	: >"$SCONTROL_LOG"
}
# prolog EXPECTED_RC NAME DOC [MORE SCRIPT OPTIONS...]: the prolog on node n1 judging DOC
prolog() {
	local want=$1 name=$2 doc=$3
	shift 3
	run "$name" "$want" env PATH="$PATH_FAKE" "$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" "$@" \
		-- --from "$doc"
}
updates() { grep -F ' [update]' "$SCONTROL_LOG" || true; }
no_update() { if [ -z "$(updates)" ]; then ok; else bad "$1: unexpected scontrol update: $(updates)"; fi; }
update_is() {
	local got
	got=$(updates)
	if [ "$got" = "$2" ]; then ok; else bad "$1: scontrol update was '$got', expected '$2'"; fi
}

node_state IDLE
prolog 1 "prolog drains a faulty node" "$DOCS/h100-faulty.json"
update_is "drain reason" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: PCIE002 IB001 COPY001]"
cp "$SCONTROL_LOG" "$TMP/drain-transcript"
err_has "drain message" "n1 drained: commdiag: PCIE002 IB001 COPY001"
is_file "last.json written" "$TMP/state/last.json"
is_file "last-fail.json written" "$TMP/state/last-fail.json"
file_has "last.json is the document" "$TMP/state/last.json" '"PCIE002"'
file_has "last.status" "$TMP/state/last.status" "prolog n1 exit=1 fail commdiag: PCIE002 IB001 COPY001"
if [ -z "$(find "$TMP/state" -name '.*' -type f)" ]; then ok; else bad "temporary files left: $(ls -a "$TMP/state")"; fi

node_state IDLE
prolog 0 "prolog passes a clean node" "$DOCS/h100-clean.json"
no_update "no drain on pass"
file_has "show node asked" "$SCONTROL_LOG" "scontrol [show] [node] [n1]"
file_lacks "last.json replaced" "$TMP/state/last.json" '"PCIE002"'
file_has "last-fail.json kept" "$TMP/state/last-fail.json" '"PCIE002"'
file_has "pass status" "$TMP/state/last.status" "prolog n1 exit=0 pass"

node_state "IDLE+DRAIN" "rack 4 PSU swap"
prolog 1 "admin-drained node, failing" "$DOCS/h100-faulty.json"
no_update "admin drain left alone on fail"
err_has "admin drain message" "by someone else (reason 'rack 4 PSU swap'): left alone"
node_state "IDLE+DRAIN" "rack 4 PSU swap"
prolog 0 "admin-drained node, passing" "$DOCS/h100-clean.json"
no_update "admin drain not resumed on pass"
node_state "DOWN+DRAIN" "commdiagnostics by hand"
prolog 0 "a reason merely starting with 'commdiag' is not ours" "$DOCS/h100-clean.json"
no_update "commdiag-like reason not resumed"

node_state "IDLE+DRAIN" "commdiag: IB001"
prolog 0 "commdiag-drained node passes" "$DOCS/h100-clean.json"
update_is "resumed" "scontrol [update] [NodeName=n1] [State=RESUME]"
err_has "resume message" "n1 passes again: resuming it (it was drained with 'commdiag: IB001')"
node_state "IDLE+DRAIN" "commdiag: PCIE002 IB001 COPY001"
prolog 1 "commdiag-drained node still failing the same way" "$DOCS/h100-faulty.json"
no_update "same reason: no update"
node_state "IDLE+DRAIN" "commdiag: IB001"
prolog 1 "commdiag-drained node failing differently" "$DOCS/h100-faulty.json"
update_is "reason updated" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: PCIE002 IB001 COPY001]"

# --fail-on passes through and selects the ids: SYS001 is a warning
node_state IDLE
prolog 0 "a warning passes by default" "$DOCS/container-small-shm.json"
no_update "warning: no drain"
prolog 1 "--fail-on warn drains on a warning" "$DOCS/container-small-shm.json" --fail-on warn
update_is "warn reason" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: SYS001]"
node_state IDLE
COMMDIAG_FAIL_ON=warn prolog 1 "COMMDIAG_FAIL_ON=warn" "$DOCS/container-small-shm.json"
update_is "env fail-on" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: SYS001]"

# epilog and health check: chosen by name (Slurm passes no arguments) or option; they exit 0
# once they drained, and 1 only when the drain itself failed
ln -s "$SLURM" "$TMP/slurm-epilog"
ln -s "$SLURM" "$TMP/slurm-healthcheck"
node_state IDLE
run "epilog by name drains, exit 0" 0 env PATH="$PATH_FAKE" SLURMD_NODENAME=n1 COMMDIAG_STATE_DIR="$TMP/state" \
	COMMDIAG="$BIN" COMMDIAG_ARGS="--from $DOCS/h100-faulty.json" "$TMP/slurm-epilog"
update_is "epilog drain" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: PCIE002 IB001 COPY001]"
file_has "epilog status" "$TMP/state/last.status" " epilog n1 exit=1 fail"
node_state "IDLE+DRAIN" "commdiag: IB001"
run "health check by name resumes" 0 env PATH="$PATH_FAKE" SLURMD_NODENAME=n1 COMMDIAG_STATE_DIR="$TMP/state" \
	COMMDIAG="$BIN" COMMDIAG_ARGS="--from $DOCS/h100-clean.json" "$TMP/slurm-healthcheck"
update_is "health resume" "scontrol [update] [NodeName=n1] [State=RESUME]"
file_has "health status" "$TMP/state/last.status" " health n1 exit=0 pass"
node_state IDLE
prolog 0 "--mode health drains, exit 0" "$DOCS/h100-faulty.json" --mode health
update_is "health drain" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: PCIE002 IB001 COPY001]"
node_state IDLE
SCONTROL_FAIL_UPDATE=1 prolog 1 "health: the drain refused, exit 1" "$DOCS/h100-faulty.json" --mode health
err_has "drain refused message" "scontrol could not drain 'n1'"
node_state IDLE
prolog 1 "--no-drain judges only" "$DOCS/h100-faulty.json" --no-drain
if [ ! -s "$SCONTROL_LOG" ]; then ok; else bad "--no-drain called scontrol: $(cat "$SCONTROL_LOG")"; fi

# defaults file (Slurm passes no arguments): what it sets reaches commdiag
cat >"$TMP/fake-commdiag" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >"$FAKE_ARGS"
exit 0
EOF
chmod +x "$TMP/fake-commdiag"
echo "COMMDIAG_BUDGET=7.5" >"$TMP/defaults"
node_state IDLE
run "defaults file" 0 env PATH="$PATH_FAKE" FAKE_ARGS="$TMP/args" COMMDIAG_SLURM_DEFAULTS="$TMP/defaults" \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$TMP/fake-commdiag" -- --profile h100-sxm
file_has "check --quick --json" "$TMP/args" "check --quick --json"
file_has "budget is commdiag's --timeout" "$TMP/args" "--timeout 7.5"
file_has "options after -- reach commdiag" "$TMP/args" "--profile h100-sxm"
run "--budget over the defaults file" 0 env PATH="$PATH_FAKE" FAKE_ARGS="$TMP/args" \
	COMMDIAG_SLURM_DEFAULTS="$TMP/defaults" "$SLURM" --node n1 --state-dir "$TMP/state" \
	--commdiag "$TMP/fake-commdiag" --budget 3
file_has "--budget" "$TMP/args" "--timeout 3 "

# the budget: commdiag's own timeout (exit 3) and timeout(1)'s backstop kill
cat >"$TMP/hang-commdiag" <<'EOF'
#!/bin/sh
exec sleep 60
EOF
cat >"$TMP/exit3-commdiag" <<'EOF'
#!/bin/sh
echo "commdiag: ${FAKE_MSG}" >&2
exit 3
EOF
chmod +x "$TMP/hang-commdiag" "$TMP/exit3-commdiag"
node_state IDLE
run "budget exceeded: killed, drained" 1 env PATH="$PATH_FAKE" "$SLURM" --node n1 --state-dir "$TMP/state" \
	--commdiag "$TMP/hang-commdiag" --budget 0.5 --grace 0.5
update_is "timeout reason" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: timeout]"
file_has "timeout status" "$TMP/state/last.status" "exit=124 fail commdiag: timeout"
node_state IDLE
run "commdiag's own timeout" 1 env PATH="$PATH_FAKE" FAKE_MSG="timeout: the run exceeded --timeout (10 s) during probes" \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$TMP/exit3-commdiag"
update_is "exit 3 timeout reason" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: timeout in probes]"
err_has "commdiag's message relayed" "the run exceeded --timeout"
# a real stall in discovery (test fault): the reason names the phase and the section
node_state IDLE
run "a discovery stall: drained, and where" 1 env PATH="$PATH_FAKE" COMMDIAG_TESTING=1 COMMDIAG_FAULT=discover.stall=gpu \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" --budget 2 --grace 5
update_is "a discovery stall: reason" \
	"scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: timeout in discovery (gpu)]"
node_state IDLE
run "runtime error" 1 env PATH="$PATH_FAKE" FAKE_MSG="out of memory" \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$TMP/exit3-commdiag"
update_is "runtime error reason" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: runtime error]"
node_state IDLE
prolog 1 "commdiag usage error fails closed" "$DOCS/h100-faulty.json" -- --no-such-option
update_is "usage error reason" "scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: usage error]"
file_has "usage error logged" "$TMP/state/last.log" "no-such-option"

# scontrol missing: a PATH of the tools the script needs, without scontrol
mkdir -p "$TMP/minbin"
for t in sh awk sed grep cp mv rm mkdir mktemp date hostname timeout cat dirname head sleep env sort tr; do
	ln -s "$(command -v "$t")" "$TMP/minbin/$t"
done
run "scontrol missing" 2 "$TMP/minbin/env" PATH="$TMP/minbin" "$SLURM" --node n1 --state-dir "$TMP/state" \
	--commdiag "$BIN" -- --from "$DOCS/h100-faulty.json"
err_has "scontrol missing message" "scontrol not found on PATH ($TMP/minbin)"

# usage errors of the script itself
run "bad budget" 2 "$SLURM" --budget ten --no-drain --commdiag "$BIN"
err_has "bad budget message" "budget 'ten' (--budget or COMMDIAG_BUDGET): expected seconds > 0"
run "zero budget" 2 "$SLURM" --budget 0 --no-drain --commdiag "$BIN"
run "bad mode" 2 "$SLURM" --mode sometimes --no-drain --commdiag "$BIN"
err_has "bad mode message" "option '--mode': 'sometimes': expected prolog, epilog or health"
run "bad fail-on" 2 env COMMDIAG_FAIL_ON=error "$SLURM" --no-drain --commdiag "$BIN"
err_has "bad fail-on message" "fail-on 'error' (--fail-on or COMMDIAG_FAIL_ON): expected info, warn or fail"
run "unknown option" 2 "$SLURM" --quick
err_has "unknown option message" "unknown option '--quick' (commdiag's own options go after '--'"
run "missing value" 2 "$SLURM" --state-dir
err_has "missing value message" "option '--state-dir' needs a value"
run "commdiag not executable" 2 "$SLURM" --no-drain --commdiag "$TMP/nowhere/commdiag"
err_has "commdiag not executable message" "commdiag '$TMP/nowhere/commdiag' is not an executable file"
touch "$TMP/not-a-dir"
run "state dir not creatable" 2 "$SLURM" --no-drain --commdiag "$BIN" --state-dir "$TMP/not-a-dir/state"
err_has "state dir message" "cannot create the state directory '$TMP/not-a-dir/state'"
run "help" 0 "$SLURM" --help
out_has "help" "Usage: slurm-prolog.sh"
out_has "help lists the variables" "COMMDIAG_NO_DRAIN"
out_has "help says what --require auto does" "default \"auto\": gpu when the PCI bus shows NVIDIA GPUs"

# --require auto: a fake sysfs whose bus has an NVIDIA 3D controller and an HCA. The
# document is this host's own (no GPU, no RDMA): its gpu and ib rules were not evaluated,
# which on such a node is a fail, not a pass.
mkdir -p "$TMP/sysfs/bus/pci/devices/0000:18:00.0" "$TMP/sysfs/bus/pci/devices/0000:00:1f.0" \
	"$TMP/sysfs/class/infiniband/mlx5_0" "$TMP/sysfs-none/bus/pci/devices"
echo 0x10de >"$TMP/sysfs/bus/pci/devices/0000:18:00.0/vendor"
echo 0x030200 >"$TMP/sysfs/bus/pci/devices/0000:18:00.0/class"
echo 0x8086 >"$TMP/sysfs/bus/pci/devices/0000:00:1f.0/vendor"
echo 0x060100 >"$TMP/sysfs/bus/pci/devices/0000:00:1f.0/class"
"$BIN" check --quick --json --profile none -o "$TMP/this-host.json" 2>/dev/null
node_state IDLE
run "prolog --require auto on a GPU node without GPU facts" 1 env PATH="$PATH_FAKE" COMMDIAG_SYSFS="$TMP/sysfs" \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" -- --from "$TMP/this-host.json"
update_is "drained for the unevaluated groups" \
	"scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: REQ001]"
json_true "required groups recorded" "$TMP/state/last.json" "d['rules']['required'] == ['gpu', 'ib']"
node_state DRAIN "commdiag: REQ001"
run "prolog COMMDIAG_REQUIRE=none" 0 env PATH="$PATH_FAKE" COMMDIAG_SYSFS="$TMP/sysfs" COMMDIAG_REQUIRE=none \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" -- --from "$TMP/this-host.json"
update_is "resumed" "scontrol [update] [NodeName=n1] [State=RESUME]"
node_state IDLE
run "prolog --require auto on a node without GPUs or HCAs" 0 env PATH="$PATH_FAKE" COMMDIAG_SYSFS="$TMP/sysfs-none" \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" -- --from "$TMP/this-host.json"
json_true "nothing required" "$TMP/state/last.json" "d['rules']['required'] == []"
node_state IDLE
run "prolog --require names the groups" 1 env PATH="$PATH_FAKE" COMMDIAG_SYSFS="$TMP/sysfs-none" \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" --require nccl -- --from "$TMP/this-host.json"
json_true "nccl required" "$TMP/state/last.json" "d['rules']['required'] == ['nccl']"
node_state IDLE
run "prolog --require with a wrong group" 1 env PATH="$PATH_FAKE" COMMDIAG_SYSFS="$TMP/sysfs-none" \
	"$SLURM" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" --require gpus -- --from "$TMP/this-host.json"
file_has "usage error is logged" "$TMP/state/last.log" "option '--require': 'gpus' is not a rule group"

# ---------------------------------------------------------------- CI preflight
run "preflight fails on a faulty document" 1 "$CI" --commdiag "$BIN" --json "$TMP/ci.json" -- \
	--from "$DOCS/h100-faulty.json"
out_has "human report on stdout" "FAIL  PCIE002"
out_has "human report has the score" "# score 57/100"
file_has "artifact is the JSON document" "$TMP/ci.json" '"schema":'
err_has "artifact named" "document written to $TMP/ci.json"
run "preflight passes a clean document" 0 "$CI" --commdiag "$BIN" --json "$TMP/ci.json" -- \
	--from "$DOCS/h100-clean.json"
file_lacks "artifact replaced" "$TMP/ci.json" '"PCIE002"'
run "preflight --fail-on warn" 1 "$CI" --commdiag "$BIN" --json "$TMP/ci.json" --fail-on warn -- \
	--from "$DOCS/container-small-shm.json"
run "preflight --fail-on fail passes a warning" 0 "$CI" --commdiag "$BIN" --json "$TMP/ci.json" -- \
	--from "$DOCS/container-small-shm.json"
: >"$TMP/summary.md"
run "preflight GitHub step summary" 1 env GITHUB_STEP_SUMMARY="$TMP/summary.md" "$CI" --commdiag "$BIN" \
	--json "$TMP/ci.json" -- --from "$DOCS/h100-faulty.json"
file_has "summary has findings" "$TMP/summary.md" "FAIL  IB001"
file_has "summary has the score" "$TMP/summary.md" "# score 57/100"
cp "$TMP/ci.json" "$TMP/ci-before.json"
run "preflight input error" 2 "$CI" --commdiag "$BIN" --json "$TMP/ci.json" -- --from "$TMP/missing.json"
err_has "no document message" "commdiag check exited 2 and wrote no document ('$TMP/ci.json' not written)"
if cmp -s "$TMP/ci.json" "$TMP/ci-before.json"; then ok; else bad "a failed preflight changed the old artifact"; fi
if [ -z "$(find "$TMP" -maxdepth 1 -name 'ci.json.tmp.*')" ]; then ok; else bad "preflight left a temporary file"; fi
run "preflight on PATH, live check" 0 env PATH="$(dirname "$BIN"):$PATH" "$CI" --json "$TMP/live.json" --budget 60 \
	--fail-on fail -- --quick --profile cpu-only
file_has "live artifact" "$TMP/live.json" '"mode":'
run "preflight --require auto on a GPU runner" 1 env PATH="$(dirname "$BIN"):$PATH" COMMDIAG_SYSFS="$TMP/sysfs" "$CI" \
	--json "$TMP/live.json" --budget 60 -- --quick --profile cpu-only
out_has "gpu not evaluated fails" "REQ001  n/a gpu"
out_has "nccl not evaluated fails" "REQ001  n/a nccl"
json_true "required by auto" "$TMP/live.json" "d['rules']['required'] == ['gpu', 'nccl', 'ib']"
run "preflight --require auto ignores the runner for --from" 0 env COMMDIAG_SYSFS="$TMP/sysfs" "$CI" \
	--commdiag "$BIN" --json "$TMP/ci.json" -- --from "$DOCS/h100-clean.json"
json_true "only the profile's groups for a saved document" "$TMP/ci.json" "d['rules']['required'] == ['gpu', 'nvlink']"
run "preflight unknown option" 2 "$CI" --full
err_has "preflight unknown option message" "unknown option '--full' (commdiag's own options go after '--'"

# ---------------------------------------------------------------- bash completion
# complete WORDS...: COMPREPLY of _commdiag for the command line WORDS (the last is the
# word under the cursor), one per line in $TMP/comp
BASH_BIN=$(command -v bash)
complete_line() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	"$BASH_BIN" -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_commdiag commdiag "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		[ ${#COMPREPLY[@]} = 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$ROOT/scripts/commdiag.bash-completion" "$@" >"$TMP/comp" 2>"$TMP/err"
}
comp_has() {
	if grep -qxF -- "$2" "$TMP/comp"; then ok; else bad "completion $1: lacks '$2' in: $(tr '\n' ' ' <"$TMP/comp")"; fi
}
comp_is() {
	local got
	got=$(sort "$TMP/comp" | tr '\n' ' ')
	if [ "$got" = "$2" ]; then ok; else bad "completion $1: '$got', expected '$2'"; fi
}
PATH_COMP=$(dirname "$BIN"):$PATH
if ! bash -c '[ "${BASH_VERSINFO[0]}" -ge 4 ]'; then
	skip "bash older than 4: completion not tested"
else
	export PATH=$PATH_COMP
	# every command of `commdiag help`, and every option of each in `commdiag help CMD`
	cmds=$("$BIN" help | awk '/^commands:/ { c = 1; next } /^$/ { c = 0 } c { print $1 }')
	if [ "$(echo "$cmds" | wc -w)" -ge 8 ]; then ok; else bad "too few commands parsed from commdiag help: $cmds"; fi
	complete_line commdiag ""
	for c in $cmds; do comp_has "commands" "$c"; done
	complete_line commdiag ch
	comp_is "prefix" "check "
	for c in $cmds; do
		opts=$("$BIN" help "$c" | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+')
		[ -n "$opts" ] || { bad "no options parsed from commdiag help $c"; continue; }
		complete_line commdiag "$c" --
		for o in $opts; do comp_has "options of $c" "$o"; done
	done
	complete_line commdiag rules --
	if grep -qxF -- "--quick" "$TMP/comp"; then bad "rules offers check's --quick"; else ok; fi
	complete_line commdiag --
	comp_has "options without a command are check's" "--quick"
	complete_line commdiag check -
	comp_has "short options" "-j"
	# option values
	complete_line commdiag check --format ""
	for f in $("$BIN" help check | sed -n 's/^ *--format \([a-z|]*\).*/\1/p' | tr '|' ' '); do
		comp_has "--format" "$f"
	done
	comp_has "--format text" text
	comp_has "--format json" json
	complete_line commdiag check --fail-on w
	comp_is "--fail-on" "warn "
	complete_line commdiag check --profile ""
	for p in a100-sxm cpu-only generic-pcie h100-sxm h200-sxm l40s-pcie none; do comp_has "--profile" "$p"; done
	complete_line commdiag probe ""
	for p in $("$BIN" probe | awk 'NR > 1 { print $1 }'); do comp_has "probe names" "$p"; done
	for p in copy p2p nccl all; do comp_has "probe families" "$p"; done
	complete_line commdiag probe nccl.all_r
	comp_is "probe prefix" "nccl.all_reduce "
	complete_line commdiag help ""
	for c in $cmds; do comp_has "help COMMAND" "$c"; done
	# files
	mkdir -p "$TMP/files/sub"
	touch "$TMP/files/doc.json" "$TMP/files/topo.xml"
	complete_line commdiag report --from "$TMP/files/d"
	comp_has "--from file" "$TMP/files/doc.json"
	complete_line commdiag check --topology "$TMP/files/"
	comp_has "--topology file" "$TMP/files/topo.xml"
	comp_has "--topology directory" "$TMP/files/sub"
	complete_line commdiag check -o "$TMP/files/t"
	comp_has "-o file" "$TMP/files/topo.xml"
	complete_line commdiag rules --rules "$TMP/files/d"
	comp_has "--rules file" "$TMP/files/doc.json"
	complete_line commdiag rules check "$TMP/files/d"
	comp_has "rules check FILE" "$TMP/files/doc.json"
	complete_line commdiag hang --nodes "$TMP/files/d"
	comp_is "--nodes FILE|DIR (a path, not the words)" "$TMP/files/doc.json "
	complete_line commdiag hang --fr "$TMP/files/s"
	comp_is "--fr DIR|FILE (a path, not the words)" "$TMP/files/sub "
	complete_line commdiag hang "$TMP/files/d"
	comp_has "hang LOGFILE" "$TMP/files/doc.json"
	complete_line commdiag check --timeout ""
	comp_is "a number is not completed" ""
	# the binary missing: nothing offered, nothing printed
	PATH=/nonexistent complete_line commdiag ""
	if [ ! -s "$TMP/err" ]; then ok; else bad "completion without commdiag printed: $(cat "$TMP/err")"; fi
fi

# ---------------------------------------------------------------- fleet collector
# Each node's last.json (as slurm-prolog.sh keeps it) into a shared directory under the
# scheduler's node name, then one merge: the fleet fixtures, node03 claiming node01's
# identity, give HOST001 and exit 1, with a verdict per host in fleet.txt.
COLLECT=$ROOT/scripts/slurm-epilog-collect.sh
for i in 1 2 3; do
	mkdir -p "$TMP/collect/state$i"
	cp "$DOCS/fleet/nodes/node0$i.json" "$TMP/collect/state$i/last.json"
	run "collect n$i" 0 "$COLLECT" --shared "$TMP/collect/shared" --state-dir "$TMP/collect/state$i" --node "n$i"
done
is_file "collect n2" "$TMP/collect/shared/nodes/n2.json"
if cmp -s "$DOCS/fleet/nodes/node02.json" "$TMP/collect/shared/nodes/n2.json"; then ok; else bad "collect: n2.json is not node02's document"; fi
left=$(find "$TMP/collect/shared/nodes" -name '.*')
if [ -z "$left" ]; then ok; else bad "collect left temporary files: $left"; fi
run "collect, nothing there" 1 "$COLLECT" --shared "$TMP/collect/shared" --state-dir "$TMP/collect/none" --node n9
err_has "collect, nothing there" "no document to collect: $TMP/collect/none/last.json is missing or empty"
no_file "collect, nothing there" "$TMP/collect/shared/nodes/n9.json"
run "collect, bad node name" 2 "$COLLECT" --shared "$TMP/collect/shared" --state-dir "$TMP/collect/state1" --node ../x
err_has "collect, bad node name" "node name '../x': expected a host name"
run "collect merge" 1 "$COLLECT" --merge --shared "$TMP/collect/shared" --commdiag "$BIN"
json_true "collect merge" "$TMP/collect/shared/fleet.json" \
	"d['run']['mode'] == 'merge' and len(d['hosts']) == 3 and [h['verdict'] for h in d['verdicts']['hosts']] == ['fail', 'pass', 'fail'] and d['run']['merged'][2]['file'].endswith('/nodes/n3.json')"
file_has "collect merge text" "$TMP/collect/shared/fleet.txt" "# verdicts (3 hosts of 3 merged documents: 1 pass, 0 warn, 2 fail)"
run "collect merge --fail-on" 1 "$COLLECT" --merge --shared "$TMP/collect/shared" --commdiag "$BIN" --max-age 30 -- --fail-on warn
touch -d '3 days ago' "$TMP/collect/shared/nodes/"*.json
run "collect merge, old documents" 2 "$COLLECT" --merge --shared "$TMP/collect/shared" --commdiag "$BIN" --max-age 1
err_has "collect merge, old documents" "no document in $TMP/collect/shared/nodes younger than 1 days"
touch "$TMP/collect/shared/nodes/"*.json
run "collect merge, --max-age 0" 2 "$COLLECT" --merge --shared "$TMP/collect/shared" --commdiag "$BIN" --max-age 0
err_has "collect merge, --max-age 0" "option '--max-age': '0': expected at least 1 day"
echo 'not a document' >"$TMP/collect/shared/nodes/n4.json"
cp "$TMP/collect/shared/fleet.json" "$TMP/collect/fleet-before.json"
run "collect merge, a bad document" 2 "$COLLECT" --merge --shared "$TMP/collect/shared" --commdiag "$BIN"
err_has "collect merge, a bad document" "'$TMP/collect/shared/nodes/n4.json': line 1: not valid JSON"
if cmp -s "$TMP/collect/fleet-before.json" "$TMP/collect/shared/fleet.json"; then ok; else bad "collect: a failed merge replaced fleet.json"; fi
run "collect, options for merge only" 2 "$COLLECT" --shared "$TMP/collect/shared" --state-dir "$TMP/collect/state1" -- --json
run "collect help" 0 "$COLLECT" --help
out_has "collect help" "Usage: slurm-epilog-collect.sh"

# ---------------------------------------------------------------- make install / uninstall
DEST=$TMP/dest
if make -s install DESTDIR="$DEST" PREFIX=/usr >"$TMP/out" 2>"$TMP/err"; then ok; else bad "make install: $(tail -5 "$TMP/err")"; fi
(cd "$DEST" && find . \( -type f -o -type l \) | sort) >"$TMP/installed"
for f in ./usr/bin/commdiag ./usr/share/man/man1/commdiag.1 ./usr/share/commdiag/rules/default.conf \
	./usr/share/bash-completion/completions/commdiag \
	./usr/libexec/commdiag/slurm-prolog ./usr/libexec/commdiag/slurm-epilog ./usr/libexec/commdiag/slurm-healthcheck \
	./usr/libexec/commdiag/ci-preflight ./usr/share/commdiag/schema/commdiag-results-1.schema.json \
	./usr/libexec/commdiag/slurm-epilog-collect ./usr/libexec/commdiag/commdiag-expect.sh; do
	if grep -qxF "$f" "$TMP/installed"; then ok; else bad "make install: $f missing from: $(tr '\n' ' ' <"$TMP/installed")"; fi
done
if [ -x "$DEST/usr/libexec/commdiag/slurm-prolog" ]; then ok; else bad "slurm-prolog not executable"; fi
if [ "$(readlink "$DEST/usr/libexec/commdiag/slurm-epilog")" = slurm-prolog ]; then ok; else
	bad "slurm-epilog is not a relative link to slurm-prolog"; fi
# the installed prolog finds the installed commdiag ($(PREFIX)/bin beside libexec)
node_state IDLE
run "installed prolog" 0 env PATH="$TMP/bin:/usr/bin:/bin" "$DEST/usr/libexec/commdiag/slurm-healthcheck" --node n1 \
	--state-dir "$TMP/state" -- --from "$DOCS/h100-faulty.json"
update_is "installed health check drains" \
	"scontrol [update] [NodeName=n1] [State=DRAIN] [Reason=commdiag: PCIE002 IB001 COPY001]"
# --require auto reads the hardware through commdiag-expect.sh, installed beside the scripts
# and found there, through the epilog's link, and through a link from another directory
node_state IDLE
run "installed epilog, --require auto" 0 env PATH="$PATH_FAKE" COMMDIAG_SYSFS="$TMP/sysfs" \
	"$DEST/usr/libexec/commdiag/slurm-epilog" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" \
	-- --from "$TMP/this-host.json"
json_true "installed epilog: the groups of the fake bus" "$TMP/state/last.json" "d['rules']['required'] == ['gpu', 'ib']"
mkdir -p "$TMP/etc-slurm" "$TMP/lone"
ln -s "$DEST/usr/libexec/commdiag/slurm-prolog" "$TMP/etc-slurm/prolog.sh"
run "a link to the installed prolog, --require auto" 1 env PATH="$PATH_FAKE" COMMDIAG_SYSFS="$TMP/sysfs" \
	"$TMP/etc-slurm/prolog.sh" --node n1 --state-dir "$TMP/state" --commdiag "$BIN" --no-drain \
	-- --from "$TMP/this-host.json"
json_true "linked prolog: the groups of the fake bus" "$TMP/state/last.json" "d['rules']['required'] == ['gpu', 'ib']"
run "installed preflight, --require auto" 1 env COMMDIAG_SYSFS="$TMP/sysfs" "$DEST/usr/libexec/commdiag/ci-preflight" \
	--commdiag "$BIN" --json "$TMP/live.json" --budget 60 -- --quick --profile cpu-only
json_true "installed preflight: the groups of the fake bus" "$TMP/live.json" "d['rules']['required'] == ['gpu', 'nccl', 'ib']"
# a prolog copied away from it: --require auto is refused (exit 2, nothing run), a named --require runs
cp "$SLURM" "$TMP/lone/prolog.sh"
run "a lone copy of the prolog, --require auto" 2 env PATH="$PATH_FAKE" "$TMP/lone/prolog.sh" --node n1 \
	--state-dir "$TMP/state" --commdiag "$BIN" --no-drain -- --from "$TMP/this-host.json"
err_has "a lone copy: what is missing" "--require auto needs commdiag-expect.sh beside this script"
run "a lone copy of the prolog, --require none" 0 env PATH="$PATH_FAKE" "$TMP/lone/prolog.sh" --node n1 \
	--state-dir "$TMP/state" --commdiag "$BIN" --no-drain --require none -- --from "$TMP/this-host.json"
if make -s uninstall DESTDIR="$DEST" PREFIX=/usr >"$TMP/out" 2>"$TMP/err"; then ok; else bad "make uninstall: $(tail -5 "$TMP/err")"; fi
left=$(cd "$DEST" && find . ! -type d | sort)
if [ -z "$left" ]; then ok; else bad "make uninstall left: $left"; fi
left=$(cd "$DEST" && find . -mindepth 1 -type d -empty -path '*commdiag*')
if [ -z "$left" ]; then ok; else bad "make uninstall left commdiag's directories: $left"; fi

# ---------------------------------------------------------------- bootstrap
# a bad argument is refused before anything is looked at or installed
run "bootstrap: an unknown argument" 2 sh scripts/bootstrap.sh --slurm
err_has "bootstrap: an unknown argument" "unknown argument '--slurm': expected --slurm-test or nothing"

# ---------------------------------------------------------------- shellcheck
if command -v shellcheck >/dev/null 2>&1; then
	for f in scripts/*.sh scripts/commdiag.bash-completion tests/run_scripts.sh tests/slurm/run.sh bench/gpu_compare.sh tests/run_gpu_compare.sh; do
		if out=$(shellcheck -x "$f" 2>&1); then ok; else bad "shellcheck $f: $out"; fi
	done
else
	skip "shellcheck not installed (scripts/bootstrap.sh installs it)"
fi
schema_check

echo "scripts: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
