/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the GPU probe families share: a device's primary context made current,
 * streams polled instead of synchronised (a wedged GPU must not hang us), and a
 * fill pattern for the data checks.
 */
#ifndef CD_PROBE_GPU_COMMON_H
#define CD_PROBE_GPU_COMMON_H

#include "dl.h"
#include "probe.h"

/* Retain device index's primary context and make it current; -1 with env->why on failure. */
int cd_gpu_ctx_enter(struct cd_probe_env *env, const struct cd_cuda_api *cu, int index, CUdevice *dev,
		     CUcontext *ctx);
/* 1 done, 0 running, -1 failed (env->why) for one stream. */
int cd_gpu_stream_poll(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s);
/* Wait for a stream until env->deadline, polling; 0, -1 failed, CD_PROBE_TIMEOUT. */
int cd_gpu_stream_wait(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s);
/* A CUDA call's failure into env->why: "cuMemAlloc(268435456 bytes) on GPU 0: CUDA_ERROR_OUT_OF_MEMORY". */
int cd_gpu_fail(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUresult r, const char *what);

/* The pattern word of element i, seeded so different buffers differ. */
static inline uint32_t cd_gpu_pattern(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ seed;

	return x ^ (x >> 15);
}
void cd_gpu_fill(void *buf, size_t bytes, uint32_t seed);
/* Wrong 32-bit words of buf against the pattern (a ragged tail byte-compared as words). */
int64_t cd_gpu_count_wrong(const void *buf, size_t bytes, uint32_t seed);

#endif
