/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo: NUMA nodes and PCI devices from hwloc, live or replayed from an XML
 * export (--topology FILE.xml). The hwloc topology never leaves this file: it
 * is loaded, the facts are copied into the host, and it is destroyed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <hwloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover_opts.h"
#include "topo.h"

/* PCI base classes (class_id >> 8) and full class codes (base << 8 | subclass) */
#define PCI_CLASS_NETWORK	0x02
#define PCI_CLASS_STORAGE	0x01
#define PCI_CLASS_DISPLAY	0x03
#define PCI_CLASS_IB_NET	0x0207	/* network controller, InfiniBand */
#define PCI_CLASS_IB_SERIAL	0x0c06	/* serial bus controller, InfiniBand (older HCAs, mlx4) */
#define PCI_VENDOR_NVIDIA	0x10de

int cd_topo_pcie_gen_from_speed(const char *s)
{
	static const struct { double gt_s; int gen; } gens[] = {
		{ 2.5, 1 }, { 5.0, 2 }, { 8.0, 3 }, { 16.0, 4 }, { 32.0, 5 }, { 64.0, 6 },
	};
	char *end;
	double v;

	if (!s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return -1;
	while (*end == ' ')
		end++;
	if (strncmp(end, "GT/s", 4) != 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(gens); i++)
		if (fabs(v - gens[i].gt_s) < 0.01)
			return gens[i].gen;
	return -1;
}

static int64_t read_gen(const char *dir, const char *file)
{
	char path[512], buf[64];
	int gen;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (cd_read_line(path, buf, sizeof(buf)) < 0)
		return CD_NULL_I64;
	gen = cd_topo_pcie_gen_from_speed(buf);
	return gen > 0 ? gen : CD_NULL_I64;
}

static int64_t read_width(const char *dir, const char *file)
{
	char path[512], buf[64], *end;
	long w;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (cd_read_line(path, buf, sizeof(buf)) < 0)
		return CD_NULL_I64;
	errno = 0;
	w = strtol(buf, &end, 10);
	/* 0 (link down) and 255 (no link, "x255" in lspci) say nothing about the slot */
	if (end == buf || *end || errno || w <= 0 || w > 32)
		return CD_NULL_I64;
	return w;
}

void cd_topo_read_pcie_link(struct cd_pci_device *d, const char *sysfs_root)
{
	char dir[384];

	if (!d->bus_id)
		return;
	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices/%s", sysfs_root ? sysfs_root : "", d->bus_id);
	d->gen = read_gen(dir, "current_link_speed");
	d->width = read_width(dir, "current_link_width");
	d->max_gen = read_gen(dir, "max_link_speed");
	d->max_width = read_width(dir, "max_link_width");
}

static int numa_cmp(const void *a, const void *b)
{
	const struct cd_numa_node *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

static void copy_numa(struct cd_host *h, hwloc_topology_t topo)
{
	size_t first = h->n_numa;
	hwloc_obj_t obj = NULL;

	while ((obj = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, obj))) {
		struct cd_numa_node *n = cd_host_add_numa(h);
		char *list = NULL;

		n->index = obj->os_index;
		/* a CPU-less node (GPU or CXL memory) has an empty list: known, not null */
		if (obj->cpuset && hwloc_bitmap_list_asprintf(&list, obj->cpuset) >= 0 && list) {
			n->cpus = xstrdup(list);
			free(list);
		}
		if (obj->attr->numanode.local_memory)
			n->memory_bytes = (int64_t)obj->attr->numanode.local_memory;
	}
	qsort(h->numa_nodes + first, h->n_numa - first, sizeof(*h->numa_nodes), numa_cmp);
}

/* OS index of the one NUMA node the device is local to; null when zero or several. */
static int64_t pci_numa(hwloc_topology_t topo, hwloc_obj_t obj)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, obj);

	if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
		return CD_NULL_I64;
	return hwloc_bitmap_first(anc->nodeset);
}

/* Server boards put a small display chip behind the BMC: a VGA device, not a compute GPU. */
static int is_bmc_display(unsigned vendor_id)
{
	return vendor_id == 0x1a03 /* ASPEED */ || vendor_id == 0x102b /* Matrox */;
}

