/* SPDX-License-Identifier: BSD-3-Clause */
/* The libraries' own interface choices (core/libdefaults.c) against their sources' rules. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdefaults.h"
#include "suites.h"

static struct cd_results res;
#define host (*res.hosts)

static struct cd_nic *nic(const char *name, enum cd_nic_kind kind, const char *v4, const char *v6)
{
	struct cd_nic *n = cd_host_add_nic(&host);

	n->name = xstrdup(name);
	n->kind = kind;
	n->state = xstrdup("up");
	n->admin_up = CD_TRI_TRUE;
	if (v4)
		cd_strv_push(&n->ipv4, v4);
	if (v6)
		cd_strv_push(&n->ipv6, v6);
	return n;
}

static void env(const char *key, const char *value)
{
	struct cd_kv *kv = CD_PUSH(host.env, host.n_env, host.cap_env);

	kv->key = xstrdup(key);
	kv->value = xstrdup(value);
}

static void setup(void)
{
	cd_results_init(&res);
	cd_results_add_host(&res)->hostname = xstrdup("node17");
}

static void teardown(void)
{
	cd_results_free(&res);
}

static const char *pick(void)
{
	const struct cd_nic *n = cd_nccl_bootstrap_nic(&host);

	return n ? n->name : "(none)";
}

/* matchIfList: prefixes, '^' inverts, '=' exact, ":port" ignored, empty matches all. */
START_TEST(test_nccl_match)
{
	ck_assert(cd_nccl_ifname_match("eth", "eth0"));
	ck_assert(cd_nccl_ifname_match("eth", "eth0.2093"));
	ck_assert(!cd_nccl_ifname_match("=eth0", "eth0.2093"));
	ck_assert(cd_nccl_ifname_match("=eth0", "eth0"));
	ck_assert(cd_nccl_ifname_match("ib,eth", "eth1"));
	ck_assert(!cd_nccl_ifname_match("^docker,lo", "docker0"));
	ck_assert(!cd_nccl_ifname_match("^docker,lo", "lo"));
	ck_assert(cd_nccl_ifname_match("^docker,lo", "virbr0"));
	ck_assert(!cd_nccl_ifname_match("^=eth0", "eth0"));
	ck_assert(cd_nccl_ifname_match("^=eth0", "eth0.5"));
	ck_assert(cd_nccl_ifname_match("mlx5_0:1", "mlx5_0"));
	ck_assert(cd_nccl_ifname_match("", "anything"));
	ck_assert(!cd_nccl_ifname_match("^", "anything"));
}
END_TEST

/* ncclFindInterfaces' order before 2.28: ib first, then all but docker and lo, then docker, then lo. */
START_TEST(test_nccl_order)
{
	host.versions.nccl = xstrdup("2.21.5");
	nic("lo", CD_NIC_LOOPBACK, "127.0.0.1/8", "::1/128");
	ck_assert_str_eq(pick(), "lo");
	nic("docker0", CD_NIC_BRIDGE, "172.17.0.1/16", NULL);
	ck_assert_str_eq(pick(), "docker0");
	nic("virbr0", CD_NIC_BRIDGE, "192.168.122.1/24", NULL);
	ck_assert_str_eq(pick(), "virbr0"); /* before eth0 in interface order: the classic */
	nic("eth0", CD_NIC_PHYSICAL, "10.0.0.17/24", NULL);
	ck_assert_str_eq(pick(), "virbr0");
	nic("ib0", CD_NIC_IPOIB, "10.10.0.17/16", NULL);
	ck_assert_str_eq(pick(), "ib0");
	env("NCCL_SOCKET_IFNAME", "eth");
	ck_assert_str_eq(pick(), "eth0");
	free(host.env[0].value);
	host.env[0].value = xstrdup("e"); /* one character: NCCL treats it as unset */
	ck_assert_str_eq(pick(), "ib0");
	/* before 2.28 an ib0 without carrier is still taken */
	free(host.nics[4].state);
	host.nics[4].state = xstrdup("down");
	ck_assert_str_eq(pick(), "ib0");
}
END_TEST

