/* SPDX-License-Identifier: BSD-3-Clause */
/* The decision tree's job-wide topics: host identity, versions, the socket interface and
 * reachability, timeouts and stragglers, rails, environment settings, unexplained logs. */
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
#include "explain.h"
#include "libdefaults.h"

/* ---- identity: hostnames and host ids ---- */

int q_multi(struct cd_walk *w)
{
	return w->r->n_hosts > 1;
}

struct ident {
	const char *s;
	size_t host;
};

static int cmp_ident(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : x->host < y->host ? -1 : x->host > y->host;
}

/*
 * Which hosts share a hostname or a host id with another (shared[i]); how many do. Sorted,
 * not all pairs: a job may have 100k hosts. shared may be NULL.
 */
static size_t dup_identity_hosts(const struct cd_results *r, unsigned char *shared)
{
	struct ident *v = xcalloc(r->n_hosts + 1, sizeof(*v));
	size_t count = 0;

	for (int by_id = 0; by_id < 2; by_id++) {
		size_t n = 0;

		for (size_t i = 0; i < r->n_hosts; i++)
			if ((v[n].s = by_id ? r->hosts[i].host_id : r->hosts[i].hostname))
				v[n++].host = i;
		if (n > 1)
			qsort(v, n, sizeof(*v), cmp_ident);
		for (size_t i = 1; i < n; i++)
			if (!strcmp(v[i - 1].s, v[i].s)) {
				if (!shared) {
					free(v);
					return 1;
				}
				count += !shared[v[i - 1].host] + !shared[v[i].host];
				shared[v[i - 1].host] = shared[v[i].host] = 1;
			}
	}
	free(v);
	return count;
}

static int dup_identity(const struct cd_results *r)
{
	return dup_identity_hosts(r, NULL) > 0;
}

int q_dup_host(struct cd_walk *w)
{
	has(w, "HOST001");
	return dup_identity(w->r) || finding(w, "HOST001");
}

void l_hostid(struct cd_walk *w)
{
	unsigned char *shared = xcalloc(w->r->n_hosts + 1, 1);

	/* only the hosts that share a name or an id need one; in a log's bucket (no host
	 * facts to compare) every host gets one, as the finding names no pair */
	if (!dup_identity_hosts(w->r, shared))
		memset(shared, 1, w->r->n_hosts);
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		const struct cd_host *h = &w->r->hosts[i];
		const struct cd_nic *n = NULL;
		char *v;

		if (!shared[i])
			continue;

		for (size_t k = 0; k < h->n_nics && !n; k++)
			if (socket_candidate(&h->nics[k]) && h->nics[k].default_route == CD_TRI_TRUE)
				n = &h->nics[k];
		for (size_t k = 0; k < h->n_nics && !n; k++)
			if (socket_candidate(&h->nics[k]))
				n = &h->nics[k];
		/* a value unique to the host: its name plus its routed address */
		if (n && n->ipv4.n) {
			char *addr = xstrndup(n->ipv4.v[0], strcspn(n->ipv4.v[0], "/"));

			v = xasprintf("%s-%s", h->hostname ? h->hostname : "host", addr);
			free(addr);
		} else {
			v = xasprintf("%s-%zu", h->hostname ? h->hostname : "host", i);
		}
		walk_emit(w, "NCCL_HOSTID", v, h->hostname, "NCCL groups ranks by host id; %s shares its name or id "
			 "with another host, so NCCL would try shared memory and P2P across hosts", h->hostname);
		free(v);
	}
	free(shared);
	walk_emit(w, NULL, "give each container its own hostname (docker run --hostname, or Kubernetes pod hostnames) "
		 "and its own /etc/machine-id", NULL, "the real fix: NCCL_HOSTID only papers over identical identities");
}

/* Ranks that claimed one GPU: from LOG006 ("rank 1 and rank 0 both on CUDA device 1a000"). */
int q_dup_gpu(struct cd_walk *w)
{
	return has(w, "LOG006");
}

/* Hosts that share an identity make NCCL see one host: then the collision is theirs. */
int q_dup_gpu_hosts(struct cd_walk *w)
{
	return dup_identity(w->r) || has(w, "HOST001");
}

void l_set_device(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG006");

	walk_emit(w, NULL, "in each process, before init_process_group: torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"])) "
		 "(or one GPU per process through CUDA_VISIBLE_DEVICES)", NULL,
	     "%s (%s): two ranks opened the same GPU, so each process must select its own device; if those ranks "
	     "are on different machines, their containers share a hostname: give them distinct ones (or NCCL_HOSTID)",
	     f && f->subject ? f->subject : "Duplicate GPU detected", f && f->host ? f->host : "?");
}

/* ---- versions ---- */

static const char *ver_nccl(const struct cd_host *h) { return h->versions.nccl; }
static const char *ver_plugin(const struct cd_host *h) { return h->versions.nccl_net_plugin; }
static const char *ver_driver(const struct cd_host *h) { return h->versions.driver; }

static int str_differs(const struct cd_results *r, const char *(*get)(const struct cd_host *h))
{
	for (size_t i = 1; i < r->n_hosts; i++) {
		const char *a = get(&r->hosts[0]), *b = get(&r->hosts[i]);

		if (a && b && strcmp(a, b))
			return 1;
	}
	return 0;
}

