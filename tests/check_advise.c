/* SPDX-License-Identifier: BSD-3-Clause */
/* The decision tree over documents built in C: each case sets only what its branch reads. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "rules.h"
#include "suites.h"

static struct cd_results res;

static struct cd_nic *add_nic(struct cd_host *h, const char *name, enum cd_nic_kind kind, const char *ipv4, int dflt)
{
	struct cd_nic *n = cd_host_add_nic(h);

	n->name = xstrdup(name);
	n->kind = kind;
	n->state = xstrdup("up");
	n->admin_up = CD_TRI_TRUE;
	if (ipv4)
		cd_strv_push(&n->ipv4, ipv4);
	n->default_route = dflt ? CD_TRI_TRUE : CD_TRI_FALSE;
	return n;
}

static struct cd_host *add_host(const char *name)
{
	struct cd_host *h = cd_results_add_host(&res);

	h->hostname = xstrdup(name);
	for (int i = 0; i < CD_PART_COUNT; i++)
		cd_section_set(&h->part[i], CD_ST_OK, NULL);
	h->system.container = xstrdup("none");
	add_nic(h, "lo", CD_NIC_LOOPBACK, "127.0.0.1/8", 0);
	return h;
}

static void reach(const char *from, const char *to, const char *iface, int ok)
{
	struct cd_reach *x = cd_results_add_reach(&res);

	x->from = xstrdup(from);
	x->to = xstrdup(to);
	x->iface = xstrdup(iface);
	x->ok = ok ? CD_TRI_TRUE : CD_TRI_FALSE;
}

static const struct cd_advice *advice(const char *env, const char *value)
{
	for (size_t i = 0; i < res.n_advice; i++) {
		const struct cd_advice *a = &res.advice[i];

		if ((env ? a->env && !strcmp(a->env, env) : !a->env) &&
		    (value ? a->value && strstr(a->value, value) : !a->value))
			return a;
	}
	return NULL;
}

static int answers(const struct cd_advice *a, const char *id)
{
	for (size_t i = 0; a && i < a->findings.n; i++)
		if (!strcmp(a->findings.v[i], id))
			return 1;
	return 0;
}

static void setup(void)
{
	cd_results_init(&res);
}

static void teardown(void)
{
	cd_results_free(&res);
}

START_TEST(test_tree_is_consistent)
{
	size_t n;
	const struct cd_advise_node *t = cd_advise_tree(&n);

	ck_assert_uint_gt(n, 40);
	for (size_t i = 0; i < n; i++) {
		/* a question has a test and two exits; a leaf acts and goes on */
		ck_assert_msg(t[i].name && t[i].text, "node %zu unnamed", i);
		ck_assert_msg(!!t[i].test != !!t[i].act, "%s: question or leaf", t[i].name);
		ck_assert_int_lt(t[i].yes, (int)n);
		ck_assert_int_lt(t[i].no, (int)n);
		ck_assert_int_lt(t[i].next, (int)n);
		for (size_t k = 0; k < i; k++)
			ck_assert_msg(strcmp(t[i].name, t[k].name), "duplicate node name %s", t[i].name);
	}
}
END_TEST

/*
 * The multi-node test's two network namespaces: eth0 routed, docker0 everywhere 172.17.0.1.
 * NCCL skips docker* by its own order, and UCX bridges and non-best routes, so they need no
 * setting; Open MPI's TCP uses every interface but loopback, docker0 too: it gets eth0.
 */
static void two_hosts(void)
{
	struct cd_host *h;

	h = add_host("node17");
	add_nic(h, "eth0", CD_NIC_PHYSICAL, "10.0.0.17/24", 1);
	add_nic(h, "docker0", CD_NIC_BRIDGE, "172.17.0.1/16", 0);
	h = add_host("node18");
	add_nic(h, "eth0", CD_NIC_PHYSICAL, "10.0.0.18/24", 1);
	add_nic(h, "docker0", CD_NIC_BRIDGE, "172.17.0.1/16", 0);
	reach("node17", "node18", "eth0", 1);
	reach("node18", "node17", "eth0", 1);
	reach("node17", "node18", "docker0", 0);
	reach("node18", "node17", "docker0", 0);
	cd_results_add_finding(&res, "NET001", CD_SEV_FAIL, "node17", "docker0", "interface does not reach other hosts");
}

