/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "ib.h"
#include "suites.h"

#define IB_DATA "tests/data/ib"

START_TEST(test_enums)
{
	ck_assert_str_eq(cd_ib_port_state_str(1), "down");
	ck_assert_str_eq(cd_ib_port_state_str(2), "init");
	ck_assert_str_eq(cd_ib_port_state_str(3), "armed");
	ck_assert_str_eq(cd_ib_port_state_str(4), "active");
	ck_assert_str_eq(cd_ib_port_state_str(5), "active_defer");
	ck_assert_str_eq(cd_ib_port_state_str(6), "unknown");
	ck_assert_str_eq(cd_ib_port_state_str(-1), "unknown");
	ck_assert_str_eq(cd_ib_phys_state_str(1), "sleep");
	ck_assert_str_eq(cd_ib_phys_state_str(2), "polling");
	ck_assert_str_eq(cd_ib_phys_state_str(3), "disabled");
	ck_assert_str_eq(cd_ib_phys_state_str(4), "port_configuration_training");
	ck_assert_str_eq(cd_ib_phys_state_str(5), "link_up");
	ck_assert_str_eq(cd_ib_phys_state_str(6), "link_error_recovery");
	ck_assert_str_eq(cd_ib_phys_state_str(7), "phy_test");
	ck_assert_str_eq(cd_ib_phys_state_str(0), "unknown");
	ck_assert_str_eq(cd_ib_phys_state_str(8), "unknown");

	ck_assert_int_eq(cd_ib_width_lanes(1), 1);
	ck_assert_int_eq(cd_ib_width_lanes(2), 4);
	ck_assert_int_eq(cd_ib_width_lanes(4), 8);
	ck_assert_int_eq(cd_ib_width_lanes(8), 12);
	ck_assert_int_eq(cd_ib_width_lanes(16), 2);
	ck_assert_int_eq(cd_ib_width_lanes(3), CD_NULL_I64);

	ck_assert_double_eq(cd_ib_speed_lane_gbit(1), 2.5);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(2), 5);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(4), 10);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(8), 10);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(16), 14);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(32), 25);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(64), 50);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(128), 100);
	ck_assert_double_eq(cd_ib_speed_lane_gbit(256), 200);
	ck_assert(isnan(cd_ib_speed_lane_gbit(3)));
	ck_assert_double_eq(cd_ib_speed_name_lane_gbit("FDR10"), 10);
	ck_assert_double_eq(cd_ib_speed_name_lane_gbit("FDR"), 14);
	ck_assert(isnan(cd_ib_speed_name_lane_gbit("ZDR")));
	ck_assert(isnan(cd_ib_speed_name_lane_gbit(NULL)));

	ck_assert_int_eq(cd_ib_mtu_bytes(1), 256);
	ck_assert_int_eq(cd_ib_mtu_bytes(3), 1024);
	ck_assert_int_eq(cd_ib_mtu_bytes(5), 4096);
	ck_assert_int_eq(cd_ib_mtu_bytes(0), CD_NULL_I64);
	ck_assert_int_eq(cd_ib_mtu_bytes(6), CD_NULL_I64);
}
END_TEST

