/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running the probe table: which probes, whether the host can run them (and why
 * not), the sweep and budget each gets, and the overall end of the run.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "dist.h"
#include "probe.h"
#include "progress.h"
#include "util.h"

static int bit_no(unsigned bit)
{
	int n = 0;

	while (bit > 1) {
		bit >>= 1;
		n++;
	}
	return n;
}

static void unmet(struct cd_probe_ctx *ctx, unsigned bit, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void unmet(struct cd_probe_ctx *ctx, unsigned bit, const char *fmt, ...)
{
	va_list ap;
	int k = bit_no(bit);

	free(ctx->unmet[k]);
	va_start(ap, fmt);
	ctx->unmet[k] = xvasprintf(fmt, ap);
	va_end(ap);
}

void cd_probe_ctx_init(struct cd_probe_ctx *ctx)
{
	const struct cd_host *h = ctx->host;
	const struct cd_section *gpu = &h->part[CD_PART_GPU];
	const char *err = NULL;

	ctx->have = 0;
	if (gpu->status != CD_ST_OK)
		unmet(ctx, NEED_GPU, "needs a GPU: %s", gpu->reason ? gpu->reason : "GPU discovery did not run");
	else if (h->n_gpus < 1)
		unmet(ctx, NEED_GPU, "needs a GPU: the driver reports none");
	else
		ctx->have |= NEED_GPU;
	if (!(ctx->have & NEED_GPU))
		unmet(ctx, NEED_GPU2, "%s", ctx->unmet[bit_no(NEED_GPU)]);
	else if (h->n_gpus < 2)
		unmet(ctx, NEED_GPU2, "needs two GPUs: this host has one");
	else
		ctx->have |= NEED_GPU2;
	if (!cd_dl_nccl(ctx->nccl_lib, &err))
		unmet(ctx, NEED_NCCL, "needs NCCL: %s", err);
	else
		ctx->have |= NEED_NCCL;
	if (ctx->nranks < 2)
#ifdef CD_HAVE_MPI
		unmet(ctx, NEED_RANKS2, "needs two or more ranks: run under mpirun or srun");
#else
		unmet(ctx, NEED_RANKS2, "needs two or more ranks: this commdiag was built without MPI (MPI=0)");
#endif
	else
		ctx->have |= NEED_RANKS2;
}

const char *cd_probe_ctx_unmet(const struct cd_probe_ctx *ctx, unsigned needs)
{
	unsigned missing = needs & ~ctx->have;

	return missing ? ctx->unmet[bit_no(missing & -missing)] : NULL;
}

void cd_probe_ctx_free(struct cd_probe_ctx *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(ctx->unmet); i++) {
		free(ctx->unmet[i]);
		ctx->unmet[i] = NULL;
	}
}

/* "copy" matches "copy.h2d"; "copy.h2d" matches itself; "all" matches everything. */
static int name_matches(const char *want, const char *name)
{
	size_t n = strlen(want);

	return !strcmp(want, "all") || !strcmp(want, name) || (!strncmp(want, name, n) && name[n] == '.');
}

int cd_probe_select(char *const *names, int n, int *selected, const char **bad)
{
	size_t nt;
	const struct cd_probe_def *const *t = cd_probe_table(&nt);

	memset(selected, 0, nt * sizeof(*selected));
	for (int i = 0; i < n; i++) {
		int hit = 0;

		for (size_t k = 0; k < nt; k++)
			if (name_matches(names[i], t[k]->name))
				selected[k] = hit = 1;
		if (!hit) {
			*bad = names[i];
			return -1;
		}
	}
	return 0;
}

struct cd_probe_run *cd_probe_new_run(struct cd_probe_ctx *ctx, const struct cd_probe_def *d, int device, int peer)
{
	struct cd_probe_run *run = cd_results_add_probe(ctx->r, d->name);

	free(run->host);
	run->host = ctx->host->hostname ? xstrdup(ctx->host->hostname) : NULL;
	run->device = device >= 0 ? device : CD_NULL_I64;
	run->peer = peer >= 0 ? peer : CD_NULL_I64;
	/* under MPI each record says which rank measured it (a probe may set its own peer) */
	if (ctx->nranks > 1)
		run->rank = ctx->rank;
	return run;
}

struct hunt_absent {
	const struct cd_probe_def *d;
	struct cd_probe_ctx *ctx;
};