static int versions_differ(const struct cd_results *r, char *what, size_t len)
{
	static const struct {
		const char *name;
		const char *(*get)(const struct cd_host *h);
	} str[] = { { "nccl", ver_nccl }, { "nccl net plugin", ver_plugin }, { "driver", ver_driver } };

	for (size_t k = 0; k < ARRAY_SIZE(str); k++)
		if (str_differs(r, str[k].get)) {
			snprintf(what, len, "%s", str[k].name);
			return 1;
		}
	for (size_t i = 1; i < r->n_hosts; i++) {
		const struct cd_versions *a = &r->hosts[0].versions, *b = &r->hosts[i].versions;

		if (a->cuda_driver != CD_NULL_I64 && b->cuda_driver != CD_NULL_I64 && a->cuda_driver != b->cuda_driver) {
			snprintf(what, len, "cuda");
			return 1;
		}
	}
	return 0;
}

int q_versions(struct cd_walk *w)
{
	char what[16];

	has(w, "HOST002");
	has(w, "LOG009");
	return versions_differ(w->r, what, sizeof(what)) || finding(w, "HOST002") || finding(w, "LOG009");
}

/*
 * The driver or CUDA differs: between the hosts' documents, by HOST002, or as the subject of a
 * LOG009 a log reader made. A LOG009 the cause catalogue made for another library's versions
 * (UCX's worker address, Ray, NVSHMEM) comes with that entry's own fix; "install the same
 * driver and CUDA" beside it would name versions nothing in the log shows ("driver n/a").
 */
static int driver_versions_differ(const struct cd_walk *w)
{
	char what[16];

	if (finding(w, "HOST002") || (versions_differ(w->r, what, sizeof(what)) && (!strcmp(what, "driver") || !strcmp(what, "cuda"))))
		return 1;
	for (size_t i = 0; i < w->r->n_findings; i++) {
		const struct cd_finding *f = &w->r->findings[i];

		if (!strcmp(f->id, "LOG009") && f->subject && (strcasestr(f->subject, "driver") || strcasestr(f->subject, "cuda")))
			return 1;
	}
	return 0;
}

void l_versions(struct cd_walk *w)
{
	char list[768];
	int plugin = str_differs(w->r, ver_plugin);
	size_t used = 0;
	const char *newest = NULL;

	list[0] = '\0';
	for (size_t i = 0; i < w->r->n_hosts && used < sizeof(list); i++) {
		const struct cd_host *h = &w->r->hosts[i];

		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s nccl %s driver %s", i ? "; " : "",
					 h->hostname ? h->hostname : "?", h->versions.nccl ? h->versions.nccl : "n/a",
					 h->versions.driver ? h->versions.driver : "n/a");
		if (h->versions.nccl_net_plugin && used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, " net plugin %s",
						 h->versions.nccl_net_plugin);
		if (h->versions.nccl && cd_version_num(h->versions.nccl) > cd_version_num(newest))
			newest = h->versions.nccl;
	}
	if (plugin)
		walk_emit(w, NULL, "install the same NCCL net plugin (the same libnccl-net.so, or NCCL_NET_PLUGIN=none "
			 "everywhere) on every host of the job", NULL, "hosts that load different net plugins pick "
		     "different transports and cannot connect: %s", list);
	if (newest && (!plugin || str_differs(w->r, ver_nccl))) {
		char *cmd = xasprintf("install NCCL %s (and one driver and CUDA version) on every host of the job", newest);

		walk_emit(w, NULL, cmd, NULL, "NCCL's wire protocol is only compatible with itself: %s", list);
		free(cmd);
	} else if (!plugin && driver_versions_differ(w)) {
		walk_emit(w, NULL, "install the same NVIDIA driver and CUDA version on every host of the job", NULL,
		     "versions differ between hosts: %s", list);
	}
}

/* ---- socket interface for the whole job, from the reachability probe ---- */

int q_reach(struct cd_walk *w)
{
	return w->r->n_hosts > 1 && w->r->n_reach > 0;
}

/*
 * Did every host that tried connect to this host's iface, and none fail? A job of thousands
 * of hosts tests a sample of peers (tcp.reach), so "every other host" is "every host that tried".
 */
static int reached_from_all(const struct cd_walk *w, const struct cd_host *h, const char *iface)
{
	int64_t tried, ok;

	cd_reach_into(w->reach, h->hostname, iface, &tried, &ok);
	return tried > 0 && ok == tried;
}

/* The interfaces of h that every other host reached: physical first, loopback never. */
static void routed_ifaces(const struct cd_walk *w, const struct cd_host *h, struct cd_strv *out)
{
	const struct cd_results *r = w->r;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < h->n_nics; i++) {
			const struct cd_nic *n = &h->nics[i];

			if (!n->name || n->kind == CD_NIC_LOOPBACK || virtual_nic(n) != pass)
				continue;
			if (reached_from_all(w, h, n->name))
				cd_strv_push(out, n->name);
		}
	/* interfaces only the probe knows (a document without the nic list) */
	for (size_t i = 0; !h->n_nics && i < r->n_reach; i++) {
		const struct cd_reach *x = &r->reach[i];
		size_t k;

		if (!str_eq(x->to, h->hostname) || !x->iface || nic_by_name(h, x->iface) || starts(x->iface, "lo"))
			continue;
		for (k = 0; k < out->n && strcmp(out->v[k], x->iface); k++)
			;
		if (k == out->n && reached_from_all(w, h, x->iface))
			cd_strv_push(out, x->iface);
	}
}

