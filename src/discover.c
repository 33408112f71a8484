/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "discover.h"

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
}

int cd_discover_host(struct cd_host *h, const struct cd_discover_opts *o)
{
	if (cd_system_discover(h, o) < 0)
		return -1;
	h->versions.cjson = xstrdup(cJSON_Version());
	if (cd_topo_discover(h, o) < 0)
		return -1;
	if (o->topology_xml) {
		/* the XML is another machine: its PCI tree must not be mixed with this host's devices */
		static const enum cd_part live[] = { CD_PART_NET, CD_PART_IB, CD_PART_GPU };

		for (size_t i = 0; i < ARRAY_SIZE(live); i++)
			cd_section_set(&h->part[live[i]], CD_ST_SKIPPED,
				       "--topology replays '%s': live devices are not discovered", o->topology_xml);
		return 0;
	}
	if (cd_net_discover(h, o) < 0 || cd_ib_discover(h, o) < 0 || cd_gpu_discover(h, o) < 0)
		return -1;
	cd_discover_join(h);
	return 0;
}