START_TEST(test_rate)
{
	int64_t w = 0;
	double lane = 0, rate = 0;

	ck_assert_int_eq(cd_ib_parse_rate("400 Gb/sec (4X NDR)", &w, &lane, &rate), 0);
	ck_assert_int_eq(w, 4);
	ck_assert_double_eq(lane, 100);
	ck_assert_double_eq(rate, 400);
	ck_assert_int_eq(cd_ib_parse_rate("56 Gb/sec (4X FDR)", &w, &lane, &rate), 0);
	ck_assert_double_eq(lane, 14);
	ck_assert_double_eq(rate, 56);
	ck_assert_int_eq(cd_ib_parse_rate("2.5 Gb/sec (1X SDR)", &w, &lane, &rate), 0);
	ck_assert_int_eq(w, 1);
	ck_assert_double_eq(rate, 2.5);
	ck_assert_int_eq(cd_ib_parse_rate("100 Gb/sec (2X HDR)", &w, &lane, &rate), 0);
	ck_assert_int_eq(w, 2);
	ck_assert_double_eq(lane, 50);
	ck_assert_int_eq(cd_ib_parse_rate("800 Gb/sec (4X XDR)", &w, &lane, &rate), 0);
	ck_assert_double_eq(lane, 200);
	ck_assert_int_eq(cd_ib_parse_rate("600 Gb/sec (12X HDR)", &w, &lane, &rate), 0);
	ck_assert_int_eq(w, 12);
	ck_assert_double_eq(rate, 600);
	/* old kernels: no speed name; the lane rate is what the total says */
	ck_assert_int_eq(cd_ib_parse_rate("10 Gb/sec (4X)", &w, &lane, &rate), 0);
	ck_assert_int_eq(w, 4);
	ck_assert_double_eq(lane, 2.5);
	ck_assert_double_eq(rate, 10);
	/* a name we do not know: trust the total */
	ck_assert_int_eq(cd_ib_parse_rate("1600 Gb/sec (4X GDR)", &w, &lane, &rate), 0);
	ck_assert_double_eq(lane, 400);
	w = 7;
	ck_assert_int_eq(cd_ib_parse_rate("fast", &w, &lane, &rate), -1);
	ck_assert_int_eq(cd_ib_parse_rate("400 Gb/sec", &w, &lane, &rate), -1);
	ck_assert_int_eq(cd_ib_parse_rate("", &w, &lane, &rate), -1);
	ck_assert_int_eq(cd_ib_parse_rate(NULL, &w, &lane, &rate), -1);
	ck_assert_int_eq(w, 7);
}
END_TEST

START_TEST(test_gid_guid)
{
	char *s;

	ck_assert_int_eq(cd_ib_gid_is_ipv4("0000:0000:0000:0000:0000:ffff:0a00:0011"), 1);
	ck_assert_int_eq(cd_ib_gid_is_ipv4("0000:0000:0000:0000:0000:FFFF:C0A8:0101"), 1);
	ck_assert_int_eq(cd_ib_gid_is_ipv4("fe80:0000:0000:0000:0e42:a1ff:fe97:a2e4"), 0);
	ck_assert_int_eq(cd_ib_gid_is_ipv4("2001:0db8:0000:0000:0000:ffff:0a00:0011"), 0);
	ck_assert_int_eq(cd_ib_gid_is_ipv4("0000:0000:0000:0000:0000:0000:0000:0000"), 0);
	ck_assert_int_eq(cd_ib_gid_is_ipv4("::ffff:10.0.0.17"), -1);
	ck_assert_int_eq(cd_ib_gid_is_ipv4("0000:0000:0000:0000:0000:ffff:0a00:0011:"), -1);
	ck_assert_int_eq(cd_ib_gid_is_ipv4(NULL), -1);
	ck_assert_int_eq(cd_ib_gid_is_zero("0000:0000:0000:0000:0000:0000:0000:0000"), 1);
	ck_assert_int_eq(cd_ib_gid_is_zero("fe80:0000:0000:0000:0e42:a1ff:fe97:a2e4"), 0);
	ck_assert_int_eq(cd_ib_gid_is_zero("garbage"), 0);

	s = cd_ib_guid_str("0c42:a103:0097:a2e4");
	ck_assert_str_eq(s, "0x0c42a1030097a2e4");
	free(s);
	s = cd_ib_guid_str("A088:C203:0012:3456");
	ck_assert_str_eq(s, "0xa088c20300123456");
	free(s);
	ck_assert_ptr_null(cd_ib_guid_str("0c42:a103:0097"));
	ck_assert_ptr_null(cd_ib_guid_str("0c42:a103:0097:a2e4:00"));
	ck_assert_ptr_null(cd_ib_guid_str("0c42:a103:0097:a2eg"));
	ck_assert_ptr_null(cd_ib_guid_str(NULL));
}
END_TEST

static void check_gid(const struct cd_gid *g, int64_t index, const char *gid, const char *type,
		      const char *netdev, int ipv4)
{
	ck_assert_int_eq(g->index, index);
	ck_assert_str_eq(g->gid, gid);
	ck_assert_str_eq(g->type, type);
	if (netdev)
		ck_assert_str_eq(g->netdev, netdev);
	else
		ck_assert_ptr_null(g->netdev);
	ck_assert_int_eq(g->ipv4, ipv4);
}

