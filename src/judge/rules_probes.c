/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules over what the probes measured: copies, collectives, balance between GPUs and hosts,
 * run-to-run stability. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules.h"
#include "rules_eval.h"
#include "scope.h"

/* ---- copy ---- */

static int is_h2d_d2h(const struct cd_probe_run *p)
{
	return p->name && (!strcmp(p->name, "copy.h2d") || !strcmp(p->name, "copy.d2h"));
}

static const char *copy_title(const struct cd_probe_run *p, int floor_rule)
{
	if (!strcmp(p->name, "copy.h2d"))
		return floor_rule ? "host-to-device copy bandwidth is below the profile's floor"
				  : "host-to-device copy bandwidth is low for the GPU's PCIe link";
	return floor_rule ? "device-to-host copy bandwidth is below the profile's floor"
			  : "device-to-host copy bandwidth is low for the GPU's PCIe link";
}

int rule_copy_frac(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		const struct cd_gpu *g;
		double bw, link;
		enum cd_key k;
		struct cd_finding *f;
		char subj[64];

		if (!is_h2d_d2h(p) || isnan(bw = cd_probe_bw(p)))
			continue;
		g = cd_host_gpu(cd_probe_host(e->r, p), p->device);
		link = g ? cd_gpu_pcie_max_gbyte_s(g) : NAN;
		if (!(link > 0) || bw >= link * pct(e, CD_K_COPY_WARN_PCT))
			continue;
		k = bw < link * pct(e, CD_K_COPY_FAIL_PCT) ? CD_K_COPY_FAIL_PCT : CD_K_COPY_WARN_PCT;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "COPY001", k == CD_K_COPY_FAIL_PCT ? CD_SEV_FAIL : CD_SEV_WARN, probe_host_name(e->r, p), subj,
			copy_title(p, 0), bw, link * pct(e, k), "gbyte_s", k);
		cd_finding_evidence(f, "%s %s: %.1f GB/s, %.0f %% of the %.2f GB/s per-direction PCIe link", p->name, subj,
				    bw, 100.0 * bw / link, link);
		if (g->pcie_gen != CD_NULL_I64 && g->pcie_max_gen != CD_NULL_I64)
			cd_finding_evidence(f, "link Gen%" PRId64 " x%" PRId64 " (max Gen%" PRId64 " x%" PRId64 ")",
					    g->pcie_gen, g->pcie_width, g->pcie_max_gen, g->pcie_max_width);
		e->judged[i] = 1;
		n++;
	}
	return n;
}

int rule_copy_floor(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		enum cd_key k;
		double bw, floor_;
		struct cd_finding *f;
		char subj[64];

		if (!is_h2d_d2h(p) || e->judged[i] || isnan(bw = cd_probe_bw(p)))
			continue;
		k = !strcmp(p->name, "copy.h2d") ? CD_K_COPY_H2D_MIN : CD_K_COPY_D2H_MIN;
		floor_ = key(e, k);
		if (!(floor_ > 0) || bw >= floor_)
			continue;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "COPY002", CD_SEV_FAIL, probe_host_name(e->r, p), subj, copy_title(p, 1), bw, floor_, "gbyte_s",
			k);
		cd_finding_evidence(f, "%s %s: %.1f GB/s, floor %.1f GB/s", p->name, subj, bw, floor_);
		e->judged[i] = 1;
		n++;
	}
	return n;
}

/* ---- nccl ---- */

