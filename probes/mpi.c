/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI point-to-point and collective probes, measured as the OSU micro-benchmarks do
 * (osu_latency, osu_bw, osu_allreduce): untimed warm-up, timed iterations, a window of
 * 64 messages for bandwidth. The harness times each operation from start to the last
 * MPI_Test that says done, so every wait is under the deadline.
 *
 * Pairs: the first two ranks of each host (shared memory), and the hosts as a ring of
 * disjoint pairs (2 or 3 rounds). The rank that starts a pair records the run (rank,
 * peer); the other answers. With check --pairs, mpi.bw hunts a bad node instead: one
 * round of disjoint pairs, then each suspect against a known-good partner.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "probe.h"
#include "util.h"

#ifdef CD_HAVE_MPI

#define WINDOW 64               /* osu_bw's window size */
/*
 * mpi.latency times small ping-pongs in batches of LAT_BATCH: reading the clock around each
 * one cost as much as a 0-byte one-way trip on the VM this was measured on (OSU times one
 * loop). From LAT_LARGE up, one each: a long batch outlasts the poll loop's spin and its
 * sleeps would delay the ping-pongs inside it. osu_latency also changes its iteration
 * count there (its LARGE_MESSAGE_SIZE).
 */
#define LAT_BATCH 10
#define LAT_LARGE 8192

static int lat_batch(size_t bytes)
{
	return bytes <= LAT_LARGE ? LAT_BATCH : 1;
}
#define HUNT_PHASE 4            /* --pairs: the hunt's phases follow the ring's three (TAG) */
#define SEED 0x3c

enum mpi_kind { K_LATENCY, K_BW, K_ALLREDUCE };
/* one tag per kind and schedule phase, so a late message of one never matches another */
_Static_assert(HUNT_PHASE + CD_HUNT_PHASES <= 16, "a kind's tags overlap the next kind's");
#define TAG(kind, phase) (100 + (kind) * 16 + (phase))

struct mpi_state {
	enum mpi_kind kind;
	int peer, tag;
	unsigned char *sbuf, *rbuf;
	int *ack;               /* bw: the window's ack; latency: the answerer's count of wrong bytes.
				   Heap, as the buffers: an abandoned receive may still write it */
	MPI_Request req[WINDOW + 1];
	int nreq;
	int left;               /* latency: ping-pongs left in this operation */
	size_t bytes;           /* latency: their size */
	int abandoned;          /* requests were given up on: MPI may still use the buffers */
};

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(SEED + i * 7);
}

static int mpi_setup(struct cd_probe_env *env, size_t max)
{
	struct mpi_state *st = env->priv;

	st->sbuf = xmalloc_pages(max);
	st->rbuf = xmalloc_pages(max);
	st->ack = xcalloc(1, sizeof(*st->ack));
	fill(st->sbuf, max);
	if (st->kind == K_ALLREDUCE)
		memset(st->sbuf, 0, max); /* floats of 0.0: the sum is 0 whatever the order */
	return 0;
}

static void mpi_teardown(struct cd_probe_env *env)
{
	struct mpi_state *st = env->priv;

	if (!st->abandoned) { /* else they are MPI's until the process ends (dist.h) */
		free(st->sbuf);
		free(st->rbuf);
		free(st->ack);
	}
	st->sbuf = st->rbuf = NULL;
	st->ack = NULL;
}

static int mpi_err(struct cd_probe_env *env, const char *what, int err)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(err, msg, &len);
	return cd_probe_fail(env, "%s: %s", what, msg);
}

/* One ping-pong of a latency batch: the pong's receive is posted before the ping. */
static int ping(struct cd_probe_env *env, size_t bytes)
{
	struct mpi_state *st = env->priv;
	MPI_Comm w = cd_dist_world();
	int err;

	cd_fault_delay(bytes);
	st->bytes = bytes;
	st->nreq = 0;
	err = MPI_Irecv(st->rbuf, (int)bytes, MPI_BYTE, st->peer, st->tag, w, &st->req[st->nreq++]);
	if (err == MPI_SUCCESS)
		err = MPI_Isend(st->sbuf, (int)bytes, MPI_BYTE, st->peer, st->tag, w, &st->req[st->nreq++]);
	return err == MPI_SUCCESS ? 0 : mpi_err(env, "MPI_Isend/Irecv", err);
}

