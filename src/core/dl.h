/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU stack is loaded, not linked: dlopen by SONAME (never a bare "libcuda.so",
 * never the current directory) and bind a table of symbols by their versioned names.
 */
#ifndef CD_DL_H
#define CD_DL_H

#define CD_SONAME_CUDA "libcuda.so.1"
#define CD_SONAME_NVML "libnvidia-ml.so.1"
#define CD_SONAME_NCCL "libnccl.so.2"

struct cd_dl_sym {
	const char *name; /* as exported: "cuMemAlloc_v2", "nvmlInit_v2" */
	void **addr;
	int optional;     /* absent in older libraries: left NULL */
};

/* Returns the handle, or NULL with *err set to a heap copy of the loader's message. */
void *cd_dl_open(const char *name, char **err);
/* Bind every symbol; a missing required one fails with *err naming it and the library. */
int cd_dl_bind(void *handle, const char *libname, const struct cd_dl_sym *syms, char **err);
void cd_dl_close(void *handle);
/*
 * As cd_dl_open, but the library is never unmapped (RTLD_NODELETE): for code we
 * do not own, such as NCCL net plugins, whose constructors may start threads or
 * register exit handlers that would run into unmapped text after dlclose.
 */
void *cd_dl_open_pinned(const char *name, char **err);

/*
 * The parts of the CUDA driver API and of NCCL that commdiag calls, bound once by
 * their exported (versioned) names. The libraries stay loaded for the life of the
 * process: the driver keeps state behind cuInit, and unloading it is not supported.
 * A member added here needs its line in tests/check_abi.c, which checks its type
 * against the header and the name dl.c binds it by.
 */
#include <cuda.h>
#include <nccl.h>

struct cd_cuda_api {
	CUresult (*Init)(unsigned int);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*GetErrorName)(CUresult, const char **);   /* optional */
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
	CUresult (*DeviceTotalMem)(size_t *, CUdevice);
	CUresult (*DeviceGetUuid)(CUuuid *, CUdevice);       /* optional */
	CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
	CUresult (*DeviceCanAccessPeer)(int *, CUdevice, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxEnablePeerAccess)(CUcontext, unsigned int);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemHostAlloc)(void **, size_t, unsigned int);
	CUresult (*MemFreeHost)(void *);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
	CUresult (*MemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
	CUresult (*MemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream);
	CUresult (*StreamCreate)(CUstream *, unsigned int);
	CUresult (*StreamDestroy)(CUstream);
	CUresult (*StreamQuery)(CUstream);
	/* optional: the probes' device timing (events) and a stream held until the host says go */
	CUresult (*EventCreate)(CUevent *, unsigned int);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);  /* _v2 (CUDA >= 12.8), else the first */
	CUresult (*StreamWaitValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
	CUresult (*MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned int);
	/* optional: the collectives captured into one graph per GPU, nccl-tests' -G (CUDA >= 11.4) */
	CUresult (*StreamBeginCapture)(CUstream, CUstreamCaptureMode);          /* _v2 */
	CUresult (*StreamEndCapture)(CUstream, CUgraph *);
	CUresult (*GraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long); /* cuGraphInstantiateWithFlags */
	CUresult (*GraphLaunch)(CUgraphExec, CUstream);
	CUresult (*GraphExecDestroy)(CUgraphExec);
	CUresult (*GraphDestroy)(CUgraph);
};

struct cd_nccl_api {
	ncclResult_t (*GetVersion)(int *);
	const char *(*GetErrorString)(ncclResult_t);
	const char *(*GetLastError)(ncclComm_t);              /* optional (NCCL >= 2.13) */
	ncclResult_t (*GetUniqueId)(ncclUniqueId *);
	ncclResult_t (*CommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
	ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t *);
	ncclResult_t (*CommAbort)(ncclComm_t);
	ncclResult_t (*CommDestroy)(ncclComm_t);
	ncclResult_t (*CommSplit)(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *); /* optional (NCCL >= 2.18) */
	ncclResult_t (*GroupStart)(void);
	ncclResult_t (*GroupEnd)(void);
	ncclResult_t (*AllReduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
	ncclResult_t (*AllGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
	ncclResult_t (*ReduceScatter)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
				      cudaStream_t);
	ncclResult_t (*Broadcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
	ncclResult_t (*Reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
			       cudaStream_t);
	ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
	ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
};

#include "nvml.h"

struct cd_nvml_api {
	nvmlReturn_t (*Init)(void);
	const char *(*ErrorString)(nvmlReturn_t);
	nvmlReturn_t (*SystemGetDriverVersion)(char *, unsigned int);
	nvmlReturn_t (*DeviceGetHandleByPciBusId)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetCurrPcieLinkGeneration)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*DeviceGetCurrPcieLinkWidth)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*DeviceGetMaxPcieLinkGeneration)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*DeviceGetMaxPcieLinkWidth)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*DeviceGetPersistenceMode)(nvmlDevice_t, nvmlEnableState_t *);
	nvmlReturn_t (*DeviceGetNvLinkState)(nvmlDevice_t, unsigned int, nvmlEnableState_t *);
	nvmlReturn_t (*DeviceGetNvLinkVersion)(nvmlDevice_t, unsigned int, unsigned int *);
	nvmlReturn_t (*DeviceGetNvLinkRemotePciInfo)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
	nvmlReturn_t (*DeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t, unsigned int, int *); /* optional */
	nvmlReturn_t (*DeviceGetP2PStatus)(nvmlDevice_t, nvmlDevice_t, int, int *);
	nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t, unsigned int *, unsigned int *); /* optional (R450+) */
};

/*
 * What each loader binds, by exported name, ending with a NULL name. Exposed so
 * tests/check_abi.c checks these names against cuda.h, nccl.h and nvml.h and
 * resolves them in the libraries; binding them outside dl.c is not their use.
 */
extern const struct cd_dl_sym cd_dl_cuda_syms[];
extern const struct cd_dl_sym cd_dl_nccl_syms[];
extern const struct cd_dl_sym cd_dl_nvml_syms[];

/* NVML, loaded and initialised once; NULL with *err as for the driver API. */
const struct cd_nvml_api *cd_dl_nvml(const char **err);

/*
 * The driver API, loaded and cuInit'ed once; NULL with *err (not owned: valid for
 * the life of the process) saying why: the loader's message, a missing symbol, or
 * cuInit's error.
 */
const struct cd_cuda_api *cd_dl_cuda(const char **err);
/* After cd_dl_cuda failed: 1 when there is no driver or no device (skipped), 0 when it is broken (error). */
int cd_dl_cuda_absent(void);
/* NCCL from path (NULL: libnccl.so.2), loaded once per path; NULL with *err as above. */
const struct cd_nccl_api *cd_dl_nccl(const char *path, const char **err);
/* "CUDA_ERROR_OUT_OF_MEMORY" or "CUresult 2", in buf. */
const char *cd_cu_strerror(const struct cd_cuda_api *cu, CUresult r, char *buf, size_t len);

#endif
