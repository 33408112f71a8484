# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# What bench/explain_accuracy.sh and tests/run_e2e.sh share about issue 17's rules: "no network
# setting without a network error in the log" (one definition of a network setting, and the
# check of tests/data/logs/NETWORK, which logs are network failures, against INDEX), and what
# counts as explain claiming no fix for a log. Sourced, never run; the caller's working
# directory is the repository root.

# explain's text says it cannot explain the log, or only points at a line that states its cause
# with the general check for it (LOG096): either way it claims no fix.
CD_CANNOT_EXPLAIN='cannot explain'
CD_STATED_CAUSE="states its cause in the system's words (LOG096 above)"
# claims_no_fix FILE: FILE (explain's text output) claims no fix.
claims_no_fix() { grep -qF -e "$CD_CANNOT_EXPLAIN" -e "$CD_STATED_CAUSE" "$1"; }

# A setting that picks a network (an interface, HCA, GID, rail, address family) in
# `commdiag explain --shell` output: the exports and mpirun options the advisor writes for
# NCCL, Gloo, TensorPipe, UCX and Open MPI's TCP BTL and out-of-band channel.
CD_NET_SETTINGS='NCCL_SOCKET_IFNAME|NCCL_SOCKET_FAMILY|NCCL_IB_HCA|NCCL_IB_GID_INDEX|NCCL_IB_ROCE_VERSION_NUM|NCCL_CROSS_NIC|GLOO_SOCKET_IFNAME|TP_SOCKET_IFNAME|UCX_NET_DEVICES|btl_tcp_if_|oob_tcp_if_|btl_tcp_disable_family'

# net_setting FILE: FILE (explain --shell's output) advises a network setting.
net_setting() { grep -qE -- "$CD_NET_SETTINGS" "$1"; }

# net_labels_check INDEX NETWORK: every file of INDEX has one label in NETWORK ("file<TAB>yes|no
# <TAB>why") and every label names a file of INDEX. Prints each problem with the file (and the
# line of NETWORK) to stderr; returns 1 on any.
net_labels_check() {
	awk -F'\t' -v index_file="$1" -v net="$2" '
		FILENAME == index_file { if ($1 !~ /^#/ && $1 != "") indexed[$1] = 1; next }
		$0 ~ /^#/ || $0 == "" { next }
		{
			if (NF != 3 || ($2 != "yes" && $2 != "no") || $3 == "") {
				printf "%s line %d: expected file<TAB>yes|no<TAB>why, got \"%s\"\n", net, FNR, $0 >"/dev/stderr"
				bad = 1
			} else if (!($1 in indexed)) {
				printf "%s line %d: %s names no row of %s\n", net, FNR, $1, index_file >"/dev/stderr"
				bad = 1
			} else if ($1 in label) {
				printf "%s line %d: %s is labelled twice\n", net, FNR, $1 >"/dev/stderr"
				bad = 1
			}
			label[$1] = $2
		}
		END {
			for (f in indexed)
				if (!(f in label)) {
					printf "%s: no label for %s (a row of %s)\n", net, f, index_file >"/dev/stderr"
					bad = 1
				}
			exit bad
		}' "$1" "$2"
}

# net_label FILE NETWORK: prints FILE's label (yes or no), nothing when it has none.
net_label() { awk -F'\t' -v f="$1" '$1 == f { print $2; exit }' "$2"; }