static int mpi_start(struct cd_probe_env *env, size_t bytes)
{
	struct mpi_state *st = env->priv;
	MPI_Comm w = cd_dist_world();
	int err = MPI_SUCCESS, n = (int)bytes;

	st->nreq = 0;
	switch (st->kind) {
	case K_LATENCY:
		st->left = lat_batch(bytes);
		return ping(env, bytes);
	case K_BW:
		cd_fault_delay(bytes * WINDOW);
		for (int i = 0; i < WINDOW && err == MPI_SUCCESS; i++)
			err = MPI_Isend(st->sbuf, n, MPI_BYTE, st->peer, st->tag, w, &st->req[st->nreq++]);
		if (err == MPI_SUCCESS)
			err = MPI_Irecv(st->ack, 1, MPI_INT, st->peer, st->tag + 1, w, &st->req[st->nreq++]);
		break;
	case K_ALLREDUCE:
		cd_fault_delay(bytes);
		err = MPI_Iallreduce(st->sbuf, st->rbuf, n / (int)sizeof(float), MPI_FLOAT, MPI_SUM, w,
				     &st->req[st->nreq++]);
		break;
	}
	return err == MPI_SUCCESS ? 0 : mpi_err(env, "MPI_Isend/Irecv", err);
}

static int mpi_poll(struct cd_probe_env *env)
{
	struct mpi_state *st = env->priv;
	int done = 0, err = MPI_Testall(st->nreq, st->req, &done, MPI_STATUSES_IGNORE);

	if (err != MPI_SUCCESS)
		return mpi_err(env, "MPI_Testall", err);
	/* the batch's next ping-pong starts at once, with no clock read between */
	if (done && st->kind == K_LATENCY && --st->left > 0)
		return ping(env, st->bytes) < 0 ? -1 : 0;
	return done;
}

static void mpi_abort(struct cd_probe_env *env)
{
	struct mpi_state *st = env->priv;

	cd_dist_cancel(st->req, st->nreq);
	st->nreq = 0;
	st->abandoned = 1;
}

/*
 * Outside the timed loop: both ends send the same pattern (fill), so each compares what
 * it received with its own send buffer; the answerer's count of the pings it got wrong
 * comes over after each size.
 */
static int64_t latency_check(struct cd_probe_env *env, size_t bytes)
{
	struct mpi_state *st = env->priv;
	MPI_Request req;
	int64_t wrong = 0;

	for (size_t i = 0; i < bytes; i++)
		wrong += st->rbuf[i] != st->sbuf[i];
	MPI_Irecv(st->ack, 1, MPI_INT, st->peer, st->tag + 2, cd_dist_world(), &req);
	if (cd_dist_wait_op(&req, 1, env->deadline) != 0) {
		st->abandoned = 1;
		cd_probe_fail(env, "rank %d did not send its count of wrong bytes before the deadline", st->peer);
		return -1;
	}
	return wrong + *st->ack;
}

static const struct cd_probe p_latency = {
	.name = "mpi.latency", .busbw_factor = cd_busbw_sendrecv, .setup = mpi_setup, .start = mpi_start,
	.poll = mpi_poll, .abort = mpi_abort, .check = latency_check, .teardown = mpi_teardown,
	.phase = "ping-pong",
};
static const struct cd_probe p_bw = {
	.name = "mpi.bw", .busbw_factor = cd_busbw_sendrecv, .setup = mpi_setup, .start = mpi_start,
	.poll = mpi_poll, .abort = mpi_abort, .teardown = mpi_teardown, .phase = "window",
};
static const struct cd_probe p_allreduce = {
	.name = "mpi.allreduce", .busbw_factor = cd_busbw_all_reduce, .setup = mpi_setup, .start = mpi_start,
	.poll = mpi_poll, .abort = mpi_abort, .teardown = mpi_teardown, .phase = "collective",
};

/* ---- the answering side of a pair: no harness, the same sizes and counts, its own deadline ---- */

/*
 * osu_latency's answerer receives into one buffer and sends from another. Echoing the
 * buffer it had just received into made every pong a read of lines still dirty in this
 * core's cache: 9.2 us at 64 KiB against osu_latency's 7.3 us (6.6 us once apart).
 */
