/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rules against a baseline (`compare OLD NEW`, `--baseline FILE`): each probe run and size
 * the baseline finished, against the same run and size now.
 *
 *   BASE001  bandwidth below the baseline's, beyond the noise of both runs (sizes above 8 KiB)
 *   BASE002  time above the baseline's, beyond the noise (sizes of at most 8 KiB: latency)
 *   BASE003  a run or size the baseline finished is missing now (absent data is a failure)
 *   BASE004  faster than the baseline beyond the noise (info)
 *
 * One finding per probe run and kind, at its worst size, with every size that crossed in its
 * evidence: a regressed node gives a line per probe, not one per size and GPU. Runs that
 * cannot be compared (other GPUs on the host, another rank count) are not judged and listed
 * in rules.not_evaluated, never counted as a pass or as missing.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "rules.h"
#include "rules_eval.h"

enum base_kind { K_BW, K_LAT, K_MISSING, K_BETTER };

/* At most this many sizes are listed in one finding's evidence; the rest are counted. */
#define EVIDENCE_SIZES 8

static int is_lat(int64_t bytes)
{
	return bytes <= CD_LAT_MAX_BYTES;
}

static int finished(const struct cd_probe_run *q)
{
	return q->status == CD_ST_OK && q->n_samples > 0;
}

static int cmp_name(const void *x, const void *y)
{
	const char *const *a = x, *const *b = y;

	if (!*a || !*b)
		return (*a != NULL) - (*b != NULL);
	return strcmp(*a, *b);
}

/*
 * Comparable at all: a finished run of the baseline is from a host this run has (a host
 * discovered, or one its probe runs name). Sorted, so a fleet's documents cost n log n.
 */
char *baseline_why_not(const struct cd_results *r)
{
	const struct cd_results *b = r->baseline;
	size_t runs = 0, n = 0;
	const char **names = xcalloc(r->n_hosts + r->n_probes + 1, sizeof(*names));

	for (size_t i = 0; i < r->n_hosts; i++)
		names[n++] = r->hosts[i].hostname;
	for (size_t i = 0; i < r->n_probes; i++)
		names[n++] = cd_probe_host_name(r, &r->probes[i]);
	qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < b->n_probes; i++) {
		const char *h;

		if (!finished(&b->probes[i]))
			continue;
		runs++;
		h = cd_probe_host_name(b, &b->probes[i]);
		if (bsearch(&h, names, n, sizeof(*names), cmp_name)) {
			free(names);
			return NULL;
		}
	}
	free(names);
	if (!runs)
		return xasprintf("the baseline %s has no finished probe run", r->baseline_file ? r->baseline_file : "");
	return xasprintf("no probe run of the baseline %s is from a host of this run (its first: %s): "
			 "another machine's numbers are no baseline",
			 r->baseline_file ? r->baseline_file : "",
			 cd_probe_host_name(b, &b->probes[0]) ? cd_probe_host_name(b, &b->probes[0]) : "unnamed");
}

/*
 * The run of r that baseline run k is compared with, or NULL with *why: "missing" (none, or
 * not finished: BASE003 says so) or "other" (not comparable: noted, not judged).
 */
static const struct cd_probe_run *counterpart(const struct cd_results *r, const struct cd_baseline_map *m, size_t k,
					      const char **why)
{
	const struct cd_probe_run *q = &r->baseline->probes[k];
	const struct cd_probe_run *p = m->pair[k] == CD_BASELINE_NONE ? NULL : &r->probes[m->pair[k]];

	*why = NULL;
	if (m->other_hw[k]) {
		*why = "other";
		return NULL;
	}
	if (p && p->nranks != q->nranks) {
		*why = "other";
		return NULL;
	}
	if (!p || !finished(p)) {
		*why = "missing";
		return NULL;
	}
	return p;
}