/* From 2.28.3 (and for an unknown version): running interfaces only, virbr* after lo. */
START_TEST(test_nccl_order_2_28)
{
	nic("lo", CD_NIC_LOOPBACK, "127.0.0.1/8", "::1/128");
	nic("virbr0", CD_NIC_BRIDGE, "192.168.122.1/24", NULL);
	ck_assert_str_eq(pick(), "lo");
	nic("docker0", CD_NIC_BRIDGE, "172.17.0.1/16", NULL);
	ck_assert_str_eq(pick(), "docker0");
	nic("cni0", CD_NIC_BRIDGE, "10.244.0.1/24", NULL);
	ck_assert_str_eq(pick(), "cni0"); /* only docker, lo and virbr are left for last */
	nic("ib0", CD_NIC_IPOIB, "10.10.0.17/16", NULL);
	free(host.nics[4].state);
	host.nics[4].state = xstrdup("down");
	ck_assert_str_eq(pick(), "cni0");
	host.versions.nccl = xstrdup("2.28.3");
	ck_assert_str_eq(pick(), "cni0");
}
END_TEST

/* getifaddrs lists IPv4 before IPv6: an IPv6-only interface comes after every IPv4 one. */
START_TEST(test_nccl_ipv6_after_ipv4)
{
	const struct cd_nic *list[8];

	nic("lo", CD_NIC_LOOPBACK, "127.0.0.1/8", "::1/128");
	nic("veth1", CD_NIC_VETH, NULL, "fe80::1/64");
	nic("eth0", CD_NIC_PHYSICAL, "10.0.0.17/24", "fe80::2/64");
	ck_assert_str_eq(pick(), "eth0");
	ck_assert_uint_eq(cd_nccl_socket_ifaces(&host, NULL, list, 8), 2);
	ck_assert_str_eq(list[1]->name, "veth1");
	env("NCCL_SOCKET_FAMILY", "AF_INET6");
	ck_assert_str_eq(pick(), "veth1");
}
END_TEST

START_TEST(test_ompi_tcp)
{
	const struct cd_nic *lo, *eth, *dock, *v6;

	/* the array moves as it grows: take the pointers once it is complete */
	nic("lo", CD_NIC_LOOPBACK, "127.0.0.1/8", NULL);
	nic("eth0", CD_NIC_PHYSICAL, "10.0.0.17/24", NULL);
	nic("docker0", CD_NIC_BRIDGE, "172.17.0.1/16", NULL);
	nic("ib0", CD_NIC_IPOIB, NULL, "fd00::17/64");
	lo = &host.nics[0], eth = &host.nics[1], dock = &host.nics[2], v6 = &host.nics[3];

	/* unset: every IPv4 interface but loopback (btl: by the name 127.0.0.1/8 resolves to) */
	ck_assert(!cd_ompi_tcp_uses(&host, lo, "btl"));
	ck_assert(!cd_ompi_tcp_uses(&host, lo, "oob"));
	ck_assert(cd_ompi_tcp_uses(&host, eth, "btl"));
	ck_assert(cd_ompi_tcp_uses(&host, dock, "btl"));
	ck_assert(!cd_ompi_tcp_uses(&host, v6, "btl"));
	env("OMPI_MCA_btl_tcp_if_exclude", "lo,docker0");
	ck_assert(!cd_ompi_tcp_uses(&host, dock, "btl"));
	ck_assert(cd_ompi_tcp_uses(&host, dock, "oob"));
	env("OMPI_MCA_oob_tcp_if_include", "10.0.0.0/16");
	ck_assert(cd_ompi_tcp_uses(&host, eth, "oob"));
	ck_assert(!cd_ompi_tcp_uses(&host, dock, "oob"));
}
END_TEST

