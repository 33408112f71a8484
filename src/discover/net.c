/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Network interfaces from libnl-route-3: kind, state, MTU, addresses and
 * default routes; speed, driver, bus id and NUMA node from sysfs. The netlink
 * socket and caches never leave this file: facts are copied into the host.
 */
#include "net.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <netlink/version.h>

#include "discover_opts.h"

#ifndef ARPHRD_INFINIBAND
#define ARPHRD_INFINIBAND 32
#endif

static const struct {
	const char *type;
	enum cd_nic_kind kind;
} link_types[] = {
	{ "bridge", CD_NIC_BRIDGE },
	{ "openvswitch", CD_NIC_BRIDGE },	/* an Open vSwitch datapath port (br-int) */
	{ "veth", CD_NIC_VETH },
	{ "netkit", CD_NIC_VETH },
	{ "bond", CD_NIC_BOND },
	{ "team", CD_NIC_BOND },
	{ "vlan", CD_NIC_VLAN },
	{ "ipoib", CD_NIC_IPOIB },
	{ "vxlan", CD_NIC_TUNNEL },
	{ "geneve", CD_NIC_TUNNEL },
	{ "gre", CD_NIC_TUNNEL },
	{ "gretap", CD_NIC_TUNNEL },
	{ "ip6gre", CD_NIC_TUNNEL },
	{ "ip6gretap", CD_NIC_TUNNEL },
	{ "erspan", CD_NIC_TUNNEL },
	{ "ip6erspan", CD_NIC_TUNNEL },
	{ "ipip", CD_NIC_TUNNEL },
	{ "sit", CD_NIC_TUNNEL },
	{ "ip6tnl", CD_NIC_TUNNEL },
	{ "vti", CD_NIC_TUNNEL },
	{ "vti6", CD_NIC_TUNNEL },
	{ "xfrm", CD_NIC_TUNNEL },
	{ "wireguard", CD_NIC_TUNNEL },
	{ "tun", CD_NIC_TUNNEL },
	{ "bareudp", CD_NIC_TUNNEL },
	{ "gtp", CD_NIC_TUNNEL },
	{ "macvlan", CD_NIC_VIRTUAL },
	{ "macvtap", CD_NIC_VIRTUAL },
	{ "ipvlan", CD_NIC_VIRTUAL },
	{ "ipvtap", CD_NIC_VIRTUAL },
	{ "dummy", CD_NIC_VIRTUAL },
	{ "ifb", CD_NIC_VIRTUAL },
	{ "vrf", CD_NIC_VIRTUAL },
	{ "nlmon", CD_NIC_VIRTUAL },
	{ "macsec", CD_NIC_VIRTUAL },
};

enum cd_nic_kind cd_net_classify(const char *link_type, unsigned flags, int arptype,
				 int has_bus_device, int is_tun)
{
	if ((flags & IFF_LOOPBACK) || arptype == ARPHRD_LOOPBACK)
		return CD_NIC_LOOPBACK;
	if (arptype == ARPHRD_INFINIBAND)
		return CD_NIC_IPOIB;
	if (is_tun)
		return CD_NIC_TUNNEL;
	if (link_type && *link_type) {
		for (size_t i = 0; i < ARRAY_SIZE(link_types); i++)
			if (!strcmp(link_types[i].type, link_type))
				return link_types[i].kind;
		return CD_NIC_OTHER;
	}
	switch (arptype) {
	case ARPHRD_TUNNEL:
	case ARPHRD_TUNNEL6:
	case ARPHRD_SIT:
	case ARPHRD_IPGRE:
	case ARPHRD_NONE:	/* tun in IFF_TUN mode, wireguard */
		return CD_NIC_TUNNEL;
	}
	return has_bus_device ? CD_NIC_PHYSICAL : CD_NIC_VIRTUAL;
}

int cd_net_is_pci_addr(const char *s)
{
	size_t n = 0;

	if (!s)
		return 0;
	while (isxdigit((unsigned char)s[n]))
		n++;
	if (n < 4 || s[n] != ':')
		return 0;
	s += n + 1;
	return isxdigit((unsigned char)s[0]) && isxdigit((unsigned char)s[1]) && s[2] == ':' &&
	       isxdigit((unsigned char)s[3]) && isxdigit((unsigned char)s[4]) && s[5] == '.' &&
	       s[6] >= '0' && s[6] <= '7' && s[7] == '\0';
}

int64_t cd_net_parse_speed(const char *text)
{
	char *end;
	long long v;

	if (!text)
		return CD_NULL_I64;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || *end || v <= 0)
		return CD_NULL_I64;
	/* SPEED_UNKNOWN as some older drivers print it: no link runs at 65.535 Gb/s */
	if (v == 65535 || v == UINT32_MAX)
		return CD_NULL_I64;
	return v;
}