void note_baseline(struct cd_results *r, const struct cd_conf *c)
{
	const struct cd_results *b = r->baseline;
	size_t ranks = 0, contended = 0, first = 0;
	double max_wait = cd_conf_get(c, CD_K_STAB_CPU_WAIT_MAX);
	struct cd_baseline_map m;

	if (!b)
		return;
	cd_baseline_map(r, &m);
	/* other hardware on a host: once per host */
	for (size_t i = 0; i < m.n_host_why; i++) {
		if (m.host_why[i]) {
			char *g = xasprintf("baseline (host %s)", b->hosts[i].hostname ? b->hosts[i].hostname : "unnamed");
			char *w = xasprintf("%s: its runs are not compared", m.host_why[i]);

			cd_rules_run_add_not_evaluated(&r->rules, g, w);
			free(g);
			free(w);
		}
	}
	for (size_t i = 0; i < b->n_probes; i++) {
		const struct cd_probe_run *q = &b->probes[i], *p;

		if (!finished(q))
			continue;
		p = m.pair[i] == CD_BASELINE_NONE ? NULL : &r->probes[m.pair[i]];
		if (p && p->nranks != q->nranks && !m.other_hw[i]) {
			if (!ranks++)
				first = i;
			continue;
		}
		if (!p || !finished(p) || p->nranks != q->nranks)
			continue;
		for (size_t j = 0; j < q->n_samples; j++) {
			const struct cd_probe_sample *s = cd_probe_sample_at(p, q->samples[j].bytes);

			if (s && (cd_sample_contended(s, max_wait) || cd_sample_contended(&q->samples[j], max_wait)))
				contended++;
		}
	}
	if (ranks) {
		const struct cd_probe_run *q = &b->probes[first];
		const struct cd_probe_run *p = &r->probes[m.pair[first]];
		char *w = xasprintf("%zu probe run%s ran on another number of ranks than in the baseline (%s: %" PRId64
				    " then, %" PRId64 " now): not comparable, not judged", ranks, ranks == 1 ? "" : "s",
				    q->name ? q->name : "?", q->nranks, p->nranks);

		cd_rules_run_add_not_evaluated(&r->rules, "baseline (ranks)", w);
		free(w);
	}
	if (contended) {
		char *w = xasprintf("%zu size%s waited for a CPU more than %.0f %% of the timed time, then or now: "
				    "not compared", contended, contended == 1 ? "" : "s", max_wait);

		cd_rules_run_add_not_evaluated(&r->rules, "baseline (cpu)", w);
		free(w);
	}
	cd_baseline_map_free(&m);
}

/* A size's bandwidth in GB/s: busbw, else algbw, else bytes over the median time. */
static double size_bw(const struct cd_probe_sample *s)
{
	if (isfinite(s->busbw_gbyte_s))
		return s->busbw_gbyte_s;
	if (isfinite(s->algbw_gbyte_s))
		return s->algbw_gbyte_s;
	return (double)s->bytes / (s->time_us * 1e3);
}

static void run_title(char *buf, size_t len, const struct cd_probe_run *p)
{
	snprintf(buf, len, "%s%s%s%s", p->name ? p->name : "probe", p->variant ? " (" : "", p->variant ? p->variant : "",
		 p->variant ? ")" : "");
}

/* One size of baseline run q against p: its change (worse > 0) and the significance it must pass. */
struct size_cmp {
	const struct cd_probe_sample *old, *cur;
	double ratio;   /* time now / time then */
	double worse;   /* share of the baseline lost: time for latency, bandwidth otherwise */
	double better;  /* share gained */
	double noise;   /* combined relative IQR */
	int known;      /* both spreads recorded */
	double bar;     /* max(warn_pct, noise_k x noise) */
};

static int compare_size(const struct cd_eval *e, const struct cd_probe_sample *old, const struct cd_probe_sample *cur,
			struct size_cmp *x)
{
	double max_wait = key(e, CD_K_STAB_CPU_WAIT_MAX);

	if (!(old->time_us > 0) || !(cur->time_us > 0))
		return -1;
	if (cd_sample_contended(old, max_wait) || cd_sample_contended(cur, max_wait))
		return -1; /* note_baseline said so */
	x->old = old;
	x->cur = cur;
	x->ratio = cur->time_us / old->time_us;
	x->worse = is_lat(old->bytes) ? x->ratio - 1 : 1 - 1 / x->ratio;
	x->better = is_lat(old->bytes) ? 1 - x->ratio : 1 / x->ratio - 1;
	x->noise = cd_baseline_noise(old, cur, &x->known);
	x->bar = fmax(pct(e, CD_K_BASE_WARN_PCT), key(e, CD_K_BASE_NOISE_K) * x->noise);
	return 0;
}

