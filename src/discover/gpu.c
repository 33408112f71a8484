/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU inventory through the CUDA driver API, loaded at run time. A host without
 * the driver gets a `skipped` GPU section whose reason is the loader's own message.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cuda.h>
#include <nccl.h>

#include "discover_opts.h"
#include "dl.h"
#include "gpu.h"

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

/*
 * The net plugin NCCL would load, found as NCCL finds it: NCCL_NET_PLUGIN=none turns
 * plugins off; a name X is tried as libnccl-net-X.so, then as X; unset, libnccl-net.so.
 * The newest ncclNetPlugin_vN symbol wins; every version's struct starts with its name.
 * Written as NCCL logs it ("Libfabric (v10)"), "internal" when NCCL uses its own.
 */
char *cd_gpu_nccl_net_plugin(const char *env, char **err)
{
	char *cand[2] = { NULL, NULL };
	char *v = NULL;

	if (env && !strcasecmp(env, "none")) {
		*err = xstrdup("NCCL_NET_PLUGIN=none");
		return xstrdup("internal");
	}
	if (env && *env) {
		cand[0] = xasprintf("libnccl-net-%s.so", env);
		cand[1] = xstrdup(env);
	} else {
		cand[0] = xstrdup("libnccl-net.so");
	}
	for (int i = 0; i < 2 && cand[i] && !v; i++) {
		char *e = NULL;
		/* pinned: a plugin's constructors may leave threads or exit handlers behind */
		void *h = cd_dl_open_pinned(cand[i], &e);

		if (!h) {
			if (!*err)
				*err = e;
			else
				free(e);
			continue;
		}
		for (int ver = 11; ver >= 2 && !v; ver--) {
			char sym[32];
			const char *const *name = NULL;
			const struct cd_dl_sym one[] = { { sym, (void **)&name, 1 }, { NULL, NULL, 0 } };

			snprintf(sym, sizeof(sym), "ncclNetPlugin_v%d", ver);
			cd_dl_bind(h, cand[i], one, err);
			if (name)
				v = xasprintf("%s (v%d)", *name ? *name : "unnamed", ver);
		}
		if (!v && !*err)
			*err = xasprintf("%s: no ncclNetPlugin_v2 to _v11 symbol", cand[i]);
		cd_dl_close(h);
	}
	free(cand[0]);
	free(cand[1]);
	return v ? v : xstrdup("internal");
}

/*
 * The NVLink generation of nvmlDeviceGetNvLinkVersion's answer, 0 when unknown. The
 * driver has always answered nvmlNvlinkVersion_t, though nvml.h documented the
 * enum only from CUDA 12.8 (hwloc commit 8d00b43df says so): 4 is NVLink 3.0 (A100),
 * not NVLink 4; 6 is 4.0 (H100), 7 is 5.0 (B200), 8 is 6.0.
 */