static void hunt_absent(void *arg, int peer, const char *why)
{
	struct hunt_absent *h = arg;
	struct cd_probe_run *run = cd_probe_new_run(h->ctx, h->d, -1, peer);

	run->rank = h->ctx->rank;
	cd_probe_set_status(run, CD_ST_TIMEOUT, "start", why);
}

void cd_probe_hunt(const struct cd_probe_def *d, struct cd_probe_ctx *ctx,
		   double (*pair)(void *arg, int peer, int initiator, int phase), void *arg, double pair_s)
{
	struct hunt_absent h = { .d = d, .ctx = ctx };
	struct cd_hunt_plan plan = { .name = d->name, .end_s = ctx->end_s, .pair_s = pair_s, .pair = pair,
				     .pair_arg = arg, .absent = hunt_absent, .absent_arg = &h };

	cd_dist_hunt(&plan);
}

void cd_probe_sweep_for(const struct cd_probe_ctx *ctx, const struct cd_probe_def *d, struct cd_sweep *sw)
{
	char *err = NULL;

	if (ctx->user_sweep) {
		*sw = ctx->sweep;
		return;
	}
	/* the table's defaults are constants checked by the unit tests */
	if (cd_sweep_init(sw, d->min, d->max, NULL, NULL, &err) < 0) {
		cd_warn("probe %s: bad default sweep: %s", d->name, err);
		free(err);
		cd_sweep_init(sw, NULL, NULL, NULL, NULL, NULL);
	}
}

int cd_probe_run_on(struct cd_probe_ctx *ctx, const struct cd_probe_def *d, const struct cd_probe *p,
		    struct cd_probe_env *env, struct cd_probe_run *out)
{
	struct cd_sweep sw;
	double budget = ctx->budget_s, left = ctx->end_s - cd_now_s();

	if (left < budget)
		budget = left;
	cd_probe_sweep_for(ctx, d, &sw);
	return cd_probe_run_sweep(p, env, &sw, ctx->warmup >= 0 ? ctx->warmup : d->warmup,
				  ctx->iters > 0 ? ctx->iters : d->iters, budget, out);
}

/* Under MPI, a probe every rank runs as one world (NCCL across ranks). */
static int job_wide(const struct cd_probe_ctx *ctx, const struct cd_probe_def *d)
{
	return d->all_ranks && ctx->nranks > 1;
}

/* Will this run start d? Skipped probes take no time: progress counts only these. */
static int runs(const struct cd_probe_ctx *ctx, const int *selected, size_t k, const struct cd_probe_def *d)
{
	if (selected ? !selected[k] : !(d->sets & ctx->set))
		return 0;
	/* node-local probes run once per host, on its first rank */
	if (ctx->follower && !(d->needs & NEED_RANKS2) && !job_wide(ctx, d))
		return 0;
	return 1;
}

void cd_probe_run_table(struct cd_probe_ctx *ctx, const int *selected)
{
	size_t nt;
	const struct cd_probe_def *const *t = cd_probe_table(&nt);
	int n_run = 0, i_run = 0;

	for (size_t k = 0; k < nt; k++)
		n_run += runs(ctx, selected, k, t[k]) && (!(t[k]->needs & ~ctx->have) || job_wide(ctx, t[k]));
	for (size_t k = 0; k < nt; k++) {
		const struct cd_probe_def *d = t[k];
		unsigned missing = d->needs & ~ctx->have;

		if (!runs(ctx, selected, k, d))
			continue;
		/* a job-wide probe learns from the other ranks whether it skips: it must not leave them waiting */
		if (missing && !job_wide(ctx, d)) {
			cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), cd_probe_ctx_unmet(ctx, d->needs));
			continue;
		}
		if (cd_stop || cd_now_s() >= ctx->end_s) {
			struct cd_probe_run *run = cd_probe_new_run(ctx, d, -1, -1);

			run->status = CD_ST_TIMEOUT;
			run->phase = xstrdup("start");
			run->reason = cd_stop ? xasprintf("not started: stopped by %s", cd_stop_cause())
					      : xstrdup("not started: the run's time budget was spent");
			continue;
		}
		cd_debug(1, "probe: %s", d->name);
		cd_progress_probe(++i_run, n_run, d->name);
		d->run(d, ctx);
	}
	for (size_t k = 0; k < nt; k++) {
		size_t j = 0;

		/* several probes of a family share one finish: call it once */
		while (j < k && t[j]->finish != t[k]->finish)
			j++;
		if (t[k]->finish && j == k)
			t[k]->finish();
	}
}