static void set_env(struct cd_host *h, const char *key, const char *value)
{
	struct cd_kv *kv = CD_PUSH(h->env, h->n_env, h->cap_env);

	kv->key = xstrdup(key);
	kv->value = xstrdup(value);
}

START_TEST(test_two_hosts_routed)
{
	const struct cd_advice *a;

	two_hosts();
	cd_advise(&res);
	a = advice("OMPI_MCA_btl_tcp_if_include", "eth0");
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->value, "eth0");
	ck_assert(answers(a, "NET001"));
	ck_assert_ptr_null(a->host);
	ck_assert_uint_ge(a->path.n, 4);
	ck_assert_str_eq(a->path.v[0], "several hosts with TCP reachability results? yes");
	ck_assert_ptr_nonnull(strstr(a->why, "Open MPI's TCP would use docker0 (its default: every interface but "
					   "loopback)"));
	ck_assert_ptr_nonnull(advice("OMPI_MCA_oob_tcp_if_include", "eth0"));
	/* NCCL's own order already takes eth0, UCX's too; Gloo's choice is not known: nothing for them */
	ck_assert_ptr_null(advice("NCCL_SOCKET_IFNAME", NULL));
	ck_assert_ptr_null(advice("GLOO_SOCKET_IFNAME", NULL));
	ck_assert_ptr_null(advice("UCX_NET_DEVICES", NULL));
	ck_assert_uint_eq(res.n_advice, 2);
	/* a UCX_NET_DEVICES that names docker0 is corrected */
	cd_results_clear_judgement(&res);
	for (size_t i = 0; i < res.n_hosts; i++)
		set_env(&res.hosts[i], "UCX_NET_DEVICES", "docker0");
	cd_results_add_finding(&res, "NET001", CD_SEV_FAIL, "node17", "docker0", "interface does not reach other hosts");
	cd_advise(&res);
	ck_assert_ptr_nonnull(advice("UCX_NET_DEVICES", "eth0"));
}
END_TEST

/* The same job configured as advised: nothing left to change. */
START_TEST(test_two_hosts_configured)
{
	two_hosts();
	for (size_t i = 0; i < res.n_hosts; i++) {
		set_env(&res.hosts[i], "OMPI_MCA_btl_tcp_if_include", "10.0.0.0/24");
		set_env(&res.hosts[i], "OMPI_MCA_oob_tcp_if_include", "eth0");
		set_env(&res.hosts[i], "UCX_NET_DEVICES", "eth0");
	}
	cd_advise(&res);
	ck_assert_uint_eq(res.n_advice, 0);
}
END_TEST

/* With InfiniBand active, UCX carries data over verbs: never steer it to eth0. */
START_TEST(test_two_hosts_rdma_keeps_ucx)
{
	two_hosts();
	for (size_t i = 0; i < res.n_hosts; i++) {
		struct cd_hca *c = cd_host_add_hca(&res.hosts[i]);
		struct cd_ib_port *p = cd_hca_add_port(c);

		c->name = xstrdup("mlx5_0");
		p->port = 1;
		p->state = xstrdup("active");
		p->link_layer = xstrdup("infiniband");
		p->rate_gbit_s = 400;
	}
	cd_advise(&res);
	ck_assert_ptr_null(advice("UCX_NET_DEVICES", NULL));
	ck_assert_ptr_nonnull(advice("OMPI_MCA_btl_tcp_if_include", "eth0"));
}
END_TEST

/* virbr0 before eth0 and NCCL 2.21: its "^docker,lo" takes virbr0, the other host cannot reach it. */
START_TEST(test_nccl_own_pick_unreachable)
{
	struct cd_host *h;
	const struct cd_advice *a;

	for (int i = 0; i < 2; i++) {
		h = add_host(i ? "node18" : "node17");
		h->versions.nccl = xstrdup("2.21.5");
		add_nic(h, "virbr0", CD_NIC_BRIDGE, "192.168.122.1/24", 0);
		add_nic(h, "eth0", CD_NIC_PHYSICAL, i ? "10.0.0.18/24" : "10.0.0.17/24", 1);
		set_env(h, "OMPI_MCA_btl_tcp_if_include", "eth0");
		set_env(h, "OMPI_MCA_oob_tcp_if_include", "eth0");
		set_env(h, "UCX_NET_DEVICES", "eth0");
	}
	reach("node17", "node18", "eth0", 1);
	reach("node18", "node17", "eth0", 1);
	reach("node17", "node18", "virbr0", 0);
	reach("node18", "node17", "virbr0", 0);
	cd_advise(&res);
	a = advice("NCCL_SOCKET_IFNAME", "eth0");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(a->why, "NCCL would use virbr0 (its own order: "));
	ck_assert_uint_eq(res.n_advice, 1);
}
END_TEST

