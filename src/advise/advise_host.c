/* SPDX-License-Identifier: BSD-3-Clause */
/* The decision tree's per-host topics: container networking, the socket interface, RDMA,
 * GPU peer-to-peer, shared memory, NVSwitch, PCIe. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "advise.h"
#include "advise_walk.h"
#include "libdefaults.h"

/* ---- socket interface on one host ---- */

int q_single(struct cd_walk *w)
{
	return !(w->r->n_hosts > 1 && w->r->n_reach > 0);
}

/* The interface to use on this host: default route first, then the first candidate. */
static const struct cd_nic *chosen_nic(const struct cd_host *h)
{
	for (size_t i = 0; i < h->n_nics; i++)
		if (socket_candidate(&h->nics[i]) && h->nics[i].default_route == CD_TRI_TRUE)
			return &h->nics[i];
	for (size_t i = 0; i < h->n_nics; i++)
		if (socket_candidate(&h->nics[i]))
			return &h->nics[i];
	return NULL;
}

/* Does a *_SOCKET_IFNAME-like value select a usable interface of h (NCCL's prefix rules)? */
static int selects_usable(const struct cd_host *h, const char *spec, int nccl_rules)
{
	char exact[256];

	snprintf(exact, sizeof(exact), "=%s", spec);
	for (size_t i = 0; i < h->n_nics; i++)
		if (socket_candidate(&h->nics[i]) &&
		    cd_nccl_ifname_match(nccl_rules ? spec : exact, h->nics[i].name))
			return 1;
	return 0;
}

/*
 * Is a socket setting needed on this host, and for which libraries? Only with evidence:
 * a failure a finding shows, a variable that is set and selects nothing usable, or NCCL's
 * own choice (its order when NCCL_SOCKET_IFNAME is unset) being an interface that cannot
 * carry traffic to another host while a usable one exists. A host with IPoIB and Ethernet,
 * both fine, needs nothing: NCCL's ib-first order works.
 */
int q_sock_need(struct cd_walk *w)
{
	const struct cd_nic *c = chosen_nic(w->h), *pick;
	static const struct { const char *var; unsigned lib; int nccl_rules; } vars[] = {
		{ "NCCL_SOCKET_IFNAME", LIB_NCCL, 1 }, { "GLOO_SOCKET_IFNAME", LIB_GLOO, 0 },
	};

	w->cause[0] = '\0';
	w->libs = libs_of_failures(w);
	if (!c)
		return w->libs != 0;
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = cd_host_env(w->h, vars[i].var);

		if (v && strlen(v) > 1 && !selects_usable(w->h, v, vars[i].nccl_rules))
			add_cause(w, vars[i].lib, "%s=%s selects no interface that is up, addressed and not virtual",
				  vars[i].var, v);
	}
	if (!cd_host_env(w->h, "NCCL_SOCKET_IFNAME") || strlen(cd_host_env(w->h, "NCCL_SOCKET_IFNAME")) <= 1) {
		/*
		 * The bootstrap takes NCCL's first interface; without RDMA (or with NCCL_IB_DISABLE=1)
		 * the socket transport takes every interface of the same step, up to 16.
		 */
		const struct cd_nic *list[16];
		const char *ibd = cd_host_env(w->h, "NCCL_IB_DISABLE");
		int sockets = !cd_host_rdma_active(w->h) || (ibd && !strcmp(ibd, "1"));
		size_t n = cd_nccl_socket_ifaces(w->h, NULL, list, sockets ? ARRAY_SIZE(list) : 1);

		for (size_t i = 0; i < n; i++) {
			pick = list[i];
			if (socket_candidate(pick))
				continue;
			add_cause(w, LIB_NCCL, "unset, NCCL%s %s (ib* first, then all but docker*, lo and virbr*, in "
				  "interface order), which is %s", i ? "'s socket transport also uses" : " picks", pick->name,
				  !cd_nic_is_up(pick) ? "down"
				  : virtual_nic(pick) ? "a host-local virtual interface"
				  : pick->master ? "a port of a bond or bridge"
						 : "without an address other hosts can reach");
		}
	}
	return w->libs != 0;
}

int q_sock_usable(struct cd_walk *w)
{
	return chosen_nic(w->h) != NULL;
}

void l_iface_host(struct cd_walk *w)
{
	const struct cd_nic *c = chosen_nic(w->h);
	char why[1400], skipped[256];
	size_t used = 0;

	skipped[0] = '\0';
	for (size_t i = 0; i < w->h->n_nics && used < sizeof(skipped); i++) {
		const struct cd_nic *n = &w->h->nics[i];

		if (n != c && n->kind != CD_NIC_LOOPBACK && cd_nic_is_up(n) && (n->ipv4.n || n->ipv6.n))
			used += (size_t)snprintf(skipped + used, sizeof(skipped) - used, "%s%s (%s)", used ? ", " : "",
						 n->name, virtual_nic(n) ? cd_nic_kind_str(n->kind) : "not the routed one");
	}
	snprintf(why, sizeof(why), "%s%s%s is %s%s%s%s", w->cause, *w->cause ? "; " : "", c->name,
		 c->default_route == CD_TRI_TRUE ? "the default-route interface" : "the first physical interface with an address",
		 c->ipv4.n ? " (" : "", c->ipv4.n ? c->ipv4.v[0] : "", c->ipv4.n ? ")" : "");
	if (*skipped)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; not %s", skipped);
	{
		struct hostset hs = { w->h, 1, scope_host(w), w->libs };
		struct cd_strv per = { 0 };

		cd_strv_push(&per, c->name);
		socket_advice(w, &hs, &per, why);
		cd_strv_free(&per);
	}
}

