/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NCCL world of the nccl.* probes (nccl_world.h): made once by nccl.init and shared
 * by the collectives of the run (nccl.c); nccl.pairs makes one per pair.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"
#include "measure.h"
#include "nccl_world.h"
#include "util.h"

int nccl_fail(const struct world *w, struct cd_probe_env *env, ncclResult_t r, const char *what)
{
	const char *last = w->nc->GetLastError ? w->nc->GetLastError(NULL) : NULL;

	return cd_probe_fail(env, "%s: %s%s%s", what, w->nc->GetErrorString(r), last && *last ? ": " : "",
			     last ? last : "");
}

/* An abort returns at once whatever the communicator waits for: the twins, then their parents. */
void world_abort(struct world *w)
{
	graph_free(w, 0);
	for (int i = 0; i < w->n; i++)
		if (w->timed && w->timed[i])
			w->nc->CommAbort(w->timed[i]);
	for (int i = 0; i < w->n; i++)
		if (w->comm && w->comm[i])
			w->nc->CommAbort(w->comm[i]);
	w->state = -2;
}

/* Poll every communicator until none is in progress: 1 done, 0 running, -1 failed. */
int comms_poll(struct world *w, struct cd_probe_env *env)
{
	int running = 0;

	for (int i = 0; i < w->n; i++) {
		ncclResult_t st = ncclSuccess, r = w->nc->CommGetAsyncError(comm_of(w, i), &st);

		if (r == ncclSuccess && st == ncclInProgress)
			running = 1;
		else if (r != ncclSuccess || st != ncclSuccess) {
			nccl_fail(w, env, r != ncclSuccess ? r : st,
				  r != ncclSuccess ? "ncclCommGetAsyncError" : "communicator error");
			/* NCCL's rule after an asynchronous error, and the only way to free a kernel
			   still waiting on a peer: destroying instead could block */
			world_abort(w);
			return -1;
		}
	}
	return !running;
}

int wait_comms(struct world *w, struct cd_probe_env *env)
{
	const struct timespec nap = { 0, 50000 };

	for (;;) {
		int r = comms_poll(w, env);

		if (r)
			return r > 0 ? 0 : -1;
		/* a signal or --timeout stops the wait as the deadline does: the caller aborts */
		if (cd_stop || cd_now_s() >= env->deadline)
			return CD_PROBE_TIMEOUT;
		nanosleep(&nap, NULL);
	}
}