/* NCCL_IB_HCA (ncclIbInitDevices → matchIfList): prefixes, ":port" must equal, '=' exact, '^' inverts. */
START_TEST(test_nccl_ib_hca)
{
	ck_assert(cd_nccl_ib_hca_match(NULL, "mlx5_an0", 1));
	ck_assert(cd_nccl_ib_hca_match("mlx5_ib", "mlx5_ib3", 1));
	ck_assert(!cd_nccl_ib_hca_match("mlx5_ib", "mlx5_an0", 1));
	ck_assert(cd_nccl_ib_hca_match("mlx5_1", "mlx5_10", 1)); /* a prefix: the classic surprise */
	ck_assert(!cd_nccl_ib_hca_match("=mlx5_1", "mlx5_10", 1));
	ck_assert(cd_nccl_ib_hca_match("=mlx5_0,mlx5_1:1", "mlx5_1", 1));
	ck_assert(!cd_nccl_ib_hca_match("=mlx5_0,mlx5_1:1", "mlx5_1", 2));
	ck_assert(cd_nccl_ib_hca_match("mlx5_1:", "mlx5_1", 2)); /* an empty port is any port */
	ck_assert(!cd_nccl_ib_hca_match("^mlx5_2", "mlx5_2", 1));
	ck_assert(cd_nccl_ib_hca_match("^mlx5_2", "mlx5_3", 1));
	ck_assert(!cd_nccl_ib_hca_match("^=mlx5_2:1", "mlx5_2", 1));
	ck_assert(cd_nccl_ib_hca_match("^=mlx5_2:1", "mlx5_20", 1));
	ck_assert(cd_nccl_ib_hca_match("", "mlx5_0", 1)); /* an empty list matches everything */
}
END_TEST

/* UCX_NET_DEVICES (ucp_is_resource_in_device_list): whole names or a base name, "all", '^'. */
START_TEST(test_ucx_devices)
{
	ck_assert(cd_ucx_net_device_match(NULL, "mlx5_0:1"));
	ck_assert(cd_ucx_net_device_match("all", "eth0"));
	ck_assert(cd_ucx_net_device_match("mlx5_0:1,mlx5_1:1", "mlx5_1:1"));
	ck_assert(!cd_ucx_net_device_match("mlx5_0:1", "mlx5_0:2"));
	ck_assert(cd_ucx_net_device_match("mlx5_0", "mlx5_0:2")); /* the base name */
	ck_assert(!cd_ucx_net_device_match("mlx5_1", "mlx5_10:1")); /* no prefixes */
	ck_assert(!cd_ucx_net_device_match("eth", "eth0"));
	ck_assert(!cd_ucx_net_device_match("^mlx5_an0:1", "mlx5_an0:1"));
	ck_assert(cd_ucx_net_device_match("^mlx5_an0:1", "mlx5_ib0:1"));
	ck_assert(cd_ucx_tls_rdma(NULL));
	ck_assert(cd_ucx_tls_rdma("rc,sm,self"));
	ck_assert(cd_ucx_tls_rdma("\\dc_mlx5,self"));
	ck_assert(!cd_ucx_tls_rdma("tcp"));
	ck_assert(!cd_ucx_tls_rdma("tcp,sm,self,cuda_copy"));
	ck_assert(cd_ucx_tls_rdma("^tcp"));
}
END_TEST

static struct cd_ib_port *port(const char *hca, const char *layer, double gbit_s, const char *state)
{
	struct cd_hca *c = cd_host_add_hca(&host);
	struct cd_ib_port *p;

	c->name = xstrdup(hca);
	p = cd_hca_add_port(c);
	p->port = 1;
	p->state = xstrdup(state);
	p->link_layer = xstrdup(layer);
	p->rate_gbit_s = gbit_s;
	return p;
}

