/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cross-host rules: they read the whole job (hosts[], ranks[], reach[], the pair runs
 * of the hunt) rather than one host, so they have their own table. Each finding names the
 * hosts (and ranks) its evidence comes from. Ids: HOST###, MPI###, TCP###, NET001, NCCL004.
 */
#include "rules_hosts.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libdefaults.h"
#include "measure.h"
#include "reach.h"
#include "merge.h"

static const char *hn(const struct cd_host *h)
{
	return h->hostname ? h->hostname : "?";
}

/* "ranks 0-3" / "rank 2" / "ranks 0,2" of host i, into buf. */
static const char *ranks_of(const struct cd_results *r, size_t host, char *buf, size_t len)
{
	size_t off = 0, n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n_ranks && off + 24 < len; i++) {
		if (r->ranks[i].host_index != (int64_t)host)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%" PRId64, n++ ? "," : "", r->ranks[i].rank);
	}
	if (!n)
		return "";
	memmove(buf + (n > 1 ? 7 : 6), buf, off + 1);
	memcpy(buf, n > 1 ? " ranks " : " rank ", n > 1 ? 7 : 6);
	return buf;
}

static size_t ranks_on(const struct cd_results *r, size_t host)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_ranks; i++)
		n += r->ranks[i].host_index == (int64_t)host;
	return n;
}

/* HOST001: two hosts of the job (different MPI_COMM_TYPE_SHARED groups) that say they are the same. */
/* Sorting hosts by one identity string, so equal ones are neighbours: O(N log N), not all pairs. */
static const struct cd_host *sort_hosts;
static int sort_by_name;

static const char *identity(size_t i)
{
	return sort_by_name ? sort_hosts[i].hostname : sort_hosts[i].host_id;
}

static int cmp_identity(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(identity(x), identity(y));

	return c ? c : x < y ? -1 : x > y;
}

struct id_pair {
	size_t a, b;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct id_pair *p = x, *q = y;

	return p->a != q->a ? (p->a < q->a ? -1 : 1) : p->b < q->b ? -1 : p->b > q->b;
}

/* At most this many pairs are named: a job of thousands of copies of one image is one finding's worth of news. */
#define SAME_IDENTITY_MAX_PAIRS 64

/* The pairs of hosts whose hostname (by_name) or host id is the same; *more counts those not kept. */
static void same_pairs(const struct cd_results *r, int by_name, struct id_pair **pairs, size_t *n, size_t *cap,
		       size_t *more)
{
	size_t *idx = xcalloc(r->n_hosts, sizeof(*idx)), m = 0;

	for (size_t i = 0; i < r->n_hosts; i++)
		if (by_name ? r->hosts[i].hostname != NULL : r->hosts[i].host_id != NULL)
			idx[m++] = i;
	sort_hosts = r->hosts;
	sort_by_name = by_name;
	if (m > 1)
		qsort(idx, m, sizeof(*idx), cmp_identity);
	for (size_t g = 0, e; g < m; g = e) {
		for (e = g + 1; e < m && !strcmp(identity(idx[g]), identity(idx[e])); e++)
			;
		for (size_t i = g; i < e; i++)
			for (size_t k = i + 1; k < e; k++) {
				const struct cd_host *a = &r->hosts[idx[i]], *b = &r->hosts[idx[k]];

				/* a pair with both the same is the hostname pass's */
				if (!by_name && a->hostname && b->hostname && !strcmp(a->hostname, b->hostname))
					continue;
				if (*n == SAME_IDENTITY_MAX_PAIRS) {
					(*more)++;
					continue;
				}
				if (*n == *cap) {
					*cap = *cap ? 2 * *cap : 16;
					*pairs = xrealloc(*pairs, *cap * sizeof(**pairs));
				}
				(*pairs)[(*n)++] = (struct id_pair){ idx[i], idx[k] };
			}
	}
	free(idx);
}

static int rule_same_identity(struct cd_results *r)
{
	struct id_pair *pairs = NULL;
	size_t np = 0, cap = 0, more = 0;
	int n = 0;

	same_pairs(r, 1, &pairs, &np, &cap, &more);
	same_pairs(r, 0, &pairs, &np, &cap, &more);
	if (np > 1)
		qsort(pairs, np, sizeof(*pairs), cmp_pair); /* in host order, as the pairs of a loop over them */
	for (size_t k = 0; k < np; k++) {
		size_t i = pairs[k].a, j = pairs[k].b;
		const struct cd_host *a = &r->hosts[i], *b = &r->hosts[j];
		int name = a->hostname && b->hostname && !strcmp(a->hostname, b->hostname);
		int id = a->host_id && b->host_id && !strcmp(a->host_id, b->host_id);
		char ra[128], rb[128];
		struct cd_finding *f;

		f = cd_results_add_finding(r, "HOST001", name && id ? CD_SEV_FAIL : CD_SEV_WARN, hn(a),
					   name ? hn(a) : a->host_id, "two hosts of the job report the same identity");
		if (r->run.n_merged) {
			/* a fleet document (commdiag merge): the two came from separate runs, not one job */
			const struct cd_merged *ma = cd_merge_entry_of(r, i), *mb = cd_merge_entry_of(r, j);

			cd_finding_evidence(f, "host %zu (from '%s') and host %zu (from '%s') are separate hosts of the "
					       "merged fleet", i, ma && ma->file ? ma->file : "?", j,
					    mb && mb->file ? mb->file : "?");
		} else {
			cd_finding_evidence(f, "host %zu%s and host %zu%s are different hosts to MPI (no shared memory)", i,
					    ranks_of(r, i, ra, sizeof(ra)), j, ranks_of(r, j, rb, sizeof(rb)));
		}
		if (name)
			cd_finding_evidence(f, "both report hostname '%s' (containers started without --hostname?)", hn(a));
		if (id)
			cd_finding_evidence(f, "both report host id '%s' (%s): cloned image or shared /etc", a->host_id,
					    a->host_id_source ? a->host_id_source : "?");
		cd_finding_evidence(f, "NCCL and MPI may take them for one host and try shared memory or P2P "
				       "between them: give each a distinct hostname (or NCCL_HOSTID)");
		if (k + 1 == np && more)
			cd_finding_evidence(f, "and %zu more pairs of hosts with the same hostname or host id", more);
		n++;
	}
	free(pairs);
	return n;
}