void l_noiface(struct cd_walk *w)
{
	const char *set = env_any_host(w->r, "NCCL_SOCKET_IFNAME");
	const struct cd_finding *f = finding(w, "LOG003");

	if (set) {
		walk_emit(w, "NCCL_SOCKET_IFNAME", NULL, scope_host(w), "NCCL_SOCKET_IFNAME=%s selects no usable interface "
		     "here%s; unset, NCCL picks one itself (or name one that exists: commdiag check lists them)", set,
		     f ? " and the bootstrap failed" : "");
		return;
	}
	if (w->h->n_nics || !f) {
		walk_emit(w, NULL, "bring up an interface with an address that reaches the other hosts (ip link set <dev> up; "
			 "ip addr add …)", scope_host(w), "no usable interface: every interface is down, loopback, "
			 "virtual or without an address");
		return;
	}
	/* a log without the interface list: name the check that finds the routed interface */
	walk_emit(w, NULL, "run 'commdiag check' on each host and export the NCCL_SOCKET_IFNAME it recommends (the "
		 "interface that routes to the other hosts); check firewalls between them", scope_host(w),
	     "ranks could not connect%s%s, and the log does not list the interfaces NCCL chose",
	     f->subject ? " to " : "", f->subject ? f->subject : "");
}

/* An MPI/socket connection failed to a known address, and no good interface is known. */
int q_sock_badaddr(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG010");

	return f && f->subject && strchr(f->subject, '.');
}

void l_ompi_exclude(struct cd_walk *w)
{
	struct cd_strv addrs = { 0 };
	char val[256];

	cd_strv_push(&addrs, "127.0.0.1/8");
	for (size_t i = 0; i < w->r->n_findings; i++) {
		const struct cd_finding *f = &w->r->findings[i];
		char a[64];

		if (strcmp(f->id, "LOG010") || !on_host(f, w->h) || !f->subject)
			continue;
		snprintf(a, sizeof(a), "%s/32", f->subject);
		if (strchr(f->subject, '.') && !strchr(f->subject, '/'))
			push_unique(&addrs, a);
	}
	join(&addrs, val, sizeof(val), "");
	/* excluding the address that failed stops every rank from advertising it */
	walk_emit(w, "OMPI_MCA_btl_tcp_if_exclude", val, NULL, "peers advertised %s, which the others cannot reach; "
	     "excluding it (loopback stays excluded, as by default) leaves the routed interface",
	     addrs.n > 1 ? addrs.v[1] : "an address");
	cd_strv_free(&addrs);
	if (env_any_host(w->r, "OMPI_MCA_btl_tcp_if_include"))
		walk_emit(w, "OMPI_MCA_btl_tcp_if_include", NULL, NULL, "Open MPI refuses if_include and if_exclude together");
}

/* ---- RDMA ---- */

/* RDMA devices discovered, or a log whose RDMA lines failed (no HCA list needed). */
int q_rdma(struct cd_walk *w)
{
	return w->h->n_hcas > 0 || has(w, "LOG008") || has(w, "LOG011");
}

static int any_active(const struct cd_host *h)
{
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t k = 0; k < h->hcas[i].n_ports; k++)
			if (port_active(&h->hcas[i].ports[k]))
				return 1;
	return 0;
}

int q_ib_disabled(struct cd_walk *w)
{
	const char *v = cd_host_env(w->h, "NCCL_IB_DISABLE");

	return v && strtol(v, NULL, 10) == 1 && any_active(w->h);
}

void l_ib_enable(struct cd_walk *w)
{
	walk_emit(w, "NCCL_IB_DISABLE", NULL, scope_host(w), "RDMA ports are active on %s but NCCL_IB_DISABLE=1 "
	     "sends all traffic through TCP sockets", w->h->hostname ? w->h->hostname : "this host");
}

int q_ib_down(struct cd_walk *w)
{
	int down = 0;

	/* a port down that the site's settings leave out of every library is not this branch's */
	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++)
			down |= !port_active(&w->h->hcas[i].ports[k]) &&
				cd_rdma_port_selected(w->h, w->h->hcas[i].name, &w->h->hcas[i].ports[k]);
	if (down)
		has(w, "IB001");
	return down;
}