/* A GPU rail: NCCL_IB_HCA's choice when set, else the link layer most active ports have. */
START_TEST(test_rails)
{
	port("mlx5_ib0", "infiniband", 400, "active");
	port("mlx5_ib1", "infiniband", 400, "active");
	port("mlx5_an0", "ethernet", 40, "active");
	port("mlx5_ib2", "infiniband", 0, "down");
	ck_assert(cd_rdma_rail_port(&host, "mlx5_ib0", &host.hcas[0].ports[0]));
	ck_assert(!cd_rdma_rail_port(&host, "mlx5_an0", &host.hcas[2].ports[0]));
	ck_assert(!cd_rdma_rail_port(&host, "mlx5_ib2", &host.hcas[3].ports[0]));
	ck_assert_uint_eq(cd_rdma_port_users(&host, "mlx5_an0", &host.hcas[2].ports[0]), CD_LIB_NCCL | CD_LIB_UCX);
	ck_assert_uint_eq(cd_rdma_port_users(&host, "mlx5_ib2", &host.hcas[3].ports[0]), 0);
	env("NCCL_IB_HCA", "mlx5_ib");
	env("UCX_NET_DEVICES", "mlx5_ib0:1");
	ck_assert_uint_eq(cd_rdma_port_users(&host, "mlx5_an0", &host.hcas[2].ports[0]), 0);
	ck_assert_uint_eq(cd_rdma_port_users(&host, "mlx5_ib0", &host.hcas[0].ports[0]), CD_LIB_NCCL | CD_LIB_UCX);
	ck_assert_uint_eq(cd_rdma_port_users(&host, "mlx5_ib1", &host.hcas[1].ports[0]), CD_LIB_NCCL);
}
END_TEST

/* Of the ports of one link layer, the site's NCCL_IB_HCA tells the front end from the rails. */
START_TEST(test_rails_site_list)
{
	port("mlx5_0", "ethernet", 200, "active");
	port("mlx5_1", "ethernet", 200, "active");
	port("mlx5_2", "ethernet", 100, "active");
	ck_assert(cd_rdma_rail_port(&host, "mlx5_2", &host.hcas[2].ports[0]));
	env("NCCL_IB_HCA", "=mlx5_0,mlx5_1");
	ck_assert(cd_rdma_rail_port(&host, "mlx5_1", &host.hcas[1].ports[0]));
	ck_assert(!cd_rdma_rail_port(&host, "mlx5_2", &host.hcas[2].ports[0]));
	env("NCCL_IB_DISABLE", "1");
	ck_assert_uint_eq(cd_rdma_port_users(&host, "mlx5_0", &host.hcas[0].ports[0]), CD_LIB_UCX);
}
END_TEST

/* Which library sends over an interface: one answer for the judge and the advice. */
START_TEST(test_iface_users)
{
	const struct cd_nic *eth, *dock;

	nic("eth0", CD_NIC_PHYSICAL, "10.0.0.17/24", NULL);
	nic("docker0", CD_NIC_BRIDGE, "172.17.0.1/16", NULL);
	eth = &host.nics[0], dock = &host.nics[1];
	/* NCCL's own order skips docker*; Open MPI's TCP takes every IPv4 interface but loopback */
	ck_assert_uint_eq(cd_iface_users(&host, eth), CD_LIB_NCCL | CD_LIB_OMPI);
	ck_assert_uint_eq(cd_iface_users(&host, dock), CD_LIB_OMPI);
	env("OMPI_MCA_btl_tcp_if_include", "eth0");
	env("OMPI_MCA_oob_tcp_if_include", "eth0");
	env("UCX_NET_DEVICES", "docker0");
	env("GLOO_SOCKET_IFNAME", "docker0");
	ck_assert_uint_eq(cd_iface_users(&host, dock), CD_LIB_UCX | CD_LIB_GLOO);
	ck_assert_str_eq(cd_lib_iface_rule(&host, CD_LIB_OMPI), "its if_include/if_exclude");
}
END_TEST

