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

struct copy_state {
	const struct cd_cuda_api *cu;
	enum copy_kind kind;
	CUdevice dev;
	CUcontext ctx;
	CUstream s[2];
	void *host_src, *host_dst;  /* pinned */
	CUdeviceptr a, b;           /* a holds the pattern; b receives */
	int aborted;
};

#define SEED 0x5eed0001u

static void copy_release(struct copy_state *st)
{
	const struct cd_cuda_api *cu = st->cu;

	/* after an abort the GPU may still be busy with our buffers: leaking them beats blocking on a free */
	if (!st->aborted) {
		for (int i = 0; i < 2; i++)
			if (st->s[i])
				cu->StreamDestroy(st->s[i]);
		if (st->a)
			cu->MemFree(st->a);
		if (st->b)
			cu->MemFree(st->b);
		if (st->host_src)
			cu->MemFreeHost(st->host_src);
		if (st->host_dst)
			cu->MemFreeHost(st->host_dst);
		cu->DevicePrimaryCtxRelease(st->dev);
	}
	free(st);
}

static int copy_setup_kind(struct cd_probe_env *env, size_t max, enum copy_kind kind)
{
	const char *why = NULL;
	const struct cd_cuda_api *cu = cd_dl_cuda(&why);
	struct copy_state *st;
	CUresult r;
	int rc;

	if (!cu)
		return cd_probe_fail(env, "%s", why);
	st = xcalloc(1, sizeof(*st));
	st->cu = cu;
	st->kind = kind;
	if (cd_gpu_ctx_enter(env, cu, env->device, &st->dev, &st->ctx) < 0) {
		free(st);
		return -1;
	}
	env->priv = st;
	if ((r = cu->MemHostAlloc(&st->host_src, max, 0)) != CUDA_SUCCESS ||
	    (r = cu->MemHostAlloc(&st->host_dst, max, 0)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemHostAlloc (pinned host memory)");
	if ((r = cu->MemAlloc(&st->a, max)) != CUDA_SUCCESS || (r = cu->MemAlloc(&st->b, max)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemAlloc");
	for (int i = 0; i < 2; i++)
		if ((r = cu->StreamCreate(&st->s[i], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
			return cd_gpu_fail(env, cu, r, "cuStreamCreate");
	cd_gpu_fill(st->host_src, max, SEED);
	memset(st->host_dst, 0, max);
	/* the device side starts with the pattern, so D2H and D2D copy known data */
	if ((r = cu->MemcpyHtoDAsync(st->a, st->host_src, max, st->s[0])) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemcpyHtoDAsync");
	rc = cd_gpu_stream_wait(env, cu, st->s[0]);
	if (rc == CD_PROBE_TIMEOUT)
		st->aborted = 1;
	return rc;
}

/* The harness calls teardown only after a successful setup: a failed one cleans up itself. */
static int copy_setup_guard(struct cd_probe_env *env, size_t max, enum copy_kind kind)
{
	int rc = copy_setup_kind(env, max, kind);

	if (rc < 0 && env->priv) {
		copy_release(env->priv);
		env->priv = NULL;
	}
	return rc;
}

static int setup_h2d(struct cd_probe_env *env, size_t max) { return copy_setup_guard(env, max, COPY_H2D); }
static int setup_d2h(struct cd_probe_env *env, size_t max) { return copy_setup_guard(env, max, COPY_D2H); }
static int setup_d2d(struct cd_probe_env *env, size_t max) { return copy_setup_guard(env, max, COPY_D2D); }
static int setup_bidir(struct cd_probe_env *env, size_t max) { return copy_setup_guard(env, max, COPY_BIDIR); }

static int copy_start(struct cd_probe_env *env, size_t bytes)
{
	struct copy_state *st = env->priv;
	const struct cd_cuda_api *cu = st->cu;
	CUresult r = CUDA_SUCCESS;

	switch (st->kind) {
	case COPY_H2D:
		r = cu->MemcpyHtoDAsync(st->b, st->host_src, bytes, st->s[0]);
		break;
	case COPY_D2H:
		r = cu->MemcpyDtoHAsync(st->host_dst, st->a, bytes, st->s[0]);
		break;
	case COPY_D2D:
		r = cu->MemcpyDtoDAsync(st->b, st->a, bytes, st->s[0]);
		break;
	case COPY_BIDIR:
		r = cu->MemcpyHtoDAsync(st->b, st->host_src, bytes, st->s[0]);
		if (r == CUDA_SUCCESS)
			r = cu->MemcpyDtoHAsync(st->host_dst, st->a, bytes, st->s[1]);
		break;
	}
	return r == CUDA_SUCCESS ? 0 : cd_gpu_fail(env, cu, r, "cuMemcpy*Async");
}

static int copy_poll(struct cd_probe_env *env)
{
	struct copy_state *st = env->priv;
	int r = cd_gpu_stream_poll(env, st->cu, st->s[0]);

	if (r > 0 && st->kind == COPY_BIDIR)
		r = cd_gpu_stream_poll(env, st->cu, st->s[1]);
	return r;
}

static void copy_abort(struct cd_probe_env *env)
{
	struct copy_state *st = env->priv;

	st->aborted = 1;
}

/* Bring device buffer b back to the host (outside the timed loop) and count wrong words. */
static int64_t check_device_b(struct cd_probe_env *env, struct copy_state *st, size_t bytes)
{
	CUresult r;
	int rc;

	memset(st->host_dst, 0, bytes);
	if ((r = st->cu->MemcpyDtoHAsync(st->host_dst, st->b, bytes, st->s[0])) != CUDA_SUCCESS)
		return cd_gpu_fail(env, st->cu, r, "cuMemcpyDtoHAsync (data check)");
	rc = cd_gpu_stream_wait(env, st->cu, st->s[0]);
	if (rc < 0) {
		st->aborted = rc == CD_PROBE_TIMEOUT;
		return -1;
	}
	return cd_gpu_count_wrong(st->host_dst, bytes, SEED);
}

static int64_t copy_check(struct cd_probe_env *env, size_t bytes)
{
	struct copy_state *st = env->priv;
	int64_t wrong = 0;

	int64_t w;

	if (st->kind == COPY_D2H || st->kind == COPY_BIDIR)
		wrong = cd_gpu_count_wrong(st->host_dst, bytes, SEED);
	if (st->kind == COPY_D2H)
		return wrong;
	/* what went to the device (H2D, D2D, and the other half of BIDIR) */
	w = check_device_b(env, st, bytes);
	return w < 0 ? -1 : wrong + w;
}

static void copy_teardown(struct cd_probe_env *env)
{
	if (env->priv)
		copy_release(env->priv);
	env->priv = NULL;
}

/* both directions at once: busbw is the sum of the two */
static double bidir_factor(int n)
{
	(void)n;
	return 2.0;
}

#define COPY_PROBE(nm, setup_fn, factor) \
	{ .name = nm, .busbw_factor = factor, .setup = setup_fn, .start = copy_start, .poll = copy_poll, \
	  .abort = copy_abort, .check = copy_check, .teardown = copy_teardown, .phase = "copy" }

static const struct cd_probe p_h2d = COPY_PROBE("copy.h2d", setup_h2d, NULL);
static const struct cd_probe p_d2h = COPY_PROBE("copy.d2h", setup_d2h, NULL);
static const struct cd_probe p_d2d = COPY_PROBE("copy.d2d", setup_d2d, NULL);
static const struct cd_probe p_bidir = COPY_PROBE("copy.bidir", setup_bidir, bidir_factor);

static const struct cd_probe *probe_of(const struct cd_probe_def *d)
{
	if (!strcmp(d->name, "copy.h2d"))
		return &p_h2d;
	if (!strcmp(d->name, "copy.d2h"))
		return &p_d2h;
	if (!strcmp(d->name, "copy.d2d"))
		return &p_d2d;
	return &p_bidir;
}

/* One run per GPU. */
static void run_copy(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	for (size_t i = 0; i < ctx->host->n_gpus; i++) {
		int index = (int)ctx->host->gpus[i].index;
		struct cd_probe_env env = { .device = index, .peer = -1, .rank = ctx->rank, .nranks = 1 };
		struct cd_probe_run *run = cd_probe_new_run(ctx, d, index, -1);

		cd_probe_run_on(ctx, d, probe_of(d), &env, run);
	}
}

/* The copies share everything but what they copy and which sets run them: 256M, 2 + 10 iterations. */
#define COPY_DEF(nm, what, set) \
	{ .name = nm, .summary = what, .needs = NEED_GPU, .sets = set, .min = "256M", .max = "256M", \
	  .warmup = 2, .iters = 10, .run = run_copy }

const struct cd_probe_def cd_probe_copy_h2d =
	COPY_DEF("copy.h2d", "host to GPU copy bandwidth from pinned memory, per GPU", CD_SETS_ALL);
const struct cd_probe_def cd_probe_copy_d2h =
	COPY_DEF("copy.d2h", "GPU to host copy bandwidth into pinned memory, per GPU", CD_SETS_ALL);
const struct cd_probe_def cd_probe_copy_d2d = COPY_DEF(
	"copy.d2d", "copy within one GPU's memory (bytes copied / time), per GPU", CD_SET_DEFAULT | CD_SET_FULL);
const struct cd_probe_def cd_probe_copy_bidir = COPY_DEF(
	"copy.bidir", "host to GPU and GPU to host at once; busbw is both directions together", CD_SET_FULL);