/*
 * The libraries that would carry data over port p once the tree's advice is applied: as
 * configured (cd_rdma_port_users), with NCCL counted despite NCCL_IB_DISABLE=1, which the
 * tree advises away on a host with an active port (q_ib_disabled) before it gets here.
 */
static unsigned port_takers(const struct cd_host *h, const char *hca, const struct cd_ib_port *p)
{
	unsigned users = cd_rdma_port_users(h, hca, p);

	if (port_active(p) && cd_nccl_ib_takes(h, hca, p, 1))
		users |= CD_LIB_NCCL;
	return users;
}

/*
 * An active port of the link layer the host's rails do not have: RoCE storage ports beside
 * InfiniBand rails (DGX A100), an Ethernet VF beside them (Azure). NCCL takes both kinds
 * and, fusing ports of two link layers, stops with "Attempted to merge incompatible devices
 * ... Try selecting NICs of only one link type using NCCL_IB_HCA" (src/transport/net_ib/init.cc).
 */
static int other_layer(const struct cd_host *h, const struct cd_ib_port *p)
{
	return port_active(p) && p->link_layer && strcmp(p->link_layer, cd_rdma_rail_layer(h)) &&
	       (!strcmp(p->link_layer, "infiniband") || !strcmp(p->link_layer, "ethernet"));
}

/*
 * Does a library use an active port slower than the host's fastest? NCCL takes every active
 * port NCCL_IB_HCA selects, UCX every one UCX_NET_DEVICES and UCX_TLS leave it
 * (cd_rdma_port_users): a slow port the site's settings already leave out needs nothing.
 */
int q_ib_rates(struct cd_walk *w)
{
	double slowest_used = INFINITY, hi = 0;
	int mixed = 0;

	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++) {
			const struct cd_ib_port *p = &w->h->hcas[i].ports[k];
			unsigned takers = port_takers(w->h, w->h->hcas[i].name, p);

			mixed |= (takers & CD_LIB_NCCL) && other_layer(w->h, p);
			if (port_active(p) && isfinite(p->rate_gbit_s)) {
				hi = fmax(hi, p->rate_gbit_s);
				if (takers)
					slowest_used = fmin(slowest_used, p->rate_gbit_s);
			}
		}
	return mixed || (hi > 0 && slowest_used < hi);
}

/* Best (lowest) path class from an HCA to any GPU: 0 PIX … 4 SYS; 9 unknown. */
static int hca_distance(const struct cd_host *h, const char *hca)
{
	static const char *const cls[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };
	const struct cd_paths *p = &h->paths;
	int best = 9;

	for (size_t c = 0; p->gpu_net && c < p->nets.n; c++) {
		if (!str_eq(p->nets.v[c], hca))
			continue;
		for (size_t g = 0; g < p->gpus.n; g++) {
			const char *k = p->gpu_net[g * p->nets.n + c];

			for (int i = 0; k && i < 5; i++)
				if (!strcmp(k, cls[i]) && i < best)
					best = i;
		}
	}
	return best;
}

int q_ib_far(struct cd_walk *w)
{
	int near = 0, far = 0;

	for (size_t i = 0; i < w->h->n_hcas; i++) {
		int d = hca_distance(w->h, w->h->hcas[i].name);
		unsigned users = 0;

		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++)
			users |= port_takers(w->h, w->h->hcas[i].name, &w->h->hcas[i].ports[k]);
		near |= d <= 2;
		far |= d == 4 && users; /* a far HCA no library uses is already left out */
	}
	return near && far;
}