static enum cd_pci_kind pci_kind(unsigned class_id, unsigned vendor_id, int has_verbs)
{
	if (class_id == PCI_CLASS_IB_NET || class_id == PCI_CLASS_IB_SERIAL)
		return CD_PCI_HCA;
	switch (class_id >> 8) {
	case PCI_CLASS_NETWORK:
		/* Ethernet with a verbs device: RoCE (mlx5 in Ethernet mode), iWARP, usNIC */
		return has_verbs ? CD_PCI_HCA : CD_PCI_NIC;
	case PCI_CLASS_DISPLAY:
		return is_bmc_display(vendor_id) ? CD_PCI_OTHER : CD_PCI_GPU;
	case PCI_CLASS_STORAGE:
		return CD_PCI_STORAGE;
	default:
		return has_verbs ? CD_PCI_HCA : CD_PCI_OTHER;
	}
}

static void copy_pci(struct cd_host *h, hwloc_topology_t topo, const char *sysfs_root, int live)
{
	hwloc_obj_t obj = NULL;

	while ((obj = hwloc_get_next_pcidev(topo, obj))) {
		struct hwloc_pcidev_attr_s *pa = &obj->attr->pcidev;
		struct cd_pci_device *d = cd_host_add_pci(h);
		const char *s;
		int has_verbs = 0;

		d->bus_id = xasprintf("%04x:%02x:%02x.%01x", pa->domain, pa->bus, pa->dev, pa->func);
		d->vendor_id = pa->vendor_id;
		d->device_id = pa->device_id;
		d->class_id = pa->class_id;
		if ((s = hwloc_obj_get_info_by_name(obj, "PCIVendor")) && *s)
			d->vendor = xstrdup(s);
		if ((s = hwloc_obj_get_info_by_name(obj, "PCIDevice")) && *s)
			d->device = xstrdup(s);
		if (pa->linkspeed > 0 && isfinite(pa->linkspeed))
			d->link_gbyte_s = pa->linkspeed;
		d->numa = pci_numa(topo, obj);
		for (hwloc_obj_t c = obj->io_first_child; c; c = c->next_sibling) {
			if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name)
				continue;
			cd_strv_push(&d->os_devices, c->name);
			if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS)
				has_verbs = 1;
		}
		d->kind = pci_kind(pa->class_id, pa->vendor_id, has_verbs);
		if (live)
			cd_topo_read_pcie_link(d, sysfs_root);
	}
}

/* ---- the path matrix (nvidia-smi topo -m) from the PCI tree and hwloc's NVLink distances ---- */

#define MAX_PATH_DEPTH 64

static hwloc_obj_t pci_parent_dev(hwloc_obj_t o)
{
	while (o && o->type != HWLOC_OBJ_PCI_DEVICE)
		o = o->parent;
	return o;
}

/* The matrix is about what CUDA and NCCL drive: NVIDIA display-class devices. */
static int is_gpu_obj(hwloc_obj_t o)
{
	return (o->attr->pcidev.class_id >> 8) == PCI_CLASS_DISPLAY && o->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA;
}

static int is_nvswitch_obj(hwloc_obj_t o)
{
	const char *sub = o->subtype;

	return sub && !strcmp(sub, "NVSwitch");
}

/* The name a network device goes by: its verbs name (mlx5_0) first, else its netdev (eth0). */
static const char *net_name(hwloc_obj_t pci)
{
	const char *netdev = NULL;

	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name)
			continue;
		if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS)
			return c->name;
		if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && !netdev)
			netdev = c->name;
	}
	return netdev;
}

/*
 * The PCIe part of a path class: where a and b meet in the tree. Below one PCIe
 * switch (at most one bridge on each side of the meeting bridge) is PIX; more
 * switches without the host bridge PXB; through a host bridge PHB; across host
 * bridges within one NUMA node NODE; otherwise SYS.
 */
