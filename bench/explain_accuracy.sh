#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain's accuracy on the real logs of tests/data/logs (issue 17): per cause (the file
# name's first word: shm, iface, gid, …) and per part, how many logs get the fix their
# thread confirmed somewhere in `explain --shell` (right) and as its first line (first),
# and how many say they cannot explain where INDEX expects that ("-"). The holdout part
# (tests/data/logs/HOLDOUT) was set aside before any tuning: read it as the estimate.
# Usage: bench/explain_accuracy.sh [./commdiag]     (no hardware; a few seconds)
set -u
BIN=$(realpath "${1:-./commdiag}")
cd "$(dirname "$0")/.." || exit 2
LOGS=tests/data/logs
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commdiag-acc.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

grep -v '^#' "$LOGS/HOLDOUT" | sed '/^$/d' >"$TMP/holdout"
# Settings that pick a network (issue 17: none without a network error in the log), and the
# causes (INDEX file names' first words) that are network failures, labelled by hand from
# each cause's INDEX description: a network setting for any other log is a false positive.
NET_SETTINGS='NCCL_SOCKET_IFNAME|NCCL_SOCKET_FAMILY|NCCL_IB_HCA|NCCL_IB_GID_INDEX|NCCL_IB_ROCE_VERSION_NUM|NCCL_CROSS_NIC|GLOO_SOCKET_IFNAME|TP_SOCKET_IFNAME|UCX_NET_DEVICES|btl_tcp_if_|oob_tcp_if_|btl_tcp_disable_family'
NET_CAUSES=' iface noiface gid ompi ofi efa gdr rails mtu hca ibmix acs dmabuf openib remote docker internal pml uar ports '

: >"$TMP/rows"
while IFS=$'\t' read -r file _src _cause _fix expect; do
	case "$file" in '#'* | '') continue ;; esac
	part=tune
	grep -qxF -- "$file" "$TMP/holdout" && part=holdout
	cause=${file%%-*}
	right=0 first=0 net=0
	"$BIN" explain "$LOGS/$file" --shell >"$TMP/out" 2>/dev/null
	grep -qE -- "$NET_SETTINGS" "$TMP/out" && net=1
	case "$NET_CAUSES" in *" $cause "*) net=$((net * 2)) ;; esac
	if [ "$expect" = "-" ]; then
		if "$BIN" explain "$LOGS/$file" 2>/dev/null | grep -q "cannot explain"; then right=1 first=1; fi
	else
		grep -qF -- "$expect" "$TMP/out" && right=1
		sed '/^$/d' "$TMP/out" | head -1 | grep -qF -- "$expect" && first=1
	fi
	printf '%s\t%s\t%s\t%d\t%d\t%d\n' "$part" "$cause" "$file" "$right" "$first" "$net" >>"$TMP/rows"
done <"$LOGS/INDEX"

awk -F'\t' '
	{ k = $1 "\t" $2; n[k]++; r[k] += $4; f[k] += $5; N[$1]++; R[$1] += $4; F[$1] += $5
	  if (!$4) miss[$1] = miss[$1] " " $3
	  if ($6) { adv[$1]++; if ($6 == 1) { fp[$1]++; fpf[$1] = fpf[$1] " " $3 } } }
	END {
		printf "%-8s %-10s %5s %6s %6s\n", "part", "cause", "logs", "right", "first"
		for (k in n) print k "\t" n[k] "\t" r[k] "\t" f[k] | "sort"
		close("sort")
		for (p in N) printf "%-8s %-10s %5d %6d %6d   right %.0f %%, first recommendation %.0f %%%s\n", p, "ALL", N[p], R[p], F[p],
			100 * R[p] / N[p], 100 * F[p] / N[p], miss[p] ? "; wrong:" miss[p] : ""
		for (p in N) printf "%-8s network settings advised for %d logs, %d of them not a network failure%s\n", p, adv[p], fp[p],
			fp[p] ? ":" fpf[p] : ""
	}' "$TMP/rows" | awk -F'\t' 'NF == 5 { printf "%-8s %-10s %5d %6d %6d\n", $1, $2, $3, $4, $5; next } { print }'
