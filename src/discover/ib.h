/* SPDX-License-Identifier: BSD-3-Clause */
/* ib.c's sysfs reader and pure helpers, exported for tests/check_ib.c. */
#ifndef CD_IB_H
#define CD_IB_H

#include <stdint.h>

#include "results.h"

/*
 * The whole HCA inventory from <sysfs_root>/sys/class/infiniband: devices sorted
 * by name, their ports, GID tables and netdevs. No directory means no HCAs
 * (status ok). Sets h->part[CD_PART_IB]; returns 0. The active MTU is not in
 * sysfs: mtu_bytes stays null on this path.
 */
int cd_ib_read_sysfs(struct cd_host *h, const char *sysfs_root);

/* Names of the IB enums; never NULL ("unknown" for values outside the table). */
const char *cd_ib_port_state_str(int state);     /* 4 -> "active" */
const char *cd_ib_phys_state_str(int phys_state); /* 5 -> "link_up" */

/* verbs' enums to numbers; CD_NULL_I64 / NAN when unknown */
int64_t cd_ib_width_lanes(int active_width);     /* IBV_WIDTH: 1->1, 2->4, 4->8, 8->12, 16->2 */
double cd_ib_speed_lane_gbit(int active_speed);  /* 1 SDR 2.5 ... 128 NDR 100, 256 XDR 200 */
int64_t cd_ib_mtu_bytes(int active_mtu);         /* IBV_MTU: 1->256 ... 5->4096 */
double cd_ib_speed_name_lane_gbit(const char *name); /* "NDR" -> 100 */

/*
 * sysfs "rate": "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)".
 * Returns 0 with width (lanes), per-lane and total Gb/s (total = lanes × lane),
 * or -1 when the text is not of that form.
 */
int cd_ib_parse_rate(const char *text, int64_t *width, double *lane_gbit_s, double *rate_gbit_s);

/* "0c42:a103:0097:a2e4" (sysfs node_guid) -> "0x0c42a1030097a2e4"; NULL when malformed. */
char *cd_ib_guid_str(const char *sysfs_guid);

/* A GID in sysfs form: 1 when IPv4-mapped (::ffff:a.b.c.d), 0 otherwise; -1 when malformed. */
int cd_ib_gid_is_ipv4(const char *gid);
/* 1 when every group is zero (an unused GID table slot). */
int cd_ib_gid_is_zero(const char *gid);

#endif
