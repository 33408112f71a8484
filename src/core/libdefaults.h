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
 * A NCCL device list: NCCL_IB_HCA, NCCL_SOCKET_IFNAME, NCCL_OOB_NET_IFNAME. NCCL reads
 * them all the same way, so commdiag does too, through this one reader: a leading '^'
 * selects what matches none of the items, then a leading '=' makes the names exact (else
 * each is a name prefix: "mlx5_1" takes mlx5_10); items are "name[:port[:rail[:plane]]]"
 * split at ','. As src/misc/utils.cc parseStringList (v2.30.7; the hand loop of v2.12 to
 * v2.30.4 reads these the same): an item with an empty name (",,", ":1") is skipped, no
 * whitespace is trimmed (" mlx5_1" names nothing), an empty or absent port is any port
 * (before v2.30.7 "dev:" read port 0, which no device has), and only the first `max` items
 * count (MAX_IB_DEVS 32, MAX_IFS 16).
 */
struct cd_nccl_list {
	int not, exact;         /* the leading '^' and '=' */
	const char *rest;       /* what is left to read */
	int seen, max;          /* items read so far; 0: no limit */
};

struct cd_nccl_item {
	const char *name;       /* into the list, not NUL-terminated */
	size_t name_len;
	const char *text;       /* the whole item as written ("mlx5_0:1") */
	size_t text_len;
	long port;              /* -1: any */
};

enum { CD_NCCL_MAX_IB_DEVS = 32, CD_NCCL_MAX_IFS = 16 };

/* Start reading spec (NULL reads as empty). */
void cd_nccl_list_init(struct cd_nccl_list *l, const char *spec, int max);

/* The next item into *it: 1, or 0 at the end. */
int cd_nccl_list_next(struct cd_nccl_list *l, struct cd_nccl_item *it);

/* matchIf + matchPort: does the item (exact or a prefix) take device `name`, port `port` (-1: any)? */
int cd_nccl_item_match(const struct cd_nccl_item *it, int exact, const char *name, int64_t port);

/*
 * matchIfList(...) ^ searchNot over the whole list: 1 when `name` (port `port`, -1 for an
 * interface) is selected. A list without items selects everything, so "^" selects nothing.
 */
int cd_nccl_list_match(const char *spec, int max, const char *name, int64_t port);

/* NCCL_SOCKET_IFNAME-style matching of an interface (no port); NULL spec or name: 0. */
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
 * same in v2.12 … v2.30): the list above with a port (-1: any). Unset (NULL) selects
 * every port. 1 when selected.
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

/*
 * Do NCCL's verbs transport's settings select port p, whatever its state? Not when
 * NCCL_NET names another network module ("AWS Libfabric", "Socket"), NCCL_IB_DISABLE=1
 * (unless even_disabled: what NCCL would take once it is unset), the link layer is neither
 * InfiniBand nor Ethernet (EFA), or NCCL_IB_HCA leaves it out.
 */
int cd_nccl_ib_takes(const struct cd_host *h, const char *hca, const struct cd_ib_port *p, int even_disabled);

/* The libraries (CD_LIB_NCCL, CD_LIB_UCX) that would carry data over RDMA port p of hca. */
unsigned cd_rdma_port_users(const struct cd_host *h, const char *hca, const struct cd_ib_port *p);

/*
 * The libraries whose settings select port p whatever its state: those that would use it
 * once it is up. 0 for a port the site's NCCL_IB_HCA and UCX_NET_DEVICES (or UCX_TLS) both
 * leave out, such as an uncabled storage port.
 */
unsigned cd_rdma_port_selected(const struct cd_host *h, const char *hca, const struct cd_ib_port *p);

/* The link layer most active ports of h have, its compute rails' ("infiniband" on a tie). */
const char *cd_rdma_rail_layer(const struct cd_host *h);

/*
 * Is active port p of hca one of h's GPU rails? When NCCL_IB_HCA is set, the site has
 * named them: the ports it selects. Unset, the ports of the link layer most active ports
 * have: a port of the other one is a front end or storage NIC seen through verbs (an
 * Azure VM's Ethernet VF mlx5_an0 beside eight InfiniBand ports).
 */
int cd_rdma_rail_port(const struct cd_host *h, const char *hca, const struct cd_ib_port *p);

#endif
