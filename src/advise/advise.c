/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decision tree. Questions read facts first and findings second, so the
 * advice works on a document whose rules have not run yet (or on a log, where
 * explain.c turned lines into facts and LOG### findings). Leaves compute their
 * values from the same facts; a constant is only ever a documented default.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "envlint.h"
#include "explain.h"
#include "rules.h"

#define MAX_STEPS 64

struct cd_walk {
	struct cd_results *r;
	struct cd_host *h;              /* NULL in job scope */
	int steps[MAX_STEPS], answers[MAX_STEPS];
	int nsteps;
	struct cd_strv ids;             /* findings the questions relied on */
	int added;
};

/* ---- small helpers over the document ---- */

static int str_eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static const char *env_get(const struct cd_host *h, const char *key)
{
	for (size_t i = 0; h && i < h->n_env; i++)
		if (!strcmp(h->env[i].key, key))
			return h->env[i].value;
	return NULL;
}

static int on_host(const struct cd_finding *f, const struct cd_host *h)
{
	return !h || !f->host || str_eq(f->host, h->hostname);
}

static const struct cd_finding *finding(const struct cd_walk *w, const char *id)
{
	for (size_t i = 0; i < w->r->n_findings; i++)
		if (!strcmp(w->r->findings[i].id, id) && on_host(&w->r->findings[i], w->h))
			return &w->r->findings[i];
	return NULL;
}

static void note(struct cd_walk *w, const char *id)
{
	for (size_t i = 0; i < w->ids.n; i++)
		if (!strcmp(w->ids.v[i], id))
			return;
	cd_strv_push(&w->ids, id);
}

/* Is the finding present (on this host in host scope)? Noted as evidence when it is. */
static int has(struct cd_walk *w, const char *id)
{
	if (!finding(w, id))
		return 0;
	note(w, id);
	return 1;
}

/* Version "2.21.5" as 22105-like number: major*10000 + minor*100 + patch; -1 when unknown. */
static long version_num(const char *v)
{
	long a = 0, b = 0, c = 0;

	if (!v || sscanf(v, "%ld.%ld.%ld", &a, &b, &c) < 2)
		return -1;
	return a * 10000 + b * 100 + c;
}

static int nic_has_address(const struct cd_nic *n)
{
	if (n->ipv4.n)
		return 1;
	for (size_t i = 0; i < n->ipv6.n; i++)
		if (strncasecmp(n->ipv6.v[i], "fe80:", 5))
			return 1;
	return 0;
}

/* Names container runtimes and virtual networks give their interfaces. */
static int virtual_name(const char *name)
{
	static const char *const pfx[] = { "docker", "virbr", "veth", "cni", "flannel", "cali", "br-", "lxc",
					   "cilium", "weave", "kube", "tun", "tap", "vxlan", "genev", "podman" };

	for (size_t i = 0; i < ARRAY_SIZE(pfx); i++)
		if (starts(name, pfx[i]))
			return 1;
	return 0;
}

static int virtual_nic(const struct cd_nic *n)
{
	return n->kind == CD_NIC_LOOPBACK || n->kind == CD_NIC_BRIDGE || n->kind == CD_NIC_VETH ||
	       n->kind == CD_NIC_TUNNEL || n->kind == CD_NIC_VIRTUAL || virtual_name(n->name);
}

/* Up, addressed, and not a loopback or container/virtual network device. */
static int socket_candidate(const struct cd_nic *n)
{
	return n->name && cd_nic_is_up(n) && nic_has_address(n) && !virtual_nic(n) && !n->master;
}

static const struct cd_nic *nic_by_name(const struct cd_host *h, const char *name)
{
	for (size_t i = 0; h && i < h->n_nics; i++)
		if (str_eq(h->nics[i].name, name))
			return &h->nics[i];
	return NULL;
}

/* ---- emitting advice ---- */

static const struct cd_advise_node tree[];

static void fill_path(const struct cd_walk *w, struct cd_strv *path)
{
	for (int i = 0; i < w->nsteps; i++) {
		const struct cd_advise_node *n = &tree[w->steps[i]];
		char *s = n->act ? xstrdup(n->text) : xasprintf("%s %s", n->text, w->answers[i] ? "yes" : "no");

		cd_strv_push(path, s);
		free(s);
	}
}

static int advice_same(const struct cd_advice *a, const char *env, const char *value, const char *host)
{
	return (a->env ? str_eq(a->env, env) : !env) && (a->value ? str_eq(a->value, value) : !value) &&
	       (a->host ? str_eq(a->host, host) : !host);
}

/* Append one item; an identical one (same setting, value and host) only gains the findings. */
static void emit(struct cd_walk *w, const char *env, const char *value, const char *host, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void emit(struct cd_walk *w, const char *env, const char *value, const char *host, const char *fmt, ...)
{
	struct cd_advice *a;
	va_list ap;

	for (size_t i = 0; i < w->r->n_advice; i++) {
		a = &w->r->advice[i];
		if (!advice_same(a, env, value, host))
			continue;
		for (size_t k = 0; k < w->ids.n; k++) {
			size_t j;

			for (j = 0; j < a->findings.n && strcmp(a->findings.v[j], w->ids.v[k]); j++)
				;
			if (j == a->findings.n)
				cd_strv_push(&a->findings, w->ids.v[k]);
		}
		return;
	}
	a = cd_results_add_advice(w->r);
	a->env = env ? xstrdup(env) : NULL;
	a->value = value ? xstrdup(value) : NULL;
	a->host = host ? xstrdup(host) : NULL;
	for (size_t k = 0; k < w->ids.n; k++)
		cd_strv_push(&a->findings, w->ids.v[k]);
	fill_path(w, &a->path);
	va_start(ap, fmt);
	a->why = xvasprintf(fmt, ap);
	va_end(ap);
	w->added++;
}

/* A real host, not explain's bucket for log lines without a host prefix. */
static int named_host(const struct cd_host *h)
{
	return h->hostname && !str_eq(h->host_id_source, CD_EXPLAIN_NO_HOST);
}

/* The host an item applies to: this host when the job has several, else every host. */
static const char *scope_host(const struct cd_walk *w)
{
	size_t named = 0;

	for (size_t i = 0; i < w->r->n_hosts; i++)
		named += named_host(&w->r->hosts[i]);
	return w->h && named > 1 && named_host(w->h) ? w->h->hostname : NULL;
}

/* ---- identity: hostnames and host ids ---- */

static int q_multi(struct cd_walk *w)
{
	return w->r->n_hosts > 1;
}

/* The first pair of hosts sharing a hostname or a host id. */
static int dup_pair(const struct cd_results *r, size_t *a, size_t *b, int *by_id)
{
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = i + 1; j < r->n_hosts; j++) {
			const struct cd_host *x = &r->hosts[i], *y = &r->hosts[j];

			if (str_eq(x->hostname, y->hostname) || str_eq(x->host_id, y->host_id)) {
				*a = i;
				*b = j;
				*by_id = !str_eq(x->hostname, y->hostname);
				return 1;
			}
		}
	return 0;
}

static int q_dup_host(struct cd_walk *w)
{
	size_t a, b;
	int by_id;

	has(w, "HOST001");
	return dup_pair(w->r, &a, &b, &by_id) || finding(w, "HOST001");
}

static void l_hostid(struct cd_walk *w)
{
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		const struct cd_host *h = &w->r->hosts[i];
		const struct cd_nic *n = NULL;
		char *v;

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
		emit(w, "NCCL_HOSTID", v, h->hostname, "NCCL groups ranks by host id; %s shares its name or id "
			 "with another host, so NCCL would try shared memory and P2P across hosts", h->hostname);
		free(v);
	}
	emit(w, NULL, "give each container its own hostname (docker run --hostname, or Kubernetes pod hostnames) "
		 "and its own /etc/machine-id", NULL, "the real fix: NCCL_HOSTID only papers over identical identities");
}