static const char *pcie_class(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b)
{
	hwloc_obj_t up[MAX_PATH_DEPTH], lca = NULL, o;
	int n = 0, ka = -1, kb = 0;
	int64_t na, nb;

	for (o = a; o && n < MAX_PATH_DEPTH; o = o->parent)
		up[n++] = o;
	for (o = b; o && !lca; o = o->parent, kb++)
		for (int i = 0; i < n; i++)
			if (up[i] == o) {
				lca = o;
				ka = i;
				break;
			}
	if (!lca)
		return "SYS";
	kb--; /* the loop counted the step onto the meeting object */
	if (lca->type == HWLOC_OBJ_BRIDGE) {
		int bridges_a = 0, bridges_b = 0;

		if (lca->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
			return "PHB";
		for (int i = 1; i < ka; i++)
			bridges_a += up[i]->type == HWLOC_OBJ_BRIDGE;
		for (o = b->parent; o && o != lca; o = o->parent)
			bridges_b += o->type == HWLOC_OBJ_BRIDGE;
		return bridges_a <= 1 && bridges_b <= 1 ? "PIX" : "PXB";
	}
	if (lca->type == HWLOC_OBJ_PCI_DEVICE) /* functions of one device */
		return "PIX";
	(void)kb;
	na = pci_numa(topo, a);
	nb = pci_numa(topo, b);
	return na != CD_NULL_I64 && na == nb ? "NODE" : "SYS";
}

/*
 * NVLink bandwidth between PCI devices, from hwloc's "NVLinkBandwidth" matrix (its
 * NVML backend; present in exports from NVLink machines). Objects may be NVML OS
 * devices or PCI devices (NVSwitches); both are reduced to their PCI device.
 */
struct nvl {
	hwloc_obj_t *gpus;
	size_t n;
	double *bw;        /* n × n, MB/s between GPUs */
	double *to_switch; /* n: MB/s from each GPU into NVSwitches */
};

static int gpu_slot(const struct nvl *v, hwloc_obj_t pci)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->gpus[i] == pci)
			return (int)i;
	return -1;
}

static void nvlink_bandwidth(hwloc_topology_t topo, struct nvl *v)
{
	struct hwloc_distances_s *d[4];
	unsigned nr = ARRAY_SIZE(d);

	if (hwloc_distances_get_by_name(topo, "NVLinkBandwidth", &nr, d, 0) < 0)
		return;
	for (unsigned k = 0; k < nr && k < ARRAY_SIZE(d); k++) {
		unsigned m = d[k]->nbobjs;

		for (unsigned i = 0; i < m; i++) {
			hwloc_obj_t a = pci_parent_dev(d[k]->objs[i]);
			int ia = a ? gpu_slot(v, a) : -1;

			if (ia < 0)
				continue;
			for (unsigned j = 0; j < m; j++) {
				hwloc_obj_t b = pci_parent_dev(d[k]->objs[j]);
				double bw = (double)d[k]->values[i * m + j];
				int ib;

				if (i == j || !b || bw <= 0)
					continue;
				if ((ib = gpu_slot(v, b)) >= 0)
					v->bw[(size_t)ia * v->n + (size_t)ib] = bw;
				else if (is_nvswitch_obj(b))
					v->to_switch[ia] += bw;
			}
		}
		hwloc_distances_release(topo, d[k]);
	}
}

/*
 * hwloc reports NVLink as bandwidth, per link and direction, from NVML's
 * nvmlDeviceGetNvLinkVersion (hwloc/topology-nvml.c): 20000 MB/s for NVLink 1
 * (P100), 25000 for NVLink 2 to 4 (V100, A100, H100). From hwloc 2.12.0 (NEWS:
 * "Update NVLink bandwidth ... up to NVIDIA Blackwell", commit 8d00b43df) NVLink 5
 * (B200) is 50000; older releases give NVLink 5 no bandwidth at all.
 *
 * 50000 cannot be told from two links of 25000 by the values alone, so with such
 * an hwloc it is taken when a GPU of the matrix is NVLink 5 (gen5, from its model
 * name), or when one GPU's NVLinks add up to more than the 18 links of 25000 that
 * the largest NVLink 4 GPU (H100 SXM) has. Otherwise, the per-link rate is the one
 * that divides every value (P100's 40000 is two links of 20000, not 1.6 of 25000).
 * hwloc_version is the release that measured: the topology root's "hwlocVersion".
 */
