/* SPDX-License-Identifier: BSD-3-Clause */
/* Matching a document's probe runs with a baseline's, and the noise of a comparison. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline.h"
#include "measure.h"

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

const char *cd_probe_host_name(const struct cd_results *r, const struct cd_probe_run *p)
{
	const struct cd_host *h;

	if (p->host)
		return p->host;
	h = cd_probe_host(r, p);
	return h ? h->hostname : NULL;
}

const struct cd_probe_run *cd_baseline_find(const struct cd_results *in, const struct cd_results *of,
					    const struct cd_probe_run *p)
{
	const char *host = cd_probe_host_name(of, p);

	for (size_t i = 0; i < in->n_probes; i++) {
		const struct cd_probe_run *q = &in->probes[i];

		if (same_str(q->name, p->name) && same_str(q->variant, p->variant) && q->device == p->device &&
		    q->peer == p->peer && same_str(cd_probe_host_name(in, q), host))
			return q;
	}
	return NULL;
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

double cd_baseline_time_ratio(const struct cd_results *r, const struct cd_probe_run *p,
			      const struct cd_probe_sample *s)
{
	const struct cd_probe_run *q;
	const struct cd_probe_sample *o;

	if (!r->baseline || p->status != CD_ST_OK || !(s->time_us > 0))
		return NAN;
	q = cd_baseline_find(r->baseline, r, p);
	if (!q || q->status != CD_ST_OK || q->nranks != p->nranks)
		return NAN;
	{
		char why[256];

		if (cd_baseline_host_differs(r, cd_probe_host_name(r, p), why, sizeof(why)))
			return NAN;
	}
	o = cd_probe_sample_at(q, s->bytes);
	return o && o->time_us > 0 ? s->time_us / o->time_us : NAN;
}

static const struct cd_host *host_named(const struct cd_results *r, const char *name)
{
	for (size_t i = 0; i < r->n_hosts; i++)
		if (same_str(r->hosts[i].hostname, name))
			return &r->hosts[i];
	return NULL;
}

/*
 * Hardware is compared by the GPUs' models in the driver's order: another model (or another
 * count) is another machine, whose numbers say nothing about a regression. A host either
 * document has no GPU inventory for (an import, a failed driver) is compared: a GPU that went
 * missing shows as missing probe runs (BASE003) and in the GPU rules.
 */
const char *cd_baseline_host_differs(const struct cd_results *r, const char *host, char *buf, size_t len)
{
	const struct cd_host *a, *b;

	if (!r->baseline)
		return NULL;
	a = host_named(r->baseline, host);
	b = host_named(r, host);
	if (!a || !b || !a->n_gpus || !b->n_gpus)
		return NULL;
	if (a->n_gpus != b->n_gpus) {
		snprintf(buf, len, "host %s has %zu GPUs in the baseline and %zu now", host ? host : "(unnamed)",
			 a->n_gpus, b->n_gpus);
		return buf;
	}
	for (size_t i = 0; i < a->n_gpus; i++)
		if (!same_str(a->gpus[i].name, b->gpus[i].name)) {
			snprintf(buf, len, "host %s: GPU %zu is %s in the baseline and %s now", host ? host : "(unnamed)",
				 i, a->gpus[i].name ? a->gpus[i].name : "unknown",
				 b->gpus[i].name ? b->gpus[i].name : "unknown");
			return buf;
		}
	return NULL;
}
