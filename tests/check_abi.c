/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ABI commdiag assumes of libraries it loads but does not link (dl.[ch]).
 *
 * At compile time: every function pointer of struct cd_cuda_api and cd_nccl_api has
 * the type of the function cuda.h and nccl.h (this build's $(CUDA_HOME)/include)
 * declare. A member whose type drifts from the header stops the build here.
 *
 * At run time: the name dl.c binds each member by is the one the header maps the
 * call to (cuMemAlloc -> cuMemAlloc_v2: an unversioned name would bind the old
 * ABI), every member is bound, and every name resolves in the toolkit's stub
 * libcuda.so and in the installed libnccl.so.2; then the real NCCL is called
 * through commdiag's own loader for what it does without a GPU.
 *
 * NVML has neither header nor stub here: src/core/nvml.h was checked by hand
 * against NVIDIA's nvml.h (its comment and docs/TESTING.md say which); the
 * layout and values it copies are pinned below so an edit must be re-checked.
 *
 * Where the stub or NCCL is missing the test says so on stderr and checks nothing
 * more ("abi: skip: ..."); scripts/bootstrap.sh refuses a machine without them.
 */
#include <check.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nccl.h>

#include "dl.h"
#include "suites.h"
#include "util.h"

#ifndef CD_CUDA_HOME
#define CD_CUDA_HOME "/usr/local/cuda"
#endif

#define XSTR(x) STR(x)
#define STR(x) #x
#define SAME_TYPE(type, member, fn) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(((type *)0)->member), __typeof__(&fn)), \
		       #type "." #member " is not the type of " #fn " in the header")

/* member, the call as a program writes it (the header's macro gives the exported name) */
#define CUDA_ABI(X) \
	X(Init, cuInit) X(DriverGetVersion, cuDriverGetVersion) X(GetErrorName, cuGetErrorName) \
	X(DeviceGetCount, cuDeviceGetCount) X(DeviceGet, cuDeviceGet) X(DeviceGetName, cuDeviceGetName) \
	X(DeviceGetPCIBusId, cuDeviceGetPCIBusId) X(DeviceTotalMem, cuDeviceTotalMem) \
	X(DeviceGetUuid, cuDeviceGetUuid) X(DeviceGetAttribute, cuDeviceGetAttribute) \
	X(DeviceCanAccessPeer, cuDeviceCanAccessPeer) X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain) \
	X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease) X(CtxSetCurrent, cuCtxSetCurrent) \
	X(CtxEnablePeerAccess, cuCtxEnablePeerAccess) X(MemAlloc, cuMemAlloc) X(MemFree, cuMemFree) \
	X(MemHostAlloc, cuMemHostAlloc) X(MemFreeHost, cuMemFreeHost) X(MemcpyHtoDAsync, cuMemcpyHtoDAsync) \
	X(MemcpyDtoHAsync, cuMemcpyDtoHAsync) X(MemcpyDtoDAsync, cuMemcpyDtoDAsync) \
	X(MemcpyPeerAsync, cuMemcpyPeerAsync) X(MemsetD32Async, cuMemsetD32Async) X(StreamCreate, cuStreamCreate) \
	X(StreamDestroy, cuStreamDestroy) X(StreamQuery, cuStreamQuery) X(EventCreate, cuEventCreate) \
	X(EventDestroy, cuEventDestroy) X(EventRecord, cuEventRecord) X(EventElapsedTime, cuEventElapsedTime) \
	X(StreamWaitValue32, cuStreamWaitValue32) X(MemHostGetDevicePointer, cuMemHostGetDevicePointer) \
	X(StreamBeginCapture, cuStreamBeginCapture) X(StreamEndCapture, cuStreamEndCapture) \
	X(GraphInstantiate, cuGraphInstantiate) X(GraphLaunch, cuGraphLaunch) X(GraphExecDestroy, cuGraphExecDestroy) \
	X(GraphDestroy, cuGraphDestroy)