/*
 * The odd ones out of a fleet-wide finding (HOST002-HOST004): when more than half of the
 * hosts share one value, each host with another gets the finding too, naming it, so its
 * own verdict (commdiag merge) says what to fix there and the others stay clean. Without
 * such a majority (two hosts that differ, a fleet split in halves) no host is the odd one
 * and the finding stays the fleet's alone. val[i] is host i's value, NULL when not known
 * (never odd). Boyer-Moore's vote, then a count: linear in hosts.
 */
static size_t odd_ones(struct cd_results *r, const char *id, enum cd_severity sev, const char *what,
		       const char *title, char *const *val)
{
	size_t cand = 0, votes = 0, same = 0, known = 0, n = 0;

	for (size_t i = 0; i < r->n_hosts; i++) {
		if (!val[i])
			continue;
		if (!votes)
			cand = i, votes = 1;
		else
			votes = !strcmp(val[i], val[cand]) ? votes + 1 : votes - 1;
	}
	if (!votes)
		return 0;
	for (size_t i = 0; i < r->n_hosts; i++) {
		known += val[i] != NULL;
		same += val[i] && !strcmp(val[i], val[cand]);
	}
	if (2 * same <= r->n_hosts || same == known)
		return 0;
	for (size_t i = 0; i < r->n_hosts; i++) {
		struct cd_finding *f;

		if (!val[i] || !strcmp(val[i], val[cand]))
			continue;
		f = cd_results_add_finding(r, id, sev, hn(&r->hosts[i]), what, title);
		cd_finding_evidence(f, "%s: %s", hn(&r->hosts[i]), val[i][0] ? val[i] : "none");
		cd_finding_evidence(f, "%zu of %zu hosts: %s", same, r->n_hosts, val[cand][0] ? val[cand] : "none");
		n++;
	}
	return n;
}

/*
 * A fleet-wide finding's evidence from each host's value: one line per host up to
 * EVIDENCE_PER_HOST hosts; above, one line per distinct value, the most common first, with
 * its count and its first hosts (issue 18: at 4096 hosts the per-host lines were 4096 copies
 * of the same value, 650 kB of evidence that said "all the same but two"). The odd hosts
 * still get their own findings (odd_ones). NULL values (not known) are left out.
 */
#define EVIDENCE_PER_HOST 16
#define EVIDENCE_VALUES 32

static char *const *sort_vals; /* qsort has no context argument in C11 */

static int cmp_by_val(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_vals[x], sort_vals[y]);

	return c ? c : (x > y) - (x < y);
}

struct val_group {
	size_t first, count; /* into the sorted indices */
};

static int cmp_group(const void *a, const void *b)
{
	const struct val_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

static void evidence_by_value(struct cd_finding *f, const struct cd_results *r, char *const *val)
{
	size_t *idx, n = 0, ng = 0;
	struct val_group *g;

	if (r->n_hosts <= EVIDENCE_PER_HOST) {
		for (size_t i = 0; i < r->n_hosts; i++)
			if (val[i])
				cd_finding_evidence(f, "%s: %s", hn(&r->hosts[i]), val[i][0] ? val[i] : "none");
		return;
	}
	idx = xcalloc(r->n_hosts, sizeof(*idx));
	for (size_t i = 0; i < r->n_hosts; i++)
		if (val[i])
			idx[n++] = i;
	sort_vals = val;
	qsort(idx, n, sizeof(*idx), cmp_by_val);
	g = xcalloc(n + 1, sizeof(*g));
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(val[idx[i]], val[idx[i - 1]]))
			g[ng++] = (struct val_group){ i, 0 };
		g[ng - 1].count++;
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	for (size_t k = 0; k < ng && k < EVIDENCE_VALUES; k++) {
		char names[160] = "";
		size_t off = 0, shown = 0;
		const char *v = val[idx[g[k].first]];

		for (; shown < g[k].count && shown < 3; shown++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", shown ? ", " : "",
						hn(&r->hosts[idx[g[k].first + shown]]));
		if (g[k].count > shown)
			snprintf(names + off, sizeof(names) - off, " and %zu more", g[k].count - shown);
		cd_finding_evidence(f, "%zu host%s (%s): %s", g[k].count, g[k].count == 1 ? "" : "s", names,
				    v[0] ? v : "none");
	}
	if (ng > EVIDENCE_VALUES)
		cd_finding_evidence(f, "and %zu more distinct values (the JSON document has every host's)", ng - EVIDENCE_VALUES);
	free(g);
	free(idx);
}

static void free_vals(char **val, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(val[i]);
	free(val);
}

