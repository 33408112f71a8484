/* SPDX-License-Identifier: BSD-3-Clause */
#include "gpu_common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

int64_t cd_gpu_count_wrong_range(const void *buf, size_t from, size_t to, uint32_t seed)
{
	const uint32_t *w = buf;
	size_t n = to / 4;
	int64_t wrong = 0;

	for (size_t i = from / 4; i < n; i++)
		wrong += w[i] != cd_gpu_pattern(seed, i);
	if (to % 4 && to - to % 4 >= from) {
		uint32_t last = cd_gpu_pattern(seed, n);

		wrong += memcmp((const char *)buf + n * 4, &last, to % 4) != 0;
	}
	return wrong;
}

int64_t cd_gpu_count_wrong(const void *buf, size_t bytes, uint32_t seed)
{
	return cd_gpu_count_wrong_range(buf, 0, bytes, seed);
}

size_t cd_gpu_check_window(size_t bytes, size_t k, size_t *len)
{
	size_t n = bytes <= CD_GPU_CHECK_WHOLE ? 1 : CD_GPU_CHECK_WINDOWS + 2, stride, start;

	if (k >= n)
		return *len = 0, 0;
	if (n == 1)
		return *len = bytes, 0;
	/* first and last window, and the others a fixed stride apart between them; starts stay word-aligned */
	stride = (bytes - CD_GPU_CHECK_WIN) / (CD_GPU_CHECK_WINDOWS + 1);
	start = k == n - 1 ? bytes - CD_GPU_CHECK_WIN : k * stride;
	start &= ~(size_t)3;
	*len = k == n - 1 ? bytes - start : CD_GPU_CHECK_WIN;
	return start;
}

int64_t cd_gpu_check_device(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s, void *host,
			    CUdeviceptr dev, size_t bytes, uint32_t seed, int *timed_out)
{
	size_t len, off;
	int64_t wrong = 0;
	CUresult r;
	int rc;

	*timed_out = 0;
	/* zeroed first: a copy that never lands cannot pass on what the buffer held before */
	for (size_t k = 0; (off = cd_gpu_check_window(bytes, k, &len)), len; k++) {
		memset((char *)host + off, 0, len);
		if ((r = cu->MemcpyDtoHAsync((char *)host + off, dev + off, len, s)) != CUDA_SUCCESS)
			return cd_gpu_fail(env, cu, r, "cuMemcpyDtoHAsync (data check)");
	}
	rc = cd_gpu_stream_wait(env, cu, s);
	if (rc < 0) {
		*timed_out = rc == CD_PROBE_TIMEOUT;
		return -1;
	}
	for (size_t k = 0; (off = cd_gpu_check_window(bytes, k, &len)), len; k++)
		wrong += cd_gpu_count_wrong_range(host, off, off + len, seed);
	return wrong;
}

/* ---- graphs over a set of GPUs' streams ---- */

void cd_gpu_graphs_free(struct cd_gpu_graphs *g, const struct cd_cuda_api *cu, const CUcontext *ctx, int destroy)
{
	for (int i = 0; destroy && g->exec && i < g->n; i++)
		if (g->exec[i]) {
			cu->CtxSetCurrent(ctx[i]);
			cu->GraphExecDestroy(g->exec[i]);
		}
	free(g->exec);
	g->exec = NULL;
	g->n = 0;
}

