/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The score card. Bandwidth and balance take the minimum over their items because a
 * synchronous job runs at its slowest member's pace; latency and stability take the
 * mean because they add up over the steps of a job. Each dimension's `basis` names
 * what decided it, so a low number is never a mystery.
 */
#include "score.h"

#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libdefaults.h"
#include "measure.h"
#include "scope.h"

const double cd_score_weights[CD_DIM_COUNT] = { 0.30, 0.25, 0.25, 0.20 };

const char *cd_score_grade(int64_t total)
{
	return total >= 85 ? "excellent" : total >= 70 ? "good" : "needs work";
}

/* A dimension being built: the items seen and the one that decided a minimum. */
struct acc {
	int use_min;
	size_t n;
	double sum, min;
	char *why;   /* the deciding item (minimum) or the worst one (mean) */
	char *left;  /* what was seen but could not be graded, for the basis; NULL when nothing */
};

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

static void item(struct acc *a, double v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void item(struct acc *a, double v, const char *fmt, ...)
{
	va_list ap;

	if (isnan(v))
		return;
	v = clamp01(v);
	a->sum += v;
	if (!a->n++ || v < a->min) {
		a->min = v;
		free(a->why);
		va_start(ap, fmt);
		a->why = xvasprintf(fmt, ap);
		va_end(ap);
	}
}

static void probe_label(const struct cd_probe_run *p, char *buf, size_t len)
{
	if (p->device != CD_NULL_I64 && p->peer != CD_NULL_I64)
		snprintf(buf, len, "%s gpu%" PRId64 "-gpu%" PRId64, p->name, p->device, p->peer);
	else if (p->device != CD_NULL_I64)
		snprintf(buf, len, "%s gpu%" PRId64, p->name, p->device);
	else if (p->nranks != CD_NULL_I64)
		snprintf(buf, len, "%s %" PRId64 " ranks", p->name, p->nranks);
	else
		snprintf(buf, len, "%s", p->name);
}

/* ---- bandwidth: measurements against their reference, and link states against their maximum ---- */

static void bw_probes(struct acc *a, const struct cd_results *r, const struct cd_conf *c)
{
	double full = cd_conf_get(c, CD_K_SCORE_BW_FULL) / 100.0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		double bw = cd_probe_bw(p), ref = cd_probe_link_gbyte_s(r, p), floor_ = NAN;
		char label[96];

		if (isnan(bw) || !p->name)
			continue;
		probe_label(p, label, sizeof(label));
		if (!strcmp(p->name, "copy.h2d") || !strcmp(p->name, "copy.d2h")) {
			floor_ = cd_conf_get(c, !strcmp(p->name, "copy.h2d") ? CD_K_COPY_H2D_MIN : CD_K_COPY_D2H_MIN);
		} else if (!strcmp(p->name, "p2p.bw")) {
			floor_ = cd_conf_get(c, CD_K_P2P_MIN);
		} else if (!strcmp(p->name, "nccl.all_reduce")) {
			struct cd_floor_ref x;

			/* NCCL001's floor, scaled to the largest size measured (scope.c) */
			cd_allreduce_floor(r, c, p, &x);
			if (x.state == CD_FLOOR_JUDGED)
				floor_ = x.floor;
		}
		if (ref > 0 && full > 0)
			item(a, bw / (ref * full), "%s %.1f GB/s = %.0f %% of its %.2f GB/s link", label, bw,
			     100.0 * bw / ref, ref);
		else if (floor_ > 0)
			item(a, bw / floor_, "%s %.1f GB/s against a floor of %.1f GB/s", label, bw, floor_);
	}
}