/* Ranks that claimed one GPU: from LOG006 ("rank 1 and rank 0 both on CUDA device 1a000"). */
static int q_dup_gpu(struct cd_walk *w)
{
	return has(w, "LOG006");
}

/* Hosts that share an identity make NCCL see one host: then the collision is theirs. */
static int q_dup_gpu_hosts(struct cd_walk *w)
{
	size_t a, b;
	int by_id;

	return dup_pair(w->r, &a, &b, &by_id) || has(w, "HOST001");
}

static void l_set_device(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG006");

	emit(w, NULL, "in each process, before init_process_group: torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"])) "
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

static int q_versions(struct cd_walk *w)
{
	char what[16];

	has(w, "HOST002");
	has(w, "LOG009");
	return versions_differ(w->r, what, sizeof(what)) || finding(w, "HOST002") || finding(w, "LOG009");
}

static void l_versions(struct cd_walk *w)
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
		if (h->versions.nccl && version_num(h->versions.nccl) > version_num(newest))
			newest = h->versions.nccl;
	}
	if (plugin)
		emit(w, NULL, "install the same NCCL net plugin (the same libnccl-net.so, or NCCL_NET_PLUGIN=none "
			 "everywhere) on every host of the job", NULL, "hosts that load different net plugins pick "
		     "different transports and cannot connect: %s", list);
	if (newest && (!plugin || str_differs(w->r, ver_nccl))) {
		char *cmd = xasprintf("install NCCL %s (and one driver and CUDA version) on every host of the job", newest);

		emit(w, NULL, cmd, NULL, "NCCL's wire protocol is only compatible with itself: %s", list);
		free(cmd);
	} else if (!plugin) {
		emit(w, NULL, "install the same NVIDIA driver and CUDA version on every host of the job", NULL,
		     "versions differ between hosts: %s", list);
	}
}

/* ---- socket interface for the whole job, from the reachability probe ---- */

static int q_reach(struct cd_walk *w)
{
	return w->r->n_hosts > 1 && w->r->n_reach > 0;
}

/* Did every other host connect to this host's iface, and none fail? */
static int reached_from_all(const struct cd_results *r, const struct cd_host *h, const char *iface)
{
	for (size_t o = 0; o < r->n_hosts; o++) {
		const struct cd_host *other = &r->hosts[o];
		int ok = 0, bad = 0;

		if (other == h)
			continue;
		for (size_t i = 0; i < r->n_reach; i++) {
			const struct cd_reach *x = &r->reach[i];

			if (!str_eq(x->from, other->hostname) || !str_eq(x->to, h->hostname) || !str_eq(x->iface, iface))
				continue;
			ok += x->ok == CD_TRI_TRUE;
			bad += x->ok != CD_TRI_TRUE;
		}
		if (!ok || bad)
			return 0;
	}
	return 1;
}

/* The interfaces of h that every other host reached: physical first, loopback never. */
static void routed_ifaces(const struct cd_results *r, const struct cd_host *h, struct cd_strv *out)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < h->n_nics; i++) {
			const struct cd_nic *n = &h->nics[i];

			if (!n->name || n->kind == CD_NIC_LOOPBACK || virtual_nic(n) != pass)
				continue;
			if (reached_from_all(r, h, n->name))
				cd_strv_push(out, n->name);
		}
	/* interfaces only the probe knows (a document without the nic list) */
	for (size_t i = 0; i < r->n_reach; i++) {
		const struct cd_reach *x = &r->reach[i];
		size_t k;

		if (!str_eq(x->to, h->hostname) || !x->iface || nic_by_name(h, x->iface) || starts(x->iface, "lo"))
			continue;
		for (k = 0; k < out->n && strcmp(out->v[k], x->iface); k++)
			;
		if (k == out->n && reached_from_all(r, h, x->iface))
			cd_strv_push(out, x->iface);
	}
}

static int q_reach_all(struct cd_walk *w)
{
	has(w, "NET001");
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		struct cd_strv sv = { 0 };
		int none;

		routed_ifaces(w->r, &w->r->hosts[i], &sv);
		none = sv.n == 0;
		cd_strv_free(&sv);
		if (none)
			return 0;
	}
	return 1;
}

/* Only the first routed interface per host: the one Gloo and the bootstrap get. */
static int q_reach_same(struct cd_walk *w)
{
	struct cd_strv first = { 0 };
	int same = 1;

	has(w, "HOST003");
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		struct cd_strv sv = { 0 };

		routed_ifaces(w->r, &w->r->hosts[i], &sv);
		if (i == 0)
			cd_strv_push(&first, sv.v[0]);
		else if (strcmp(first.v[0], sv.v[0]))
			same = 0;
		cd_strv_free(&sv);
	}
	cd_strv_free(&first);
	return same;
}

