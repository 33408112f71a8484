/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discovery: each module fills only its own part of a host and records in
 * h->part[CD_PART_*] whether it is ok, skipped or failed, and why. A fact that
 * cannot be had is a null with a reason, never an error: these functions return
 * -1 only for bad user input (a --topology file hwloc rejects), after printing
 * the message once.
 */
#ifndef CD_DISCOVER_H
#define CD_DISCOVER_H

#include "results.h"

struct cd_discover_opts {
	const char *topology_xml; /* --topology: replay this hwloc XML instead of the live machine */
	const char *sysfs_root;   /* tests: prefix for /sys and /proc reads (NULL = "") */
	const char *nccl_lib;     /* --nccl-lib */
};

/* system.c: hostname, host id, kernel, container, limits, IOMMU, env snapshot */
int cd_system_discover(struct cd_host *h, const struct cd_discover_opts *o);
/* topo.c: NUMA nodes and PCI devices from hwloc (live or XML), versions.hwloc */
int cd_topo_discover(struct cd_host *h, const struct cd_discover_opts *o);
/* net.c: interfaces, addresses and default routes from libnl-route-3, versions.libnl */
int cd_net_discover(struct cd_host *h, const struct cd_discover_opts *o);
/* ib.c: HCAs and ports from libibverbs + sysfs, versions.libibverbs */
int cd_ib_discover(struct cd_host *h, const struct cd_discover_opts *o);
/* gpu.c: driver, NVML, NCCL through dl.c; versions.driver/cuda_driver/nccl */
int cd_gpu_discover(struct cd_host *h, const struct cd_discover_opts *o);

/* discover.c: all of the above in order, then the cross-module joins (NUMA of a NIC by bus id). */
int cd_discover_host(struct cd_host *h, const struct cd_discover_opts *o);
/* Give NICs, HCAs and GPUs the bus id and NUMA node hwloc knows when sysfs did not say. */
void cd_discover_join(struct cd_host *h);

#endif