/* Distinct values of one string per host; a finding when there is more than one. */
static int differ(struct cd_results *r, const char *what, enum cd_severity sev, const char *(*get)(const struct cd_host *, char *, size_t))
{
	const char **vals;
	struct cd_finding *f = NULL;
	size_t nv = 0;
	char buf[64], **per;

	if (r->n_hosts < 2)
		return 0;
	vals = xcalloc(r->n_hosts, sizeof(*vals));
	for (size_t i = 0; i < r->n_hosts; i++) {
		const char *v = get(&r->hosts[i], buf, sizeof(buf));
		size_t k;

		if (!v)
			continue;
		for (k = 0; k < nv && strcmp(vals[k], v); k++)
			;
		if (k == nv)
			vals[nv++] = xstrdup(v);
	}
	if (nv > 1) {
		f = cd_results_add_finding(r, "HOST002", sev, NULL, what, "versions differ between hosts");
		for (size_t k = 0; k < nv; k++) {
			char list[256] = "";
			size_t off = 0;

			for (size_t i = 0; i < r->n_hosts && off < sizeof(list) - 70; i++) {
				const char *v = get(&r->hosts[i], buf, sizeof(buf));

				if (v && !strcmp(v, vals[k]))
					off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", off ? ", " : "",
								hn(&r->hosts[i]));
			}
			cd_finding_evidence(f, "%s %s on %s", what, vals[k], list);
		}
		per = xcalloc(r->n_hosts, sizeof(*per));
		for (size_t i = 0; i < r->n_hosts; i++) {
			const char *v = get(&r->hosts[i], buf, sizeof(buf));

			per[i] = v ? xstrdup(v) : NULL;
		}
		odd_ones(r, "HOST002", sev, what, "this host's version differs from most hosts'", per);
		free_vals(per, r->n_hosts);
	}
	for (size_t k = 0; k < nv; k++)
		free((char *)vals[k]);
	free(vals);
	return f != NULL;
}

static const char *v_nccl(const struct cd_host *h, char *b, size_t l) { (void)b; (void)l; return h->versions.nccl; }
static const char *v_plugin(const struct cd_host *h, char *b, size_t l) { (void)b; (void)l; return h->versions.nccl_net_plugin; }
static const char *v_driver(const struct cd_host *h, char *b, size_t l) { (void)b; (void)l; return h->versions.driver; }
static const char *v_tool(const struct cd_host *h, char *b, size_t l) { (void)b; (void)l; return h->versions.commdiag; }
static const char *v_cuda(const struct cd_host *h, char *b, size_t l)
{
	if (h->versions.cuda_driver == CD_NULL_I64)
		return NULL;
	snprintf(b, l, "%" PRId64 ".%" PRId64, h->versions.cuda_driver / 1000, h->versions.cuda_driver % 1000 / 10);
	return b;
}

/* HOST002 */
static int rule_versions(struct cd_results *r)
{
	return differ(r, "nccl", CD_SEV_FAIL, v_nccl) + differ(r, "nccl net plugin", CD_SEV_FAIL, v_plugin) +
	       differ(r, "driver", CD_SEV_WARN, v_driver) +
	       differ(r, "cuda", CD_SEV_WARN, v_cuda) + differ(r, "commdiag", CD_SEV_WARN, v_tool);
}

/* ---- interfaces ---- */

static int nic_carries(const struct cd_nic *n)
{
	/* a NIC without a name (null in a saved document) carries nothing to compare or advise */
	if (!n->name || !cd_nic_is_up(n) || !cd_nic_has_address(n) || n->kind == CD_NIC_LOOPBACK)
		return 0;
	return n->default_route == CD_TRI_TRUE || n->kind == CD_NIC_PHYSICAL || n->kind == CD_NIC_BOND ||
	       n->kind == CD_NIC_VLAN || n->kind == CD_NIC_IPOIB;
}

/*
 * reach[] in the order of two of its keys, so that each (to, iface), (from, iface) or
 * (from, to) group is one run: O(R log R) over a job of thousands of hosts, not R².
 * Entries that lack a key are left out; the original index breaks ties, so a group keeps
 * the document's order.
 */
enum reach_by { BY_TO_IFACE, BY_FROM_IFACE, BY_FROM_TO };

struct rkey {
	const char *a, *b;
	size_t i;
};

struct reach_idx {
	const struct cd_results *r;
	struct rkey *k;
	size_t n;
};

static int cmp_rkey(const void *x, const void *y)
{
	const struct rkey *p = x, *q = y;
	int c = strcmp(p->a, q->a);

	if (!c)
		c = strcmp(p->b, q->b);
	return c ? c : (p->i > q->i) - (p->i < q->i);
}

static void idx_build(const struct cd_results *r, enum reach_by by, struct reach_idx *ix)
{
	ix->r = r;
	ix->n = 0;
	ix->k = xcalloc(r->n_reach ? r->n_reach : 1, sizeof(*ix->k));
	for (size_t i = 0; i < r->n_reach; i++) {
		const struct cd_reach *x = &r->reach[i];
		const char *a = by == BY_TO_IFACE ? x->to : x->from, *b = by == BY_FROM_TO ? x->to : x->iface;

		if (a && b)
			ix->k[ix->n++] = (struct rkey){ a, b, i };
	}
	qsort(ix->k, ix->n, sizeof(*ix->k), cmp_rkey);
}

