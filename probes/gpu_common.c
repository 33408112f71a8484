/* SPDX-License-Identifier: BSD-3-Clause */
#include "gpu_common.h"

#include <string.h>
#include <time.h>

#include "util.h"

int cd_gpu_fail(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUresult r, const char *what)
{
	char buf[32];

	return cd_probe_fail(env, "%s on GPU %d: %s", what, env->device, cd_cu_strerror(cu, r, buf, sizeof(buf)));
}

int cd_gpu_ctx_enter(struct cd_probe_env *env, const struct cd_cuda_api *cu, int index, CUdevice *dev,
		     CUcontext *ctx)
{
	CUresult r;

	if ((r = cu->DeviceGet(dev, index)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuDeviceGet");
	if ((r = cu->DevicePrimaryCtxRetain(ctx, *dev)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuDevicePrimaryCtxRetain");
	if ((r = cu->CtxSetCurrent(*ctx)) != CUDA_SUCCESS) {
		cu->DevicePrimaryCtxRelease(*dev);
		return cd_gpu_fail(env, cu, r, "cuCtxSetCurrent");
	}
	return 0;
}

int cd_gpu_stream_poll(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s)
{
	CUresult r = cu->StreamQuery(s);

	if (r == CUDA_SUCCESS)
		return 1;
	if (r == CUDA_ERROR_NOT_READY)
		return 0;
	return cd_gpu_fail(env, cu, r, "cuStreamQuery");
}

int cd_gpu_stream_wait(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s)
{
	const struct timespec nap = { 0, 20000 };

	for (;;) {
		int r = cd_gpu_stream_poll(env, cu, s);

		if (r != 0)
			return r > 0 ? 0 : -1;
		if (cd_stop || cd_now_s() >= env->deadline) {
			cd_probe_fail(env, "GPU %d: stream work did not finish before the deadline", env->device);
			return CD_PROBE_TIMEOUT;
		}
		nanosleep(&nap, NULL);
	}
}

void cd_gpu_fill(void *buf, size_t bytes, uint32_t seed)
{
	uint32_t *w = buf;
	size_t n = bytes / 4;

	for (size_t i = 0; i < n; i++)
		w[i] = cd_gpu_pattern(seed, i);
	if (bytes % 4) {
		uint32_t last = cd_gpu_pattern(seed, n);

		memcpy((char *)buf + n * 4, &last, bytes % 4);
	}
}

int64_t cd_gpu_count_wrong(const void *buf, size_t bytes, uint32_t seed)
{
	const uint32_t *w = buf;
	size_t n = bytes / 4;
	int64_t wrong = 0;

	for (size_t i = 0; i < n; i++)
		wrong += w[i] != cd_gpu_pattern(seed, i);
	if (bytes % 4) {
		uint32_t last = cd_gpu_pattern(seed, n);

		wrong += memcmp((const char *)buf + n * 4, &last, bytes % 4) != 0;
	}
	return wrong;
}