int rule_nccl_floor(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		struct cd_floor_ref x;
		struct cd_finding *f;
		char subj[64], size[32], ref[32], half[32];
		double bw;

		if (e->judged[i])
			continue;
		cd_allreduce_floor(e->r, e->c, p, &x);
		if (x.state != CD_FLOOR_JUDGED || (bw = x.s->busbw_gbyte_s) >= x.floor)
			continue;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "NCCL001", CD_SEV_FAIL, probe_host_name(e->r, p), subj,
			"all_reduce bus bandwidth is below the profile's floor", bw, x.floor, "gbyte_s", x.key);
		cd_fmt_bytes(size, sizeof(size), x.s->bytes);
		cd_fmt_bytes(ref, sizeof(ref), (int64_t)x.ref_bytes);
		if (x.floor < x.quoted)
			cd_finding_evidence(f, "nccl.all_reduce busbw %.1f GB/s at %s, floor %.1f GB/s there: %.1f GB/s "
					    "at %s scaled by Hockney's r(S) = r_max S / (n_half + S), n_half %s "
					    "(nccl.floor_half_bytes)", bw, size, x.floor, x.quoted, ref,
					    cd_fmt_bytes(half, sizeof(half), (int64_t)x.half_bytes));
		else
			cd_finding_evidence(f, "nccl.all_reduce busbw %.1f GB/s at %s, floor %.1f GB/s", bw, size, x.floor);
		if (x.hosts > 1)
			cd_finding_evidence(f, "across %zu hosts: the floor for rings through the NICs", x.hosts);
		n++;
	}
	return n;
}

int rule_nccl_latency(struct cd_eval *e, const struct cd_host *unused)
{
	int64_t *ranks = cd_hosts_ranks(e->r);
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		struct cd_lat_ref x;
		struct cd_finding *f;
		char subj[64], scope[96];
		double us = cd_probe_lat_us(p);

		/* an oversubscribed host's times are its scheduler's: rules.not_evaluated says so */
		if (!cd_probe_is_collective(p) || e->judged[i] || cd_latency_ref(e->r, e->c, ranks, p, &x) < 0 ||
		    x.busy || x.contended || !(x.warn_us > 0) || us <= x.warn_us)
			continue;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "NCCL002", CD_SEV_WARN, probe_host_name(e->r, p), subj,
			"collective latency at small sizes is high", us, x.warn_us, "us", x.warn);
		cd_finding_evidence(f, "%s: %.1f us at %" PRId64 " bytes (the fastest size up to 8 KiB)", p->name, us,
				    x.bytes);
		cd_finding_evidence(f, "scope: %s; warn level %.0f us%s", cd_lat_ref_str(&x, scope, sizeof(scope)),
				    x.warn_us, x.hops > 1 ? " (times log2 of the hosts: the depth of NCCL's tree)" : "");
		n++;
	}
	free(ranks);
	return n;
}

/*
 * NCCL003. Under MPI every rank times its own collectives, from its own start to its own
 * completion. A rank that reaches each collective late makes the others wait inside
 * theirs, so its times are the shortest and every other rank's are longer by its delay;
 * a slow link or GPU instead slows all ranks alike (check --pairs and BAL find those).
 * One comparison per collective, variant and size that two or more ranks timed; a rank
 * is named when it alone finished first, by the threshold, in over half of them.
 */
struct late_cmp {
	const struct cd_probe_run *p;
	int64_t bytes;
	double us;
};

static int late_cmp_order(const void *a, const void *b)
{
	const struct late_cmp *x = a, *y = b;
	int c = strcmp(x->p->name, y->p->name);

	if (!c)
		c = strcmp(x->p->variant ? x->p->variant : "", y->p->variant ? y->p->variant : "");
	if (!c)
		c = (x->bytes > y->bytes) - (x->bytes < y->bytes);
	if (!c)
		c = (x->us > y->us) - (x->us < y->us);
	return c;
}

static int same_op(const struct late_cmp *x, const struct late_cmp *y)
{
	return !strcmp(x->p->name, y->p->name) && x->bytes == y->bytes &&
	       !strcmp(x->p->variant ? x->p->variant : "", y->p->variant ? y->p->variant : "");
}

struct late_tally {
	int64_t rank;
	size_t first;                   /* comparisons it finished first in, by the threshold */
	double *share, *wait;           /* of each */
	const struct late_cmp *worst[2]; /* its largest wait: it, and the next fastest rank */
};

