/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What NCCL, Open MPI and UCX do with a host's interfaces when a variable is unset, and
 * what a variable that is set selects: the judge decides by it whether an unreachable
 * interface is a fault (a library will use it) and the advice whether a setting is needed
 * (the library's own choice does not work). Read from the libraries' sources; the man
 * page's LIBRARY DEFAULTS section cites them.
 */
#ifndef CD_LIBDEFAULTS_H
#define CD_LIBDEFAULTS_H

#include <stddef.h>

#include "results.h"

/*
 * NCCL's interface list matching (src/misc/utils.cc matchIfList, parseStringList): a
 * comma-separated list of name prefixes; a leading '^' selects the interfaces that match
 * none of them, a leading '=' (after any '^') makes the names exact; "name:port" ignores
 * the port here. 1 when `name` is selected.
 */
int cd_nccl_ifname_match(const char *spec, const char *name);

/*
 * The interfaces NCCL's ncclFindInterfaces lists on h (up, with an IPv4 or IPv6 address
 * that is not IPv6 loopback, in the kernel's order), for NCCL_SOCKET_IFNAME `spec`, or when
 * spec is NULL or shorter than 2 characters its own order: "ib" prefix first, then anything
 * but "docker" and "lo", then "docker", then "lo". The bootstrap uses the first; the socket
 * transport all of them. Returns how many were written to out (at most max).
 */
size_t cd_nccl_socket_ifaces(const struct cd_host *h, const char *spec, const struct cd_nic **out, size_t max);

/* NCCL's bootstrap interface on h under its NCCL_SOCKET_IFNAME (env snapshot), or NULL. */
const struct cd_nic *cd_nccl_bootstrap_nic(const struct cd_host *h);

/*
 * Does Open MPI's TCP component (`which`: "btl" for btl/tcp, "oob" for the runtime's
 * oob/tcp) use interface n of h under the host's OMPI_MCA_<which>_tcp_if_include /
 * _if_exclude? Unset, it uses every interface with an IPv4 address but loopback
 * (if_exclude defaults to 127.0.0.1/8,sppp: opal/mca/btl/tcp/btl_tcp_component.c). Items
 * are interface names (exact) or IPv4 CIDR subnets.
 */
int cd_ompi_tcp_uses(const struct cd_host *h, const struct cd_nic *n, const char *which);

/* Has h an active RDMA port (UCX and NCCL then carry data over verbs, not TCP)? */
int cd_host_rdma_active(const struct cd_host *h);

/* The value of an environment variable of the host's snapshot, or NULL. */
const char *cd_host_env(const struct cd_host *h, const char *key);

#endif