static void bw_links(struct acc *a, const struct cd_host *h)
{
	int64_t best = 0;

	for (size_t i = 0; i < h->n_gpus; i++) {
		const struct cd_gpu *g = &h->gpus[i];
		size_t up = 0;

		/* lanes only: GPUs drop the generation when idle, which is not lost capacity */
		if (g->pcie_width != CD_NULL_I64 && g->pcie_max_width != CD_NULL_I64 && g->pcie_max_width > 0)
			item(a, (double)g->pcie_width / (double)g->pcie_max_width,
			     "%s gpu%" PRId64 " PCIe x%" PRId64 " of x%" PRId64, h->hostname, g->index, g->pcie_width,
			     g->pcie_max_width);
		for (size_t l = 0; l < g->n_nvlinks; l++)
			up += g->nvlinks[l].up == CD_TRI_TRUE;
		if (g->n_nvlinks)
			item(a, (double)up / (double)g->n_nvlinks, "%s gpu%" PRId64 " %zu of %zu NVLinks up", h->hostname,
			     g->index, up, g->n_nvlinks);
	}
	for (size_t i = 0; i < h->n_pci; i++) {
		const struct cd_pci_device *d = &h->pci[i];
		double cur = cd_pcie_gbyte_s(d->gen, d->width), max = cd_pcie_gbyte_s(d->max_gen, d->max_width);

		if ((d->kind == CD_PCI_NIC || d->kind == CD_PCI_HCA) && cur > 0 && max > 0)
			item(a, cur / max, "%s %s PCIe %.2f of %.2f GB/s", h->hostname,
			     d->os_devices.n ? d->os_devices.v[0] : d->bus_id, cur, max);
	}
	/*
	 * A rail's reference is the fastest rail of its host: what the cabling can do. Only the
	 * GPU rails count (cd_rdma_rail_port): a 40 Gb/s front-end VF beside 400 Gb/s rails, or a
	 * port the site's NCCL_IB_HCA leaves out, is slower by design. A port that is down counts
	 * unless NCCL_IB_HCA leaves it out: nothing else says whose it was.
	 */
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];

			if (cd_rdma_rail_port(h, h->hcas[i].name, p) && !isnan(p->rate_gbit_s) && p->rate_gbit_s > (double)best)
				best = (int64_t)p->rate_gbit_s;
		}
	for (size_t i = 0; i < h->n_hcas; i++) {
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];

			if (!p->state || strcmp(p->state, "active")) {
				if (!cd_nccl_ib_hca_match(cd_host_env(h, "NCCL_IB_HCA"), h->hcas[i].name, p->port))
					continue;
				item(a, 0, "%s %s/%" PRId64 " port %s", h->hostname, h->hcas[i].name, p->port,
				     p->state ? p->state : "state unknown");
				continue;
			}
			if (cd_rdma_rail_port(h, h->hcas[i].name, p) && !isnan(p->rate_gbit_s) && best > 0)
				item(a, p->rate_gbit_s / (double)best, "%s %s/%" PRId64 " at %.0f of %" PRId64 " Gb/s",
				     h->hostname, h->hcas[i].name, p->port, p->rate_gbit_s, best);
		}
	}
}

/* ---- latency: target of the run's scope / the time at small sizes ---- */

static void latency(struct acc *a, const struct cd_results *r, const struct cd_conf *c)
{
	int64_t *ranks = cd_hosts_ranks(r);
	size_t busy = 0, waited = 0;
	const struct cd_host *busy_host = NULL;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		double us = cd_probe_lat_us(p);
		struct cd_lat_ref x;
		char label[96], scope[96];

		if (cd_latency_ref(r, c, ranks, p, &x) < 0 || !(us > 0) || !(x.target_us > 0))
			continue;
		if (x.busy) { /* the scheduler's time, not the fabric's */
			busy++;
			busy_host = x.busy;
			continue;
		}
		if (x.contended) {
			waited++;
			continue;
		}
		probe_label(p, label, sizeof(label));
		item(a, x.target_us / us, "%s %.1f us against the %.1f us target of %s", label, us, x.target_us,
		     cd_lat_ref_str(&x, scope, sizeof(scope)));
	}
	if (busy)
		a->left = xasprintf("%zu run%s on oversubscribed %s (%" PRId64 " ranks on %" PRId64 " CPUs: times measure "
				    "the scheduler) %s not graded", busy, busy == 1 ? "" : "s",
				    busy_host->hostname ? busy_host->hostname : "hosts", ranks[busy_host - r->hosts],
				    busy_host->system.cpus_online, busy == 1 ? "is" : "are");
	if (waited) {
		char *more = xasprintf("%s%s%zu run%s whose timing thread waited for a CPU over %.0f %% of the time %s not "
				       "graded", a->left ? a->left : "", a->left ? "; " : "", waited, waited == 1 ? "" : "s",
				       cd_conf_get(c, CD_K_STAB_CPU_WAIT_MAX), waited == 1 ? "is" : "are");

		free(a->left);
		a->left = more;
	}
	free(ranks);
}