double cd_nvlink_unit(const double *bw, const double *to_switch, size_t n, const char *hwloc_version, int gen5)
{
	static const double units[] = { 25000, 20000 };
	unsigned major = 0, minor = 0;

	if (hwloc_version && sscanf(hwloc_version, "%u.%u", &major, &minor) == 2 &&
	    (major > 2 || (major == 2 && minor >= 12))) {
		for (size_t i = 0; i < n && !gen5; i++) {
			double sum = to_switch[i];

			for (size_t j = 0; j < n; j++)
				sum += bw[i * n + j];
			gen5 = sum > 18 * 25000.0;
		}
		if (gen5)
			return 50000;
	}
	for (size_t u = 0; u < ARRAY_SIZE(units); u++) {
		int fits = 1;

		for (size_t i = 0; i < n * n && fits; i++)
			fits = fmod(bw[i], units[u]) == 0;
		for (size_t i = 0; i < n && fits; i++)
			fits = fmod(to_switch[i], units[u]) == 0;
		if (fits)
			return units[u];
	}
	return 25000;
}

/* NVLink 5 GPUs (Blackwell data-center parts: B100, B200, B300, GB200, GB300) by hwloc's GPUModel. */
int cd_nvlink_gen5_model(const char *model)
{
	static const char *const names[] = { "B100", "B200", "B300", "GB200", "GB300" };

	for (size_t i = 0; model && i < ARRAY_SIZE(names); i++)
		if (strstr(model, names[i]))
			return 1;
	return 0;
}

/* The GPUModel hwloc's NVML or CUDA OS device under a GPU's PCI object gives, NULL without one. */
static const char *gpu_model(hwloc_obj_t pci)
{
	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		const char *m = hwloc_obj_get_info_by_name(c, "GPUModel");

		if (m)
			return m;
	}
	return NULL;
}

static void copy_paths(struct cd_host *h, hwloc_topology_t topo)
{
	struct cd_paths *p = &h->paths;
	struct nvl v = { 0 };
	hwloc_obj_t obj = NULL, *nets = NULL;
	size_t n_nets = 0, cap_nets = 0, cap_gpus = 0;
	double unit;
	int gen5 = 0;

	while ((obj = hwloc_get_next_pcidev(topo, obj))) {
		if (is_gpu_obj(obj)) {
			*CD_PUSH(v.gpus, v.n, cap_gpus) = obj;
		} else if (net_name(obj)) {
			*CD_PUSH(nets, n_nets, cap_nets) = obj;
		}
	}
	cd_paths_free(p);
	if (!v.n) {
		free(nets);
		free(v.gpus);
		return;
	}
	for (size_t i = 0; i < v.n; i++) {
		struct hwloc_pcidev_attr_s *pa = &v.gpus[i]->attr->pcidev;
		char *bus = xasprintf("%04x:%02x:%02x.%01x", pa->domain, pa->bus, pa->dev, pa->func);

		cd_strv_push(&p->gpus, bus);
		free(bus);
	}
	for (size_t j = 0; j < n_nets; j++)
		cd_strv_push(&p->nets, net_name(nets[j]));
	cd_paths_alloc(p);
	p->source = xstrdup("hwloc");
	v.bw = xcalloc(v.n * v.n, sizeof(*v.bw));
	v.to_switch = xcalloc(v.n, sizeof(*v.to_switch));
	nvlink_bandwidth(topo, &v);
	for (size_t i = 0; i < v.n; i++)
		gen5 |= cd_nvlink_gen5_model(gpu_model(v.gpus[i]));
	unit = cd_nvlink_unit(v.bw, v.to_switch, v.n,
			      hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "hwlocVersion"), gen5);
	for (size_t i = 0; i < v.n; i++) {
		for (size_t j = 0; j < v.n; j++) {
			double links = v.bw[i * v.n + j] / unit;
			double sw = fmin(v.to_switch[i], v.to_switch[j]) / unit;

			if (i == j)
				p->gpu_gpu[i * v.n + j] = xstrdup("X");
			else if (links >= 1 || sw >= 1)
				p->gpu_gpu[i * v.n + j] = xasprintf("NV%d", (int)(links >= 1 ? links : sw));
			else
				p->gpu_gpu[i * v.n + j] = xstrdup(pcie_class(topo, v.gpus[i], v.gpus[j]));
		}
		for (size_t j = 0; j < n_nets; j++)
			p->gpu_net[i * n_nets + j] = xstrdup(pcie_class(topo, v.gpus[i], nets[j]));
	}
	free(v.bw);
	free(v.to_switch);
	free(v.gpus);
	free(nets);
}