#define NCCL_ABI(X) \
	X(GetVersion, ncclGetVersion) X(GetErrorString, ncclGetErrorString) X(GetLastError, ncclGetLastError) \
	X(GetUniqueId, ncclGetUniqueId) X(CommInitRankConfig, ncclCommInitRankConfig) \
	X(CommGetAsyncError, ncclCommGetAsyncError) X(CommAbort, ncclCommAbort) X(CommDestroy, ncclCommDestroy) \
	X(CommSplit, ncclCommSplit) X(GroupStart, ncclGroupStart) X(GroupEnd, ncclGroupEnd) X(AllReduce, ncclAllReduce) \
	X(AllGather, ncclAllGather) X(ReduceScatter, ncclReduceScatter) X(Broadcast, ncclBroadcast) \
	X(Reduce, ncclReduce) X(Send, ncclSend) X(Recv, ncclRecv)

/*
 * NVML, from nvml.h of NVML_API_VERSION 13 (go-nvml gen/nvml/nvml.h, commit
 * 2f9e261fe40a): the exported name of each call (nvml.h maps nvmlInit to _v2 and
 * so on). Written out because there is no header to take them from.
 */
#define NVML_ABI(X) \
	X(Init, nvmlInit_v2) X(ErrorString, nvmlErrorString) X(SystemGetDriverVersion, nvmlSystemGetDriverVersion) \
	X(DeviceGetHandleByPciBusId, nvmlDeviceGetHandleByPciBusId_v2) \
	X(DeviceGetCurrPcieLinkGeneration, nvmlDeviceGetCurrPcieLinkGeneration) \
	X(DeviceGetCurrPcieLinkWidth, nvmlDeviceGetCurrPcieLinkWidth) \
	X(DeviceGetMaxPcieLinkGeneration, nvmlDeviceGetMaxPcieLinkGeneration) \
	X(DeviceGetMaxPcieLinkWidth, nvmlDeviceGetMaxPcieLinkWidth) \
	X(DeviceGetPersistenceMode, nvmlDeviceGetPersistenceMode) X(DeviceGetNvLinkState, nvmlDeviceGetNvLinkState) \
	X(DeviceGetNvLinkVersion, nvmlDeviceGetNvLinkVersion) \
	X(DeviceGetNvLinkRemotePciInfo, nvmlDeviceGetNvLinkRemotePciInfo_v2) \
	X(DeviceGetNvLinkRemoteDeviceType, nvmlDeviceGetNvLinkRemoteDeviceType) \
	X(DeviceGetP2PStatus, nvmlDeviceGetP2PStatus) X(DeviceGetMigMode, nvmlDeviceGetMigMode)

#define CUDA_TYPE(m, fn) SAME_TYPE(struct cd_cuda_api, m, fn);
#define NCCL_TYPE(m, fn) SAME_TYPE(struct cd_nccl_api, m, fn);
CUDA_ABI(CUDA_TYPE)
NCCL_ABI(NCCL_TYPE)

/* nvmlPciInfo_t as nvml.h lays it out (busIdLegacy[16], four and one unsigned, busId[32]) */
_Static_assert(offsetof(nvmlPciInfo_t, domain) == 16 && offsetof(nvmlPciInfo_t, bus) == 20 &&
		       offsetof(nvmlPciInfo_t, device) == 24 && offsetof(nvmlPciInfo_t, pciSubSystemId) == 32 &&
		       offsetof(nvmlPciInfo_t, busId) == 36 && sizeof(nvmlPciInfo_t) == 68,
	       "nvmlPciInfo_t is not nvml.h's layout");
_Static_assert(NVML_NVLINK_MAX_LINKS == 36 && NVML_P2P_CAPS_INDEX_READ == 0 && NVML_DEVICE_MIG_ENABLE == 1 &&
		       NVML_NVLINK_DEVICE_TYPE_SWITCH == 2 && NVML_NVLINK_VERSION_3_0 == 4 &&
		       NVML_NVLINK_VERSION_4_0 == 6 && NVML_NVLINK_VERSION_5_0 == 7,
	       "a value in nvml.h differs from NVML API 13's");