int q_reach_all(struct cd_walk *w)
{
	has(w, "NET001");
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		struct cd_strv sv = { 0 };
		int none;

		routed_ifaces(w, &w->r->hosts[i], &sv);
		none = sv.n == 0;
		cd_strv_free(&sv);
		if (none)
			return 0;
	}
	return 1;
}

/* Only the first routed interface per host: the one Gloo and the bootstrap get. */
int q_reach_same(struct cd_walk *w)
{
	struct cd_strv first = { 0 };
	int same = 1;

	has(w, "HOST003");
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		struct cd_strv sv = { 0 };

		routed_ifaces(w, &w->r->hosts[i], &sv);
		if (i == 0)
			cd_strv_push(&first, sv.v[0]);
		else if (strcmp(first.v[0], sv.v[0]))
			same = 0;
		cd_strv_free(&sv);
	}
	cd_strv_free(&first);
	return same;
}

/* Was iface of h tried by another host and failed at least once? (Untried is unknown, not bad.) */
static int iface_failed(const struct cd_walk *w, const struct cd_host *h, const char *iface)
{
	int64_t tried, ok;

	cd_reach_into(w->reach, h->hostname, iface, &tried, &ok);
	return ok < tried;
}

/*
 * Would a library use an interface another host failed to reach, as the host is configured
 * (or by its own default when unset)? Only those libraries get a setting: a job whose
 * libraries all pick a routed interface needs none, whatever else the host has.
 */
int q_reach_need(struct cd_walk *w)
{
	w->libs = libs_of_failures(w);
	w->cause[0] = '\0';
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		const struct cd_host *h = &w->r->hosts[i];

		for (size_t j = 0; j < h->n_nics; j++) {
			const struct cd_nic *n = &h->nics[j];
			unsigned libs;

			if (!n->name || !iface_failed(w, h, n->name))
				continue;
			libs = cd_iface_users(h, n);
			for (unsigned lib = 1; lib <= LIB_ALL; lib <<= 1)
				if (libs & lib)
					add_cause(w, lib, "%s would use %s (%s), which another host failed to reach",
						  cd_lib_name(lib), n->name, cd_lib_iface_rule(h, lib));
		}
	}
	return w->libs != 0;
}

/* Does the prefix (NCCL's matching) select an addressed interface of h that is not wanted? */
static int prefix_hits_other(const struct cd_host *h, const char *prefix, const struct cd_strv *wanted)
{
	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *n = &h->nics[i];
		size_t k;

		if (!n->name || !cd_nic_has_address(n) || !starts(n->name, prefix))
			continue;
		for (k = 0; k < wanted->n && strcmp(wanted->v[k], n->name); k++)
			;
		if (k == wanted->n)
			return 1;
	}
	return 0;
}

static int prefix_hits_wanted(const char *prefix, const struct cd_strv *wanted)
{
	for (size_t k = 0; k < wanted->n; k++)
		if (starts(wanted->v[k], prefix))
			return 1;
	return 0;
}

