/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "discover.h"
#include "gpu.h"
#include "topo.h"
#include "fault.h"
#include "progress.h"

static const struct cd_pci_device *pci_by_bus(const struct cd_host *h, const char *bus_id)
{
	for (size_t i = 0; bus_id && i < h->n_pci; i++)
		if (h->pci[i].bus_id && !strcasecmp(h->pci[i].bus_id, bus_id))
			return &h->pci[i];
	return NULL;
}

/*
 * sysfs says -1 for numa_node on single-node machines and some VMs; hwloc then
 * still places the device under the one NUMA node, so take its answer.
 */
static const struct cd_pci_device *pci_by_osdev(const struct cd_host *h, const char *name)
{
	for (size_t i = 0; name && i < h->n_pci; i++)
		for (size_t k = 0; k < h->pci[i].os_devices.n; k++)
			if (!strcmp(h->pci[i].os_devices.v[k], name))
				return &h->pci[i];
	return NULL;
}

/* PCI addresses compare by value: NVML writes 8-digit domains, sysfs and hwloc 4. */
static int bus_eq(const char *a, const char *b)
{
	unsigned x[4], y[4];

	if (!a || !b)
		return 0;
	if (sscanf(a, "%x:%x:%x.%x", &x[0], &x[1], &x[2], &x[3]) != 4 ||
	    sscanf(b, "%x:%x:%x.%x", &y[0], &y[1], &y[2], &y[3]) != 4)
		return !strcasecmp(a, b);
	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

/*
 * hwloc lists GPUs in bus order; CUDA numbers them its own way (CUDA_DEVICE_ORDER,
 * and CUDA_VISIBLE_DEVICES, which hides some and renumbers the rest from 0). Rows
 * and columns follow the CUDA device numbers, so "GPU3" means the same device in
 * the matrix, the probes and NCCL's logs (not always nvidia-smi's number, which is
 * PCI order over all GPUs). A GPU CUDA does not see is left out: no job here can
 * use it. MIG instances share their GPU's bus id and so its row. Without the
 * driver's list (no driver), or with a GPU hwloc did not see, hwloc's order stays.
 */
static void paths_in_gpu_order(struct cd_host *h)
{
	struct cd_paths *p = &h->paths, q = { 0 };
	size_t n = p->gpus.n, m = p->nets.n, c = h->n_gpus, *at;

	if (!p->gpu_gpu || !c)
		return;
	at = xcalloc(c, sizeof(*at));
	for (size_t i = 0; i < c; i++) {
		size_t k = 0;

		while (k < n && !bus_eq(h->gpus[i].bus_id, p->gpus.v[k]))
			k++;
		if (k == n) {
			free(at);
			return;
		}
		at[i] = k;
	}
	for (size_t i = 0; i < c; i++)
		cd_strv_push(&q.gpus, p->gpus.v[at[i]]);
	for (size_t j = 0; j < m; j++)
		cd_strv_push(&q.nets, p->nets.v[j]);
	cd_paths_alloc(&q);
	for (size_t i = 0; i < c; i++) {
		for (size_t j = 0; j < c; j++)
			q.gpu_gpu[i * c + j] = xstrdup(p->gpu_gpu[at[i] * n + at[j]]);
		for (size_t j = 0; j < m; j++)
			q.gpu_net[i * m + j] = xstrdup(p->gpu_net[at[i] * m + j]);
	}
	q.source = p->source;
	p->source = NULL;
	cd_paths_free(p);
	*p = q;
	free(at);
}

/* NVLinks the driver reports (NVML), counted per GPU pair and into NVSwitches. */
static void paths_from_nvlinks(struct cd_host *h)
{
	struct cd_paths *p = &h->paths;
	size_t n = p->gpus.n;
	int any = 0, *sw;

	if (!p->gpu_gpu || n != h->n_gpus)
		return;
	sw = xcalloc(n, sizeof(*sw));
	for (size_t i = 0; i < n; i++)
		for (size_t l = 0; l < h->gpus[i].n_nvlinks; l++) {
			const struct cd_nvlink *k = &h->gpus[i].nvlinks[l];

			sw[i] += k->up == CD_TRI_TRUE && k->remote_kind && !strcmp(k->remote_kind, "nvswitch");
		}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			int links = 0, via = sw[i] < sw[j] ? sw[i] : sw[j];

			if (i == j)
				continue;
			for (size_t l = 0; l < h->gpus[i].n_nvlinks; l++) {
				const struct cd_nvlink *k = &h->gpus[i].nvlinks[l];

				links += k->up == CD_TRI_TRUE && bus_eq(k->remote_bus_id, h->gpus[j].bus_id);
			}
			if (!links)
				links = via;
			if (!links)
				continue;
			free(p->gpu_gpu[i * n + j]);
			p->gpu_gpu[i * n + j] = xasprintf("NV%d", links);
			any = 1;
		}
	}
	free(sw);
	if (any) {
		free(p->source);
		p->source = xstrdup("hwloc+nvml");
	}
}