static int answer(enum mpi_kind kind, int peer, int tag, const struct cd_sweep *sw, int ops, double deadline)
{
	MPI_Comm w = cd_dist_world();
	unsigned char *buf = xmalloc_pages(sw->last), *sbuf = xmalloc_pages(sw->last);
	int *ack = xcalloc(1, sizeof(*ack));
	MPI_Request req[WINDOW];
	int rc = 0;

	fill(sbuf, sw->last);
	for (size_t si = 0; si < sw->n && !rc; si++) {
		size_t b = sw->size[si];
		int n = kind == K_LATENCY ? ops * lat_batch(b) : ops;

		for (int i = 0; i < n && !rc; i++) {
			if (kind == K_LATENCY) {
				MPI_Irecv(buf, (int)b, MPI_BYTE, peer, tag, w, &req[0]);
				rc = cd_dist_wait_op(req, 1, deadline);
				if (rc)
					break;
				cd_fault_delay(b);
				MPI_Isend(sbuf, (int)b, MPI_BYTE, peer, tag, w, &req[0]);
				rc = cd_dist_wait_op(req, 1, deadline);
			} else {
				for (int k = 0; k < WINDOW; k++)
					MPI_Irecv(buf, (int)b, MPI_BYTE, peer, tag, w, &req[k]);
				rc = cd_dist_wait_op(req, WINDOW, deadline);
				if (rc)
					break;
				cd_fault_delay(b * WINDOW);
				MPI_Isend(ack, 1, MPI_INT, peer, tag + 1, w, &req[0]);
				rc = cd_dist_wait_op(req, 1, deadline);
			}
		}
		if (kind == K_LATENCY && !rc) { /* the initiator's check waits for this count */
			*ack = 0;
			for (size_t i = 0; i < b; i++)
				*ack += buf[i] != sbuf[i];
			MPI_Isend(ack, 1, MPI_INT, peer, tag + 2, w, &req[0]);
			rc = cd_dist_wait_op(req, 1, deadline);
		}
	}
	if (!rc) { /* else the buffers stay MPI's (dist.h) */
		free(buf);
		free(sbuf);
		free(ack);
	}
	return rc;
}

/* osu_latency reports one-way latency (round trip / 2); osu_bw counts the whole window. */
static void osu_units(struct cd_probe_run *run, enum mpi_kind kind)
{
	for (size_t i = 0; i < run->n_samples; i++) {
		struct cd_probe_sample *s = &run->samples[i];
		int batch = kind == K_LATENCY ? lat_batch((size_t)s->bytes) : 1;
		double div = kind == K_LATENCY ? 2.0 * batch : 1.0, mul = kind == K_BW ? WINDOW : 1.0;

		s->iters *= batch;
		s->time_us /= div;
		s->min_time_us /= div;
		s->max_time_us /= div;
		s->p10_time_us /= div;
		s->p25_time_us /= div;
		s->p75_time_us /= div;
		s->p90_time_us /= div;
		if (s->time_us > 0)
			s->algbw_gbyte_s = s->busbw_gbyte_s = (double)s->bytes * mul / s->time_us / 1e3;
	}
}

/* One pair: the initiator runs the harness and records the run; the peer answers. */
static double pair(const struct cd_probe_def *d, struct cd_probe_ctx *ctx, enum mpi_kind kind, int peer,
		   int initiator, int phase, const struct cd_sweep *sw, int warmup, int iters)
{
	const struct cd_probe *p = kind == K_LATENCY ? &p_latency : &p_bw;
	double budget = ctx->budget_s, left = ctx->end_s - cd_now_s();
	struct mpi_state st = { .kind = kind, .peer = peer, .tag = TAG(kind, phase) };
	struct cd_probe_env env = { .device = -1, .peer = peer, .rank = ctx->rank, .nranks = 2, .priv = &st };
	struct cd_probe_run *run;

	if (left < budget)
		budget = left;
	if (!initiator) {
		/* a little longer than the initiator's budget: it may start late */
		answer(kind, peer, st.tag, sw, warmup + iters, cd_now_s() + budget + 1.0);
		return NAN;
	}
	run = cd_probe_new_run(ctx, d, -1, peer);
	run->rank = ctx->rank;
	cd_probe_run_sweep(p, &env, sw, warmup, iters, budget, run);
	osu_units(run, kind);
	if (run->status != CD_ST_OK || !run->n_samples)
		return NAN;
	return run->samples[run->n_samples - 1].algbw_gbyte_s;
}

/* World rank of `r` in comm (MPI_UNDEFINED when not a member). */
static int world_rank_of(MPI_Comm comm, int r)
{
	MPI_Group g, wg;
	int out = MPI_UNDEFINED;

	MPI_Comm_group(comm, &g);
	MPI_Comm_group(cd_dist_world(), &wg);
	MPI_Group_translate_ranks(g, 1, &r, wg, &out);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	return out;
}

static void params(const struct cd_probe_ctx *ctx, const struct cd_probe_def *d, struct cd_sweep *sw, int *warmup,
		   int *iters)
{
	cd_probe_sweep_for(ctx, d, sw);
	*warmup = ctx->warmup >= 0 ? ctx->warmup : d->warmup;
	*iters = ctx->iters > 0 ? ctx->iters : d->iters;
}

