#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain's accuracy on the real logs of tests/data/logs (issue 17): per cause (the file
# name's first word: shm, iface, gid, …) and per part, how many logs get the fix their
# thread confirmed somewhere in `explain --shell` (right) and as its first line (first),
# and how many say they cannot explain where INDEX expects that ("-"). The holdout part
# (tests/data/logs/HOLDOUT) was set aside before any tuning: read it as the estimate; the part
# "tainted" is the holdout rows a change was informed by (logs/holdout-tainted.tsv says how). Two
# lines count the logs given a network setting, and those of them that tests/data/logs/NETWORK
# labels not a network failure (issue 17: no network setting without a network error), and how
# many logs get as their first recommendation one for the kind of cause logs/KIND labels. One line
# counts the logs explain says it cannot explain, and those of them where a line of the log names a
# cause all the same (tests/data/logs/CAUSELINE, labelled by reading each log; issue 17: "cannot
# explain" only where no line names a cause), listing any such log not labelled yet; one the logs
# where explain only points at a line that states its cause in the system's words (LOG096), and
# those of them where the labels say no line names one. A log INDEX expects no fix for ("-") is
# right when explain claims none: it cannot explain the log, or it points at such a line. One line
# gives, from the same labels, how many logs with a fix have a line that names the confirmed
# cause, how often explain's first recommendation holds the fix in those, and what share of the
# part a reader of the log's lines alone could get right at most. The last two
# lines count the logs of tests/data/logs-healthy (jobs that worked) given advice or a failing finding.
# Usage: bench/explain_accuracy.sh [./commdiag]     (no hardware; a few seconds)
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
LOGS=tests/data/logs
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-acc.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

grep -v '^#' "$LOGS/HOLDOUT" | sed '/^$/d' >"$TMP/holdout"
# holdout rows a change was informed by (logs/holdout-tainted.tsv): counted apart as "tainted"
grep -v '^#' "$LOGS/holdout-tainted.tsv" | cut -f1 | sed '/^$/d' >"$TMP/tainted"
while read -r f; do
	grep -qxF -- "$f" "$TMP/holdout" || { echo "explain_accuracy: $LOGS/holdout-tainted.tsv: $f is not in HOLDOUT" >&2; exit 2; }
done <"$TMP/tainted"
# What a network setting is, and which logs are network failures (NETWORK, labelled by hand
# from INDEX's cause and fix): a network setting for a log labelled "no" is a false positive.
. tests/net_settings.sh
net_labels_check "$LOGS/INDEX" "$LOGS/NETWORK" || {
	echo "explain_accuracy: $LOGS/NETWORK must label every row of $LOGS/INDEX" >&2
	exit 2
}

: >"$TMP/rows"
while IFS=$'\t' read -r file _src _cause _fix expect; do
	case "$file" in '#'* | '') continue ;; esac
	part=tune
	grep -qxF -- "$file" "$TMP/holdout" && part=holdout
	grep -qxF -- "$file" "$TMP/tainted" && part=tainted
	cause=${file%%-*}
	right=0 first=0 net=0
	"$BIN" explain "$LOGS/$file" --shell >"$TMP/out" 2>/dev/null
	net_setting "$TMP/out" && net=1
	[ "$(net_label "$file" "$LOGS/NETWORK")" = yes ] && net=$((net * 2))
	# said it cannot explain the log, or only pointed at a line that states its cause in the
	# system's words (LOG096): does a line name a cause (logs/CAUSELINE)?
	cannot=0 stated=0 named=-
	"$BIN" explain "$LOGS/$file" >"$TMP/text" 2>/dev/null
	grep -qF -- "$CD_CANNOT_EXPLAIN" "$TMP/text" && cannot=1
	grep -qF -- "$CD_STATED_CAUSE" "$TMP/text" && stated=1
	# the row's label, read once: "yes+" (names the confirmed cause), "yes", "no"; empty: none
	label=$(awk -F'\t' -v f="$file" '$1 == f { print $2 ($3 == "yes" ? "+" : "") }' "$LOGS/CAUSELINE")
	[ $((cannot + stated)) -gt 0 ] && named=${label:-unlabelled}
	if [ "$expect" = "-" ]; then
		# no fix to find in the log: right when explain claims none (it cannot explain the log,
		# or points at the line that states a cause with the general check for it, no setting)
		right=$((cannot || stated)) first=$right
	else
		grep -qF -- "$expect" "$TMP/out" && right=1
		sed '/^$/d' "$TMP/out" | head -1 | grep -qF -- "$expect" && first=1
	fi
	# the kind of cause (tests/data/logs/KIND, labelled from INDEX's cause and fix alone): the
	# finding behind explain's first recommendation ("# LOGnnn:" at its end) is one of the row's ids
	kind=0 ids=$(awk -F'\t' -v f="$file" '$1 == f { print $2 }' "$LOGS/KIND")
	if [ "$ids" = "-" ]; then
		kind=$first
	else
		got=$(sed '/^$/d' "$TMP/out" | head -1 | grep -o '# LOG[0-9][0-9][0-9]:' | tail -1 | tr -d '#: ')
		[ -n "$got" ] && case ",$ids," in *",$got,"*) kind=1 ;; esac
	fi
	printf '%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%s\n' "$part" "$cause" "$file" "$right" "$first" "$net" "$kind" "$named" "$stated" "$([ "$expect" = "-" ] && echo 1 || echo 0)" \
		"$(case "$label" in '') ;; yes+) echo 1 ;; *) echo 0 ;; esac)" >>"$TMP/rows"
