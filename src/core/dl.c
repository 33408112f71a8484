/* SPDX-License-Identifier: BSD-3-Clause */
#include "dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void *cd_dl_open(const char *name, char **err)
{
	void *h;

	dlerror();
	/* RTLD_LOCAL: two NCCLs (--nccl-lib and a system one) must not resolve into each other */
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		*err = xstrdup(e ? e : "dlopen failed");
	}
	return h;
}

int cd_dl_bind(void *handle, const char *libname, const struct cd_dl_sym *syms, char **err)
{
	for (const struct cd_dl_sym *s = syms; s->name; s++) {
		dlerror();
		*s->addr = dlsym(handle, s->name);
		if (!*s->addr && !s->optional) {
			*err = xasprintf("%s: symbol '%s' not found", libname, s->name);
			return -1;
		}
	}
	return 0;
}

void *cd_dl_open_pinned(const char *name, char **err)
{
	void *h;

	dlerror();
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h) {
		const char *e = dlerror();

		*err = xstrdup(e ? e : "dlopen failed");
	}
	return h;
}

void cd_dl_close(void *handle)
{
	if (handle)
		dlclose(handle);
}

const char *cd_cu_strerror(const struct cd_cuda_api *cu, CUresult r, char *buf, size_t len)
{
	const char *name = NULL;

	if (cu && cu->GetErrorName && cu->GetErrorName(r, &name) == CUDA_SUCCESS && name)
		return name;
	snprintf(buf, len, "CUresult %d", (int)r);
	return buf;
}

/*
 * The symbol tables, at file scope so tests/check_abi.c checks these very names
 * against cuda.h and nccl.h and resolves them in the real libraries.
 */
static struct cd_cuda_api cu;
const struct cd_dl_sym cd_dl_cuda_syms[] = {
	{ "cuInit", (void **)&cu.Init, 0 },
	{ "cuDriverGetVersion", (void **)&cu.DriverGetVersion, 0 },
	{ "cuGetErrorName", (void **)&cu.GetErrorName, 1 },
	{ "cuDeviceGetCount", (void **)&cu.DeviceGetCount, 0 },
	{ "cuDeviceGet", (void **)&cu.DeviceGet, 0 },
	{ "cuDeviceGetName", (void **)&cu.DeviceGetName, 0 },
	{ "cuDeviceGetPCIBusId", (void **)&cu.DeviceGetPCIBusId, 0 },
	{ "cuDeviceTotalMem_v2", (void **)&cu.DeviceTotalMem, 0 },
	{ "cuDeviceGetUuid_v2", (void **)&cu.DeviceGetUuid, 1 },
	{ "cuDeviceGetAttribute", (void **)&cu.DeviceGetAttribute, 0 },
	{ "cuDeviceCanAccessPeer", (void **)&cu.DeviceCanAccessPeer, 0 },
	{ "cuDevicePrimaryCtxRetain", (void **)&cu.DevicePrimaryCtxRetain, 0 },
	{ "cuDevicePrimaryCtxRelease_v2", (void **)&cu.DevicePrimaryCtxRelease, 0 },
	{ "cuCtxSetCurrent", (void **)&cu.CtxSetCurrent, 0 },
	{ "cuCtxEnablePeerAccess", (void **)&cu.CtxEnablePeerAccess, 0 },
	{ "cuMemAlloc_v2", (void **)&cu.MemAlloc, 0 },
	{ "cuMemFree_v2", (void **)&cu.MemFree, 0 },
	{ "cuMemHostAlloc", (void **)&cu.MemHostAlloc, 0 },
	{ "cuMemFreeHost", (void **)&cu.MemFreeHost, 0 },
	{ "cuMemcpyHtoDAsync_v2", (void **)&cu.MemcpyHtoDAsync, 0 },
	{ "cuMemcpyDtoHAsync_v2", (void **)&cu.MemcpyDtoHAsync, 0 },
	{ "cuMemcpyDtoDAsync_v2", (void **)&cu.MemcpyDtoDAsync, 0 },
	{ "cuMemcpyPeerAsync", (void **)&cu.MemcpyPeerAsync, 0 },
	{ "cuMemsetD32Async", (void **)&cu.MemsetD32Async, 0 },
	{ "cuStreamCreate", (void **)&cu.StreamCreate, 0 },
	{ "cuStreamDestroy_v2", (void **)&cu.StreamDestroy, 0 },
	{ "cuStreamQuery", (void **)&cu.StreamQuery, 0 },
	{ "cuEventCreate", (void **)&cu.EventCreate, 1 },
	{ "cuEventDestroy_v2", (void **)&cu.EventDestroy, 1 },
	{ "cuEventRecord", (void **)&cu.EventRecord, 1 },
	{ "cuEventElapsedTime_v2", (void **)&cu.EventElapsedTime, 1 },
	{ "cuStreamWaitValue32_v2", (void **)&cu.StreamWaitValue32, 1 },
	{ "cuMemHostGetDevicePointer_v2", (void **)&cu.MemHostGetDevicePointer, 1 },
	{ "cuStreamBeginCapture_v2", (void **)&cu.StreamBeginCapture, 1 },
	{ "cuStreamEndCapture", (void **)&cu.StreamEndCapture, 1 },
	{ "cuGraphInstantiateWithFlags", (void **)&cu.GraphInstantiate, 1 },
	{ "cuGraphLaunch", (void **)&cu.GraphLaunch, 1 },
	{ "cuGraphExecDestroy", (void **)&cu.GraphExecDestroy, 1 },
	{ "cuGraphDestroy", (void **)&cu.GraphDestroy, 1 },
	{ NULL, NULL, 0 },
};

