/* SPDX-License-Identifier: BSD-3-Clause */
/* explain's reader of the interface and HCA lists NCCL prints (see explain_nics.c). */
#ifndef CD_EXPLAIN_NICS_H
#define CD_EXPLAIN_NICS_H

#include <stddef.h>

#include "results.h"

/* The kind an interface's name says (lo, docker0, veth…, ib0, bond0, eth0.100). */
enum cd_nic_kind cd_explain_nic_kind(const char *name);

/*
 * One "[N]name:addr<N>" item of NCCL's interface list at *pp (the "[N]" is optional): fills
 * name and addr and returns 1, moving *pp past the item's '>' (NULL when none follows: the
 * list ends there); 0 when *pp holds no item.
 */
int cd_explain_iface_item(const char **pp, char *name, size_t name_len, char *addr, size_t addr_len);

/* "[0]eth0:10.0.0.1<0> [1]veth1:fe80::1%veth1<0>": each interface added to h (once, its first address). */
void cd_explain_nccl_ifaces(struct cd_host *h, const char *p);

/* "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:…": each HCA added to h with its active port. */
void cd_explain_nccl_hcas(struct cd_host *h, const char *p);

#endif
