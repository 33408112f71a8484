/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libraries' own interface choices, as their sources make them (see libdefaults.h).
 * NCCL: src/misc/socket.cc (ncclFindInterfaces, findInterfaces) and src/misc/utils.cc
 * (parseStringList, matchIfList), v2.12 to v2.28.9; src/os/linux.cc ncclOsFindInterfaces
 * from v2.29 (the same). v2.28.3 added the IFF_RUNNING filter and the virbr steps.
 * Open MPI: opal/mca/btl/tcp/btl_tcp_component.c (mca_btl_tcp_component_create_instances:
 * include by exact name, exclude by name prefix, CIDR entries resolved to names; default
 * exclude "127.0.0.1/8,sppp"), v4.1.0-v4.1.8 and v5.0.0-v5.0.10; oob/tcp from
 * orte/mca/oob/tcp/oob_tcp_component.c (v4.1) and PRRTE's (v5.0): loopback only when alone,
 * never a name starting "vir".
 */
#include "libdefaults.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "measure.h"
#include "util.h"

const char *cd_host_env(const struct cd_host *h, const char *key)
{
	for (size_t i = 0; h && i < h->n_env; i++)
		if (!strcmp(h->env[i].key, key))
			return h->env[i].value;
	return NULL;
}

/* ---- NCCL's device lists: one reader (parseStringList) and one matcher (matchIfList) ---- */

void cd_nccl_list_init(struct cd_nccl_list *l, const char *spec, int max)
{
	memset(l, 0, sizeof(*l));
	l->rest = spec ? spec : "";
	l->max = max;
	if (*l->rest == '^')
		l->not = 1, l->rest++;
	if (*l->rest == '=')
		l->exact = 1, l->rest++;
}

int cd_nccl_list_next(struct cd_nccl_list *l, struct cd_nccl_item *it)
{
	while (*l->rest && (!l->max || l->seen < l->max)) {
		const char *p = l->rest;
		size_t len = strcspn(p, ","), name_len = strcspn(p, ":,");

		l->rest = p + len + (p[len] == ',');
		if (!name_len)
			continue; /* "" between commas, or ":1": no name, not an item */
		it->name = it->text = p;
		it->name_len = name_len;
		it->text_len = len;
		/* the second ':'-field; empty ("dev:", "dev::1") or absent is any port */
		it->port = name_len + 1 < len && p[name_len + 1] != ':' ? atol(p + name_len + 1) : -1;
		l->seen++;
		return 1;
	}
	return 0;
}

int cd_nccl_item_match(const struct cd_nccl_item *it, int exact, const char *name, int64_t port)
{
	if ((exact && strlen(name) != it->name_len) || strncmp(name, it->name, it->name_len))
		return 0;
	return it->port == -1 || port == -1 || it->port == port;
}

int cd_nccl_list_match(const char *spec, int max, const char *name, int64_t port)
{
	struct cd_nccl_list l;
	struct cd_nccl_item it;
	int any = 0, items = 0;

	cd_nccl_list_init(&l, spec, max);
	while (!any && cd_nccl_list_next(&l, &it)) {
		items++;
		any = cd_nccl_item_match(&it, l.exact, name, port);
	}
	/* an empty list matches everything (matchIfList's exception), so "^" matches nothing */
	return (any || !items) ^ l.not;
}

int cd_nccl_ifname_match(const char *spec, const char *name)
{
	/* ncclFindInterfaces passes port -1: "eth0:1" names eth0 */
	return spec && name && cd_nccl_list_match(spec, CD_NCCL_MAX_IFS, name, -1);
}

/* An address findInterfaces accepts: IPv4, or IPv6 other than ::1 (link-local included). */
static int nccl_v4(const struct cd_nic *n)
{
	return n->ipv4.n > 0;
}

static int nccl_v6(const struct cd_nic *n)
{
	for (size_t i = 0; i < n->ipv6.n; i++)
		if (strncmp(n->ipv6.v[i], "::1/", 4) && strcmp(n->ipv6.v[i], "::1"))
			return 1;
	return 0;
}

/* NCCL 2.28.3 and later (or unknown: the current behaviour) filter on IFF_RUNNING and skip virbr*. */
static int nccl_2_28(const struct cd_host *h)
{
	long v = cd_version_num(h->versions.nccl);

	return v < 0 || v >= 22803;
}

/*
 * findInterfaces(prefixList): getifaddrs lists every IPv4 address before any IPv6 one,
 * each family in interface order, so an interface with only IPv6 comes after every
 * IPv4 one. Before 2.28.3 no state check: an address on an interface that is down is listed too.
 * NCCL_SOCKET_FAMILY (AF_INET/AF_INET6) restricts the family.
 */