int cd_nvml_nvlink_gen(unsigned v)
{
	switch (v) {
	case NVML_NVLINK_VERSION_1_0:
		return 1;
	case NVML_NVLINK_VERSION_2_0:
	case NVML_NVLINK_VERSION_2_2:
		return 2;
	case NVML_NVLINK_VERSION_3_0:
	case NVML_NVLINK_VERSION_3_1:
		return 3;
	case NVML_NVLINK_VERSION_4_0:
		return 4;
	case NVML_NVLINK_VERSION_5_0:
		return 5;
	case NVML_NVLINK_VERSION_6_0:
		return 6;
	default:
		return 0;
	}
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", or "MIG-..." for a MIG instance, as nvidia-smi -L writes them. */
char *cd_gpu_uuid_str(const unsigned char b[16], int mig)
{
	return xasprintf("%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", mig ? "MIG" : "GPU",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
			 b[15]);
}

/*
 * CUDA devices that are MIG instances: CUDA lists each instance as a device with its
 * parent's PCI bus id, and cuDeviceGetUuid_v2 gives the instance's own UUID, which
 * nvidia-smi writes "MIG-...". A device is one when another shares its bus id, or
 * when NVML says MIG is on for that GPU (mig_on[i], may be NULL: one instance alone).
 */
void cd_gpu_mark_mig(struct cd_host *h, const int *mig_on)
{
	for (size_t i = 0; i < h->n_gpus; i++) {
		struct cd_gpu *g = &h->gpus[i];
		int mig = mig_on && mig_on[i];

		for (size_t j = 0; j < h->n_gpus && !mig && g->bus_id; j++)
			mig = j != i && h->gpus[j].bus_id && !strcasecmp(h->gpus[j].bus_id, g->bus_id);
		if (mig && g->uuid && !strncmp(g->uuid, "GPU-", 4))
			memcpy(g->uuid, "MIG-", 4);
	}
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

/* NVML's view of one GPU: its PCIe link as the driver trained it, persistence, NVLinks. */
static void nvml_facts(const struct cd_nvml_api *nv, struct cd_gpu *g)
{
	nvmlDevice_t d;
	unsigned v;
	nvmlEnableState_t on;

	if (!g->bus_id || nv->DeviceGetHandleByPciBusId(g->bus_id, &d) != NVML_SUCCESS)
		return;
	if (nv->DeviceGetCurrPcieLinkGeneration(d, &v) == NVML_SUCCESS)
		g->pcie_gen = v;
	if (nv->DeviceGetCurrPcieLinkWidth(d, &v) == NVML_SUCCESS)
		g->pcie_width = v;
	if (nv->DeviceGetMaxPcieLinkGeneration(d, &v) == NVML_SUCCESS)
		g->pcie_max_gen = v;
	if (nv->DeviceGetMaxPcieLinkWidth(d, &v) == NVML_SUCCESS)
		g->pcie_max_width = v;
	if (nv->DeviceGetPersistenceMode(d, &on) == NVML_SUCCESS)
		g->persistence = on ? CD_TRI_TRUE : CD_TRI_FALSE;
	for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		struct cd_nvlink *l;
		nvmlPciInfo_t pci;
		int type;

		/* links past the GPU's count answer NOT_SUPPORTED or INVALID_ARGUMENT */
		if (nv->DeviceGetNvLinkState(d, link, &on) != NVML_SUCCESS)
			continue;
		l = cd_gpu_add_nvlink(g);
		l->link = link;
		l->up = on ? CD_TRI_TRUE : CD_TRI_FALSE;
		if (nv->DeviceGetNvLinkVersion(d, link, &v) == NVML_SUCCESS && cd_nvml_nvlink_gen(v) > 0)
			l->version = cd_nvml_nvlink_gen(v);
		if (nv->DeviceGetNvLinkRemotePciInfo(d, link, &pci) == NVML_SUCCESS)
			l->remote_bus_id = xasprintf("%04x:%02x:%02x.0", pci.domain, pci.bus, pci.device);
		if (nv->DeviceGetNvLinkRemoteDeviceType && nv->DeviceGetNvLinkRemoteDeviceType(d, link, &type) == NVML_SUCCESS)
			l->remote_kind = xstrdup(type == NVML_NVLINK_DEVICE_TYPE_GPU      ? "gpu" :
						 type == NVML_NVLINK_DEVICE_TYPE_SWITCH   ? "nvswitch" :
						 type == NVML_NVLINK_DEVICE_TYPE_IBMNPU   ? "cpu" : "unknown");
	}
}

static void inventory(struct cd_host *h, const struct cd_discover_opts *o, const struct cd_cuda_api *cu)
{
	char eb[32];
	CUresult r;
	int n = 0, ver = 0;

	if (cu->DriverGetVersion(&ver) == CUDA_SUCCESS)
		h->versions.cuda_driver = ver;
	r = cu->DeviceGetCount(&n);
	if (r != CUDA_SUCCESS) {
		cd_section_set(&h->part[CD_PART_GPU], CD_ST_ERROR, "cuDeviceGetCount: %s",
			       cd_cu_strerror(cu, r, eb, sizeof(eb)));
		return;
	}
	for (int i = 0; i < n; i++) {
		struct cd_gpu *g;
		CUdevice dev;
		char name[256], bus[64];
		size_t mem = 0;
		int major = -1, minor = -1;
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
		if (cu->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS &&
		    cu->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS)
			g->compute_capability = xasprintf("%d.%d", major, minor);
		/* "GPU-" until cd_gpu_mark_mig knows which devices are MIG instances */
		if (cu->DeviceGetUuid && cu->DeviceGetUuid(&uu, dev) == CUDA_SUCCESS)
			g->uuid = cd_gpu_uuid_str((const unsigned char *)uu.bytes, 0);
	}
	cd_section_set(&h->part[CD_PART_GPU], CD_ST_OK, NULL);
}

static const char *const p2p_status_names[] = {
	"ok", "chipset_not_supported", "gpu_not_supported", "ioh_topology_not_supported", "disabled_by_regkey",
	"not_supported", "unknown",
};

void cd_gpu_p2p_matrix(struct cd_host *h)
{
	struct cd_paths *p = &h->paths;
	const char *why = NULL;
	const struct cd_cuda_api *cu = cd_dl_cuda(&why);
	const struct cd_nvml_api *nv = cd_dl_nvml(&why);
	size_t n = h->n_gpus;

	if (!cu || !p->gpu_gpu || p->gpus.n != n)
		return;
	free(p->cuda_p2p);
	p->cuda_p2p = xcalloc(n * n + 1, sizeof(*p->cuda_p2p));
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			CUdevice a, b;
			nvmlDevice_t da, db;
			int can = 0, st;

			p->cuda_p2p[i * n + j] = CD_TRI_NULL;
			if (i == j)
				continue;
			if (cu->DeviceGet(&a, (int)h->gpus[i].index) == CUDA_SUCCESS &&
			    cu->DeviceGet(&b, (int)h->gpus[j].index) == CUDA_SUCCESS &&
			    cu->DeviceCanAccessPeer(&can, a, b) == CUDA_SUCCESS)
				p->cuda_p2p[i * n + j] = can ? CD_TRI_TRUE : CD_TRI_FALSE;
			if (nv && nv->DeviceGetHandleByPciBusId(h->gpus[i].bus_id, &da) == NVML_SUCCESS &&
			    nv->DeviceGetHandleByPciBusId(h->gpus[j].bus_id, &db) == NVML_SUCCESS &&
			    nv->DeviceGetP2PStatus(da, db, NVML_P2P_CAPS_INDEX_READ, &st) == NVML_SUCCESS) {
				free(p->nvml_p2p[i * n + j]);
				p->nvml_p2p[i * n + j] =
					xstrdup(st >= 0 && (size_t)st < ARRAY_SIZE(p2p_status_names) ? p2p_status_names[st] : "unknown");
			}
		}
	}
}

