#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain must give the same verdict on a log however a launcher, a logger or a terminal decorated
# its lines (issue 17, "log formats"). A metamorphic test over the real corpus: for every tune log
# of tests/data/logs/INDEX (not in HOLDOUT nor tune-open.tsv) whose expected string is not "-", decorated copies are
# written to a temporary directory, and each must still print the expected string in
# `explain --shell`, have the same first finding id as the log itself and count the same hosts.
# Every decoration of every log (FORMATS_PER_LOG=all) is two explain runs per copy, about 3000
# copies: over ten minutes on a loaded 2-core machine. By default each log gets 2 decorations,
# picked by a fixed rotation (log i: decorations 7i and 7i+1 modulo their count; 7 is prime to
# it), so each decoration meets some 10 logs of every cause in turn and the run stays near a
# minute. FORMATS_ONLY=NAME[,NAME] runs the decorations named on every log. No timing is asserted.
# The formats read from their tools' sources: Open MPI 4.1's orte iof_base_output.c (the tag and
# the timestamp), Slurm's _build_label; the others follow the tools' documentation as cited.
# Usage: tests/run_explain_formats.sh ./commdiag
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-formats.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR=1 COMMDIAG_DETERMINISTIC=1
unset COMMDIAG_VERSIONS COMMDIAG_CAUSES
# shellcheck disable=SC2034 # read by tests/lib.sh
FAIL_PREFIX="explain formats: "
# shellcheck source=tests/lib.sh
. tests/lib.sh
LOGS=tests/data/logs
PER=${FORMATS_PER_LOG:-2}

# the holdout is never run here, nor the tune rows explain does not get yet (logs/tune-open.tsv)
{ grep -v '^#' "$LOGS/HOLDOUT"; grep -v '^#' "$LOGS/tune-open.tsv" | cut -f1; } | sed '/^$/d' >"$TMP/holdout"
# the tune rows with an expected string: file TAB expected
awk -F'\t' '!/^#/ && NF >= 5 && $5 != "-" { print $1 "\t" $5 }' "$LOGS/INDEX" |
	while IFS=$'\t' read -r f e; do grep -qxF -- "$f" "$TMP/holdout" || printf '%s\t%s\n' "$f" "$e"; done >"$TMP/rows"
# the logs a page folded before anyone copied them (logs/folded-at-source.tsv): a launcher or a
# logger decorates the lines a program wrote, before any terminal or page folds them, so a prefix
# on each of their folded pieces is no log anyone gets; they get only the folded copies below
grep -v '^#' "$LOGS/folded-at-source.tsv" | cut -f1 | sed '/^$/d' >"$TMP/atsource"
while read -r f; do
	grep -q "^$f	" "$TMP/rows" || bad "logs/folded-at-source.tsv: $f is no tune row with an expected string"
done <"$TMP/atsource"

# The decorations, each as the tool named prints a line (the source and version followed in the
# comment). decorate.py writes DIR/DECORATION/FILE for the decorations rotation picks, and lists
# "FILE TAB DECORATION" in DIR/plan.
cat >"$TMP/decorate.py" <<'PY'
import os, re, sys

LOGS, ROWS, OUT, PER, ONLY = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]

def prefix(p):
    return lambda lines: [p + l for l in lines]

def interleave(p0, p1):
    # two ranks printing the same failure: their lines alternate as the launcher forwards them
    def f(lines):
        out = []
        for l in lines:
            out += [p0 + l, p1 + l]
        return out
    return f

NCCL_HOST = re.compile(r'(?<![\w.-])([A-Za-z][\w-]*)((?:\.[\w-]+)*:\d+:\d+ \[\d)')
def interleave_hosts(p0, p1):
    def f(lines):
        out = []
        for l in lines:
            out += [p0 + l, p1 + NCCL_HOST.sub(lambda m: m.group(1) + 'x' + m.group(2), l)]
        return out
    return f