int cd_gpu_graphs_capture(struct cd_gpu_graphs *g, struct cd_probe_env *env, const struct cd_cuda_api *cu,
			  const CUcontext *ctx, const CUstream *s, int n, int (*issue)(struct cd_probe_env *, void *),
			  void *arg, int times)
{
	CUgraph *graph;
	const char *what = NULL;
	CUresult r = CUDA_SUCCESS, er;
	int begun = 0, rc = 0;
	char buf[32];

	cd_gpu_graphs_free(g, cu, ctx, 1);
	g->why[0] = '\0';
	if (!cu->StreamBeginCapture || !cu->StreamEndCapture || !cu->GraphInstantiate || !cu->GraphLaunch ||
	    !cu->GraphExecDestroy || !cu->GraphDestroy) {
		snprintf(g->why, sizeof(g->why), "this driver has no stream capture and graphs (CUDA 11.4 and later)");
		return 0;
	}
	graph = xcalloc((size_t)n, sizeof(*graph));
	g->exec = xcalloc((size_t)n, sizeof(*g->exec));
	g->n = n;
	for (; begun < n; begun++) {
		cu->CtxSetCurrent(ctx[begun]);
		if ((r = cu->StreamBeginCapture(s[begun], CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)) != CUDA_SUCCESS) {
			what = "cuStreamBeginCapture";
			break;
		}
	}
	for (int k = 0; !what && rc == 0 && k < times; k++)
		rc = issue(env, arg);
	for (int i = 0; i < begun; i++) {
		cu->CtxSetCurrent(ctx[i]);
		if ((er = cu->StreamEndCapture(s[i], &graph[i])) != CUDA_SUCCESS && !what && rc == 0) {
			r = er;
			what = "cuStreamEndCapture";
		}
	}
	for (int i = 0; !what && rc == 0 && i < n; i++) {
		cu->CtxSetCurrent(ctx[i]);
		if ((r = cu->GraphInstantiate(&g->exec[i], graph[i], 0)) != CUDA_SUCCESS)
			what = "cuGraphInstantiateWithFlags";
	}
	for (int i = 0; i < n; i++)
		if (graph[i]) {
			cu->CtxSetCurrent(ctx[i]);
			cu->GraphDestroy(graph[i]); /* the executable graph is a copy */
		}
	free(graph);
	cu->CtxSetCurrent(ctx[0]);
	if (!what && rc == 0)
		return 1;
	cd_gpu_graphs_free(g, cu, ctx, 1);
	if (what)
		snprintf(g->why, sizeof(g->why), "%s: %s", what, cd_cu_strerror(cu, r, buf, sizeof(buf)));
	return what ? 0 : rc;
}

int cd_gpu_graphs_launch(struct cd_gpu_graphs *g, struct cd_probe_env *env, const struct cd_cuda_api *cu,
			 const CUcontext *ctx, const CUstream *s)
{
	CUresult r;

	for (int i = 0; i < g->n; i++) {
		cu->CtxSetCurrent(ctx[i]);
		if ((r = cu->GraphLaunch(g->exec[i], s[i])) != CUDA_SUCCESS)
			return cd_gpu_fail(env, cu, r, "cuGraphLaunch");
	}
	return 0;
}

/* ---- the per-process cache ---- */

static struct cd_gpu_dev *gpus[CD_GPU_MAX];

/* The driver, loaded by the time a cache entry exists (NULL only before). */
static const struct cd_cuda_api *cu_loaded(void)
{
	const char *why;

	return cd_dl_cuda(&why);
}
static int numa_of[CD_GPU_MAX];
static int numa_known[CD_GPU_MAX];
static struct cd_pinned *pinned[CD_GPU_MAX]; /* by NUMA node + 1 (0: unknown), up to 63 nodes */

void cd_gpu_numa_hint(int index, int numa)
{
	if (index >= 0 && index < CD_GPU_MAX) {
		numa_of[index] = numa;
		numa_known[index] = 1;
	}
}

static void gpu_free(struct cd_gpu_dev *g, const struct cd_cuda_api *cu)
{
	cu->CtxSetCurrent(g->ctx);
	for (int k = 0; k < 2; k++) {
		for (int e = 0; e < 2; e++)
			if (g->ev[k][e] && cu->EventDestroy)
				cu->EventDestroy(g->ev[k][e]);
		if (g->s[k])
			cu->StreamDestroy(g->s[k]);
	}
	if (g->a)
		cu->MemFree(g->a);
	if (g->b)
		cu->MemFree(g->b);
	if (g->hold)
		cu->MemFreeHost((void *)g->hold);
	cu->DevicePrimaryCtxRelease(g->dev);
	free(g);
}

struct cd_gpu_dev *cd_gpu_get(struct cd_probe_env *env, int index)
{
	const char *why = NULL;
	const struct cd_cuda_api *cu = cd_dl_cuda(&why);
	struct cd_gpu_dev *g;
	CUresult r;