static struct late_tally *tally_of(struct late_tally **t, size_t *n, int64_t rank, size_t cap)
{
	for (size_t i = 0; i < *n; i++)
		if ((*t)[i].rank == rank)
			return &(*t)[i];
	(*t)[*n].rank = rank;
	(*t)[*n].share = xcalloc(cap, sizeof(double));
	(*t)[*n].wait = xcalloc(cap, sizeof(double));
	return &(*t)[(*n)++];
}

int rule_nccl_straggler(struct cd_eval *e, const struct cd_host *unused)
{
	double min_us = key(e, CD_K_NCCL_LATE_MIN_US), warn = pct(e, CD_K_NCCL_LATE_WARN_PCT),
	       fail = pct(e, CD_K_NCCL_LATE_FAIL_PCT);
	struct late_cmp *v;
	struct late_tally *t;
	size_t nv = 0, nt = 0, ncmp = 0, cap = 0;
	int n = 0;

	(void)unused;
	if (!(min_us > 0))
		return 0;
	for (size_t i = 0; i < e->r->n_probes; i++)
		if (cd_probe_is_collective(&e->r->probes[i]) && e->r->probes[i].rank != CD_NULL_I64)
			cap += e->r->probes[i].n_samples;
	v = xcalloc(cap + 1, sizeof(*v));
	t = xcalloc(cap + 1, sizeof(*t));
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];

		if (!cd_probe_is_collective(p) || p->rank == CD_NULL_I64)
			continue;
		for (size_t k = 0; k < p->n_samples; k++)
			if (isfinite(p->samples[k].time_us) && p->samples[k].time_us >= 0)
				v[nv++] = (struct late_cmp){ p, p->samples[k].bytes, p->samples[k].time_us };
	}
	qsort(v, nv, sizeof(*v), late_cmp_order);
	for (size_t a = 0, b; a < nv; a = b) {
		double wait;

		for (b = a + 1; b < nv && same_op(&v[a], &v[b]); b++)
			;
		if (b - a < 2)
			continue; /* one rank timed it: nothing to compare with */
		ncmp++;
		wait = v[a + 1].us - v[a].us;
		if (v[a].p->rank != v[a + 1].p->rank && wait >= min_us && wait >= warn * v[a + 1].us) {
			struct late_tally *x = tally_of(&t, &nt, v[a].p->rank, cap);

			x->share[x->first] = wait / v[a + 1].us;
			x->wait[x->first++] = wait;
			if (!x->worst[0] || wait > x->worst[1]->us - x->worst[0]->us)
				x->worst[0] = &v[a], x->worst[1] = &v[a + 1];
		}
	}
	for (size_t i = 0; i < nt; i++) {
		struct late_tally *x = &t[i];
		const struct late_cmp *lo = x->worst[0], *hi = x->worst[1];
		char subj[32], size[32];
		struct cd_finding *f;
		double share, wait;
		size_t first = x->first;

		if (2 * first <= ncmp)
			continue;
		share = cd_median(x->share, first);
		wait = cd_median(x->wait, first);
		snprintf(subj, sizeof(subj), "rank %" PRId64, x->rank);
		f = add(e, "NCCL003", share >= fail ? CD_SEV_FAIL : CD_SEV_WARN, probe_host_name(e->r, lo->p), subj,
			"the other ranks wait for this rank in every collective", wait, min_us, "us",
			CD_K_NCCL_LATE_MIN_US);
		cd_finding_evidence(f, "rank %" PRId64 " finished first in %zu of %zu comparisons (the same collective, "
				    "variant and size on every rank): the others were still waiting for it, a median "
				    "%.0f us (%.0f %% of their time) per operation", x->rank, first, ncmp, wait,
				    100.0 * share);
		cd_finding_evidence(f, "largest wait: %s %s at %s: rank %" PRId64 " took %.1f us, the next fastest rank "
				    "(%" PRId64 ") %.1f us", lo->p->name, lo->p->variant ? lo->p->variant : "",
				    cd_fmt_bytes(size, sizeof(size), lo->bytes), x->rank, lo->us, hi->p->rank, hi->us);
		cd_finding_evidence(f, "a rank that reaches each collective late (a busy CPU, another process on its GPU, "
				       "a slow data loader in training) is what NCCL and PyTorch timeouts report on the "
				       "other ranks");
		/* the others' long times are this wait: NCCL002 and BAL would only repeat it */
		for (size_t k = 0; k < e->r->n_probes; k++)
			if (cd_probe_is_collective(&e->r->probes[k]) && e->r->probes[k].rank != CD_NULL_I64 &&
			    e->r->probes[k].rank != x->rank)
				e->judged[k] = 1;
		n++;
	}
	for (size_t i = 0; i < nt; i++) {
		free(t[i].share);
		free(t[i].wait);
	}
	free(t);
	free(v);
	return n;
}