/* Does the prefix (NCCL's matching) select an addressed interface of h that is not wanted? */
static int prefix_hits_other(const struct cd_host *h, const char *prefix, const struct cd_strv *wanted)
{
	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *n = &h->nics[i];
		size_t k;

		if (!n->name || !nic_has_address(n) || !starts(n->name, prefix))
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

static void join(struct cd_strv *sv, char *buf, size_t len, const char *lead)
{
	size_t used = (size_t)snprintf(buf, len, "%s", lead);

	for (size_t i = 0; i < sv->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", sv->v[i]);
}

static void push_unique(struct cd_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return;
	cd_strv_push(sv, s);
}

/* The hosts one piece of socket advice covers: the job, or one host of it. */
struct hostset {
	const struct cd_host *h;
	size_t n;
	const char *scope;      /* host the advice is for; NULL: the whole job */
};

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
	emit(w, "OMPI_MCA_btl_tcp_if_include", val, hs->scope, "%s", why);
	emit(w, "OMPI_MCA_oob_tcp_if_include", val, hs->scope, "%s", why);
	/* include and exclude together is an Open MPI error: drop the exclude */
	for (size_t h = 0; h < hs->n; h++) {
		if (env_get(&hs->h[h], "OMPI_MCA_btl_tcp_if_exclude"))
			emit(w, "OMPI_MCA_btl_tcp_if_exclude", NULL, hs->scope,
			     "Open MPI refuses if_include and if_exclude together");
		if (env_get(&hs->h[h], "OMPI_MCA_oob_tcp_if_exclude"))
			emit(w, "OMPI_MCA_oob_tcp_if_exclude", NULL, hs->scope,
			     "Open MPI refuses if_include and if_exclude together");
	}
}

/* The advice for chosen interfaces, per host (per_host[i] for hs->h[i]). */
static void socket_advice(struct cd_walk *w, const struct hostset *hs, struct cd_strv *per_host, const char *why)
{
	struct cd_strv all = { 0 };
	char val[256], how[128];
	int same = 1;

	for (size_t h = 0; h < hs->n; h++) {
		if (!per_host[h].n) {
			cd_strv_free(&all);
			return;
		}
		for (size_t k = 0; k < per_host[h].n; k++)
			push_unique(&all, per_host[h].v[k]);
		if (h && (per_host[h].n != per_host[0].n || strcmp(per_host[h].v[0], per_host[0].v[0])))
			same = 0;
	}
	nccl_ifname(hs, per_host, &all, val, sizeof(val), how, sizeof(how));
	emit(w, "NCCL_SOCKET_IFNAME", val, hs->scope, "%s%s%s", why, *how ? "; " : "", how);
	/* Gloo and UCX take exact names: per host when the names differ */
	for (size_t h = 0; h < hs->n; h++) {
		const char *host = same ? hs->scope : hs->h[h].hostname;

		emit(w, "GLOO_SOCKET_IFNAME", per_host[h].v[0], host, "%s", why);
		join(&per_host[h], val, sizeof(val), "");
		emit(w, "UCX_NET_DEVICES", val, host, "%s", why);
		if (same)
			break;
	}
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

static void l_iface_job(struct cd_walk *w)
{
	struct cd_strv *per = xcalloc(w->r->n_hosts, sizeof(*per));
	char why[1024];

	for (size_t h = 0; h < w->r->n_hosts; h++)
		routed_ifaces(w->r, &w->r->hosts[h], &per[h]);
	struct hostset hs = { w->r->hosts, w->r->n_hosts, NULL };

	reach_why(w->r, per, why, sizeof(why));
	socket_advice(w, &hs, per, why);
	for (size_t h = 0; h < w->r->n_hosts; h++)
		cd_strv_free(&per[h]);
	free(per);
}

static void l_noroute(struct cd_walk *w)
{
	char why[1024];
	struct cd_strv *per = xcalloc(w->r->n_hosts, sizeof(*per));

	for (size_t h = 0; h < w->r->n_hosts; h++)
		routed_ifaces(w->r, &w->r->hosts[h], &per[h]);
	reach_why(w->r, per, why, sizeof(why));
	for (size_t h = 0; h < w->r->n_hosts; h++)
		cd_strv_free(&per[h]);
	free(per);
	emit(w, NULL, "fix routing or the firewall between the hosts (ip route get <peer address>; "
		 "nc -l / nc <peer> <port>) before setting any interface variable", NULL,
	     "no interface accepts connections from every other host: %s", why);
}

/* ---- timeouts and stragglers ---- */

static int q_timeout(struct cd_walk *w)
{
	int any = has(w, "MPI003") | has(w, "NCCL004") | has(w, "NCCL003") | has(w, "LOG001");

	for (size_t i = 0; i < w->r->n_probes; i++)
		if (w->r->probes[i].status == CD_ST_TIMEOUT)
			any = 1;
	return any;
}

static void l_timeout(struct cd_walk *w)
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
	if (slow)
		emit(w, NULL, "drain or inspect the straggling host before the next run (nvidia-smi -q -d "
			 "PERFORMANCE,CLOCK; dmesg for Xid; ibstat)", slow->host, "%s", who);
	/* what to collect next: NCCL's own trace and PyTorch's flight recorder */
	emit(w, "NCCL_DEBUG", "INFO", NULL, "%s; collect NCCL's view of the next run", who);
	emit(w, "NCCL_DEBUG_SUBSYS", "INIT,NET", NULL, "%s; transport and network selection", who);
	emit(w, "TORCH_NCCL_TRACE_BUFFER_SIZE", "2000", NULL, "%s; keep the last collectives of every rank "
	     "(flight recorder)", who);
	emit(w, "TORCH_NCCL_DUMP_ON_TIMEOUT", "1", NULL, "%s; dump the flight recorder when the watchdog fires", who);
	if (isfinite(timeout_s)) {
		/* the heartbeat monitor must outlive the collective timeout, or it kills the dump */
		double hb_s = fmax(480.0, timeout_s + 120.0);

		snprintf(hb, sizeof(hb), "%.0f", hb_s);
		emit(w, "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", hb, NULL,
		     "the collective timeout was %.0f s: the watchdog heartbeat must outlast it to write the dump", timeout_s);
	}
}

/* ---- rails: one subnet per RDMA port, the same set on every host ---- */

static int port_active(const struct cd_ib_port *p)
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

			if (!port_active(p))
				continue;
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
static int q_rails(struct cd_walk *w)
{
	char first[MAX_RAILS][48], other[MAX_RAILS][48];
	size_t n0, n;
	int unset = 0;

	if (w->r->n_hosts < 2 || host_rails(&w->r->hosts[0], first, &n0) < 0 || n0 < 2)
		return 0;
	for (size_t i = 0; i < w->r->n_hosts; i++) {
		const char *v = env_get(&w->r->hosts[i], "NCCL_CROSS_NIC");

		if (i && (host_rails(&w->r->hosts[i], other, &n) < 0 || n != n0))
			return 0;
		for (size_t k = 0; i && k < n; k++)
			if (strcmp(first[k], other[k]))
				return 0;
		unset |= !str_eq(v, "0");
	}
	return unset;
}

static void l_cross_nic(struct cd_walk *w)
{
	char rails[MAX_RAILS][48], list[MAX_RAILS * 50];
	size_t n, used = 0;

	host_rails(&w->r->hosts[0], rails, &n);
	list[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", rails[i]);
	emit(w, "NCCL_CROSS_NIC", "0", NULL, "every host has %zu RDMA ports, each on its own subnet (%s), the same "
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

/* IB completions failing with "retry exceeded" on InfiniBand (RoCE has its own branch). */
static int q_flaky(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG007");

	if (!f || (f->subject && strstr(f->subject, "RoCE")))
		return 0;
	note(w, "LOG007");
	return 1;
}

static void l_ib_timeout(struct cd_walk *w)
{
	const char *cur = NULL;
	long v;
	char val[24];

	for (size_t i = 0; i < w->r->n_hosts && !cur; i++)
		cur = env_get(&w->r->hosts[i], "NCCL_IB_TIMEOUT");
	/* NCCL's default is 20 (4.096 us * 2^20, about 4 s); one step up doubles it */
	v = cur ? strtol(cur, NULL, 10) + 2 : 22;
	snprintf(val, sizeof(val), "%ld", v > 31 ? 31 : v);
	/* status 12 at the first transfer is usually no path at all: on RoCE, the wrong GID */
	if (!any_roce_known(w->r))
		emit(w, NULL, "if the fabric is RoCE: show_gids, then export NCCL_IB_GID_INDEX set to the RoCE v2 GID "
			 "with an IPv4 address (commdiag check on the host computes it)", NULL, "completions timed out "
		     "(status 12) and the log does not say whether the ports are IB or RoCE; on RoCE a wrong GID "
		     "index fails exactly like this");
	emit(w, "NCCL_IB_TIMEOUT", val, NULL, "RDMA completions failed with transport retry exceeded "
	     "(status 12); on InfiniBand a longer timeout rides out a flaky link while you check it (ibdiagnet, "
	     "port counters)");
}

/* ---- environment settings the linter flagged ---- */

static int q_envfix(struct cd_walk *w)
{
	int any = 0;

	for (size_t i = 0; i < w->r->n_findings; i++)
		if (starts(w->r->findings[i].id, "ENV") && strcmp(w->r->findings[i].id, "ENV006"))
			note(w, w->r->findings[i].id), any = 1;
	return any;
}

static const char *env_any_host(const struct cd_results *r, const char *name)
{
	for (size_t h = 0; h < r->n_hosts; h++) {
		const char *v = env_get(&r->hosts[h], name);

		if (v)
			return v;
	}
	return NULL;
}

static void l_envfix(struct cd_walk *w)
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
			emit(w, near, val, NULL, "%s is not a variable anyone reads; %s is", name, near);
			emit(w, name, NULL, NULL, "misspelt; replaced by %s", near);
		} else if (!strcmp(f->id, "ENV002") && e && e->arg && val) {
			emit(w, e->arg, val, NULL, "%s was renamed %s", name, e->arg);
			emit(w, name, NULL, NULL, "deprecated name of %s", e->arg);
		} else if (!strcmp(f->id, "ENV003") || !strcmp(f->id, "ENV004")) {
			emit(w, name, NULL, NULL, "%s: %s", f->title, last);
		} else if (!strcmp(f->id, "ENV007") && !w->r->hosts[0].n_hcas) {
			emit(w, name, NULL, NULL, "%s", last);
		} else if (!strcmp(f->id, "ENV005")) {
			char *ex = xstrdup(name);
			char *p = strstr(ex, "_include");

			if (p) {
				memcpy(p, "_exclude", 8);
				emit(w, ex, NULL, NULL, "Open MPI aborts when if_include and if_exclude are both set; "
				     "keep the include list");
			}
			free(ex);
		} else if (!strcmp(f->id, "ENV008")) {
			emit(w, name, NULL, NULL, "%s", last);
		}
	}
	cd_envcat_free(&cat);
}

/* ---- a log with errors that no branch explained ---- */

static int q_unexplained(struct cd_walk *w)
{
	return has(w, "LOG099");
}

static void l_collect(struct cd_walk *w)
{
	emit(w, "NCCL_DEBUG", "INFO", NULL, "the log shows an error but not its cause; run again with NCCL's "
	     "INFO log (and TORCH_DISTRIBUTED_DEBUG=DETAIL under PyTorch)");
	emit(w, "NCCL_DEBUG_SUBSYS", "INIT,NET", NULL, "initialisation and network selection are where most "
	     "failures show their cause");
}

/* ---- socket interface on one host ---- */

static int q_single(struct cd_walk *w)
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

static int socket_failures(struct cd_walk *w)
{
	return has(w, "NET001") | has(w, "LOG003") | has(w, "LOG010") | has(w, "ENV006") | has(w, "NET002");
}

static int q_sock_need(struct cd_walk *w)
{
	const struct cd_nic *c = chosen_nic(w->h);
	static const char *const vars[] = { "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME" };
	int others = 0;

	if (socket_failures(w))
		return 1;
	/* another addressed interface that NCCL or Open MPI might pick instead */
	for (size_t i = 0; i < w->h->n_nics; i++) {
		const struct cd_nic *n = &w->h->nics[i];

		/* NCCL uses link-local IPv6 interfaces too (a veth with fe80:: only is a classic) */
		if (n != c && n->kind != CD_NIC_LOOPBACK && cd_nic_is_up(n) && (n->ipv4.n || n->ipv6.n) && !n->master)
			others++;
	}
	if (!c)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = env_get(w->h, vars[i]);

		if (v && !starts(c->name, v[0] == '=' ? v + 1 : v))
			return 1;
	}
	return others > 0;
}