/* sysfs */

static char *net_path(const struct cd_discover_opts *o, const char *ifname, const char *leaf)
{
	const char *root = o && o->sysfs_root ? o->sysfs_root : "";

	return xasprintf("%s/sys/class/net/%s/%s", root, ifname, leaf);
}

static int net_exists(const struct cd_discover_opts *o, const char *ifname, const char *leaf)
{
	char *p = net_path(o, ifname, leaf);
	struct stat st;
	int ret = stat(p, &st) == 0;

	free(p);
	return ret;
}

static int net_read(const struct cd_discover_opts *o, const char *ifname, const char *leaf,
		    char *buf, size_t len)
{
	char *p = net_path(o, ifname, leaf);
	int ret = cd_read_line(p, buf, len);

	free(p);
	return ret;
}

/* Basename of a symlink's target, or NULL. */
static char *net_link_base(const struct cd_discover_opts *o, const char *ifname, const char *leaf)
{
	char *p = net_path(o, ifname, leaf);
	char *base = cd_readlink_base(p);

	free(p);
	return base;
}

static void net_read_sysfs(struct cd_nic *nic, const struct cd_discover_opts *o)
{
	char buf[64];
	char *bus;

	if (net_read(o, nic->name, "speed", buf, sizeof(buf)) == 0)
		nic->speed_mbit_s = cd_net_parse_speed(buf);
	nic->driver = net_link_base(o, nic->name, "device/driver");
	bus = net_link_base(o, nic->name, "device");
	if (cd_net_is_pci_addr(bus))
		nic->bus_id = bus;
	else
		free(bus);
	if (net_read(o, nic->name, "device/numa_node", buf, sizeof(buf)) == 0) {
		char *end;
		long v = strtol(buf, &end, 10);

		if (end != buf && !*end && v >= 0)
			nic->numa = v;
	}
}

/* netlink */

static char *fmt_mac(struct nl_addr *a)
{
	const unsigned char *b;
	unsigned int len;
	char *s, *p;

	if (!a || !(len = nl_addr_get_len(a)))
		return NULL;
	b = nl_addr_get_binary_addr(a);
	s = p = xmalloc(len * 3);
	for (unsigned int i = 0; i < len; i++)
		p += sprintf(p, "%s%02x", i ? ":" : "", b[i]);
	return s;
}

static char *fmt_ip(struct nl_addr *a, int prefixlen)
{
	char buf[INET6_ADDRSTRLEN];
	int family = nl_addr_get_family(a);

	if ((family != AF_INET && family != AF_INET6) ||
	    !inet_ntop(family, nl_addr_get_binary_addr(a), buf, sizeof(buf)))
		return NULL;
	return xasprintf("%s/%d", buf, prefixlen);
}

static int cmp_link(const void *a, const void *b)
{
	int x = rtnl_link_get_ifindex(*(struct rtnl_link *const *)a);
	int y = rtnl_link_get_ifindex(*(struct rtnl_link *const *)b);

	return (x > y) - (x < y);
}

static struct cd_nic *nic_by_ifindex(struct cd_host *h, size_t first, int ifindex)
{
	for (size_t i = first; i < h->n_nics; i++)
		if (h->nics[i].ifindex == ifindex)
			return &h->nics[i];
	return NULL;
}