/* ---- balance: slowest / median of each comparison ---- */

static void balance_one(struct acc *a, double *v, size_t n, const char *what)
{
	double lo = INFINITY, med;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		lo = fmin(lo, v[i]);
	med = cd_median(v, n);
	if (med > 0)
		item(a, lo / med, "%s: slowest %.1f GB/s = %.0f %% of the median %.1f GB/s of %zu", what, lo,
		     100.0 * lo / med, med, n);
}

/* Two runs of one probe measured alike: the same rank count and the same largest size. */
static int alike(const struct cd_probe_run *p, const struct cd_probe_run *q)
{
	const struct cd_probe_sample *x = cd_probe_largest(p), *y = cd_probe_largest(q);

	return p->nranks == q->nranks && x && y && x->bytes == y->bytes;
}

struct first_run {
	const char *name;
	size_t i;
};

static int cmp_first_run(const void *x, const void *y)
{
	const struct first_run *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/*
 * Each probe name's first finished bandwidth run, in document order, then each host's own
 * runs: was every run against every earlier one, and every host against every run
 * (hours at 4096 hosts). Earlier runs of the name have no bandwidth, so "its runs from i
 * on" is all its finished runs.
 */
static void balance(struct acc *a, const struct cd_results *r)
{
	size_t np = r->n_probes, nh_all = r->n_hosts, nf = 0;
	double *v = xcalloc(np + r->n_hosts + 1, sizeof(*v)), *tmp = xcalloc(np + 1, sizeof(*tmp));
	struct first_run *first = xcalloc(np + 1, sizeof(*first));
	size_t **runs = xcalloc(nh_all + 1, sizeof(*runs)), *n_runs = xcalloc(nh_all + 1, sizeof(*n_runs));
	unsigned char *is_first = xcalloc(np + 1, 1);

	for (size_t i = 0; i < np; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		const struct cd_host *h = cd_probe_host(r, p);

		if (h)
			n_runs[h - r->hosts]++;
		if (p->name && cd_probe_is_bw(p) && !isnan(cd_probe_bw(p)))
			first[nf++] = (struct first_run){ p->name, i };
	}
	qsort(first, nf, sizeof(*first), cmp_first_run);
	for (size_t k = 0; k < nf; k++)
		is_first[first[k].i] = !k || strcmp(first[k - 1].name, first[k].name);
	for (size_t k = 0; k < nh_all; k++) {
		runs[k] = xcalloc(n_runs[k] + 1, sizeof(**runs));
		n_runs[k] = 0;
	}
	for (size_t i = 0; i < np; i++) {
		const struct cd_host *h = cd_probe_host(r, &r->probes[i]);

		if (h)
			runs[h - r->hosts][n_runs[h - r->hosts]++] = i;
	}
	for (size_t i = 0; i < np; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		size_t n = 0, nh = 0;
		char what[160];

		if (!is_first[i])
			continue;
		/* among the devices of each host */
		for (size_t k = 0; k < nh_all; k++) {
			const struct cd_host *h = &r->hosts[k];

			n = 0;
			for (size_t jj = 0; jj < n_runs[k]; jj++) {
				const struct cd_probe_run *q = &r->probes[runs[k][jj]];

				if (runs[k][jj] >= i && q->name && !strcmp(q->name, p->name) && q->device != CD_NULL_I64 &&
				    !isnan(cd_probe_bw(q)))
					v[n++] = cd_probe_bw(q);
			}
			snprintf(what, sizeof(what), "%s on %s", p->name, h->hostname ? h->hostname : "?");
			balance_one(a, v, n, what);
		}
		/*
		 * among hosts: each host's median, of runs measured alike (the same ranks and the same
		 * largest size): two imported nccl-tests files are two jobs, an 8-GPU run cut after its
		 * first row is not a 16-rank run to 8 GiB
		 */
		for (size_t k = 0; k < nh_all; k++) {
			size_t m = 0;

			for (size_t jj = 0; jj < n_runs[k]; jj++) {
				const struct cd_probe_run *q = &r->probes[runs[k][jj]];

				if (runs[k][jj] >= i && q->name && !strcmp(q->name, p->name) && !isnan(cd_probe_bw(q)) &&
				    alike(p, q))
					tmp[m++] = cd_probe_bw(q);
			}
			if (m)
				v[nh++] = cd_median(tmp, m);
		}
		snprintf(what, sizeof(what), "%s across hosts", p->name);
		balance_one(a, v, nh, what);
	}
	for (size_t k = 0; k < nh_all; k++)
		free(runs[k]);
	free(runs);
	free(n_runs);
	free(first);
	free(is_first);
	free(v);
	free(tmp);
}

/* ---- stability: per probe run ---- */

/*
 * A finished probe scores 1 - spread / score.spread_zero_pct, the spread being the
 * interquartile range over the median at its largest size (cd_probe_spread); a timeout,
 * an error or wrong data 0; a run of fewer than 5 timed iterations (nccl.init) 1, as it
 * has nothing to spread. A finished run whose spread is not known (no percentiles: an
 * older document, an import) is not graded, never from min and max, and the basis counts
 * it. One whose spread is not the fabric's (an oversubscribed host, or a timing thread that
 * waited for a CPU: its times are the scheduler's) is graded on finishing alone, 1, as a
 * run too short to spread is: that it finished without error is its own, and grading it
 * keeps an oversubscribed job's score a number that holds still rather than none.
 */
static void stability(struct acc *a, const struct cd_results *r, const struct cd_conf *c)
{
	double zero = cd_conf_get(c, CD_K_SCORE_SPREAD_ZERO) / 100.0, max_wait = cd_conf_get(c, CD_K_STAB_CPU_WAIT_MAX);
	int64_t *ranks = cd_hosts_ranks(r);
	size_t unknown = 0, busy = 0, waited = 0;
	const struct cd_host *busy_host = NULL;
	char *note = NULL;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		const char *why;
		double s = cd_probe_spread(p, &why);
		const struct cd_host *h;
		char label[96];

		if (p->status == CD_ST_SKIPPED)
			continue;
		probe_label(p, label, sizeof(label));
		if (p->status != CD_ST_OK) {
			item(a, 0, "%s %s", label, cd_status_str(p->status));
		} else if (cd_probe_errors(p)) {
			item(a, 0, "%s delivered %" PRId64 " wrong elements", label, cd_probe_errors(p));
		} else if (!isnan(s) && (h = cd_probe_oversubscribed(r, ranks, p))) {
			/* it finished without error, which is the part of stability that is the run's own */
			busy++;
			busy_host = h;
			item(a, 1, "%s finished", label);
		} else if (!isnan(s) && cd_sample_contended(cd_probe_largest(p), max_wait)) {
			waited++;
			item(a, 1, "%s finished", label);
		} else if (!isnan(s) && zero > 0) {
			item(a, 1 - s / zero, "%s spread %.1f %% (interquartile range / median)", label, 100.0 * s);
		} else if (why && !strcmp(why, "unknown")) {
			unknown++;
		} else {
			item(a, 1, "%s finished", label);
		}
	}
	if (busy)
		note = xasprintf("%zu run%s on oversubscribed %s (%" PRId64 " ranks on %" PRId64 " CPUs: times measure the "
				 "scheduler) %s graded on finishing only, not on spread", busy, busy == 1 ? "" : "s",
				 busy_host->hostname ? busy_host->hostname : "hosts", ranks[busy_host - r->hosts],
				 busy_host->system.cpus_online, busy == 1 ? "is" : "are");
	if (waited) {
		char *more = xasprintf("%s%s%zu run%s whose timing thread waited for a CPU over %.0f %% of the time %s "
				       "graded on finishing only, not on spread", note ? note : "", note ? "; " : "", waited,
				       waited == 1 ? "" : "s", max_wait,
				       waited == 1 ? "is" : "are");

		free(note);
		note = more;
	}
	if (unknown) {
		char *more = xasprintf("%s%s%zu run%s without per-iteration percentiles (older document or import) %s not "
				       "graded", note ? note : "", note ? "; " : "", unknown, unknown == 1 ? "" : "s",
				       unknown == 1 ? "is" : "are");

		free(note);
		note = more;
	}
	a->left = note;
	free(ranks);
}