static int q_sock_usable(struct cd_walk *w)
{
	return chosen_nic(w->h) != NULL;
}

static void l_iface_host(struct cd_walk *w)
{
	const struct cd_nic *c = chosen_nic(w->h);
	char why[512], skipped[256];
	size_t used = 0;

	skipped[0] = '\0';
	for (size_t i = 0; i < w->h->n_nics && used < sizeof(skipped); i++) {
		const struct cd_nic *n = &w->h->nics[i];

		if (n != c && n->kind != CD_NIC_LOOPBACK && cd_nic_is_up(n) && (n->ipv4.n || n->ipv6.n))
			used += (size_t)snprintf(skipped + used, sizeof(skipped) - used, "%s%s (%s)", used ? ", " : "",
						 n->name, virtual_nic(n) ? cd_nic_kind_str(n->kind) : "not the routed one");
	}
	snprintf(why, sizeof(why), "%s is %s%s%s%s", c->name,
		 c->default_route == CD_TRI_TRUE ? "the default-route interface" : "the first physical interface with an address",
		 c->ipv4.n ? " (" : "", c->ipv4.n ? c->ipv4.v[0] : "", c->ipv4.n ? ")" : "");
	if (*skipped)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; not %s", skipped);
	{
		struct hostset hs = { w->h, 1, scope_host(w) };
		struct cd_strv per = { 0 };

		cd_strv_push(&per, c->name);
		socket_advice(w, &hs, &per, why);
		cd_strv_free(&per);
	}
}

static void l_noiface(struct cd_walk *w)
{
	const char *set = env_any_host(w->r, "NCCL_SOCKET_IFNAME");
	const struct cd_finding *f = finding(w, "LOG003");

	if (set) {
		emit(w, "NCCL_SOCKET_IFNAME", NULL, scope_host(w), "NCCL_SOCKET_IFNAME=%s selects no usable interface "
		     "here%s; unset, NCCL picks one itself (or name one that exists: commdiag check lists them)", set,
		     f ? " and the bootstrap failed" : "");
		return;
	}
	if (w->h->n_nics || !f) {
		emit(w, NULL, "bring up an interface with an address that reaches the other hosts (ip link set <dev> up; "
			 "ip addr add …)", scope_host(w), "no usable interface: every interface is down, loopback, "
			 "virtual or without an address");
		return;
	}
	/* a log without the interface list: name the check that finds the routed interface */
	emit(w, NULL, "run 'commdiag check' on each host and export the NCCL_SOCKET_IFNAME it recommends (the "
		 "interface that routes to the other hosts); check firewalls between them", scope_host(w),
	     "ranks could not connect%s%s, and the log does not list the interfaces NCCL chose",
	     f->subject ? " to " : "", f->subject ? f->subject : "");
}

/* An MPI/socket connection failed to a known address, and no good interface is known. */
static int q_sock_badaddr(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG010");

	return f && f->subject && strchr(f->subject, '.');
}

static void l_ompi_exclude(struct cd_walk *w)
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
	emit(w, "OMPI_MCA_btl_tcp_if_exclude", val, NULL, "peers advertised %s, which the others cannot reach; "
	     "excluding it (loopback stays excluded, as by default) leaves the routed interface",
	     addrs.n > 1 ? addrs.v[1] : "an address");
	cd_strv_free(&addrs);
	if (env_any_host(w->r, "OMPI_MCA_btl_tcp_if_include"))
		emit(w, "OMPI_MCA_btl_tcp_if_include", NULL, NULL, "Open MPI refuses if_include and if_exclude together");
}

/* ---- RDMA ---- */

/* RDMA devices discovered, or a log whose RDMA lines failed (no HCA list needed). */
static int q_rdma(struct cd_walk *w)
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

static int q_ib_disabled(struct cd_walk *w)
{
	const char *v = env_get(w->h, "NCCL_IB_DISABLE");

	return v && strtol(v, NULL, 10) == 1 && any_active(w->h);
}

static void l_ib_enable(struct cd_walk *w)
{
	emit(w, "NCCL_IB_DISABLE", NULL, scope_host(w), "RDMA ports are active on %s but NCCL_IB_DISABLE=1 "
	     "sends all traffic through TCP sockets", w->h->hostname ? w->h->hostname : "this host");
}

static int q_ib_down(struct cd_walk *w)
{
	int down = 0;

	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++)
			down |= !port_active(&w->h->hcas[i].ports[k]);
	if (down)
		has(w, "IB001");
	return down || has(w, "IB001");
}

static int q_ib_rates(struct cd_walk *w)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++) {
			const struct cd_ib_port *p = &w->h->hcas[i].ports[k];

			if (port_active(p) && isfinite(p->rate_gbit_s)) {
				lo = fmin(lo, p->rate_gbit_s);
				hi = fmax(hi, p->rate_gbit_s);
			}
		}
	return hi > 0 && lo < hi;
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

static int q_ib_far(struct cd_walk *w)
{
	int near = 0, far = 0;

	for (size_t i = 0; i < w->h->n_hcas; i++) {
		int d = hca_distance(w->h, w->h->hcas[i].name);

		near |= d <= 2;
		far |= d == 4;
	}
	return near && far;
}