static void size_evidence(struct cd_finding *f, const struct size_cmp *x, const struct cd_eval *e)
{
	char sz[32];

	cd_fmt_bytes(sz, sizeof(sz), x->old->bytes);
	if (is_lat(x->old->bytes))
		cd_finding_evidence(f, "%s: median %.4g us in the baseline, %.4g us now (%+.1f %% time)", sz,
				    x->old->time_us, x->cur->time_us, (x->ratio - 1) * 100);
	else
		cd_finding_evidence(f, "%s: %.4g GB/s in the baseline, %.4g GB/s now (%+.1f %%; median %.4g -> %.4g us)",
				    sz, size_bw(x->old), size_bw(x->cur), (1 / x->ratio - 1) * 100, x->old->time_us,
				    x->cur->time_us);
	if (x->known)
		cd_finding_evidence(f, "%s: noise (p75 - p25) / median %.1f %% then, %.1f %% now: %.3g x %.1f %% = %.1f %%, "
				    "the bar is the larger of that and baseline.warn_pct (%.1f %%)", sz,
				    cd_sample_rel_iqr(x->old) * 100, cd_sample_rel_iqr(x->cur) * 100,
				    key(e, CD_K_BASE_NOISE_K), x->noise * 100, key(e, CD_K_BASE_NOISE_K) * x->noise * 100,
				    x->bar * 100);
}

/* The findings of one kind for one pair of runs; returns how many (0 or 1). */
static int judge_pair(struct cd_eval *e, const struct cd_probe_run *q, const struct cd_probe_run *p, enum base_kind kind)
{
	struct size_cmp hit[EVIDENCE_SIZES], worst = { 0 }, x;
	size_t n = 0;
	double fail = pct(e, CD_K_BASE_FAIL_PCT);
	char subject[96], what[128], sz[32], *title;
	struct cd_finding *f;
	enum cd_severity sev;

	for (size_t j = 0; j < q->n_samples; j++) {
		const struct cd_probe_sample *cur = cd_probe_sample_at(p, q->samples[j].bytes);
		double d;

		if (!cur || compare_size(e, &q->samples[j], cur, &x) < 0)
			continue;
		if ((kind == K_BW && is_lat(x.old->bytes)) || (kind == K_LAT && !is_lat(x.old->bytes)))
			continue;
		d = kind == K_BETTER ? x.better : x.worse;
		if (!(d > x.bar))
			continue;
		if (n < EVIDENCE_SIZES)
			hit[n] = x;
		if (!n++ || d > (kind == K_BETTER ? worst.better : worst.worse))
			worst = x;
	}
	if (!n)
		return 0;
	probe_subject(p, subject, sizeof(subject));
	run_title(what, sizeof(what), p);
	cd_fmt_bytes(sz, sizeof(sz), worst.old->bytes);
	if (kind == K_BETTER) {
		sev = CD_SEV_INFO;
		title = xasprintf("%s %s %.1f %% better than the baseline at %s", what,
				  is_lat(worst.old->bytes) ? "time" : "bandwidth", worst.better * 100, sz);
	} else {
		sev = worst.worse > fail ? CD_SEV_FAIL : CD_SEV_WARN;
		title = kind == K_BW ? xasprintf("%s bandwidth %.1f %% below the baseline at %s", what, worst.worse * 100, sz)
				     : xasprintf("%s time %.1f %% above the baseline at %s", what, worst.worse * 100, sz);
	}
	if (kind == K_LAT)
		f = add(e, "BASE002", sev, probe_host_name(e->r, p), subject, title, worst.cur->time_us, worst.old->time_us,
			"us", sev == CD_SEV_FAIL ? CD_K_BASE_FAIL_PCT : CD_K_BASE_WARN_PCT);
	else
		f = add(e, kind == K_BW ? "BASE001" : "BASE004", sev, probe_host_name(e->r, p), subject, title,
			size_bw(worst.cur), size_bw(worst.old), "gbyte_s",
			kind == K_BETTER ? CD_K_BASE_WARN_PCT : sev == CD_SEV_FAIL ? CD_K_BASE_FAIL_PCT : CD_K_BASE_WARN_PCT);
	free(title);
	cd_finding_evidence(f, "baseline %s; measured is now, expected is the baseline's, at the worst size",
			    e->r->baseline_file ? e->r->baseline_file : "");
	for (size_t i = 0; i < n && i < EVIDENCE_SIZES; i++)
		size_evidence(f, &hit[i], e);
	for (size_t i = 0; i < n && i < EVIDENCE_SIZES; i++)
		if (!hit[i].known) {
			cd_finding_evidence(f, "a run has no recorded percentiles at some of these sizes (an import of "
					    "nccl-tests prints one time per size): those are held to baseline.warn_pct "
					    "(%.1f %%) and the spread that is known", pct(e, CD_K_BASE_WARN_PCT) * 100);
			break;
		}
	if (n > EVIDENCE_SIZES)
		cd_finding_evidence(f, "and %zu more size%s", n - EVIDENCE_SIZES, n - EVIDENCE_SIZES == 1 ? "" : "s");
	return 1;
}