/* ---- PCIe ACS on the bridges above GPUs ---- */

#define PCI_EXT_CAP_START 0x100
#define PCI_EXT_CAP_ID_ACS 0x000d
#define PCI_ACS_CTRL 6

int cd_pci_acs_ctrl(const unsigned char *cfg, size_t len, unsigned *ctrl)
{
	size_t off = PCI_EXT_CAP_START;
	int hops = 0;

	if (len < PCI_EXT_CAP_START + 4)
		return -1;
	/* the extended capability list: a 16-bit id, 4-bit version, 12-bit next offset */
	while (off && off + 8 <= len && hops++ < 256) {
		uint32_t hdr = (uint32_t)cfg[off] | (uint32_t)cfg[off + 1] << 8 | (uint32_t)cfg[off + 2] << 16 |
			       (uint32_t)cfg[off + 3] << 24;

		if (hdr == 0 || hdr == 0xffffffffu)
			return 0;
		if ((hdr & 0xffff) == PCI_EXT_CAP_ID_ACS) {
			*ctrl = (unsigned)cfg[off + PCI_ACS_CTRL] | (unsigned)cfg[off + PCI_ACS_CTRL + 1] << 8;
			return 1;
		}
		off = (hdr >> 20) & 0xffc;
		if (off < PCI_EXT_CAP_START)
			return 0;
	}
	return 0;
}

void cd_topo_read_acs(struct cd_host *h, const char *bus_id, const char *sysfs_root)
{
	char *path = xasprintf("%s/sys/bus/pci/devices/%s/config", sysfs_root ? sysfs_root : "", bus_id);
	unsigned char cfg[4096];
	struct cd_acs *a = cd_host_add_acs(h);
	size_t len = 0;
	unsigned ctrl;
	FILE *f;
	int rc;

	a->bus_id = xstrdup(bus_id);
	f = fopen(path, "rb");
	if (f) {
		len = fread(cfg, 1, sizeof(cfg), f);
		fclose(f);
	}
	if (!f) {
		a->reason = xasprintf("cannot read %s: %s", path, strerror(errno));
	} else if ((rc = cd_pci_acs_ctrl(cfg, len, &ctrl)) < 0) {
		/* the kernel hides everything past the first 64 bytes from non-root readers */
		a->reason = xasprintf("only %zu bytes of PCI config space readable: run as root to read ACS", len);
	} else if (rc == 0) {
		a->redirect = CD_TRI_FALSE;
		a->reason = xstrdup("no ACS capability");
	} else {
		a->ctrl = ctrl;
		a->redirect = ctrl & (CD_ACS_RR | CD_ACS_CR) ? CD_TRI_TRUE : CD_TRI_FALSE;
	}
	free(path);
}

/* Every PCI-to-PCI bridge above a GPU, once: P2P between GPUs crosses them. */
static void read_acs_above_gpus(struct cd_host *h, hwloc_topology_t topo, const char *sysfs_root)
{
	hwloc_obj_t obj = NULL;

	while ((obj = hwloc_get_next_pcidev(topo, obj))) {
		if (!is_gpu_obj(obj))
			continue;
		for (hwloc_obj_t b = obj->parent; b && b->type == HWLOC_OBJ_BRIDGE; b = b->parent) {
			struct hwloc_pcidev_attr_s *pa = &b->attr->pcidev;
			char bus[16];
			size_t k;

			if (b->attr->bridge.upstream_type != HWLOC_OBJ_BRIDGE_PCI)
				break; /* the host bridge has no config space of its own here */
			snprintf(bus, sizeof(bus), "%04x:%02x:%02x.%01x", pa->domain, pa->bus, pa->dev, pa->func);
			for (k = 0; k < h->n_acs && strcmp(h->acs[k].bus_id, bus); k++)
				;
			if (k == h->n_acs)
				cd_topo_read_acs(h, bus, sysfs_root);
		}
	}
}