static void l_ib_hca(struct cd_walk *w)
{
	struct cd_strv in = { 0 }, out = { 0 };
	double best = 0;
	char val[256], why[512];
	size_t used = 0;
	int only_unused = 1; /* every port left out is down or not active: nothing to choose between */

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
						  : d == 4 && w->h->paths.gpus.n ? "SYS from every GPU"
										 : NULL;

				if (bad) {
					only_unused &= !port_active(p);
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
		emit(w, NULL, "bring an RDMA port up: check the cable and the subnet manager (ibstat; "
			 "systemctl status opensm)", scope_host(w), "no active port: %s", why);
	} else {
		/* leaving out idle ports by name keeps every other HCA, also one added later */
		struct cd_strv *named = only_unused && out.n < in.n ? &out : &in;
		int exact = 0;

		/* NCCL_IB_HCA matches prefixes: mlx5_1 would also take mlx5_10 */
		for (size_t i = 0; i < w->h->n_hcas; i++)
			for (size_t k = 0; k < named->n; k++) {
				size_t l = strcspn(named->v[k], ":");

				if (!strncmp(w->h->hcas[i].name, named->v[k], l) && strlen(w->h->hcas[i].name) != l)
					exact = 1;
			}
		join(named, val, sizeof(val), named == &out ? (exact ? "^=" : "^") : exact ? "=" : "");
		if (named == &out)
			emit(w, "NCCL_IB_HCA", val, scope_host(w), "leave out %s; every other port is active at %.0f Gb/s",
			     why, best);
		else
			emit(w, "NCCL_IB_HCA", val, scope_host(w), "use %s; leave out %s", val, why);
	}
	cd_strv_free(&in);
	cd_strv_free(&out);
}

static int q_roce(struct cd_walk *w)
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

static int q_nccl_old(struct cd_walk *w)
{
	long v = version_num(w->h->versions.nccl);

	return v < 0 || v < 22100;
}

static int q_gid_set(struct cd_walk *w)
{
	return env_get(w->h, "NCCL_IB_GID_INDEX") != NULL;
}

static void l_gid_set(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_hcas; i++)
		for (size_t k = 0; k < w->h->hcas[i].n_ports; k++) {
			const struct cd_ib_port *p = &w->h->hcas[i].ports[k];
			char val[24];

			if (!str_eq(p->link_layer, "ethernet") || !port_active(p))
				continue;
			if (p->roce_v2_gid_index != CD_NULL_I64) {
				snprintf(val, sizeof(val), "%" PRId64, p->roce_v2_gid_index);
				emit(w, "NCCL_IB_GID_INDEX", val, scope_host(w), "GID %s of %s port %" PRId64
				     " is RoCE v2 with an IPv4 address; NCCL %s picks GID 0 (RoCE v1) unless told",
				     val, w->h->hcas[i].name, p->port, w->h->versions.nccl ? w->h->versions.nccl : "(version unknown)");
			} else {
				char *cmd = xasprintf("show_gids %s (or commdiag check on that host): export NCCL_IB_GID_INDEX "
						      "set to the index of the RoCE v2 GID with an IPv4 address", w->h->hcas[i].name);

				emit(w, NULL, cmd, scope_host(w), "RoCE port %s:%" PRId64 " with NCCL %s, which uses GID 0 "
				     "(RoCE v1) unless NCCL_IB_GID_INDEX names the RoCE v2 one%s", w->h->hcas[i].name, p->port,
				     w->h->versions.nccl ? w->h->versions.nccl : "(version unknown)",
				     finding(w, "LOG007") ? "; completions timed out (status 12), as with a wrong GID" : "");
				free(cmd);
			}
			return;
		}
}

static void l_gid_unset(struct cd_walk *w)
{
	emit(w, "NCCL_IB_GID_INDEX", NULL, scope_host(w), "NCCL %s selects the RoCE v2 GID itself (since 2.21); "
	     "a fixed index breaks when the GID table changes", w->h->versions.nccl);
}

static int q_memlock(struct cd_walk *w)
{
	int low = w->h->n_hcas && w->h->system.memlock_unlimited == CD_TRI_FALSE;

	return has(w, "SYS002") | has(w, "LOG008") | low;
}

static int in_container(const struct cd_host *h)
{
	return h->system.container && strcmp(h->system.container, "none");
}

static void l_memlock(struct cd_walk *w)
{
	char have[32] = "n/a";

	if (w->h->system.memlock_bytes != CD_NULL_I64)
		cd_fmt_bytes(have, sizeof(have), w->h->system.memlock_bytes);
	if (in_container(w->h))
		emit(w, NULL, "restart the container with --ulimit memlock=-1:-1 (Kubernetes: raise the container "
			 "runtime's default memlock limit)", scope_host(w), "RDMA registers memory with the locked-memory "
			 "limit, %s in this %s container", have, w->h->system.container);
	emit(w, NULL, "add '* soft memlock unlimited' and '* hard memlock unlimited' to /etc/security/limits.conf "
		 "(and LimitMEMLOCK=infinity for slurmd or the service that starts jobs), then log in again",
	     scope_host(w), "the locked-memory limit is %s; ibv_reg_mr needs it unlimited", have);
	emit(w, NULL, "ulimit -l unlimited   # in the job script, when the hard limit allows", scope_host(w),
	     "the limit for this shell; limits.conf makes it stick");
}

static int q_peermem(struct cd_walk *w)
{
	int missing = w->h->n_gpus && w->h->n_hcas && w->h->system.peermem == CD_TRI_FALSE;

	return has(w, "LOG011") | missing;
}

static void l_peermem(struct cd_walk *w)
{
	long v = version_num(w->h->versions.nccl);

	emit(w, NULL, "modprobe nvidia-peermem && echo nvidia-peermem > /etc/modules-load.d/nvidia-peermem.conf",
	     scope_host(w), "GPUDirect RDMA needs the nvidia-peermem module: without it NICs read GPU memory "
	     "through host bounce buffers%s", v >= 0 && v < 22304 ? "; NCCL before 2.23.4 looks only for the "
	     "older nv_peer_mem name, so also upgrade NCCL (or use a DMA-BUF capable driver and kernel)" : "");
}

static int q_devib(struct cd_walk *w)
{
	return in_container(w->h) && w->h->system.dev_infiniband == CD_TRI_FALSE && w->h->n_hcas > 0;
}

static void l_devib(struct cd_walk *w)
{
	emit(w, NULL, "start the container with --device=/dev/infiniband --cap-add=IPC_LOCK (Kubernetes: an RDMA "
		 "device plugin resource)", scope_host(w), "%zu RDMA device%s on the host, but /dev/infiniband is "
	     "not in this %s container: verbs cannot open them", w->h->n_hcas, w->h->n_hcas == 1 ? "" : "s",
	     w->h->system.container);
}

/* ---- GPU peer-to-peer ---- */

static int q_gpus2(struct cd_walk *w)
{
	return w->h->n_gpus >= 2 || has(w, "LOG005") || has(w, "P2P002");
}

static int q_acs(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_acs; i++)
		if (w->h->acs[i].redirect == CD_TRI_TRUE)
			return has(w, "P2P002"), 1;
	return has(w, "P2P002");
}

