/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU inventory through the CUDA driver API, loaded at run time. A host without
 * the driver gets a `skipped` GPU section whose reason is the loader's own message.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nccl.h>

#include "discover.h"
#include "dl.h"
#include "gpu.h"

struct cuda_api {
	CUresult (*Init)(unsigned int);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
	CUresult (*DeviceTotalMem)(size_t *, CUdevice);
	CUresult (*DeviceGetUuid)(CUuuid *, CUdevice);
	CUresult (*GetErrorName)(CUresult, const char **);
};

static const char *cu_err(const struct cuda_api *cu, CUresult r, char *buf, size_t len)
{
	const char *name = NULL;

	if (cu->GetErrorName && cu->GetErrorName(r, &name) == CUDA_SUCCESS && name)
		return name;
	snprintf(buf, len, "CUresult %d", (int)r);
	return buf;
}

char *cd_gpu_nccl_version_str(int v)
{
	/* NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older ones major*1000 + minor*100 + patch */
	if (v >= 10000)
		return xasprintf("%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
	return xasprintf("%d.%d.%d", v / 1000, (v % 1000) / 100, v % 100);
}

char *cd_gpu_nccl_version(const char *lib, char **err)
{
	ncclResult_t (*get_version)(int *) = NULL;
	const struct cd_dl_sym syms[] = { { "ncclGetVersion", (void **)&get_version, 0 }, { NULL, NULL, 0 } };
	void *h = cd_dl_open(lib ? lib : CD_SONAME_NCCL, err);
	char *v = NULL;
	int ver = 0;

	if (!h)
		return NULL;
	if (cd_dl_bind(h, lib ? lib : CD_SONAME_NCCL, syms, err) == 0) {
		ncclResult_t r = get_version(&ver);

		if (r == ncclSuccess && ver > 0)
			v = cd_gpu_nccl_version_str(ver);
		else if (r != ncclSuccess)
			*err = xasprintf("%s: ncclGetVersion failed (ncclResult_t %d)", lib ? lib : CD_SONAME_NCCL, (int)r);
		else
			*err = xasprintf("%s: ncclGetVersion gave version %d", lib ? lib : CD_SONAME_NCCL, ver);
	}
	cd_dl_close(h);
	return v;
}

static void lower(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static void read_numa(const struct cd_discover_opts *o, struct cd_gpu *g)
{
	char *p = xasprintf("%s/sys/bus/pci/devices/%s/numa_node", o->sysfs_root ? o->sysfs_root : "", g->bus_id);
	char buf[32];

	if (cd_read_line(p, buf, sizeof(buf)) == 0 && atoi(buf) >= 0)
		g->numa = atoi(buf);
	free(p);
}

static void inventory(struct cd_host *h, const struct cd_discover_opts *o, const struct cuda_api *cu)
{
	char eb[32];
	CUresult r;
	int n = 0, ver = 0;

	r = cu->Init(0);
	if (r != CUDA_SUCCESS) {
		cd_section_set(&h->part[CD_PART_GPU], CD_ST_SKIPPED, "cuInit: %s", cu_err(cu, r, eb, sizeof(eb)));
		return;
	}
	if (cu->DriverGetVersion(&ver) == CUDA_SUCCESS)
		h->versions.cuda_driver = ver;
	r = cu->DeviceGetCount(&n);
	if (r != CUDA_SUCCESS) {
		cd_section_set(&h->part[CD_PART_GPU], CD_ST_ERROR, "cuDeviceGetCount: %s", cu_err(cu, r, eb, sizeof(eb)));
		return;
	}
	for (int i = 0; i < n; i++) {
		struct cd_gpu *g;
		CUdevice dev;
		char name[256], bus[64];
		size_t mem = 0;
		CUuuid uu;

		if (cu->DeviceGet(&dev, i) != CUDA_SUCCESS)
			continue;
		g = cd_host_add_gpu(h);
		g->index = i;
		if (cu->DeviceGetName(name, sizeof(name), dev) == CUDA_SUCCESS)
			g->name = xstrdup(name);
		if (cu->DeviceGetPCIBusId(bus, sizeof(bus), dev) == CUDA_SUCCESS) {
			g->bus_id = xstrdup(bus);
			lower(g->bus_id);
			read_numa(o, g);
		}
		if (cu->DeviceTotalMem(&mem, dev) == CUDA_SUCCESS)
			g->memory_bytes = (int64_t)mem;
		if (cu->DeviceGetUuid && cu->DeviceGetUuid(&uu, dev) == CUDA_SUCCESS) {
			const unsigned char *b = (const unsigned char *)uu.bytes;

			g->uuid = xasprintf("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
					    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
					    b[12], b[13], b[14], b[15]);
		}
	}
	cd_section_set(&h->part[CD_PART_GPU], CD_ST_OK, NULL);
}

int cd_gpu_discover(struct cd_host *h, const struct cd_discover_opts *o)
{
	struct cuda_api cu = { 0 };
	const struct cd_dl_sym syms[] = {
		{ "cuInit", (void **)&cu.Init, 0 },
		{ "cuDriverGetVersion", (void **)&cu.DriverGetVersion, 0 },
		{ "cuDeviceGetCount", (void **)&cu.DeviceGetCount, 0 },
		{ "cuDeviceGet", (void **)&cu.DeviceGet, 0 },
		{ "cuDeviceGetName", (void **)&cu.DeviceGetName, 0 },
		{ "cuDeviceGetPCIBusId", (void **)&cu.DeviceGetPCIBusId, 0 },
		{ "cuDeviceTotalMem_v2", (void **)&cu.DeviceTotalMem, 0 },
		{ "cuDeviceGetUuid_v2", (void **)&cu.DeviceGetUuid, 1 },
		{ "cuGetErrorName", (void **)&cu.GetErrorName, 1 },
		{ NULL, NULL, 0 },
	};
	char buf[128], *err = NULL, *path;
	void *lib;

	/* the kernel module's version is readable without any user-space library */
	path = xasprintf("%s/sys/module/nvidia/version", o->sysfs_root ? o->sysfs_root : "");
	if (cd_read_line(path, buf, sizeof(buf)) == 0 && buf[0])
		h->versions.driver = xstrdup(buf);
	free(path);

	h->versions.nccl = cd_gpu_nccl_version(o->nccl_lib, &err);
	if (!h->versions.nccl && o->nccl_lib) {
		/* the library a user names must be an NCCL: an n/a would hide the mistake */
		cd_error("option '--nccl-lib': %s: expected an NCCL library (libnccl.so.2)", err);
		free(err);
		return -1;
	}
	if (!h->versions.nccl)
		cd_debug(1, "gpu: nccl version unknown: %s", err);
	free(err);
	err = NULL;

	lib = cd_dl_open(CD_SONAME_CUDA, &err);
	if (!lib) {
		cd_section_set(&h->part[CD_PART_GPU], CD_ST_SKIPPED, "%s", err);
		free(err);
		return 0;
	}
	if (cd_dl_bind(lib, CD_SONAME_CUDA, syms, &err) < 0) {
		cd_section_set(&h->part[CD_PART_GPU], CD_ST_ERROR, "%s", err);
		free(err);
	} else {
		inventory(h, o, &cu);
	}
	/* the driver API keeps state behind cuInit; unloading it is not supported */
	return 0;
}