void join(struct cd_strv *sv, char *buf, size_t len, const char *lead)
{
	size_t used = (size_t)snprintf(buf, len, "%s", lead);

	for (size_t i = 0; i < sv->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", sv->v[i]);
}

void push_unique(struct cd_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return;
	cd_strv_push(sv, s);
}

/* The hosts one piece of socket advice covers: the job, or one host of it. */
/*
 * NCCL_SOCKET_IFNAME for per-host wanted sets: the longest common prefix when it
 * selects only wanted interfaces everywhere, else the names; '=' (exact match) when
 * a name used as a prefix would also catch another interface (bond0 vs bond0.2093).
 */
static void nccl_ifname(const struct hostset *hs, struct cd_strv *per_host, struct cd_strv *all, char *buf,
			size_t len, char *how, size_t how_len)
{
	char lcp[64];
	size_t l = 0;
	int ok = 1, exact = 0;

	snprintf(lcp, sizeof(lcp), "%s", all->v[0]);
	for (size_t i = 1; i < all->n; i++) {
		for (l = 0; lcp[l] && all->v[i][l] == lcp[l]; l++)
			;
		lcp[l] = '\0';
	}
	if (all->n > 1 && strlen(lcp) >= 2) {
		for (size_t h = 0; h < hs->n && ok; h++)
			ok = prefix_hits_wanted(lcp, &per_host[h]) && !prefix_hits_other(&hs->h[h], lcp, &per_host[h]);
		if (ok) {
			snprintf(buf, len, "%s", lcp);
			snprintf(how, how_len, "prefix '%s' selects exactly those on every host", lcp);
			return;
		}
	}
	for (size_t i = 0; i < all->n; i++)
		for (size_t h = 0; h < hs->n; h++)
			exact |= prefix_hits_other(&hs->h[h], all->v[i], &per_host[h]);
	join(all, buf, len, exact ? "=" : "");
	snprintf(how, how_len, "%s", exact ? "'=' because a prefix would also match another interface"
				   : all->n > 1 ? "a prefix list valid on every host" : "");
}

/* Network address of "10.0.0.17/24": "10.0.0.0/24". */
static int cidr_of(const char *a, char *buf, size_t len)
{
	unsigned o[4], bits;
	uint32_t ip, mask;

	if (!a || sscanf(a, "%u.%u.%u.%u/%u", &o[0], &o[1], &o[2], &o[3], &bits) != 5 || bits > 32 || o[0] > 255 ||
	    o[1] > 255 || o[2] > 255 || o[3] > 255)
		return -1;
	ip = o[0] << 24 | o[1] << 16 | o[2] << 8 | o[3];
	mask = bits ? ~0u << (32 - bits) : 0;
	ip &= mask;
	snprintf(buf, len, "%u.%u.%u.%u/%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255, bits);
	return 0;
}

/*
 * The OpenMPI settings: names when they are the same everywhere; CIDR subnets,
 * which stay valid where names differ.
 */
static void mpi_advice(struct cd_walk *w, const struct hostset *hs, struct cd_strv *per_host, struct cd_strv *all,
		       int same, const char *why)
{
	char val[256];
	struct cd_strv nets = { 0 };
	int cidr_ok = 1;

	if (same) {
		join(all, val, sizeof(val), "");
	} else {
		for (size_t h = 0; h < hs->n; h++)
			for (size_t k = 0; k < per_host[h].n; k++) {
				const struct cd_nic *n = nic_by_name(&hs->h[h], per_host[h].v[k]);
				char c[64];

				if (n && n->ipv4.n && cidr_of(n->ipv4.v[0], c, sizeof(c)) == 0)
					push_unique(&nets, c);
				else
					cidr_ok = 0;
			}
		join(cidr_ok && nets.n ? &nets : all, val, sizeof(val), "");
	}
	cd_strv_free(&nets);
	walk_emit(w, "OMPI_MCA_btl_tcp_if_include", val, hs->scope, "%s", why);
	walk_emit(w, "OMPI_MCA_oob_tcp_if_include", val, hs->scope, "%s", why);
	/* include and exclude together is an Open MPI error: drop the exclude */
	for (size_t h = 0; h < hs->n; h++) {
		if (cd_host_env(&hs->h[h], "OMPI_MCA_btl_tcp_if_exclude"))
			walk_emit(w, "OMPI_MCA_btl_tcp_if_exclude", NULL, hs->scope,
			     "Open MPI refuses if_include and if_exclude together");
		if (cd_host_env(&hs->h[h], "OMPI_MCA_oob_tcp_if_exclude"))
			walk_emit(w, "OMPI_MCA_oob_tcp_if_exclude", NULL, hs->scope,
			     "Open MPI refuses if_include and if_exclude together");
	}
}

/*
 * The advice for chosen interfaces, per host (per_host[i] for hs->h[i]), for the libraries
 * in hs->libs. UCX_NET_DEVICES never names a TCP interface on a host with an active RDMA
 * port: it would move UCX (and Open MPI's UCX PML) off the fabric; the RDMA leaf names
 * RDMA devices when some must be left out.
 */
void socket_advice(struct cd_walk *w, const struct hostset *hs, struct cd_strv *per_host, const char *why)
{
	struct cd_strv all = { 0 };
	char val[256], how[128];
	int same = 1, rdma = 0;

	for (size_t h = 0; h < hs->n; h++) {
		if (!per_host[h].n) {
			cd_strv_free(&all);
			return;
		}
		for (size_t k = 0; k < per_host[h].n; k++)
			push_unique(&all, per_host[h].v[k]);
		if (h && (per_host[h].n != per_host[0].n || strcmp(per_host[h].v[0], per_host[0].v[0])))
			same = 0;
		rdma |= cd_host_rdma_active(&hs->h[h]);
	}
	if (hs->libs & LIB_NCCL) {
		nccl_ifname(hs, per_host, &all, val, sizeof(val), how, sizeof(how));
		walk_emit(w, "NCCL_SOCKET_IFNAME", val, hs->scope, "%s%s%s", why, *how ? "; " : "", how);
	}
	/* Gloo and UCX take exact names: per host when the names differ */
	for (size_t h = 0; h < hs->n && (hs->libs & (LIB_GLOO | LIB_UCX)); h++) {
		const char *host = same ? hs->scope : hs->h[h].hostname;

		if (hs->libs & LIB_GLOO)
			walk_emit(w, "GLOO_SOCKET_IFNAME", per_host[h].v[0], host, "%s", why);
		join(&per_host[h], val, sizeof(val), "");
		if ((hs->libs & LIB_UCX) && !rdma)
			walk_emit(w, "UCX_NET_DEVICES", val, host, "%s", why);
		if (same)
			break;
	}
	if (hs->libs & LIB_OMPI)
		mpi_advice(w, hs, per_host, &all, same, why);
	cd_strv_free(&all);
}

/* "eth0 reached from node18, node19; docker0 failed from node18 (connection refused)" */
static void reach_why(const struct cd_results *r, struct cd_strv *per_host, char *buf, size_t len)
{
	size_t used = 0, failed = 0;

	buf[0] = '\0';
	for (size_t h = 0; h < r->n_hosts && used < len; h++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s: %s accepts every other host", h ? "; " : "",
					 r->hosts[h].hostname, per_host[h].n ? per_host[h].v[0] : "nothing");
	for (size_t i = 0; i < r->n_reach && used < len && failed < 3; i++) {
		const struct cd_reach *x = &r->reach[i];

		if (x->ok == CD_TRI_TRUE)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "; %s %s unreachable from %s%s%s%s", x->to, x->iface,
					 x->from, x->error ? " (" : "", x->error ? x->error : "", x->error ? ")" : "");
		failed++;
	}
}

void l_iface_job(struct cd_walk *w)
{
	struct cd_strv *per = xcalloc(w->r->n_hosts, sizeof(*per));
	char why[1024];

	for (size_t h = 0; h < w->r->n_hosts; h++)
		routed_ifaces(w, &w->r->hosts[h], &per[h]);
	struct hostset hs = { w->r->hosts, w->r->n_hosts, NULL, w->libs };

	reach_why(w->r, per, why, sizeof(why));
	if (*w->cause)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; %s", w->cause);
	socket_advice(w, &hs, per, why);
	for (size_t h = 0; h < w->r->n_hosts; h++)
		cd_strv_free(&per[h]);
	free(per);
}

void l_noroute(struct cd_walk *w)
{
	char why[1024];
	struct cd_strv *per = xcalloc(w->r->n_hosts, sizeof(*per));

	for (size_t h = 0; h < w->r->n_hosts; h++)
		routed_ifaces(w, &w->r->hosts[h], &per[h]);
	reach_why(w->r, per, why, sizeof(why));
	for (size_t h = 0; h < w->r->n_hosts; h++)
		cd_strv_free(&per[h]);
	free(per);
	walk_emit(w, NULL, "fix routing or the firewall between the hosts (ip route get <peer address>; "
		 "nc -l / nc <peer> <port>) before setting any interface variable", NULL,
	     "no interface accepts connections from every other host: %s", why);
}

/* ---- timeouts and stragglers ---- */

int q_timeout(struct cd_walk *w)
{
	int any = has(w, "MPI003") | has(w, "NCCL004") | has(w, "NCCL003") | has(w, "LOG001");

	for (size_t i = 0; i < w->r->n_probes; i++)
		if (w->r->probes[i].status == CD_ST_TIMEOUT)
			any = 1;
	return any;
}

void l_timeout(struct cd_walk *w)
{
	/* MPI003, NCCL004 (slow with every pair partner) or NCCL003 (the others wait for it) */
	static const char *const straggler[] = { "MPI003", "NCCL004", "NCCL003" };
	const struct cd_finding *slow = NULL;
	const struct cd_finding *to = finding(w, "LOG001");
	char who[256] = "", hb[32];
	double timeout_s = to && isfinite(to->expected) ? to->expected / 1000.0 : NAN;

	for (size_t i = 0; i < ARRAY_SIZE(straggler) && !slow; i++)
		slow = finding(w, straggler[i]);
	if (slow)
		snprintf(who, sizeof(who), "%s on %s is the straggler", slow->subject ? slow->subject : "a rank",
			 slow->host ? slow->host : "?");
	else if (to && to->subject)
		snprintf(who, sizeof(who), "%s", to->subject);
	for (size_t i = 0; i < w->r->n_probes && !*who; i++)
		if (w->r->probes[i].status == CD_ST_TIMEOUT)
			snprintf(who, sizeof(who), "probe %s timed out on %s in %s", w->r->probes[i].name,
				 w->r->probes[i].host ? w->r->probes[i].host : "?",
				 w->r->probes[i].phase ? w->r->probes[i].phase : "?");
	/* a catalogue entry's LOG001 (Gloo, monitored_barrier, elastic timer) names no rank here: its own fix does */
	if (!*who)
		snprintf(who, sizeof(who), "the log shows a timeout");
	if (slow)
		walk_emit(w, NULL, "drain or inspect the straggling host before the next run (nvidia-smi -q -d "
			 "PERFORMANCE,CLOCK; dmesg for Xid; ibstat)", slow->host, "%s", who);
	/* what to collect next: NCCL's own trace and PyTorch's flight recorder */
	walk_emit(w, "NCCL_DEBUG", "INFO", NULL, "%s; collect NCCL's view of the next run", who);
	walk_emit(w, "NCCL_DEBUG_SUBSYS", "INIT,NET", NULL, "%s; transport and network selection", who);
	walk_emit(w, "TORCH_NCCL_TRACE_BUFFER_SIZE", "2000", NULL, "%s; keep the last collectives of every rank "
	     "(flight recorder)", who);
	walk_emit(w, "TORCH_NCCL_DUMP_ON_TIMEOUT", "1", NULL, "%s; dump the flight recorder when the watchdog fires", who);
	if (isfinite(timeout_s)) {
		/* the heartbeat monitor must outlive the collective timeout, or it kills the dump */
		double hb_s = fmax(480.0, timeout_s + 120.0);

		snprintf(hb, sizeof(hb), "%.0f", hb_s);
		walk_emit(w, "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", hb, NULL,
		     "the collective timeout was %.0f s: the watchdog heartbeat must outlast it to write the dump", timeout_s);
	}
}

/* ---- rails: one subnet per RDMA port, the same set on every host ---- */

int port_active(const struct cd_ib_port *p)
{
	return str_eq(p->state, "active");
}

static int rail_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

#define MAX_RAILS 16

/*
 * The subnet an active port sits on: RoCE, the IPv4 network of its netdev; InfiniBand,
 * the GID subnet prefix, and only when the SM set one (fe80:: everywhere says nothing).
 */
static int port_subnet(const struct cd_host *h, const struct cd_hca *c, const struct cd_ib_port *p, char *buf,
		       size_t len)
{
	if (str_eq(p->link_layer, "ethernet")) {
		const struct cd_nic *n = nic_by_name(h, p->netdev ? p->netdev : c->netdev);

		return n && n->ipv4.n ? cidr_of(n->ipv4.v[0], buf, len) : -1;
	}
	for (size_t i = 0; i < p->n_gids; i++)
		if (p->gids[i].index == 0 && p->gids[i].gid && strlen(p->gids[i].gid) >= 19 &&
		    strncmp(p->gids[i].gid, "fe80:0000:0000:0000", 19)) {
			snprintf(buf, len, "%.19s", p->gids[i].gid);
			return 0;
		}
	return -1;
}

/* The sorted subnets of a host's active ports; -1 unless every port has its own. */
static int host_rails(const struct cd_host *h, char rails[][48], size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t k = 0; k < h->hcas[i].n_ports; k++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[k];

			if (!cd_rdma_rail_port(h, h->hcas[i].name, p))
				continue; /* a front end seen through verbs is not a rail */
			if (*n == MAX_RAILS || port_subnet(h, &h->hcas[i], p, rails[*n], sizeof(rails[0])) < 0)
				return -1;
			for (size_t j = 0; j < *n; j++)
				if (!strcmp(rails[j], rails[*n]))
					return -1;
			(*n)++;
		}
	qsort(rails, *n, sizeof(rails[0]), rail_cmp);
	return 0;
}

