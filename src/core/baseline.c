/* SPDX-License-Identifier: BSD-3-Clause */
/* Pairing a document's probe runs with a baseline's, and the noise of a comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "measure.h"

const char *cd_probe_host_name(const struct cd_results *r, const struct cd_probe_run *p)
{
	const struct cd_host *h;

	if (p->host)
		return p->host;
	h = cd_probe_host(r, p);
	return h ? h->hostname : NULL;
}

/* NULL sorts first */
static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

struct ent {
	const char *host, *name, *variant;
	int64_t device, peer;
	size_t i;
};

static int cmp_key(const struct ent *a, const struct ent *b)
{
	int c = cmp_str(a->host, b->host);

	if (!c)
		c = cmp_str(a->name, b->name);
	if (!c)
		c = cmp_str(a->variant, b->variant);
	if (!c)
		c = cmp_i64(a->device, b->device);
	if (!c)
		c = cmp_i64(a->peer, b->peer);
	return c;
}

/* by key, then by position: the k-th of a key is the k-th in the document */
static int cmp_ent(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;
	int c = cmp_key(a, b);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static struct ent *entries(const struct cd_results *r)
{
	struct ent *e = xcalloc(r->n_probes + 1, sizeof(*e));

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];

		e[i] = (struct ent){ cd_probe_host_name(r, p), p->name, p->variant, p->device, p->peer, i };
	}
	qsort(e, r->n_probes, sizeof(*e), cmp_ent);
	return e;
}

static int cmp_host(const void *x, const void *y)
{
	const struct cd_host *const *a = x, *const *b = y;

	return cmp_str((*a)->hostname, (*b)->hostname);
}

/* by name, then in document order (the hosts are one array) */
static int cmp_host_pos(const void *x, const void *y)
{
	const struct cd_host *const *a = x, *const *b = y;
	int c = cmp_host(x, y);

	return c ? c : (*a > *b) - (*a < *b);
}

/*
 * Hardware is compared by the GPUs' models in the driver's order: another model (or another
 * count) is another machine, whose numbers say nothing about a regression. A host either
 * document has no GPU inventory for (an import, a failed driver) is compared: a GPU that went
 * missing shows as missing probe runs (BASE003) and in the GPU rules.
 */
static char *host_differs(const struct cd_host *a, const struct cd_host *b)
{
	const char *name = a->hostname ? a->hostname : "(unnamed)";

	if (!a->n_gpus || !b->n_gpus)
		return NULL;
	if (a->n_gpus != b->n_gpus)
		return xasprintf("host %s has %zu GPUs in the baseline and %zu now", name, a->n_gpus, b->n_gpus);
	for (size_t i = 0; i < a->n_gpus; i++)
		if (cmp_str(a->gpus[i].name, b->gpus[i].name))
			return xasprintf("host %s: GPU %zu is %s in the baseline and %s now", name, i,
					 a->gpus[i].name ? a->gpus[i].name : "unknown",
					 b->gpus[i].name ? b->gpus[i].name : "unknown");
	return NULL;
}

/* Per host of the baseline, why it differs from the first host of its name now. */
static void hosts_differ(const struct cd_results *r, struct cd_baseline_map *m)
{
	const struct cd_results *b = r->baseline;
	const struct cd_host **now = xcalloc(r->n_hosts + 1, sizeof(*now));

	for (size_t i = 0; i < r->n_hosts; i++)
		now[i] = &r->hosts[i];
	qsort(now, r->n_hosts, sizeof(*now), cmp_host_pos);
	m->n_host_why = b->n_hosts;
	m->host_why = xcalloc(b->n_hosts + 1, sizeof(*m->host_why));
	for (size_t i = 0; i < b->n_hosts; i++) {
		const struct cd_host *key = &b->hosts[i], *const *hit;

		if (!key->hostname)
			continue;
		hit = bsearch(&key, now, r->n_hosts, sizeof(*now), cmp_host);
		while (hit && hit > now && !cmp_host(hit - 1, &key))
			hit--; /* the first of its name, as cd_probe_host finds */
		if (hit)
			m->host_why[i] = host_differs(key, *hit);
	}
	free(now);
}

