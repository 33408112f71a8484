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
 * are ready.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"
#include "gpu_common.h"
#include "util.h"

enum coll { C_ALL_REDUCE, C_ALL_GATHER, C_REDUCE_SCATTER, C_BROADCAST, C_REDUCE, C_ALLTOALL, C_SENDRECV };

struct world {
	int n;                  /* communicators of this process, one per GPU */
	int g0;                 /* the NCCL rank of the first; the others follow */
	int total;              /* NCCL ranks in the world: every GPU of every rank */
	int procs;              /* processes (MPI ranks) in the world; 1 without MPI */
	int skipped;            /* some rank brings no GPU: every rank skips the collectives (1: recording it) */
	int *gpu;               /* the local GPU index of each communicator */
	int state;              /* 0 not made, 1 ready, -1 failed (reason in why), -2 aborted */
	char why[256];
	const struct cd_cuda_api *cu;
	const struct cd_nccl_api *nc;
	CUdevice *dev;
	CUcontext *ctx;
	ncclComm_t *comm;
	CUstream *s;
	CUdeviceptr *send, *recv;
	void *host;             /* pinned, for the data check */
	size_t cap;             /* bytes allocated per buffer */
	double init_us;
};

static struct world W;

/* The current collective of a probe run. */
struct coll_state {
	enum coll c;
	int in_place;
};

static int nccl_fail(struct cd_probe_env *env, ncclResult_t r, const char *what)
{
	const char *last = W.nc->GetLastError ? W.nc->GetLastError(NULL) : NULL;

	return cd_probe_fail(env, "%s: %s%s%s", what, W.nc->GetErrorString(r), last && *last ? ": " : "",
			     last ? last : "");
}

static void world_abort(void)
{
	for (int i = 0; i < W.n; i++)
		if (W.comm[i])
			W.nc->CommAbort(W.comm[i]);
	W.state = -2;
}

/* Poll every communicator until none is in progress: 1 done, 0 running, -1 failed. */
static int comms_poll(struct cd_probe_env *env)
{
	int running = 0;

	for (int i = 0; i < W.n; i++) {
		ncclResult_t st = ncclSuccess, r = W.nc->CommGetAsyncError(W.comm[i], &st);

		if (r != ncclSuccess)
			return nccl_fail(env, r, "ncclCommGetAsyncError");
		if (st == ncclInProgress)
			running = 1;
		else if (st != ncclSuccess)
			return nccl_fail(env, st, "communicator error");
	}
	return !running;
}

static int wait_comms(struct cd_probe_env *env)
{
	const struct timespec nap = { 0, 50000 };

	for (;;) {
		int r = comms_poll(env);

		if (r)
			return r > 0 ? 0 : -1;
		/* a signal or --timeout stops the wait as the deadline does: the caller aborts */
		if (cd_stop || cd_now_s() >= env->deadline)
			return CD_PROBE_TIMEOUT;
		nanosleep(&nap, NULL);
	}
}

