/* SPDX-License-Identifier: BSD-3-Clause */
#include "measure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

double cd_pcie_gbyte_s(int64_t gen, int64_t width)
{
	/* per-direction x16 after line coding: 8b/10b (Gen1-2), 128b/130b (Gen3-5), FLIT (Gen6) */
	static const double x16[] = { 0, 4.0, 8.0, 15.75, 31.5, 63.0, 121.0 };

	if (gen < 1 || gen >= (int64_t)ARRAY_SIZE(x16) || width < 1 || width > 32)
		return NAN;
	return x16[gen] * (double)width / 16.0;
}

double cd_nvlink_gbyte_s(int64_t gen, int64_t links)
{
	/* per link per direction: P100 20, V100/A100/H100 25, B200 50 GB/s */
	static const double per_link[] = { 0, 20.0, 25.0, 25.0, 25.0, 50.0 };

	if (gen < 1 || gen >= (int64_t)ARRAY_SIZE(per_link) || links < 0)
		return NAN;
	return per_link[gen] * (double)links;
}

double cd_port_gbyte_s(double rate_gbit_s)
{
	return cd_gbit_to_gbyte(rate_gbit_s);
}

double cd_gpu_pcie_max_gbyte_s(const struct cd_gpu *g)
{
	double v = cd_pcie_gbyte_s(g->pcie_max_gen, g->pcie_max_width);

	if (isnan(v))
		v = cd_pcie_gbyte_s(g->pcie_gen, g->pcie_width);
	if (isnan(v))
		v = g->pcie_link_gbyte_s;
	return v;
}

double cd_gpu_nvlink_gbyte_s(const struct cd_gpu *g)
{
	int64_t up = 0, gen = CD_NULL_I64;

	for (size_t i = 0; i < g->n_nvlinks; i++) {
		if (g->nvlinks[i].up != CD_TRI_TRUE)
			continue;
		up++;
		if (g->nvlinks[i].version != CD_NULL_I64)
			gen = g->nvlinks[i].version;
	}
	return up && gen != CD_NULL_I64 ? cd_nvlink_gbyte_s(gen, up) : NAN;
}

int cd_probe_is(const struct cd_probe_run *p, const char *prefix)
{
	return p->name && !strncmp(p->name, prefix, strlen(prefix));
}

int cd_probe_is_collective(const struct cd_probe_run *p)
{
	return cd_probe_is(p, "nccl.") && strcmp(p->name, "nccl.init") && strcmp(p->name, "nccl.pairs");
}

int cd_probe_is_bw(const struct cd_probe_run *p)
{
	return p->name && !strstr(p->name, "latency");
}

/* Copies, p2p and TCP move one buffer one way: algbw is the link's rate; collectives use busbw. */
static int uses_algbw(const struct cd_probe_run *p)
{
	return cd_probe_is(p, "copy.") || cd_probe_is(p, "p2p.") || cd_probe_is(p, "tcp.") ||
	       (p->name && !strcmp(p->name, "mpi.bw"));
}

const struct cd_probe_sample *cd_probe_largest(const struct cd_probe_run *p)
{
	const struct cd_probe_sample *best = NULL;

	for (size_t i = 0; i < p->n_samples; i++)
		if (p->samples[i].bytes != CD_NULL_I64 && (!best || p->samples[i].bytes > best->bytes))
			best = &p->samples[i];
	return best;
}

double cd_probe_bw(const struct cd_probe_run *p)
{
	const struct cd_probe_sample *s;

	if (p->status != CD_ST_OK || !(s = cd_probe_largest(p)))
		return NAN;
	return uses_algbw(p) ? s->algbw_gbyte_s : s->busbw_gbyte_s;
}

const struct cd_probe_sample *cd_probe_smallest(const struct cd_probe_run *p)
{
	const struct cd_probe_sample *best = NULL;

	for (size_t i = 0; i < p->n_samples; i++)
		if (p->samples[i].bytes != CD_NULL_I64 && (!best || p->samples[i].bytes < best->bytes))
			best = &p->samples[i];
	return best;
}