/* Everything but the communicators: the libraries, a context and a stream per local GPU. */
int world_open(struct world *w, struct cd_probe_env *env, const char *nccl_lib)
{
	const char *why = NULL;
	int n = w->n;

	w->cu = cd_dl_cuda(&why);
	if (!w->cu)
		return cd_probe_fail(env, "%s", why);
	w->nc = cd_dl_nccl(nccl_lib, &why);
	if (!w->nc)
		return cd_probe_fail(env, "%s", why);
	w->dev = xcalloc((size_t)n, sizeof(*w->dev));
	w->ctx = xcalloc((size_t)n, sizeof(*w->ctx));
	w->comm = xcalloc((size_t)n, sizeof(*w->comm));
	w->s = xcalloc((size_t)n, sizeof(*w->s));
	w->send = xcalloc((size_t)n, sizeof(*w->send));
	w->recv = xcalloc((size_t)n, sizeof(*w->recv));
	for (int i = 0; i < n; i++) {
		CUresult cr;

		env->device = w->gpu[i];
		if (cd_gpu_ctx_enter(env, w->cu, w->gpu[i], &w->dev[i], &w->ctx[i]) < 0)
			return -1;
		if ((cr = w->cu->StreamCreate(&w->s[i], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
			return cd_gpu_fail(env, w->cu, cr, "cuStreamCreate");
	}
	/* without events a sample is timed with the clock, as nccl-tests does */
	w->cu->CtxSetCurrent(w->ctx[0]);
	for (int e = 0; e < 2 && w->cu->EventCreate && w->cu->EventRecord && w->cu->EventElapsedTime; e++)
		if (w->cu->EventCreate(&w->ev[e], CU_EVENT_DEFAULT) != CUDA_SUCCESS)
			w->ev[e] = NULL;
	env->device = -1;
	return 0;
}

/* The communicators of the world id names: one per local GPU, non-blocking, within the deadline. */
int world_connect(struct world *w, struct cd_probe_env *env, const ncclUniqueId *id)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclResult_t r;
	double t0;
	int rc;

	cfg.blocking = 0;
	t0 = cd_now_s();
	if ((r = w->nc->GroupStart()) != ncclSuccess)
		return nccl_fail(w, env, r, "ncclGroupStart");
	for (int i = 0; i < w->n; i++) {
		w->cu->CtxSetCurrent(w->ctx[i]);
		r = w->nc->CommInitRankConfig(&w->comm[i], w->total, *id, w->g0 + i, &cfg);
		if (r != ncclSuccess && r != ncclInProgress) {
			w->nc->GroupEnd();
			nccl_fail(w, env, r, "ncclCommInitRankConfig");
			world_abort(w); /* the others may still be initialising: an abort stops them */
			return -1;
		}
	}
	r = w->nc->GroupEnd();
	if (r != ncclSuccess && r != ncclInProgress) {
		nccl_fail(w, env, r, "ncclGroupEnd (init)");
		world_abort(w);
		return -1;
	}
	rc = wait_comms(w, env);
	if (rc == CD_PROBE_TIMEOUT) {
		world_abort(w);
		return cd_probe_fail(env, "communicators of %d GPUs not ready before the deadline: aborted", w->total),
		       CD_PROBE_TIMEOUT;
	}
	if (rc < 0)
		return -1;
	w->init_us = (cd_now_s() - t0) * 1e6;
	return 0;
}

/* The job's world: rank 0's unique id goes to every rank by MPI. */
int world_init(struct world *w, struct cd_probe_env *env, const char *nccl_lib)
{
	ncclUniqueId id;
	ncclResult_t r;

	if (world_open(w, env, nccl_lib) < 0)
		return -1;
	memset(&id, 0, sizeof(id));
	if (w->g0 == 0 && (r = w->nc->GetUniqueId(&id)) != ncclSuccess)
		return nccl_fail(w, env, r, "ncclGetUniqueId");
	if (w->procs > 1 && cd_dist_bcast_blob(&id, env->deadline) < 0)
		return cd_probe_fail(env, "the NCCL unique id did not come from rank 0 before the deadline"),
		       CD_PROBE_TIMEOUT;
	return world_connect(w, env, &id);
}

/*
 * Minimum of ok over the world's processes, to start something together: the pair's two
 * (one exchange), or every rank of the job. 1 or 0, -1 when no answer came in time.
 */
int world_agree(struct world *w, int ok, double deadline)
{
	int32_t mine = ok, theirs = 0;

	if (w->peer < 0)
		return w->procs > 1 ? cd_dist_agree(ok, deadline) : ok;
	if (cd_dist_pair_exchange(w->peer, w->tag, &mine, &theirs, sizeof(mine), deadline) < 0)
		return -1;
	return mine && theirs;
}

/* GPU i's send and receive buffers, in its context (current). */
static void buffers_free(struct world *w, int i)
{
	if (w->send[i])
		w->cu->MemFree(w->send[i]);
	if (w->recv[i])
		w->cu->MemFree(w->recv[i]);
	w->send[i] = w->recv[i] = 0;
}

void world_free(struct world *w)
{
	int peer = w->peer;

	graph_free(w, w->state == 1);
	if (w->state == 1) {
		/* as nccl-tests: every communicator first, so none is left using a buffer being freed */
		for (int i = 0; i < w->n; i++) {
			w->cu->CtxSetCurrent(w->ctx[i]);
			if (w->timed && w->timed[i])
				w->nc->CommDestroy(w->timed[i]);
		}
		for (int i = 0; i < w->n; i++) {
			w->cu->CtxSetCurrent(w->ctx[i]);
			if (w->comm[i])
				w->nc->CommDestroy(w->comm[i]);
		}
		w->cu->CtxSetCurrent(w->ctx[0]);
		for (int e = 0; e < 2; e++)
			if (w->ev[e] && w->cu->EventDestroy)
				w->cu->EventDestroy(w->ev[e]);
		for (int i = 0; i < w->n; i++) {
			w->cu->CtxSetCurrent(w->ctx[i]);
			buffers_free(w, i);
			if (w->s[i])
				w->cu->StreamDestroy(w->s[i]);
			w->cu->DevicePrimaryCtxRelease(w->dev[i]);
		}
		if (w->host)
			w->cu->MemFreeHost(w->host);
	}
	/* failed or aborted: the GPUs may still hold our work; leak rather than block */
	free(w->gpu);
	free(w->dev);
	free(w->ctx);
	free(w->comm);
	free(w->timed);
	free(w->s);
	free(w->send);
	free(w->recv);
	memset(w, 0, sizeof(*w));
	w->peer = peer;
}

/* Buffers of at least bytes on every GPU (grown between probes, never shrunk). */
int world_buffers(struct world *w, struct cd_probe_env *env, size_t bytes)
{
	CUresult r;

	if (bytes <= w->cap)
		return 0;
	for (int i = 0; i < w->n; i++) {
		w->cu->CtxSetCurrent(w->ctx[i]);
		buffers_free(w, i);
		if ((r = w->cu->MemAlloc(&w->send[i], bytes)) != CUDA_SUCCESS ||
		    (r = w->cu->MemAlloc(&w->recv[i], bytes)) != CUDA_SUCCESS)
			return cd_gpu_fail(env, w->cu, r, "cuMemAlloc");
	}
	if (w->host)
		w->cu->MemFreeHost(w->host);
	w->host = NULL;
	if ((r = w->cu->MemHostAlloc(&w->host, bytes, 0)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, w->cu, r, "cuMemHostAlloc (pinned host memory)");
	w->cap = bytes;
	return 0;
}

/*
 * One all_reduce of 4 floats on the non-blocking communicators, waited for within the
 * deadline (aborted past it): it completes only when every rank of the world took part.
 */
static int world_warm(struct world *w, struct cd_probe_env *env)
{
	const struct timespec nap = { 0, 50000 };
	ncclResult_t r;
	int rc;

	if (world_buffers(w, env, 4 * sizeof(float)) < 0)
		return -1;
	if ((r = w->nc->GroupStart()) != ncclSuccess)
		return nccl_fail(w, env, r, "ncclGroupStart (warm-up)");
	for (int i = 0; i < w->n && (r == ncclSuccess || r == ncclInProgress); i++) {
		w->cu->CtxSetCurrent(w->ctx[i]);
		r = w->nc->AllReduce((void *)w->send[i], (void *)w->recv[i], 4, ncclFloat, ncclSum, w->comm[i],
				     (cudaStream_t)w->s[i]);
	}
	if (r != ncclSuccess && r != ncclInProgress) {
		w->nc->GroupEnd();
		nccl_fail(w, env, r, "warm-up all_reduce");
		world_abort(w);
		return -1;
	}
	r = w->nc->GroupEnd();
	if (r != ncclSuccess && r != ncclInProgress) {
		nccl_fail(w, env, r, "ncclGroupEnd (warm-up)");
		world_abort(w);
		return -1;
	}
	for (;;) {
		rc = comms_poll(w, env);
		for (int i = 0; rc > 0 && i < w->n; i++)
			rc = cd_gpu_stream_poll(env, w->cu, w->s[i]);
		if (rc < 0)
			break;
		/* done late is late too: a launch that blocked past the deadline leaves no time to split */
		if (cd_stop || cd_now_s() >= env->deadline) {
			world_abort(w);
			return cd_probe_fail(env, "the warm-up all_reduce of %d GPUs did not finish before the "
					     "deadline: aborted", w->total), CD_PROBE_TIMEOUT;
		}
		if (rc > 0)
			break;
		nanosleep(&nap, NULL);
	}
	if (rc < 0 && w->state != -2)
		world_abort(w); /* a stream error may leave a kernel waiting on a peer: only an abort frees it */
	return rc < 0 ? -1 : 0;
}

/*
 * Poll comms[0..n) until none is in progress: ncclSuccess, the first error, or
 * ncclInProgress when the deadline came first.
 */
static ncclResult_t comms_settle(struct world *w, ncclComm_t *comms, struct cd_probe_env *env)
{
	const struct timespec nap = { 0, 50000 };
	ncclResult_t r = ncclSuccess;

	for (int i = 0; i < w->n && r == ncclSuccess;) {
		ncclResult_t st = ncclSuccess;

		if ((r = w->nc->CommGetAsyncError(comms[i], &st)) == ncclSuccess)
			r = st;
		if (r == ncclSuccess) {
			i++;
		} else if (r == ncclInProgress) {
			if (cd_stop || cd_now_s() >= env->deadline)
				break;
			nanosleep(&nap, NULL);
			r = ncclSuccess; /* this one again */
		}
	}
	return r;
}

/*
 * The blocking twin of every communicator (nccl-tests' default config) for the
 * collectives, by ncclCommSplit. A blocking split cannot be aborted: it is made only once
 * the warm-up showed every rank there and every rank says it can split, and is kept only
 * if every rank's succeeded. Otherwise the collectives stay on the non-blocking
 * communicators, and w->method says why. 0, or CD_PROBE_TIMEOUT when the split outlived
 * the deadline (the world is aborted, env->why says so).
 */
static int world_split(struct world *w, struct cd_probe_env *env)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	ncclResult_t r = ncclSuccess;
	const char *why = NULL;
	char err[160] = "";
	int ok = w->nc->CommSplit != NULL, all = world_agree(w, ok, env->deadline); /* every rank asks */

	if (!ok)
		why = "this NCCL has no ncclCommSplit (2.18 and later have it)";
	else if (all != 1)
		why = "not every rank could split its communicators";
	if (!why) {
		cfg.blocking = 1;
		w->timed = xcalloc((size_t)w->n, sizeof(*w->timed));
		r = w->nc->GroupStart();
		for (int i = 0; i < w->n && r == ncclSuccess; i++) {
			w->cu->CtxSetCurrent(w->ctx[i]);
			r = w->nc->CommSplit(w->comm[i], 0, w->g0 + i, &w->timed[i], &cfg);
		}
		if (r == ncclSuccess)
			r = w->nc->GroupEnd();
		else
			w->nc->GroupEnd();
		/*
		 * The parents are non-blocking, so NCCL runs the split in its group thread: each
		 * parent says in progress until it is done, and NCCL writes the twins' handles only
		 * then (init.cc of 2.28: "*newcomm should be NCCL_COMM_NULL until comm split fully
		 * complete"). Poll the parents, then the twins.
		 */
		if (r == ncclInProgress && (r = comms_settle(w, w->comm, env)) == ncclInProgress) {
			/* still running: NCCL will write into w->timed, so it is left allocated, and only an
			   abort of the parents ends the split */
			w->timed = NULL;
			world_abort(w);
			return cd_probe_fail(env, "ncclCommSplit of %d GPUs did not finish before the deadline: "
					     "aborted", w->total), CD_PROBE_TIMEOUT;
		}
		for (int i = 0; i < w->n && r == ncclSuccess; i++)
			if (!w->timed[i]) {
				r = ncclInternalError;
				why = "ncclCommSplit returned without a communicator";
			}
		if (r == ncclSuccess && (r = comms_settle(w, w->timed, env)) == ncclInProgress)
			why = "the blocking twins were not ready before the deadline";
		if (r != ncclSuccess && !why) {
			const char *last = w->nc->GetLastError ? w->nc->GetLastError(NULL) : NULL;

			snprintf(err, sizeof(err), "ncclCommSplit: %s%s%s", w->nc->GetErrorString(r),
				 last && *last ? ": " : "", last && *last ? last : "");
			why = err;
		}
		if (world_agree(w, !why, env->deadline) != 1 && !why)
			why = "another rank's ncclCommSplit failed";
		if (why) {
			for (int i = 0; i < w->n; i++)
				if (w->timed[i])
					w->nc->CommAbort(w->timed[i]);
			free(w->timed);
			w->timed = NULL;
		}
	}
	if (why)
		snprintf(w->method, sizeof(w->method), "collectives timed on the non-blocking communicators, "
			 "whose every launch costs NCCL a thread: host-bound where a collective takes less on the "
			 "GPUs; %s", why);
	w->cu->CtxSetCurrent(w->ctx[0]);
	return 0;
}

/* Warm-up, then the timed communicators; 0, or -1 / CD_PROBE_TIMEOUT (aborted) with env->why. */
int world_ready(struct world *w, struct cd_probe_env *env)
{
	int rc = world_warm(w, env), agreed = world_agree(w, rc == 0, env->deadline);

	if (agreed != 1 && rc == 0) {
		world_abort(w);
		rc = cd_probe_fail(env, agreed < 0 ? "another rank did not say before the deadline whether its "
				   "warm-up finished: aborted" : "another rank's warm-up failed: aborted");
		if (agreed < 0)
			rc = CD_PROBE_TIMEOUT;
	}
	if (rc == 0)
		rc = world_split(w, env);
	return rc;
}


/* Free (or, after an abort, forget: the GPUs may still run them) the current graphs. */
void graph_free(struct world *w, int destroy)
{
	for (int k = 0; k < COLL_GRAPH_SETS; k++)
		if (w->graphs[k].exec)
			cd_gpu_graphs_free(&w->graphs[k], w->cu, w->ctx, destroy);
	w->gset = 0;
	if (w->graph > 0)
		w->graph = 0;
}

/*
 * The GPUs this process drives: every GPU of its host when it is alone there (one rank
 * per host, or no MPI), else the one its local rank names; none (and why, in w->why) when
 * its driver or NCCL is missing or the host has fewer GPUs than ranks. A host's other
 * ranks did not discover it (its first rank did): they ask the driver how many GPUs it has.
 */
int local_gpus(struct world *w, const struct cd_probe_def *d, const struct cd_probe_ctx *ctx)
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
	w->gpu = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*w->gpu));
	if (u) {
		snprintf(w->why, sizeof(w->why), "rank %d: %s%s", ctx->rank, strncmp(u, "needs", 5) ? "needs a GPU: " : "", u);
		return 0;
	}
	if (ctx->nranks < 2 || dd->local_size <= 1)
		while (k < n) {
			w->gpu[k] = k;
			k++;
		}
	else if (n == 1)
		w->gpu[k++] = 0; /* srun --gpus-per-task=1 or CUDA_VISIBLE_DEVICES per rank: its own GPU */
	else if (dd->local_rank < n)
		w->gpu[k++] = dd->local_rank;
	else
		snprintf(w->why, sizeof(w->why), "rank %d: no GPU left for local rank %d: the host has %d", ctx->rank,
			 dd->local_rank, n);
	return k;
}