/* The end of the group that starts at g. */
static size_t idx_end(const struct reach_idx *ix, size_t g)
{
	size_t e = g;

	while (e < ix->n && !strcmp(ix->k[e].a, ix->k[g].a) && !strcmp(ix->k[e].b, ix->k[g].b))
		e++;
	return e;
}

/* Did every host that tried reach this host on iface? (0: no attempts, 1: yes, -1: some failed) */
static int reached_on(const struct cd_reach_index *ix, const struct cd_host *h, const char *iface)
{
	int64_t tried, ok;

	if (!iface)
		return 0;
	cd_reach_into(ix, hn(h), iface, &tried, &ok);
	return !tried ? 0 : ok == tried ? 1 : -1;
}

/* The interface this host would use with other hosts: reached by all, else the default route's. */
static const char *chosen_iface(const struct cd_reach_index *r, const struct cd_host *h)
{
	const char *dflt = NULL;

	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *n = &h->nics[i];

		if (!nic_carries(n) && reached_on(r, h, n->name) != 1)
			continue;
		if (reached_on(r, h, n->name) == 1)
			return n->name;
		if (!dflt && n->default_route == CD_TRI_TRUE && reached_on(r, h, n->name) == 0)
			dflt = n->name;
	}
	return dflt;
}

static int same_names(const struct cd_host *a, const struct cd_host *b)
{
	size_t na = 0, nb = 0;

	for (size_t i = 0; i < a->n_nics; i++) {
		int found = 0;

		if (!nic_carries(&a->nics[i]))
			continue;
		na++;
		for (size_t j = 0; j < b->n_nics; j++)
			found |= nic_carries(&b->nics[j]) && !strcmp(a->nics[i].name, b->nics[j].name);
		if (!found)
			return 0;
	}
	for (size_t j = 0; j < b->n_nics; j++)
		nb += nic_carries(&b->nics[j]);
	return na == nb;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the interfaces that carry traffic, sorted and joined: equal for hosts same_names() calls alike. */
static char *carried_names(const struct cd_host *h)
{
	const char **v = xcalloc(h->n_nics + 1, sizeof(*v));
	size_t n = 0, len = 1;
	char *out;

	for (size_t k = 0; k < h->n_nics; k++)
		if (nic_carries(&h->nics[k]) && h->nics[k].name) {
			v[n++] = h->nics[k].name;
			len += strlen(h->nics[k].name) + 2;
		}
	qsort(v, n, sizeof(*v), cmp_cstr);
	out = xcalloc(len, 1);
	for (size_t k = 0; k < n; k++) {
		if (k)
			strcat(out, ", ");
		strcat(out, v[k]);
	}
	free(v);
	return out;
}

/* HOST003 */
static int rule_iface_names(struct cd_results *r)
{
	struct cd_finding *f;
	char **per;
	char value[256] = "", prefix[32] = "";
	size_t off = 0;
	int all_same = 1;
	struct cd_reach_index *ix;

	for (size_t i = 1; i < r->n_hosts; i++)
		all_same &= same_names(&r->hosts[0], &r->hosts[i]);
	if (r->n_hosts < 2 || all_same)
		return 0;
	ix = cd_reach_index_new(r);
	f = cd_results_add_finding(r, "HOST003", CD_SEV_WARN, NULL, "interfaces",
				   "interface names differ between hosts");
	per = xcalloc(r->n_hosts, sizeof(*per));
	for (size_t i = 0; i < r->n_hosts; i++) {
		const struct cd_host *h = &r->hosts[i];
		const char *c = chosen_iface(ix, h);
		char list[256] = "";
		size_t lo = 0;

		for (size_t k = 0; k < h->n_nics && lo < sizeof(list) - 40; k++)
			if (nic_carries(&h->nics[k]))
				lo += (size_t)snprintf(list + lo, sizeof(list) - lo, "%s%s", lo ? ", " : "", h->nics[k].name);
		per[i] = xasprintf("%s%s%s", lo ? list : "none", c ? "; would use " : "", c ? c : "");
		if (!c)
			continue;
		if (!value[0])
			snprintf(prefix, sizeof(prefix), "%s", c);
		for (size_t p = 0; prefix[p]; p++)
			if (c[p] != prefix[p]) {
				prefix[p] = '\0';
				break;
			}
		if (!strstr(value, c) && off < sizeof(value) - 40)
			off += (size_t)snprintf(value + off, sizeof(value) - off, "%s%s", off ? "," : "", c);
	}
	evidence_by_value(f, r, per);
	if (strlen(prefix) >= 2 && strchr(value, ','))
		cd_finding_evidence(f, "NCCL_SOCKET_IFNAME=%s (a prefix) matches on all hosts; so does %s", prefix, value);
	else if (off)
		cd_finding_evidence(f, "NCCL_SOCKET_IFNAME=%s matches on all hosts (a list of prefixes)", value);
	cd_reach_index_free(ix);
	for (size_t i = 0; i < r->n_hosts; i++) {
		free(per[i]);
		per[i] = carried_names(&r->hosts[i]);
	}
	odd_ones(r, "HOST003", CD_SEV_WARN, "interfaces", "this host's interface names differ from most hosts'", per);
	free_vals(per, r->n_hosts);
	return 1;
}

/* HOST004: HCA names, port rates and MTUs, as sorted sets per host. */
static void hca_sig(const struct cd_host *h, int what, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < h->n_hcas && off < len - 48; i++) {
		const struct cd_hca *c = &h->hcas[i];

		if (what == 0) {
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", c->name);
			continue;
		}
		for (size_t p = 0; p < c->n_ports && off < len - 48; p++) {
			const struct cd_ib_port *pt = &c->ports[p];

			if (what == 1 && isnan(pt->rate_gbit_s)) /* a port down has no rate */
				off += (size_t)snprintf(buf + off, len - off, "%s%s/%" PRId64 " rate n/a", off ? ", " : "",
							c->name, pt->port);
			else if (what == 1)
				off += (size_t)snprintf(buf + off, len - off, "%s%s/%" PRId64 " %.0f Gb/s", off ? ", " : "",
							c->name, pt->port, pt->rate_gbit_s);
			else
				off += (size_t)snprintf(buf + off, len - off, "%s%s/%" PRId64 " mtu %" PRId64,
							off ? ", " : "", c->name, pt->port, pt->mtu_bytes);
		}
	}
}

