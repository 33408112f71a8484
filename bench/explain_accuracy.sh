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
# many logs get as their first recommendation one for the kind of cause logs/KIND labels. The last two
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
	if [ "$expect" = "-" ]; then
		if "$BIN" explain "$LOGS/$file" 2>/dev/null | grep -q "cannot explain"; then right=1 first=1; fi
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
	printf '%s\t%s\t%s\t%d\t%d\t%d\t%d\n' "$part" "$cause" "$file" "$right" "$first" "$net" "$kind" >>"$TMP/rows"
done <"$LOGS/INDEX"

awk -F'\t' '
	{ k = $1 "\t" $2; n[k]++; r[k] += $4; f[k] += $5; N[$1]++; R[$1] += $4; F[$1] += $5
	  if (!$4) miss[$1] = miss[$1] " " $3
	  if ($6) { adv[$1]++; if ($6 == 1) { fp[$1]++; fpf[$1] = fpf[$1] " " $3 } }
	  K[$1] += $7 }
	END {
		printf "%-8s %-10s %5s %6s %6s\n", "part", "cause", "logs", "right", "first"
		for (k in n) print k "\t" n[k] "\t" r[k] "\t" f[k] | "sort"
		close("sort")
		for (p in N) printf "%-8s %-10s %5d %6d %6d   right %.0f %%, first recommendation %.0f %%%s\n", p, "ALL", N[p], R[p], F[p],
			100 * R[p] / N[p], 100 * F[p] / N[p], miss[p] ? "; wrong:" miss[p] : ""
		for (p in N) printf "%-8s right kind of cause first (logs/KIND): %d of %d (%.0f %%)\n", p, K[p], N[p], 100 * K[p] / N[p]
		for (p in N) printf "%-8s network settings advised for %d logs, %d of them not a network failure%s\n", p, adv[p], fp[p],
			fp[p] ? ":" fpf[p] : ""
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