static void l_acs(struct cd_walk *w)
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
		emit(w, NULL, cmd, scope_host(w), "ACS redirect on bridge %s (control 0x%04" PRIx64 ") sends GPU "
		     "peer traffic up to the root complex, where P2P stalls or hangs; as root, until reboot",
		     a->bus_id, a->ctrl == CD_NULL_I64 ? 0 : (uint64_t)a->ctrl);
		used += (size_t)snprintf(buses + used, used < sizeof(buses) ? sizeof(buses) - used : 0, "%s%s",
					 used ? ", " : "", a->bus_id);
		free(cmd);
	}
	emit(w, NULL, "disable ACS in the BIOS (or boot with pci=noacs on bare metal) so it stays off after reboot",
	     scope_host(w), "the setpci change is lost on reboot%s%s", *buses ? "; bridges: " : "", buses);
	emit(w, "NCCL_P2P_DISABLE", "1", scope_host(w), "workaround until ACS is off%s%s: NCCL uses shared memory "
	     "instead of P2P (slower, but no hang)", *buses ? " on " : "", buses);
}

/* On, or unknown while a log shows P2P failing (the IOMMU is the usual cause). */
static int q_iommu(struct cd_walk *w)
{
	if (!w->h->system.iommu && finding(w, "LOG005"))
		return 1;
	return w->h->n_gpus >= 2 && str_eq(w->h->system.iommu, "on");
}

static void l_iommu(struct cd_walk *w)
{
	emit(w, NULL, "boot with iommu=pt (intel_iommu=on iommu=pt, or amd_iommu=on iommu=pt) so GPU DMA is not "
		 "translated; or disable VT-d/AMD-Vi in the BIOS on bare metal", scope_host(w),
	     "%s%s%s: GPU peer-to-peer through a translating IOMMU fails or hangs",
	     w->h->system.iommu ? "the IOMMU translates DMA (" : "peer access failed and the IOMMU state is not known "
	     "(check dmesg | grep -i -e DMAR -e IOMMU", w->h->system.iommu_evidence ? w->h->system.iommu_evidence : "",
	     ")");
	emit(w, "NCCL_P2P_DISABLE", "1", scope_host(w), "workaround until the IOMMU is in passthrough");
}

static int q_p2p_broken(struct cd_walk *w)
{
	const struct cd_paths *p = &w->h->paths;
	size_t n = p->gpus.n;

	for (size_t i = 0; p->cuda_p2p && i < n * n; i++)
		if (i / n != i % n && p->cuda_p2p[i] == CD_TRI_FALSE && p->gpu_gpu && p->gpu_gpu[i] &&
		    strcmp(p->gpu_gpu[i], "SYS"))
			return 1;
	return has(w, "LOG005");
}

static void l_p2p_disable(struct cd_walk *w)
{
	const struct cd_finding *f = finding(w, "LOG005");

	if (env_get(w->h, "NCCL_P2P_DISABLE") && !strcmp(env_get(w->h, "NCCL_P2P_DISABLE"), "1"))
		return;
	emit(w, "NCCL_P2P_DISABLE", "1", scope_host(w), "%s; NCCL falls back to shared memory. The real fix is "
	     "ACS off on the PCIe bridges and iommu=pt (see the ACS and IOMMU questions)",
	     f && f->evidence.n ? f->evidence.v[0] : "the driver reports P2P unsupported between GPUs the topology "
	     "says are close");
}

static int q_cumem(struct cd_walk *w)
{
	return has(w, "LOG013");
}

static void l_cumem(struct cd_walk *w)
{
	emit(w, "NCCL_CUMEM_HOST_ENABLE", "0", scope_host(w), "P2P failed on cuMem host allocations; NCCL then "
	     "uses the older host allocation path");
}

/* ---- shared memory ---- */

static int q_shm(struct cd_walk *w)
{
	int small = in_container(w->h) && w->h->system.shm_bytes != CD_NULL_I64 && w->h->system.shm_bytes < (1LL << 30);

	return has(w, "SYS001") | has(w, "LOG004") | small;
}

static void l_shm(struct cd_walk *w)
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
	emit(w, NULL, cmd, scope_host(w), "/dev/shm is %s %s and NCCL's shared-memory transport allocates its buffers "
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

static int q_nvswitch(struct cd_walk *w)
{
	return nvswitch_gpus(w->h) | has(w, "GPU002") | has(w, "LOG012") | has(w, "LOG014");
}

static int q_fm_down(struct cd_walk *w)
{
	const char *fm = w->h->system.fabric_manager;
	int down = fm && strcmp(fm, "running") && strcmp(fm, "active");

	return has(w, "GPU002") | has(w, "LOG012") | down;
}

static void l_fm(struct cd_walk *w)
{
	char *cmd = w->h->versions.driver
			    ? xasprintf("systemctl enable --now nvidia-fabricmanager   (package version %s, the driver's)",
					w->h->versions.driver)
			    : xstrdup("systemctl enable --now nvidia-fabricmanager   (the same version as the driver)");

	emit(w, NULL, cmd, scope_host(w), "GPUs behind NVSwitches stay uninitialised (CUDA error 802, system not yet "
	     "initialized) until the fabric manager runs%s%s", w->h->system.fabric_manager ? "; it is " : "",
	     w->h->system.fabric_manager ? w->h->system.fabric_manager : "");
	free(cmd);
}

static int q_nvls(struct cd_walk *w)
{
	return has(w, "LOG014");
}

static void l_nvls(struct cd_walk *w)
{
	emit(w, "NCCL_NVLS_ENABLE", "0", scope_host(w), "NVLS (NVLink SHARP) setup failed; without it NCCL uses "
	     "rings and trees over NVLink. Fix: restart the fabric manager with no GPU process running, or reboot");
}

/* ---- PCIe ---- */

static int q_pcie(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_gpus; i++) {
		const struct cd_gpu *g = &w->h->gpus[i];

		/* width is fixed at training; a lower generation at idle is power saving, so only PCIE001 says so */
		if (g->pcie_width != CD_NULL_I64 && g->pcie_max_width != CD_NULL_I64 && g->pcie_width < g->pcie_max_width)
			return 1;
	}
	return has(w, "PCIE001");
}