/* ---- balance: robust outliers (median/MAD) among GPUs of a host and among hosts ---- */

struct member {
	double v;
	size_t probe;            /* index of a probe with this value */
	const char *host;
};

/* The median and MAD of vals, once per comparison: not once per member (n² log n over a fleet's hosts). */
struct spread {
	double med, mad;
};

static struct spread spread_of(const double *vals, size_t n)
{
	double *tmp = xcalloc(n + 1, sizeof(*tmp));
	struct spread s;

	memcpy(tmp, vals, n * sizeof(*tmp));
	s.med = cd_median(tmp, n);
	s.mad = cd_mad(tmp, n, s.med);
	free(tmp);
	return s;
}

/* Is x a low outlier among the values of s? Fills the median. */
static int low_outlier(const struct cd_eval *e, const struct spread *s, double x, double *median)
{
	double med = s->med, mad = s->mad;

	*median = med;
	if (!(med > 0) || (med - x) / med < pct(e, CD_K_BAL_MIN_DEV))
		return 0;
	/* 1.4826 MAD estimates the standard deviation of normal data (Iglewicz & Hoaglin) */
	return mad == 0 || (med - x) / (1.4826 * mad) > key(e, CD_K_BAL_MAD_K);
}

int rule_gpu_outlier(struct cd_eval *e, const struct cd_host *h)
{
	size_t np = e->r->n_probes, n_found = 0, hi = (size_t)(h - e->r->hosts);
	/* only this host's runs, in document order (e->groups): a fleet's other hosts are not read */
	const size_t *mine = e->groups.idx + e->groups.start[hi];
	size_t nm = e->groups.start[hi + 1] - e->groups.start[hi];
	double *vals = xcalloc(np + 1, sizeof(*vals));
	size_t *idx = xcalloc(np + 1, sizeof(*idx));
	struct cd_name_set seen = { 0 };
	struct spread sp;

	/* one comparison per probe name: the host's devices of that probe */
	for (size_t a = 0; a < nm; a++) {
		size_t i = mine[a];
		const struct cd_probe_run *p = &e->r->probes[i];
		size_t n = 0;

		if (p->device == CD_NULL_I64 || !cd_probe_is_bw(p))
			continue;
		if (!cd_name_set_add(&seen, p->name)) /* first of its name only */
			continue;
		for (size_t b = a; b < nm; b++) {
			size_t j = mine[b];
			const struct cd_probe_run *q = &e->r->probes[j];

			if (q->name && !strcmp(q->name, p->name) && q->device != CD_NULL_I64 && !isnan(cd_probe_bw(q))) {
				vals[n] = cd_probe_bw(q);
				idx[n++] = j;
			}
		}
		if ((double)n < key(e, CD_K_BAL_MIN_PEERS))
			continue;
		sp = spread_of(vals, n);
		for (size_t k = 0; k < n; k++) {
			const struct cd_probe_run *q = &e->r->probes[idx[k]];
			struct cd_finding *f;
			double med;
			char subj[64];

			if (e->judged[idx[k]] || !low_outlier(e, &sp, vals[k], &med))
				continue;
			probe_subject(q, subj, sizeof(subj));
			f = add(e, "BAL001", CD_SEV_WARN, h->hostname, subj, "GPU is slower than its peers", vals[k], med,
				"gbyte_s", CD_K_BAL_MAD_K);
			cd_finding_evidence(f, "%s %s: %.1f GB/s, %.0f %% below the median %.1f GB/s of %zu", q->name, subj,
					    vals[k], 100.0 * (med - vals[k]) / med, med, n);
			n_found++;
		}
	}
	cd_name_set_free(&seen);
	free(vals);
	free(idx);
	return (int)n_found;
}