	if (!cu)
		return cd_probe_fail(env, "%s", why), NULL;
	if (index < 0 || index >= CD_GPU_MAX)
		return cd_probe_fail(env, "GPU %d: commdiag handles GPUs 0 to %d", index, CD_GPU_MAX - 1), NULL;
	if ((g = gpus[index])) {
		if ((r = cu->CtxSetCurrent(g->ctx)) != CUDA_SUCCESS)
			return cd_gpu_fail(env, cu, r, "cuCtxSetCurrent"), NULL;
		return g;
	}
	g = xcalloc(1, sizeof(*g));
	g->index = index;
	if (cd_gpu_ctx_enter(env, cu, index, &g->dev, &g->ctx) < 0) {
		free(g);
		return NULL;
	}
	for (int k = 0; k < 2; k++) {
		if ((r = cu->StreamCreate(&g->s[k], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
			cd_gpu_fail(env, cu, r, "cuStreamCreate");
			gpu_free(g, cu);
			return NULL;
		}
		/* without events the harness times with the clock */
		for (int e = 0; e < 2 && cu->EventCreate && cu->EventRecord && cu->EventElapsedTime; e++)
			if (cu->EventCreate(&g->ev[k][e], CU_EVENT_DEFAULT) != CUDA_SUCCESS)
				g->ev[k][e] = NULL;
	}
	/* the word held streams wait on: host memory the GPU reads */
	if (cu->StreamWaitValue32 && cu->MemHostGetDevicePointer) {
		void *h = NULL;

		if (cu->MemHostAlloc(&h, sizeof(uint32_t), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) ==
		    CUDA_SUCCESS) {
			g->hold = h;
			*g->hold = 0;
			if (cu->MemHostGetDevicePointer(&g->hold_d, h, 0) != CUDA_SUCCESS) {
				cu->MemFreeHost(h);
				g->hold = NULL;
			}
		}
	}
	gpus[index] = g;
	return g;
}

/* Bind what the calling thread allocates to NUMA node n (MPOL_PREFERRED), keeping the old policy in *old. */
#define MPOL_DEFAULT_ 0
#define MPOL_PREFERRED_ 1
static int numa_prefer(int n, int *old_mode, unsigned long *old_mask)
{
	unsigned long mask = 1UL << n;

	if (n < 0 || n >= 64)
		return 0;
	if (syscall(SYS_get_mempolicy, old_mode, old_mask, 64UL, NULL, 0UL) < 0)
		return 0;
	return syscall(SYS_set_mempolicy, MPOL_PREFERRED_, &mask, 65UL) == 0;
}

static void numa_restore(int old_mode, const unsigned long *old_mask)
{
	if (syscall(SYS_set_mempolicy, old_mode, old_mode == MPOL_DEFAULT_ ? NULL : old_mask, 65UL) < 0)
		syscall(SYS_set_mempolicy, MPOL_DEFAULT_, NULL, 0UL);
}

struct cd_pinned *cd_gpu_pinned(struct cd_probe_env *env, int index, size_t bytes)
{
	const char *why = NULL;
	const struct cd_cuda_api *cu = cd_dl_cuda(&why);
	int numa = index >= 0 && index < CD_GPU_MAX && numa_known[index] ? numa_of[index] : -1;
	int slot = numa >= 0 && numa < CD_GPU_MAX - 1 ? numa + 1 : 0, bound, old_mode = 0;
	unsigned long old_mask = 0;
	struct cd_pinned *p = pinned[slot];
	CUresult r = CUDA_SUCCESS;

	if (!cu)
		return cd_probe_fail(env, "%s", why), NULL;
	if (p && p->cap >= bytes)
		return p;
	if (!p) {
		p = pinned[slot] = xcalloc(1, sizeof(*p));
		p->numa = numa;
	}
	if (p->src)
		cu->MemFreeHost(p->src);
	if (p->dst)
		cu->MemFreeHost(p->dst);
	p->src = p->dst = NULL;
	p->cap = 0;
	/* nvbandwidth binds to the GPU's node before allocating: pinned pages are placed when pinned */
	bound = numa_prefer(numa, &old_mode, &old_mask);
	if ((r = cu->MemHostAlloc(&p->src, bytes, 0)) == CUDA_SUCCESS &&
	    (r = cu->MemHostAlloc(&p->dst, bytes, 0)) == CUDA_SUCCESS) {
		cd_gpu_fill(p->src, bytes, CD_GPU_SEED);
		memset(p->dst, 0, bytes);
		p->cap = bytes;
	}
	if (bound)
		numa_restore(old_mode, &old_mask);
	if (r != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemHostAlloc (pinned host memory)"), NULL;
	return p;
}

int cd_gpu_buffers(struct cd_probe_env *env, struct cd_gpu_dev *g, struct cd_pinned *pin, size_t bytes)
{
	const struct cd_cuda_api *cu = cu_loaded();
	CUresult r;

	if (g->cap >= bytes)
		return 0;
	if (g->a)
		cu->MemFree(g->a);
	if (g->b)
		cu->MemFree(g->b);
	g->a = g->b = 0;
	g->cap = 0;
	if ((r = cu->MemAlloc(&g->a, bytes)) != CUDA_SUCCESS || (r = cu->MemAlloc(&g->b, bytes)) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemAlloc");
	g->cap = bytes;
	/* the device side starts with the pattern, so D2H, D2D and P2P copy known data */
	if ((r = cu->MemcpyHtoDAsync(g->a, pin->src, bytes, g->s[0])) != CUDA_SUCCESS)
		return cd_gpu_fail(env, cu, r, "cuMemcpyHtoDAsync");
	return cd_gpu_stream_wait(env, cu, g->s[0]);
}

int cd_gpu_hold(struct cd_gpu_dev *g, int k)
{
	const struct cd_cuda_api *cu = cu_loaded();

	if (!g->hold)
		return -1;
	return cu->StreamWaitValue32(g->s[k], g->hold_d, g->hold_seq + 1, CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS ? 0
														      : -1;
}

void cd_gpu_release(struct cd_gpu_dev *g)
{
	if (g->hold)
		__atomic_store_n(g->hold, ++g->hold_seq, __ATOMIC_RELEASE);
}

int cd_gpu_peer(struct cd_probe_env *env, struct cd_gpu_dev *from, struct cd_gpu_dev *to)
{
	const struct cd_cuda_api *cu = cu_loaded();
	int can = 0;
	CUresult r;

	if (to->index >= CD_GPU_MAX)
		return 0;
	if (from->peer[to->index])
		return from->peer[to->index] == 1;
	from->peer[to->index] = 2;
	if (cu->DeviceCanAccessPeer(&can, from->dev, to->dev) != CUDA_SUCCESS || !can)
		return 0;
	cu->CtxSetCurrent(from->ctx);
	r = cu->CtxEnablePeerAccess(to->ctx, 0);
	/* out of peer mappings (8 per GPU) or refused: the driver stages the copy, which is still measured */
	if (r == CUDA_ERROR_TOO_MANY_PEERS || r == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
		return 0;
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
		from->peer[to->index] = 0;
		return cd_gpu_fail(env, cu, r, "cuCtxEnablePeerAccess");
	}
	from->peer[to->index] = 1;
	return 1;
}

double cd_gpu_event_ms(const struct cd_gpu_dev *g, int k)
{
	const struct cd_cuda_api *cu = cu_loaded();
	float ms = 0;

	if (!g->ev[k][0] || !g->ev[k][1] || cu->EventElapsedTime(&ms, g->ev[k][0], g->ev[k][1]) != CUDA_SUCCESS)
		return -1;
	return ms;
}

void cd_gpu_drop(int index)
{
	if (index < 0 || index >= CD_GPU_MAX)
		return;
	gpus[index] = NULL;
	/* its pinned buffers may be a DMA's target still: every node's, as the GPU's node is a guess */
	for (int i = 0; i < CD_GPU_MAX; i++)
		pinned[i] = NULL;
}

void cd_gpu_cache_free(void)
{
	const struct cd_cuda_api *cu = cu_loaded();

	if (!cu)
		return;
	for (int i = 0; i < CD_GPU_MAX; i++) {
		if (gpus[i])
			gpu_free(gpus[i], cu);
		gpus[i] = NULL;
		if (pinned[i]) {
			if (pinned[i]->src)
				cu->MemFreeHost(pinned[i]->src);
			if (pinned[i]->dst)
				cu->MemFreeHost(pinned[i]->dst);
			free(pinned[i]);
		}
		pinned[i] = NULL;
	}
}