static struct cd_nccl_api api;
const struct cd_dl_sym cd_dl_nccl_syms[] = {
	{ "ncclGetVersion", (void **)&api.GetVersion, 0 },
	{ "ncclGetErrorString", (void **)&api.GetErrorString, 0 },
	{ "ncclGetLastError", (void **)&api.GetLastError, 1 },
	{ "ncclGetUniqueId", (void **)&api.GetUniqueId, 0 },
	{ "ncclCommInitRankConfig", (void **)&api.CommInitRankConfig, 0 },
	{ "ncclCommGetAsyncError", (void **)&api.CommGetAsyncError, 0 },
	{ "ncclCommAbort", (void **)&api.CommAbort, 0 },
	{ "ncclCommDestroy", (void **)&api.CommDestroy, 0 },
	{ "ncclCommSplit", (void **)&api.CommSplit, 1 },
	{ "ncclGroupStart", (void **)&api.GroupStart, 0 },
	{ "ncclGroupEnd", (void **)&api.GroupEnd, 0 },
	{ "ncclAllReduce", (void **)&api.AllReduce, 0 },
	{ "ncclAllGather", (void **)&api.AllGather, 0 },
	{ "ncclReduceScatter", (void **)&api.ReduceScatter, 0 },
	{ "ncclBroadcast", (void **)&api.Broadcast, 0 },
	{ "ncclReduce", (void **)&api.Reduce, 0 },
	{ "ncclSend", (void **)&api.Send, 0 },
	{ "ncclRecv", (void **)&api.Recv, 0 },
	{ NULL, NULL, 0 },
};