static int rule_hcas(struct cd_results *r)
{
	static const char *const what[] = { "RDMA devices", "RDMA link rates", "RDMA MTUs" };
	int n = 0;

	if (r->n_hosts < 2)
		return 0;
	for (int w = 0; w < 3; w++) {
		char first[512], sig[512], **per;
		struct cd_finding *f;
		int same = 1;

		hca_sig(&r->hosts[0], w, first, sizeof(first));
		for (size_t i = 1; i < r->n_hosts; i++) {
			hca_sig(&r->hosts[i], w, sig, sizeof(sig));
			same &= !strcmp(first, sig);
		}
		if (same)
			continue;
		f = cd_results_add_finding(r, "HOST004", CD_SEV_WARN, NULL, what[w], "RDMA devices differ between hosts");
		per = xcalloc(r->n_hosts, sizeof(*per));
		for (size_t i = 0; i < r->n_hosts; i++) {
			hca_sig(&r->hosts[i], w, sig, sizeof(sig));
			per[i] = xstrdup(sig);
		}
		evidence_by_value(f, r, per);
		odd_ones(r, "HOST004", CD_SEV_WARN, what[w], "this host's RDMA devices differ from most hosts'", per);
		free_vals(per, r->n_hosts);
		n++;
	}
	return n;
}

/* ---- HOST005: the communication env, per host and per rank ---- */

static const char *env_val(const struct cd_kv *kv, size_t n, const char *key, int *found)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key)) {
			*found = 1;
			return kv[i].value;
		}
	*found = 0;
	return NULL;
}

static int env_compared(const char *key)
{
	return (!strncmp(key, "NCCL_", 5) || !strncmp(key, "OMPI_MCA_", 9) || !strncmp(key, "UCX_", 4) ||
		!strncmp(key, "TORCH_NCCL_", 11)) && !cd_env_from_launcher(key);
}

/* One key: what every host says, and ranks that differ from their host. */
static int env_key(struct cd_results *r, const char *key)
{
	struct cd_finding *f;
	const char *first = NULL;
	int diff = 0, found, started = 0;

	for (size_t i = 0; i < r->n_hosts; i++) {
		const char *v = env_val(r->hosts[i].env, r->hosts[i].n_env, key, &found);

		if (!started) {
			first = v;
			started = 1;
		} else if ((first == NULL) != (v == NULL) || (first && strcmp(first, v))) {
			diff = 1;
		}
	}
	for (size_t i = 0; i < r->n_ranks; i++) {
		env_val(r->ranks[i].env_diff, r->ranks[i].n_env_diff, key, &found);
		diff |= found;
	}
	if (!diff)
		return 0;
	f = cd_results_add_finding(r, "HOST005", CD_SEV_WARN, NULL, key, "communication setting differs between ranks");
	for (size_t i = 0; i < r->n_hosts; i++) {
		const char *v = env_val(r->hosts[i].env, r->hosts[i].n_env, key, &found);
		char rb[128];

		cd_finding_evidence(f, "%s%s: %s%s%s", hn(&r->hosts[i]), ranks_of(r, i, rb, sizeof(rb)), v ? key : "unset",
				    v ? "=" : "", v ? v : "");
	}
	for (size_t i = 0; i < r->n_ranks; i++) {
		const char *v = env_val(r->ranks[i].env_diff, r->ranks[i].n_env_diff, key, &found);

		if (found)
			cd_finding_evidence(f, "rank %" PRId64 " on %s: %s%s%s (unlike its host)", r->ranks[i].rank,
					    r->ranks[i].host ? r->ranks[i].host : "?", v ? key : "unset", v ? "=" : "",
					    v ? v : "");
	}
	return 1;
}

/*
 * Each key once, at its first host (then at its first rank, for keys no host has): a set of
 * the keys seen, where scanning every earlier host's env for every key was H² × E², minutes
 * for a merged fleet of thousands of hosts.
 */
static int rule_env(struct cd_results *r)
{
	struct cd_name_set seen = { 0 };
	int n = 0;

	if (r->n_hosts < 2 && r->n_ranks < 2)
		return 0;
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t k = 0; k < r->hosts[i].n_env; k++)
			if (cd_name_set_add(&seen, r->hosts[i].env[k].key) && env_compared(r->hosts[i].env[k].key))
				n += env_key(r, r->hosts[i].env[k].key);
	/* set on some rank only: unknown to every host */
	for (size_t i = 0; i < r->n_ranks; i++)
		for (size_t k = 0; k < r->ranks[i].n_env_diff; k++) {
			const char *key = r->ranks[i].env_diff[k].key;

			if (cd_name_set_add(&seen, key) && env_compared(key))
				n += env_key(r, key);
		}
	cd_name_set_free(&seen);
	return n;
}