/*
 * A rail-optimised fabric seen from the hosts: two or more active ports per host, each on
 * its own subnet, and the same subnets on every host. Traffic from one rail to another
 * then crosses a router (or cannot go at all), so NCCL should keep a ring on its NIC.
 */
int q_rails(struct cd_walk *w)
{
	char first[MAX_RAILS][48], other[MAX_RAILS][48];
	size_t n0, n;
	int unset = 0;

	if (w->r->n_hosts < 2 || host_rails(&w->r->hosts[0], first, &n0) < 0 || n0 < 2)
		return 0;
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		const char *v = cd_host_env(&w->r->hosts[i], "NCCL_CROSS_NIC");

		if (i && (host_rails(&w->r->hosts[i], other, &n) < 0 || n != n0))
			return 0;
		for (size_t k = 0; i && k < n; k++)
			if (strcmp(first[k], other[k]))
				return 0;
		unset |= !str_eq(v, "0");
	}
	return unset;
}

void l_cross_nic(struct cd_walk *w)
{
	char rails[MAX_RAILS][48], list[MAX_RAILS * 50];
	size_t n, used = 0;

	host_rails(&w->r->hosts[0], rails, &n);
	list[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", rails[i]);
	walk_emit(w, "NCCL_CROSS_NIC", "0", NULL, "every host has %zu RDMA ports, each on its own subnet (%s), the same "
	     "on all %zu hosts: a rail-optimised fabric, where traffic from one rail to another crosses a router or "
	     "cannot go at all, and NCCL's default lets a ring change rails", n, list, w->r->n_hosts);
}

/* Does any host say what its RDMA ports are? */
static int any_roce_known(const struct cd_results *r)
{
	for (size_t h = 0; h < r->n_hosts; h++)
		if (r->hosts[h].n_hcas)
			return 1;
	return 0;
}

/*
 * Did NCCL print it? Its settings are the leaf's; UCX, UCCL or an MPI have their own (the
 * catalogue's). The log's lines only: explain's notes on an entry name libraries too.
 */
static int nccl_said(const struct cd_finding *f)
{
	for (size_t k = 0; k < f->evidence.n; k++)
		if (!cd_explain_note(f->evidence.v[k]) &&
		    (strstr(f->evidence.v[k], "NCCL") || strstr(f->evidence.v[k], "NET/IB")))
			return 1;
	return 0;
}

/* NCCL's IB completions failing with "retry exceeded" on InfiniBand (RoCE has its own branch). */
int q_flaky(struct cd_walk *w)
{
	const struct cd_finding *f = finding_that(w, "LOG007", nccl_said);

	if (!f || (f->subject && strstr(f->subject, "RoCE")))
		return 0;
	note(w, "LOG007");
	return 1;
}

void l_ib_timeout(struct cd_walk *w)
{
	const char *cur = NULL, *nccl = NULL;
	long v, dflt, ver;
	char val[24];

	for (size_t i = 0; i < w->r->n_hosts && !cur; i++)
		cur = cd_host_env(&w->r->hosts[i], "NCCL_IB_TIMEOUT");
	for (size_t i = 0; i < w->r->n_hosts && !nccl; i++)
		nccl = w->r->hosts[i].versions.nccl;
	/*
	 * NCCL's default (4.096 us * 2^n): 20 since 2.23, 18 in 2.14-2.22, 14 before
	 * (src/transport/net_ib*.cc, NCCL_PARAM(IbTimeout)); unknown: the current one.
	 * Two steps up is four times as long.
	 */
	ver = cd_version_num(nccl);
	dflt = ver < 0 || ver >= 22300 ? 20 : ver >= 21400 ? 18 : 14;
	v = (cur ? strtol(cur, NULL, 10) : dflt) + 2;
	snprintf(val, sizeof(val), "%ld", v > 31 ? 31 : v);
	/* status 12 at the first transfer is usually no path at all: on RoCE, the wrong GID */
	if (!any_roce_known(w->r))
		walk_emit(w, NULL, "if the fabric is RoCE: show_gids, then export NCCL_IB_GID_INDEX set to the RoCE v2 GID "
			 "with an IPv4 address (commdiag check on the host computes it)", NULL, "completions timed out "
		     "(status 12) and the log does not say whether the ports are IB or RoCE; on RoCE a wrong GID "
		     "index fails exactly like this");
	walk_emit(w, "NCCL_IB_TIMEOUT", val, NULL, "RDMA completions failed with transport retry exceeded "
	     "(status 12); on InfiniBand a longer timeout rides out a flaky link while you check it (ibdiagnet, "
	     "port counters); %s %ld, two steps up is four times as long", cur ? "now" : "NCCL's default",
	     cur ? strtol(cur, NULL, 10) : dflt);
}

/* ---- environment settings the linter flagged ---- */

int q_envfix(struct cd_walk *w)
{
	int any = 0;

	for (size_t i = 0; i < w->r->n_findings; i++)
		if (starts(w->r->findings[i].id, "ENV") && strcmp(w->r->findings[i].id, "ENV006"))
			note(w, w->r->findings[i].id), any = 1;
	return any;
}

const char *env_any_host(const struct cd_results *r, const char *name)
{
	for (size_t h = 0; h < r->n_hosts; h++) {
		const char *v = cd_host_env(&r->hosts[h], name);

		if (v)
			return v;
	}
	return NULL;
}

/* The host a finding is about (the first one when it names none). */
static const struct cd_host *finding_host(const struct cd_results *r, const struct cd_finding *f)
{
	for (size_t h = 0; h < r->n_hosts; h++)
		if (on_host(f, &r->hosts[h]))
			return &r->hosts[h];
	return r->n_hosts ? &r->hosts[0] : NULL;
}

/*
 * ENV007: NCCL_IB_HCA (or another HCA list) names devices this host does not have. Without
 * HCAs, or when the list selects none of the active ports, unset it: NCCL then takes every
 * active port (ncclIbInitDevices). When it selects some, keep the items that name a device.
 */
static void hca_list_fix(struct cd_walk *w, const struct cd_finding *f, const char *name, const char *val,
			 const char *last)
{
	const struct cd_host *h = finding_host(w->r, f);
	struct cd_strv keep = { 0 };
	struct cd_nccl_list l;
	struct cd_nccl_item it;
	char fixed[512];
	int selects = 0;

	if (!h || !h->n_hcas || !val || strcmp(name, "NCCL_IB_HCA")) {
		walk_emit(w, name, NULL, NULL, "%s", last);
		return;
	}
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t k = 0; k < h->hcas[i].n_ports; k++)
			selects |= port_active(&h->hcas[i].ports[k]) &&
				   cd_nccl_ib_hca_match(val, h->hcas[i].name, h->hcas[i].ports[k].port);
	cd_nccl_list_init(&l, val, CD_NCCL_MAX_IB_DEVS);
	if (!selects || l.not) {
		walk_emit(w, name, NULL, NULL, "%s; it selects %s of this host's active ports, and unset NCCL uses every "
			  "active port", last, selects ? "only some" : "none");
		return;
	}
	while (cd_nccl_list_next(&l, &it)) {
		char item[128];

		if (it.text_len >= sizeof(item))
			continue;
		memcpy(item, it.text, it.text_len);
		item[it.text_len] = '\0';
		/* the device is named whatever the port: a wrong port is another finding's business */
		for (size_t i = 0; i < h->n_hcas; i++)
			if (cd_nccl_item_match(&it, l.exact, h->hcas[i].name, -1)) {
				push_unique(&keep, item);
				break;
			}
	}
	join(&keep, fixed, sizeof(fixed), l.exact ? "=" : "");
	walk_emit(w, name, fixed, NULL, "%s; keep the items that name a device here", last);
	cd_strv_free(&keep);
}

