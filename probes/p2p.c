/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU to GPU copies for every ordered pair: nvbandwidth's device_to_device copy
 * through the copy engines, with peer access enabled where the driver allows it.
 * Where it does not, the driver stages the copy through host memory; the pair is
 * still measured (discovery's paths.cuda_p2p says which pairs have peer access).
 * p2p.bw is nvbandwidth's device_to_device_memcpy_write_ce: copies queued behind a
 * held stream between events, the median of samples.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"
#include "util.h"

/*
 * The buffers, streams and contexts are gpu_common's, made once per GPU: the source is
 * GPU a's pattern buffer, the destination GPU b's receive buffer, the stream a's first.
 * Peer access is enabled once per direction; a GPU out of peer mappings (or refused) has
 * the pair staged through the host, still measured. p2p.bw times batches behind a held
 * stream with events (nvbandwidth); p2p.latency one copy at a time, launch included.
 */
#define P2P_BATCH 4

struct p2p_state {
	const struct cd_cuda_api *cu;
	struct cd_gpu_dev *g[2];    /* source, destination */
	struct cd_pinned *pin;      /* the data check's staging */
	int held;
	int aborted;
};

static int p2p_setup(struct cd_probe_env *env, size_t max)
{
	const char *why = NULL;
	const struct cd_cuda_api *cu = cd_dl_cuda(&why);
	struct p2p_state *st;
	int rc = -1;

	if (!cu)
		return cd_probe_fail(env, "%s", why);
	st = xcalloc(1, sizeof(*st));
	st->cu = cu;
	if ((st->g[1] = cd_gpu_get(env, env->peer)) && (st->pin = cd_gpu_pinned(env, env->device, max)) &&
	    (rc = cd_gpu_buffers(env, st->g[1], st->pin, max)) == 0 && (st->g[0] = cd_gpu_get(env, env->device)) &&
	    (rc = cd_gpu_buffers(env, st->g[0], st->pin, max)) == 0 && (rc = cd_gpu_peer(env, st->g[0], st->g[1])) >= 0) {
		cu->CtxSetCurrent(st->g[0]->ctx);
		env->priv = st;
		return 0;
	}
	if (rc == CD_PROBE_TIMEOUT) {
		cd_gpu_drop(env->device);
		cd_gpu_drop(env->peer);
	}
	free(st);
	return rc == CD_PROBE_TIMEOUT ? rc : -1;
}

static int p2p_begin(struct cd_probe_env *env)
{
	struct p2p_state *st = env->priv;
	CUresult r;

	st->held = cd_gpu_hold(st->g[0], 0) == 0;
	if (st->g[0]->ev[0][0] && (r = st->cu->EventRecord(st->g[0]->ev[0][0], st->g[0]->s[0])) != CUDA_SUCCESS) {
		if (st->held) /* nothing may stay held: the cache lends this stream to the next run */
			cd_gpu_release(st->g[0]);
		st->held = 0;
		return cd_gpu_fail(env, st->cu, r, "cuEventRecord");
	}
	return 0;
}

static int p2p_end(struct cd_probe_env *env)
{
	struct p2p_state *st = env->priv;
	CUresult r = CUDA_SUCCESS;

	if (st->g[0]->ev[0][1])
		r = st->cu->EventRecord(st->g[0]->ev[0][1], st->g[0]->s[0]);
	if (st->held)
		cd_gpu_release(st->g[0]);
	st->held = 0;
	return r == CUDA_SUCCESS ? 0 : cd_gpu_fail(env, st->cu, r, "cuEventRecord");
}

static int p2p_op_us(struct cd_probe_env *env, double *us)
{
	struct p2p_state *st = env->priv;
	double ms = cd_gpu_event_ms(st->g[0], 0);

	if (ms < 0)
		return -1;
	*us = ms * 1e3 / P2P_BATCH;
	return 0;
}

static int p2p_start(struct cd_probe_env *env, size_t bytes)
{
	struct p2p_state *st = env->priv;
	CUresult r = st->cu->MemcpyPeerAsync(st->g[1]->b, st->g[1]->ctx, st->g[0]->a, st->g[0]->ctx, bytes,
					     st->g[0]->s[0]);

	return r == CUDA_SUCCESS ? 0 : cd_gpu_fail(env, st->cu, r, "cuMemcpyPeerAsync");
}

static int p2p_poll(struct cd_probe_env *env)
{
	struct p2p_state *st = env->priv;

	return cd_gpu_stream_poll(env, st->cu, st->g[0]->s[0]);
}

static void p2p_abort(struct cd_probe_env *env)
{
	struct p2p_state *st = env->priv;

	if (st->held)
		cd_gpu_release(st->g[0]);
	st->held = 0;
	st->aborted = 1;
}

static int64_t p2p_check(struct cd_probe_env *env, size_t bytes)
{
	struct p2p_state *st = env->priv;
	int timed_out;
	int64_t w = cd_gpu_check_device(env, st->cu, st->g[0]->s[0], st->pin->dst, st->g[1]->b, bytes, CD_GPU_SEED,
					&timed_out);

	if (w < 0)
		st->aborted = timed_out;
	return w;
}

static void p2p_teardown(struct cd_probe_env *env)
{
	struct p2p_state *st = env->priv;

	if (st && st->aborted) {
		cd_gpu_drop(env->device);
		cd_gpu_drop(env->peer);
	}
	free(st);
	env->priv = NULL;
}

static const struct cd_probe p_p2p_lat = {
	.name = "p2p", .setup = p2p_setup, .start = p2p_start, .poll = p2p_poll, .abort = p2p_abort,
	.check = p2p_check, .teardown = p2p_teardown, .phase = "copy",
};
static const struct cd_probe p_p2p_bw = {
	.name = "p2p", .setup = p2p_setup, .start = p2p_start, .poll = p2p_poll, .abort = p2p_abort,
	.check = p2p_check, .teardown = p2p_teardown, .batch = P2P_BATCH, .begin = p2p_begin, .end = p2p_end,
	.op_us = p2p_op_us, .phase = "copy",
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
			cd_gpu_numa_hint(a, (int)ctx->host->gpus[i].numa);
			cd_probe_run_on(ctx, d, strcmp(d->name, "p2p.latency") ? &p_p2p_bw : &p_p2p_lat, &env,
					cd_probe_new_run(ctx, d, a, b));
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
	.finish = cd_gpu_cache_free,
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
	.finish = cd_gpu_cache_free,
};