/* NCCL's verbs transport takes InfiniBand and RoCE ports only, and none under another NCCL_NET. */
START_TEST(test_nccl_ib_takes)
{
	port("rdmap79s0", "unknown", 200, "active"); /* EFA: link layer unspecified */
	port("rdmap80s0", "unknown", 200, "active");
	port("mlx5_0", "ethernet", 100, "active");
	ck_assert_str_eq(cd_rdma_rail_layer(&host), "unknown"); /* the EFA ports are the rails */
	ck_assert(cd_rdma_rail_port(&host, "rdmap79s0", &host.hcas[0].ports[0]));
	ck_assert(!cd_nccl_ib_takes(&host, "rdmap79s0", &host.hcas[0].ports[0], 0));
	ck_assert(cd_nccl_ib_takes(&host, "mlx5_0", &host.hcas[2].ports[0], 0));
	env("NCCL_IB_DISABLE", "1");
	ck_assert(!cd_nccl_ib_takes(&host, "mlx5_0", &host.hcas[2].ports[0], 0));
	ck_assert(cd_nccl_ib_takes(&host, "mlx5_0", &host.hcas[2].ports[0], 1));
	env("NCCL_NET", "AWS Libfabric");
	ck_assert(!cd_nccl_ib_takes(&host, "mlx5_0", &host.hcas[2].ports[0], 1));
}
END_TEST

/* A port down that the site's lists leave out is wanted by no library. */
START_TEST(test_port_selected_down)
{
	port("mlx5_0", "infiniband", 200, "active");
	port("mlx5_4", "ethernet", NAN, "down");
	ck_assert_uint_eq(cd_rdma_port_users(&host, "mlx5_4", &host.hcas[1].ports[0]), 0);
	ck_assert_uint_eq(cd_rdma_port_selected(&host, "mlx5_4", &host.hcas[1].ports[0]), CD_LIB_NCCL | CD_LIB_UCX);
	env("NCCL_IB_HCA", "=mlx5_0");
	ck_assert_uint_eq(cd_rdma_port_selected(&host, "mlx5_4", &host.hcas[1].ports[0]), CD_LIB_UCX);
	env("UCX_NET_DEVICES", "mlx5_0:1");
	ck_assert_uint_eq(cd_rdma_port_selected(&host, "mlx5_4", &host.hcas[1].ports[0]), 0);
}
END_TEST

/* Every item of spec as "name/port" joined by spaces, with the list's ^ and = in front. */
static const char *items(const char *spec, int max)
{
	static char buf[512];
	struct cd_nccl_list l;
	struct cd_nccl_item it;
	size_t used;

	cd_nccl_list_init(&l, spec, max);
	used = (size_t)snprintf(buf, sizeof(buf), "%s%s", l.not ? "^" : "", l.exact ? "=" : "");
	while (cd_nccl_list_next(&l, &it))
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "[%.*s/%ld|%.*s]", (int)it.name_len, it.name, it.port,
					 (int)it.text_len, it.text);
	return buf;
}

/*
 * The one reader of NCCL's device lists, case by case against parseStringList and
 * matchIfList of NCCL v2.30.7 (src/misc/utils.cc): strtok_r on ',' then strsep on ':'.
 */
