/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "net.h"
#include "suites.h"

#define LO_FLAGS (IFF_UP | IFF_LOOPBACK | IFF_RUNNING)
#define ETH_FLAGS (IFF_UP | IFF_BROADCAST | IFF_MULTICAST | IFF_RUNNING)

START_TEST(test_classify)
{
	/* lo */
	ck_assert_int_eq(cd_net_classify(NULL, LO_FLAGS, ARPHRD_LOOPBACK, 0, 0), CD_NIC_LOOPBACK);
	ck_assert_int_eq(cd_net_classify(NULL, 0, ARPHRD_LOOPBACK, 0, 0), CD_NIC_LOOPBACK);
	/* eth0: a plain device on a bus; without the bus it is virtual */
	ck_assert_int_eq(cd_net_classify(NULL, ETH_FLAGS, ARPHRD_ETHER, 1, 0), CD_NIC_PHYSICAL);
	ck_assert_int_eq(cd_net_classify(NULL, ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_VIRTUAL);
	ck_assert_int_eq(cd_net_classify("", ETH_FLAGS, ARPHRD_ETHER, 1, 0), CD_NIC_PHYSICAL);
	/* docker0, virbr0, cni0 */
	ck_assert_int_eq(cd_net_classify("bridge", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_BRIDGE);
	ck_assert_int_eq(cd_net_classify("openvswitch", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_BRIDGE);
	/* veth123 */
	ck_assert_int_eq(cd_net_classify("veth", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_VETH);
	/* bond0, team0 */
	ck_assert_int_eq(cd_net_classify("bond", ETH_FLAGS | IFF_MASTER, ARPHRD_ETHER, 0, 0), CD_NIC_BOND);
	ck_assert_int_eq(cd_net_classify("team", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_BOND);
	/* bond0.2093 */
	ck_assert_int_eq(cd_net_classify("vlan", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_VLAN);
	/* ib0: by hardware type, with or without the rtnl kind */
	ck_assert_int_eq(cd_net_classify("ipoib", ETH_FLAGS, ARPHRD_INFINIBAND, 0, 0), CD_NIC_IPOIB);
	ck_assert_int_eq(cd_net_classify(NULL, ETH_FLAGS, ARPHRD_INFINIBAND, 1, 0), CD_NIC_IPOIB);
	ck_assert_int_eq(cd_net_classify("ipoib", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_IPOIB);
	/* tun0 (IFF_TUN: no L2 header), tap0, and tun on kernels without a kind */
	ck_assert_int_eq(cd_net_classify("tun", IFF_UP | IFF_POINTOPOINT, ARPHRD_NONE, 0, 1), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("tun", ETH_FLAGS, ARPHRD_ETHER, 0, 1), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify(NULL, ETH_FLAGS, ARPHRD_ETHER, 0, 1), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify(NULL, IFF_UP, ARPHRD_NONE, 0, 0), CD_NIC_TUNNEL);
	/* flannel.1 and the other tunnels */
	ck_assert_int_eq(cd_net_classify("vxlan", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("geneve", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("gre", IFF_UP, ARPHRD_IPGRE, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("gretap", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("ipip", IFF_UP, ARPHRD_TUNNEL, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("sit", IFF_UP, ARPHRD_SIT, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("ip6tnl", IFF_UP, ARPHRD_TUNNEL6, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify("wireguard", IFF_UP, ARPHRD_NONE, 0, 0), CD_NIC_TUNNEL);
	ck_assert_int_eq(cd_net_classify(NULL, IFF_UP, ARPHRD_SIT, 0, 0), CD_NIC_TUNNEL);
	/* virtual helpers */
	ck_assert_int_eq(cd_net_classify("macvlan", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_VIRTUAL);
	ck_assert_int_eq(cd_net_classify("ipvlan", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_VIRTUAL);
	ck_assert_int_eq(cd_net_classify("dummy", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_VIRTUAL);
	ck_assert_int_eq(cd_net_classify("ifb", 0, ARPHRD_ETHER, 0, 0), CD_NIC_VIRTUAL);
	ck_assert_int_eq(cd_net_classify("vrf", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_VIRTUAL);
	/* a kind we do not know is "other", even on a bus */
	ck_assert_int_eq(cd_net_classify("can", IFF_UP, 280, 1, 0), CD_NIC_OTHER);
	ck_assert_int_eq(cd_net_classify("frobnicator", ETH_FLAGS, ARPHRD_ETHER, 0, 0), CD_NIC_OTHER);
}
END_TEST

START_TEST(test_pci_addr)
{
	ck_assert(cd_net_is_pci_addr("0000:3b:00.0"));
	ck_assert(cd_net_is_pci_addr("0000:af:1f.7"));
	ck_assert(cd_net_is_pci_addr("10000:01:00.1")); /* VMD domains have five digits */
	ck_assert(!cd_net_is_pci_addr("virtio2"));
	ck_assert(!cd_net_is_pci_addr("3b:00.0"));
	ck_assert(!cd_net_is_pci_addr("0000:3b:00.8"));
	ck_assert(!cd_net_is_pci_addr("0000:3b:00.0x"));
	ck_assert(!cd_net_is_pci_addr("vif-0"));
	ck_assert(!cd_net_is_pci_addr(""));
	ck_assert(!cd_net_is_pci_addr(NULL));
}
END_TEST

START_TEST(test_speed)
{
	ck_assert_int_eq(cd_net_parse_speed("100000"), 100000);
	ck_assert_int_eq(cd_net_parse_speed("25000"), 25000);
	ck_assert_int_eq(cd_net_parse_speed("10"), 10);
	ck_assert_int_eq(cd_net_parse_speed("-1"), CD_NULL_I64);
	ck_assert_int_eq(cd_net_parse_speed("0"), CD_NULL_I64);
	ck_assert_int_eq(cd_net_parse_speed("65535"), CD_NULL_I64);
	ck_assert_int_eq(cd_net_parse_speed("4294967295"), CD_NULL_I64);
	ck_assert_int_eq(cd_net_parse_speed(""), CD_NULL_I64);
	ck_assert_int_eq(cd_net_parse_speed("fast"), CD_NULL_I64);
	ck_assert_int_eq(cd_net_parse_speed(NULL), CD_NULL_I64);
}
END_TEST

static const struct cd_nic *find_nic(const struct cd_host *h, const char *name)
{
	for (size_t i = 0; i < h->n_nics; i++)
		if (!strcmp(h->nics[i].name, name))
			return &h->nics[i];
	return NULL;
}

static int has_str(const struct cd_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

/* The CI machine is a VM like this one: lo, and eth0 on virtio carrying the default route. */
START_TEST(test_live)
{
	struct cd_discover_opts o = { 0 };
	struct cd_results r;
	struct cd_host *h;
	const struct cd_nic *lo, *eth0;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	ck_assert_int_eq(cd_net_discover(h, &o), 0);
	ck_assert_int_eq(h->part[CD_PART_NET].status, CD_ST_OK);
	ck_assert_ptr_null(h->part[CD_PART_NET].reason);
	ck_assert_ptr_nonnull(h->versions.libnl);
	ck_assert_int_eq(strncmp(h->versions.libnl, "3.", 2), 0);
	ck_assert_uint_ge(h->n_nics, 2);

	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *n = &h->nics[i];

		ck_assert_ptr_nonnull(n->name);
		ck_assert_ptr_nonnull(n->state);
		ck_assert_int_ne(n->mtu, CD_NULL_I64);
		ck_assert_int_gt(n->mtu, 0);
		ck_assert_int_ne(n->admin_up, CD_TRI_NULL);
		ck_assert_int_ne(n->default_route, CD_TRI_NULL);
		if (i)
			ck_assert_int_gt(n->ifindex, h->nics[i - 1].ifindex);
		for (const char *c = n->state; *c; c++)
			ck_assert(*c < 'A' || *c > 'Z');
	}

	lo = find_nic(h, "lo");
	ck_assert_ptr_nonnull(lo);
	ck_assert_int_eq(lo->kind, CD_NIC_LOOPBACK);
	ck_assert_int_eq(lo->ifindex, 1);
	ck_assert(has_str(&lo->ipv4, "127.0.0.1/8"));
	ck_assert_int_eq(lo->admin_up, CD_TRI_TRUE);
	ck_assert_int_eq(lo->default_route, CD_TRI_FALSE);
	ck_assert_int_eq(lo->speed_mbit_s, CD_NULL_I64);
	ck_assert_ptr_null(lo->bus_id);
	ck_assert_ptr_null(lo->master);
	ck_assert_int_eq(lo->numa, CD_NULL_I64);

	eth0 = find_nic(h, "eth0");
	ck_assert_ptr_nonnull(eth0);
	/* virtio_net: a bus device, but not a PCI address of its own */
	ck_assert_int_eq(eth0->kind, CD_NIC_PHYSICAL);
	ck_assert_ptr_null(eth0->link_type);
	ck_assert_str_eq(eth0->state, "up");
	ck_assert_int_eq(eth0->admin_up, CD_TRI_TRUE);
	ck_assert_int_eq(eth0->default_route, CD_TRI_TRUE);
	ck_assert_uint_ge(eth0->ipv4.n, 1);
	ck_assert_ptr_nonnull(eth0->mac);
	ck_assert_uint_eq(strlen(eth0->mac), 17);
	ck_assert_ptr_nonnull(eth0->driver);
	ck_assert(strchr(eth0->ipv4.v[0], '/'));

	cd_results_free(&r);
}
END_TEST

/* Live netlink, sysfs from a fixture: eth0 becomes a 100G NIC on PCI. */
START_TEST(test_live_fixture_sysfs)
{
	struct cd_discover_opts o = { .sysfs_root = "tests/data/net" };
	struct cd_results r;
	struct cd_host *h;
	const struct cd_nic *eth0, *lo;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	ck_assert_int_eq(cd_net_discover(h, &o), 0);
	ck_assert_int_eq(h->part[CD_PART_NET].status, CD_ST_OK);
	eth0 = find_nic(h, "eth0");
	ck_assert_ptr_nonnull(eth0);
	ck_assert_int_eq(eth0->kind, CD_NIC_PHYSICAL);
	ck_assert_int_eq(eth0->speed_mbit_s, 100000);
	ck_assert_str_eq(eth0->driver, "mlx5_core");
	ck_assert_str_eq(eth0->bus_id, "0000:3b:00.0");
	ck_assert_int_eq(eth0->numa, 1);
	lo = find_nic(h, "lo");
	ck_assert_ptr_nonnull(lo);
	ck_assert_int_eq(lo->speed_mbit_s, CD_NULL_I64);
	ck_assert_ptr_null(lo->driver);
	cd_results_free(&r);
}
END_TEST

Suite *net_suite(void); /* tests/check_main.c finds it by name */

Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_pci_addr);
	tcase_add_test(tc, test_speed);
	tcase_add_test(tc, test_live);
	tcase_add_test(tc, test_live_fixture_sysfs);
	suite_add_tcase(s, tc);
	return s;
}