void l_ib_hca(struct cd_walk *w)
{
	struct cd_strv in = { 0 }, out = { 0 };
	double best = 0;
	char val[256], why[512];
	size_t used = 0;
	int only_unused = 1; /* every port left out is down or not active: nothing to choose between */
	unsigned takers = 0; /* the libraries that would use an active port to be left out */
	const char *nccl = cd_host_env(w->h, "NCCL_IB_HCA"), *ucx = cd_host_env(w->h, "UCX_NET_DEVICES");
	const char *ratio = cd_host_env(w->h, "UCX_MULTI_LANE_MAX_RATIO");
	double ucx_ratio = ratio && atof(ratio) >= 1 ? atof(ratio) : 4;

	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++)
			if (port_active(&w->h->hcas[i].ports[k]) && isfinite(w->h->hcas[i].ports[k].rate_gbit_s))
				best = fmax(best, w->h->hcas[i].ports[k].rate_gbit_s);
	/* GPU-near first: NCCL takes the list order as a preference */
	why[0] = '\0';
	for (int d = 0; d <= 9; d++)
		for (size_t i = 0; i < w->h->n_hcas; i++) {
			const struct cd_hca *c = &w->h->hcas[i];

			if (hca_distance(w->h, c->name) != d)
				continue;
			for (size_t k = 0; k < c->n_ports; k++) {
				const struct cd_ib_port *p = &c->ports[k];
				char *s = xasprintf("%s:%" PRId64, c->name, p->port);
				const char *bad = !port_active(p) ? p->state ? p->state : "not active"
						  : isfinite(p->rate_gbit_s) && p->rate_gbit_s < best ? "slower"
						  : other_layer(w->h, p) ? "of the other link layer than the rails"
						  : d == 4 && w->h->paths.gpus.n ? "SYS from every GPU"
										 : NULL;

				if (bad) {
					unsigned users = port_takers(w->h, c->name, p);

					/*
					 * UCX drops a lane slower than the fastest over UCX_MULTI_LANE_MAX_RATIO
					 * (default 4: src/ucp/wireup/select.c): a 40 Gb/s port beside 400 Gb/s
					 * ones is never picked, and needs no setting.
					 */
					if (p->rate_gbit_s * ucx_ratio < best)
						users &= ~(unsigned)CD_LIB_UCX;
					only_unused &= !port_active(p);
					takers |= users;
					cd_strv_push(&out, s);
					used += (size_t)snprintf(why + used, used < sizeof(why) ? sizeof(why) - used : 0,
								 "%s%s %s", used ? ", " : "", s, bad);
					if (p->rate_gbit_s < best && port_active(p))
						snprintf(why + strlen(why), sizeof(why) - strlen(why), " (%.0f < %.0f Gb/s)",
							 p->rate_gbit_s, best);
				} else {
					cd_strv_push(&in, s);
				}
				free(s);
			}
		}
	if (!in.n) {
		walk_emit(w, NULL, "bring an RDMA port up: check the cable and the subnet manager (ibstat; "
			 "systemctl status opensm)", scope_host(w), "no active port: %s", why);
	} else if (only_unused) {
		/*
		 * NCCL (ncclIbInitDevices) and UCX use active ports only: a port that is down needs
		 * no setting, it needs the link fixed, and the node runs a rail short until then.
		 */
		char cmd[512];

		join(&out, val, sizeof(val), "");
		snprintf(cmd, sizeof(cmd), "bring %s up: check its cable or transceiver and the switch port (ibstat; "
			 "ibportstate; the subnet manager's log)", val);
		walk_emit(w, NULL, cmd, scope_host(w), "%s; NCCL and UCX already leave out ports that are not active, so "
			  "no setting is needed, but the host is a rail short", why);
	} else {
		/* some active port must be left out (slower, or far from every GPU): name the others */
		struct cd_strv *named = &in;
		int exact = 0;

		/* NCCL_IB_HCA matches prefixes: mlx5_1 would also take mlx5_10 */
		for (size_t i = 0; i < w->h->n_hcas; i++)
			for (size_t k = 0; k < named->n; k++) {
				size_t l = strcspn(named->v[k], ":");

				if (!strncmp(w->h->hcas[i].name, named->v[k], l) && strlen(w->h->hcas[i].name) != l)
					exact = 1;
			}
		/* a library whose settings already leave every such port out gets nothing */
		join(named, val, sizeof(val), exact ? "=" : "");
		if (takers & CD_LIB_NCCL)
			walk_emit(w, "NCCL_IB_HCA", val, scope_host(w), "%s%s%s: use %s; leave out %s",
				  nccl ? "NCCL_IB_HCA=" : "NCCL uses every active port", nccl ? nccl : "",
				  nccl ? " takes them" : "", val, why);
		/*
		 * UCX skips ports that are not active by itself, but uses every active one: a slower
		 * or far port it must be told to leave, by naming the others (device:port, exact).
		 */
		join(&in, val, sizeof(val), "");
		if (takers & CD_LIB_UCX)
			walk_emit(w, "UCX_NET_DEVICES", val, scope_host(w), "%s%s%s: use %s; leave out %s",
				  ucx ? "UCX_NET_DEVICES=" : "UCX uses every active port", ucx ? ucx : "",
				  ucx ? " takes them" : "", val, why);
	}
	cd_strv_free(&in);
	cd_strv_free(&out);
}

int q_roce(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++)
			if (str_eq(w->h->hcas[i].ports[k].link_layer, "ethernet") && port_active(&w->h->hcas[i].ports[k])) {
				const struct cd_finding *f = finding(w, "LOG007");

				if (f)
					note(w, "LOG007");
				return 1;
			}
	return 0;
}

int q_nccl_old(struct cd_walk *w)
{
	long v = cd_version_num(w->h->versions.nccl);

	return v < 0 || v < 22100;
}

/* NCCL_IB_GID_INDEX names the RoCE v2 IPv4 GID of every active RoCE port whose table was read. */
static int gid_env_right(const struct cd_host *h)
{
	const char *v = cd_host_env(h, "NCCL_IB_GID_INDEX");
	char *end;
	long idx = v ? strtol(v, &end, 10) : -1;
	int seen = 0;

	if (!v || !*v || *end)
		return 0;
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t k = 0; k < h->hcas[i].n_ports; k++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[k];

			if (!str_eq(p->link_layer, "ethernet") || !port_active(p))
				continue;
			if (p->roce_v2_gid_index == CD_NULL_I64 || p->roce_v2_gid_index != idx)
				return 0;
			seen = 1;
		}
	return seen;
}