/*
 * One host, nothing failing: an H100 node with eight IPoIB interfaces and eth0 needs no
 * socket setting (NCCL takes ib0 first, and it works); a virtual bridge ahead of every
 * physical interface does (NCCL would bootstrap on it), and so does a variable naming
 * an interface that is not there.
 */
START_TEST(test_one_host_socket_evidence)
{
	struct cd_host *h = add_host("gpu-node07");
	const struct cd_advice *a;

	add_nic(h, "eth0", CD_NIC_PHYSICAL, "192.168.40.7/24", 1);
	for (int i = 0; i < 8; i++) {
		char name[16], addr[32];

		snprintf(name, sizeof(name), "ib%d", i);
		snprintf(addr, sizeof(addr), "10.%d.0.7/16", 10 + i);
		add_nic(h, name, CD_NIC_IPOIB, addr, 0);
	}
	cd_advise(&res);
	ck_assert_uint_eq(res.n_advice, 0);

	/* NCCL before 2.28 takes ib0 whatever its state: an ib0 without carrier breaks the bootstrap */
	res.hosts[0].versions.nccl = xstrdup("2.21.5");
	free(res.hosts[0].nics[2].state);
	res.hosts[0].nics[2].state = xstrdup("down");
	cd_advise(&res);
	a = advice("NCCL_SOCKET_IFNAME", "eth0");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(a->why, "unset, NCCL picks ib0"));
	ck_assert_ptr_nonnull(strstr(a->why, "which is down"));
	ck_assert_uint_eq(res.n_advice, 1);
	/* 2.28 skips interfaces that are not running: ib1 then, which works */
	free(res.hosts[0].versions.nccl);
	res.hosts[0].versions.nccl = xstrdup("2.28.9");
	cd_results_clear_judgement(&res);
	cd_advise(&res);
	ck_assert_uint_eq(res.n_advice, 0);

	cd_results_free(&res);
	cd_results_init(&res);
	h = add_host("ws01");
	h->versions.nccl = xstrdup("2.18.3");
	add_nic(h, "virbr0", CD_NIC_BRIDGE, "192.168.122.1/24", 0);
	add_nic(h, "enp5s0", CD_NIC_PHYSICAL, "192.168.1.20/24", 1);
	cd_advise(&res);
	a = advice("NCCL_SOCKET_IFNAME", "enp5s0");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(a->why, "unset, NCCL picks virbr0"));
	ck_assert_uint_eq(res.n_advice, 1);

	set_env(h, "NCCL_SOCKET_IFNAME", "enp5s0");
	cd_results_clear_judgement(&res);
	cd_advise(&res);
	ck_assert_uint_eq(res.n_advice, 0);
	res.hosts[0].env[0].value[0] = 'x'; /* "xnp5s0": selects nothing */
	cd_results_clear_judgement(&res);
	cd_advise(&res);
	a = advice("NCCL_SOCKET_IFNAME", "enp5s0");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(a->why, "NCCL_SOCKET_IFNAME=xnp5s0 selects no interface"));
}
END_TEST