const struct cd_probe_sample *cd_probe_lat_sample(const struct cd_probe_run *p)
{
	const struct cd_probe_sample *best = NULL;

	if (p->status != CD_ST_OK)
		return NULL;
	for (size_t i = 0; i < p->n_samples; i++) {
		const struct cd_probe_sample *s = &p->samples[i];

		if (s->bytes != CD_NULL_I64 && s->bytes <= CD_LAT_MAX_BYTES && isfinite(s->time_us) &&
		    (!best || s->time_us < best->time_us))
			best = s;
	}
	return best;
}

double cd_probe_lat_us(const struct cd_probe_run *p)
{
	const struct cd_probe_sample *s = cd_probe_lat_sample(p);

	return s ? s->time_us : NAN;
}

double cd_probe_spread(const struct cd_probe_run *p, const char **why)
{
	const struct cd_probe_sample *s = cd_probe_largest(p);
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (p->status != CD_ST_OK || !s || !(s->time_us > 0))
		return NAN;
	if (s->iters == CD_NULL_I64 || s->iters < CD_SPREAD_MIN_ITERS) {
		*why = "few";
		return NAN;
	}
	if (isnan(s->p25_time_us) || isnan(s->p75_time_us)) {
		*why = "unknown";
		return NAN;
	}
	return (s->p75_time_us - s->p25_time_us) / s->time_us;
}

int cd_sample_contended(const struct cd_probe_sample *s, double max_pct)
{
	return s && isfinite(s->cpu_wait_pct) && max_pct > 0 && s->cpu_wait_pct > max_pct;
}

int64_t cd_sample_outliers(const struct cd_probe_sample *s, double min_excess_us)
{
	if (s->outliers == CD_NULL_I64 || s->outliers <= 0 || s->max_time_us - s->time_us < min_excess_us)
		return 0;
	return s->outliers;
}

int64_t cd_probe_outliers(const struct cd_probe_run *p, double min_excess_us)
{
	int64_t n = 0;

	for (size_t i = 0; i < p->n_samples; i++)
		n += cd_sample_outliers(&p->samples[i], min_excess_us);
	return n;
}

static size_t host_index(const struct cd_results *r, const struct cd_host *h)
{
	return (size_t)(h - r->hosts);
}

/* The host index a rank ran on, or -1. ranks[] is in rank order; look it up when it is not. */
static int64_t rank_host(const struct cd_results *r, int64_t rank)
{
	const struct cd_rank *k = NULL;

	if (rank == CD_NULL_I64 || rank < 0)
		return -1;
	if ((uint64_t)rank < r->n_ranks && r->ranks[rank].rank == rank)
		k = &r->ranks[rank];
	for (size_t i = 0; !k && i < r->n_ranks; i++)
		if (r->ranks[i].rank == rank)
			k = &r->ranks[i];
	if (!k || k->host_index == CD_NULL_I64 || k->host_index < 0 || (uint64_t)k->host_index >= r->n_hosts)
		return -1;
	return k->host_index;
}

static size_t add_idx(size_t *idx, size_t n, size_t max, size_t v)
{
	for (size_t i = 0; i < n; i++)
		if (idx[i] == v)
			return n;
	if (n < max)
		idx[n++] = v;
	return n;
}

static int job_wide(const struct cd_probe_run *p)
{
	return (cd_probe_is(p, "nccl.") && strcmp(p->name, "nccl.pairs")) || (p->name && !strcmp(p->name, "mpi.allreduce"));
}

/*
 * The hosts of the imported file a job-wide probe came from: several nccl-tests files imported
 * together are several jobs, each over the hosts its rank lines name (run.imports[].hosts),
 * not one job over all of them. 0 when the document is not an import or the file named none.
 */
static size_t merged_hosts(const struct cd_results *r, const struct cd_host *own, size_t *idx, size_t max);

static size_t import_hosts(const struct cd_results *r, const struct cd_host *own, size_t *idx, size_t max)
{
	size_t n = 0;

	if (!own || !own->hostname)
		return 0;
	if (r->run.n_merged && !r->run.n_imports && (n = merged_hosts(r, own, idx, max)) > 0)
		return n;
	/* a merged fleet document (commdiag merge) likewise: each file's job is over its own hosts */
	for (size_t i = 0; i < r->run.n_imports + r->run.n_merged; i++) {
		const struct cd_strv *hs = i < r->run.n_imports ? &r->run.imports[i].hosts
								: &r->run.merged[i - r->run.n_imports].hosts;
		int mine = 0;

		for (size_t k = 0; k < hs->n; k++)
			mine |= !strcmp(hs->v[k], own->hostname);
		if (!mine)
			continue;
		for (size_t k = 0; k < hs->n; k++)
			for (size_t h = 0; h < r->n_hosts; h++)
				if (r->hosts[h].hostname && !strcmp(r->hosts[h].hostname, hs->v[k]))
					n = add_idx(idx, n, max, h);
		return n;
	}
	return 0;
}

