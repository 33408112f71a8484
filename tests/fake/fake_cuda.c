/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake CUDA driver for the end-to-end tests: built as libcuda.so.1 and found through
 * LD_LIBRARY_PATH, it loads like the real one and its calls misbehave on demand,
 * FAKE_CUDA=nodev (default): cuInit says CUDA_ERROR_NO_DEVICE
 *          count: cuInit works, cuDeviceGetCount fails with CUDA_ERROR_UNKNOWN
 *          hang:  cuInit never returns (a wedged driver); it first creates the file
 *                 FAKE_CUDA_MARK names, if any, so a test knows when to send signals
 *          one:   one device, "Fake GPU", whose other calls work
 * Built with -DMISSING_SYMBOL it lacks cuDeviceGetCount (a driver too old or broken).
 * Self-contained on purpose: no cuda.h, so it builds wherever a C compiler does.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct {
	char bytes[16];
} CUuuid;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_UNKNOWN 999

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
	*n = 1;
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
	strncpy(bus, "0000:AB:00.0", (size_t)len);
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

CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : r == CUDA_ERROR_UNKNOWN ? "CUDA_ERROR_UNKNOWN" : NULL;
	return *s ? CUDA_SUCCESS : 1;
}
