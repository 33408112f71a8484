/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Copies between pinned host memory and a GPU, and within a GPU: nvbandwidth's
 * host_to_device / device_to_host / device_local_copy and the bidirectional case,
 * through the copy engines (cuMemcpy*Async on a stream that is polled).
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"
#include "util.h"

enum copy_kind { COPY_H2D, COPY_D2H, COPY_D2D, COPY_BIDIR };

/*
 * nvbandwidth's method: the copies of a sample are queued on a stream held by
 * cuStreamWaitValue32, between two events, then released; the sample is the events'
 * time / copies. Contexts, streams, events and buffers come from gpu_common's cache,
 * made once per GPU (pinned memory once per NUMA node, on that node).
 */
#define COPY_BATCH 4

struct copy_state {
	const struct cd_cuda_api *cu;
	enum copy_kind kind;
	int measured;               /* the stream timed: 0 (h2d, d2h, d2d, bidir's h2d) or 1 (bidir's d2h) */
	struct cd_gpu_dev *g;
	struct cd_pinned *pin;
	int held[2];
	int aborted;
};

#define SEED CD_GPU_SEED

static int copy_setup_kind(struct cd_probe_env *env, size_t max, enum copy_kind kind, int measured)
{
	const char *why = NULL;
	const struct cd_cuda_api *cu = cd_dl_cuda(&why);
	struct copy_state *st;
	int rc;

	if (!cu)
		return cd_probe_fail(env, "%s", why);
	st = xcalloc(1, sizeof(*st));
	st->cu = cu;
	st->kind = kind;
	st->measured = measured;
	if (!(st->g = cd_gpu_get(env, env->device)) || !(st->pin = cd_gpu_pinned(env, env->device, max))) {
		free(st);
		return -1;
	}
	rc = cd_gpu_buffers(env, st->g, st->pin, max);
	if (rc < 0) {
		if (rc == CD_PROBE_TIMEOUT)
			cd_gpu_drop(env->device);
		free(st);
		return rc;
	}
	env->priv = st;
	return 0;
}

static int setup_h2d(struct cd_probe_env *env, size_t max) { return copy_setup_kind(env, max, COPY_H2D, 0); }
static int setup_d2h(struct cd_probe_env *env, size_t max) { return copy_setup_kind(env, max, COPY_D2H, 0); }
static int setup_d2d(struct cd_probe_env *env, size_t max) { return copy_setup_kind(env, max, COPY_D2D, 0); }
static int setup_bidir_h2d(struct cd_probe_env *env, size_t max) { return copy_setup_kind(env, max, COPY_BIDIR, 0); }
static int setup_bidir_d2h(struct cd_probe_env *env, size_t max) { return copy_setup_kind(env, max, COPY_BIDIR, 1); }

static int streams_of(const struct copy_state *st)
{
	return st->kind == COPY_BIDIR ? 2 : 1;
}

static void copy_abort(struct cd_probe_env *env);

/* Hold the streams and stamp the start: what is queued next runs together on release. */
static int copy_begin(struct cd_probe_env *env)
{
	struct copy_state *st = env->priv;
	CUresult r;

	for (int k = 0; k < streams_of(st); k++) {
		st->held[k] = cd_gpu_hold(st->g, k) == 0;
		if (st->g->ev[k][0] && (r = st->cu->EventRecord(st->g->ev[k][0], st->g->s[k])) != CUDA_SUCCESS) {
			copy_abort(env); /* nothing may stay held: the cache lends these streams to the next run */
			st->aborted = 0;
			return cd_gpu_fail(env, st->cu, r, "cuEventRecord");
		}
	}
	return 0;
}

static int copy_end(struct cd_probe_env *env)
{
	struct copy_state *st = env->priv;
	CUresult r = CUDA_SUCCESS;

	for (int k = 0; k < streams_of(st) && r == CUDA_SUCCESS; k++)
		if (st->g->ev[k][1])
			r = st->cu->EventRecord(st->g->ev[k][1], st->g->s[k]);
	if (st->held[0] || st->held[1])
		cd_gpu_release(st->g);
	st->held[0] = st->held[1] = 0;
	return r == CUDA_SUCCESS ? 0 : cd_gpu_fail(env, st->cu, r, "cuEventRecord");
}

static int copy_op_us(struct cd_probe_env *env, double *us)
{
	struct copy_state *st = env->priv;
	double ms = cd_gpu_event_ms(st->g, st->measured);

	if (ms < 0)
		return -1;
	*us = ms * 1e3 / COPY_BATCH;
	return 0;
}

static int copy_start(struct cd_probe_env *env, size_t bytes)
{
	struct copy_state *st = env->priv;
	const struct cd_cuda_api *cu = st->cu;
	struct cd_gpu_dev *g = st->g;
	CUresult r = CUDA_SUCCESS;

	switch (st->kind) {
	case COPY_H2D:
		r = cu->MemcpyHtoDAsync(g->b, st->pin->src, bytes, g->s[0]);
		break;
	case COPY_D2H:
		r = cu->MemcpyDtoHAsync(st->pin->dst, g->a, bytes, g->s[0]);
		break;
	case COPY_D2D:
		r = cu->MemcpyDtoDAsync(g->b, g->a, bytes, g->s[0]);
		break;
	case COPY_BIDIR:
		/* both directions every time; the measured one's events time it, the other interferes */
		r = cu->MemcpyHtoDAsync(g->b, st->pin->src, bytes, g->s[0]);
		if (r == CUDA_SUCCESS)
			r = cu->MemcpyDtoHAsync(st->pin->dst, g->a, bytes, g->s[1]);
		break;
	}
	return r == CUDA_SUCCESS ? 0 : cd_gpu_fail(env, cu, r, "cuMemcpy*Async");
}