/*
 * NCCL 2.21 and later pick the RoCE v2 GID themselves; a set index that names it on every
 * port changes nothing and needs no advice. One that does not (or that cannot be checked
 * because no GID table was read) is unset.
 */
int q_gid_set(struct cd_walk *w)
{
	return cd_host_env(w->h, "NCCL_IB_GID_INDEX") != NULL && !gid_env_right(w->h);
}

void l_gid_set(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++) {
			const struct cd_ib_port *p = &w->h->hcas[i].ports[k];
			char val[24];

			if (!str_eq(p->link_layer, "ethernet") || !port_active(p))
				continue;
			if (p->roce_v2_gid_index != CD_NULL_I64) {
				snprintf(val, sizeof(val), "%" PRId64, p->roce_v2_gid_index);
				if (gid_env_right(w->h))
					return; /* already set to it: nothing to change */
				walk_emit(w, "NCCL_IB_GID_INDEX", val, scope_host(w), "GID %s of %s port %" PRId64
				     " is RoCE v2 with an IPv4 address; NCCL %s picks GID 0 (RoCE v1) unless told",
				     val, w->h->hcas[i].name, p->port, w->h->versions.nccl ? w->h->versions.nccl : "(version unknown)");
			} else {
				char *cmd = xasprintf("show_gids %s (or commdiag check on that host): export NCCL_IB_GID_INDEX "
						      "set to the index of the RoCE v2 GID with an IPv4 address", w->h->hcas[i].name);

				walk_emit(w, NULL, cmd, scope_host(w), "RoCE port %s:%" PRId64 " with NCCL %s, which uses GID 0 "
				     "(RoCE v1) unless NCCL_IB_GID_INDEX names the RoCE v2 one%s", w->h->hcas[i].name, p->port,
				     w->h->versions.nccl ? w->h->versions.nccl : "(version unknown)",
				     finding(w, "LOG007") ? "; completions timed out (status 12), as with a wrong GID" : "");
				free(cmd);
			}
			return;
		}
}

void l_gid_unset(struct cd_walk *w)
{
	walk_emit(w, "NCCL_IB_GID_INDEX", NULL, scope_host(w), "NCCL %s selects the RoCE v2 GID itself (since 2.21); "
	     "a fixed index breaks when the GID table changes", w->h->versions.nccl);
}

int q_memlock(struct cd_walk *w)
{
	int low = w->h->n_hcas && w->h->system.memlock_unlimited == CD_TRI_FALSE;

	return has(w, "SYS002") | has(w, "LOG008") | low;
}

static int in_container(const struct cd_host *h)
{
	return h->system.container && strcmp(h->system.container, "none");
}

void l_memlock(struct cd_walk *w)
{
	char have[32] = "n/a";

	if (w->h->system.memlock_bytes != CD_NULL_I64)
		cd_fmt_bytes(have, sizeof(have), w->h->system.memlock_bytes);
	if (in_container(w->h))
		walk_emit(w, NULL, "restart the container with --ulimit memlock=-1:-1 (Kubernetes: raise the container "
			 "runtime's default memlock limit)", scope_host(w), "RDMA registers memory with the locked-memory "
			 "limit, %s in this %s container", have, w->h->system.container);
	walk_emit(w, NULL, "add '* soft memlock unlimited' and '* hard memlock unlimited' to /etc/security/limits.conf "
		 "(and LimitMEMLOCK=infinity for slurmd or the service that starts jobs), then log in again",
	     scope_host(w), "the locked-memory limit is %s; ibv_reg_mr needs it unlimited", have);
	walk_emit(w, NULL, "ulimit -l unlimited   # in the job script, when the hard limit allows", scope_host(w),
	     "the limit for this shell; limits.conf makes it stick");
}

int q_peermem(struct cd_walk *w)
{
	int missing = w->h->n_gpus && w->h->n_hcas && w->h->system.peermem == CD_TRI_FALSE;

	return has(w, "LOG011") | missing;
}

void l_peermem(struct cd_walk *w)
{
	long v = cd_version_num(w->h->versions.nccl);

	walk_emit(w, NULL, "modprobe nvidia-peermem && echo nvidia-peermem > /etc/modules-load.d/nvidia-peermem.conf",
	     scope_host(w), "GPUDirect RDMA needs the nvidia-peermem module: without it NICs read GPU memory "
	     "through host bounce buffers%s", v >= 0 && v < 22304 ? "; NCCL before 2.23.4 looks only for the "
	     "older nv_peer_mem name, so also upgrade NCCL (or use a DMA-BUF capable driver and kernel)" : "");
}

int q_devib(struct cd_walk *w)
{
	return in_container(w->h) && w->h->system.dev_infiniband == CD_TRI_FALSE && w->h->n_hcas > 0;
}