void cd_baseline_map(const struct cd_results *r, struct cd_baseline_map *m)
{
	const struct cd_results *b = r->baseline;
	struct ent *eb, *er;
	size_t i = 0, j = 0;

	memset(m, 0, sizeof(*m));
	if (!b)
		return;
	m->n_base = b->n_probes;
	m->n_runs = r->n_probes;
	m->pair = xcalloc(b->n_probes + 1, sizeof(*m->pair));
	m->of = xcalloc(r->n_probes + 1, sizeof(*m->of));
	m->other_hw = xcalloc(b->n_probes + 1, sizeof(*m->other_hw));
	for (size_t k = 0; k < b->n_probes; k++)
		m->pair[k] = CD_BASELINE_NONE;
	for (size_t k = 0; k < r->n_probes; k++)
		m->of[k] = CD_BASELINE_NONE;
	eb = entries(b);
	er = entries(r);
	/* both sorted by key then position: a merge pairs the k-th of each key with the k-th */
	while (i < b->n_probes && j < r->n_probes) {
		int c = cmp_key(&eb[i], &er[j]);

		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			m->pair[eb[i].i] = er[j].i;
			m->of[er[j].i] = eb[i].i;
			i++;
			j++;
		}
	}
	free(eb);
	free(er);
	hosts_differ(r, m);
	for (size_t k = 0; k < b->n_probes; k++) {
		const struct cd_host *h = cd_probe_host(b, &b->probes[k]);

		if (h)
			m->other_hw[k] = m->host_why[h - b->hosts];
	}
}

void cd_baseline_map_free(struct cd_baseline_map *m)
{
	free(m->pair);
	free(m->of);
	free(m->other_hw);
	for (size_t i = 0; i < m->n_host_why; i++)
		free(m->host_why[i]);
	free(m->host_why);
	memset(m, 0, sizeof(*m));
}

const struct cd_probe_sample *cd_probe_sample_at(const struct cd_probe_run *p, int64_t bytes)
{
	for (size_t i = 0; i < p->n_samples; i++)
		if (p->samples[i].bytes == bytes)
			return &p->samples[i];
	return NULL;
}

double cd_sample_rel_iqr(const struct cd_probe_sample *s)
{
	if (!s || !(s->time_us > 0) || !isfinite(s->p25_time_us) || !isfinite(s->p75_time_us) ||
	    s->p75_time_us < s->p25_time_us)
		return NAN;
	return (s->p75_time_us - s->p25_time_us) / s->time_us;
}

double cd_baseline_noise(const struct cd_probe_sample *old, const struct cd_probe_sample *cur, int *known)
{
	double a = cd_sample_rel_iqr(old), b = cd_sample_rel_iqr(cur);

	*known = !isnan(a) && !isnan(b);
	a = isnan(a) ? 0 : a;
	b = isnan(b) ? 0 : b;
	return sqrt(a * a + b * b);
}

double cd_baseline_time_ratio(const struct cd_results *r, const struct cd_baseline_map *m, size_t run,
			      const struct cd_probe_sample *s)
{
	const struct cd_probe_run *p, *q;
	const struct cd_probe_sample *o;
	size_t k;

	if (!r->baseline || run >= m->n_runs || m->of[run] == CD_BASELINE_NONE)
		return NAN;
	k = m->of[run];
	p = &r->probes[run];
	q = &r->baseline->probes[k];
	if (p->status != CD_ST_OK || q->status != CD_ST_OK || q->nranks != p->nranks || m->other_hw[k] ||
	    !(s->time_us > 0))
		return NAN;
	o = cd_probe_sample_at(q, s->bytes);
	return o && o->time_us > 0 ? s->time_us / o->time_us : NAN;
}