/* NCCL_P2P_DISABLE=1 on an NVLink node (P2P003): unset it. Without P2P003, nothing. */
START_TEST(test_p2p_env_off)
{
	struct cd_host *h = add_host("gpu-node07");
	const struct cd_advice *a;

	for (int i = 0; i < 2; i++)
		cd_host_add_gpu(h)->index = i;
	set_env(h, "NCCL_P2P_DISABLE", "1");
	cd_advise(&res);
	ck_assert_ptr_null(advice("NCCL_P2P_DISABLE", NULL));
	cd_results_clear_judgement(&res);
	cd_results_add_finding(&res, "P2P003", CD_SEV_FAIL, "gpu-node07", "gpus", "NCCL P2P off");
	cd_advise(&res);
	a = advice("NCCL_P2P_DISABLE", NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert(answers(a, "P2P003"));
}
END_TEST

/* Retry exceeded on InfiniBand: two steps over the timeout in force, NCCL's default by version. */
START_TEST(test_ib_timeout_by_version)
{
	static const struct { const char *nccl, *want; } cases[] = {
		{ "2.23.4", "22" }, { "2.18.3", "20" }, { "2.12.12", "16" }, { NULL, "22" },
	};
	static const char *const nccl_line = "node17:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with "
					     "error 12, opcode 0, len 0, vendor err 129";
	struct cd_finding *f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cd_host *h;

		cd_results_free(&res);
		cd_results_init(&res);
		h = add_host("node17");
		if (cases[i].nccl)
			h->versions.nccl = xstrdup(cases[i].nccl);
		f = cd_results_add_finding(&res, "LOG007", CD_SEV_FAIL, "node17", "mlx5_0 (InfiniBand)", "retry exceeded");
		cd_finding_evidence(f, "%s", nccl_line);
		cd_advise(&res);
		ck_assert_msg(advice("NCCL_IB_TIMEOUT", cases[i].want), "NCCL %s: NCCL_IB_TIMEOUT=%s expected",
			      cases[i].nccl ? cases[i].nccl : "unknown", cases[i].want);
	}
	set_env(&res.hosts[0], "NCCL_IB_TIMEOUT", "23");
	cd_results_clear_judgement(&res);
	f = cd_results_add_finding(&res, "LOG007", CD_SEV_FAIL, "node17", "mlx5_0 (InfiniBand)", "retry exceeded");
	cd_finding_evidence(f, "%s", nccl_line);
	cd_advise(&res);
	ck_assert_ptr_nonnull(advice("NCCL_IB_TIMEOUT", "25"));
	/* the same status from UCX: NCCL's timeout is not its setting */
	cd_results_clear_judgement(&res);
	f = cd_results_add_finding(&res, "LOG007", CD_SEV_FAIL, "node17", "mlx5_0 (InfiniBand)", "retry exceeded");
	cd_finding_evidence(f, "%s", "node17: mlx5_0: transport retry counter exceeded");
	cd_advise(&res);
	for (size_t i = 0; i < res.n_advice; i++)
		ck_assert_msg(!res.advice[i].env || strncmp(res.advice[i].env, "NCCL_IB_", 8), "%s advised on UCX's status 12",
			      res.advice[i].env);
}
END_TEST

/* A straggler and a timeout finding (MPI003, LOG001): name the rank, heartbeat past the timeout. */
START_TEST(test_straggler_and_timeout)
{
	struct cd_finding *f;
	const struct cd_advice *a;

	add_host("node17");
	add_host("node18");
	cd_results_add_finding(&res, "MPI003", CD_SEV_FAIL, "node18", "rank 5", "straggler");
	f = cd_results_add_finding(&res, "LOG001", CD_SEV_FAIL, "node17", "rank 5 is behind", "timeout");
	f->expected = 1800000;
	cd_advise(&res);
	a = advice(NULL, "straggling host");
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->host, "node18");
	ck_assert_ptr_nonnull(strstr(a->why, "rank 5 on node18"));
	a = advice("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "1920");
	ck_assert_ptr_nonnull(a);
	ck_assert(answers(a, "LOG001"));
	ck_assert_ptr_nonnull(advice("TORCH_NCCL_TRACE_BUFFER_SIZE", "2000"));
}
END_TEST

