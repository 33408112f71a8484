/* SPDX-License-Identifier: BSD-3-Clause */
/* topo.c helpers that tests reach directly; cd_topo_discover() is in discover.h. */
#ifndef CD_TOPO_H
#define CD_TOPO_H

#include "results.h"

/*
 * PCIe generation of a sysfs link speed ("16.0 GT/s PCIe", "8.0 GT/s", "2.5 GT/s"):
 * 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6. Returns -1 when unknown
 * ("Unknown", NULL, an odd rate).
 */
int cd_topo_pcie_gen_from_speed(const char *s);

/*
 * Fill d->gen, width, max_gen, max_width from
 * <sysfs_root>/sys/bus/pci/devices/<d->bus_id>/{current,max}_link_{speed,width};
 * a value that cannot be read stays null. sysfs_root may be NULL ("").
 */
void cd_topo_read_pcie_link(struct cd_pci_device *d, const char *sysfs_root);

/*
 * A path class on NCCL's P2P scale: X 0, NV# 1, PIX 2, PXB 3, PHB and NODE 4,
 * SYS 5; -1 for anything else (NULL, unknown names).
 */
int cd_path_class_rank(const char *cls);
/* MB/s of one NVLink in hwloc's NVLinkBandwidth matrix (n × n, and n into NVSwitches), as topo.c explains. */
double cd_nvlink_unit(const double *bw, const double *to_switch, size_t n, const char *hwloc_version, int gen5);
/* 1 when hwloc's GPUModel names an NVLink 5 GPU. */
int cd_nvlink_gen5_model(const char *model);

/*
 * Fill h->paths' P2P cutoff and nccl_p2p from its classes and the host's
 * NCCL_P2P_DISABLE / NCCL_P2P_LEVEL (NCCL's default cutoff is PXB).
 */
void cd_paths_decide_p2p(struct cd_host *h);

/* ACS control bits that send peer-to-peer requests and completions up to the root complex */
#define CD_ACS_RR 0x0004
#define CD_ACS_CR 0x0008

/*
 * The ACS control register from a device's config space (len bytes of sysfs
 * "config"): 1 found, 0 no ACS capability, -1 the extended space is not there
 * (fewer than 260 bytes: non-root readers see 64).
 */
int cd_pci_acs_ctrl(const unsigned char *cfg, size_t len, unsigned *ctrl);
/* Append bus_id's ACS state to h->acs, from <sysfs_root>/sys/bus/pci/devices/<bus_id>/config. */
void cd_topo_read_acs(struct cd_host *h, const char *bus_id, const char *sysfs_root);

#endif