/*
 * The hwloc release in use at run time. hwloc has no release-string API
 * (hwloc_get_api_version() is the API, 0x20800 for all of 2.8.x-2.9.x), but
 * hwloc_topology_load() records its own HWLOC_VERSION as the root's
 * "hwlocVersion" info. A replayed XML carries the exporter's version there
 * instead, so ask the library with a one-PU synthetic topology (with an explicit
 * NUMA node: hwloc 2.9's implicit one trips valgrind's memcpy overlap check).
 * If that fails, fall back to the build-time HWLOC_VERSION only when the
 * run-time API matches the headers; otherwise the version stays null.
 */
static char *hwloc_runtime_version(void)
{
	hwloc_topology_t t;
	char *v = NULL;

	if (hwloc_topology_init(&t) < 0)
		return NULL;
	if (hwloc_topology_set_synthetic(t, "node:1 pu:1") == 0 && hwloc_topology_load(t) == 0) {
		const char *s = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "hwlocVersion");

		if (s && *s)
			v = xstrdup(s);
	}
	hwloc_topology_destroy(t);
	if (!v && hwloc_get_api_version() == HWLOC_API_VERSION)
		v = xstrdup(HWLOC_VERSION);
	return v;
}

/*
 * hwloc's PCI plugin (hwloc_pci.so) asks libpciaccess for vendor and device
 * names; libpciaccess caches them in a static tree that pci_system_cleanup()
 * keeps. When hwloc_topology_destroy() unloads the plugin, libpciaccess goes
 * with it and that tree becomes a "definitely lost" leak (valgrind, and LSan
 * fails SANITIZE=1 test runs). Keeping the library mapped makes it reachable.
 * libxml2, which hwloc's XML plugin (hwloc_xml_libxml.so) brings in for
 * --topology, is the same: a file declaring an encoding libxml2 does not know
 * ("UTF-4") leaves ~3 KB in its static tables (found by fuzz_topology_xml).
 * The handles are never closed on purpose; without the library this is a no-op.
 */
static int pinned_pciaccess, pinned_libxml2;

static void pin(const char *soname, int *done)
{
	if (*done)
		return;
	*done = 1;
	if (!dlopen(soname, RTLD_LAZY | RTLD_NODELETE))
		cd_debug(2, "topo: %s not pinned: %s", soname, dlerror());
}

/*
 * errno text for a --topology file we cannot even read, NULL when it opens and
 * has bytes; its first bytes go to head (NUL-terminated) for a better message.
 */
static const char *check_readable(const char *path, char *head, size_t len)
{
	const char *kind = NULL;
	FILE *f = cd_open_input(path, &kind);
	size_t n;
	int err;

	head[0] = '\0';
	if (!f && kind) /* a FIFO would block hwloc's read */
		return !strcmp(kind, "a directory") ? strerror(EISDIR) : !strcmp(kind, "a FIFO") ? "a FIFO, not a file" :
		       "not a regular file";
	if (!f)
		return strerror(errno);
	errno = 0;
	n = fread(head, 1, len - 1, f);
	err = ferror(f) ? errno : 0;
	fclose(f);
	head[n] = '\0';
	if (err)
		return strerror(err);
	if (!n)
		return "empty file";
	return NULL;
}

/*
 * hwloc 2.9's XML importer (Debian 12's) dereferences NULL on some malformed files,
 * e.g. an object with a cpuset but no complete_cpuset (fixed upstream in 2026:
 * open-mpi/hwloc#783, #816; found here by tests/fuzz/fuzz_topology_xml). A file from
 * another machine must not crash us, so a child process loads it first and only
 * a file that did not kill the child is loaded here. NULL when it is safe to try,
 * else why not. The child's stderr is closed so hwloc's complaints come once, and
 * it dies with us; a run told to stop (cd_stop) stops waiting for it.
 */
/*
 * A PU or NUMA node without os_index: hwloc takes index 2^32-1 for it and sizes a bitmap
 * to match (half a GiB of memset, seconds of CPU; fuzzing found it). hwloc never writes
 * such an object, so the file is refused before hwloc sees it. NULL when none.
 */