# rich's ReprHighlighter styles numbers "bold cyan" (SGR 1;36); loguru's default format colours
# the level and the message of an ERROR line red and bold (<red><bold>: "\x1b[31m\x1b[1m")
NUM = re.compile(r'(?<![\w.])(\d+)(?![\w.])')
def ansi_words(lines):
    return [NUM.sub('\x1b[1;36m\\1\x1b[0m', l) for l in lines]

def ansi_line(lines):
    return ['\x1b[31m\x1b[1m' + l + '\x1b[0m' for l in lines]

# tqdm 4.66 std.py: the bar is redrawn after "\r" ("{l_bar}{bar}| {n_fmt}/{total_fmt}
# [{elapsed}<{remaining}, {rate_fmt}]"); a line printed to the same terminal without tqdm.write
# lands after the bar's "\r" in the same physical line
TQDM = ' 45%|\u2588\u2588\u2588\u2588\u258c     | 45/100 [00:01<00:01, 44.85it/s]\r'
def tqdm_cr(lines):
    return [TQDM + l for l in lines]

# A terminal's copy of a line longer than its width: cut at the width, nothing dropped (xterm and
# tmux copy what the screen shows when the line was not marked as wrapped; `fold -w`).
def fold_term(width):
    def f(lines):
        out = []
        for l in lines:
            while len(l) > width:
                out.append(l[:width])
                l = l[width:]
            out.append(l)
        return out
    return f

# A mail reader's plain-text wrap (RFC 3676 without format=flowed, as mailing-list archives show
# posts): break at the last space within the width, the space dropped; a word longer than the
# width stays whole.
def fold_mail(width):
    def f(lines):
        out = []
        for l in lines:
            while len(l) > width and ' ' in l[1:width + 1]:
                cut = l.rindex(' ', 1, width + 1)
                out.append(l[:cut])
                l = l[cut + 1:]
            out.append(l)
        return out
    return f