size_t cd_probe_hosts(const struct cd_results *r, const struct cd_probe_run *p, size_t *idx, size_t max)
{
	const struct cd_host *own = cd_probe_host(r, p);
	size_t n = 0;
	int64_t a, b;

	if (cd_probe_is(p, "copy.") || cd_probe_is(p, "p2p."))
		return own ? add_idx(idx, n, max, host_index(r, own)) : 0;
	if (p->peer != CD_NULL_I64 && p->rank != CD_NULL_I64) {
		a = rank_host(r, p->rank);
		b = rank_host(r, p->peer);
		if (a < 0 && own)
			a = (int64_t)host_index(r, own);
		if (a >= 0)
			n = add_idx(idx, n, max, (size_t)a);
		if (b >= 0)
			n = add_idx(idx, n, max, (size_t)b);
		return n;
	}
	if (job_wide(p) && r->n_hosts) {
		if ((n = import_hosts(r, own, idx, max)) > 0)
			return n;
		for (size_t i = 0; i < r->n_hosts && n < max; i++)
			idx[n++] = i;
		return n;
	}
	return own ? add_idx(idx, n, max, host_index(r, own)) : 0;
}

size_t cd_probe_n_hosts(const struct cd_results *r, const struct cd_probe_run *p)
{
	size_t idx[2];

	if (job_wide(p) && p->peer == CD_NULL_I64) {
		size_t *all = xcalloc(r->n_hosts + 1, sizeof(*all));
		size_t n = import_hosts(r, cd_probe_host(r, p), all, r->n_hosts + 1);

		free(all);
		if (n)
			return n;
		return r->n_hosts ? r->n_hosts : 1;
	}
	return cd_probe_hosts(r, p, idx, 2) == 2 ? 2 : 1;
}

int64_t *cd_hosts_ranks(const struct cd_results *r)
{
	int64_t *n = xcalloc(r->n_hosts + 1, sizeof(*n));

	for (size_t i = 0; i < r->n_ranks; i++) {
		int64_t h = r->ranks[i].host_index;

		if (h != CD_NULL_I64 && h >= 0 && (uint64_t)h < r->n_hosts)
			n[h]++;
	}
	return n;
}

int cd_host_oversubscribed(const struct cd_results *r, const int64_t *ranks, size_t host)
{
	int64_t cpus = host < r->n_hosts ? r->hosts[host].system.cpus_online : CD_NULL_I64;

	return cpus != CD_NULL_I64 && cpus > 0 && ranks[host] > cpus;
}

const struct cd_host *cd_probe_oversubscribed(const struct cd_results *r, const int64_t *ranks,
					      const struct cd_probe_run *p)
{
	size_t idx[2], n;

	if (job_wide(p) && p->peer == CD_NULL_I64) {
		for (size_t i = 0; i < r->n_hosts; i++)
			if (cd_host_oversubscribed(r, ranks, i))
				return &r->hosts[i];
		return NULL;
	}
	n = cd_probe_hosts(r, p, idx, 2);
	for (size_t i = 0; i < n; i++)
		if (cd_host_oversubscribed(r, ranks, idx[i]))
			return &r->hosts[idx[i]];
	return NULL;
}

int64_t cd_probe_max_bytes(const struct cd_probe_run *p)
{
	const struct cd_probe_sample *s = cd_probe_largest(p);

	return s ? s->bytes : CD_NULL_I64;
}

int64_t cd_probe_errors(const struct cd_probe_run *p)
{
	int64_t n = 0;

	for (size_t i = 0; i < p->n_samples; i++)
		if (p->samples[i].errors != CD_NULL_I64 && p->samples[i].errors > 0)
			n += p->samples[i].errors;
	return n;
}