/*
 * NVSwitch systems route NVLink traffic only once the fabric manager has set up
 * the switches: whether its daemon runs is the fact (nvidia-fabricmanager starts
 * nv-fabricmanager). NULL where there are no NVSwitches.
 */
static void fabric_manager(struct cd_host *h, const char *proc_root)
{
	int nvswitch = 0, running = 0;
	char *path;
	DIR *d;
	struct dirent *e;

	for (size_t i = 0; i < h->n_pci; i++)
		nvswitch |= h->pci[i].vendor_id == 0x10de && h->pci[i].class_id == 0x0680;
	if (!nvswitch)
		return;
	path = xasprintf("%s/proc", proc_root ? proc_root : "");
	d = opendir(path);
	free(path);
	while (d && !running && (e = readdir(d))) {
		char comm[64], *p;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		p = xasprintf("%s/proc/%s/comm", proc_root ? proc_root : "", e->d_name);
		if (cd_read_line(p, comm, sizeof(comm)) == 0 && !strcmp(comm, "nv-fabricmanager"))
			running = 1;
		free(p);
	}
	if (d)
		closedir(d);
	free(h->system.fabric_manager);
	h->system.fabric_manager = xstrdup(d ? (running ? "running" : "not running") : "unknown");
}

int cd_gpu_discover(struct cd_host *h, const struct cd_discover_opts *o)
{
	const struct cd_cuda_api *cu;
	const struct cd_nvml_api *nv;
	char buf[128], *err = NULL, *path;
	const char *why = NULL, *plugin;

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
	plugin = getenv("NCCL_NET_PLUGIN");
	if (h->versions.nccl && plugin && *plugin && strcasecmp(plugin, "none") && !o->load_net_plugin) {
		/*
		 * A library the environment names is not loaded: its constructors would run as
		 * whoever runs commdiag (root in a prolog), chosen by the environment being
		 * checked. The plugin's version stays unknown unless the admin asks.
		 */
		cd_debug(1, "gpu: nccl net plugin: NCCL_NET_PLUGIN=%s is not loaded (--load-net-plugin loads it)",
			 plugin);
	} else if (h->versions.nccl) {
		h->versions.nccl_net_plugin = cd_gpu_nccl_net_plugin(plugin, &err);
		if (err)
			cd_debug(1, "gpu: nccl net plugin: %s: %s", h->versions.nccl_net_plugin, err);
		free(err);
	}

	fabric_manager(h, o->sysfs_root);
	cu = cd_dl_cuda(&why);
	if (!cu) {
		/* no driver, or a driver without devices, is a host without GPUs to test; anything else is a fault */
		cd_section_set(&h->part[CD_PART_GPU], cd_dl_cuda_absent() ? CD_ST_SKIPPED : CD_ST_ERROR, "%s", why);
		return 0;
	}
	inventory(h, o, cu);
	nv = cd_dl_nvml(&why);
	if (nv) {
		char ver[96];
		int *mig_on = xcalloc(h->n_gpus + 1, sizeof(*mig_on));

		if (!h->versions.driver && nv->SystemGetDriverVersion(ver, sizeof(ver)) == NVML_SUCCESS)
			h->versions.driver = xstrdup(ver);
		for (size_t i = 0; i < h->n_gpus; i++) {
			nvmlDevice_t d;
			unsigned cur, pending;

			nvml_facts(nv, &h->gpus[i]);
			if (nv->DeviceGetMigMode && h->gpus[i].bus_id &&
			    nv->DeviceGetHandleByPciBusId(h->gpus[i].bus_id, &d) == NVML_SUCCESS &&
			    nv->DeviceGetMigMode(d, &cur, &pending) == NVML_SUCCESS)
				mig_on[i] = cur == NVML_DEVICE_MIG_ENABLE;
		}
		cd_gpu_mark_mig(h, mig_on);
		free(mig_on);
	} else {
		cd_debug(1, "gpu: no NVML facts: %s", why);
		cd_gpu_mark_mig(h, NULL);
	}
	return 0;
}