void l_envfix(struct cd_walk *w)
{
	struct cd_envcat cat = { 0 };

	if (cd_envcat_load_default(&cat) < 0)
		return;
	for (size_t i = 0; i < w->r->n_findings; i++) {
		const struct cd_finding *f = &w->r->findings[i];
		const char *name = f->subject, *val = name ? env_any_host(w->r, name) : NULL;
		const struct cd_envvar *e = name ? cd_envcat_find(&cat, name) : NULL;
		const char *near;

		const char *last = f->evidence.n ? f->evidence.v[f->evidence.n - 1] : f->title;

		if (!starts(f->id, "ENV") || !name || strchr(name, ' '))
			continue;
		/* each item answers its own finding */
		cd_strv_free(&w->ids);
		note(w, f->id);
		if (!strcmp(f->id, "ENV001") && (near = cd_envcat_nearest(&cat, name)) && val) {
			walk_emit(w, near, val, NULL, "%s is not a variable anyone reads; %s is", name, near);
			walk_emit(w, name, NULL, NULL, "misspelt; replaced by %s", near);
		} else if (!strcmp(f->id, "ENV002") && e && e->arg && val) {
			walk_emit(w, e->arg, val, NULL, "%s was renamed %s", name, e->arg);
			walk_emit(w, name, NULL, NULL, "deprecated name of %s", e->arg);
		} else if (!strcmp(f->id, "ENV003") || !strcmp(f->id, "ENV004")) {
			walk_emit(w, name, NULL, NULL, "%s: %s", f->title, last);
		} else if (!strcmp(f->id, "ENV007")) {
			hca_list_fix(w, f, name, val, last);
		} else if (!strcmp(f->id, "ENV005")) {
			char *ex = xstrdup(name);
			char *p = strstr(ex, "_include");

			if (p) {
				memcpy(p, "_exclude", 8);
				walk_emit(w, ex, NULL, NULL, "Open MPI aborts when if_include and if_exclude are both set; "
				     "keep the include list");
			}
			free(ex);
		} else if (!strcmp(f->id, "ENV008")) {
			walk_emit(w, name, NULL, NULL, "%s", last);
		}
	}
	cd_envcat_free(&cat);
}