struct want {
	const char *name;
	size_t offset;
};

#define CUDA_WANT(m, fn) { XSTR(fn), offsetof(struct cd_cuda_api, m) },
#define NCCL_WANT(m, fn) { XSTR(fn), offsetof(struct cd_nccl_api, m) },
#define NVML_WANT(m, fn) { #fn, offsetof(struct cd_nvml_api, m) },
static const struct want cuda_want[] = { CUDA_ABI(CUDA_WANT) };
static const struct want nccl_want[] = { NCCL_ABI(NCCL_WANT) };
static const struct want nvml_want[] = { NVML_ABI(NVML_WANT) };

static size_t count(const struct cd_dl_sym *t)
{
	size_t n = 0;

	while (t[n].name)
		n++;
	return n;
}

/*
 * Each entry of a dl.c table binds the member its name is declared for: entries point
 * into one static struct, so the lowest address is its first member and an entry's
 * offset from there names the member. Every member is bound exactly once.
 */
static void table_matches(const char *what, const struct cd_dl_sym *t, size_t struct_size, const struct want *w,
			  size_t nw)
{
	size_t n = count(t);
	uintptr_t base = UINTPTR_MAX;

	ck_assert_msg(n == nw, "%s: dl.c binds %zu symbols, the ABI list has %zu", what, n, nw);
	ck_assert_msg(struct_size == nw * sizeof(void (*)(void)), "%s: the struct has members no list names", what);
	for (size_t i = 0; i < n; i++)
		if ((uintptr_t)t[i].addr < base)
			base = (uintptr_t)t[i].addr;
	for (size_t i = 0; i < n; i++) {
		size_t off = (size_t)((uintptr_t)t[i].addr - base), k = 0;

		while (k < nw && w[k].offset != off)
			k++;
		ck_assert_msg(k < nw, "%s: '%s' binds no member", what, t[i].name);
		ck_assert_msg(!strcmp(t[i].name, w[k].name), "%s: dl.c binds '%s' where the header's call is '%s'", what,
			      t[i].name, w[k].name);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(t[j].addr != t[i].addr, "%s: '%s' and '%s' bind one member", what, t[j].name,
				      t[i].name);
	}
}

START_TEST(test_cuda_names)
{
	table_matches("cuda", cd_dl_cuda_syms, sizeof(struct cd_cuda_api), cuda_want, ARRAY_SIZE(cuda_want));
}
END_TEST

START_TEST(test_nccl_names)
{
	table_matches("nccl", cd_dl_nccl_syms, sizeof(struct cd_nccl_api), nccl_want, ARRAY_SIZE(nccl_want));
}
END_TEST

START_TEST(test_nvml_names)
{
	table_matches("nvml", cd_dl_nvml_syms, sizeof(struct cd_nvml_api), nvml_want, ARRAY_SIZE(nvml_want));
}
END_TEST

/* The first of paths that dlopen takes, NULL (and a skip line) when none. */
static void *open_first(const char *const *paths, const char **used)
{
	for (size_t i = 0; paths[i]; i++) {
		void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);

		if (h) {
			*used = paths[i];
			return h;
		}
	}
	fprintf(stderr, "abi: skip: none of");
	for (size_t i = 0; paths[i]; i++)
		fprintf(stderr, " %s", paths[i]);
	fprintf(stderr, " loads (%s)\n", dlerror());
	return NULL;
}

/* Every name, the optional ones too: the toolkit and NCCL here are newer than any of them. */
static void resolves(void *h, const char *lib, const struct cd_dl_sym *t)
{
	for (size_t i = 0; t[i].name; i++)
		ck_assert_msg(dlsym(h, t[i].name) != NULL, "%s: '%s' does not resolve", lib, t[i].name);
}