static size_t find_ifaces(const struct cd_host *h, const char *list, const struct cd_nic **out, size_t max)
{
	const char *fam = cd_host_env(h, "NCCL_SOCKET_FAMILY");
	int want4 = !fam || strcmp(fam, "AF_INET6"), want6 = !fam || strcmp(fam, "AF_INET");
	size_t found = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < h->n_nics && found < max; i++) {
			const struct cd_nic *n = &h->nics[i];
			size_t k;

			if (!n->name || !cd_nccl_ifname_match(list, n->name))
				continue;
			if (nccl_2_28(h) && !cd_nic_is_up(n))
				continue; /* IFF_RUNNING: up with carrier */
			if (pass == 0 ? !(want4 && nccl_v4(n)) : !(want6 && nccl_v6(n)))
				continue;
			for (k = 0; k < found && out[k] != n; k++)
				;
			if (k == found)
				out[found++] = n;
		}
	return found;
}

size_t cd_nccl_socket_ifaces(const struct cd_host *h, const char *spec, const struct cd_nic **out, size_t max)
{
	/* ncclFindInterfaces: a value of one character is treated as unset */
	static const char *const order[] = { "ib", "^docker,lo", "docker", "lo" };
	static const char *const order_2_28[] = { "ib", "^docker,lo,virbr", "docker", "lo", "virbr" };
	const int now = nccl_2_28(h);
	size_t n = 0;

	if (spec && strlen(spec) > 1)
		return find_ifaces(h, spec, out, max);
	/* (NCCL_COMM_ID's subnet hint, between "ib" and the rest, is not modelled: rarely set) */
	for (size_t i = 0; i < (now ? ARRAY_SIZE(order_2_28) : ARRAY_SIZE(order)) && !n; i++)
		n = find_ifaces(h, now ? order_2_28[i] : order[i], out, max);
	return n;
}

const struct cd_nic *cd_nccl_bootstrap_nic(const struct cd_host *h)
{
	const struct cd_nic *first = NULL;

	return cd_nccl_socket_ifaces(h, cd_host_env(h, "NCCL_SOCKET_IFNAME"), &first, 1) ? first : NULL;
}

/* "10.0.0.17/24" inside "10.0.0.0/16"? */
static int in_cidr(const char *addr, const char *cidr)
{
	unsigned a[4], c[4], bits, alen;
	uint32_t x, y, mask;

	if (sscanf(addr, "%u.%u.%u.%u/%u", &a[0], &a[1], &a[2], &a[3], &alen) < 4 ||
	    sscanf(cidr, "%u.%u.%u.%u/%u", &c[0], &c[1], &c[2], &c[3], &bits) != 5 || bits > 32)
		return 0;
	x = a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3];
	y = c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3];
	mask = bits ? ~0u << (32 - bits) : 0;
	return (x & mask) == (y & mask);
}

/* Does one Open MPI list item select n? A CIDR entry by n's addresses (split_and_resolve turns
 * it into the names of the interfaces inside it), a name exactly, or by prefix for btl's exclude. */
static int ompi_item(const struct cd_host *h, const struct cd_nic *n, const char *item, size_t len, int prefix)
{
	char buf[64];

	if (!len || len >= sizeof(buf))
		return 0;
	memcpy(buf, item, len);
	buf[len] = '\0';
	if (strchr(buf, '/')) {
		/* resolved to names; with prefix matching "lo" (from 127.0.0.1/8) also takes "lowpan0" */
		for (size_t k = 0; k < h->n_nics; k++) {
			const struct cd_nic *m = &h->nics[k];

			for (size_t i = 0; m->name && i < m->ipv4.n; i++)
				if (in_cidr(m->ipv4.v[i], buf) &&
				    (prefix ? !strncmp(n->name, m->name, strlen(m->name)) : !strcmp(n->name, m->name)))
					return 1;
		}
		return 0;
	}
	return prefix ? !strncmp(n->name, buf, len) : !strcmp(n->name, buf);
}

static int ompi_list(const struct cd_host *h, const struct cd_nic *n, const char *list, int prefix)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		const char *q = p;

		while (len && *q == ' ')
			q++, len--;
		if (ompi_item(h, n, q, len, prefix))
			return 1;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return 0;
}