START_TEST(test_sysfs_roce)
{
	struct cd_results r;
	struct cd_host *h;
	const struct cd_hca *c;
	const struct cd_ib_port *p;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	ck_assert_int_eq(cd_ib_read_sysfs(h, IB_DATA "/roce"), 0);
	ck_assert_int_eq(h->part[CD_PART_IB].status, CD_ST_OK);
	ck_assert_ptr_null(h->part[CD_PART_IB].reason);
	ck_assert_uint_eq(h->n_hcas, 1);
	c = &h->hcas[0];
	ck_assert_str_eq(c->name, "mlx5_0");
	ck_assert_str_eq(c->node_guid, "0x0c42a1030097a2e4");
	ck_assert_str_eq(c->fw_ver, "28.39.1002");
	ck_assert_str_eq(c->board_id, "MT_0000000838");
	ck_assert_str_eq(c->bus_id, "0000:3b:00.0");
	ck_assert_int_eq(c->numa, 1);
	ck_assert_str_eq(c->netdev, "ens1f0np0");
	ck_assert_uint_eq(c->n_ports, 1);

	p = &c->ports[0];
	ck_assert_int_eq(p->port, 1);
	ck_assert_str_eq(p->state, "active");
	ck_assert_str_eq(p->phys_state, "link_up");
	ck_assert_str_eq(p->link_layer, "ethernet");
	ck_assert_int_eq(p->active_width, 4);
	ck_assert_double_eq(p->lane_gbit_s, 50);
	ck_assert_double_eq(p->rate_gbit_s, 200);
	ck_assert_int_eq(p->lid, CD_NULL_I64);     /* no LIDs on Ethernet */
	ck_assert_int_eq(p->mtu_bytes, CD_NULL_I64); /* not in sysfs */
	ck_assert_str_eq(p->netdev, "ens1f0np0");
	ck_assert_int_eq(p->roce_v2_gid_index, 3);
	/* slots 4 and 5 are zero: left out */
	ck_assert_uint_eq(p->n_gids, 4);
	check_gid(&p->gids[0], 0, "fe80:0000:0000:0000:0e42:a1ff:fe97:a2e4", "IB/RoCE v1", "ens1f0np0", CD_TRI_FALSE);
	check_gid(&p->gids[1], 1, "fe80:0000:0000:0000:0e42:a1ff:fe97:a2e4", "RoCE v2", "ens1f0np0", CD_TRI_FALSE);
	check_gid(&p->gids[2], 2, "0000:0000:0000:0000:0000:ffff:0a00:0011", "IB/RoCE v1", "ens1f0np0", CD_TRI_TRUE);
	check_gid(&p->gids[3], 3, "0000:0000:0000:0000:0000:ffff:0a00:0011", "RoCE v2", "ens1f0np0", CD_TRI_TRUE);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_sysfs_ndr)
{
	struct cd_results r;
	struct cd_host *h;
	const struct cd_hca *c;
	const struct cd_ib_port *p;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	ck_assert_int_eq(cd_ib_read_sysfs(h, IB_DATA "/ndr"), 0);
	ck_assert_int_eq(h->part[CD_PART_IB].status, CD_ST_OK);
	ck_assert_uint_eq(h->n_hcas, 3);
	/* version order, not byte order */
	ck_assert_str_eq(h->hcas[0].name, "mlx5_0");
	ck_assert_str_eq(h->hcas[1].name, "mlx5_2");
	ck_assert_str_eq(h->hcas[2].name, "mlx5_10");

	/* NDR, active, IPoIB netdev found by dev_port */
	c = &h->hcas[0];
	ck_assert_str_eq(c->node_guid, "0xa088c20300123456");
	ck_assert_str_eq(c->bus_id, "0000:18:00.0");
	ck_assert_int_eq(c->numa, 0);
	ck_assert_str_eq(c->netdev, "ib0");
	ck_assert_uint_eq(c->n_ports, 1);
	p = &c->ports[0];
	ck_assert_int_eq(p->port, 1);
	ck_assert_str_eq(p->state, "active");
	ck_assert_str_eq(p->phys_state, "link_up");
	ck_assert_str_eq(p->link_layer, "infiniband");
	ck_assert_int_eq(p->active_width, 4);
	ck_assert_double_eq(p->lane_gbit_s, 100);
	ck_assert_double_eq(p->rate_gbit_s, 400);
	ck_assert_int_eq(p->lid, 0x1a);
	ck_assert_int_eq(p->mtu_bytes, CD_NULL_I64);
	ck_assert_str_eq(p->netdev, "ib0");
	ck_assert_int_eq(p->roce_v2_gid_index, CD_NULL_I64);
	ck_assert_uint_eq(p->n_gids, 1);
	check_gid(&p->gids[0], 0, "fe80:0000:0000:0000:a088:c203:0012:3456", "IB/RoCE v1", NULL, CD_TRI_FALSE);

	/* HDR on two lanes; numa_node -1 and no netdev */
	c = &h->hcas[1];
	ck_assert_int_eq(c->numa, CD_NULL_I64);
	ck_assert_ptr_null(c->netdev);
	p = &c->ports[0];
	ck_assert_int_eq(p->active_width, 2);
	ck_assert_double_eq(p->lane_gbit_s, 50);
	ck_assert_double_eq(p->rate_gbit_s, 100);
	ck_assert_int_eq(p->lid, 0x2b);
	ck_assert_ptr_null(p->netdev);

	/* two ports, both down: polling (no cable partner) and disabled */
	c = &h->hcas[2];
	ck_assert_str_eq(c->bus_id, "0000:9a:00.0");
	ck_assert_int_eq(c->numa, 1);
	ck_assert_uint_eq(c->n_ports, 2);
	ck_assert_str_eq(c->netdev, "ib1");
	p = &c->ports[0];
	ck_assert_int_eq(p->port, 1);
	ck_assert_str_eq(p->state, "down");
	ck_assert_str_eq(p->phys_state, "polling");
	ck_assert_int_eq(p->active_width, 4);
	ck_assert_double_eq(p->rate_gbit_s, 10);
	ck_assert_int_eq(p->lid, 0xffff);
	ck_assert_str_eq(p->netdev, "ib1");
	p = &c->ports[1];
	ck_assert_int_eq(p->port, 2);
	ck_assert_str_eq(p->state, "down");
	ck_assert_str_eq(p->phys_state, "disabled");
	ck_assert_int_eq(p->active_width, 1);
	ck_assert_double_eq(p->lane_gbit_s, 2.5);
	ck_assert_double_eq(p->rate_gbit_s, 2.5);
	ck_assert_str_eq(p->netdev, "ib2");
	ck_assert_str_eq(p->gids[0].gid, "fe80:0000:0000:0000:a088:c203:0012:34a1");
	cd_results_free(&r);
}
END_TEST

