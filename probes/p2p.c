/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU to GPU copies for every ordered pair: nvbandwidth's device_to_device copy
 * through the copy engines, with peer access enabled where the driver allows it.
 * Where it does not, the driver stages the copy through host memory; the pair is
 * still measured (discovery's paths.cuda_p2p says which pairs have peer access).
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"
#include "util.h"

#define SEED 0x5eed0002u

struct p2p_state {
	const struct cd_cuda_api *cu;
	CUdevice dev[2];
	CUcontext ctx[2];
	int retained[2];
	CUstream s;                 /* on the source GPU */
	CUdeviceptr src, dst;
	void *host;                 /* pinned staging for the data check */
	int aborted;
};

static void p2p_release(struct p2p_state *st)
{
	const struct cd_cuda_api *cu = st->cu;

	if (!st->aborted) {
		if (st->s)
			cu->StreamDestroy(st->s);
		if (st->src)
			cu->MemFree(st->src);
		if (st->dst)
			cu->MemFree(st->dst);
		if (st->host)
			cu->MemFreeHost(st->host);
		for (int i = 0; i < 2; i++)
			if (st->retained[i])
				cu->DevicePrimaryCtxRelease(st->dev[i]);
	}
	free(st);
}

/* Allocate on dev[k] with its context current. */
static int alloc_on(struct cd_probe_env *env, struct p2p_state *st, int k, CUdeviceptr *p, size_t bytes)
{
	CUresult r;

	if ((r = st->cu->CtxSetCurrent(st->ctx[k])) != CUDA_SUCCESS)
		return cd_gpu_fail(env, st->cu, r, "cuCtxSetCurrent");
	if ((r = st->cu->MemAlloc(p, bytes)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, st->cu, r, "cuMemAlloc");
	return 0;
}

static int p2p_setup_inner(struct cd_probe_env *env, struct p2p_state *st, size_t max)
{
	const struct cd_cuda_api *cu = st->cu;
	int can = 0, rc;
	CUresult r;

	if (cd_gpu_ctx_enter(env, cu, env->peer, &st->dev[1], &st->ctx[1]) < 0)
		return -1;
	st->retained[1] = 1;
	if (cd_gpu_ctx_enter(env, cu, env->device, &st->dev[0], &st->ctx[0]) < 0)
		return -1;
	st->retained[0] = 1;
	/* from the source context, map the peer's memory; already enabled by an earlier pair is fine */
	if (cu->DeviceCanAccessPeer(&can, st->dev[0], st->dev[1]) == CUDA_SUCCESS && can) {
		r = cu->CtxEnablePeerAccess(st->ctx[1], 0);
		if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
			return cd_gpu_fail(env, cu, r, "cuCtxEnablePeerAccess");
	}
	if (alloc_on(env, st, 1, &st->dst, max) < 0 || alloc_on(env, st, 0, &st->src, max) < 0)
		return -1;
	if ((r = cu->MemHostAlloc(&st->host, max, 0)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemHostAlloc (pinned host memory)");
	if ((r = cu->StreamCreate(&st->s, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuStreamCreate");
	cd_gpu_fill(st->host, max, SEED);
	if ((r = cu->MemcpyHtoDAsync(st->src, st->host, max, st->s)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemcpyHtoDAsync");
	rc = cd_gpu_stream_wait(env, cu, st->s);
	st->aborted = rc == CD_PROBE_TIMEOUT;
	return rc;
}

static int p2p_setup(struct cd_probe_env *env, size_t max)
{
	const char *why = NULL;
	const struct cd_cuda_api *cu = cd_dl_cuda(&why);
	struct p2p_state *st;
	int rc;

	if (!cu)
		return cd_probe_fail(env, "%s", why);
	st = xcalloc(1, sizeof(*st));
	st->cu = cu;
	rc = p2p_setup_inner(env, st, max);
	if (rc < 0) {
		p2p_release(st);
		return rc;
	}
	env->priv = st;
	return 0;
}

static int p2p_start(struct cd_probe_env *env, size_t bytes)
{
	struct p2p_state *st = env->priv;
	CUresult r = st->cu->MemcpyPeerAsync(st->dst, st->ctx[1], st->src, st->ctx[0], bytes, st->s);

	return r == CUDA_SUCCESS ? 0 : cd_gpu_fail(env, st->cu, r, "cuMemcpyPeerAsync");
}

static int p2p_poll(struct cd_probe_env *env)
{
	struct p2p_state *st = env->priv;

	return cd_gpu_stream_poll(env, st->cu, st->s);
}

static void p2p_abort(struct cd_probe_env *env)
{
	((struct p2p_state *)env->priv)->aborted = 1;
}

static int64_t p2p_check(struct cd_probe_env *env, size_t bytes)
{
	struct p2p_state *st = env->priv;
	CUresult r;
	int rc;

	memset(st->host, 0, bytes);
	if ((r = st->cu->MemcpyDtoHAsync(st->host, st->dst, bytes, st->s)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, st->cu, r, "cuMemcpyDtoHAsync (data check)");
	rc = cd_gpu_stream_wait(env, st->cu, st->s);
	if (rc < 0) {
		st->aborted = rc == CD_PROBE_TIMEOUT;
		return -1;
	}
	return cd_gpu_count_wrong(st->host, bytes, SEED);
}

static void p2p_teardown(struct cd_probe_env *env)
{
	if (env->priv)
		p2p_release(env->priv);
	env->priv = NULL;
}

static const struct cd_probe p_p2p = {
	.name = "p2p", .setup = p2p_setup, .start = p2p_start, .poll = p2p_poll, .abort = p2p_abort,
	.check = p2p_check, .teardown = p2p_teardown, .phase = "copy",
};

static void run_p2p(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	size_t n = ctx->host->n_gpus;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			int a = (int)ctx->host->gpus[i].index, b = (int)ctx->host->gpus[j].index;
			struct cd_probe_env env = { .device = a, .peer = b, .rank = ctx->rank, .nranks = 1 };

			if (i == j)
				continue;
			cd_probe_run_on(ctx, d, &p_p2p, &env, cd_probe_new_run(ctx, d, a, b));
		}
	}
}

const struct cd_probe_def cd_probe_p2p_bw = {
	.name = "p2p.bw",
	.summary = "GPU to GPU copy bandwidth for every ordered pair (peer access where possible)",
	.needs = NEED_GPU2,
	.sets = CD_SET_DEFAULT | CD_SET_FULL,
	.min = "256M",
	.max = "256M",
	.warmup = 2,
	.iters = 10,
	.run = run_p2p,
};
const struct cd_probe_def cd_probe_p2p_latency = {
	.name = "p2p.latency",
	.summary = "time of a small GPU to GPU copy for every ordered pair (copy engine, launch included)",
	.needs = NEED_GPU2,
	.sets = CD_SET_DEFAULT | CD_SET_FULL,
	.min = "8",
	.max = "8",
	.warmup = 10,
	.iters = 100,
	.run = run_p2p,
};
