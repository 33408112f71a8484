/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interfaces and HCAs NCCL lists in its INFO lines ("NET/Socket : Using [0]eth0:10.0.0.1<0>",
 * "NET/IB : Using [0]mlx5_0:1/IB"), read into the host explain builds: the facts the advice's
 * tree asks about (which interface a rank used, whether it is a bridge, a RoCE or an IB port).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "explain_lines.h"
#include "explain_nics.h"
#include "util.h"

enum cd_nic_kind cd_explain_nic_kind(const char *name)
{
	static const struct {
		const char *prefix;
		enum cd_nic_kind kind;
	} k[] = {
		{ "lo", CD_NIC_LOOPBACK }, { "docker", CD_NIC_BRIDGE }, { "virbr", CD_NIC_BRIDGE }, { "br", CD_NIC_BRIDGE },
		{ "cni", CD_NIC_BRIDGE }, { "veth", CD_NIC_VETH }, { "tun", CD_NIC_TUNNEL }, { "tap", CD_NIC_TUNNEL },
		{ "vxlan", CD_NIC_TUNNEL }, { "flannel", CD_NIC_TUNNEL }, { "ib", CD_NIC_IPOIB }, { "bond", CD_NIC_BOND },
	};

	for (size_t i = 0; i < ARRAY_SIZE(k); i++)
		if (!strncmp(name, k[i].prefix, strlen(k[i].prefix)))
			return strchr(name, '.') && k[i].kind == CD_NIC_BOND ? CD_NIC_VLAN : k[i].kind;
	return strchr(name, '.') ? CD_NIC_VLAN : CD_NIC_PHYSICAL;
}

static void add_nic(struct cd_host *h, const char *name, const char *addr)
{
	struct cd_nic *n = NULL;

	for (size_t i = 0; i < h->n_nics; i++)
		if (h->nics[i].name && !strcmp(h->nics[i].name, name))
			n = &h->nics[i];
	if (!n) {
		if (h->n_nics >= 64)
			return;
		n = cd_host_add_nic(h);
		n->name = xstrdup(name);
		n->kind = cd_explain_nic_kind(name);
		n->state = xstrdup("up");
		n->admin_up = CD_TRI_TRUE;
	}
	if (!*addr)
		return;
	if (strchr(addr, ':')) {
		if (!n->ipv6.n)
			cd_strv_push(&n->ipv6, addr);
	} else if (!n->ipv4.n) {
		cd_strv_push(&n->ipv4, addr);
	}
}

/* "[0]eth0:10.0.0.1<0> [1]veth1:fe80::1%veth1<0>" or "eth0:10.0.0.1<0>". */
/*
 * One "[N]name:addr<N>" item of NCCL's interface list at *pp (the "[N]" is optional): fills
 * name and addr and returns 1, moving *pp past the item's '>' (NULL when none follows: the
 * list ends there); 0 when *pp holds no item.
 */
int cd_explain_iface_item(const char **pp, char *name, size_t name_len, char *addr, size_t addr_len)
{
	const char *p = *pp;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		while (*p && *p != ']')
			p++;
		if (*p)
			p++;
	}
	n = cd_explain_token(p, cd_explain_hostchar, name, name_len);
	if (!n || p[n] != ':')
		return 0;
	p += n + 1;
	cd_explain_token(p, cd_explain_addrchar, addr, addr_len);
	p = strchr(p, '>');
	*pp = p ? p + 1 : NULL;
	return 1;
}

void cd_explain_nccl_ifaces(struct cd_host *h, const char *p)
{
	char name[64], addr[80];

	for (int guard = 0; p && *p && *p != ';' && guard < 32; guard++) {
		if (!cd_explain_iface_item(&p, name, sizeof(name), addr, sizeof(addr)))
			return;
		add_nic(h, name, addr);
	}
}

/* "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:…" */
void cd_explain_nccl_hcas(struct cd_host *h, const char *p)
{
	int guard = 0;

	while (p && *p && *p != ';' && guard++ < 32) {
		char name[64], port[16];
		struct cd_hca *c = NULL;
		size_t n;

		while (*p == ' ')
			p++;
		if (*p != '[')
			return;
		while (*p && *p != ']')
			p++;
		if (!*p)
			return;
		p++;
		n = cd_explain_token(p, cd_explain_hostchar, name, sizeof(name));
		if (!n || p[n] != ':')
			continue;
		p += n + 1;
		cd_explain_token(p, isdigit, port, sizeof(port));
		p += strlen(port);
		for (size_t i = 0; i < h->n_hcas; i++)
			if (!strcmp(h->hcas[i].name, name))
				c = &h->hcas[i];
		if (!c && h->n_hcas < 32) {
			struct cd_ib_port *pt;

			c = cd_host_add_hca(h);
			c->name = xstrdup(name);
			pt = cd_hca_add_port(c);
			pt->port = *port ? strtol(port, NULL, 10) : 1;
			pt->state = xstrdup("active"); /* NCCL lists only active ports */
			pt->link_layer = xstrdup(!strncmp(p, "/RoCE", 5) ? "ethernet" : "infiniband");
		}
		while (*p && *p != ' ' && *p != ';')
			p++;
	}
}