static void net_add_link(struct cd_host *h, struct nl_cache *links, struct rtnl_link *l,
			 const struct cd_discover_opts *o)
{
	struct cd_nic *nic = cd_host_add_nic(h);
	const char *type = rtnl_link_get_type(l);
	unsigned flags = rtnl_link_get_flags(l);
	char buf[64]; /* an interface name or an operstate */
	int master;

	nic->name = xstrdup(rtnl_link_get_name(l));
	nic->ifindex = rtnl_link_get_ifindex(l);
	nic->link_type = type ? xstrdup(type) : NULL;
	nic->kind = cd_net_classify(type, flags, (int)rtnl_link_get_arptype(l),
				    net_exists(o, nic->name, "device"),
				    net_exists(o, nic->name, "tun_flags"));
	rtnl_link_operstate2str(rtnl_link_get_operstate(l), buf, sizeof(buf));
	for (char *c = buf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	nic->state = xstrdup(buf);
	nic->admin_up = (flags & IFF_UP) ? CD_TRI_TRUE : CD_TRI_FALSE;
	nic->mtu = rtnl_link_get_mtu(l);
	nic->mac = fmt_mac(rtnl_link_get_addr(l));
	master = rtnl_link_get_master(l);
	if (master > 0 && rtnl_link_i2name(links, master, buf, sizeof(buf)))
		nic->master = xstrdup(buf);
	net_read_sysfs(nic, o);
}

static void net_add_addrs(struct cd_host *h, size_t first, struct nl_cache *addrs)
{
	for (struct nl_object *obj = nl_cache_get_first(addrs); obj; obj = nl_cache_get_next(obj)) {
		struct rtnl_addr *a = (struct rtnl_addr *)obj;
		struct cd_nic *nic = nic_by_ifindex(h, first, rtnl_addr_get_ifindex(a));
		struct nl_addr *local = rtnl_addr_get_local(a);
		char *s;

		if (!nic || !local)
			continue;
		s = fmt_ip(local, rtnl_addr_get_prefixlen(a));
		if (!s)
			continue;
		cd_strv_push(nl_addr_get_family(local) == AF_INET ? &nic->ipv4 : &nic->ipv6, s);
		free(s);
	}
}

static void net_mark_routes(struct cd_host *h, size_t first, struct nl_cache *routes)
{
	for (size_t i = first; i < h->n_nics; i++)
		h->nics[i].default_route = CD_TRI_FALSE;
	for (struct nl_object *obj = nl_cache_get_first(routes); obj; obj = nl_cache_get_next(obj)) {
		struct rtnl_route *r = (struct rtnl_route *)obj;
		struct nl_addr *dst = rtnl_route_get_dst(r);
		int family = rtnl_route_get_family(r);

		if ((family != AF_INET && family != AF_INET6) || rtnl_route_get_table(r) != RT_TABLE_MAIN ||
		    rtnl_route_get_type(r) != RTN_UNICAST || (dst && nl_addr_get_prefixlen(dst) != 0))
			continue;
		for (int n = 0; n < rtnl_route_get_nnexthops(r); n++) {
			struct rtnl_nexthop *nh = rtnl_route_nexthop_n(r, n);
			struct cd_nic *nic = nh ? nic_by_ifindex(h, first, rtnl_route_nh_get_ifindex(nh)) : NULL;

			if (nic)
				nic->default_route = CD_TRI_TRUE;
		}
	}
}

int cd_net_discover(struct cd_host *h, const struct cd_discover_opts *o)
{
	struct cd_section *sec = &h->part[CD_PART_NET];
	struct nl_sock *sk = NULL;
	struct nl_cache *links = NULL, *addrs = NULL, *routes = NULL;
	struct rtnl_link **v = NULL;
	size_t n = 0, cap = 0, first = h->n_nics;
	int err;

	free(h->versions.libnl);
	h->versions.libnl = xasprintf("%d.%d.%d", nl_ver_maj, nl_ver_min, nl_ver_mic);

	sk = nl_socket_alloc();
	if (!sk) {
		cd_section_set(sec, CD_ST_ERROR, "cannot allocate a netlink socket");
		return 0;
	}
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0) {
		cd_section_set(sec, CD_ST_ERROR, "cannot connect a netlink socket: %s", nl_geterror(err));
		goto out;
	}
	err = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (err < 0) {
		cd_section_set(sec, CD_ST_ERROR, "cannot list network interfaces: %s", nl_geterror(err));
		goto out;
	}
	for (struct nl_object *obj = nl_cache_get_first(links); obj; obj = nl_cache_get_next(obj))
		*CD_PUSH(v, n, cap) = (struct rtnl_link *)obj;
	if (n)
		qsort(v, n, sizeof(*v), cmp_link);
	for (size_t i = 0; i < n; i++)
		net_add_link(h, links, v[i], o);

	/* interfaces without their addresses or routes would be silently wrong: say so */
	err = rtnl_addr_alloc_cache(sk, &addrs);
	if (err < 0) {
		cd_section_set(sec, CD_ST_ERROR, "cannot list addresses: %s", nl_geterror(err));
		goto out;
	}
	net_add_addrs(h, first, addrs);
	err = rtnl_route_alloc_cache(sk, AF_UNSPEC, 0, &routes);
	if (err < 0) {
		cd_section_set(sec, CD_ST_ERROR, "cannot list routes: %s", nl_geterror(err));
		goto out;
	}
	net_mark_routes(h, first, routes);
	cd_section_set(sec, CD_ST_OK, NULL);
out:
	free(v);
	if (routes)
		nl_cache_free(routes);
	if (addrs)
		nl_cache_free(addrs);
	if (links)
		nl_cache_free(links);
	nl_socket_free(sk);
	return 0;
}