START_TEST(test_cuda_stub_resolves)
{
	static const char *const paths[] = { CD_CUDA_HOME "/lib64/stubs/libcuda.so",
					     CD_CUDA_HOME "/targets/x86_64-linux/lib/stubs/libcuda.so", NULL };
	const char *lib = NULL;
	void *h = open_first(paths, &lib);

	if (!h)
		return;
	resolves(h, lib, cd_dl_cuda_syms);
	dlclose(h);
}
END_TEST

static const char *const nccl_paths[] = { CD_SONAME_NCCL, CD_CUDA_HOME "/lib64/libnccl.so.2",
					  CD_CUDA_HOME "/lib/libnccl.so.2", NULL };

START_TEST(test_nccl_resolves)
{
	const char *lib = NULL;
	void *h = open_first(nccl_paths, &lib);

	if (!h)
		return;
	resolves(h, lib, cd_dl_nccl_syms);
	dlclose(h);
}
END_TEST

/* What the real NCCL does without a GPU, through cd_dl_nccl (nccl.h of 2.28 documents these). */
START_TEST(test_nccl_calls)
{
	const char *lib = NULL, *err = NULL;
	void *probe = open_first(nccl_paths, &lib);
	const struct cd_nccl_api *nc;
	ncclUniqueId id, zero;
	ncclResult_t r;
	int ver = 0;

	if (!probe)
		return;
	dlclose(probe);
	nc = cd_dl_nccl(lib, &err);
	ck_assert_msg(nc != NULL, "cd_dl_nccl(%s): %s", lib, err);
	ck_assert_int_eq(nc->GetVersion(&ver), ncclSuccess);
	/* an older library than the header commdiag was built with may lack what the header promises */
	ck_assert_msg(ver >= NCCL_VERSION_CODE, "%s is NCCL %d, older than nccl.h's %d", lib, ver, NCCL_VERSION_CODE);
	ck_assert_int_eq(nc->GetVersion(NULL), ncclInvalidArgument);
	ck_assert_str_eq(nc->GetErrorString(ncclSuccess), "no error");
	ck_assert_msg(!strncmp(nc->GetErrorString(ncclInvalidArgument), "invalid argument", 16), "%s",
		      nc->GetErrorString(ncclInvalidArgument));
	ck_assert_str_eq(nc->GetErrorString((ncclResult_t)999), "unknown result code");
	/*
	 * ncclGetUniqueId picks a socket interface for the bootstrap: with one it succeeds
	 * and the id holds a magic and that address; with none (a network namespace with only
	 * lo down) it fails, ncclInvalidUsage in 2.28 ("Bootstrap : no socket interface
	 * found", bootstrap.cc), and ncclGetLastError says why. NCCL_COMM_ID would bypass it.
	 */
	unsetenv("NCCL_COMM_ID");
	memset(&id, 0, sizeof(id));
	memset(&zero, 0, sizeof(zero));
	r = nc->GetUniqueId(&id);
	if (r == ncclSuccess) {
		ck_assert_msg(memcmp(&id, &zero, sizeof(id)) != 0, "ncclGetUniqueId succeeded with an all-zero id");
	} else {
		ck_assert_msg(r == ncclInvalidUsage || r == ncclSystemError || r == ncclInternalError,
			      "ncclGetUniqueId: %d (%s)", (int)r, nc->GetErrorString(r));
		ck_assert_msg(nc->GetLastError && nc->GetLastError(NULL) && *nc->GetLastError(NULL),
			      "ncclGetUniqueId failed (%d) and ncclGetLastError says nothing", (int)r);
		fprintf(stderr, "abi: ncclGetUniqueId without a socket interface: %s\n", nc->GetLastError(NULL));
	}
}
END_TEST

Suite *abi_suite(void)
{
	Suite *s = suite_create("abi");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, test_cuda_names);
	tcase_add_test(tc, test_nccl_names);
	tcase_add_test(tc, test_nvml_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("libraries");
	tcase_add_test(tc, test_cuda_stub_resolves);
	tcase_add_test(tc, test_nccl_resolves);
	tcase_add_test(tc, test_nccl_calls);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