START_TEST(test_nccl_list)
{
	/* the items, their ports and the text as written */
	ck_assert_str_eq(items("mlx5_0:1,mlx5_1", 0), "[mlx5_0/1|mlx5_0:1][mlx5_1/-1|mlx5_1]");
	ck_assert_str_eq(items("^=mlx5_0:1,mlx5_1", 0), "^=[mlx5_0/1|mlx5_0:1][mlx5_1/-1|mlx5_1]");
	ck_assert_str_eq(items("=^mlx5_0", 0), "=[^mlx5_0/-1|^mlx5_0]"); /* '^' only first: a name here */
	/* empty entries are no items, nor is a name left empty before a port */
	ck_assert_str_eq(items(",,mlx5_0,,:2,mlx5_1,", 0), "[mlx5_0/-1|mlx5_0][mlx5_1/-1|mlx5_1]");
	ck_assert_str_eq(items("", 0), "");
	ck_assert_str_eq(items(NULL, 0), "");
	ck_assert_str_eq(items("^", 0), "^");
	/* an empty port is any port; rail and plane fields follow it */
	ck_assert_str_eq(items("mlx5_0:,mlx5_1::3,mlx5_2:2:0:1", 0),
			 "[mlx5_0/-1|mlx5_0:][mlx5_1/-1|mlx5_1::3][mlx5_2/2|mlx5_2:2:0:1]");
	/* no whitespace is trimmed */
	ck_assert_str_eq(items(" mlx5_0, mlx5_1 ", 0), "[ mlx5_0/-1| mlx5_0][ mlx5_1 /-1| mlx5_1 ]");
	/* only the first max items count (MAX_IB_DEVS, MAX_IFS) */
	ck_assert_str_eq(items("a,,b,c", 2), "[a/-1|a][b/-1|b]");

	/* prefixes without '=', whole names with it */
	ck_assert(cd_nccl_list_match("mlx5_1", 0, "mlx5_10", 1));
	ck_assert(!cd_nccl_list_match("=mlx5_1", 0, "mlx5_10", 1));
	ck_assert(cd_nccl_list_match("=mlx5_1", 0, "mlx5_1", 1));
	ck_assert(!cd_nccl_list_match("mlx5_10", 0, "mlx5_1", 1));
	/* '^' selects what no item takes */
	ck_assert(!cd_nccl_list_match("^mlx5_1", 0, "mlx5_10", 1));
	ck_assert(cd_nccl_list_match("^=mlx5_1", 0, "mlx5_10", 1));
	ck_assert(!cd_nccl_list_match("^=mlx5_1", 0, "mlx5_1", 1));
	/* ports: a port given must equal, unless the device's is -1 (an interface) */
	ck_assert(cd_nccl_list_match("mlx5_0:1", 0, "mlx5_0", 1));
	ck_assert(!cd_nccl_list_match("mlx5_0:1", 0, "mlx5_0", 2));
	ck_assert(cd_nccl_list_match("mlx5_0:1", 0, "mlx5_0", -1));
	ck_assert(cd_nccl_list_match("mlx5_0:", 0, "mlx5_0", 2));
	ck_assert(cd_nccl_list_match("^mlx5_0:1", 0, "mlx5_0", 2));
	/* a list without items takes everything, so "^" takes nothing */
	ck_assert(cd_nccl_list_match(",,", 0, "mlx5_0", 1));
	ck_assert(!cd_nccl_list_match("^", 0, "mlx5_0", 1));
	/* an empty entry takes nothing by itself (an empty prefix would take every device) */
	ck_assert(!cd_nccl_list_match("mlx5_0,,:1", 0, "mlx5_1", 1));
	ck_assert(!cd_nccl_ifname_match("eth0,:1", "ib0"));
	/* whitespace is part of the name */
	ck_assert(!cd_nccl_list_match(" mlx5_0", 0, "mlx5_0", 1));
	/* past max, an item is not read: NCCL_SOCKET_IFNAME's 17th name takes nothing */
	ck_assert(!cd_nccl_ifname_match("v1,v2,v3,v4,v5,v6,v7,v8,v9,v10,v11,v12,v13,v14,v15,v16,eth0", "eth0"));
	ck_assert(cd_nccl_ifname_match("v1,v2,v3,v4,v5,v6,v7,v8,v9,v10,v11,v12,v13,v14,v15,eth0", "eth0"));
}
END_TEST

Suite *libdefaults_suite(void)
{
	Suite *s = suite_create("libdefaults");
	TCase *tc = tcase_create("interfaces");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_nccl_match);
	tcase_add_test(tc, test_nccl_list);
	tcase_add_test(tc, test_nccl_order);
	tcase_add_test(tc, test_nccl_order_2_28);
	tcase_add_test(tc, test_nccl_ipv6_after_ipv4);
	tcase_add_test(tc, test_ompi_tcp);
	tcase_add_test(tc, test_nccl_ib_hca);
	tcase_add_test(tc, test_ucx_devices);
	tcase_add_test(tc, test_rails);
	tcase_add_test(tc, test_rails_site_list);
	tcase_add_test(tc, test_iface_users);
	tcase_add_test(tc, test_nccl_ib_takes);
	tcase_add_test(tc, test_port_selected_down);
	suite_add_tcase(s, tc);
	return s;
}