static void l_pcie(struct cd_walk *w)
{
	for (size_t i = 0; i < w->h->n_gpus; i++) {
		const struct cd_gpu *g = &w->h->gpus[i];
		char *cmd;

		if (g->pcie_width == CD_NULL_I64 || g->pcie_max_width == CD_NULL_I64 || g->pcie_width >= g->pcie_max_width)
			continue;
		cmd = xasprintf("reseat GPU %" PRId64 " (%s) or move it to another slot; check the riser and the BIOS "
				"slot settings", g->index, g->bus_id ? g->bus_id : "?");
		emit(w, NULL, cmd, scope_host(w), "link x%" PRId64 " gen %" PRId64 " measured, x%" PRId64 " gen %" PRId64
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
		emit(w, NULL, cmd, scope_host(w), "%s: measured %.1f, expected %.1f %s", f->title, f->measured,
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

		if (!n->name || n->kind == CD_NIC_LOOPBACK || !cd_nic_is_up(n) || !nic_has_address(n))
			continue;
		if (n->kind == CD_NIC_VETH) {
			veth++;
			if (names)
				cd_strv_push(names, n->ipv4.n ? xasprintf("%s %s", n->name, n->ipv4.v[0]) : xstrdup(n->name));
		} else {
			other++;
		}
	}
	return veth && !other;
}

static int q_container_net(struct cd_walk *w)
{
	if (!in_container(w->h) || !bridge_only(w->h, NULL))
		return 0;
	return w->r->n_hosts > 1 || has(w, "LOG003") || has(w, "TCP001") || has(w, "NET001");
}

static void l_net_host(struct cd_walk *w)
{
	struct cd_strv names = { 0 };
	char list[256] = "";

	bridge_only(w->h, &names);
	for (size_t i = 0; i < names.n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", names.v[i]);
	emit(w, NULL, "restart the container with --network=host (Kubernetes: hostNetwork: true, or a macvlan or SR-IOV "
		 "network for the job's NICs)", scope_host(w),
	     "this %s container's only interfaces are veth ends of a bridge (%s): their addresses do not reach the "
	     "other hosts' containers, and NCCL and Open MPI see none of the host's NICs or HCAs",
	     w->h->system.container, list);
	cd_strv_free(&names);
}

/* ---- the tree ---- */

enum {
	J_MULTI, J_DUPHOST, L_HOSTID, J_DUPGPU, J_DUPGPU_HOSTS, L_HOSTID_LOG, L_SETDEVICE,
	J_VERS, L_VERS,
	J_REACH, J_REACH_ALL, J_REACH_SAME, L_IFACE_JOB, L_IFACE_PREFIX, L_NOROUTE, J_RAILS, L_CROSS_NIC,
	J_TIMEOUT, L_TIMEOUT, J_FLAKY, L_IBTIMEOUT, J_ENV, L_ENVFIX, J_UNEXPLAINED, L_COLLECT,
	H_CNET, L_NETHOST, H_SOCK, H_SOCK_NEED, H_SOCK_USABLE, L_IFACE_HOST, H_SOCK_BADADDR, L_OMPI_EXCLUDE, L_NOIFACE,
	H_IB, H_IB_DISABLED, L_IB_ENABLE, H_IB_DOWN, H_IB_RATES, H_IB_FAR, L_IB_HCA, H_ROCE, H_ROCE_OLD, L_GID_SET,
	H_GID_SET, L_GID_UNSET, H_MEMLOCK, L_MEMLOCK, H_PEERMEM, L_PEERMEM, H_DEVIB, L_DEVIB,
	H_P2P, H_ACS, L_ACS, H_IOMMU, L_IOMMU, H_P2P_BROKEN, L_P2P_DISABLE, H_CUMEM, L_CUMEM,
	H_SHM, L_SHM, H_NVS, H_FM, L_FM, H_NVLS, L_NVLS, H_PCIE, L_PCIE,
	N_NODES
};

#define Q(id, nm, sc, tp, txt, fn, y, n) [id] = { nm, txt, sc, tp, fn, NULL, y, n, -1 }
#define L(id, nm, sc, txt, fn, nx) [id] = { nm, txt, sc, NULL, NULL, fn, -1, -1, nx }
#define J CD_SCOPE_JOB
#define H CD_SCOPE_HOST

static const struct cd_advise_node tree[N_NODES] = {
	Q(J_MULTI, "job.multi", J, "host identity", "several hosts in the job?", q_multi, J_DUPHOST, J_DUPGPU),
	Q(J_DUPHOST, "job.dup-host", J, NULL, "a hostname or host id repeated across hosts?", q_dup_host, L_HOSTID, J_DUPGPU),
	L(L_HOSTID, "leaf.hostid", J, "distinct hostnames; NCCL_HOSTID per host", l_hostid, J_DUPGPU),
	Q(J_DUPGPU, "job.dup-gpu", J, NULL, "two ranks on one GPU (Duplicate GPU detected)?", q_dup_gpu, J_DUPGPU_HOSTS, J_VERS),
	Q(J_DUPGPU_HOSTS, "job.dup-gpu-hosts", J, NULL, "those ranks on differently named hosts?", q_dup_gpu_hosts,
	  L_HOSTID_LOG, L_SETDEVICE),
	L(L_HOSTID_LOG, "leaf.hostid-log", J, "distinct hostnames; NCCL_HOSTID per host", l_hostid, J_VERS),
	L(L_SETDEVICE, "leaf.set-device", J, "one GPU per rank: set the device before init", l_set_device, J_VERS),
	Q(J_VERS, "job.versions", J, "versions", "NCCL, driver or CUDA versions differ between hosts?", q_versions, L_VERS, J_REACH),
	L(L_VERS, "leaf.versions", J, "install the same versions everywhere", l_versions, J_REACH),
	Q(J_REACH, "job.reach", J, "socket interface", "several hosts with TCP reachability results?", q_reach,
	  J_REACH_ALL, J_RAILS),
	Q(J_REACH_ALL, "job.reach-all", J, NULL, "every host has an interface every other host reaches?", q_reach_all,
	  J_REACH_SAME, L_NOROUTE),
	Q(J_REACH_SAME, "job.reach-same", J, NULL, "the same interface name on every host?", q_reach_same, L_IFACE_JOB,
	  L_IFACE_PREFIX),
	L(L_IFACE_JOB, "leaf.iface-job", J, "NCCL/Gloo/Open MPI/UCX on the routed interface", l_iface_job, J_RAILS),
	L(L_IFACE_PREFIX, "leaf.iface-prefix", J, "a prefix list valid on every host; per-host names for Gloo and UCX",
	  l_iface_job, J_RAILS),
	L(L_NOROUTE, "leaf.no-route", J, "fix routing or the firewall first", l_noroute, J_RAILS),
	Q(J_RAILS, "job.rails", J, "rdma rails", "every host's RDMA ports on their own subnets, the same on all hosts "
	  "(and NCCL_CROSS_NIC not 0)?", q_rails, L_CROSS_NIC, J_TIMEOUT),
	L(L_CROSS_NIC, "leaf.cross-nic", J, "NCCL_CROSS_NIC=0: keep each ring on its rail", l_cross_nic, J_TIMEOUT),
	Q(J_TIMEOUT, "job.timeout", J, "timeouts", "a collective timed out or a rank straggled?", q_timeout, L_TIMEOUT, J_FLAKY),
	L(L_TIMEOUT, "leaf.timeout", J, "name the rank; what to collect next; timeouts for the next run", l_timeout, J_FLAKY),
	Q(J_FLAKY, "job.ib-flaky", J, "flaky fabric", "InfiniBand completions failing with retry exceeded?", q_flaky,
	  L_IBTIMEOUT, J_ENV),
	L(L_IBTIMEOUT, "leaf.ib-timeout", J, "a longer NCCL_IB_TIMEOUT while the link is checked", l_ib_timeout, J_ENV),
	Q(J_ENV, "job.env", J, "environment", "settings the env linter flagged?", q_envfix, L_ENVFIX, J_UNEXPLAINED),
	L(L_ENVFIX, "leaf.env", J, "rename, unset or correct each flagged setting", l_envfix, J_UNEXPLAINED),
	Q(J_UNEXPLAINED, "job.unexplained", J, "unexplained errors", "errors in a log that no branch explains?",
	  q_unexplained, L_COLLECT, -1),
	L(L_COLLECT, "leaf.collect", J, "collect NCCL's INFO log", l_collect, -1),

	Q(H_CNET, "host.container-net", H, "container network", "a container on a bridge network (only veth "
	  "interfaces) in a job of several hosts, or with failed connections?", q_container_net, L_NETHOST, H_SOCK),
	L(L_NETHOST, "leaf.net-host", H, "--network=host (Kubernetes: hostNetwork: true)", l_net_host, H_IB),
	Q(H_SOCK, "host.socket", H, "socket interface", "one host, or no reachability results?", q_single,
	  H_SOCK_NEED, H_IB),
	Q(H_SOCK_NEED, "host.socket-need", H, NULL, "the socket interface ambiguous, misconfigured or failing?",
	  q_sock_need, H_SOCK_USABLE, H_IB),
	Q(H_SOCK_USABLE, "host.socket-usable", H, NULL, "a usable interface (default route first)?", q_sock_usable,
	  L_IFACE_HOST, H_SOCK_BADADDR),
	L(L_IFACE_HOST, "leaf.iface-host", H, "NCCL/Gloo/Open MPI/UCX on the default-route interface", l_iface_host, H_IB),
	Q(H_SOCK_BADADDR, "host.socket-badaddr", H, NULL, "a connection failed to a known address?", q_sock_badaddr,
	  L_OMPI_EXCLUDE, L_NOIFACE),
	L(L_OMPI_EXCLUDE, "leaf.ompi-exclude", H, "exclude the unreachable address from Open MPI", l_ompi_exclude, H_IB),
	L(L_NOIFACE, "leaf.no-iface", H, "bring up a routed interface", l_noiface, H_IB),
	Q(H_IB, "host.rdma", H, "rdma", "RDMA devices on this host?", q_rdma, H_IB_DISABLED, H_DEVIB),
	Q(H_IB_DISABLED, "host.ib-disabled", H, NULL, "NCCL_IB_DISABLE=1 while a port is active?", q_ib_disabled,
	  L_IB_ENABLE, H_IB_DOWN),
	L(L_IB_ENABLE, "leaf.ib-enable", H, "unset NCCL_IB_DISABLE", l_ib_enable, H_IB_DOWN),
	Q(H_IB_DOWN, "host.ib-down", H, NULL, "a port down or not active?", q_ib_down, L_IB_HCA, H_IB_RATES),
	Q(H_IB_RATES, "host.ib-rates", H, NULL, "active ports at different rates?", q_ib_rates, L_IB_HCA, H_IB_FAR),
	Q(H_IB_FAR, "host.ib-far", H, NULL, "an HCA SYS-far from every GPU while another is near?", q_ib_far, L_IB_HCA,
	  H_ROCE),
	L(L_IB_HCA, "leaf.ib-hca", H, "NCCL_IB_HCA: active, fastest, GPU-near ports first", l_ib_hca, H_ROCE),
	Q(H_ROCE, "host.roce", H, NULL, "an active RoCE port?", q_roce, H_ROCE_OLD, H_MEMLOCK),
	Q(H_ROCE_OLD, "host.roce-old", H, NULL, "NCCL older than 2.21 (or unknown)?", q_nccl_old, L_GID_SET, H_GID_SET),
	L(L_GID_SET, "leaf.gid-set", H, "NCCL_IB_GID_INDEX: the RoCE v2 IPv4 GID", l_gid_set, H_MEMLOCK),
	Q(H_GID_SET, "host.gid-set", H, NULL, "NCCL_IB_GID_INDEX set anyway?", q_gid_set, L_GID_UNSET, H_MEMLOCK),
	L(L_GID_UNSET, "leaf.gid-unset", H, "unset NCCL_IB_GID_INDEX", l_gid_unset, H_MEMLOCK),
	Q(H_MEMLOCK, "host.memlock", H, NULL, "locked-memory limit too low for RDMA?", q_memlock, L_MEMLOCK, H_PEERMEM),
	L(L_MEMLOCK, "leaf.memlock", H, "memlock unlimited (ulimit, limits.conf, --ulimit)", l_memlock, H_PEERMEM),
	Q(H_PEERMEM, "host.peermem", H, NULL, "GPUs and RDMA but GPUDirect RDMA unavailable?", q_peermem, L_PEERMEM, H_DEVIB),
	L(L_PEERMEM, "leaf.peermem", H, "load nvidia-peermem", l_peermem, H_DEVIB),
	Q(H_DEVIB, "host.dev-infiniband", H, NULL, "a container without /dev/infiniband on an RDMA host?", q_devib,
	  L_DEVIB, H_P2P),
	L(L_DEVIB, "leaf.dev-infiniband", H, "pass /dev/infiniband into the container", l_devib, H_P2P),
	Q(H_P2P, "host.p2p", H, "gpu peer-to-peer", "two or more GPUs (or P2P errors)?", q_gpus2, H_ACS, H_SHM),
	Q(H_ACS, "host.acs", H, NULL, "ACS redirect on a PCIe bridge between GPUs?", q_acs, L_ACS, H_IOMMU),
	L(L_ACS, "leaf.acs", H, "setpci ACS off on the named bridges; NCCL_P2P_DISABLE=1 until then", l_acs, H_IOMMU),
	Q(H_IOMMU, "host.iommu", H, NULL, "the IOMMU translating DMA (on, not passthrough)?", q_iommu, L_IOMMU, H_P2P_BROKEN),
	L(L_IOMMU, "leaf.iommu", H, "iommu=pt; NCCL_P2P_DISABLE=1 until then", l_iommu, H_P2P_BROKEN),
	Q(H_P2P_BROKEN, "host.p2p-broken", H, NULL, "P2P reported unsupported or failing between GPUs?", q_p2p_broken,
	  L_P2P_DISABLE, H_CUMEM),
	L(L_P2P_DISABLE, "leaf.p2p-disable", H, "NCCL_P2P_DISABLE=1", l_p2p_disable, H_CUMEM),
	Q(H_CUMEM, "host.cumem", H, NULL, "P2P failing on cuMem host allocations?", q_cumem, L_CUMEM, H_SHM),
	L(L_CUMEM, "leaf.cumem", H, "NCCL_CUMEM_HOST_ENABLE=0", l_cumem, H_SHM),
	Q(H_SHM, "host.shm", H, "shared memory", "/dev/shm too small in a container (or shm failures)?", q_shm, L_SHM, H_NVS),
	L(L_SHM, "leaf.shm", H, "--ipc=host or --shm-size (NCCL_SHM_DISABLE=1 is the slow fallback)", l_shm, H_NVS),
	Q(H_NVS, "host.nvswitch", H, "nvswitch", "GPUs on NVSwitches (or NVSwitch errors)?", q_nvswitch, H_FM, H_PCIE),
	Q(H_FM, "host.fabric-manager", H, NULL, "fabric manager not running?", q_fm_down, L_FM, H_NVLS),
	L(L_FM, "leaf.fabric-manager", H, "systemctl enable --now nvidia-fabricmanager", l_fm, H_NVLS),
	Q(H_NVLS, "host.nvls", H, NULL, "NVLS setup failing?", q_nvls, L_NVLS, H_PCIE),
	L(L_NVLS, "leaf.nvls", H, "NCCL_NVLS_ENABLE=0 until the fabric is reset", l_nvls, H_PCIE),
	Q(H_PCIE, "host.pcie", H, "pcie", "a GPU's PCIe link below its maximum?", q_pcie, L_PCIE, -1),
	L(L_PCIE, "leaf.pcie", H, "reseat or move the GPU (measured vs expected)", l_pcie, -1),
};

const struct cd_advise_node *cd_advise_tree(size_t *n)
{
	*n = N_NODES;
	return tree;
}

static void walk(struct cd_walk *w, int start)
{
	int guard = 0;

	for (int i = start; i >= 0 && guard++ < N_NODES * 2;) {
		const struct cd_advise_node *n = &tree[i];

		if (n->topic) {
			w->nsteps = 0;
			cd_strv_free(&w->ids);
		}
		if (w->nsteps < MAX_STEPS)
			w->steps[w->nsteps] = i;
		if (n->act) {
			w->answers[w->nsteps < MAX_STEPS ? w->nsteps : MAX_STEPS - 1] = 1;
			w->nsteps += w->nsteps < MAX_STEPS;
			n->act(w);
			w->nsteps--;
			cd_strv_free(&w->ids);
			i = n->next;
			continue;
		}
		{
			int yes = n->test(w);

			if (w->nsteps < MAX_STEPS)
				w->answers[w->nsteps++] = yes;
			i = yes ? n->yes : n->no;
		}
	}
}

int cd_advise(struct cd_results *r)
{
	struct cd_walk w = { .r = r };

	walk(&w, J_MULTI);
	for (size_t i = 0; i < r->n_hosts; i++) {
		w.h = &r->hosts[i];
		walk(&w, H_CNET);
	}
	cd_strv_free(&w.ids);
	return w.added;
}