static int copy_poll(struct cd_probe_env *env)
{
	struct copy_state *st = env->priv;
	int r = cd_gpu_stream_poll(env, st->cu, st->g->s[0]);

	if (r > 0 && st->kind == COPY_BIDIR)
		r = cd_gpu_stream_poll(env, st->cu, st->g->s[1]);
	return r;
}

static void copy_abort(struct cd_probe_env *env)
{
	struct copy_state *st = env->priv;

	/* a held stream must not stay held: the GPU could never finish */
	if (st->held[0] || st->held[1])
		cd_gpu_release(st->g);
	st->held[0] = st->held[1] = 0;
	st->aborted = 1;
}

/* Bring device buffer b (or the check's windows of it) back to the host, outside the timed loop, and count wrong words. */
static int64_t check_device_b(struct cd_probe_env *env, struct copy_state *st, size_t bytes)
{
	int timed_out;
	int64_t w = cd_gpu_check_device(env, st->cu, st->g->s[0], st->pin->dst, st->g->b, bytes, SEED, &timed_out);

	if (w < 0)
		st->aborted = timed_out;
	return w;
}

static int64_t copy_check(struct cd_probe_env *env, size_t bytes)
{
	struct copy_state *st = env->priv;
	int64_t wrong = 0;

	int64_t w;

	/* what came to the host is there already: every element of it is compared */
	if (st->kind == COPY_D2H || st->kind == COPY_BIDIR)
		wrong = cd_gpu_count_wrong(st->pin->dst, bytes, SEED);
	if (st->kind == COPY_D2H)
		return wrong;
	/* what went to the device (H2D, D2D, and the other half of BIDIR) */
	w = check_device_b(env, st, bytes);
	return w < 0 ? -1 : wrong + w;
}

static void copy_teardown(struct cd_probe_env *env)
{
	struct copy_state *st = env->priv;

	/* after an abort the GPU may still be busy with the cached buffers: forget them, never free */
	if (st && st->aborted)
		cd_gpu_drop(env->device);
	free(st);
	env->priv = NULL;
}

#define COPY_PROBE(nm, setup_fn) \
	{ .name = nm, .setup = setup_fn, .start = copy_start, .poll = copy_poll, .abort = copy_abort, \
	  .check = copy_check, .teardown = copy_teardown, .batch = COPY_BATCH, .begin = copy_begin, \
	  .end = copy_end, .op_us = copy_op_us, .phase = "copy" }

static const struct cd_probe p_h2d = COPY_PROBE("copy.h2d", setup_h2d);
static const struct cd_probe p_d2h = COPY_PROBE("copy.d2h", setup_d2h);
static const struct cd_probe p_d2d = COPY_PROBE("copy.d2d", setup_d2d);
static const struct cd_probe p_bidir_h2d = COPY_PROBE("copy.bidir", setup_bidir_h2d);
static const struct cd_probe p_bidir_d2h = COPY_PROBE("copy.bidir", setup_bidir_d2h);

static const struct cd_probe *probe_of(const struct cd_probe_def *d)
{
	if (!strcmp(d->name, "copy.h2d"))
		return &p_h2d;
	if (!strcmp(d->name, "copy.d2h"))
		return &p_d2h;
	return &p_d2d;
}

/* One run per GPU; copy.bidir two (variants h2d and d2h: each direction timed while the other runs). */
static void run_copy(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	int bidir = !strcmp(d->name, "copy.bidir");

	for (size_t i = 0; i < ctx->host->n_gpus; i++) {
		int index = (int)ctx->host->gpus[i].index;

		cd_gpu_numa_hint(index, (int)ctx->host->gpus[i].numa);
		for (int v = 0; v < (bidir ? 2 : 1); v++) {
			struct cd_probe_env env = { .device = index, .peer = -1, .rank = ctx->rank, .nranks = 1 };
			struct cd_probe_run *run = cd_probe_new_run(ctx, d, index, -1);

			if (bidir)
				run->variant = xstrdup(v ? "d2h" : "h2d");
			cd_probe_run_on(ctx, d, bidir ? (v ? &p_bidir_d2h : &p_bidir_h2d) : probe_of(d), &env, run);
		}
	}
}


/* The copies share everything but what they copy and which sets run them: 256M, 2 + 10 iterations. */
#define COPY_DEF(nm, what, set) \
	{ .name = nm, .summary = what, .needs = NEED_GPU, .sets = set, .min = "256M", .max = "256M", \
	  .warmup = 2, .iters = 10, .run = run_copy, .finish = cd_gpu_cache_free }

const struct cd_probe_def cd_probe_copy_h2d =
	COPY_DEF("copy.h2d", "host to GPU copy bandwidth from pinned memory, per GPU", CD_SETS_ALL);
const struct cd_probe_def cd_probe_copy_d2h =
	COPY_DEF("copy.d2h", "GPU to host copy bandwidth into pinned memory, per GPU", CD_SETS_ALL);
const struct cd_probe_def cd_probe_copy_d2d = COPY_DEF(
	"copy.d2d", "copy within one GPU's memory (bytes copied / time), per GPU", CD_SET_DEFAULT | CD_SET_FULL);
const struct cd_probe_def cd_probe_copy_bidir = COPY_DEF(
	"copy.bidir", "host to GPU and GPU to host at once; each direction's bandwidth (variants h2d, d2h) while the other runs", CD_SET_FULL);