struct cd_host_lookup {
	const struct cd_host *hosts; /* r->hosts and r->n_hosts when built: either changed, it is rebuilt */
	size_t n_hosts;
	const struct cd_merged *merged; /* and r->run.merged */
	size_t n_merged;
	size_t *entry_first; /* a merged fleet: entry e's hosts are [entry_first[e], entry_first[e + 1]); NULL when
				the entries' host counts do not add up to the hosts */
	size_t n;                    /* named hosts, sorted by name, then index */
	struct cd_host_name {
		char *name; /* a copy: a host renamed since must not leave it pointing at freed memory */
		size_t index;
	} *v;
};

static void lookup_clear(struct cd_host_lookup *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	free(l->entry_first);
	l->v = NULL;
	l->entry_first = NULL;
	l->n = 0;
}

void cd_host_lookup_free(struct cd_host_lookup *l)
{
	if (l)
		lookup_clear(l);
	free(l);
}

static int cmp_host_name(const void *a, const void *b)
{
	const struct cd_host_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_host_key(const void *a, const void *b)
{
	return strcmp(((const struct cd_host_name *)a)->name, ((const struct cd_host_name *)b)->name);
}

static struct cd_host_lookup *host_lookup(const struct cd_results *r)
{
	/* the cache is no part of the document: the documents it is built for are never const objects */
	struct cd_results *w = (struct cd_results *)r;
	struct cd_host_lookup *l = w->lookup;

	if (l && l->hosts == r->hosts && l->n_hosts == r->n_hosts && l->merged == r->run.merged &&
	    l->n_merged == r->run.n_merged)
		return l;
	if (!l)
		l = w->lookup = xcalloc(1, sizeof(*l));
	lookup_clear(l);
	l->v = xcalloc(r->n_hosts + 1, sizeof(*l->v));
	for (size_t i = 0; i < r->n_hosts; i++)
		if (r->hosts[i].hostname)
			l->v[l->n++] = (struct cd_host_name){ xstrdup(r->hosts[i].hostname), i };
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_host_name);
	if (r->run.n_merged) {
		size_t sum = 0;

		l->entry_first = xcalloc(r->run.n_merged + 1, sizeof(*l->entry_first));
		for (size_t e = 0; e < r->run.n_merged; e++) {
			l->entry_first[e] = sum;
			sum += r->run.merged[e].hosts.n;
		}
		l->entry_first[r->run.n_merged] = sum;
		if (sum != r->n_hosts) {
			free(l->entry_first);
			l->entry_first = NULL;
		}
	}
	l->hosts = r->hosts;
	l->n_hosts = r->n_hosts;
	l->merged = r->run.merged;
	l->n_merged = r->run.n_merged;
	return l;
}

/*
 * The hosts of own's file in a merged fleet: merge appends each file's hosts in the order of
 * run.merged, so they are one range, found by binary search. 0 when the counts do not add up
 * (a document edited by hand): then the names decide, as for an import.
 */
static size_t merged_hosts(const struct cd_results *r, const struct cd_host *own, size_t *idx, size_t max)
{
	const struct cd_host_lookup *l = host_lookup(r);
	size_t h = (size_t)(own - r->hosts), lo = 0, hi = r->run.n_merged, n = 0;

	if (!l->entry_first || h >= r->n_hosts)
		return 0;
	while (hi - lo > 1) { /* the last entry whose first host is at or before h */
		size_t mid = lo + (hi - lo) / 2;

		if (l->entry_first[mid] <= h)
			lo = mid;
		else
			hi = mid;
	}
	while (lo + 1 < r->run.n_merged && l->entry_first[lo + 1] <= h) /* entries with no host */
		lo++;
	for (size_t k = l->entry_first[lo]; k < l->entry_first[lo + 1] && n < max; k++)
		idx[n++] = k;
	return n;
}

/* The first host named p->host, as a scan in host order finds it, by binary search. */
const struct cd_host *cd_probe_host(const struct cd_results *r, const struct cd_probe_run *p)
{
	struct cd_host_lookup *l;
	struct cd_host_name key = { (char *)p->host, 0 }, *hit;
	size_t k;

	if (!p->host)
		return r->n_hosts == 1 ? &r->hosts[0] : NULL;
	if (r->n_hosts < 8) {
		for (size_t i = 0; i < r->n_hosts; i++)
			if (r->hosts[i].hostname && !strcmp(r->hosts[i].hostname, p->host))
				return &r->hosts[i];
		return NULL;
	}
	l = host_lookup(r);
	hit = l->n ? bsearch(&key, l->v, l->n, sizeof(*l->v), cmp_host_key) : NULL;
	if (!hit)
		return NULL;
	for (k = (size_t)(hit - l->v); k > 0 && !strcmp(l->v[k - 1].name, p->host); k--)
		;
	/* a host renamed since the lookup was built: build it again */
	if (!r->hosts[l->v[k].index].hostname || strcmp(r->hosts[l->v[k].index].hostname, p->host)) {
		l->hosts = NULL;
		return cd_probe_host(r, p);
	}
	return &r->hosts[l->v[k].index];
}