void cd_discover_join(struct cd_host *h)
{
	const struct cd_pci_device *d;

	/* virtio and other non-PCI parents hide the bus id from sysfs; hwloc's OS device names still match */
	for (size_t i = 0; i < h->n_nics; i++)
		if (!h->nics[i].bus_id && (d = pci_by_osdev(h, h->nics[i].name)))
			h->nics[i].bus_id = xstrdup(d->bus_id);
	for (size_t i = 0; i < h->n_hcas; i++)
		if (!h->hcas[i].bus_id && (d = pci_by_osdev(h, h->hcas[i].name)))
			h->hcas[i].bus_id = xstrdup(d->bus_id);

	for (size_t i = 0; i < h->n_nics; i++)
		if (h->nics[i].numa == CD_NULL_I64 && (d = pci_by_bus(h, h->nics[i].bus_id)))
			h->nics[i].numa = d->numa;
	for (size_t i = 0; i < h->n_hcas; i++)
		if (h->hcas[i].numa == CD_NULL_I64 && (d = pci_by_bus(h, h->hcas[i].bus_id)))
			h->hcas[i].numa = d->numa;
	for (size_t i = 0; i < h->n_gpus; i++) {
		struct cd_gpu *g = &h->gpus[i];

		if (!(d = pci_by_bus(h, g->bus_id)))
			continue;
		if (g->numa == CD_NULL_I64)
			g->numa = d->numa;
		/* the driver (NVML) said nothing: the PCI tree's link is the same link */
		if (g->pcie_gen == CD_NULL_I64) {
			g->pcie_gen = d->gen;
			g->pcie_width = d->width;
			g->pcie_max_gen = d->max_gen;
			g->pcie_max_width = d->max_width;
		}
		if (isnan(g->pcie_link_gbyte_s))
			g->pcie_link_gbyte_s = d->link_gbyte_s;
	}
	paths_in_gpu_order(h);
	paths_from_nvlinks(h);
	cd_gpu_p2p_matrix(h);
}

/*
 * discover.stall=SECTION (tests): that section stalls the way a slow step that
 * still comes back to us would, until the run is told to stop; it then counts as
 * not finished. A call that never returns at all is main's backstop's business.
 */
static void stall(struct cd_host *h, enum cd_part p)
{
	const char *v = cd_fault_value("discover.stall");
	struct timespec ts = { 0, 10 * 1000000 };

	if (!v || strcmp(v, cd_part_str(p)))
		return;
	/* a test waits for this line before it signals: the stall has begun, not just the run */
	cd_warn("test fault discover.stall: %s stalls until the run is stopped", cd_part_str(p));
	while (!cd_stop)
		nanosleep(&ts, NULL);
	cd_section_set(&h->part[p], CD_ST_TIMEOUT, "did not finish: stopped by %s (test fault discover.stall)",
		       cd_stop_cause());
}

/*
 * Between two sections is a safe point: once the run is told to stop, the sections
 * from `from` on are marked timeout, unless one already says how it ended, and
 * discovery ends there.
 */
static int stopped(struct cd_host *h, enum cd_part from)
{
	if (!cd_stop)
		return 0;
	for (int p = from; p < CD_PART_COUNT; p++)
		if (h->part[p].status != CD_ST_TIMEOUT)
			cd_section_set(&h->part[p], CD_ST_TIMEOUT, "not run: stopped by %s during discovery",
				       cd_stop_cause());
	return 1;
}

/* One section at a safe point: 1 when the run is stopping (the rest is marked), -1 on bad input. */
static int section(struct cd_host *h, const struct cd_discover_opts *o, enum cd_part p,
		   int (*fn)(struct cd_host *h, const struct cd_discover_opts *o))
{
	if (stopped(h, p))
		return 1;
	cd_progress_step("discover %s", cd_part_str(p));
	stall(h, p);
	if (h->part[p].status == CD_ST_TIMEOUT)
		return stopped(h, p + 1), 1;
	return fn(h, o) < 0 ? -1 : 0;
}

int cd_discover_host(struct cd_host *h, const struct cd_discover_opts *o)
{
	int rc;

	if ((rc = section(h, o, CD_PART_SYSTEM, cd_system_discover)) != 0)
		return rc < 0 ? -1 : 0;
	h->versions.cjson = xstrdup(cJSON_Version());
	if ((rc = section(h, o, CD_PART_TOPO, cd_topo_discover)) != 0)
		return rc < 0 ? -1 : 0;
	if (o->topology_xml) {
		/* the XML is another machine: its PCI tree must not be mixed with this host's devices */
		static const enum cd_part live[] = { CD_PART_NET, CD_PART_IB, CD_PART_GPU };

		for (size_t i = 0; i < ARRAY_SIZE(live); i++)
			cd_section_set(&h->part[live[i]], CD_ST_SKIPPED,
				       "--topology replays '%s': live devices are not discovered", o->topology_xml);
		cd_paths_decide_p2p(h);
		return 0;
	}
	if ((rc = section(h, o, CD_PART_NET, cd_net_discover)) != 0 ||
	    (rc = section(h, o, CD_PART_IB, cd_ib_discover)) != 0 ||
	    (rc = section(h, o, CD_PART_GPU, cd_gpu_discover)) != 0)
		return rc < 0 ? -1 : 0;
	cd_discover_join(h);
	cd_paths_decide_p2p(h);
	return 0;
}