static const char *const no_data[CD_DIM_COUNT] = {
	"no bandwidth measurement with a reference and no link state",
	"no latency measurement with a target (nccl.*, p2p.latency, mpi.latency at 8 KiB or less)",
	"no two comparable bandwidth results (GPUs of one probe, or hosts)",
	"no probe ran",
};

static void settle(struct cd_score *s, enum cd_dim d, struct acc *a)
{
	double v;

	if (!a->n) {
		s->basis[d] = xstrdup(a->left ? a->left : no_data[d]);
		free(a->why);
		free(a->left);
		return;
	}
	v = a->use_min ? a->min : a->sum / (double)a->n;
	s->dim[d] = (int64_t)lround(100.0 * v);
	if (a->use_min)
		s->basis[d] = xasprintf("lowest of %zu: %s%s%s", a->n, a->why, a->left ? "; " : "", a->left ? a->left : "");
	else
		s->basis[d] = xasprintf("mean of %zu; worst %s%s%s", a->n, a->why, a->left ? "; " : "",
					a->left ? a->left : "");
	free(a->why);
	free(a->left);
}

void cd_score_compute(struct cd_results *r, const struct cd_conf *c)
{
	struct acc a[CD_DIM_COUNT] = { [CD_DIM_BANDWIDTH] = { .use_min = 1 }, [CD_DIM_BALANCE] = { .use_min = 1 } };
	struct cd_score *s = &r->score;
	double wsum = 0, total = 0;

	cd_score_free(s);
	s->present = 1;
	bw_probes(&a[CD_DIM_BANDWIDTH], r, c);
	for (size_t h = 0; h < r->n_hosts; h++)
		bw_links(&a[CD_DIM_BANDWIDTH], &r->hosts[h]);
	latency(&a[CD_DIM_LATENCY], r, c);
	balance(&a[CD_DIM_BALANCE], r);
	stability(&a[CD_DIM_STABILITY], r, c);
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		settle(s, d, &a[d]);
		if (s->dim[d] != CD_NULL_I64)
			wsum += cd_score_weights[d];
	}
	s->renormalised = wsum > 0 && wsum < 0.999 ? CD_TRI_TRUE : CD_TRI_FALSE;
	if (!(wsum > 0))
		return;
	/* the total comes from the rounded dimensions, so anyone can recompute it from the card */
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		if (s->dim[d] == CD_NULL_I64)
			continue;
		total += cd_score_weights[d] / wsum * (double)s->dim[d];
		/* four decimals: 0.4, not 0.39999999999999997, in the document */
		s->weight[d] = round(cd_score_weights[d] / wsum * 1e4) / 1e4;
	}
	s->total = (int64_t)lround(total);
	s->grade = xstrdup(cd_score_grade(s->total));
}