/* HOST006: two ranks would share a GPU. */
static int rule_ranks_gpus(struct cd_results *r)
{
	int n = 0;

	for (size_t i = 0; i < r->n_hosts; i++) {
		const struct cd_host *h = &r->hosts[i];
		size_t k = ranks_on(r, i);
		struct cd_finding *f;

		if (h->part[CD_PART_GPU].status != CD_ST_OK || !h->n_gpus || k <= h->n_gpus)
			continue;
		f = cd_results_add_finding(r, "HOST006", CD_SEV_FAIL, hn(h), "ranks",
					   "more ranks on a host than GPUs");
		f->measured = (double)k;
		f->expected = (double)h->n_gpus;
		f->unit = xstrdup("ranks");
		cd_finding_evidence(f, "%zu ranks on %s with %zu GPU%s: at least two ranks would share one GPU", k, hn(h),
				    h->n_gpus, h->n_gpus == 1 ? "" : "s");
		n++;
	}
	return n;
}

/* MPI001: the launcher started N, MPI sees M (srun without the MPI library's PMI: N jobs of one rank). */
static int rule_rank_count(struct cd_results *r)
{
	struct cd_finding *f;

	if (r->run.launcher_ranks == CD_NULL_I64 || r->run.launcher_ranks == r->run.ranks)
		return 0;
	f = cd_results_add_finding(r, "MPI001", CD_SEV_FAIL, r->n_hosts ? hn(&r->hosts[0]) : NULL, "ranks",
				   "rank count differs from what the launcher said");
	f->measured = (double)r->run.ranks;
	f->expected = (double)r->run.launcher_ranks;
	f->unit = xstrdup("ranks");
	cd_finding_evidence(f, "%s announced %" PRId64 " ranks, MPI_COMM_WORLD has %" PRId64,
			    r->run.launcher ? r->run.launcher : "the launcher", r->run.launcher_ranks, r->run.ranks);
	if (r->run.ranks == 1)
		cd_finding_evidence(f, "each task initialised MPI on its own: the MPI library does not speak the "
				       "launcher's PMI (srun --mpi=pmix, or mpirun)");
	return 1;
}

/* MPI002: ranks that did not answer rank 0's gather. */
static int rule_missing(struct cd_results *r)
{
	int n = 0;

	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct cd_rank *k = &r->ranks[i];
		struct cd_finding *f;
		char subject[32];

		if (k->answered != CD_TRI_FALSE)
			continue;
		snprintf(subject, sizeof(subject), "rank %" PRId64, k->rank);
		f = cd_results_add_finding(r, "MPI002", CD_SEV_FAIL, k->host, subject, "rank did not answer");
		cd_finding_evidence(f, "rank %" PRId64 " on %s: %s", k->rank, k->host ? k->host : "?",
				    k->error ? k->error : "no answer");
		n++;
	}
	return n;
}

/*
 * ---- MPI003, NCCL004: the rank (or host) that is slow with every partner ----
 * From the pair runs of the hunt (check --pairs): mpi.bw's algbw, nccl.pairs' busbw. A
 * pair below CD_HUNT_FRAC of the best pair is bad; a rank is named when every one of its
 * two or more pairs is bad and each partner did better than twice as well with another rank.
 */

struct pairv {
	int64_t a, b;
	double v;       /* GB/s at the largest size; NAN when the run failed */
	int64_t bytes;
};

static const char *rank_host(const struct cd_results *r, int64_t rank)
{
	for (size_t i = 0; i < r->n_ranks; i++)
		if (r->ranks[i].rank == rank)
			return r->ranks[i].host;
	return NULL;
}

static int pair_straggler(struct cd_results *r, const char *probe, const char *id, const char *what)
{
	struct pairv *pv = xcalloc(r->n_probes + 1, sizeof(*pv));
	size_t np = 0;
	double best = 0;
	int n = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];

		if (!p->name || strcmp(p->name, probe) || p->rank == CD_NULL_I64 || p->peer == CD_NULL_I64 ||
		    p->status == CD_ST_SKIPPED)
			continue;
		pv[np].a = p->rank;
		pv[np].b = p->peer;
		pv[np].v = cd_probe_bw(p);
		pv[np].bytes = cd_probe_max_bytes(p);
		if (pv[np].v > best)
			best = pv[np].v;
		np++;
	}
	for (size_t i = 0; i < np; i++) {
		for (int side = 0; side < 2; side++) {
			int64_t rank = side ? pv[i].b : pv[i].a;
			size_t partners = 0, bad = 0, dup = 0;
			struct cd_finding *f;
			char subject[32];

			/* each rank once: at its first pair, on either side */
			for (size_t j = 0; j < i; j++)
				dup |= pv[j].a == rank || pv[j].b == rank;
			if (dup || (side && pv[i].b == pv[i].a))
				continue;
			for (size_t j = 0; j < np; j++) {
				int64_t other = pv[j].a == rank ? pv[j].b : pv[j].a;
				int cleared = 0;

				if (pv[j].a != rank && pv[j].b != rank)
					continue;
				partners++;
				/* the partner is fine with someone else: the pair was slow because of this rank */
				for (size_t k = 0; k < np; k++)
					if (k != j && (pv[k].a == other || pv[k].b == other) && pv[k].a != rank &&
					    pv[k].b != rank && pv[k].v >= (isnan(pv[j].v) ? 0 : pv[j].v) / CD_HUNT_FRAC)
						cleared = 1;
				bad += !(pv[j].v >= CD_HUNT_FRAC * best) && cleared;
			}
			if (partners < 2 || bad < partners)
				continue;
			snprintf(subject, sizeof(subject), "rank %" PRId64, rank);
			f = cd_results_add_finding(r, id, CD_SEV_FAIL, rank_host(r, rank), subject,
						   "rank is slow with every partner");
			f->expected = best;
			f->unit = xstrdup("gbyte_s");
			for (size_t j = 0; j < np; j++) {
				if (pv[j].a != rank && pv[j].b != rank)
					continue;
				if (isnan(f->measured) || pv[j].v > f->measured)
					f->measured = pv[j].v;
				cd_finding_evidence(f, "%s: rank %" PRId64 " (%s) with rank %" PRId64 " (%s): %.2f GB/s %s at %" PRId64
						    " bytes", probe, pv[j].a, rank_host(r, pv[j].a) ? rank_host(r, pv[j].a) : "?",
						    pv[j].b, rank_host(r, pv[j].b) ? rank_host(r, pv[j].b) : "?",
						    pv[j].v, what, pv[j].bytes);
			}
			cd_finding_evidence(f, "the best pair reached %.2f GB/s; each partner reached over twice as much "
					       "with another rank: the slow end is rank %" PRId64, best, rank);
			n++;
		}
	}
	free(pv);
	return n;
}