int rule_host_outlier(struct cd_eval *e, const struct cd_host *unused)
{
	size_t nh = e->r->n_hosts, np = e->r->n_probes;
	double *hv = xcalloc(nh + 1, sizeof(*hv)), *tmp = xcalloc(np + 1, sizeof(*tmp));
	const struct cd_host **hosts = xcalloc(nh + 1, sizeof(*hosts));
	int found = 0;
	struct cd_name_set seen = { 0 };
	struct spread sp;

	(void)unused;
	for (size_t i = 0; i < np && nh >= 2; i++) {
		const char *name = e->r->probes[i].name;
		size_t n = 0;

		if (!name || !cd_probe_is_bw(&e->r->probes[i]))
			continue;
		if (!cd_name_set_add(&seen, name)) /* each probe name once, at its first run */
			continue;
		/* each host's value: the median of its runs of this probe (its own runs only: e->groups) */
		for (size_t h = 0; h < nh; h++) {
			size_t m = 0;

			for (size_t b = e->groups.start[h]; b < e->groups.start[h + 1]; b++) {
				const struct cd_probe_run *q = &e->r->probes[e->groups.idx[b]];

				if (q->name && !strcmp(q->name, name) && !isnan(cd_probe_bw(q)))
					tmp[m++] = cd_probe_bw(q);
			}
			if (m) {
				hv[n] = cd_median(tmp, m);
				hosts[n++] = &e->r->hosts[h];
			}
		}
		if ((double)n < key(e, CD_K_BAL_MIN_PEERS))
			continue;
		sp = spread_of(hv, n);
		for (size_t k = 0; k < n; k++) {
			struct cd_finding *f;
			double med;

			if (!low_outlier(e, &sp, hv[k], &med))
				continue;
			f = add(e, "BAL002", CD_SEV_WARN, hosts[k]->hostname, hosts[k]->hostname,
				"host is slower than the other hosts", hv[k], med, "gbyte_s", CD_K_BAL_MAD_K);
			cd_finding_evidence(f, "%s: median %.1f GB/s on %s, %.0f %% below the median %.1f GB/s of %zu hosts",
					    name, hv[k], hosts[k]->hostname, 100.0 * (med - hv[k]) / med, med, n);
			found++;
		}
	}
	cd_name_set_free(&seen);
	free(hv);
	free(tmp);
	free(hosts);
	return found;
}

/* ---- stability ---- */

static int probe_status(struct cd_eval *e, enum cd_status st)
{
	int n = 0;

	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		struct cd_finding *f;
		char subj[96], where[64];

		if (p->status != st)
			continue;
		probe_subject(p, where, sizeof(where));
		snprintf(subj, sizeof(subj), "%s %s", p->name, where);
		if (p->status == CD_ST_TIMEOUT)
			f = add(e, "STAB001", CD_SEV_FAIL, probe_host_name(e->r, p), subj, "probe timed out", NAN, NAN, NULL,
				CD_K_NONE);
		else
			f = add(e, "STAB002", CD_SEV_FAIL, probe_host_name(e->r, p), subj, "probe failed", NAN, NAN, NULL,
				CD_K_NONE);
		cd_finding_evidence(f, "%s %s%s%s%s%s", p->name, cd_status_str(p->status), p->phase ? " in " : "",
				    p->phase ? p->phase : "", p->reason ? ": " : "", p->reason ? p->reason : "");
		n++;
	}
	return n;
}

int rule_timeout(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return probe_status(e, CD_ST_TIMEOUT);
}

