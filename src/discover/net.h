/* SPDX-License-Identifier: BSD-3-Clause */
/* net.c's pure helpers, exported for tests/check_net.c. */
#ifndef CD_NET_H
#define CD_NET_H

#include <stdint.h>

#include "results.h"

/*
 * The kind of an interface from what the kernel says about it: the rtnl link
 * type (IFLA_INFO_KIND, NULL for plain devices), the IFF_* flags, the ARPHRD_*
 * hardware type, whether /sys/class/net/X/device exists (a bus device) and
 * whether /sys/class/net/X/tun_flags exists (a tun/tap device).
 */
enum cd_nic_kind cd_net_classify(const char *link_type, unsigned flags, int arptype,
				 int has_bus_device, int is_tun);

/* "0000:3b:00.0" (domain of 4 or more hex digits) is a PCI address; "virtio2" is not. */
int cd_net_is_pci_addr(const char *s);

/*
 * Link speed from the text of /sys/class/net/X/speed: Mb/s, or CD_NULL_I64 for
 * anything that is not a positive number (-1, the SPEED_UNKNOWN of some drivers).
 */
int64_t cd_net_parse_speed(const char *text);

#endif