void l_devib(struct cd_walk *w)
{
	walk_emit(w, NULL, "start the container with --device=/dev/infiniband --cap-add=IPC_LOCK (Kubernetes: an RDMA "
		 "device plugin resource)", scope_host(w), "%zu RDMA device%s on the host, but /dev/infiniband is "
	     "not in this %s container: verbs cannot open them", w->h->n_hcas, w->h->n_hcas == 1 ? "" : "s",
	     w->h->system.container);
}

/* ---- GPU visibility ---- */

/* GPU004 with no GPU for CUDA at all, and CUDA_VISIBLE_DEVICES set: the variable hides them. */
int q_gpu_hidden(struct cd_walk *w)
{
	return !w->h->n_gpus && cd_host_env(w->h, "CUDA_VISIBLE_DEVICES") && has(w, "GPU004");
}

void l_gpu_hidden(struct cd_walk *w)
{
	const char *v = cd_host_env(w->h, "CUDA_VISIBLE_DEVICES");

	walk_emit(w, "CUDA_VISIBLE_DEVICES", NULL, scope_host(w), "CUDA_VISIBLE_DEVICES='%s' is set and CUDA found no "
		  "GPU, while NVIDIA GPUs are on the PCI bus: CUDA shows only the devices it names (%s); under a "
		  "scheduler, request the GPUs (Slurm --gres=gpu:N or --gpus-per-node) rather than set it by hand", v,
		  *v ? "indices or UUIDs that exist here" : "an empty value hides every one");
}

/* ---- GPU peer-to-peer ---- */

int q_gpus2(struct cd_walk *w)
{
	return w->h->n_gpus >= 2 || has(w, "LOG005") || has(w, "P2P002");
}

/* NCCL's P2P is off between NVLink-connected GPUs (P2P003) and the environment turned it off. */
int q_p2p_env_off(struct cd_walk *w)
{
	const char *v = cd_host_env(w->h, "NCCL_P2P_DISABLE");

	return v && strcmp(v, "0") && has(w, "P2P003");
}

void l_p2p_enable(struct cd_walk *w)
{
	walk_emit(w, "NCCL_P2P_DISABLE", NULL, scope_host(w), "NCCL_P2P_DISABLE=%s turns peer-to-peer off between GPUs "
		  "that NVLink connects: every intra-node transfer then goes through host memory",
		  cd_host_env(w->h, "NCCL_P2P_DISABLE"));
}

int q_acs(struct cd_walk *w)
{
	/* a slow pair (P2P002) is evidence for ACS only where a bridge redirects: alone it is not ACS */
	for (size_t i = 0; i < w->h->n_acs; i++)
		if (w->h->acs[i].redirect == CD_TRI_TRUE)
			return has(w, "P2P002"), 1;
	return 0;
}

void l_acs(struct cd_walk *w)
{
	char buses[256];
	size_t used = 0;

	buses[0] = '\0';
	for (size_t i = 0; i < w->h->n_acs; i++) {
		const struct cd_acs *a = &w->h->acs[i];
		char *cmd;

		if (a->redirect != CD_TRI_TRUE || !a->bus_id)
			continue;
		cmd = xasprintf("setpci -s %s ECAP_ACS+6.w=0000", a->bus_id);
		walk_emit(w, NULL, cmd, scope_host(w), "ACS redirect on bridge %s (control 0x%04" PRIx64 ") sends GPU "
		     "peer traffic up to the root complex, where P2P stalls or hangs; as root, until reboot",
		     a->bus_id, a->ctrl == CD_NULL_I64 ? 0 : (uint64_t)a->ctrl);
		used += (size_t)snprintf(buses + used, used < sizeof(buses) ? sizeof(buses) - used : 0, "%s%s",
					 used ? ", " : "", a->bus_id);
		free(cmd);
	}
	walk_emit(w, NULL, "disable ACS in the BIOS (or boot with pci=noacs on bare metal) so it stays off after reboot",
	     scope_host(w), "the setpci change is lost on reboot%s%s", *buses ? "; bridges: " : "", buses);
	walk_emit(w, "NCCL_P2P_DISABLE", "1", scope_host(w), "workaround until ACS is off%s%s: NCCL uses shared memory "
	     "instead of P2P (slower, but no hang)", *buses ? " on " : "", buses);
}

/* On, or unknown while a log shows P2P failing (the IOMMU is the usual cause). */
int q_iommu(struct cd_walk *w)
{
	if (!w->h->system.iommu && finding(w, "LOG005"))
		return 1;
	return w->h->n_gpus >= 2 && str_eq(w->h->system.iommu, "on");
}

