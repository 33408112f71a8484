/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "discover.h"
#include "fault.h"

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
	for (size_t i = 0; i < h->n_gpus; i++)
		if (h->gpus[i].numa == CD_NULL_I64 && (d = pci_by_bus(h, h->gpus[i].bus_id)))
			h->gpus[i].numa = d->numa;
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
		return 0;
	}
	if ((rc = section(h, o, CD_PART_NET, cd_net_discover)) != 0 ||
	    (rc = section(h, o, CD_PART_IB, cd_ib_discover)) != 0 ||
	    (rc = section(h, o, CD_PART_GPU, cd_gpu_discover)) != 0)
		return rc < 0 ? -1 : 0;
	cd_discover_join(h);
	return 0;
}