static const char *xml_lacks_os_index(const char *xml)
{
	const char *kind = NULL;
	FILE *f = cd_open_input(xml, &kind);
	char *text, *p, *end;
	size_t len = 0;
	const char *why = NULL;

	if (!f)
		return NULL; /* check_readable said why already */
	text = cd_read_file(f, (size_t)256 << 20, &len);
	fclose(f);
	if (!text)
		return NULL;
	for (p = text; !why && (p = strstr(p, "<object")); p = end) {
		char save;

		end = strchr(p, '>');
		if (!end)
			break;
		save = *end;
		*end = '\0';
		if ((strstr(p, "type=\"PU\"") || strstr(p, "type=\"NUMANode\"")) && !strstr(p, " os_index=\""))
			why = "a PU or NUMA node without os_index: not an export hwloc wrote";
		*end = save;
	}
	free(text);
	return why;
}

static const char *xml_crashes_hwloc(const char *xml)
{
	static char why[96];
	struct timespec ms = { 0, 1000000 };
	int status = 0, devnull;
	pid_t pid = fork();

	if (pid < 0)
		return NULL; /* cannot tell: load it here, as without this check */
	if (pid == 0) {
		hwloc_topology_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* the default action, not a sanitizer's report: the parent says what happened */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		if (hwloc_topology_init(&t) < 0)
			_exit(1);
		hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
		_exit(hwloc_topology_set_xml(t, xml) < 0 || hwloc_topology_load(t) < 0);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (cd_stop) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return "stopped while hwloc was reading it";
		}
		nanosleep(&ms, NULL);
	}
	if (!WIFSIGNALED(status))
		return NULL;
	snprintf(why, sizeof(why), "hwloc crashed reading it (%s): not a valid hwloc XML topology",
		 strsignal(WTERMSIG(status)));
	return why;
}

/* Why hwloc refused a file that could be read: name the usual mix-up. */
static const char *xml_reject_reason(const char *head, int err)
{
	if (strstr(head, "<system") && !strstr(head, "<topology"))
		return "an NCCL topology file (NCCL_TOPO_FILE), not an hwloc XML export "
		       "(make one with 'lstopo --of xml FILE.xml')";
	if (err && err != EINVAL)
		return strerror(err);
	return "not a valid hwloc XML topology (expected the output of 'lstopo --of xml')";
}

static int replay_error(struct cd_section *st, const char *xml, const char *why)
{
	cd_section_set(st, CD_ST_ERROR, "cannot load topology '%s': %s", xml, why);
	return cd_error("topo: cannot load topology '%s': %s", xml, why);
}

int cd_topo_discover(struct cd_host *h, const struct cd_discover_opts *o)
{
	const char *xml = o ? o->topology_xml : NULL;
	const char *sysfs_root = o ? o->sysfs_root : NULL;
	struct cd_section *st = &h->part[CD_PART_TOPO];
	hwloc_topology_t topo;
	char head[4096];
	const char *why;
	int live;

	free(h->versions.hwloc);
	h->versions.hwloc = hwloc_runtime_version();

	if (xml && ((why = check_readable(xml, head, sizeof(head))) || (why = xml_lacks_os_index(xml)) ||
		    (why = xml_crashes_hwloc(xml))))
		return replay_error(st, xml, why);
	if (!xml)
		pin("libpciaccess.so.0", &pinned_pciaccess);
	else
		pin("libxml2.so.2", &pinned_libxml2);

	if (hwloc_topology_init(&topo) < 0) {
		if (xml)
			return replay_error(st, xml, strerror(errno));
		cd_section_set(st, CD_ST_ERROR, "hwloc_topology_init: %s", strerror(errno));
		return 0;
	}
	/* PCI devices, bridges and OS devices (eth0, mlx5_0, nvml0) are dropped by default */
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/*
	 * Components that reach what any local user controls: gl connects to X displays :0-:9
	 * (127.0.0.1:6000+, /tmp/.X11-unix), where a listener that never answers stalled
	 * discovery until the deadline and a prolog drained the node; opencl loads whatever
	 * ICDs OCL_ICD_VENDORS names, as root. commdiag needs neither (GPUs come from the
	 * driver through gpu.c).
	 */
	hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
	hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "opencl");

	if (xml) {
		/* not HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM: the file describes another machine */
		if (hwloc_topology_set_xml(topo, xml) < 0 || hwloc_topology_load(topo) < 0) {
			int err = errno;

			hwloc_topology_destroy(topo);
			return replay_error(st, xml, xml_reject_reason(head, err));
		}
	} else if (hwloc_topology_load(topo) < 0) {
		int err = errno;

		hwloc_topology_destroy(topo);
		cd_section_set(st, CD_ST_ERROR, "hwloc cannot load the live topology: %s", strerror(err));
		return 0;
	}
	/* HWLOC_XMLFILE or HWLOC_SYNTHETIC in the environment can stand in for the machine */
	live = !xml && hwloc_topology_is_thissystem(topo);
	if (!xml && !live)
		cd_warn("topo: hwloc was redirected away from this machine (HWLOC_XMLFILE?); "
			"PCIe link states not read");

	free(h->topology_source);
	h->topology_source = xstrdup(xml ? xml : "live");
	copy_numa(h, topo);
	copy_pci(h, topo, sysfs_root, live);
	copy_paths(h, topo);
	if (live)
		read_acs_above_gpus(h, topo, sysfs_root);
	hwloc_topology_destroy(topo);

	cd_debug(1, "topo: %zu NUMA nodes, %zu PCI devices from %s", h->n_numa, h->n_pci,
		 h->topology_source);
	cd_section_set(st, CD_ST_OK, NULL);
	return 0;
}