void l_iommu(struct cd_walk *w)
{
	walk_emit(w, NULL, "boot with iommu=pt (intel_iommu=on iommu=pt, or amd_iommu=on iommu=pt) so GPU DMA is not "
		 "translated; or disable VT-d/AMD-Vi in the BIOS on bare metal", scope_host(w),
	     "%s%s%s: GPU peer-to-peer through a translating IOMMU fails or hangs",
	     w->h->system.iommu ? "the IOMMU translates DMA (" : "peer access failed and the IOMMU state is not known "
	     "(check dmesg | grep -i -e DMAR -e IOMMU", w->h->system.iommu_evidence ? w->h->system.iommu_evidence : "",
	     ")");
	walk_emit(w, "NCCL_P2P_DISABLE", "1", scope_host(w), "workaround until the IOMMU is in passthrough");
}

int q_p2p_broken(struct cd_walk *w)
{
	const struct cd_paths *p = &w->h->paths;
	size_t n = p->gpus.n;

	for (size_t i = 0; p->cuda_p2p && i < n * n; i++)
		if (i / n != i % n && p->cuda_p2p[i] == CD_TRI_FALSE && p->gpu_gpu && p->gpu_gpu[i] &&
		    strcmp(p->gpu_gpu[i], "SYS"))
			return 1;
	return has(w, "LOG005");
}

void l_p2p_disable(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG005");

	if (cd_host_env(w->h, "NCCL_P2P_DISABLE") && !strcmp(cd_host_env(w->h, "NCCL_P2P_DISABLE"), "1"))
		return;
	walk_emit(w, "NCCL_P2P_DISABLE", "1", scope_host(w), "%s; NCCL falls back to shared memory. The real fix is "
	     "ACS off on the PCIe bridges and iommu=pt (see the ACS and IOMMU questions)",
	     f && f->evidence.n ? f->evidence.v[0] : "the driver reports P2P unsupported between GPUs the topology "
	     "says are close");
}

int q_cumem(struct cd_walk *w)
{
	return has(w, "LOG013");
}

void l_cumem(struct cd_walk *w)
{
	walk_emit(w, "NCCL_CUMEM_HOST_ENABLE", "0", scope_host(w), "P2P failed on cuMem host allocations; NCCL then "
	     "uses the older host allocation path");
}

/* ---- shared memory ---- */

int q_shm(struct cd_walk *w)
{
	int small = in_container(w->h) && w->h->system.shm_bytes != CD_NULL_I64 && w->h->system.shm_bytes < (1LL << 30);

	return has(w, "SYS001") | has(w, "LOG004") | small;
}

void l_shm(struct cd_walk *w)
{
	char have[32] = "too small", want[32], *cmd;
	int64_t gpus = (int64_t)w->h->n_gpus;
	const char *engine = in_container(w->h) ? w->h->system.container : NULL;

	if (w->h->system.shm_bytes != CD_NULL_I64)
		cd_fmt_bytes(have, sizeof(have), w->h->system.shm_bytes);
	/* NCCL maps a few buffers per peer pair in /dev/shm: 1 GiB per GPU leaves room for the framework too */
	cd_fmt_bytes(want, sizeof(want), (gpus ? gpus : 1) << 30);
	if (engine && !strcmp(engine, "kubernetes"))
		cmd = gpus ? xasprintf("mount an emptyDir volume with medium: Memory and sizeLimit: %" PRId64 "Gi at /dev/shm", gpus)
			   : xstrdup("mount an emptyDir volume with medium: Memory at /dev/shm (1Gi per GPU)");
	else
		cmd = gpus ? xasprintf("restart the container with --ipc=host, or --shm-size=%" PRId64 "g", gpus)
			   : xstrdup("restart the container with --ipc=host, or --shm-size of 1g per GPU");
	walk_emit(w, NULL, cmd, scope_host(w), "/dev/shm is %s %s and NCCL's shared-memory transport allocates its buffers "
	     "there%s%s%s; slower fallback: export NCCL_SHM_DISABLE=1", have,
	     engine ? "in this container" : "(containers default to 64 MiB)", gpus ? " (" : "", gpus ? want : "",
	     gpus ? " for these GPUs)" : "");
	free(cmd);
}

/* ---- NVSwitch, fabric manager, NVLS ---- */

static int nvswitch_gpus(const struct cd_host *h)
{
	for (size_t i = 0; i < h->n_gpus; i++)
		for (size_t k = 0; k < h->gpus[i].n_nvlinks; k++)
			if (str_eq(h->gpus[i].nvlinks[k].remote_kind, "nvswitch"))
				return 1;
	return 0;
}

int q_nvswitch(struct cd_walk *w)
{
	return nvswitch_gpus(w->h) | has(w, "LOG012") | has(w, "LOG014");
}

int q_fm_down(struct cd_walk *w)
{
	const char *fm = w->h->system.fabric_manager;
	int down = fm && strcmp(fm, "running") && strcmp(fm, "active");

	/* (GPU002 is GPUs of different models, not the fabric manager: it was read as such once) */
	return has(w, "LOG012") | down;
}