/* BASE003: what the baseline finished and this run does not have. */
static int judge_missing(struct cd_eval *e, const struct cd_baseline_map *m, size_t k, const struct cd_probe_run *p)
{
	const struct cd_probe_run *q = &e->r->baseline->probes[k];
	const struct cd_results *b = e->r->baseline;
	char subject[96], what[128], list[256] = "", sz[32], *title;
	size_t n = 0, used = 0;
	struct cd_finding *f;

	probe_subject(q, subject, sizeof(subject));
	run_title(what, sizeof(what), q);
	if (!p) {
		const struct cd_probe_run *any = m->pair[k] == CD_BASELINE_NONE ? NULL : &e->r->probes[m->pair[k]];

		title = xasprintf("%s: in the baseline, no result now", what);
		f = add(e, "BASE003", CD_SEV_FAIL, cd_probe_host_name(b, q), subject, title, NAN, NAN, NULL, CD_K_NONE);
		free(title);
		if (any)
			cd_finding_evidence(f, "the run is %s now%s%s", cd_status_str(any->status), any->reason ? ": " : "",
					    any->reason ? any->reason : "");
		else
			cd_finding_evidence(f, "no run of %s on %s now", what,
					    cd_probe_host_name(b, q) ? cd_probe_host_name(b, q) : "the host");
		cd_finding_evidence(f, "the baseline %s has %zu size%s of it", e->r->baseline_file ? e->r->baseline_file : "",
				    q->n_samples, q->n_samples == 1 ? "" : "s");
		return 1;
	}
	for (size_t j = 0; j < q->n_samples; j++) {
		const struct cd_probe_sample *cur = cd_probe_sample_at(p, q->samples[j].bytes);

		if (!(q->samples[j].time_us > 0) || (cur && cur->time_us > 0))
			continue;
		if (n++ < EVIDENCE_SIZES && used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
						 cd_fmt_bytes(sz, sizeof(sz), q->samples[j].bytes));
	}
	if (!n)
		return 0;
	title = xasprintf("%s: %zu size%s of the baseline missing now", what, n, n == 1 ? "" : "s");
	f = add(e, "BASE003", CD_SEV_FAIL, probe_host_name(e->r, p), subject, title, NAN, NAN, NULL, CD_K_NONE);
	free(title);
	cd_finding_evidence(f, "no median time now at %s%s", list, n > EVIDENCE_SIZES ? ", …" : "");
	return 1;
}

static int walk(struct cd_eval *e, enum base_kind kind)
{
	const struct cd_results *b = e->r->baseline;
	struct cd_baseline_map m;
	int n = 0;

	if (!b)
		return 0;
	cd_baseline_map(e->r, &m);
	for (size_t i = 0; i < b->n_probes; i++) {
		const struct cd_probe_run *q = &b->probes[i], *p;
		const char *why;

		if (!finished(q))
			continue;
		p = counterpart(e->r, &m, i, &why);
		if (kind == K_MISSING) {
			if (!why || !strcmp(why, "missing"))
				n += judge_missing(e, &m, i, p);
		} else if (p) {
			n += judge_pair(e, q, p, kind);
		}
	}
	cd_baseline_map_free(&m);
	return n;
}

int rule_base_bw(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return walk(e, K_BW);
}

int rule_base_lat(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return walk(e, K_LAT);
}

int rule_base_missing(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return walk(e, K_MISSING);
}

int rule_base_better(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return walk(e, K_BETTER);
}