const struct cd_gpu *cd_host_gpu(const struct cd_host *h, int64_t index)
{
	for (size_t i = 0; h && index != CD_NULL_I64 && i < h->n_gpus; i++)
		if (h->gpus[i].index == index)
			return &h->gpus[i];
	return NULL;
}

double cd_probe_link_gbyte_s(const struct cd_results *r, const struct cd_probe_run *p)
{
	const struct cd_host *h = cd_probe_host(r, p);
	const struct cd_gpu *g = cd_host_gpu(h, p->device), *b;
	double nv;

	if (!g || !p->name)
		return NAN;
	if (!strcmp(p->name, "copy.h2d") || !strcmp(p->name, "copy.d2h"))
		return cd_gpu_pcie_max_gbyte_s(g);
	if (strcmp(p->name, "p2p.bw") || !(b = cd_host_gpu(h, p->peer)))
		return NAN;
	nv = cd_gpu_nvlink_gbyte_s(g);
	return !isnan(nv) ? nv : fmin(cd_gpu_pcie_max_gbyte_s(g), cd_gpu_pcie_max_gbyte_s(b));
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double cd_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double cd_mad(double *v, size_t n, double med)
{
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	return cd_median(v, n);
}

int cd_nic_is_up(const struct cd_nic *n)
{
	/* virtual devices without carrier logic report "unknown" while working */
	return n->admin_up == CD_TRI_TRUE && n->state && (!strcmp(n->state, "up") || !strcmp(n->state, "unknown"));
}

int cd_nic_has_address(const struct cd_nic *n)
{
	if (n->ipv4.n)
		return 1;
	for (size_t i = 0; i < n->ipv6.n; i++)
		if (strncasecmp(n->ipv6.v[i], "fe80:", 5))
			return 1;
	return 0;
}

void cd_probe_groups_build(const struct cd_results *r, struct cd_probe_groups *g)
{
	size_t *host = xcalloc(r->n_probes + 1, sizeof(*host)), *fill;

	g->start = xcalloc(r->n_hosts + 2, sizeof(*g->start));
	g->idx = xcalloc(r->n_probes + 1, sizeof(*g->idx));
	/* counting sort by host: stable, so each host's runs stay in document order */
	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_host *h = cd_probe_host(r, &r->probes[i]);

		host[i] = h ? (size_t)(h - r->hosts) : SIZE_MAX;
		if (h)
			g->start[host[i] + 1]++;
	}
	for (size_t h = 0; h < r->n_hosts; h++)
		g->start[h + 1] += g->start[h];
	fill = xcalloc(r->n_hosts + 1, sizeof(*fill));
	for (size_t i = 0; i < r->n_probes; i++)
		if (host[i] != SIZE_MAX)
			g->idx[g->start[host[i]] + fill[host[i]]++] = i;
	free(fill);
	free(host);
}

void cd_probe_groups_free(struct cd_probe_groups *g)
{
	free(g->idx);
	free(g->start);
	g->idx = g->start = NULL;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

int cd_name_set_add(struct cd_name_set *s, const char *name)
{
	size_t k;

	if (2 * (s->n + 1) > s->cap) {
		struct cd_name_set big = { .cap = s->cap ? 2 * s->cap : 16 };

		big.v = xcalloc(big.cap, sizeof(*big.v));
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				cd_name_set_add(&big, s->v[i]);
		free(s->v);
		*s = big;
	}
	for (k = name_hash(name) & (s->cap - 1); s->v[k]; k = (k + 1) & (s->cap - 1))
		if (!strcmp(s->v[k], name))
			return 0;
	s->v[k] = name;
	s->n++;
	return 1;
}

void cd_name_set_free(struct cd_name_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