int cd_ompi_tcp_uses(const struct cd_host *h, const struct cd_nic *n, const char *which)
{
	char key[64];
	const char *inc, *exc;
	int btl = !strcmp(which, "btl");

	if (!n->name || !n->ipv4.n)
		return 0;
	snprintf(key, sizeof(key), "OMPI_MCA_%s_tcp_if_include", which);
	inc = cd_host_env(h, key);
	snprintf(key, sizeof(key), "OMPI_MCA_%s_tcp_if_exclude", which);
	exc = cd_host_env(h, key);
	if (btl) {
		/* OPAL's interface list: IPv4, IFF_UP, not a bond slave */
		if (n->admin_up == CD_TRI_FALSE)
			return 0;
		for (size_t i = 0; n->master && i < h->n_nics; i++)
			if (h->nics[i].name && !strcmp(h->nics[i].name, n->master) && h->nics[i].kind == CD_NIC_BOND)
				return 0; /* IFF_SLAVE */
		if (inc && *inc)
			return ompi_list(h, n, inc, 0);
		return !ompi_list(h, n, exc && *exc ? exc : "127.0.0.1/8,sppp", 1);
	}
	/* oob/tcp: never "vir*"; loopback only when nothing else has an address */
	if (!strncmp(n->name, "vir", 3))
		return 0;
	if (inc && *inc)
		return ompi_list(h, n, inc, 0);
	if (exc && *exc)
		return !ompi_list(h, n, exc, 0);
	if (n->kind == CD_NIC_LOOPBACK) {
		for (size_t i = 0; i < h->n_nics; i++)
			if (h->nics[i].kind != CD_NIC_LOOPBACK && h->nics[i].ipv4.n)
				return 0;
	}
	return 1;
}

int cd_host_rdma_active(const struct cd_host *h)
{
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t j = 0; j < h->hcas[i].n_ports; j++)
			if (h->hcas[i].ports[j].state && !strcmp(h->hcas[i].ports[j].state, "active"))
				return 1;
	return 0;
}

/* ---- RDMA ports: which library takes which ---- */

int cd_nccl_ib_hca_match(const char *spec, const char *dev, int64_t port)
{
	if (!spec || !dev)
		return spec == NULL;
	return cd_nccl_list_match(spec, CD_NCCL_MAX_IB_DEVS, dev, port);
}

int cd_ucx_net_device_match(const char *spec, const char *name)
{
	int not = 0, any = 0;
	size_t base = name ? strcspn(name, ":") : 0;

	if (!spec || !name || !strcmp(spec, "all"))
		return name != NULL;
	if (*spec == '^')
		not = 1, spec++;
	for (const char *p = spec; *p;) {
		size_t len = strcspn(p, ",");

		/* the full name ("mlx5_0:1"), or for a network device its base name ("mlx5_0") */
		if ((len == strlen(name) && !strncmp(p, name, len)) ||
		    (name[base] == ':' && len == base && !strncmp(p, name, len)))
			any = 1;
		p += len + (p[len] == ',');
	}
	return any ^ not;
}

int cd_ucx_tls_rdma(const char *tls)
{
	/* the transports over verbs (uct/ib: rc_verbs, rc_mlx5, ud_*, dc_mlx5) and their aliases */
	static const char *const rdma[] = { "all", "rc", "rc_v", "rc_x", "rc_verbs", "rc_mlx5", "ud", "ud_v", "ud_x",
					    "ud_verbs", "ud_mlx5", "dc", "dc_x", "dc_mlx5", "ib" };

	if (!tls || !*tls || *tls == '^')
		return 1; /* unset, or "all but …" (excluding every verbs transport by name is rare) */
	for (const char *p = tls; *p;) {
		size_t len = strcspn(p, ",");
		const char *q = p + (*p == '\\'); /* "\\rc": the strict name */
		size_t qlen = len - (size_t)(q - p);

		for (size_t i = 0; i < ARRAY_SIZE(rdma); i++)
			if (qlen == strlen(rdma[i]) && !strncmp(q, rdma[i], qlen))
				return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static int env_is(const struct cd_host *h, const char *key, const char *value)
{
	const char *v = cd_host_env(h, key);

	return v && !strcmp(v, value);
}

int cd_nccl_ib_takes(const struct cd_host *h, const char *hca, const struct cd_ib_port *p, int even_disabled)
{
	const char *net = cd_host_env(h, "NCCL_NET");

	/* NCCL_NET names the one network module NCCL loads: "IB" is the verbs one */
	if (net && *net && strcasecmp(net, "IB"))
		return 0;
	if (!even_disabled && env_is(h, "NCCL_IB_DISABLE", "1"))
		return 0;
	/* ncclIbInitDevices skips a port of any other link layer (an EFA port's is unspecified) */
	if (p->link_layer && strcmp(p->link_layer, "infiniband") && strcmp(p->link_layer, "ethernet"))
		return 0;
	return cd_nccl_ib_hca_match(cd_host_env(h, "NCCL_IB_HCA"), hca, p->port);
}

unsigned cd_rdma_port_users(const struct cd_host *h, const char *hca, const struct cd_ib_port *p)
{
	if (!p->state || strcmp(p->state, "active"))
		return 0;
	return cd_rdma_port_selected(h, hca, p);
}

unsigned cd_rdma_port_selected(const struct cd_host *h, const char *hca, const struct cd_ib_port *p)
{
	unsigned libs = 0;
	char name[160];

	if (!hca)
		return 0;
	if (cd_nccl_ib_takes(h, hca, p, 0))
		libs |= CD_LIB_NCCL;
	snprintf(name, sizeof(name), "%s:%lld", hca, (long long)p->port);
	if (cd_ucx_tls_rdma(cd_host_env(h, "UCX_TLS")) && cd_ucx_net_device_match(cd_host_env(h, "UCX_NET_DEVICES"), name))
		libs |= CD_LIB_UCX;
	return libs;
}

const char *cd_rdma_rail_layer(const struct cd_host *h)
{
	const char *best = NULL;
	size_t best_n = 0;

	/* the most common link layer of the active ports; ties go to InfiniBand, then Ethernet */
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];
			size_t n = 0;

			if (!p->state || strcmp(p->state, "active") || !p->link_layer)
				continue;
			for (size_t k = 0; k < h->n_hcas; k++)
				for (size_t l = 0; l < h->hcas[k].n_ports; l++) {
					const struct cd_ib_port *q = &h->hcas[k].ports[l];

					n += q->state && !strcmp(q->state, "active") && q->link_layer &&
					     !strcmp(q->link_layer, p->link_layer);
				}
			if (n > best_n || (n == best_n && best && strcmp(best, "infiniband") &&
					   (!strcmp(p->link_layer, "infiniband") ||
					    (!strcmp(p->link_layer, "ethernet") && strcmp(best, "ethernet"))))) {
				best = p->link_layer;
				best_n = n;
			}
		}
	return best ? best : "infiniband";
}

