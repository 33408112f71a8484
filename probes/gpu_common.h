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

/*
 * What the GPU probes keep for the life of the process, one entry per GPU: its primary
 * context (retained once: releasing the last reference resets the context, and making
 * one costs ~0.1 s), two streams with a start and an end event each, the pinned word a
 * stream can be held on (cuStreamWaitValue32, nvbandwidth's way of queuing copies
 * before they run), and two device buffers: a holds the pattern, b receives.
 */
#define CD_GPU_SEED 0x5eed0001u
#define CD_GPU_MAX 64

struct cd_gpu_dev {
	int index;
	CUdevice dev;
	CUcontext ctx;
	CUstream s[2];
	CUevent ev[2][2];           /* [stream][start, end]; NULL when the driver has no events */
	volatile uint32_t *hold;    /* pinned; NULL when streams cannot be held */
	CUdeviceptr hold_d;
	uint32_t hold_seq;          /* the value the word has; held streams wait for the next */
	CUdeviceptr a, b;
	size_t cap;                 /* bytes of a and b */
	unsigned char peer[CD_GPU_MAX]; /* to GPU k: 0 not tried, 1 peer access, 2 staged through the host */
};

/* Pinned host buffers of one NUMA node, shared by its GPUs: src holds the pattern. */
struct cd_pinned {
	int numa;
	void *src, *dst;
	size_t cap;
};

/* GPU index's entry (made on first use), its context current; NULL with env->why. */
struct cd_gpu_dev *cd_gpu_get(struct cd_probe_env *env, int index);
/* The GPU's NUMA node, from the host's facts, for its pinned memory (-1: unknown). */
void cd_gpu_numa_hint(int index, int numa);
/* Pinned buffers of at least bytes on index's NUMA node; NULL with env->why. */
struct cd_pinned *cd_gpu_pinned(struct cd_probe_env *env, int index, size_t bytes);
/* Device buffers of at least bytes, a filled with the pattern from pin; 0, -1, CD_PROBE_TIMEOUT. */
int cd_gpu_buffers(struct cd_probe_env *env, struct cd_gpu_dev *g, struct cd_pinned *pin, size_t bytes);
/* Hold stream k until cd_gpu_release; 0 held, -1 not (the driver cannot: run unheld). */
int cd_gpu_hold(struct cd_gpu_dev *g, int k);
void cd_gpu_release(struct cd_gpu_dev *g);
/* Peer access from one GPU to another, enabled once per direction: 1 peer, 0 staged, -1 failed (env->why). */
int cd_gpu_peer(struct cd_probe_env *env, struct cd_gpu_dev *from, struct cd_gpu_dev *to);
/* Milliseconds between stream k's events, or -1. */
double cd_gpu_event_ms(const struct cd_gpu_dev *g, int k);
/* After an abort: forget the GPU's entry and pinned buffers (the GPU may still use them: leaked, not freed). */
void cd_gpu_drop(int index);
/* Free everything the cache holds (the probe table's finish). */
void cd_gpu_cache_free(void);

/* Retain device index's primary context and make it current; -1 with env->why on failure. */
int cd_gpu_ctx_enter(struct cd_probe_env *env, const struct cd_cuda_api *cu, int index, CUdevice *dev,
		     CUcontext *ctx);
/* 1 done, 0 running, -1 failed (env->why) for one stream. */
int cd_gpu_stream_poll(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s);
/* Wait for a stream until env->deadline, polling; 0, -1 failed, CD_PROBE_TIMEOUT. */
int cd_gpu_stream_wait(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s);
/* A CUDA call's failure into env->why: "cuMemAlloc(268435456 bytes) on GPU 0: CUDA_ERROR_OUT_OF_MEMORY". */
int cd_gpu_fail(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUresult r, const char *what);

/*
 * One CUDA graph per stream of a set of GPUs, captured from what a probe issues on those
 * streams (nccl-tests' -G): capture begun on every stream (thread-local mode, as
 * nccl-tests' timed loop), issue(arg) called `times`, capture ended on every stream begun
 * whatever failed (a stream left capturing refuses everything else), and an executable
 * graph instantiated per stream. The graphs are launched as one, stream after stream.
 */
struct cd_gpu_graphs {
	CUgraphExec *exec;  /* one per stream; NULL when none is made */
	int n;
	char why[160];      /* why the last capture failed */
};
/* 1 made; 0 the driver cannot (why set); else issue's return (< 0: env->why says why). */
int cd_gpu_graphs_capture(struct cd_gpu_graphs *g, struct cd_probe_env *env, const struct cd_cuda_api *cu,
			  const CUcontext *ctx, const CUstream *s, int n, int (*issue)(struct cd_probe_env *, void *),
			  void *arg, int times);
/* Launch every stream's graph: 0, or -1 with env->why. */
int cd_gpu_graphs_launch(struct cd_gpu_graphs *g, struct cd_probe_env *env, const struct cd_cuda_api *cu,
			 const CUcontext *ctx, const CUstream *s);
/* Destroy the graphs (destroy 0, after an abort: forget them, the GPUs may still run them). */
void cd_gpu_graphs_free(struct cd_gpu_graphs *g, const struct cd_cuda_api *cu, const CUcontext *ctx, int destroy);

/* The pattern word of element i, seeded so different buffers differ. */
static inline uint32_t cd_gpu_pattern(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ seed;

	return x ^ (x >> 15);
}
void cd_gpu_fill(void *buf, size_t bytes, uint32_t seed);
/* Wrong 32-bit words of buf against the pattern (a ragged tail byte-compared as words). */
int64_t cd_gpu_count_wrong(const void *buf, size_t bytes, uint32_t seed);
/* The same over bytes [from, to) of a buffer that starts at buf (from word-aligned). */
int64_t cd_gpu_count_wrong_range(const void *buf, size_t from, size_t to, uint32_t seed);

/*
 * The data check of what a copy left in device memory. The GPU cannot check it (no
 * kernels: commdiag uses only the driver API, where nccl-tests compares on the GPU), so
 * it comes back to the host with cuMemcpyDtoH and the CPU compares it: a whole 256 MiB
 * buffer per GPU and per GPU pair is gigabytes of copies and compares that take longer
 * than the measurement. Up to CD_GPU_CHECK_WHOLE bytes the whole buffer is checked;
 * above, windows of CD_GPU_CHECK_WIN bytes, every element of each: the first, the last,
 * and CD_GPU_CHECK_WINDOWS more a fixed stride apart (4.1 MiB of 256 MiB), so a wrong
 * byte in any window, a copy cut short (the last window) or one that never ran is caught.
 */
#define CD_GPU_CHECK_WHOLE (16u << 20)
#define CD_GPU_CHECK_WIN (64u << 10)
#define CD_GPU_CHECK_WINDOWS 64
/* Window k of the check of bytes: its offset, its length in *len (0: no window k). */
size_t cd_gpu_check_window(size_t bytes, size_t k, size_t *len);
/*
 * Copy the check's windows of device buffer dev back into host (same offsets) on stream s
 * and count the wrong words against pattern seed; -1 with env->why (*timed_out set when the
 * copies did not finish before the deadline: the GPU may still write host).
 */
int64_t cd_gpu_check_device(struct cd_probe_env *env, const struct cd_cuda_api *cu, CUstream s, void *host,
			    CUdeviceptr dev, size_t bytes, uint32_t seed, int *timed_out);

#endif