/*
 * NCCL_P2P_LEVEL's names and legacy integers (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS) as
 * a rank on the class scale; NODE is NCCL's PHB (same NUMA node, through the CPU).
 */
static int level_rank(const char *s)
{
	static const struct { const char *name; int rank; } names[] = {
		{ "LOC", 0 }, { "NVL", 1 }, { "PIX", 2 }, { "PXB", 3 }, { "PHB", 4 }, { "NODE", 4 }, { "SYS", 5 },
	};
	char *end;
	long v;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].rank;
	v = strtol(s, &end, 10);
	if (end != s && !*end && v >= 0) /* legacy integers skip NVL */
		return v == 0 ? 0 : v >= 4 ? 5 : (int)v + 1;
	return -1;
}

int cd_path_class_rank(const char *cls)
{
	if (!cls)
		return -1;
	if (!strcmp(cls, "X"))
		return 0;
	if (!strncmp(cls, "NV", 2) && cls[2] >= '1' && cls[2] <= '9')
		return 1;
	return strncmp(cls, "NV", 2) ? level_rank(cls) : -1;
}

static const char *env_of(const struct cd_host *h, const char *key)
{
	for (size_t i = 0; i < h->n_env; i++)
		if (!strcmp(h->env[i].key, key))
			return h->env[i].value;
	return NULL;
}

void cd_paths_decide_p2p(struct cd_host *h)
{
	struct cd_paths *p = &h->paths;
	const char *level = env_of(h, "NCCL_P2P_LEVEL"), *disable = env_of(h, "NCCL_P2P_DISABLE");
	size_t n = p->gpus.n;
	int cutoff = 3; /* PXB */

	if (!p->gpu_gpu)
		return;
	free(p->p2p_level);
	free(p->p2p_level_source);
	if (disable && strcmp(disable, "0")) {
		/* NCCL reads the variable as an integer: any non-zero value disables P2P */
		p->p2p_level = xstrdup("LOC");
		p->p2p_level_source = xstrdup("NCCL_P2P_DISABLE");
		cutoff = 0;
	} else if (level && level_rank(level) >= 0) {
		p->p2p_level = xstrdup(level);
		p->p2p_level_source = xstrdup("NCCL_P2P_LEVEL");
		cutoff = level_rank(level);
	} else {
		p->p2p_level = xstrdup("PXB");
		p->p2p_level_source = xstrdup(level ? "default (NCCL_P2P_LEVEL not understood)" : "default");
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			int r = cd_path_class_rank(p->gpu_gpu[i * n + j]);

			if (i == j)
				p->nccl_p2p[i * n + j] = CD_TRI_NULL;
			else if (r < 0)
				p->nccl_p2p[i * n + j] = CD_TRI_NULL;
			else
				p->nccl_p2p[i * n + j] = r >= 1 && r <= cutoff ? CD_TRI_TRUE : CD_TRI_FALSE;
		}
	}
}
