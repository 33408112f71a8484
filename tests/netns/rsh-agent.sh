#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# OpenMPI's plm_rsh_agent for the two-host test: "ssh HOST CMD…" becomes "run CMD in the
# network namespace of HOST". CD_NETNS_MAP is "hostA=nsname,hostB=nsname"; with
# CD_NETNS_UTS=1 each host also gets its own hostname (a UTS namespace) and its own
# /etc/machine-id (bind-mounted in the mount namespace ip netns exec creates).
while [ $# -gt 0 ]; do
	case $1 in
	-*) shift ;; # ssh options OpenMPI may pass
	*) break ;;
	esac
done
host=$1
shift
ns=$(printf '%s\n' "$CD_NETNS_MAP" | tr ',' '\n' | sed -n "s/^$host=//p")
[ -n "$ns" ] || { echo "rsh-agent: unknown host '$host'" >&2; exit 255; }
if [ "${CD_NETNS_UTS:-0}" = 1 ]; then
	exec ip netns exec "$ns" unshare --uts sh -c \
		'hostname "$0" && mount --bind "$CD_NETNS_DIR/machine-id.$0" /etc/machine-id && exec sh -c "$*"' \
		"$host" "$@"
fi
exec ip netns exec "$ns" sh -c "$*"