int rule_probe_error(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return probe_status(e, CD_ST_ERROR);
}

int rule_data_errors(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		int64_t wrong = cd_probe_errors(p);
		struct cd_finding *f;
		char subj[96], where[64];

		if (!wrong)
			continue;
		probe_subject(p, where, sizeof(where));
		snprintf(subj, sizeof(subj), "%s %s", p->name, where);
		f = add(e, "STAB003", CD_SEV_FAIL, probe_host_name(e->r, p), subj, "probe delivered wrong data",
			(double)wrong, 0, "elements", CD_K_NONE);
		for (size_t k = 0; k < p->n_samples; k++)
			if (p->samples[k].errors != CD_NULL_I64 && p->samples[k].errors > 0)
				cd_finding_evidence(f, "%" PRId64 " wrong elements at %" PRId64 " bytes", p->samples[k].errors,
						    p->samples[k].bytes);
		n++;
	}
	return n;
}

int rule_spread(struct cd_eval *e, const struct cd_host *unused)
{
	int64_t *ranks = cd_hosts_ranks(e->r);
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		/* the host's CPUs drive mpi.* and tcp.*: their iterations share cores with everything else */
		const enum cd_key k = cd_probe_is(p, "mpi.") || cd_probe_is(p, "tcp.") ? CD_K_STAB_HOST_SPREAD_WARN
											 : CD_K_STAB_SPREAD_WARN;
		double warn = pct(e, k);
		double s = cd_probe_spread(p, NULL);
		const struct cd_probe_sample *big;
		struct cd_finding *f;
		char subj[96], where[64], size[32];

		/* an oversubscribed host's, or a contended CPU's, spread is the scheduler's: rules.not_evaluated
		 * says so */
		big = cd_probe_largest(p);
		if (!(warn > 0) || isnan(s) || s <= warn || cd_probe_oversubscribed(e->r, ranks, p) ||
		    cd_sample_contended(big, key(e, CD_K_STAB_CPU_WAIT_MAX)))
			continue;
		/* a spread of a few microseconds is the jitter of a launch and of the timer */
		if (big->p75_time_us - big->p25_time_us < key(e, CD_K_STAB_JITTER))
			continue;
		probe_subject(p, where, sizeof(where));
		snprintf(subj, sizeof(subj), "%s %s", p->name, where);
		f = add(e, "STAB004", CD_SEV_WARN, probe_host_name(e->r, p), subj,
			"iteration times spread widely around their median", 100.0 * s, 100.0 * warn, "pct", k);
		cd_finding_evidence(f, "%s at %s: the middle half of %" PRId64 " iterations took %.1f to %.1f us around a "
				    "median of %.1f us: an interquartile range of %.0f %% of the median",
				    p->name, cd_fmt_bytes(size, sizeof(size), big->bytes), big->iters, big->p25_time_us,
				    big->p75_time_us, big->time_us, 100.0 * s);
		if (isfinite(big->cpu_wait_pct))
			cd_finding_evidence(f, "the timing thread waited for a CPU %.1f %% of that time (judged up to "
					    "stability.cpu_wait_max_pct, %.0f %%)", big->cpu_wait_pct,
					    key(e, CD_K_STAB_CPU_WAIT_MAX));
		if (big->outliers != CD_NULL_I64 && big->outliers > 0)
			cd_finding_evidence(f, "besides, %" PRId64 " iteration%s beyond Tukey's far-out fences (up to %.1f "
					    "us): outliers, counted apart (STAB005), not part of the spread",
					    big->outliers, big->outliers == 1 ? "" : "s", big->max_time_us);
		n++;
	}
	free(ranks);
	return n;
}

/*
 * STAB005. Iterations far outside the others (beyond Q1 - 3 IQR or Q3 + 3 IQR, and
 * stability.jitter_us or more above the median) are a preemption, a page fault, a
 * retransmission: worth knowing, not a verdict. One info finding per host names how
 * many there were and the runs with the most.
 */