int cd_rdma_rail_port(const struct cd_host *h, const char *hca, const struct cd_ib_port *p)
{
	const char *hcas = cd_host_env(h, "NCCL_IB_HCA");

	if (!p->state || strcmp(p->state, "active"))
		return 0;
	if (hcas && *hcas)
		return cd_nccl_ib_hca_match(hcas, hca, p->port);
	return !p->link_layer || !strcmp(p->link_layer, cd_rdma_rail_layer(h));
}

/* ---- which library sends over which interface ---- */

const char *cd_lib_name(unsigned lib)
{
	switch (lib) {
	case CD_LIB_NCCL: return "NCCL";
	case CD_LIB_GLOO: return "Gloo";
	case CD_LIB_UCX: return "UCX's TCP";
	case CD_LIB_OMPI: return "Open MPI's TCP";
	default: return "a library";
	}
}

const char *cd_lib_iface_rule(const struct cd_host *h, unsigned lib)
{
	switch (lib) {
	case CD_LIB_NCCL:
		return cd_host_env(h, "NCCL_SOCKET_IFNAME") ? "NCCL_SOCKET_IFNAME"
			: "its own order: ib*, then all but docker*, lo and virbr*";
	case CD_LIB_GLOO: return "GLOO_SOCKET_IFNAME";
	case CD_LIB_UCX: return "UCX_NET_DEVICES";
	case CD_LIB_OMPI:
		return cd_host_env(h, "OMPI_MCA_btl_tcp_if_include") || cd_host_env(h, "OMPI_MCA_btl_tcp_if_exclude")
			? "its if_include/if_exclude" : "its default: every interface but loopback";
	default: return "?";
	}
}

unsigned cd_iface_users(const struct cd_host *h, const struct cd_nic *n)
{
	const struct cd_nic *list[16];
	const char *ucx = cd_host_env(h, "UCX_NET_DEVICES"), *gloo = cd_host_env(h, "GLOO_SOCKET_IFNAME");
	int rdma = cd_host_rdma_active(h);
	unsigned libs = 0;
	size_t k;

	if (!n->name)
		return 0;
	/* NCCL: its bootstrap interface; without RDMA its socket transport uses every listed one */
	k = cd_nccl_socket_ifaces(h, cd_host_env(h, "NCCL_SOCKET_IFNAME"), list, rdma ? 1 : ARRAY_SIZE(list));
	for (size_t i = 0; i < k; i++)
		if (list[i] == n)
			libs |= CD_LIB_NCCL;
	if (cd_ompi_tcp_uses(h, n, "btl") || cd_ompi_tcp_uses(h, n, "oob"))
		libs |= CD_LIB_OMPI;
	/*
	 * UCX unset ("all") leaves bridges out and, from 1.21, sends to a peer only over the
	 * kernel's best route to it (uct_tcp_iface_is_reachable_v2): it picks no unreachable
	 * interface by itself. Only a UCX_NET_DEVICES that names one counts, and only without
	 * RDMA (then UCX carries data over verbs).
	 */
	if (!rdma && ucx && strcmp(ucx, "all") && cd_ucx_net_device_match(ucx, n->name))
		libs |= CD_LIB_UCX;
	if (gloo && !strcmp(gloo, n->name))
		libs |= CD_LIB_GLOO;
	return libs;
}