/* Default schedule: the first two ranks of each host, then the hosts as a ring of pairs. */
static void run_pairs(const struct cd_probe_def *d, struct cd_probe_ctx *ctx, enum mpi_kind kind)
{
	const struct cd_dist *ds = cd_dist_get();
	struct cd_sweep sw;
	int warmup, iters;

	params(ctx, d, &sw, &warmup, &iters);
	if (ds->local_size >= 2 && ds->local_rank < 2) {
		int peer = world_rank_of(cd_dist_node(), 1 - ds->local_rank);

		pair(d, ctx, kind, peer, ds->local_rank == 0, 0, &sw, warmup, iters);
	}
	if (ds->n_hosts < 2 || ds->local_rank != 0)
		return;
	for (int round = 0; round < CD_RING_ROUNDS; round++) {
		int init = 0, other = cd_ring_partner(ds->n_hosts, round, ds->host_index, &init);

		if (other >= 0 && cd_now_s() < ctx->end_s)
			pair(d, ctx, kind, world_rank_of(cd_dist_leaders(), other), init, 1 + round, &sw, warmup, iters);
	}
}

/* ---- bad-node hunting (check --pairs): dist.c's schedule, mpi.bw on each pair ---- */

struct hunt_arg {
	const struct cd_probe_def *d;
	struct cd_probe_ctx *ctx;
	struct cd_sweep sw;
	int warmup, iters;
};

static double hunt_pair(void *arg, int peer, int initiator, int phase)
{
	struct hunt_arg *a = arg;

	return pair(a->d, a->ctx, K_BW, peer, initiator, HUNT_PHASE + phase, &a->sw, a->warmup, a->iters);
}

static void run_hunt(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	struct hunt_arg a = { .d = d, .ctx = ctx };

	params(ctx, d, &a.sw, &a.warmup, &a.iters);
	cd_sweep_init(&a.sw, "1M", "1M", NULL, NULL, NULL);
	if (ctx->user_sweep)
		a.sw = ctx->sweep;
	/* one pair lasts at most the answering side's budget + 1 s (pair()) */
	cd_probe_hunt(d, ctx, hunt_pair, &a, ctx->budget_s + 1.0);
}

static void run_latency(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	run_pairs(d, ctx, K_LATENCY);
}

static void run_bw(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	if (ctx->pairs)
		run_hunt(d, ctx);
	else
		run_pairs(d, ctx, K_BW);
}

/* Every rank takes part; rank 0 records (its view of the collective's time). */
static void run_allreduce(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	struct mpi_state st = { .kind = K_ALLREDUCE, .peer = -1 };
	struct cd_probe_env env = { .device = -1, .peer = -1, .rank = ctx->rank, .nranks = ctx->nranks, .priv = &st };
	struct cd_results scratch;
	struct cd_probe_run *run;

	if (cd_dist_get()->broken) {
		cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), "an earlier collective timed out");
		return;
	}
	cd_results_init(&scratch);
	run = ctx->rank == 0 ? cd_probe_new_run(ctx, d, -1, -1) : cd_results_add_probe(&scratch, d->name);
	run->rank = ctx->rank;
	cd_probe_run_on(ctx, d, &p_allreduce, &env, run);
	if (run->status == CD_ST_TIMEOUT)
		cd_dist_set_broken();
	cd_results_free(&scratch);
}

#else /* !CD_HAVE_MPI */

static void no_mpi(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), "this commdiag was built without MPI (MPI=0)");
}
#define run_latency no_mpi
#define run_bw no_mpi
#define run_allreduce no_mpi

#endif

const struct cd_probe_def cd_probe_mpi_latency = {
	.name = "mpi.latency",
	.summary = "MPI ping-pong latency (osu_latency), within a host and between ring neighbours",
	.needs = NEED_RANKS2,
	.sets = CD_SET_DEFAULT | CD_SET_FULL,
	.min = "0",
	.max = "1M",
	.warmup = 100,
	.iters = 1000,
	.run = run_latency,
};
const struct cd_probe_def cd_probe_mpi_bw = {
	.name = "mpi.bw",
	.summary = "MPI bandwidth with a window of 64 messages (osu_bw); with --pairs, bad-node hunting",
	.needs = NEED_RANKS2,
	.sets = CD_SET_DEFAULT | CD_SET_FULL | CD_SET_PAIRS,
	.min = "8K",
	.max = "4M",
	.warmup = 5,
	.iters = 20,
	.run = run_bw,
};
const struct cd_probe_def cd_probe_mpi_allreduce = {
	.name = "mpi.allreduce",
	.summary = "MPI_Allreduce latency over every rank (osu_allreduce), float sum",
	.needs = NEED_RANKS2,
	.sets = CD_SET_DEFAULT | CD_SET_FULL,
	.min = "8",
	.max = "1M",
	.warmup = 10,
	.iters = 100,
	.run = run_allreduce,
};