static int rule_straggler(struct cd_results *r)
{
	return pair_straggler(r, "mpi.bw", "MPI003", "algbw");
}

static int rule_nccl_pair_straggler(struct cd_results *r)
{
	return pair_straggler(r, "nccl.pairs", "NCCL004", "busbw");
}

/* ---- NET001 and TCP001 from the reachability matrix ---- */

/*
 * Which libraries would send over interface `iface` of h as configured (its env snapshot)
 * or by their own defaults: an unreachable interface no one uses (docker0, which NCCL skips
 * and Open MPI was told to leave) is a fact, not a fault. Fills `who`; 0 when none.
 */
static int used_by(const struct cd_host *h, const char *iface, char *who, size_t len)
{
	const struct cd_nic *n = NULL;
	unsigned libs;
	size_t used = 0;

	who[0] = '\0';
	for (size_t i = 0; h && i < h->n_nics; i++)
		if (h->nics[i].name && !strcmp(h->nics[i].name, iface))
			n = &h->nics[i];
	if (!n) {
		/* no interface list (an old or partial document): assume the worst, as before */
		snprintf(who, len, "a library that picks it");
		return 1;
	}
	libs = cd_iface_users(h, n);
	for (unsigned lib = 1; lib <= CD_LIB_ALL; lib <<= 1)
		if ((libs & lib) && used < len)
			used += (size_t)snprintf(who + used, len - used, "%s%s (%s)", used ? ", " : "", cd_lib_name(lib),
						 cd_lib_iface_rule(h, lib));
	return libs != 0;
}

static const struct cd_host *host_named(const struct cd_results *r, const char *name)
{
	for (size_t h = 0; h < r->n_hosts; h++)
		if (name && !strcmp(hn(&r->hosts[h]), name))
			return &r->hosts[h];
	return NULL;
}

/*
 * A failure the tester's own side explains: T reached no host at all on iface (its
 * interface, or its route out, is the fault) while another host reached the target there.
 * Every other failure stands. The probe's second sample (tcp.c) is what gives T the other
 * attempts that tell the two apart; a name that fails everywhere (docker0) stays failed.
 */
static int tester_side(const struct cd_reach_index *ix, const struct cd_reach *y)
{
	int64_t tried, ok;

	cd_reach_outof(ix, y->from, y->iface, &tried, &ok);
	if (ok)
		return 0;
	cd_reach_into(ix, y->to, y->iface, &tried, &ok);
	return ok > 0;
}

/* The evidence lines of one finding stay readable in a job of thousands of hosts. */
#define REACH_EVIDENCE_MAX 8

struct rgroup {
	size_t start, end, first; /* in the index; first: the smallest document index */
};