void l_fm(struct cd_walk *w)
{
	char *cmd = w->h->versions.driver
			    ? xasprintf("systemctl enable --now nvidia-fabricmanager   (package version %s, the driver's)",
					w->h->versions.driver)
			    : xstrdup("systemctl enable --now nvidia-fabricmanager   (the same version as the driver)");

	walk_emit(w, NULL, cmd, scope_host(w), "GPUs behind NVSwitches stay uninitialised (CUDA error 802, system not yet "
	     "initialized) until the fabric manager runs%s%s", w->h->system.fabric_manager ? "; it is " : "",
	     w->h->system.fabric_manager ? w->h->system.fabric_manager : "");
	free(cmd);
}

int q_nvls(struct cd_walk *w)
{
	return has(w, "LOG014");
}

void l_nvls(struct cd_walk *w)
{
	walk_emit(w, "NCCL_NVLS_ENABLE", "0", scope_host(w), "NVLS (NVLink SHARP) setup failed; without it NCCL uses "
	     "rings and trees over NVLink. Fix: restart the fabric manager with no GPU process running, or reboot");
}

/* ---- PCIe ---- */

int q_pcie(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_gpus; i++) {
		const struct cd_gpu *g = &w->h->gpus[i];

		/* width is fixed at training; a lower generation at idle is power saving, so only PCIE001 says so */
		if (g->pcie_width != CD_NULL_I64 && g->pcie_max_width != CD_NULL_I64 && g->pcie_width < g->pcie_max_width)
			return 1;
	}
	return has(w, "PCIE001");
}

void l_pcie(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_gpus; i++) {
		const struct cd_gpu *g = &w->h->gpus[i];
		char *cmd;

		if (g->pcie_width == CD_NULL_I64 || g->pcie_max_width == CD_NULL_I64 || g->pcie_width >= g->pcie_max_width)
			continue;
		cmd = xasprintf("reseat GPU %" PRId64 " (%s) or move it to another slot; check the riser and the BIOS "
				"slot settings", g->index, g->bus_id ? g->bus_id : "?");
		walk_emit(w, NULL, cmd, scope_host(w), "link x%" PRId64 " gen %" PRId64 " measured, x%" PRId64 " gen %" PRId64
		     " expected: %.1f GB/s per direction instead of about %.1f", g->pcie_width, g->pcie_gen,
		     g->pcie_max_width, g->pcie_max_gen, g->pcie_link_gbyte_s,
		     isfinite(g->pcie_link_gbyte_s) ? g->pcie_link_gbyte_s * (double)g->pcie_max_width / (double)g->pcie_width
						     : NAN);
		free(cmd);
	}
	for (size_t i = 0; i < w->r->n_findings; i++) {
		const struct cd_finding *f = &w->r->findings[i];
		char *cmd;

		if (strcmp(f->id, "PCIE001") || !on_host(f, w->h))
			continue;
		cmd = xasprintf("reseat %s or move it to another slot; check the riser and the BIOS slot settings",
				f->subject ? f->subject : "the GPU");
		walk_emit(w, NULL, cmd, scope_host(w), "%s: measured %.1f, expected %.1f %s", f->title, f->measured,
		     f->expected, f->unit ? f->unit : "");
		free(cmd);
	}
}

/* ---- container networking ---- */

/*
 * A container on a bridge network (Docker's default, a CNI bridge) sees only the veth end
 * of its bridge: its address routes to nothing outside the host, and NCCL and Open MPI see
 * none of the host's NICs. Fine on one host; across hosts (or when sockets failed) the job
 * needs the host's network. The veth interfaces, up and addressed, into names (NULL: not such).
 */
static int bridge_only(const struct cd_host *h, struct cd_strv *names)
{
	int veth = 0, other = 0;

	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *n = &h->nics[i];

		if (!n->name || n->kind == CD_NIC_LOOPBACK || !cd_nic_is_up(n) || !cd_nic_has_address(n))
			continue;
		if (n->kind == CD_NIC_VETH) {
			veth++;
			if (names) {
				char *item = n->ipv4.n ? xasprintf("%s %s", n->name, n->ipv4.v[0]) : xstrdup(n->name);

				cd_strv_push(names, item); /* pushes a copy */
				free(item);
			}
		} else {
			other++;
		}
	}
	return veth && !other;
}

int q_container_net(struct cd_walk *w)
{
	if (!in_container(w->h) || !bridge_only(w->h, NULL))
		return 0;
	return w->r->n_hosts > 1 || has(w, "LOG003") || has(w, "TCP001") || has(w, "NET001");
}

void l_net_host(struct cd_walk *w)
{
	struct cd_strv names = { 0 };
	char list[256] = "";

	bridge_only(w->h, &names);
	for (size_t i = 0; i < names.n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", names.v[i]);
	walk_emit(w, NULL, "restart the container with --network=host (Kubernetes: hostNetwork: true, or a macvlan or SR-IOV "
		 "network for the job's NICs)", scope_host(w),
	     "this %s container's only interfaces are veth ends of a bridge (%s): their addresses do not reach the "
	     "other hosts' containers, and NCCL and Open MPI see none of the host's NICs or HCAs",
	     w->h->system.container, list);
	cd_strv_free(&names);
}