/*
 * Under MPI every rank says how many GPUs it brings; all agree on the world (the NCCL
 * rank of each GPU follows from the counts) or all skip it, naming the rank that has none.
 * 0 when the world can be made, -1 when the run was recorded (skipped or timeout).
 */
int plan_world(struct world *w, const struct cd_probe_def *d, struct cd_probe_ctx *ctx, double deadline)
{
	int *counts = xcalloc((size_t)w->procs, sizeof(*counts)), none = -1;
	struct cd_probe_run *run;

	w->g0 = w->total = 0;
	if (cd_dist_allgather_int(w->n, counts, deadline) < 0) {
		free(counts);
		snprintf(w->why, sizeof(w->why), "the ranks did not all reach %s before the deadline", d->name);
		run = cd_probe_new_run(ctx, d, -1, -1);
		cd_probe_set_status(run, CD_ST_TIMEOUT, "plan", w->why);
		return -1;
	}
	for (int k = 0; k < w->procs; k++) {
		if (k < ctx->rank)
			w->g0 += counts[k];
		w->total += counts[k];
		if (!counts[k] && none < 0)
			none = k;
	}
	free(counts);
	if (none < 0)
		return 0;
	/* one record per probe for the job, by the first rank without a GPU, in its own words */
	w->skipped = none == ctx->rank ? 1 : 2;
	if (w->skipped == 1)
		cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), w->why);
	return -1;
}