static struct cd_nvml_api nv;
const struct cd_dl_sym cd_dl_nvml_syms[] = {
	{ "nvmlInit_v2", (void **)&nv.Init, 0 },
	{ "nvmlErrorString", (void **)&nv.ErrorString, 0 },
	{ "nvmlSystemGetDriverVersion", (void **)&nv.SystemGetDriverVersion, 0 },
	{ "nvmlDeviceGetHandleByPciBusId_v2", (void **)&nv.DeviceGetHandleByPciBusId, 0 },
	{ "nvmlDeviceGetCurrPcieLinkGeneration", (void **)&nv.DeviceGetCurrPcieLinkGeneration, 0 },
	{ "nvmlDeviceGetCurrPcieLinkWidth", (void **)&nv.DeviceGetCurrPcieLinkWidth, 0 },
	{ "nvmlDeviceGetMaxPcieLinkGeneration", (void **)&nv.DeviceGetMaxPcieLinkGeneration, 0 },
	{ "nvmlDeviceGetMaxPcieLinkWidth", (void **)&nv.DeviceGetMaxPcieLinkWidth, 0 },
	{ "nvmlDeviceGetPersistenceMode", (void **)&nv.DeviceGetPersistenceMode, 0 },
	{ "nvmlDeviceGetNvLinkState", (void **)&nv.DeviceGetNvLinkState, 0 },
	{ "nvmlDeviceGetNvLinkVersion", (void **)&nv.DeviceGetNvLinkVersion, 0 },
	{ "nvmlDeviceGetNvLinkRemotePciInfo_v2", (void **)&nv.DeviceGetNvLinkRemotePciInfo, 0 },
	{ "nvmlDeviceGetNvLinkRemoteDeviceType", (void **)&nv.DeviceGetNvLinkRemoteDeviceType, 1 },
	{ "nvmlDeviceGetP2PStatus", (void **)&nv.DeviceGetP2PStatus, 0 },
	{ "nvmlDeviceGetMigMode", (void **)&nv.DeviceGetMigMode, 1 },
	{ NULL, NULL, 0 },
};

static int cuda_absent;

int cd_dl_cuda_absent(void)
{
	return cuda_absent;
}

const struct cd_cuda_api *cd_dl_cuda(const char **err)
{
	static char *failed;
	static int tried;
	char *e = NULL;
	void *h;

	if (tried) {
		*err = failed;
		return failed ? NULL : &cu;
	}
	tried = 1;
	h = cd_dl_open(CD_SONAME_CUDA, &e);
	cuda_absent = !h;
	if (h && cd_dl_bind(h, CD_SONAME_CUDA, cd_dl_cuda_syms, &e) == 0) {
		CUresult r = cu.Init(0);
		char buf[32];

		if (!cu.EventElapsedTime) /* drivers before CUDA 12.8 have only the first */
			cu.EventElapsedTime = (CUresult(*)(float *, CUevent, CUevent))dlsym(h, "cuEventElapsedTime");

		if (r == CUDA_SUCCESS)
			return &cu;
		/* a driver without devices is a host without GPUs, like one without the driver */
		cuda_absent = r == CUDA_ERROR_NO_DEVICE;
		e = xasprintf("cuInit: %s", cd_cu_strerror(&cu, r, buf, sizeof(buf)));
	}
	failed = e;
	*err = failed;
	return NULL;
}

const struct cd_nccl_api *cd_dl_nccl(const char *path, const char **err)
{
	static char *loaded_path, *failed;
	const char *lib = path ? path : CD_SONAME_NCCL;
	char *e = NULL;
	void *h;

	if (loaded_path) {
		if (!strcmp(loaded_path, lib)) {
			*err = failed;
			return failed ? NULL : &api;
		}
		/* another path: the earlier library stays loaded (RTLD_LOCAL keeps them apart) */
		free(loaded_path);
		free(failed);
		failed = NULL;
		memset(&api, 0, sizeof(api));
	}
	loaded_path = xstrdup(lib);
	h = cd_dl_open(lib, &e);
	if (h && cd_dl_bind(h, lib, cd_dl_nccl_syms, &e) < 0) {
		/* a library without ncclCommInitRankConfig is not an NCCL commdiag can drive */
		cd_dl_close(h);
		h = NULL;
	}
	if (!h) {
		failed = e;
		*err = failed;
		return NULL;
	}
	return &api;
}

const struct cd_nvml_api *cd_dl_nvml(const char **err)
{
	static char *failed;
	static int tried;
	char *e = NULL;
	void *h;

	if (tried) {
		*err = failed;
		return failed ? NULL : &nv;
	}
	tried = 1;
	h = cd_dl_open(CD_SONAME_NVML, &e);
	if (h && cd_dl_bind(h, CD_SONAME_NVML, cd_dl_nvml_syms, &e) == 0) {
		nvmlReturn_t r = nv.Init();

		if (r == NVML_SUCCESS)
			return &nv;
		e = xasprintf("nvmlInit: %s", nv.ErrorString(r));
	}
	failed = e;
	*err = failed;
	return NULL;
}