/* Make the communicators: one per local GPU, non-blocking, within the deadline. */
static int world_init(struct cd_probe_env *env, int procs)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	const char *why = NULL;
	ncclUniqueId id;
	ncclResult_t r;
	double t0;
	int rc, n = W.n;

	W.cu = cd_dl_cuda(&why);
	if (!W.cu)
		return cd_probe_fail(env, "%s", why);
	W.nc = cd_dl_nccl(env->priv, &why);
	if (!W.nc)
		return cd_probe_fail(env, "%s", why);
	W.dev = xcalloc((size_t)n, sizeof(*W.dev));
	W.ctx = xcalloc((size_t)n, sizeof(*W.ctx));
	W.comm = xcalloc((size_t)n, sizeof(*W.comm));
	W.s = xcalloc((size_t)n, sizeof(*W.s));
	W.send = xcalloc((size_t)n, sizeof(*W.send));
	W.recv = xcalloc((size_t)n, sizeof(*W.recv));
	for (int i = 0; i < n; i++) {
		CUresult cr;

		env->device = W.gpu[i];
		if (cd_gpu_ctx_enter(env, W.cu, W.gpu[i], &W.dev[i], &W.ctx[i]) < 0)
			return -1;
		if ((cr = W.cu->StreamCreate(&W.s[i], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
			return cd_gpu_fail(env, W.cu, cr, "cuStreamCreate");
	}
	env->device = -1;
	memset(&id, 0, sizeof(id));
	if (W.g0 == 0 && (r = W.nc->GetUniqueId(&id)) != ncclSuccess)
		return nccl_fail(env, r, "ncclGetUniqueId");
	if (procs > 1 && cd_dist_bcast_blob(&id, env->deadline) < 0)
		return cd_probe_fail(env, "the NCCL unique id did not come from rank 0 before the deadline"),
		       CD_PROBE_TIMEOUT;
	cfg.blocking = 0;
	t0 = cd_now_s();
	if ((r = W.nc->GroupStart()) != ncclSuccess)
		return nccl_fail(env, r, "ncclGroupStart");
	for (int i = 0; i < n; i++) {
		W.cu->CtxSetCurrent(W.ctx[i]);
		r = W.nc->CommInitRankConfig(&W.comm[i], W.total, id, W.g0 + i, &cfg);
		if (r != ncclSuccess && r != ncclInProgress) {
			W.nc->GroupEnd();
			return nccl_fail(env, r, "ncclCommInitRankConfig");
		}
	}
	r = W.nc->GroupEnd();
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_fail(env, r, "ncclGroupEnd (init)");
	rc = wait_comms(env);
	if (rc == CD_PROBE_TIMEOUT) {
		world_abort();
		return cd_probe_fail(env, "communicators of %d GPUs not ready before the deadline: aborted", W.total),
		       CD_PROBE_TIMEOUT;
	}
	if (rc < 0)
		return -1;
	W.init_us = (cd_now_s() - t0) * 1e6;
	return 0;
}

static void world_free(void)
{
	if (W.state == 1) {
		for (int i = 0; i < W.n; i++) {
			W.cu->CtxSetCurrent(W.ctx[i]);
			if (W.comm[i])
				W.nc->CommDestroy(W.comm[i]);
			if (W.send[i])
				W.cu->MemFree(W.send[i]);
			if (W.recv[i])
				W.cu->MemFree(W.recv[i]);
			if (W.s[i])
				W.cu->StreamDestroy(W.s[i]);
			W.cu->DevicePrimaryCtxRelease(W.dev[i]);
		}
		if (W.host)
			W.cu->MemFreeHost(W.host);
	}
	/* failed or aborted: the GPUs may still hold our work; leak rather than block */
	free(W.gpu);
	free(W.dev);
	free(W.ctx);
	free(W.comm);
	free(W.s);
	free(W.send);
	free(W.recv);
	memset(&W, 0, sizeof(W));
}

/* Buffers of at least bytes on every GPU (grown between probes, never shrunk). */
static int world_buffers(struct cd_probe_env *env, size_t bytes)
{
	CUresult r;

	if (bytes <= W.cap)
		return 0;
	for (int i = 0; i < W.n; i++) {
		W.cu->CtxSetCurrent(W.ctx[i]);
		if (W.send[i])
			W.cu->MemFree(W.send[i]);
		if (W.recv[i])
			W.cu->MemFree(W.recv[i]);
		W.send[i] = W.recv[i] = 0;
		if ((r = W.cu->MemAlloc(&W.send[i], bytes)) != CUDA_SUCCESS ||
		    (r = W.cu->MemAlloc(&W.recv[i], bytes)) != CUDA_SUCCESS)
			return cd_gpu_fail(env, W.cu, r, "cuMemAlloc");
	}
	if (W.host)
		W.cu->MemFreeHost(W.host);
	W.host = NULL;
	if ((r = W.cu->MemHostAlloc(&W.host, bytes, 0)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, W.cu, r, "cuMemHostAlloc (pinned host memory)");
	W.cap = bytes;
	return 0;
}

/* Elements (float) of one rank's send buffer and of its receive buffer for a sweep size. */
static void counts(enum coll c, size_t bytes, int n, size_t *send, size_t *recv)
{
	size_t total = bytes / sizeof(float), per = total / (size_t)n;

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
	size_t ns, nr;
	CUresult r;

	counts(cs->c, bytes, W.total, &ns, &nr);
	for (int i = 0; i < W.n; i++) {
		CUdeviceptr in = cs->in_place ? W.recv[i] : W.send[i];
		int g = W.g0 + i;

		/* in place, all_gather's input is this rank's chunk of the output */
		if (cs->in_place && cs->c == C_ALL_GATHER)
			in = W.recv[i] + (size_t)g * ns * sizeof(float);
		W.cu->CtxSetCurrent(W.ctx[i]);
		if ((r = W.cu->MemsetD32Async(W.recv[i], 0, nr > ns ? nr : ns, W.s[i])) != CUDA_SUCCESS ||
		    (ns && (r = W.cu->MemsetD32Async(in, fbits((float)(g + 1)), ns, W.s[i])) != CUDA_SUCCESS))
			return cd_gpu_fail(env, W.cu, r, "cuMemsetD32Async");
	}
	for (int i = 0; i < W.n; i++) {
		int rc = cd_gpu_stream_wait(env, W.cu, W.s[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int coll_setup(struct cd_probe_env *env, size_t max)
{
	int ok = W.state == 1 && world_buffers(env, max) == 0;

	/* under MPI a collective some ranks never join would only end at the deadline */
	if (W.procs > 1 && cd_dist_agree(ok, env->deadline) != 1) {
		if (!ok && env->why[0])
			return -1;
		return cd_probe_fail(env, "%s", W.state != 1 && W.why[0] ? W.why : "not every rank has its communicators and buffers ready");
	}
	if (W.state != 1)
		return cd_probe_fail(env, "no communicators: %s", W.why[0] ? W.why : "nccl.init did not succeed");
	return ok ? 0 : -1;
}

static int coll_start(struct cd_probe_env *env, size_t bytes)
{
	const struct coll_state *cs = env->priv;
	size_t ns, nr;
	ncclResult_t r = ncclSuccess;

	counts(cs->c, bytes, W.total, &ns, &nr);
	if ((r = W.nc->GroupStart()) != ncclSuccess)
		return nccl_fail(env, r, "ncclGroupStart");
	for (int i = 0; i < W.n && r == ncclSuccess; i++) {
		void *sb = (void *)W.send[i], *rb = (void *)W.recv[i];
		cudaStream_t s = (cudaStream_t)W.s[i];
		ncclComm_t c = W.comm[i];
		int g = W.g0 + i, n = W.total;

		if (cs->in_place)
			sb = cs->c == C_ALL_GATHER ? (char *)rb + (size_t)g * ns * sizeof(float) : rb;
		switch (cs->c) {
		case C_ALL_REDUCE:
			r = W.nc->AllReduce(sb, rb, ns, ncclFloat, ncclSum, c, s);
			break;
		case C_ALL_GATHER:
			r = W.nc->AllGather(sb, rb, ns, ncclFloat, c, s);
			break;
		case C_REDUCE_SCATTER:
			r = W.nc->ReduceScatter(cs->in_place ? (void *)W.recv[i] : sb,
						cs->in_place ? (char *)rb + (size_t)g * nr * sizeof(float) : rb, nr,
						ncclFloat, ncclSum, c, s);
			break;
		case C_BROADCAST:
			r = W.nc->Broadcast(sb, rb, ns, ncclFloat, 0, c, s);
			break;
		case C_REDUCE:
			r = W.nc->Reduce(sb, rb, ns, ncclFloat, ncclSum, 0, c, s);
			break;
		case C_ALLTOALL: {
			size_t chunk = ns / (size_t)n;

			/* as send/recv pairs: works with every NCCL that has them (ncclAlltoAll is 2.28+) */
			for (int p = 0; p < n && r == ncclSuccess; p++) {
				r = W.nc->Send((char *)sb + (size_t)p * chunk * sizeof(float), chunk, ncclFloat, p, c, s);
				if (r == ncclSuccess)
					r = W.nc->Recv((char *)rb + (size_t)p * chunk * sizeof(float), chunk, ncclFloat, p,
						       c, s);
			}
			break;
		}
		case C_SENDRECV:
			r = W.nc->Send(sb, ns, ncclFloat, (g + 1) % n, c, s);
			if (r == ncclSuccess)
				r = W.nc->Recv(rb, nr, ncclFloat, (g - 1 + n) % n, c, s);
			break;
		}
	}
	if (r != ncclSuccess && r != ncclInProgress) {
		W.nc->GroupEnd();
		return nccl_fail(env, r, "collective launch");
	}
	r = W.nc->GroupEnd();
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_fail(env, r, "ncclGroupEnd");
	return 0;
}

static int coll_poll(struct cd_probe_env *env)
{
	int r = comms_poll(env);

	for (int i = 0; r > 0 && i < W.n; i++)
		r = cd_gpu_stream_poll(env, W.cu, W.s[i]);
	return r;
}

static void coll_abort(struct cd_probe_env *env)
{
	(void)env;
	world_abort();
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
	size_t ns, nr, per;
	int64_t wrong = 0;
	int rc;

	counts(cs->c, bytes, W.total, &ns, &nr);
	per = cs->c == C_ALLTOALL ? ns / (size_t)W.total : ns;
	if ((rc = fill_inputs(env, cs, bytes)) < 0 || coll_start(env, bytes) < 0)
		return -1;
	while ((rc = coll_poll(env)) == 0) {
		if (cd_stop || cd_now_s() >= env->deadline) {
			world_abort();
			cd_probe_fail(env, "the data-check operation did not finish before the deadline");
			return -1;
		}
	}
	if (rc < 0)
		return -1;
	for (int i = 0; i < W.n; i++) {
		int g = W.g0 + i;
		size_t off = cs->in_place && cs->c == C_REDUCE_SCATTER ? (size_t)g * nr * sizeof(float) : 0;
		const float *out = W.host;
		CUresult r;

		if (cs->c == C_REDUCE && g != 0)
			continue; /* only the root receives */
		W.cu->CtxSetCurrent(W.ctx[i]);
		if ((r = W.cu->MemcpyDtoHAsync(W.host, W.recv[i] + off, nr * sizeof(float), W.s[i])) != CUDA_SUCCESS)
			return cd_gpu_fail(env, W.cu, r, "cuMemcpyDtoHAsync (data check)");
		if (cd_gpu_stream_wait(env, W.cu, W.s[i]) < 0)
			return -1;
		for (size_t k = 0; k < nr; k++)
			wrong += out[k] != expected(cs->c, g, k, per ? per : 1, W.total);
	}
	return wrong;
}

/* Untimed, so a rank that arrives late keeps its own times short and lengthens the others' (NCCL003). */
static void coll_before(struct cd_probe_env *env)
{
	(void)env;
	cd_fault_late();
}

static const struct cd_probe p_coll = {
	.name = "nccl", .setup = coll_setup, .start = coll_start, .poll = coll_poll, .abort = coll_abort,
	.check = coll_check, .before = coll_before, .phase = "collective", .setup_phase = "init",
};

/*
 * The GPUs this process drives: every GPU of its host when it is alone there (one rank
 * per host, or no MPI), else the one its local rank names; none (and why, in W.why) when
 * its driver or NCCL is missing or the host has fewer GPUs than ranks. A host's other
 * ranks did not discover it (its first rank did): they ask the driver how many GPUs it has.
 */
static int local_gpus(const struct cd_probe_def *d, const struct cd_probe_ctx *ctx)
{
	const struct cd_dist *dd = cd_dist_get();
	int n = (int)ctx->host->n_gpus, k = 0;
	const char *u = cd_probe_ctx_unmet(ctx, d->needs & (ctx->follower ? NEED_NCCL : NEED_GPU | NEED_NCCL));

	if (!u && ctx->follower) {
		const struct cd_cuda_api *cu = cd_dl_cuda(&u);

		n = 0;
		if (cu && cu->DeviceGetCount(&n) != CUDA_SUCCESS)
			u = "cuDeviceGetCount failed";
		else if (cu && n < 1)
			u = "the driver reports no GPU";
	}
	W.gpu = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*W.gpu));
	if (u) {
		snprintf(W.why, sizeof(W.why), "rank %d: %s%s", ctx->rank, strncmp(u, "needs", 5) ? "needs a GPU: " : "", u);
		return 0;
	}
	if (ctx->nranks < 2 || dd->local_size <= 1)
		while (k < n) {
			W.gpu[k] = k;
			k++;
		}
	else if (dd->local_rank < n)
		W.gpu[k++] = dd->local_rank;
	else
		snprintf(W.why, sizeof(W.why), "rank %d: no GPU left for local rank %d: the host has %d", ctx->rank,
			 dd->local_rank, n);
	return k;
}

/*
 * Under MPI every rank says how many GPUs it brings; all agree on the world (the NCCL
 * rank of each GPU follows from the counts) or all skip it, naming the rank that has none.
 * 0 when the world can be made, -1 when the run was recorded (skipped or timeout).
 */
static int plan_world(const struct cd_probe_def *d, struct cd_probe_ctx *ctx, double deadline)
{
	int *counts = xcalloc((size_t)W.procs, sizeof(*counts)), none = -1;
	struct cd_probe_run *run;

	W.g0 = W.total = 0;
	if (cd_dist_allgather_int(W.n, counts, deadline) < 0) {
		free(counts);
		snprintf(W.why, sizeof(W.why), "the ranks did not all reach nccl.init before the deadline");
		run = cd_probe_new_run(ctx, d, -1, -1);
		run->status = CD_ST_TIMEOUT;
		run->phase = xstrdup("plan");
		run->reason = xstrdup(W.why);
		return -1;
	}
	for (int k = 0; k < W.procs; k++) {
		if (k < ctx->rank)
			W.g0 += counts[k];
		W.total += counts[k];
		if (!counts[k] && none < 0)
			none = k;
	}
	free(counts);
	if (none < 0)
		return 0;
	/* one record per probe for the job, by the first rank without a GPU, in its own words */
	W.skipped = none == ctx->rank ? 1 : 2;
	if (W.skipped == 1)
		cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), W.why);
	return -1;
}

/* nccl.init: make the communicators; its one sample is the time that took. */
static void run_init(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	struct cd_probe_env env = { .device = -1, .peer = -1 };
	double budget = fmin(ctx->budget_s, ctx->end_s - cd_now_s());
	struct cd_probe_run *run;
	struct cd_probe_sample *s;
	int rc;

	world_free();
	env.deadline = cd_now_s() + (budget > 0 ? budget : 0);
	W.procs = ctx->nranks > 1 ? ctx->nranks : 1;
	W.n = local_gpus(d, ctx);
	W.total = W.n;
	if (W.procs > 1 && plan_world(d, ctx, env.deadline) < 0) {
		W.state = -1;
		return;
	}
	run = cd_probe_new_run(ctx, d, W.n == 1 && W.procs > 1 ? W.gpu[0] : -1, -1);
	run->nranks = W.total;
	env.nranks = W.total;
	/* across hosts, nccl-tests' habit: one algorithm, so busbw compares between runs and hosts */
	if (cd_dist_get()->n_hosts > 1 && !getenv("NCCL_ALGO")) {
		setenv("NCCL_ALGO", "Ring", 0);
		run->variant = xstrdup("NCCL_ALGO=Ring");
	}
	env.priv = (void *)ctx->nccl_lib;
	rc = world_init(&env, W.procs);
	env.priv = NULL;
	/* one rank's failed init leaves the others' communicators waiting: all stop together */
	if (W.procs > 1 && cd_dist_agree(rc == 0, env.deadline) != 1 && rc == 0) {
		world_abort();
		snprintf(env.why, sizeof(env.why), "another rank's communicators failed (its nccl.init says why): aborted");
		rc = -1;
	}
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
	s = cd_probe_add_sample(run);
	s->bytes = 0;
	s->iters = 1;
	s->time_us = s->min_time_us = s->max_time_us = W.init_us;
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
	struct coll_state cs = { .c = coll_of(d->name) };
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
		run = cd_probe_new_run(ctx, d, dev, -1);
		run->variant = xstrdup(cs.in_place ? "in_place" : "out_of_place");
		cd_probe_run_on(ctx, d, &p, &env, run);
		if (W.state == -2)
			snprintf(W.why, sizeof(W.why), "aborted after a timeout in %s", d->name);
	}
}

static void finish(void)
{
	world_free();
}

#define NCCL_DEF(nm, what, set, run_fn) { \
	.name = nm, .summary = what, .needs = NEED_GPU | NEED_NCCL, .sets = set, .min = "1M", .max = "256M", \
	.warmup = 5, .iters = 20, .run = run_fn, .finish = finish, .all_ranks = 1 }

const struct cd_probe_def cd_probe_nccl_init = NCCL_DEF("nccl.init",
	"time to create one communicator per local GPU (non-blocking, polled)", CD_SETS_ALL, run_init);
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
