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

#include "discover_opts.h"
#include "results.h"

/* discover.c: every part (discover_opts.h) in order, then the cross-module joins (NUMA of a NIC by bus id). */
int cd_discover_host(struct cd_host *h, const struct cd_discover_opts *o);
/* Give NICs, HCAs and GPUs the bus id and NUMA node hwloc knows when sysfs did not say. */
void cd_discover_join(struct cd_host *h);

#endif