/* NCCL003 alone (the others wait for rank 3 in every collective): the same leaf names it. */
START_TEST(test_nccl_straggler)
{
	const struct cd_advice *a;

	add_host("node17");
	add_host("node18");
	cd_results_add_finding(&res, "NCCL003", CD_SEV_FAIL, "node18", "rank 3", "the others wait");
	cd_advise(&res);
	a = advice(NULL, "straggling host");
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->host, "node18");
	ck_assert_ptr_nonnull(strstr(a->why, "rank 3 on node18 is the straggler"));
	ck_assert(answers(a, "NCCL003"));
	ck_assert_ptr_nonnull(advice("NCCL_DEBUG", "INFO"));
	ck_assert_ptr_null(advice("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "")); /* no timeout seen: no value to compute */
}
END_TEST

/*
 * LOG009 made by the cause catalogue for another library's versions (UCX's worker address) has
 * that entry's fix; the tree's "same driver and CUDA" needs the driver or CUDA to differ.
 */
START_TEST(test_versions_driver_needs_evidence)
{
	add_host("node1");
	cd_results_add_finding(&res, "LOG009", CD_SEV_FAIL, "node1", "ucx", "UCX versions differ");
	cd_advise(&res);
	ck_assert_ptr_null(advice(NULL, "install the same NVIDIA driver and CUDA version"));
	cd_results_free(&res);

	cd_results_init(&res);
	add_host("node1");
	cd_results_add_finding(&res, "LOG009", CD_SEV_WARN, "node1", "CUDA driver", "CUDA driver versions differ between ranks or hosts");
	cd_advise(&res);
	ck_assert_ptr_nonnull(advice(NULL, "install the same NVIDIA driver and CUDA version"));
}
END_TEST

/*
 * LOG099 (errors, no cause): what to collect comes from the libraries that printed the errors,
 * its subject, the first error's first; NCCL's INFO log only where NCCL is one of them or the
 * log names none.
 */
START_TEST(test_unexplained_collects_per_library)
{
	add_host("node1");
	cd_results_add_finding(&res, "LOG099", CD_SEV_WARN, "node1", "ucx,ompi", "errors in the log without a recognisable cause");
	cd_advise(&res);
	ck_assert_ptr_nonnull(advice("UCX_LOG_LEVEL", "info"));
	ck_assert_ptr_nonnull(advice("OMPI_MCA_btl_base_verbose", "100"));
	ck_assert_ptr_null(advice("NCCL_DEBUG", "INFO"));
	ck_assert_ptr_null(advice("TORCH_DISTRIBUTED_DEBUG", "DETAIL"));
	cd_results_free(&res);

	cd_results_init(&res);
	add_host("node1");
	cd_results_add_finding(&res, "LOG099", CD_SEV_WARN, "node1", "torch,nccl", "errors in the log without a recognisable cause");
	cd_advise(&res);
	ck_assert_ptr_nonnull(advice("TORCH_DISTRIBUTED_DEBUG", "DETAIL"));
	ck_assert_ptr_nonnull(advice("NCCL_DEBUG", "INFO"));
	ck_assert_ptr_null(advice("UCX_LOG_LEVEL", "info"));
	cd_results_free(&res);

	cd_results_init(&res);
	add_host("node1");
	cd_results_add_finding(&res, "LOG099", CD_SEV_WARN, "node1", NULL, "errors in the log without a recognisable cause");
	cd_advise(&res);
	ck_assert_ptr_nonnull(advice("NCCL_DEBUG", "INFO"));
	ck_assert_ptr_null(advice("OMPI_MCA_btl_base_verbose", "100"));
}
END_TEST

/*
 * PCIE001 from another rule is honoured without the facts behind it. A slow pair (P2P002)
 * is not ACS by itself: P2P stays on unless a bridge redirects; GPUs of different models
 * (GPU002) say nothing about the fabric manager.
 */
START_TEST(test_reserved_findings)
{
	struct cd_host *h = add_host("node17");
	struct cd_finding *f;
	struct cd_acs *acs;

	cd_results_add_finding(&res, "P2P002", CD_SEV_FAIL, "node17", "gpu2-gpu6", "p2p.bw below the floor");
	f = cd_results_add_finding(&res, "PCIE001", CD_SEV_WARN, "node17", "GPU 3", "GPU PCIe link degraded");
	f->measured = 12.1;
	f->expected = 25.0;
	f->unit = xstrdup("gbyte_s");
	cd_results_add_finding(&res, "GPU002", CD_SEV_WARN, "node17", "gpus", "GPU models differ");
	cd_advise(&res);
	ck_assert_ptr_null(advice("NCCL_P2P_DISABLE", NULL));
	ck_assert_ptr_null(advice(NULL, "nvidia-fabricmanager"));
	ck_assert_ptr_nonnull(advice(NULL, "reseat GPU 3"));
	ck_assert_ptr_nonnull(strstr(advice(NULL, "reseat GPU 3")->why, "measured 12.1, expected 25.0"));
	cd_results_clear_judgement(&res);
	cd_results_add_finding(&res, "P2P002", CD_SEV_FAIL, "node17", "gpu2-gpu6", "p2p.bw below the floor");
	acs = CD_PUSH(h->acs, h->n_acs, h->cap_acs);
	memset(acs, 0, sizeof(*acs));
	acs->bus_id = xstrdup("0000:40:01.1");
	acs->redirect = CD_TRI_TRUE;
	acs->ctrl = CD_NULL_I64;
	cd_advise(&res);
	ck_assert(answers(advice("NCCL_P2P_DISABLE", "1"), "P2P002"));
}
END_TEST

/* Identical advice from several hosts is one item; different values stay apart. */
START_TEST(test_merge)
{
	struct cd_host *h;

	for (int i = 0; i < 2; i++) {
		h = add_host(i ? "b" : "a");
		free(h->system.container);
		h->system.container = xstrdup("docker");
		h->system.shm_bytes = 64 << 20;
	}
	cd_advise(&res);
	ck_assert_uint_eq(res.n_advice, 2); /* one item per host: the hosts differ */
	ck_assert_str_eq(res.advice[0].host, "a");
	ck_assert_str_eq(res.advice[1].host, "b");
}
END_TEST

/*
 * ENV007 on a host that has some of the HCAs NCCL_IB_HCA names: keep the items that name
 * one, as written (port, the list's '='), through the same reader NCCL's parser is
 * modelled by; empty items and the absent device go. An exclusion list is unset instead.
 */
START_TEST(test_ib_hca_list_fix)
{
	struct cd_host *h = add_host("gpu-node07");
	const struct cd_advice *a;

	for (int i = 0; i < 2; i++) {
		struct cd_hca *c = cd_host_add_hca(h);
		struct cd_ib_port *p = cd_hca_add_port(c);

		c->name = xasprintf("mlx5_%d", i);
		p->port = 1;
		p->state = xstrdup("active");
	}
	set_env(h, "NCCL_IB_HCA", "=mlx5_0:1,,mlx5_9,mlx5_1");
	cd_results_add_finding(&res, "ENV007", CD_SEV_FAIL, "gpu-node07", "NCCL_IB_HCA",
			       "names an RDMA device that does not exist on this host");
	cd_advise(&res);
	a = advice("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1");
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->value, "=mlx5_0:1,mlx5_1");
	ck_assert(answers(a, "ENV007"));

	free(h->env[0].value);
	h->env[0].value = xstrdup("^mlx5_9,mlx5_1");
	cd_results_clear_judgement(&res);
	cd_results_add_finding(&res, "ENV007", CD_SEV_FAIL, "gpu-node07", "NCCL_IB_HCA",
			       "names an RDMA device that does not exist on this host");
	cd_advise(&res);
	a = advice("NCCL_IB_HCA", NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(a->why, "it selects only some of this host's active ports"));
}
END_TEST

Suite *advise_suite(void)
{
	Suite *s = suite_create("advise");
	TCase *tc = tcase_create("tree");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_tree_is_consistent);
	tcase_add_test(tc, test_two_hosts_routed);
	tcase_add_test(tc, test_two_hosts_configured);
	tcase_add_test(tc, test_two_hosts_rdma_keeps_ucx);
	tcase_add_test(tc, test_nccl_own_pick_unreachable);
	tcase_add_test(tc, test_one_host_socket_evidence);
	tcase_add_test(tc, test_p2p_env_off);
	tcase_add_test(tc, test_ib_timeout_by_version);
	tcase_add_test(tc, test_straggler_and_timeout);
	tcase_add_test(tc, test_nccl_straggler);
	tcase_add_test(tc, test_unexplained_collects_per_library);
	tcase_add_test(tc, test_versions_driver_needs_evidence);
	tcase_add_test(tc, test_reserved_findings);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_ib_hca_list_fix);
	suite_add_tcase(s, tc);
	return s;
}
