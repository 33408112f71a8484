/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake CUDA driver for the end-to-end tests: built as libcuda.so.1 and found through
 * LD_LIBRARY_PATH, it loads like the real one and its calls misbehave on demand,
 * FAKE_CUDA=nodev (default): cuInit says CUDA_ERROR_NO_DEVICE
 *          count: cuInit works, cuDeviceGetCount fails with CUDA_ERROR_UNKNOWN
 *          hang:  cuInit never returns (a wedged driver); it first creates the file
 *                 FAKE_CUDA_MARK names, if any, so a test knows when to send signals
 *          one:   one device, "Fake GPU", whose other calls work
 *          two:   two such devices, peers of each other
 *          four:  four (one per rank of a four-rank NCCL world)
 *          corrupt: two devices whose device-to-host copies flip one byte
 *          stuck: one device whose streams never finish (cuStreamQuery: not ready)
 * FAKE_CUDA_DELAY_MS=N makes every copy take N ms longer (a slow link: a run long
 * enough for the progress line).
 * Device memory is host memory and copies are memcpy, so the copy and P2P probes
 * run their whole path (setup, polled operations, data check) against it.
 * Built with -DMISSING_SYMBOL it lacks cuDeviceGetCount (a driver too old or broken).
 * Self-contained on purpose: no cuda.h, so it builds wherever a C compiler does.
 */
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct fake_ctx *CUcontext;
typedef struct fake_stream *CUstream;
typedef struct {
	char bytes[16];
} CUuuid;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_UNKNOWN 999
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_OUT_OF_MEMORY 2

static int mode(const char *m)
{
	const char *v = getenv("FAKE_CUDA");

	return !strcmp(v && *v ? v : "nodev", m);
}

CUresult cuInit(unsigned int flags)
{
	const char *mark = getenv("FAKE_CUDA_MARK");

	(void)flags;
	if (mode("hang") && mark)
		close(open(mark, O_WRONLY | O_CREAT, 0644));
	while (mode("hang"))
		pause();
	return mode("nodev") ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v)
{
	*v = 12040;
	return CUDA_SUCCESS;
}

#ifndef MISSING_SYMBOL
CUresult cuDeviceGetCount(int *n)
{
	*n = mode("four") ? 4 : mode("two") || mode("corrupt") ? 2 : 1;
	return mode("count") ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}
#endif

CUresult cuDeviceGet(CUdevice *d, int i)
{
	*d = i;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	(void)d;
	strncpy(name, "Fake GPU", (size_t)len);
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
	(void)d;
	strncpy(bus, d ? "0000:AC:00.0" : "0000:AB:00.0", (size_t)len);
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
	(void)d;
	*bytes = (size_t)80 << 30;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d)
{
	(void)d;
	memset(u->bytes, 0xab, sizeof(u->bytes));
	return CUDA_SUCCESS;
}

/* Compute capability 9.0; every other attribute 0. */
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	(void)d;
	*v = attr == 75 ? 9 : 0; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
	return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b)
{
	*can = a != b;
	return CUDA_SUCCESS;
}

static struct fake_ctx {
	int dev;
} ctxs[4];
static struct fake_stream {
	int unused;
} a_stream;

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	*c = &ctxs[d & 3];
	return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	(void)d;
	return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c)
{
	(void)c;
	return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext c, unsigned int flags)
{
	(void)c;
	(void)flags;
	return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *m = malloc(n ? n : 1);

	*p = (CUdeviceptr)(uintptr_t)m;
	return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags)
{
	(void)flags;
	*p = malloc(n ? n : 1);
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *p)
{
	free(p);
	return CUDA_SUCCESS;
}

static void slow_link(void)
{
	const char *v = getenv("FAKE_CUDA_DELAY_MS");
	long ms = v ? atol(v) : 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	(void)s;
	slow_link();
	memcpy((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	(void)s;
	slow_link();
	memcpy(dst, (const void *)(uintptr_t)src, n);
	if (mode("corrupt") && n)
		((unsigned char *)dst)[n - 1] ^= 0x40;
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	(void)s;
	slow_link();
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s)
{
	(void)dc;
	(void)sc;
	return cuMemcpyDtoDAsync_v2(dst, src, n, s);
}

CUresult cuMemsetD32Async(CUdeviceptr p, unsigned int v, size_t n, CUstream s)
{
	unsigned int *w = (unsigned int *)(uintptr_t)p;

	(void)s;
	for (size_t i = 0; i < n; i++)
		w[i] = v;
	return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
	(void)flags;
	*s = &a_stream;
	return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream s)
{
	(void)s;
	return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream s)
{
	(void)s;
	return mode("stuck") ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : r == CUDA_ERROR_UNKNOWN ? "CUDA_ERROR_UNKNOWN" :
	     r == CUDA_ERROR_NOT_READY ? "CUDA_ERROR_NOT_READY" : NULL;
	return *s ? CUDA_SUCCESS : 1;
}
