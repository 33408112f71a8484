/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of discovery: the options they share and each part's entry point. A header of
 * its own so the parts and discover.c, which runs them in order, include it alike and not
 * each other (no include circle).
 */
#ifndef CD_DISCOVER_OPTS_H
#define CD_DISCOVER_OPTS_H

#include "results.h"

struct cd_discover_opts {
	const char *topology_xml; /* --topology: replay this hwloc XML instead of the live machine */
	const char *sysfs_root;   /* tests: prefix for /sys and /proc reads (NULL = "") */
	const char *nccl_lib;     /* --nccl-lib */
	int load_net_plugin;      /* --load-net-plugin: dlopen what NCCL_NET_PLUGIN names */
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

#endif