DECORATIONS = [
    # Slurm srun --label: _build_label's "%*d: ", the task id padded to the widest one's width
    ('srun-label', prefix('0: ')),
    ('srun-label12', prefix('12: ')),
    ('srun-label-padded', prefix(' 3: ')),
    # Open MPI 4.1 --tag-output (orte/mca/iof/base/iof_base_output.c: "[%s,%s]<%s>:", no space)
    ('mpirun-tag4', prefix('[1,0]<stderr>:')),
    # Open MPI 5.0 --tag-output: "[1,0]<stdout>: ", a space after the tag (the form issue 17
    # quotes; PRRTE's source was not read for it)
    ('mpirun-tag5', prefix('[1,0]<stdout>: ')),
    # Open MPI 4.1 --timestamp-output: ctime() without its newline, then "<%s>:"
    ('mpirun-timestamp', prefix('Thu Nov 26 10:00:01 2026<stdout>:')),
    # torchrun --tee 3: torch.distributed.elastic's default prefix "[${role_name}${local_rank}]:"
    # (torch's docs of start_processes)
    ('torchrun-tee', prefix('[default0]:')),
    # torchrun --log-line-prefix-template "[${rank}]:", the global-rank template torch's docs give
    ('torchrun-template', prefix('[3]:')),
    # pdsh's "host: " before each line, as DeepSpeed's pdsh runner shows a worker's output
    ('pdsh', prefix('worker-1: ')),
    # Ray's forwarded worker output: "(ActorName pid=PID, ip=IP) " (as Ray's docs show it)
    ('ray', prefix('(RayTrainWorker pid=123, ip=10.0.0.1) ')),
    # kubectl logs --prefix: "[pod/NAME/CONTAINER] " (kubectl's help of --prefix)
    ('kubectl-prefix', prefix('[pod/trainer-worker-0/pytorch] ')),
    # docker compose v2 logs: the service name padded to the widest one, then " | "
    ('compose', prefix('trainer-1  | ')),
    # Python logging "%(asctime)s - %(levelname)s - %(message)s" (asctime "%Y-%m-%d %H:%M:%S,mmm")
    ('pylogging', prefix('2024-05-01 12:00:00,123 - INFO - ')),
    # ISO-8601 with T and Z: kubectl logs --timestamps and docker logs -t (RFC 3339, nanoseconds)
    ('iso8601', prefix('2024-05-01T12:00:00.123456789Z ')),
    # syslog (RFC 3164, rsyslog's RSYSLOG_TraditionalFileFormat): "Mmm dd hh:mm:ss host tag[pid]: "
    ('syslog', prefix('Nov 26 10:00:01 gpu-node7 python[123]: ')),
    # journalctl -o short-iso (systemd 252, Debian 12: strftime "%Y-%m-%dT%H:%M:%S%z")
    ('journald', prefix('2026-11-26T10:00:01+0000 gpu-node7 python[123]: ')),
    ('crlf', lambda lines: [l + '\r' for l in lines]),
    ('ansi-words', ansi_words),
    ('ansi-line', ansi_line),
    ('tqdm-cr', tqdm_cr),
    ('trailing-space', lambda lines: [l + '   ' for l in lines]),
    # a tab before and after the line, as a collector that indents continued lines writes it (no
    # one tool's form: it guards the readers that skip blanks at the start)
    ('tabs', lambda lines: ['\t' + l + '\t' for l in lines]),
    # layers stacked as they come: srun --label over a Python logger that colours its lines,
    # written through a Windows-side terminal capture (CRLF)
    ('stacked', lambda lines: ['3: 2024-05-01 12:00:00,123 - ERROR - \x1b[31m' + l + '\x1b[0m\r' for l in lines]),
    # two ranks printing the same failure, each under its launcher's rank prefix
    ('interleave-srun', interleave('0: ', '1: ')),
    ('interleave-mpirun', interleave('[1,0]<stderr>:', '[1,1]<stderr>:')),
    ('interleave-torchrun', interleave('[default0]:', '[default1]:')),
    # the second rank on another node: NCCL's "host:pid:tid [dev]" names its own host there
    ('interleave-hosts', interleave_hosts('0: ', '1: ')),
]
# Folded lines (every log gets both; logs/fold-open.tsv lists the copies explain reads otherwise):
# by a terminal 100 columns wide, by a mail reader at 72
FOLDS = [
    ('fold-term100', fold_term(100)),
    ('fold-mail72', fold_mail(72)),
]

rows = [l.rstrip('\n').split('\t')[0] for l in open(ROWS)]
if ONLY:
    DECORATIONS = [d for d in DECORATIONS + FOLDS if d[0] in ONLY.split(',')]
    if not DECORATIONS:
        sys.exit('no decoration named ' + ONLY)
    PER = 'all'
n = len(DECORATIONS)
per = n if PER == 'all' else min(int(PER), n)
with open(os.path.join(OUT, 'plan'), 'w') as plan:
    for i, f in enumerate(rows):
        text = open(os.path.join(LOGS, f), encoding='utf-8', errors='surrogateescape').read()
        lines = text.split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        for j in range(per):
            name, fn = DECORATIONS[(i * 7 + j) % n] if per < n else DECORATIONS[j]
            os.makedirs(os.path.join(OUT, name), exist_ok=True)
            with open(os.path.join(OUT, name, f), 'w', encoding='utf-8', errors='surrogateescape', newline='') as o:
                o.write(''.join(l + '\n' for l in fn(lines)))
            plan.write(f + '\t' + name + '\n')
PY
mkdir -p "$TMP/copies"
if python3 "$TMP/decorate.py" "$LOGS" "$TMP/rows" "$TMP/copies" "$PER" "${FORMATS_ONLY:-}"; then ok; else
	bad "could not write the decorated copies"
	echo "explain formats: $pass passed, $fail failed, $skip skipped"
	exit 1
fi