int rule_outliers(struct cd_eval *e, const struct cd_host *h)
{
	const double jitter = key(e, CD_K_STAB_JITTER);
	size_t runs = 0, top[3] = { 0 }, n_top = 0;
	int64_t total = 0, iters = 0;
	struct cd_finding *f;

	/* this host's runs only, in document order (e->groups) */
	for (size_t b = e->groups.start[h - e->r->hosts]; b < e->groups.start[h - e->r->hosts + 1]; b++) {
		size_t i = e->groups.idx[b];
		const struct cd_probe_run *p = &e->r->probes[i];
		int64_t k = cd_probe_outliers(p, jitter);

		if (p->status != CD_ST_OK)
			continue;
		for (size_t j = 0; j < p->n_samples; j++)
			if (p->samples[j].outliers != CD_NULL_I64 && p->samples[j].iters != CD_NULL_I64)
				iters += p->samples[j].iters;
		if (!k)
			continue;
		total += k;
		runs++;
		/* the three runs with the most, most first */
		if (n_top < ARRAY_SIZE(top))
			top[n_top++] = i;
		else if (k > cd_probe_outliers(&e->r->probes[top[n_top - 1]], jitter))
			top[n_top - 1] = i;
		for (size_t j = n_top - 1; j > 0 && cd_probe_outliers(&e->r->probes[top[j]], jitter) >
							cd_probe_outliers(&e->r->probes[top[j - 1]], jitter); j--) {
			size_t t = top[j];

			top[j] = top[j - 1];
			top[j - 1] = t;
		}
	}
	if (!total)
		return 0;
	f = add(e, "STAB005", CD_SEV_INFO, h->hostname, h->hostname ? h->hostname : "host",
		"some iterations took far longer than the others (outliers)", (double)total, 0, "iterations", CD_K_NONE);
	cd_finding_evidence(f, "%" PRId64 " of %" PRId64 " timed iterations in %zu probe run%s lie beyond Tukey's far-out "
			    "fences (3 interquartile ranges outside the middle half), at sizes whose slowest took "
			    "stability.jitter_us (%.0f us) or more above the median: a preemption, a page fault or a "
			    "retransmission each; the medians the rules judge barely move for them, and the interquartile "
			    "spread (STAB004) not at all",
			    total, iters, runs, runs == 1 ? "" : "s", jitter);
	for (size_t j = 0; j < n_top; j++) {
		const struct cd_probe_run *p = &e->r->probes[top[j]];
		const struct cd_probe_sample *w = NULL;
		int64_t n = cd_probe_outliers(p, jitter);
		char where[64], size[32];

		for (size_t k = 0; k < p->n_samples; k++)
			if (cd_sample_outliers(&p->samples[k], jitter) > 0 &&
			    (!w || p->samples[k].max_time_us / p->samples[k].time_us > w->max_time_us / w->time_us))
				w = &p->samples[k];
		probe_subject(p, where, sizeof(where));
		cd_finding_evidence(f, "%s %s: %" PRId64 " outlier%s; at %s the slowest took %.1f us against a median of "
				    "%.1f us", p->name, where, n, n == 1 ? "" : "s",
				    cd_fmt_bytes(size, sizeof(size), w->bytes), w->max_time_us, w->time_us);
	}
	return 1;
}

/*
 * What STAB004 and NCCL002 could not judge, for rules.not_evaluated: runs on an
 * oversubscribed host (their times are the CPU scheduler's) and runs without
 * per-iteration percentiles (documents written before them, imports). Never min and
 * max in their place.
 */