done <"$LOGS/INDEX"

awk -F'\t' '
	{ k = $1 "\t" $2; n[k]++; r[k] += $4; f[k] += $5; N[$1]++; R[$1] += $4; F[$1] += $5
	  if (!$4) miss[$1] = miss[$1] " " $3
	  if ($6) { adv[$1]++; if ($6 == 1) { fp[$1]++; fpf[$1] = fpf[$1] " " $3 } }
	  K[$1] += $7
	  if ($8 != "-" && !$9) { cn[$1]++; if ($8 ~ /^yes/) { cy[$1]++; cyl[$1] = cyl[$1] " " $3 } if ($8 == "yes+") cyc[$1]++ }
	  if ($8 != "-" && $9) { sn[$1]++; if ($8 ~ /^yes/) sy[$1]++; if ($8 == "yes+") syc[$1]++
				 if ($8 ~ /^no/) { sno[$1]++; snl[$1] = snl[$1] " " $3 }
				 if (!$10 && $5) { sf[$1]++; sfl[$1] = sfl[$1] " " $3 } }
	  if ($8 == "unlabelled" && !$9) { cu[$1]++; cul[$1] = cul[$1] " " $3 }
	  if ($10) dash[$1]++; else { fx[$1]++; if ($11 == "1") { fn[$1]++; fnf[$1] += $5 } }
	  if ($11 == "") { nl[$1]++; nll[$1] = nll[$1] " " $3 } }
	END {
		printf "%-8s %-10s %5s %6s %6s\n", "part", "cause", "logs", "right", "first"
		for (k in n) print k "\t" n[k] "\t" r[k] "\t" f[k] | "sort"
		close("sort")
		for (p in N) printf "%-8s %-10s %5d %6d %6d   right %.0f %%, first recommendation %.0f %%%s\n", p, "ALL", N[p], R[p], F[p],
			100 * R[p] / N[p], 100 * F[p] / N[p], miss[p] ? "; wrong:" miss[p] : ""
		for (p in N) printf "%-8s right kind of cause first (logs/KIND): %d of %d (%.0f %%)\n", p, K[p], N[p], 100 * K[p] / N[p]
		for (p in N) printf "%-8s network settings advised for %d logs, %d of them not a network failure%s\n", p, adv[p], fp[p],
			fp[p] ? ":" fpf[p] : ""
		for (p in N) printf "%-8s cannot explain %d logs; a line names a cause in %d of them (%d the confirmed one), " \
			"%d not labelled in logs/CAUSELINE%s%s\n", p, cn[p], cy[p], cyc[p], cu[p], cy[p] ? "; named:" cyl[p] : "",
			cu[p] ? "; not labelled:" cul[p] : ""
		for (p in N) printf "%-8s a line names the confirmed cause in %d of the %d logs with a fix: the fix first in %d of them " \
			"(%.0f %%); a reader of the lines gets at most %d of %d right (%.0f %%, with the %d logs of no fix)%s\n",
			p, fn[p], fx[p], fnf[p], fn[p] ? 100 * fnf[p] / fn[p] : 0, fn[p] + dash[p], N[p],
			100 * (fn[p] + dash[p]) / N[p], dash[p], nl[p] ? "; not labelled in logs/CAUSELINE:" nll[p] : ""
		for (p in N) printf "%-8s a line that states its cause pointed at (LOG096) for %d logs: a line names a cause " \
			"in %d of them (%d the confirmed one), in none in %d%s; its general check holds the confirmed fix " \
			"(counted first above) in %d%s\n", p, sn[p], sy[p], syc[p], sno[p], sno[p] ? ":" snl[p] : "",
			sf[p], sf[p] ? ":" sfl[p] : ""
	}' "$TMP/rows" | awk -F'\t' 'NF == 5 { printf "%-8s %-10s %5d %6d %6d\n", $1, $2, $3, $4, $5; next } { print }'

# Logs of jobs that worked (tests/data/logs-healthy): how many get advice, or a failing finding,
# from explain (false positives: a healthy log gets neither); its HOLDOUT rows apart (never tuned on).
for part in tune holdout; do
	hn=0 hadv=0 hfail=0 hlist=
	while IFS=$'\t' read -r file _src _why; do
		case "$file" in '#'* | '') continue ;; esac
		inho=tune
		grep -qxF -- "$file" tests/data/logs-healthy/HOLDOUT && inho=holdout
		[ "$inho" = "$part" ] || continue
		hn=$((hn + 1))
		"$BIN" explain "tests/data/logs-healthy/$file" --shell >"$TMP/out" 2>/dev/null
		"$BIN" explain "tests/data/logs-healthy/$file" 2>/dev/null | grep -q '^  FAIL ' && { hfail=$((hfail + 1)); hlist="$hlist $file(fail)"; }
		[ -s "$TMP/out" ] && { hadv=$((hadv + 1)); hlist="$hlist $file(advice)"; }
	done <tests/data/logs-healthy/INDEX
	printf 'healthy  %-7s %d logs of jobs that worked: %d given advice, %d a failing finding%s\n' "$part" "$hn" "$hadv" "$hfail" "${hlist:+:$hlist}"
done