static int cmp_rgroup(const void *a, const void *b)
{
	const struct rgroup *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/* The groups of ix, in the order their first entry has in the document. */
static struct rgroup *idx_groups(const struct reach_idx *ix, size_t *n)
{
	struct rgroup *g = xcalloc(ix->n ? ix->n : 1, sizeof(*g));

	*n = 0;
	for (size_t s = 0; s < ix->n; s = g[*n - 1].end) {
		g[*n] = (struct rgroup){ s, idx_end(ix, s), ix->k[s].i };
		(*n)++;
	}
	qsort(g, *n, sizeof(*g), cmp_rgroup);
	return g;
}

static void net001(struct cd_results *r, const struct reach_idx *to, const struct cd_reach_index *ix,
		   const struct rgroup *g)
{
	const struct cd_reach *x = &r->reach[to->k[g->start].i];
	int64_t tried, ok, dismissed = 0;
	size_t shown = 0;
	struct cd_finding *f;
	char who[512];
	int picked;

	/* tried and ok from every attempt, also those a compact document only counts */
	cd_reach_into(ix, x->to, x->iface, &tried, &ok);
	for (size_t j = g->start; j < g->end; j++) {
		const struct cd_reach *y = &r->reach[to->k[j].i];

		if (y->ok != CD_TRI_TRUE && y->from && tester_side(ix, y))
			dismissed++;
	}
	if (ok + dismissed >= tried)
		return;
	picked = used_by(host_named(r, x->to), x->iface, who, sizeof(who));
	f = cd_results_add_finding(r, "NET001", picked ? CD_SEV_FAIL : CD_SEV_INFO, x->to, x->iface,
				   picked ? "interface does not reach other hosts, and a library uses it"
					  : "interface does not reach other hosts (no library uses it)");
	if (picked)
		cd_finding_evidence(f, "used by %s", who);
	else
		cd_finding_evidence(f, "unused: NCCL's order, Open MPI's and UCX's settings and Gloo's "
				       "leave %s alone as configured", x->iface);
	f->measured = (double)ok;
	f->expected = (double)tried;
	f->unit = xstrdup("attempts");
	for (size_t j = g->start; j < g->end; j++) {
		const struct cd_reach *y = &r->reach[to->k[j].i];

		if (shown++ == REACH_EVIDENCE_MAX) {
			cd_finding_evidence(f, "and %zu more attempts", g->end - j);
			break;
		}
		cd_finding_evidence(f, "from %s to %s %s: %s", y->from ? y->from : "?", y->iface,
				    y->address ? y->address : "?", y->ok == CD_TRI_TRUE ? "ok" : y->error ? y->error : "failed");
	}
	if (dismissed)
		cd_finding_evidence(f, "%lld failed attempt%s not counted: %s tester reached no host on %s, and others "
				       "reached this one", (long long)dismissed, dismissed == 1 ? "" : "s", dismissed == 1 ? "its" : "each",
				    x->iface);
	if (f->severity == CD_SEV_FAIL)
		cd_finding_evidence(f, "a job that picks %s waits on connections that never come: exclude it", x->iface);
	for (size_t h = 0; h < r->n_hosts; h++) {
		const struct cd_host *host = &r->hosts[h];

		if (strcmp(hn(host), x->to))
			continue;
		for (size_t k = 0; k < host->n_nics; k++)
			if (reached_on(ix, host, host->nics[k].name) == 1)
				cd_finding_evidence(f, "%s of %s is reached from every host that tried", host->nics[k].name, x->to);
	}
}

static int rule_unreachable_iface(struct cd_results *r)
{
	struct reach_idx to;
	struct cd_reach_index *ix = cd_reach_index_new(r);
	struct rgroup *g;
	size_t n_g, before = r->n_findings;

	idx_build(r, BY_TO_IFACE, &to);
	g = idx_groups(&to, &n_g);
	for (size_t i = 0; i < n_g; i++)
		net001(r, &to, ix, &g[i]);
	free(g);
	free(to.k);
	cd_reach_index_free(ix);
	return (int)(r->n_findings - before);
}

static int rule_no_path(struct cd_results *r)
{
	struct reach_idx ix;
	struct rgroup *g;
	size_t n_g;
	int n = 0;

	idx_build(r, BY_FROM_TO, &ix);
	g = idx_groups(&ix, &n_g);
	for (size_t i = 0; i < n_g; i++) {
		const struct cd_reach *x = &r->reach[ix.k[g[i].start].i];
		struct cd_finding *f;
		int ok = 0;

		for (size_t j = g[i].start; j < g[i].end; j++)
			ok |= r->reach[ix.k[j].i].ok == CD_TRI_TRUE;
		if (ok)
			continue;
		f = cd_results_add_finding(r, "TCP001", CD_SEV_FAIL, x->from, x->to, "no TCP path to a host of the job");
		cd_finding_evidence(f, "%s could not reach %s on any of its addresses", x->from, x->to);
		n++;
	}
	free(g);
	free(ix.k);
	return n;
}

static const struct cd_xrule xrules[] = {
	{ "HOST001", "hosts", "two hosts of the job report the same hostname or host id", rule_same_identity },
	{ "HOST002", "hosts", "NCCL, driver, CUDA or commdiag versions differ between hosts", rule_versions },
	{ "HOST003", "hosts", "interface names differ between hosts (and the NCCL_SOCKET_IFNAME that matches all)",
	  rule_iface_names },
	{ "HOST004", "hosts", "RDMA devices, link rates or MTUs differ between hosts", rule_hcas },
	{ "HOST005", "hosts", "NCCL_*, OMPI_MCA_*, UCX_* settings differ between ranks", rule_env },
	{ "HOST006", "hosts", "more ranks on a host than GPUs", rule_ranks_gpus },
	{ "MPI001", "mpi", "rank count differs from what the launcher said", rule_rank_count },
	{ "MPI002", "mpi", "a rank did not answer before the deadline", rule_missing },
	{ "MPI003", "mpi", "a rank is slow with every partner (mpi.bw pairs, check --pairs)", rule_straggler },
	{ "NCCL004", "nccl", "a rank is slow with every partner (nccl.pairs, check --pairs)", rule_nccl_pair_straggler },
	{ "NET001", "net", "interface does not reach other hosts (tcp.reach)", rule_unreachable_iface },
	{ "TCP001", "net", "no TCP path from one host of the job to another (tcp.reach)", rule_no_path },
};

const struct cd_xrule *cd_rules_hosts_table(size_t *n)
{
	*n = ARRAY_SIZE(xrules);
	return xrules;
}

int cd_rules_hosts_evaluate(struct cd_results *r)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(xrules); i++)
		n += xrules[i].check(r);
	return n;
}