void note_timings(struct cd_results *r, const struct cd_conf *c)
{
	int64_t *ranks = cd_hosts_ranks(r);
	size_t unknown = 0, first_unknown = 0, lat = 0, waited = 0, lat_waited = 0, worst = 0;
	const struct cd_host *busy = NULL;
	double max_wait = cd_conf_get(c, CD_K_STAB_CPU_WAIT_MAX), top = 0;
	struct cd_lat_ref x;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_sample *big = cd_probe_largest(&r->probes[i]);

		if (cd_probe_is_collective(&r->probes[i]) && !cd_latency_ref(r, c, ranks, &r->probes[i], &x) &&
		    x.warn_us > 0) {
			if (x.busy) {
				lat++;
				busy = x.busy;
			} else if (x.contended) {
				lat_waited++;
			}
		}
		if (!isnan(cd_probe_spread(&r->probes[i], NULL)) && !cd_probe_oversubscribed(r, ranks, &r->probes[i]) &&
		    cd_sample_contended(big, max_wait)) {
			if (!waited++ || big->cpu_wait_pct > top)
				worst = i, top = big->cpu_wait_pct;
		}
	}
	if (waited) {
		char *why = xasprintf("%zu probe run%s waited for a CPU more than %.0f %% of the timed time at the largest "
				      "size (up to %.0f %%, %s): the host's CPUs were contended, their spread is not judged",
				      waited, waited == 1 ? "" : "s", max_wait, top, r->probes[worst].name);

		cd_rules_run_add_not_evaluated(&r->rules, "stability (STAB004)", why);
		free(why);
	}
	if (lat_waited) {
		char *why = xasprintf("%zu collective run%s waited for a CPU more than %.0f %% of the timed time at the size "
				      "judged: the host's CPUs were contended, their latency is not judged", lat_waited,
				      lat_waited == 1 ? "" : "s", max_wait);

		cd_rules_run_add_not_evaluated(&r->rules, "nccl (NCCL002)", why);
		free(why);
	}
	if (lat) {
		char *why = xasprintf("%zu collective run%s on an oversubscribed host (%s: %" PRId64 " ranks on %" PRId64
				      " CPUs): their small-size times measure the scheduler, their latency is not judged",
				      lat, lat == 1 ? "" : "s", busy->hostname ? busy->hostname : "?",
				      ranks[busy - r->hosts], busy->system.cpus_online);

		cd_rules_run_add_not_evaluated(&r->rules, "nccl (NCCL002)", why);
		free(why);
	}

	for (size_t h = 0; h < r->n_hosts; h++) {
		size_t runs = 0;
		char *why;

		if (!cd_host_oversubscribed(r, ranks, h))
			continue;
		for (size_t i = 0; i < r->n_probes; i++)
			runs += !isnan(cd_probe_spread(&r->probes[i], NULL)) &&
				cd_probe_oversubscribed(r, ranks, &r->probes[i]) == &r->hosts[h];
		if (!runs)
			continue;
		why = xasprintf("%s runs %" PRId64 " ranks on %" PRId64 " CPUs (oversubscribed): each rank waits for a CPU, "
				"so the iteration times of its %zu probe run%s measure the scheduler and their spread "
				"is not judged", r->hosts[h].hostname ? r->hosts[h].hostname : "a host", ranks[h],
				r->hosts[h].system.cpus_online, runs, runs == 1 ? "" : "s");
		cd_rules_run_add_not_evaluated(&r->rules, "stability (STAB004)", why);
		free(why);
	}
	for (size_t i = 0; i < r->n_probes; i++) {
		const char *w;

		if (isnan(cd_probe_spread(&r->probes[i], &w)) && w && !strcmp(w, "unknown") && !unknown++)
			first_unknown = i;
	}
	if (unknown) {
		char *why = xasprintf("%zu probe run%s (first %s) have no per-iteration percentiles: the document was "
				      "written before commdiag recorded them, or imported from a tool that prints one "
				      "time per size; their spread is not judged", unknown, unknown == 1 ? "" : "s",
				      r->probes[first_unknown].name);

		cd_rules_run_add_not_evaluated(&r->rules, "stability (STAB004)", why);
		free(why);
	}
	free(ranks);
}

/*
 * Order matters: COPY and P2P mark what they judged before BAL looks for outliers, and
 * NCCL003 marks the runs that waited for a straggler before NCCL002 and BAL see them.
 */