# verdict FILE: the id of the first finding explain's text report lists, and how many hosts its
# header counts (a decoration must neither merge the log's hosts nor make new ones)
verdict() {
	"$BIN" explain "$1" 2>/dev/null | awk 'NR == 1 { n = $NF == "host" || $NF == "hosts" ? $(NF - 1) : "?" }
		/^# findings/ { getline; print $2 " on " n " host(s)"; exit }'
}

: >"$TMP/failures"
# check_copies DIR [LIST]: every copy DIR/plan names keeps its log's verdict. With LIST (file TAB
# decoration TAB why: the copies explain is known to read otherwise), a listed copy that fails
# is reported (SKIP), a listed copy that holds fails (the list must say what is true), and so
# does a listed copy that DIR/plan does not hold.
check_copies() {
	local dir=$1 list=${2:-} f expect want d c why got want_here= listed
	while IFS=$'\t' read -r f expect; do
		want=$(verdict "$LOGS/$f")
		if [ -z "$list" ]; then
			if "$BIN" explain "$LOGS/$f" --shell 2>/dev/null | grep -qF -- "$expect"; then ok; else
				bad "$f: the log itself lacks '$expect' (INDEX out of date?)"
				continue
			fi
		fi
		grep "^$f	" "$dir/plan" | cut -f2 >"$TMP/decos"
		if [ -z "$list" ] && grep -qxF -- "$f" "$TMP/atsource"; then
			while read -r d; do skip "$d: $f (folded at its source: logs/folded-at-source.tsv)"; done <"$TMP/decos"
			continue
		fi
		while read -r d; do
			c=$dir/$d/$f
			why=
			"$BIN" explain "$c" --shell 2>/dev/null | grep -qF -- "$expect" || why="lacks '$expect'"
			got=$(verdict "$c")
			# a second rank on another node adds its hosts: there only the first finding must hold
			[ "$d" != interleave-hosts ] || { got=${got%% on *} && want_here=${want%% on *}; }
			[ "$got" = "${want_here:-$want}" ] || why="${why:+$why, }first finding $got, not ${want_here:-$want}"
			want_here=
			listed=0
			[ -n "$list" ] && grep -q "^$f	$d	" "$list" && listed=1
			case ${why:+bad}/$listed in
			/0) ok ;;
			/1) bad "$d: $f is listed in $list but now keeps its verdict: remove it" ;;
			bad/1) skip "$d: $f (listed in $list): $why" ;;
			bad/0)
				bad "$d: $f: $why"
				printf '%s\n' "$d" >>"$TMP/failures"
				;;
			esac
		done <"$TMP/decos"
	done <"$TMP/rows"
	[ -z "$list" ] && return 0
	while IFS=$'\t' read -r f d _; do
		case "$f" in '#'* | '') continue ;; esac
		grep -q "^$f	$d$" "$dir/plan" || bad "$list: $f $d is no copy this test makes (a holdout, open or '-' row?)"
	done <"$list"
}
check_copies "$TMP/copies"
# every log folded both ways, against logs/fold-open.tsv (unless FORMATS_ONLY chose the decorations)
if [ -z "${FORMATS_ONLY:-}" ]; then
	mkdir -p "$TMP/folds"
	if python3 "$TMP/decorate.py" "$LOGS" "$TMP/rows" "$TMP/folds" all fold-term100,fold-mail72; then ok; else
		bad "could not write the folded copies"
	fi
	check_copies "$TMP/folds" "$LOGS/fold-open.tsv"
fi

logs=$(wc -l <"$TMP/rows")
copies=$(wc -l <"$TMP/copies/plan")
folded=$(cat "$TMP/folds/plan" 2>/dev/null | wc -l)
decos=$(cut -f2 "$TMP/copies/plan" | sort -u | wc -l)
how="$PER per log"
[ -z "${FORMATS_ONLY:-}" ] || how="every log"
echo "explain formats: $logs logs, $decos decorations, $copies decorated copies ($how), $folded folded copies"
if [ -s "$TMP/failures" ]; then
	echo "explain formats: failures by decoration:"
	sort "$TMP/failures" | uniq -c | sort -rn
fi
echo "explain formats: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
