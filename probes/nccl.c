/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL collectives through the NCCL the job uses (--nccl-lib): over every local GPU
 * from one process (nccl-tests' -g N), or, under mpirun/srun, over every GPU of every
 * rank as one world (nccl-tests under mpirun): a rank alone on its host drives all its
 * GPUs, ranks that share a host take one GPU each (by local rank). Rank 0's unique id
 * goes to the others by MPI; each rank records its own runs, so a rank that reaches
 * each collective late shows as the one whose times are short while the others' hold
 * their wait for it (NCCL003), rather than vanishing in an average. Communicators are
 * created non-blocking and polled with ncclCommGetAsyncError; past a deadline they are
 * aborted (ncclCommAbort), so a wedged fabric ends as `timeout` with its phase. The
 * communicators are made once (nccl.init measures that) and shared by the collectives
 * of the run; under MPI every collective starts only when all ranks agree that theirs
 * are ready. The collectives are timed as nccl-tests times them, on blocking
 * communicators (its default config): each ncclGroupEnd of a non-blocking one starts a
 * thread (NCCL >= 2.23, src/group.cc), a host cost larger than a small collective's
 * device time. Once a warm-up all_reduce on the non-blocking ones has shown every rank
 * there, each is split (ncclCommSplit, NCCL >= 2.18) into a blocking twin that the
 * collectives use; without it they stay on the non-blocking ones, and nccl.init says so.
 * That world (communicators, twins, buffers, the agreement between ranks) is nccl_world.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"
#include "gpu_common.h"
#include "measure.h"
#include "nccl_world.h"
#include "util.h"

enum coll { C_ALL_REDUCE, C_ALL_GATHER, C_REDUCE_SCATTER, C_BROADCAST, C_REDUCE, C_ALLTOALL, C_SENDRECV };

static struct world W = { .peer = -1 }; /* the job's world, shared by nccl.init and the collectives */

/* The current collective of a probe run, and its world. */
struct coll_state {
	enum coll c;
	int in_place;
	struct world *w;
};

/* Elements (float) of one rank's send buffer and of its receive buffer for a sweep size. */
static void counts(enum coll c, size_t bytes, int n, size_t *send, size_t *recv)
{
	/* nccl-tests rounds each rank's part to 16 bytes (4 floats), so every chunk stays aligned */
	size_t total = bytes / sizeof(float), per = total / (size_t)n / 4 * 4;

	switch (c) {
	case C_ALL_GATHER: /* nccl-tests: the size is the gathered total */
		*send = per;
		*recv = per * (size_t)n;
		break;
	case C_REDUCE_SCATTER:
		*send = per * (size_t)n;
		*recv = per;
		break;
	case C_ALLTOALL:
		*send = *recv = per * (size_t)n;
		break;
	default:
		*send = *recv = total;
	}
}

static unsigned fbits(float f)
{
	unsigned u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* Inputs: every element of rank r is r + 1, so each result is a known sum or rank. */
static int fill_inputs(struct cd_probe_env *env, const struct coll_state *cs, size_t bytes)
{
	struct world *w = cs->w;
	size_t ns, nr;
	CUresult r;

	counts(cs->c, bytes, w->total, &ns, &nr);
	for (int i = 0; i < w->n; i++) {
		CUdeviceptr in = cs->in_place ? w->recv[i] : w->send[i];
		int g = w->g0 + i;

		/* in place, all_gather's input is this rank's chunk of the output */
		if (cs->in_place && cs->c == C_ALL_GATHER)
			in = w->recv[i] + (size_t)g * ns * sizeof(float);
		w->cu->CtxSetCurrent(w->ctx[i]);
		if ((r = w->cu->MemsetD32Async(w->recv[i], 0, nr > ns ? nr : ns, w->s[i])) != CUDA_SUCCESS ||
		    (ns && (r = w->cu->MemsetD32Async(in, fbits((float)(g + 1)), ns, w->s[i])) != CUDA_SUCCESS))
			return cd_gpu_fail(env, w->cu, r, "cuMemsetD32Async");
	}
	for (int i = 0; i < w->n; i++) {
		int rc = cd_gpu_stream_wait(env, w->cu, w->s[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int coll_setup(struct cd_probe_env *env, size_t max)
{
	struct world *w = ((const struct coll_state *)env->priv)->w;
	int ok;

	/* each run (a collective and variant) captures its own graphs, and says if it could not */
	graph_free(w, w->state == 1);
	w->graph = 0;
	w->graph_why[0] = '\0';
	ok = w->state == 1 && world_buffers(w, env, max) == 0;

	/* under MPI a collective some ranks never join would only end at the deadline */
	if (w->procs > 1 && world_agree(w, ok, env->deadline) != 1) {
		if (!ok && env->why[0])
			return -1;
		return cd_probe_fail(env, "%s", w->state != 1 && w->why[0] ? w->why : "not every rank has its communicators and buffers ready");
	}
	if (w->state != 1)
		return cd_probe_fail(env, "no communicators: %s", w->why[0] ? w->why : "nccl.init did not succeed");
	return ok ? 0 : -1;
}

/*
 * nccl-tests moves each timed collective's buffers along ("to avoid cache effects"): the
 * i-th of a timing uses bytes [k*B, (k+1)*B) of its buffers, B the larger of one rank's
 * send and receive bytes, k = i % (buffer size / B), and a timing is its -n (20)
 * collectives. Without it a collective whose buffers fit the GPU's L2 cache (50 MB on an
 * H100) reads and writes the cache, and one GPU's all_reduce of 8 MiB timed 1.9 times
 * nccl-tests' bandwidth (tests/data/gpu-h100/record-noshift.json). The offset of collective op_i:
 */
static size_t coll_shift(const struct world *w, size_t ns, size_t nr, unsigned op_i)
{
	size_t b = (ns > nr ? ns : nr) * sizeof(float), steps = b ? w->cap / b : 1;

	if (steps > COLL_SHIFTS)
		steps = COLL_SHIFTS;
	return steps > 1 ? b * (op_i % steps) : 0;
}

/*
 * One collective on every GPU of this process, as one group (launched, or recorded while
 * the streams capture); timed (captured or launched for a sample): at the next offset,
 * else (the data check) at the buffers' start.
 */
static int launch_group(struct cd_probe_env *env, size_t bytes, int timed)
{
	const struct coll_state *cs = env->priv;
	struct world *w = cs->w;
	size_t ns, nr, shift;
	ncclResult_t r = ncclSuccess;
	int rc;

	counts(cs->c, bytes, w->total, &ns, &nr);
	shift = timed ? coll_shift(w, ns, nr, w->op_i++) : 0;
	/* a non-blocking communicator takes nothing new while its last launch is in progress (a blocking one: never) */
	if (w->pending && (rc = wait_comms(w, env)) < 0)
		return rc;
	w->pending = 1;
	if ((r = w->nc->GroupStart()) != ncclSuccess)
		return nccl_fail(w, env, r, "ncclGroupStart");
	for (int i = 0; i < w->n && r == ncclSuccess; i++) {
		void *sb = (void *)(w->send[i] + shift), *rb = (void *)(w->recv[i] + shift);
		cudaStream_t s = (cudaStream_t)w->s[i];
		ncclComm_t c = comm_of(w, i);
		int g = w->g0 + i, n = w->total;

		if (cs->in_place)
			sb = cs->c == C_ALL_GATHER ? (char *)rb + (size_t)g * ns * sizeof(float) : rb;
		switch (cs->c) {
		case C_ALL_REDUCE:
			r = w->nc->AllReduce(sb, rb, ns, ncclFloat, ncclSum, c, s);
			break;
		case C_ALL_GATHER:
			r = w->nc->AllGather(sb, rb, ns, ncclFloat, c, s);
			break;
		case C_REDUCE_SCATTER:
			r = w->nc->ReduceScatter(cs->in_place ? rb : sb,
						cs->in_place ? (char *)rb + (size_t)g * nr * sizeof(float) : rb, nr,
						ncclFloat, ncclSum, c, s);
			break;
		case C_BROADCAST:
			r = w->nc->Broadcast(sb, rb, ns, ncclFloat, 0, c, s);
			break;
		case C_REDUCE:
			r = w->nc->Reduce(sb, rb, ns, ncclFloat, ncclSum, 0, c, s);
			break;
		case C_ALLTOALL: {
			size_t chunk = ns / (size_t)n;

			/* as send/recv pairs: works with every NCCL that has them (ncclAlltoAll is 2.28+) */
			for (int p = 0; p < n && r == ncclSuccess; p++) {
				r = w->nc->Send((char *)sb + (size_t)p * chunk * sizeof(float), chunk, ncclFloat, p, c, s);
				if (r == ncclSuccess)
					r = w->nc->Recv((char *)rb + (size_t)p * chunk * sizeof(float), chunk, ncclFloat, p,
						       c, s);
			}
			break;
		}
		case C_SENDRECV:
			r = w->nc->Send(sb, ns, ncclFloat, (g + 1) % n, c, s);
			if (r == ncclSuccess)
				r = w->nc->Recv(rb, nr, ncclFloat, (g - 1 + n) % n, c, s);
			break;
		}
	}
	if (r != ncclSuccess && r != ncclInProgress) {
		w->nc->GroupEnd();
		return nccl_fail(w, env, r, "collective launch");
	}
	r = w->nc->GroupEnd();
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_fail(w, env, r, "ncclGroupEnd");
	return 0;
}

/*
 * nccl-tests' method with -G (its CUDA graph mode): the collectives of a sample are
 * captured once per size into one graph per GPU stream, COLL_GRAPH_OPS in each, and a
 * sample launches those graphs twice (the GPUs one after another, from this thread; the
 * second launches are made while the first graphs run) and waits once. A group over n
 * blocking communicators launches n kernels, one host launch each; a graph launch costs
 * about one, so the host's cost per collective drops COLL_GRAPH_OPS-fold and stays below
 * a small collective's device time. The sample's time is the first GPU's stream time
 * from the end of its first graph to the end of the second, over its collectives
 * (events), or else the clock's over all of them. Two graphs, not more: a rank late for
 * each sample (COMMDIAG_FAULT=late_rank) must still add more than NCCL003's minimum per
 * collective. Where no graph can be made (a driver without stream capture, a capture NCCL
 * refuses, the non-blocking communicators, whose launches NCCL's own thread makes), the
 * same collectives are launched back to back as nccl-tests does without -G, and the
 * run's reason says why.
 */
#define COLL_BATCH (2 * COLL_GRAPH_OPS)

static int issue_one(struct cd_probe_env *env, void *bytes)
{
	return launch_group(env, *(size_t *)bytes, 1);
}

/* 1 when this size's graphs are ready to launch, 0 to launch directly (graph_why); -1 / CD_PROBE_TIMEOUT failed. */
static int graph_ready(struct cd_probe_env *env, size_t bytes)
{
	struct world *w = ((const struct coll_state *)env->priv)->w;
	const char *why = "the non-blocking communicators launch from NCCL's thread, outside a capture";
	int rc = 0;

	if (w->graph < 0)
		return 0;
	if (w->graph > 0 && w->g_bytes == bytes)
		return 1;
	graph_free(w, 1);
	w->op_i = 0;
	for (int k = 0; w->timed && k < COLL_GRAPH_SETS && (k == 0 || rc > 0); k++)
		rc = cd_gpu_graphs_capture(&w->graphs[k], env, w->cu, w->ctx, w->s, w->n, issue_one, &bytes,
					   COLL_GRAPH_OPS);
	w->pending = 0; /* captured, not launched */
	if (rc > 0) {
		w->graph = 1;
		w->g_bytes = bytes;
		return 1;
	}
	/* past the deadline, or an error that aborted the communicators: nothing to fall back on */
	if (rc == CD_PROBE_TIMEOUT || (rc < 0 && w->state == -2))
		return rc;
	if (w->timed)
		why = rc < 0 ? env->why : w->graphs[0].why;
	w->graph = -1;
	snprintf(w->graph_why, sizeof(w->graph_why), "from %zu bytes on: %s%.160s", bytes,
		 rc < 0 ? "NCCL refused the capture: " : "", why);
	env->why[0] = '\0'; /* the run goes on, launching directly */
	return 0;
}

static int coll_start(struct cd_probe_env *env, size_t bytes)
{
	const struct coll_state *cs = env->priv;
	struct world *w = cs->w;
	int rc = 0;

	if (w->launched % COLL_GRAPH_OPS == 0 && (rc = graph_ready(env, bytes)) > 0) {
		if (cd_gpu_graphs_launch(&w->graphs[w->gset], env, w->cu, w->ctx, w->s) < 0)
			return -1;
		w->gset = (w->gset + 1) % COLL_GRAPH_SETS;
		w->pending = 1;
	} else if (rc < 0) {
		return rc;
	} else if (w->graph <= 0 && (rc = launch_group(env, bytes, 1)) < 0) {
		return rc;
	} /* else: a collective of the graph launched at this graph's first start */
	/* the sample's time starts when its first COLL_GRAPH_OPS collectives end: their launch is not in it */
	if (++w->launched == COLL_GRAPH_OPS && w->ev[0]) {
		w->cu->CtxSetCurrent(w->ctx[0]);
		w->cu->EventRecord(w->ev[0], w->s[0]);
	}
	return 0;
}

static int coll_begin(struct cd_probe_env *env)
{
	struct world *w = ((const struct coll_state *)env->priv)->w;

	w->launched = 0;
	w->pending = 0; /* the last sample was polled done */
	return 0;
}

static int coll_end(struct cd_probe_env *env)
{
	struct world *w = ((const struct coll_state *)env->priv)->w;
	CUresult r;

	if (!w->ev[1] || w->launched <= COLL_GRAPH_OPS)
		return 0;
	w->cu->CtxSetCurrent(w->ctx[0]);
	r = w->cu->EventRecord(w->ev[1], w->s[0]);
	return r == CUDA_SUCCESS ? 0 : cd_gpu_fail(env, w->cu, r, "cuEventRecord");
}

static int coll_op_us(struct cd_probe_env *env, double *us)
{
	struct world *w = ((const struct coll_state *)env->priv)->w;
	float ms = 0;

	/* -1: the harness's clock over the whole sample, divided by its COLL_BATCH collectives */
	if (!w->ev[1] || w->launched <= COLL_GRAPH_OPS ||
	    w->cu->EventElapsedTime(&ms, w->ev[0], w->ev[1]) != CUDA_SUCCESS)
		return -1;
	*us = (double)ms * 1e3 / (w->launched - COLL_GRAPH_OPS);
	return 0;
}

static int coll_poll(struct cd_probe_env *env)
{
	struct world *w = ((const struct coll_state *)env->priv)->w;
	int r = comms_poll(w, env);

	for (int i = 0; r > 0 && i < w->n; i++)
		r = cd_gpu_stream_poll(env, w->cu, w->s[i]);
	return r;
}

static void coll_abort(struct cd_probe_env *env)
{
	world_abort(((const struct coll_state *)env->priv)->w);
}

/* What element k of rank i's output must be. */
static float expected(enum coll c, int i, size_t k, size_t per, int n)
{
	float sum = (float)n * (float)(n + 1) / 2;

	switch (c) {
	case C_ALL_REDUCE:
	case C_REDUCE_SCATTER:
	case C_REDUCE:
		return sum;
	case C_ALL_GATHER:
	case C_ALLTOALL:
		return (float)(k / per + 1); /* chunk p came from rank p */
	case C_BROADCAST:
		return 1;
	case C_SENDRECV:
		return (float)((i - 1 + n) % n + 1);
	}
	return NAN;
}

/*
 * nccl-tests' check: fresh inputs, one more operation outside the timed loop,
 * then every rank's output compared on the host.
 */
static int64_t coll_check(struct cd_probe_env *env, size_t bytes)
{
	const struct coll_state *cs = env->priv;
	struct world *w = cs->w;
	size_t ns, nr, per;
	int64_t wrong = 0;
	int rc;

	counts(cs->c, bytes, w->total, &ns, &nr);
	per = cs->c == C_ALLTOALL ? ns / (size_t)w->total : ns;
	/* launched directly, outside the graphs: its inputs are fresh, and a graph holds the timed ones' */
	if ((rc = fill_inputs(env, cs, bytes)) < 0 || launch_group(env, bytes, 0) < 0)
		return -1;
	while ((rc = coll_poll(env)) == 0) {
		if (cd_stop || cd_now_s() >= env->deadline) {
			world_abort(w);
			cd_probe_fail(env, "the data-check operation did not finish before the deadline");
			return -1;
		}
	}
	if (rc < 0)
		return -1;
	for (int i = 0; i < w->n; i++) {
		int g = w->g0 + i;
		size_t off = cs->in_place && cs->c == C_REDUCE_SCATTER ? (size_t)g * nr * sizeof(float) : 0;
		const float *out = w->host;
		CUresult r;

		if (cs->c == C_REDUCE && g != 0)
			continue; /* only the root receives */
		w->cu->CtxSetCurrent(w->ctx[i]);
		if ((r = w->cu->MemcpyDtoHAsync(w->host, w->recv[i] + off, nr * sizeof(float), w->s[i])) != CUDA_SUCCESS)
			return cd_gpu_fail(env, w->cu, r, "cuMemcpyDtoHAsync (data check)");
		if (cd_gpu_stream_wait(env, w->cu, w->s[i]) < 0)
			return -1;
		for (size_t k = 0; k < nr; k++)
			wrong += out[k] != expected(cs->c, g, k, per ? per : 1, w->total);
	}
	return wrong;
}

/*
 * An ok run whose collectives could not be captured says so in its reason, as nccl.init
 * says why it has no blocking twins: its small sizes may read host-bound.
 */
static void method_note(const struct world *w, struct cd_probe_run *run)
{
	if (run->status != CD_ST_OK || !w->graph_why[0] || run->reason)
		return;
	run->reason = xasprintf("timed as %d collectives launched back to back per sample (nccl-tests without -G), "
				"not as graphs, %s; host-bound where a collective takes less on the GPUs than its launch",
				COLL_BATCH, w->graph_why);
}

/* Untimed, so a rank that arrives late keeps its own times short and lengthens the others' (NCCL003). */
static void coll_before(struct cd_probe_env *env)
{
	(void)env;
	cd_fault_late();
}

static const struct cd_probe p_coll = {
	.name = "nccl", .setup = coll_setup, .start = coll_start, .poll = coll_poll, .abort = coll_abort,
	.check = coll_check, .before = coll_before, .batch = COLL_BATCH, .begin = coll_begin, .end = coll_end,
	.op_us = coll_op_us, .phase = "collective", .setup_phase = "init",
};

/* nccl.init: make the communicators; its one sample is the time that took. */
static void run_init(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	struct cd_probe_env env = { .device = -1, .peer = -1 };
	double budget = fmin(ctx->budget_s, ctx->end_s - cd_now_s());
	struct cd_probe_run *run;
	struct cd_probe_sample *s;
	int rc;

	world_free(&W);
	env.deadline = cd_now_s() + (budget > 0 ? budget : 0);
	W.procs = ctx->nranks > 1 ? ctx->nranks : 1;
	W.n = local_gpus(&W, d, ctx);
	W.total = W.n;
	if (W.procs > 1 && plan_world(&W, d, ctx, env.deadline) < 0) {
		W.state = -1;
		return;
	}
	run = cd_probe_new_run(ctx, d, W.n == 1 && W.procs > 1 ? W.gpu[0] : -1, -1);
	run->nranks = W.total;
	env.nranks = W.total;
	rc = world_init(&W, &env, ctx->nccl_lib);
	/* one rank's failed init leaves the others' communicators waiting: all stop together */
	if (W.procs > 1 && cd_dist_agree(rc == 0, env.deadline) != 1 && rc == 0) {
		world_abort(&W);
		snprintf(env.why, sizeof(env.why), "another rank's communicators failed (its nccl.init says why): aborted");
		rc = -1;
	}
	if (rc == 0)
		rc = world_ready(&W, &env);
	if (rc < 0) {
		snprintf(W.why, sizeof(W.why), "%s", env.why);
		if (W.state != -2)
			W.state = -1;
		run->status = rc == CD_PROBE_TIMEOUT ? CD_ST_TIMEOUT : CD_ST_ERROR;
		run->phase = xstrdup("init");
		run->reason = xstrdup(env.why[0] ? env.why : "communicator init failed");
		return;
	}
	W.state = 1;
	run->status = CD_ST_OK;
	if (W.method[0])
		run->reason = xstrdup(W.method); /* ok, but not nccl-tests' method at small sizes */
	s = cd_probe_add_sample(run);
	s->bytes = 0;
	cd_stats_fill(s, &W.init_us, 1);
	s->iters = 1;
}

static enum coll coll_of(const char *name)
{
	static const char *const names[] = { "nccl.all_reduce", "nccl.all_gather", "nccl.reduce_scatter",
					     "nccl.broadcast",  "nccl.reduce",	   "nccl.alltoall",
					     "nccl.sendrecv" };
	size_t i = 0;

	while (i < ARRAY_SIZE(names) - 1 && strcmp(names[i], name))
		i++;
	return (enum coll)i;
}

static double (*const factors[])(int) = {
	[C_ALL_REDUCE] = cd_busbw_all_reduce, [C_ALL_GATHER] = cd_busbw_all_gather,
	[C_REDUCE_SCATTER] = cd_busbw_reduce_scatter, [C_BROADCAST] = cd_busbw_broadcast,
	[C_REDUCE] = cd_busbw_reduce, [C_ALLTOALL] = cd_busbw_alltoall, [C_SENDRECV] = cd_busbw_sendrecv,
};

/* Out of place, then in place (nccl-tests' two columns), over all local GPUs. */
static void run_coll(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	struct coll_state cs = { .c = coll_of(d->name), .w = &W };
	struct cd_probe p = p_coll;

	p.name = d->name;
	p.busbw_factor = factors[cs.c];
	/* in place needs the output to cover the input: not for all-to-all or the send/recv ring */
	int variants = cs.c == C_ALLTOALL || cs.c == C_SENDRECV ? 1 : 2;

	for (cs.in_place = 0; cs.in_place < variants; cs.in_place++) {
		int dev = W.n == 1 && W.procs > 1 ? W.gpu[0] : -1;
		struct cd_probe_env env = { .device = dev, .peer = -1, .rank = ctx->rank,
					    .nranks = W.total > 0 ? W.total : (int)ctx->host->n_gpus, .priv = &cs };
		struct cd_probe_run *run;

		/* every rank knows the world was skipped: none waits for the others; one record, as a skip has */
		if (W.skipped) {
			if (W.skipped == 1 && !cs.in_place)
				cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), W.why);
			continue;
		}
		int was = W.state;

		run = cd_probe_new_run(ctx, d, dev, -1);
		run->variant = xstrdup(cs.in_place ? "in_place" : "out_of_place");
		cd_probe_run_on(ctx, d, &p, &env, run);
		method_note(&W, run);
		if (was == 1 && W.state == -2)
			snprintf(W.why, sizeof(W.why), "aborted after a %s in %s %s",
				 run->status == CD_ST_TIMEOUT ? "timeout" : "communicator error", d->name, run->variant);
	}
}

/*
 * ---- nccl.pairs: bad-node hunting over NCCL (check --pairs) ----
 * dist.c's schedule, with a world of two processes per pair: the initiator's unique id
 * and each side's GPU count go point to point, each side brings the GPUs it drives in
 * the job's world, and both time all_reduce at each size; the initiator records it.
 */
#define PAIR_TAG 400 /* + the hunt's phase: a pair's messages (mpi.c uses 100-147) */

_Static_assert(sizeof(ncclUniqueId) == CD_DIST_BLOB_BYTES, "a unique id is what dist.c sends");

struct pair_hello {
	int32_t gpus;   /* GPUs this side brings; 0 when it cannot (why says so) */
	char id[CD_DIST_BLOB_BYTES];
	char why[sizeof(((struct cd_probe_env *)0)->why) + 32];
};

struct pair_arg {
	const struct cd_probe_def *d;
	struct cd_probe_ctx *ctx;
};

static double pair_run(void *arg, int peer, int initiator, int phase)
{
	const struct pair_arg *a = arg;
	struct world w = { .peer = peer, .tag = PAIR_TAG + phase, .procs = 2 };
	struct coll_state cs = { .c = C_ALL_REDUCE, .w = &w };
	struct cd_probe_env env = { .device = -1, .peer = peer, .rank = a->ctx->rank };
	double budget = fmin(a->ctx->budget_s, a->ctx->end_s - cd_now_s()), bw = NAN;
	struct pair_hello *mine = xcalloc(1, sizeof(*mine)), *theirs = xcalloc(1, sizeof(*theirs));
	struct cd_probe p = p_coll;
	struct cd_results scratch;
	struct cd_probe_run *run;
	ncclUniqueId id;
	ncclResult_t r;
	int rc, agreed;

	cd_results_init(&scratch);
	run = initiator ? cd_probe_new_run(a->ctx, a->d, -1, peer) : cd_results_add_probe(&scratch, a->d->name);
	run->rank = a->ctx->rank;
	env.deadline = cd_now_s() + (budget > 0 ? budget : 0);
	w.n = local_gpus(&w, a->d, a->ctx);
	rc = w.n ? world_open(&w, &env, a->ctx->nccl_lib) : cd_probe_fail(&env, "%s", w.why);
	memset(&id, 0, sizeof(id));
	if (rc == 0 && initiator && (r = w.nc->GetUniqueId(&id)) != ncclSuccess)
		rc = nccl_fail(&w, &env, r, "ncclGetUniqueId");
	mine->gpus = rc == 0 ? w.n : 0;
	memcpy(mine->id, &id, sizeof(mine->id));
	if (w.n)
		snprintf(mine->why, sizeof(mine->why), "rank %d: %s", a->ctx->rank, env.why);
	else
		snprintf(mine->why, sizeof(mine->why), "%s", w.why); /* names its rank already */
	if (cd_dist_pair_exchange(peer, w.tag, mine, theirs, sizeof(*mine), env.deadline) < 0) {
		snprintf(w.why, sizeof(w.why), "rank %d did not answer before the deadline", peer);
		cd_probe_set_status(run, CD_ST_TIMEOUT, "plan", w.why);
		goto out;
	}
	theirs->why[sizeof(theirs->why) - 1] = '\0';
	if (!mine->gpus || !theirs->gpus) {
		cd_probe_set_status(run, CD_ST_ERROR, "init", mine->gpus ? theirs->why : mine->why);
		goto out;
	}
	w.total = mine->gpus + theirs->gpus;
	w.g0 = initiator ? 0 : theirs->gpus;
	memcpy(&id, initiator ? mine->id : theirs->id, sizeof(id));
	run->nranks = w.total;
	rc = world_connect(&w, &env, &id);
	/* one side's failed init leaves the other's communicators waiting: both stop */
	agreed = world_agree(&w, rc == 0, env.deadline);
	if (agreed != 1) {
		if (rc == 0) {
			world_abort(&w);
			snprintf(env.why, sizeof(env.why), agreed < 0 ? "rank %d did not say before the deadline whether "
					  "its communicators were ready: aborted" : "rank %d's communicators failed: aborted",
				 peer);
		}
		cd_probe_set_status(run, rc == CD_PROBE_TIMEOUT || agreed < 0 ? CD_ST_TIMEOUT : CD_ST_ERROR, "init",
				    env.why);
		goto out;
	}
	if ((rc = world_ready(&w, &env)) < 0) {
		cd_probe_set_status(run, rc == CD_PROBE_TIMEOUT ? CD_ST_TIMEOUT : CD_ST_ERROR, "init", env.why);
		goto out;
	}
	w.state = 1;
	p.name = a->d->name;
	p.busbw_factor = cd_busbw_all_reduce;
	env.nranks = w.total;
	env.priv = &cs;
	cd_probe_run_on(a->ctx, a->d, &p, &env, run);
	method_note(&w, run);
	bw = cd_probe_bw(run);
	/* a pair that failed may have a kernel still waiting on the other side: only an abort frees it */
	if (run->status != CD_ST_OK && w.state == 1)
		world_abort(&w);
out:
	world_free(&w);
	cd_results_free(&scratch);
	free(mine);
	free(theirs);
	return bw;
}

/* Every rank brings a GPU, or all skip at once (as the job's world does), then the hunt. */
static void run_pairs(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	struct world plan = { .peer = -1, .procs = ctx->nranks };
	struct pair_arg a = { .d = d, .ctx = ctx };
	double deadline = fmin(cd_now_s() + ctx->budget_s, ctx->end_s);

	plan.n = local_gpus(&plan, d, ctx);
	if (plan_world(&plan, d, ctx, deadline) == 0)
		/* one pair: its communicators, then its all_reduce, each within a budget */
		cd_probe_hunt(d, ctx, pair_run, &a, 2 * ctx->budget_s + 1.0);
	world_free(&plan);
}

static void finish(void)
{
	world_free(&W);
}

/*
 * From 8 bytes, as nccl-tests is run (-b 8): latency is read at 8 KiB or less only
 * (NCCL002, the score), and 17 more small sizes cost a few ms per collective.
 */
#define NCCL_DEF(nm, what, set, run_fn) { \
	.name = nm, .summary = what, .needs = NEED_GPU | NEED_NCCL, .sets = set, .min = "8", .max = "256M", \
	.warmup = 5, .iters = 20, .run = run_fn, .finish = finish, .all_ranks = 1 }

const struct cd_probe_def cd_probe_nccl_init = NCCL_DEF("nccl.init",
	"time to create one communicator per local GPU (non-blocking, polled; then a blocking twin for timing)",
	CD_SETS_ALL, run_init);
const struct cd_probe_def cd_probe_nccl_all_reduce = NCCL_DEF("nccl.all_reduce",
	"all_reduce (sum, float) over all local GPUs", CD_SETS_ALL, run_coll);
const struct cd_probe_def cd_probe_nccl_all_gather = NCCL_DEF("nccl.all_gather",
	"all_gather over all local GPUs (size = the gathered total)", CD_SET_DEFAULT | CD_SET_FULL, run_coll);
const struct cd_probe_def cd_probe_nccl_reduce_scatter = NCCL_DEF("nccl.reduce_scatter",
	"reduce_scatter (sum) over all local GPUs (size = the input total)", CD_SET_DEFAULT | CD_SET_FULL, run_coll);
const struct cd_probe_def cd_probe_nccl_broadcast = NCCL_DEF("nccl.broadcast",
	"broadcast from GPU 0 to all local GPUs", CD_SET_FULL, run_coll);
const struct cd_probe_def cd_probe_nccl_reduce = NCCL_DEF("nccl.reduce",
	"reduce (sum) onto GPU 0", CD_SET_FULL, run_coll);
const struct cd_probe_def cd_probe_nccl_alltoall = NCCL_DEF("nccl.alltoall",
	"all-to-all as grouped send/recv over all local GPUs", CD_SET_FULL, run_coll);
const struct cd_probe_def cd_probe_nccl_sendrecv = NCCL_DEF("nccl.sendrecv",
	"send to the next GPU and receive from the previous one, in a ring", CD_SET_FULL, run_coll);
/* its own world per pair, of one size: bandwidth-bound on a fabric, small enough for any GPU */
const struct cd_probe_def cd_probe_nccl_pairs = {
	.name = "nccl.pairs", .summary = "all_reduce between disjoint pairs of ranks or hosts: bad-node hunting",
	.needs = NEED_GPU | NEED_NCCL | NEED_RANKS2, .sets = CD_SET_FULL | CD_SET_PAIRS, .min = "16M", .max = "16M",
	.warmup = 5, .iters = 20, .run = run_pairs, .finish = finish, .all_ranks = 1,
};
