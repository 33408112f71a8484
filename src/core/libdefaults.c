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

#include "measure.h"
#include "util.h"

const char *cd_host_env(const struct cd_host *h, const char *key)
{
	for (size_t i = 0; h && i < h->n_env; i++)
		if (!strcmp(h->env[i].key, key))
			return h->env[i].value;
	return NULL;
}

/* matchIf: a prefix of `name`, or with exact the whole of it. */
static int match_one(const char *name, const char *item, size_t len, int exact)
{
	if (exact)
		return strlen(name) == len && !strncmp(name, item, len);
	return !strncmp(name, item, len);
}

int cd_nccl_ifname_match(const char *spec, const char *name)
{
	int not = 0, exact = 0, any = 0, items = 0;
	const char *p;

	if (!spec || !name)
		return 0;
	if (*spec == '^')
		not = 1, spec++;
	if (*spec == '=')
		exact = 1, spec++;
	for (p = spec; *p;) {
		size_t len = strcspn(p, ",");
		size_t name_len = strcspn(p, ":,"); /* "eth0:1": the port is not part of the name */

		if (len) {
			items++;
			any |= match_one(name, p, name_len, exact);
		}
		p += len + (p[len] == ',');
	}
	/* an empty list matches everything (matchIfList's exception), so "^" matches nothing */
	if (!items)
		any = 1;
	return any ^ not;
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
	int a = 0, b = 0, c = 0;

	if (!h->versions.nccl || sscanf(h->versions.nccl, "%d.%d.%d", &a, &b, &c) < 2)
		return 1;
	return a > 2 || (a == 2 && (b > 28 || (b == 28 && c >= 3)));
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
