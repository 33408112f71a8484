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

/* The libraries whose interface and port choices this module models (bits). */
enum { CD_LIB_NCCL = 1, CD_LIB_GLOO = 2, CD_LIB_UCX = 4, CD_LIB_OMPI = 8, CD_LIB_ALL = 15 };

/* "NCCL", "Open MPI's TCP", … for one CD_LIB_ bit. */
const char *cd_lib_name(unsigned lib);

/* What decides that library's interfaces on h: its variable, or its default in words. */
const char *cd_lib_iface_rule(const struct cd_host *h, unsigned lib);

/*
 * The libraries (CD_LIB_ bits) that would send over interface n of h as configured (its
 * env snapshot) or by their own defaults: NCCL's bootstrap interface (and with no active
 * RDMA port every interface of its socket transport), Open MPI's btl/oob tcp, a
 * UCX_NET_DEVICES that names n on a host without RDMA, GLOO_SOCKET_IFNAME.
 */
unsigned cd_iface_users(const struct cd_host *h, const struct cd_nic *n);

/*
 * NCCL_IB_HCA matching (src/transport/net_ib/init.cc ncclIbInitDevices → matchIfList, the
 * same in v2.12 … v2.28): items "dev[:port]" are name prefixes (whole names after '='), a
 * port given must equal; '^' inverts. Unset (NULL) selects every port. 1 when selected.
 */
int cd_nccl_ib_hca_match(const char *spec, const char *dev, int64_t port);

/*
 * UCX_NET_DEVICES matching (src/ucp/core/ucp_context.c ucp_is_resource_in_device_list):
 * "all" or unset selects everything; else whole names ("mlx5_0:1", "eth0"), or a network
 * device's base name before ':' ("mlx5_0"); a leading '^' inverts.
 */
int cd_ucx_net_device_match(const char *spec, const char *name);

/* Does UCX_TLS (NULL: unset, "all") leave UCX a transport over verbs? */
int cd_ucx_tls_rdma(const char *tls);

/* The libraries (CD_LIB_NCCL, CD_LIB_UCX) that would carry data over RDMA port p of hca. */
unsigned cd_rdma_port_users(const struct cd_host *h, const char *hca, const struct cd_ib_port *p);

/*
 * Is active port p of hca one of h's GPU rails? When NCCL_IB_HCA is set, the site has
 * named them: the ports it selects. Unset, the ports of the link layer most active ports
 * have: a port of the other one is a front end or storage NIC seen through verbs (an
 * Azure VM's Ethernet VF mlx5_an0 beside eight InfiniBand ports).
 */
int cd_rdma_rail_port(const struct cd_host *h, const char *hca, const struct cd_ib_port *p);

#endif