START_TEST(test_sysfs_none)
{
	struct cd_discover_opts o = { .sysfs_root = IB_DATA "/no-such-root" };
	struct cd_results r;
	struct cd_host *h;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	ck_assert_int_eq(cd_ib_discover(h, &o), 0);
	ck_assert_int_eq(h->part[CD_PART_IB].status, CD_ST_OK);
	ck_assert_uint_eq(h->n_hcas, 0);
	ck_assert_ptr_nonnull(h->versions.libibverbs);
	cd_results_free(&r);
}
END_TEST

/* The CI machine has no RDMA devices: zero HCAs is ok, not an error. */
START_TEST(test_live)
{
	struct cd_discover_opts o = { 0 };
	struct cd_results r;
	struct cd_host *h;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	ck_assert_int_eq(cd_ib_discover(h, &o), 0);
	ck_assert_int_eq(h->part[CD_PART_IB].status, CD_ST_OK);
	ck_assert_ptr_null(h->part[CD_PART_IB].reason);
	ck_assert_uint_eq(h->n_hcas, 0);
	ck_assert_str_eq(h->versions.libibverbs, CD_LIBIBVERBS_VERSION);
	cd_results_free(&r);
}
END_TEST

Suite *ib_suite(void); /* tests/check_main.c finds it by name */

Suite *ib_suite(void)
{
	Suite *s = suite_create("ib");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_enums);
	tcase_add_test(tc, test_rate);
	tcase_add_test(tc, test_gid_guid);
	tcase_add_test(tc, test_sysfs_roce);
	tcase_add_test(tc, test_sysfs_ndr);
	tcase_add_test(tc, test_sysfs_none);
	tcase_add_test(tc, test_live);
	suite_add_tcase(s, tc);
	return s;
}