/* ---- a log with errors that no branch explained ---- */

int q_unexplained(struct cd_walk *w)
{
	return has(w, "LOG099");
}

/*
 * Each library's own switch for its log, as its source defines it: NCCL src/debug.cc; PyTorch
 * c10/util/Logging.cpp setLogLevelFlagFromEnv and distributed.rst; UCX src/ucs/config/global_opts.c
 * LOG_LEVEL (default warn); libfabric src/log.c fi_log_init (unset: nothing is logged); Open MPI
 * opal/mca/base/mca_base_framework.c (every framework registers <framework>_base_verbose); MPICH
 * src/mpi/init/mpi_init.h MPIR_CVAR_DEBUG_SUMMARY (ch4: the OFI provider or UCX capabilities
 * chosen); Slurm doc/man/man1/srun.1 SLURM_DEBUG (same as -v; 2: -vv).
 */
static const struct {
	const char *key, *env, *value, *why;
} collect[] = {
	{ "nccl", "NCCL_DEBUG", "INFO", "the log shows an error but not its cause; run again with NCCL's INFO log" },
	{ "nccl", "NCCL_DEBUG_SUBSYS", "INIT,NET", "initialisation and network selection are where most failures show their cause" },
	{ "torch", "TORCH_CPP_LOG_LEVEL", "INFO", "PyTorch's error names no cause; c10d's C++ INFO lines show the store, the "
						 "rendezvous and the process group's setup" },
	{ "torch", "TORCH_DISTRIBUTED_DEBUG", "DETAIL", "PyTorch checks every collective's shapes and order across the ranks "
							"and reports the first rank that differs" },
	{ "ucx", "UCX_LOG_LEVEL", "info", "UCX's error names no cause; its info level (the default is warn) shows the "
					  "transports and devices it selects and why it drops them" },
	{ "ofi", "FI_LOG_LEVEL", "info", "libfabric's error names no cause; its info level shows the providers it tries and "
					 "why each is refused (FI_LOG_PROV=<provider> narrows it)" },
	{ "ompi", "OMPI_MCA_btl_base_verbose", "100", "Open MPI's error names no cause; the BTL framework's verbose output "
						      "shows which transports open on each host and why one is refused" },
	{ "ompi", "OMPI_MCA_pml_base_verbose", "100", "and which point-to-point layer (ob1, ucx, cm) is selected" },
	{ "mpich", "MPIR_CVAR_DEBUG_SUMMARY", "1", "MPICH's error stack names no cause; its debug summary prints the "
						   "network module and provider chosen at MPI_Init" },
	{ "slurm", "SLURM_DEBUG", "2", "srun's error names no cause; srun -vv shows the step's launch, the nodes it reached "
				       "and the MPI plugin it used" },
};

/*
 * What to collect next, from the libraries that printed the errors (LOG099's subject, "ucx,ompi",
 * the first error's first): NCCL's INFO log where the log names no library or NCCL is among them.
 */
void l_collect(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG099");
	const char *libs = f && f->subject && *f->subject ? f->subject : "nccl";
	char key[16];

	for (const char *p = libs; *p; p += strcspn(p, ","), p += *p == ',') {
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(p, ","), p);
		for (size_t i = 0; i < ARRAY_SIZE(collect); i++)
			if (!strcmp(collect[i].key, key))
				walk_emit(w, collect[i].env, collect[i].value, NULL, "%s", collect[i].why);
	}
}
