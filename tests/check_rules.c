/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules over crafted documents: each case sets only what the rule reads. */
#include <check.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "conf.h"
#include "measure.h"
#include "rules.h"
#include "suites.h"

static struct cd_results res;
static struct cd_host *host;

/* A quiet host: bare metal, net ok with eth0 up and addressed, no HCA, memlock unlimited. */
static struct cd_host *quiet_host(struct cd_results *r, const char *name)
{
	struct cd_host *h = cd_results_add_host(r);
	struct cd_nic *n;

	h->hostname = xstrdup(name);
	for (int i = 0; i < CD_PART_COUNT; i++)
		cd_section_set(&h->part[i], CD_ST_OK, NULL);
	h->system.container = xstrdup("none");
	h->system.shm_bytes = 32LL << 30;
	h->system.memlock_unlimited = CD_TRI_TRUE;
	n = cd_host_add_nic(h);
	n->name = xstrdup("lo");
	n->kind = CD_NIC_LOOPBACK;
	n->state = xstrdup("unknown");
	n->admin_up = CD_TRI_TRUE;
	cd_strv_push(&n->ipv4, "127.0.0.1/8");
	n = cd_host_add_nic(h);
	n->name = xstrdup("eth0");
	n->kind = CD_NIC_PHYSICAL;
	n->state = xstrdup("up");
	n->admin_up = CD_TRI_TRUE;
	cd_strv_push(&n->ipv4, "10.0.0.17/24");
	return h;
}

static void setup(void)
{
	cd_results_init(&res);
	host = quiet_host(&res, "node17");
}

static void teardown(void)
{
	cd_results_free(&res);
}

static size_t count_id(const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < res.n_findings; i++)
		n += !strcmp(res.findings[i].id, id);
	return n;
}

static const struct cd_finding *first_id(const char *id)
{
	for (size_t i = 0; i < res.n_findings; i++)
		if (!strcmp(res.findings[i].id, id))
			return &res.findings[i];
	ck_abort_msg("no %s finding", id);
	return NULL;
}

/* Findings from a fresh evaluation (earlier ones are dropped first). */
static int evaluate(void)
{
	int n;

	cd_results_clear_judgement(&res);
	n = cd_rules_evaluate(&res);
	ck_assert_int_eq(n, (int)res.n_findings);
	return n;
}

static struct cd_nic *nic(const char *name)
{
	for (size_t i = 0; i < host->n_nics; i++)
		if (!strcmp(host->nics[i].name, name))
			return &host->nics[i];
	ck_abort_msg("no nic %s", name);
	return NULL;
}

static struct cd_nic *add_nic(const char *name, enum cd_nic_kind kind, const char *state, int admin_up)
{
	struct cd_nic *n = cd_host_add_nic(host);

	n->name = xstrdup(name);
	n->kind = kind;
	n->state = xstrdup(state);
	n->admin_up = admin_up;
	return n;
}

static void set_str(char **p, const char *v)
{
	free(*p);
	*p = xstrdup(v);
}

START_TEST(test_quiet_host)
{
	ck_assert_int_eq(evaluate(), 0);
	ck_assert_int_eq(cd_results_worst(&res), -1);
}
END_TEST

/* ---- SYS001: /dev/shm inside a container ---- */

START_TEST(test_sys001_warn)
{
	const struct cd_finding *f;

	set_str(&host->system.container, "docker");
	host->system.shm_bytes = 64LL << 20;
	ck_assert_int_eq(evaluate(), 1);
	f = first_id("SYS001");
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
	ck_assert_str_eq(f->host, "node17");
	ck_assert_str_eq(f->subject, "/dev/shm");
	ck_assert_str_eq(f->title, "/dev/shm is too small for NCCL's shared-memory transport");
	ck_assert_double_eq(f->measured, 67108864.0);
	ck_assert_double_eq(f->expected, 1073741824.0);
	ck_assert_str_eq(f->unit, "bytes");
	ck_assert_str_eq(f->threshold, "system.shm_min_bytes");
	ck_assert_uint_eq(f->evidence.n, 2);
	ck_assert_str_eq(f->evidence.v[0], "/dev/shm is 64.0 MiB inside a docker container, below 1.0 GiB");
	ck_assert_str_eq(f->evidence.v[1], "threshold system.shm_min_bytes = 1.0 GiB (embedded default.conf:14)");
}
END_TEST

START_TEST(test_sys001_one_gpu_warn)
{
	set_str(&host->system.container, "kubernetes");
	host->system.shm_bytes = 64LL << 20;
	cd_host_add_gpu(host)->index = 0;
	evaluate();
	ck_assert_uint_eq(count_id("SYS001"), 1);
	ck_assert_int_eq(first_id("SYS001")->severity, CD_SEV_WARN);
}
END_TEST

START_TEST(test_sys001_two_gpus_fail)
{
	set_str(&host->system.container, "docker");
	host->system.shm_bytes = 64LL << 20;
	cd_host_add_gpu(host)->index = 0;
	cd_host_add_gpu(host)->index = 1;
	evaluate();
	ck_assert_uint_eq(count_id("SYS001"), 1);
	ck_assert_int_eq(first_id("SYS001")->severity, CD_SEV_FAIL);
	ck_assert_int_eq(cd_results_worst(&res), CD_SEV_FAIL);
}
END_TEST

START_TEST(test_sys001_not_outside_container)
{
	host->system.shm_bytes = 64LL << 20; /* container "none" */
	ck_assert_int_eq(evaluate(), 0);
	free(host->system.container);
	host->system.container = NULL; /* unknown */
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

START_TEST(test_sys001_threshold)
{
	set_str(&host->system.container, "docker");
	host->system.shm_bytes = 1LL << 30;
	ck_assert_int_eq(evaluate(), 0);
	host->system.shm_bytes = 2LL << 30;
	ck_assert_int_eq(evaluate(), 0);
	host->system.shm_bytes = (1LL << 30) - 4096;
	ck_assert_int_eq(evaluate(), 1);
	ck_assert_uint_eq(count_id("SYS001"), 1);
}
END_TEST

START_TEST(test_sys001_shm_unknown)
{
	set_str(&host->system.container, "docker");
	host->system.shm_bytes = CD_NULL_I64;
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

/* ---- SYS002: memlock with RDMA devices ---- */

START_TEST(test_sys002_fires)
{
	const struct cd_finding *f;

	cd_host_add_hca(host)->name = xstrdup("mlx5_0");
	host->system.memlock_unlimited = CD_TRI_FALSE;
	host->system.memlock_bytes = 64 << 10;
	ck_assert_int_eq(evaluate(), 1);
	f = first_id("SYS002");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_str_eq(f->subject, "memlock");
	ck_assert_double_eq(f->measured, 65536.0);
	ck_assert(isnan(f->expected));
	ck_assert_str_eq(f->unit, "bytes");
	ck_assert_str_eq(f->evidence.v[0], "RLIMIT_MEMLOCK is 64.0 KiB with 1 RDMA device present; verbs needs unlimited");
}
END_TEST

START_TEST(test_sys002_two_hcas)
{
	cd_host_add_hca(host)->name = xstrdup("mlx5_0");
	cd_host_add_hca(host)->name = xstrdup("mlx5_1");
	host->system.memlock_unlimited = CD_TRI_FALSE;
	host->system.memlock_bytes = 8LL << 20;
	ck_assert_int_eq(evaluate(), 1);
	ck_assert_str_eq(first_id("SYS002")->evidence.v[0],
			 "RLIMIT_MEMLOCK is 8.0 MiB with 2 RDMA devices present; verbs needs unlimited");
}
END_TEST

START_TEST(test_sys002_unlimited)
{
	cd_host_add_hca(host)->name = xstrdup("mlx5_0");
	host->system.memlock_unlimited = CD_TRI_TRUE;
	host->system.memlock_bytes = CD_NULL_I64;
	ck_assert_int_eq(evaluate(), 0);
	host->system.memlock_unlimited = CD_TRI_NULL; /* unknown: no guess */
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

START_TEST(test_sys002_no_hca)
{
	host->system.memlock_unlimited = CD_TRI_FALSE;
	host->system.memlock_bytes = 64 << 10;
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

/* ---- NET002: nothing but loopback is up ---- */

START_TEST(test_net002_only_lo)
{
	const struct cd_finding *f;

	set_str(&nic("eth0")->state, "down");
	nic("eth0")->admin_up = CD_TRI_FALSE;
	ck_assert_int_eq(evaluate(), 1);
	f = first_id("NET002");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_str_eq(f->subject, "interfaces");
	ck_assert_str_eq(f->title, "no interface other than loopback is up");
	ck_assert_uint_eq(f->evidence.n, 1);
	ck_assert_str_eq(f->evidence.v[0], "eth0: state down, admin down");
}
END_TEST

START_TEST(test_net002_admin_up_no_carrier)
{
	set_str(&nic("eth0")->state, "lowerlayerdown");
	ck_assert_int_eq(evaluate(), 1);
	ck_assert_str_eq(first_id("NET002")->evidence.v[0], "eth0: state lowerlayerdown, admin up");
}
END_TEST

START_TEST(test_net002_no_other_iface)
{
	/* only lo exists at all */
	struct cd_nic *eth0 = nic("eth0");

	free(eth0->name);
	free(eth0->state);
	cd_strv_free(&eth0->ipv4);
	host->n_nics = 1;
	ck_assert_int_eq(evaluate(), 1);
	ck_assert_uint_eq(first_id("NET002")->evidence.n, 1);
	ck_assert_str_eq(first_id("NET002")->evidence.v[0], "only loopback exists");
}
END_TEST

START_TEST(test_net002_eth0_up)
{
	ck_assert_int_eq(evaluate(), 0);
	set_str(&nic("eth0")->state, "unknown"); /* virtio without carrier reporting */
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

START_TEST(test_net002_net_skipped)
{
	set_str(&nic("eth0")->state, "down");
	nic("eth0")->admin_up = CD_TRI_FALSE;
	cd_section_set(&host->part[CD_PART_NET], CD_ST_SKIPPED, "libnl: cannot connect");
	ck_assert_int_eq(evaluate(), 0);
	cd_section_set(&host->part[CD_PART_NET], CD_ST_ERROR, "libnl: error");
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

/* ---- NET003: up without an address ---- */

START_TEST(test_net003_physical_warn)
{
	const struct cd_finding *f;
	struct cd_nic *n = add_nic("eth1", CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);

	(void)n;
	ck_assert_int_eq(evaluate(), 1);
	f = first_id("NET003");
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
	ck_assert_str_eq(f->subject, "eth1");
	ck_assert_str_eq(f->title, "interface is up but has no address");
	ck_assert_str_eq(f->evidence.v[0], "eth1 (physical) is up with no IPv4 and no global IPv6 address");
}
END_TEST

/* IPoIB without an address is many RDMA clusters' default: NCCL and UCX use the verbs device. */
START_TEST(test_net003_ipoib_info)
{
	add_nic("ib0", CD_NIC_IPOIB, "up", CD_TRI_TRUE);
	ck_assert_int_eq(evaluate(), 1);
	ck_assert_int_eq(first_id("NET003")->severity, CD_SEV_INFO);
}
END_TEST

START_TEST(test_net003_virtual_info)
{
	add_nic("veth1a2b", CD_NIC_VETH, "up", CD_TRI_TRUE);
	add_nic("dummy0", CD_NIC_VIRTUAL, "unknown", CD_TRI_TRUE);
	ck_assert_int_eq(evaluate(), 2);
	ck_assert_uint_eq(count_id("NET003"), 2);
	ck_assert_int_eq(res.findings[0].severity, CD_SEV_INFO);
	ck_assert_str_eq(res.findings[0].subject, "veth1a2b");
	ck_assert_int_eq(res.findings[1].severity, CD_SEV_INFO);
	ck_assert_str_eq(res.findings[1].evidence.v[0], "dummy0 (virtual) is unknown with no IPv4 and no global IPv6 address");
}
END_TEST

START_TEST(test_net003_bond_slave)
{
	struct cd_nic *n = add_nic("eth1", CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);

	n->master = xstrdup("bond0");
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

START_TEST(test_net003_link_local_only)
{
	/* fe80:: cannot carry NCCL's bootstrap between hosts: still fires */
	struct cd_nic *n = add_nic("eth1", CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);

	cd_strv_push(&n->ipv6, "fe80::5054:ff:fe12:3456/64");
	cd_strv_push(&n->ipv6, "FE80::1/64");
	ck_assert_int_eq(evaluate(), 1);
	ck_assert_str_eq(first_id("NET003")->evidence.v[0],
			 "eth1 (physical) is up with no IPv4 and no global IPv6 address (link-local only)");
}
END_TEST

START_TEST(test_net003_addressed)
{
	struct cd_nic *a = add_nic("eth1", CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);
	struct cd_nic *b = add_nic("eth2", CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);

	cd_strv_push(&a->ipv4, "192.168.1.5/24");
	cd_strv_push(&b->ipv6, "fe80::1/64");
	cd_strv_push(&b->ipv6, "2001:db8::5/64");
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

START_TEST(test_net003_down)
{
	add_nic("eth1", CD_NIC_PHYSICAL, "down", CD_TRI_FALSE);
	add_nic("eth2", CD_NIC_PHYSICAL, "down", CD_TRI_TRUE); /* admin up, no carrier */
	add_nic("eth3", CD_NIC_PHYSICAL, "up", CD_TRI_NULL);   /* admin state unknown */
	add_nic("lo2", CD_NIC_LOOPBACK, "unknown", CD_TRI_TRUE);
	ck_assert_int_eq(evaluate(), 0);
}
END_TEST

/* ---- the table and the runner ---- */

START_TEST(test_nic_is_up)
{
	struct cd_nic n = { 0 };

	n.admin_up = CD_TRI_TRUE;
	ck_assert(!cd_nic_is_up(&n)); /* no state */
	n.state = "up";
	ck_assert(cd_nic_is_up(&n));
	n.state = "unknown";
	ck_assert(cd_nic_is_up(&n));
	n.state = "dormant";
	ck_assert(!cd_nic_is_up(&n));
	n.state = "down";
	ck_assert(!cd_nic_is_up(&n));
	n.state = "up";
	n.admin_up = CD_TRI_FALSE;
	ck_assert(!cd_nic_is_up(&n));
	n.admin_up = CD_TRI_NULL;
	ck_assert(!cd_nic_is_up(&n));
}
END_TEST

START_TEST(test_table)
{
	size_t n = 0;
	const struct cd_rule *t = cd_rules_table(&n);
	regex_t re;

	ck_assert_int_eq(regcomp(&re, "^[A-Z][A-Z0-9]*[0-9]{3}$", REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_uint_ge(n, 4);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(t[i].id);
		ck_assert_msg(regexec(&re, t[i].id, 0, NULL, 0) == 0, "bad rule id '%s'", t[i].id);
		ck_assert_ptr_nonnull(t[i].group);
		ck_assert_ptr_nonnull(t[i].summary);
		ck_assert_uint_gt(strlen(t[i].summary), 0);
		ck_assert_ptr_nonnull(t[i].check);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcmp(t[i].id, t[j].id) != 0, "rule id %s twice", t[i].id);
	}
	regfree(&re);
	/* the rules these tests cover are in the table */
	for (const char *const *id = (const char *const[]){ "SYS001", "SYS002", "SYS003", "NET002", "NET003", "NET004",
							    "NET005", "PCIE001", "PCIE002", "PCIE003", "NVL001", "NVL002",
							    "IB001", "IB002", "IB003", "IB004", "IB005", "GPU001", "GPU002", "GPU003", "GPU004", "NET006", "REQ001", "COPY001",
							    "COPY002", "P2P001", "P2P002", "P2P003", "NCCL001", "NCCL002", "NCCL003",
							    "BAL001", "BAL002", "STAB001", "STAB002", "STAB003", "STAB004",
							    NULL };
	     *id; id++) {
		size_t k;

		for (k = 0; k < n && strcmp(t[k].id, *id); k++)
			;
		ck_assert_msg(k < n, "%s missing from the table", *id);
	}
}
END_TEST

START_TEST(test_every_host)
{
	struct cd_host *h2 = quiet_host(&res, "node18");
	struct cd_host *h1 = &res.hosts[0];

	(void)h2;
	set_str(&h1->system.container, "docker");
	h1->system.shm_bytes = 64LL << 20;
	host = &res.hosts[1];
	set_str(&host->system.container, "docker");
	host->system.shm_bytes = 64LL << 20;
	add_nic("eth1", CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);
	ck_assert_int_eq(evaluate(), 3);
	ck_assert_str_eq(res.findings[0].id, "SYS001");
	ck_assert_str_eq(res.findings[0].host, "node17");
	ck_assert_str_eq(res.findings[1].id, "SYS001");
	ck_assert_str_eq(res.findings[1].host, "node18");
	ck_assert_str_eq(res.findings[2].id, "NET003");
	ck_assert_str_eq(res.findings[2].host, "node18");
}
END_TEST


/* ---- GPU hosts: helpers that set only what the rules read ---- */

static struct cd_conf thr; /* thresholds for cd_rules_evaluate_conf; loaded per test */

static void gsetup(void)
{
	setup();
	cd_conf_init(&thr);
	ck_assert_int_eq(cd_conf_load(&thr, NULL, NULL), 0); /* default.conf only */
}

static void gteardown(void)
{
	cd_conf_free(&thr);
	teardown();
}

static int judge(void)
{
	int n;

	cd_results_clear_judgement(&res);
	n = cd_rules_evaluate_conf(&res, &thr);
	ck_assert_int_eq(n, (int)res.n_findings);
	return n;
}

static void define(const char *kv)
{
	ck_assert_int_eq(cd_conf_define(&thr, kv), 0);
}

static struct cd_gpu *add_gpu(int64_t index)
{
	struct cd_gpu *g = cd_host_add_gpu(host);

	g->index = index;
	g->name = xstrdup("NVIDIA H100 80GB HBM3");
	g->bus_id = xasprintf("0000:%02x:00.0", (unsigned)(0x18 + index));
	g->pcie_gen = g->pcie_max_gen = 5;
	g->pcie_width = g->pcie_max_width = 16;
	g->persistence = CD_TRI_TRUE;
	return g;
}

static void add_gpus(int n)
{
	for (int i = 0; i < n; i++)
		add_gpu(i);
}

static void add_nvlinks(struct cd_gpu *g, int n, int version, const char *remote_kind)
{
	for (int i = 0; i < n; i++) {
		struct cd_nvlink *l = cd_gpu_add_nvlink(g);

		l->link = i;
		l->up = CD_TRI_TRUE;
		l->version = version;
		l->remote_kind = xstrdup(remote_kind);
	}
}

static struct cd_ib_port *add_port(const char *hca, const char *state, double rate)
{
	struct cd_hca *c = cd_host_add_hca(host);
	struct cd_ib_port *p = cd_hca_add_port(c);

	c->name = xstrdup(hca);
	p->port = 1;
	p->state = xstrdup(state);
	p->phys_state = xstrdup(strcmp(state, "active") ? "polling" : "link_up");
	p->link_layer = xstrdup("infiniband");
	p->rate_gbit_s = rate;
	p->active_width = 4;
	return p;
}

/*
 * A probe with one sample per (bytes, GB/s) pair; time from bytes and rate, 20 iterations
 * within 2 % (min to max) and 1 % (the middle half), no outliers.
 */
static struct cd_probe_run *add_probe(const char *name, int64_t device, int64_t peer, int n, const int64_t *bytes,
				      const double *gbs)
{
	struct cd_probe_run *p = cd_results_add_probe(&res, name);

	p->status = CD_ST_OK;
	p->host = xstrdup("node17");
	p->device = device;
	p->peer = peer;
	for (int i = 0; i < n; i++) {
		struct cd_probe_sample *sm = cd_probe_add_sample(p);

		sm->bytes = bytes[i];
		sm->iters = 20;
		sm->time_us = (double)bytes[i] / gbs[i] / 1e3;
		sm->min_time_us = sm->time_us * 0.99;
		sm->max_time_us = sm->time_us * 1.01;
		sm->p10_time_us = sm->time_us * 0.993;
		sm->p25_time_us = sm->time_us * 0.995;
		sm->p75_time_us = sm->time_us * 1.005;
		sm->p90_time_us = sm->time_us * 1.007;
		sm->outliers = 0;
		sm->algbw_gbyte_s = gbs[i];
		sm->busbw_gbyte_s = gbs[i];
		sm->errors = 0;
	}
	return p;
}

static struct cd_probe_run *bw_probe(const char *name, int64_t device, int64_t peer, double gbs)
{
	return add_probe(name, device, peer, 1, (const int64_t[]){ 256LL << 20 }, (const double[]){ gbs });
}

static size_t count_group_not_evaluated(const char *group)
{
	size_t n = 0;

	for (size_t i = 0; i < res.rules.n_not_evaluated; i++)
		n += !strcmp(res.rules.not_evaluated[i].group, group);
	return n;
}

START_TEST(test_sys003_iommu)
{
	add_gpus(2);
	set_str(&host->system.iommu, "on");
	ck_assert_int_eq(judge(), 1);
	ck_assert_int_eq(first_id("SYS003")->severity, CD_SEV_WARN);
	set_str(&host->system.iommu, "passthrough");
	ck_assert_int_eq(judge(), 0);
	set_str(&host->system.iommu, "on");
	host->n_gpus = 1; /* one GPU: no peer traffic */
	free(host->gpus[1].name);
	free(host->gpus[1].bus_id);
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_net004_net005_fabric)
{
	struct cd_nic *a, *b, *c;
	const struct cd_finding *f;

	add_nic("ib0", CD_NIC_IPOIB, "up", CD_TRI_TRUE);
	add_nic("ib1", CD_NIC_IPOIB, "up", CD_TRI_TRUE);
	add_nic("ib2", CD_NIC_IPOIB, "up", CD_TRI_TRUE);
	a = nic("ib0"); /* element pointers die on push: look them up after the last one */
	b = nic("ib1");
	c = nic("ib2");

	cd_strv_push(&a->ipv4, "10.1.0.1/16");
	cd_strv_push(&b->ipv4, "10.2.0.1/16");
	cd_strv_push(&c->ipv4, "10.3.0.1/16");
	a->mtu = b->mtu = c->mtu = 4092;
	a->speed_mbit_s = b->speed_mbit_s = c->speed_mbit_s = 400000;
	nic("eth0")->mtu = 1500; /* a slow management port: not fabric */
	nic("eth0")->speed_mbit_s = 1000;
	ck_assert_int_eq(judge(), 0);
	c->mtu = 2044;
	c->speed_mbit_s = 200000;
	ck_assert_int_eq(judge(), 2);
	f = first_id("NET004");
	ck_assert_str_eq(f->subject, "ib2");
	ck_assert_double_eq(f->measured, 2044);
	ck_assert_double_eq(f->expected, 4092);
	f = first_id("NET005");
	ck_assert_str_eq(f->subject, "ib2");
	ck_assert_double_eq(f->expected, 400000);
	ck_assert_str_eq(f->unit, "mbit_s");
	define("net.fabric_min_mbit_s = 500 Gb/s"); /* nothing is fabric now */
	ck_assert_int_eq(judge(), 0);
}
END_TEST

/*
 * RoCE rails and the front end are different groups: a 100 GbE front end at MTU 1500 beside
 * 200 GbE rails at 9000 is a design; one rail at 1500 among the rails is NET004.
 */
START_TEST(test_net004_rails_and_front_end)
{
	static const char *const rails[] = { "ens1np0", "ens2np0", "ens3np0" };
	const struct cd_finding *f;

	for (size_t i = 0; i < 3; i++) {
		struct cd_ib_port *p = add_port(i == 0 ? "mlx5_0" : i == 1 ? "mlx5_1" : "mlx5_2", "active", 200);

		p->link_layer = (free(p->link_layer), xstrdup("ethernet"));
		p->netdev = xstrdup(rails[i]);
		add_nic(rails[i], CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);
	}
	for (size_t i = 0; i < 3; i++) {
		struct cd_nic *n = nic(rails[i]);

		cd_strv_push(&n->ipv4, "10.0.0.1/24");
		n->mtu = 9000;
		n->speed_mbit_s = 200000;
	}
	nic("eth0")->mtu = 1500;
	nic("eth0")->speed_mbit_s = 100000;
	ck_assert_int_eq(judge(), 0);
	nic("ens2np0")->mtu = 1500;
	ck_assert_int_eq(judge(), 1);
	f = first_id("NET004");
	ck_assert_str_eq(f->subject, "ens2np0");
	ck_assert_ptr_nonnull(strstr(f->evidence.v[0], "most physical RDMA fabric ports have 9000"));
}
END_TEST

/*
 * IB003's floor is per GPU: two 200 Gb/s rails per GPU meet a 400 Gb/s floor; a front-end
 * port of the other link layer (an Azure VF beside InfiniBand rails) is not a rail at all.
 */
START_TEST(test_ib003_rails_per_gpu)
{
	define("ib.min_rate_gbit_s=400");
	add_gpus(2);
	for (int i = 0; i < 4; i++) {
		struct cd_ib_port *p = add_port("mlx5_0", "active", 200);

		free(p->link_layer);
		p->link_layer = xstrdup("ethernet");
	}
	ck_assert_int_eq(judge(), 0);
	host->hcas[3].ports[0].rate_gbit_s = 100;
	ck_assert_int_eq(judge(), 1); /* IB003 below 200 per port (IB002 stays quiet where IB003 spoke) */
	ck_assert_double_eq(first_id("IB003")->expected, 200);
	ck_assert_ptr_nonnull(strstr(first_id("IB003")->evidence.v[0], "4 ethernet rails for 2 GPUs"));
	cd_results_free(&res);
	cd_results_init(&res);
	host = quiet_host(&res, "node17");
	add_gpus(2);
	add_port("mlx5_ib0", "active", 400);
	add_port("mlx5_ib1", "active", 400);
	{
		struct cd_ib_port *p = add_port("mlx5_an0", "active", 50);

		free(p->link_layer);
		p->link_layer = xstrdup("ethernet");
	}
	ck_assert_int_eq(judge(), 0);
}
END_TEST

/* IB005: an active RoCE port with only RoCE v1 GIDs; v2 with IPv4, or an unread table, is quiet. */
START_TEST(test_ib005_roce_v2_gid)
{
	struct cd_ib_port *p = add_port("mlx5_4", "active", 200);
	struct cd_gid *g;

	p->link_layer = (free(p->link_layer), xstrdup("ethernet"));
	ck_assert_int_eq(judge(), 0); /* no GID table read */
	g = CD_PUSH(p->gids, p->n_gids, p->cap_gids);
	g->index = 0;
	g->type = xstrdup("IB/RoCE v1");
	g->gid = xstrdup("fe80:0000:0000:0000:0000:0000:0000:0001");
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("IB005")->subject, "mlx5_4/1");
	ck_assert_int_eq(first_id("IB005")->severity, CD_SEV_WARN);
	ck_assert_str_eq(first_id("IB005")->evidence.v[0], "mlx5_4/1 is an active RoCE port; its GIDs: 0 IB/RoCE v1");
	p->roce_v2_gid_index = 3;
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_pcie001_gpu_width_and_gen)
{
	struct cd_gpu *g;
	const struct cd_finding *f;

	add_gpus(2);
	ck_assert_int_eq(judge(), 0);
	g = &host->gpus[1];
	g->pcie_width = 8;
	ck_assert_int_eq(judge(), 1);
	f = first_id("PCIE001");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_str_eq(f->subject, "gpu1");
	ck_assert_double_eq(f->measured, 31.5);
	ck_assert_double_eq(f->expected, 63.0);
	ck_assert_str_eq(f->evidence.v[0], "gpu1: Gen5 x8 of Gen5 x16: 31.50 of 63.00 GB/s per direction");
	g->pcie_width = 16;
	g->pcie_gen = 4; /* maybe idle power saving: warn */
	ck_assert_int_eq(judge(), 1);
	ck_assert_int_eq(first_id("PCIE001")->severity, CD_SEV_WARN);
	bw_probe("copy.h2d", 1, CD_NULL_I64, 55.0); /* the link proved itself under load */
	ck_assert_int_eq(judge(), 0);
	g->pcie_max_gen = CD_NULL_I64; /* unknown maximum: nothing */
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_pcie002_nic_link)
{
	struct cd_pci_device *d = cd_host_add_pci(host);
	const struct cd_finding *f;

	d->bus_id = xstrdup("0000:bb:00.0");
	d->kind = CD_PCI_HCA;
	cd_strv_push(&d->os_devices, "mlx5_6");
	d->gen = d->max_gen = 5;
	d->width = d->max_width = 16;
	ck_assert_int_eq(judge(), 0);
	d->width = 8;
	ck_assert_int_eq(judge(), 1);
	f = first_id("PCIE002");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_str_eq(f->subject, "mlx5_6");
	d->width = 16;
	d->gen = 3;
	ck_assert_int_eq(judge(), 1);
	ck_assert_int_eq(first_id("PCIE002")->severity, CD_SEV_WARN);
	d->kind = CD_PCI_STORAGE; /* not a network adapter */
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_pcie003_acs)
{
	struct cd_acs *a = cd_host_add_acs(host);

	a->bus_id = xstrdup("0000:16:02.0");
	a->redirect = CD_TRI_FALSE;
	ck_assert_int_eq(judge(), 0);
	a->redirect = CD_TRI_TRUE;
	a->ctrl = 0x1d;
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("PCIE003")->subject, "0000:16:02.0");
	a->redirect = CD_TRI_NULL; /* unreadable: no guess */
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_nvl001_nvl002)
{
	const struct cd_finding *f;

	add_gpus(2);
	add_nvlinks(&host->gpus[0], 18, 4, "nvswitch");
	add_nvlinks(&host->gpus[1], 18, 4, "nvswitch");
	define("nvlink.links_expected=18");
	ck_assert_int_eq(judge(), 0);
	host->gpus[1].nvlinks[3].up = CD_TRI_FALSE;
	ck_assert_int_eq(judge(), 1);
	f = first_id("NVL001");
	ck_assert_str_eq(f->subject, "gpu1");
	ck_assert_double_eq(f->measured, 17);
	ck_assert_double_eq(f->expected, 18);
	ck_assert_str_eq(f->evidence.v[0], "gpu1 link 3 is down");
	host->gpus[1].nvlinks[3].up = CD_TRI_TRUE;
	host->gpus[1].n_nvlinks = 12; /* links missing altogether */
	for (size_t l = 12; l < 18; l++)
		free(host->gpus[1].nvlinks[l].remote_kind);
	ck_assert_int_eq(judge(), 1);
	f = first_id("NVL002");
	ck_assert_double_eq(f->measured, 12);
	ck_assert_str_eq(f->threshold, "nvlink.links_expected");
	define("nvlink.links_expected=0");
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_ib001_ib002_ib003)
{
	const struct cd_finding *f;

	add_port("mlx5_0", "active", 400);
	add_port("mlx5_1", "active", 400);
	add_port("mlx5_2", "active", 400);
	ck_assert_int_eq(judge(), 0);
	set_str(&host->hcas[1].ports[0].state, "down");
	ck_assert_int_eq(judge(), 1);
	f = first_id("IB001");
	ck_assert_str_eq(f->subject, "mlx5_1/1");
	ck_assert_str_eq(f->evidence.v[0], "mlx5_1/1: state down, physical state link_up, link layer infiniband");
	set_str(&host->hcas[1].ports[0].state, "active");
	host->hcas[2].ports[0].rate_gbit_s = 200; /* trained at HDR */
	ck_assert_int_eq(judge(), 1);
	f = first_id("IB002");
	ck_assert_str_eq(f->subject, "mlx5_2/1");
	ck_assert_double_eq(f->expected, 400);
	define("ib.min_rate_gbit_s = 400 Gb/s"); /* the floor takes over: IB003, not IB002 */
	ck_assert_int_eq(judge(), 1);
	f = first_id("IB003");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_double_eq(f->measured, 200);
	ck_assert_str_eq(f->unit, "gbit_s");
}
END_TEST

START_TEST(test_gpu001_gpu002_gpu003)
{
	const struct cd_finding *f;

	add_gpus(7);
	ck_assert_int_eq(judge(), 0);
	define("gpu.count_expected=8");
	ck_assert_int_eq(judge(), 1);
	f = first_id("GPU001");
	ck_assert_double_eq(f->measured, 7);
	ck_assert_double_eq(f->expected, 8);
	cd_section_set(&host->part[CD_PART_GPU], CD_ST_SKIPPED, "no driver"); /* no inventory is zero, not "no data" */
	ck_assert_int_eq(judge(), 1);
	ck_assert_ptr_nonnull(first_id("GPU001"));
	ck_assert_ptr_nonnull(strstr(first_id("GPU001")->evidence.v[1], "gpu discovery skipped: no driver"));
	cd_section_set(&host->part[CD_PART_GPU], CD_ST_OK, NULL);
	define("gpu.count_expected=0");
	set_str(&host->gpus[3].name, "NVIDIA A100-SXM4-80GB");
	host->gpus[2].persistence = CD_TRI_FALSE;
	ck_assert_int_eq(judge(), 2);
	ck_assert_int_eq(first_id("GPU002")->severity, CD_SEV_WARN);
	ck_assert_int_eq(first_id("GPU003")->severity, CD_SEV_INFO);
	ck_assert_double_eq(first_id("GPU003")->measured, 1);
}
END_TEST

static struct cd_pci_device *add_pci_gpu(const char *bus, int64_t cls)
{
	struct cd_pci_device *d = cd_host_add_pci(host);

	d->bus_id = xstrdup(bus);
	d->vendor_id = 0x10de;
	d->class_id = cls;
	d->kind = CD_PCI_GPU;
	d->device = xstrdup("GH100 [H100 SXM5 80GB]");
	return d;
}

/* The most common broken GPU node: the bus shows the GPUs, the driver gives none. */
START_TEST(test_gpu004_driver_missing)
{
	const struct cd_finding *f;

	for (int i = 0; i < 8; i++) {
		char bus[16];

		snprintf(bus, sizeof(bus), "0000:%02x:00.0", 0x18 + i);
		add_pci_gpu(bus, i == 7 ? 0x0300 : 0x0302);
	}
	/* an NVSwitch (class 0x0680) and a BMC display of another vendor are not GPUs */
	add_pci_gpu("0000:05:00.0", 0x0680);
	add_pci_gpu("0000:06:00.0", 0x0300)->vendor_id = 0x1a03;
	cd_section_set(&host->part[CD_PART_GPU], CD_ST_SKIPPED,
		       "libcuda.so.1: cannot open shared object file: No such file or directory");
	ck_assert_int_eq(judge(), 1);
	f = first_id("GPU004");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_double_eq(f->measured, 0);
	ck_assert_double_eq(f->expected, 8);
	ck_assert_str_eq(f->evidence.v[0], "8 NVIDIA GPUs on the PCI bus, 0 usable through the driver");
	ck_assert_ptr_nonnull(strstr(f->evidence.v[1], "libcuda.so.1: cannot open shared object file"));
	ck_assert_ptr_nonnull(strstr(f->evidence.v[2], "0000:18:00.0"));
	ck_assert_ptr_nonnull(strstr(f->evidence.v[9], "0000:1f:00.0"));
	ck_assert_str_eq(f->evidence.v[10], "no nvidia kernel module version in /sys/module/nvidia");
	/* the profile's count says the same thing: one finding, GPU004 */
	define("gpu.count_expected=8");
	ck_assert_int_eq(judge(), 1);
	ck_assert_ptr_nonnull(first_id("GPU004"));
	/* cuInit failing is an error section, the same verdict */
	cd_section_set(&host->part[CD_PART_GPU], CD_ST_ERROR, "cuInit: CUDA_ERROR_NO_DEVICE (100)");
	ck_assert_int_eq(judge(), 1);
	ck_assert_ptr_nonnull(strstr(first_id("GPU004")->evidence.v[1], "gpu discovery error: cuInit"));
}
END_TEST

START_TEST(test_gpu004_lost_one)
{
	for (int i = 0; i < 8; i++) {
		char bus[16];

		snprintf(bus, sizeof(bus), "0000:%02x:00.0", 0x18 + i);
		add_pci_gpu(bus, 0x0302);
	}
	add_gpus(8);
	ck_assert_int_eq(judge(), 0);
	host->n_gpus = 7; /* gpu7 fell off (Xid 79): its PCI function is still there */
	ck_assert_int_eq(judge(), 1);
	ck_assert_ptr_nonnull(strstr(first_id("GPU004")->evidence.v[1], "0000:1f:00.0"));
	ck_assert_str_eq(first_id("GPU004")->title, "the driver lost GPUs that are on the PCI bus");
	/* a job's CUDA_VISIBLE_DEVICES or a container's GPUs are a choice, not a loss */
	{
		struct cd_kv *kv = CD_PUSH(host->env, host->n_env, host->cap_env);

		kv->key = xstrdup("CUDA_VISIBLE_DEVICES");
		kv->value = xstrdup("0,1,2,3,4,5,6");
	}
	ck_assert_int_eq(judge(), 0);
	host->n_gpus = 8;
}
END_TEST

START_TEST(test_expected_counts)
{
	const struct cd_finding *f;

	/* a host with no RDMA at all: the ib group is judged once ports are expected */
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("ib"), 1);
	define("ib.ports_expected=8");
	cd_section_set(&host->part[CD_PART_IB], CD_ST_SKIPPED, "libibverbs.so.1: cannot open shared object file");
	ck_assert_int_eq(judge(), 1);
	f = first_id("IB004");
	ck_assert_double_eq(f->measured, 0);
	ck_assert_double_eq(f->expected, 8);
	ck_assert_ptr_nonnull(strstr(f->evidence.v[1], "ib discovery skipped: libibverbs.so.1"));
	for (int i = 0; i < 8; i++)
		add_port(i == 3 ? "mlx5_3" : "mlx5_0", i == 3 ? "down" : "active", 400);
	cd_section_set(&host->part[CD_PART_IB], CD_ST_OK, NULL);
	ck_assert_int_eq(judge(), 1); /* all 8 ports there; the down one is IB001's */
	ck_assert_ptr_nonnull(first_id("IB001"));
	define("ib.ports_expected=0");

	/* NVLinks expected, GPUs found, no NVLink facts (no NVML): zero links, not "no data" */
	add_gpus(2);
	define("nvlink.links_expected=18");
	ck_assert_int_eq(judge(), 2);
	f = first_id("NVL002");
	ck_assert_str_eq(f->subject, "gpus");
	ck_assert_double_eq(f->measured, 0);
	define("nvlink.links_expected=0");

	/* interfaces: eth0 up with an address counts; docker0 and lo do not */
	define("net.nics_expected=2");
	ck_assert_int_eq(judge(), 2);
	f = first_id("NET006");
	ck_assert_double_eq(f->measured, 1);
	add_nic("eth1", CD_NIC_PHYSICAL, "up", CD_TRI_TRUE);
	cd_strv_push(&nic("eth1")->ipv4, "10.1.0.5/16");
	ck_assert_int_eq(judge(), 1);
	ck_assert_uint_eq(count_id("NET006"), 0);
}
END_TEST

START_TEST(test_req001_required)
{
	const struct cd_finding *f;
	struct cd_conf c;
	const char *const defs[] = { "profile.require=gpu" };
	struct cd_conf_opts o = { .require = "nccl, ib", .defs = defs, .n_defs = 1, .profile = "none" };

	cd_conf_init(&c);
	ck_assert_int_eq(cd_conf_load(&c, &o, NULL), 0);
	cd_section_set(&host->part[CD_PART_GPU], CD_ST_SKIPPED, "libcuda.so.1: cannot open shared object file");
	cd_results_clear_judgement(&res);
	ck_assert_int_eq(cd_rules_evaluate_conf(&res, &c), 3);
	ck_assert_uint_eq(res.rules.required.n, 3);
	ck_assert_str_eq(res.rules.required.v[0], "nccl");
	ck_assert_str_eq(res.rules.required.v[2], "gpu");
	f = first_id("REQ001");
	ck_assert_str_eq(f->subject, "nccl");
	ck_assert_str_eq(f->evidence.v[0], "nccl not evaluated: no finished nccl.* probe");
	ck_assert_str_eq(f->evidence.v[1], "required by --require");
	ck_assert_str_eq(res.findings[2].evidence.v[1], "required by -D");
	/* GPUs absent is GPU001's: the groups that need GPUs do not pile on */
	ck_assert_int_eq(cd_conf_define(&c, "gpu.count_expected=4"), 0);
	cd_results_clear_judgement(&res);
	ck_assert_int_eq(cd_rules_evaluate_conf(&res, &c), 2);
	ck_assert_ptr_nonnull(first_id("GPU001"));
	ck_assert_str_eq(first_id("REQ001")->subject, "ib");
	/* an imported document has no discovered host: the profile's list does not apply */
	for (int p = 0; p < CD_PART_COUNT; p++)
		cd_section_set(&host->part[p], CD_ST_SKIPPED, "imported");
	cd_results_clear_judgement(&res);
	ck_assert_int_eq(cd_rules_evaluate_conf(&res, &c), 2); /* --require's two still do */
	ck_assert_uint_eq(res.rules.required.n, 2);
	cd_conf_free(&c);
	{
		char err[512];

		ck_assert_int_eq(cd_conf_parse_groups("gpu,gpus", NULL, err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "'gpus' is not a rule group: expected a comma-separated list of system"));
		ck_assert_int_eq(cd_conf_parse_groups("none", NULL, err, sizeof(err)), 0);
		ck_assert_int_eq(cd_conf_parse_groups(" , ", NULL, err, sizeof(err)), -1);
	}
}
END_TEST

START_TEST(test_copy001_copy002)
{
	const struct cd_finding *f;

	add_gpus(2);
	bw_probe("copy.h2d", 0, CD_NULL_I64, 55.0);
	bw_probe("copy.d2h", 1, CD_NULL_I64, 45.0); /* 71 % of 63: warn */
	ck_assert_int_eq(judge(), 1);
	f = first_id("COPY001");
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
	ck_assert_str_eq(f->subject, "gpu1");
	ck_assert_str_eq(f->title, "device-to-host copy bandwidth is low for the GPU's PCIe link");
	ck_assert_double_eq_tol(f->expected, 50.4, 1e-9);
	ck_assert_str_eq(f->threshold, "copy.warn_pct");
	res.probes[1].samples[0].algbw_gbyte_s = 30.0; /* 48 %: fail */
	ck_assert_int_eq(judge(), 1);
	ck_assert_int_eq(first_id("COPY001")->severity, CD_SEV_FAIL);
	ck_assert_str_eq(first_id("COPY001")->threshold, "copy.fail_pct");
	/* the floor: only where the share of the link did not already fire */
	res.probes[1].samples[0].algbw_gbyte_s = 52.0;
	define("copy.h2d_min_gbyte_s = 56");
	ck_assert_int_eq(judge(), 1);
	f = first_id("COPY002");
	ck_assert_str_eq(f->subject, "gpu0");
	ck_assert_double_eq(f->expected, 56);
	/* unknown link and no floor: nothing */
	define("copy.h2d_min_gbyte_s = 0");
	host->gpus[1].pcie_gen = host->gpus[1].pcie_max_gen = CD_NULL_I64;
	res.probes[1].samples[0].algbw_gbyte_s = 5.0;
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_p2p001_p2p002)
{
	const struct cd_finding *f;

	add_gpus(2);
	add_nvlinks(&host->gpus[0], 18, 4, "nvswitch");
	add_nvlinks(&host->gpus[1], 18, 4, "nvswitch");
	bw_probe("p2p.bw", 0, 1, 380.0); /* of 450 */
	ck_assert_int_eq(judge(), 0);
	res.probes[0].samples[0].algbw_gbyte_s = 300.0; /* 67 % */
	ck_assert_int_eq(judge(), 1);
	f = first_id("P2P001");
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
	ck_assert_str_eq(f->subject, "gpu0-gpu1");
	ck_assert_str_eq(f->evidence.v[0], "p2p.bw gpu0-gpu1: 300.0 GB/s, 67 % of 450.0 GB/s (NVLink)");
	res.probes[0].samples[0].algbw_gbyte_s = 150.0;
	ck_assert_int_eq(judge(), 1);
	ck_assert_int_eq(first_id("P2P001")->severity, CD_SEV_FAIL);
	res.probes[0].samples[0].algbw_gbyte_s = 330.0;
	define("p2p.min_gbyte_s = 335 GB/s");
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("P2P002")->id, "P2P002");
	/* without NVLink the pair is judged against PCIe (63 GB/s) */
	define("p2p.min_gbyte_s = 0");
	host->gpus[0].n_nvlinks = 0;
	for (size_t l = 0; l < 18; l++)
		free(host->gpus[0].nvlinks[l].remote_kind);
	res.probes[0].samples[0].algbw_gbyte_s = 50.0;
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_p2p003_nccl_p2p_off)
{
	struct cd_paths *p = &host->paths;
	const struct cd_finding *f;

	add_gpus(2);
	cd_strv_push(&p->gpus, "0000:18:00.0");
	cd_strv_push(&p->gpus, "0000:19:00.0");
	cd_paths_alloc(p);
	p->gpu_gpu[0] = xstrdup("X");
	p->gpu_gpu[1] = xstrdup("NV18");
	p->gpu_gpu[2] = xstrdup("NV18");
	p->gpu_gpu[3] = xstrdup("X");
	p->nccl_p2p[1] = p->nccl_p2p[2] = CD_TRI_TRUE;
	ck_assert_int_eq(judge(), 0);
	p->nccl_p2p[1] = p->nccl_p2p[2] = CD_TRI_FALSE;
	p->p2p_level_source = xstrdup("NCCL_P2P_DISABLE");
	ck_assert_int_eq(judge(), 1);
	f = first_id("P2P003");
	ck_assert_double_eq(f->measured, 1);
	ck_assert_str_eq(f->evidence.v[0], "GPU0-GPU1: NV18, nccl p2p off");
	free(p->gpu_gpu[1]);
	p->gpu_gpu[1] = xstrdup("SYS"); /* across sockets NCCL's default is off: fine */
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_nccl001_nccl002)
{
	static const int64_t sizes[] = { 8, 1LL << 30, 16LL << 30 };
	struct cd_probe_run *p;
	const struct cd_finding *f;

	p = add_probe("nccl.all_reduce", CD_NULL_I64, CD_NULL_I64, 3, sizes, (const double[]){ 0.0004, 200, 440 });
	p->nranks = 8;
	ck_assert_int_eq(judge(), 0); /* no floor in default.conf; 8 B in 20 us is fine */
	define("nccl.all_reduce_min_busbw_gbyte_s = 460");
	define("nccl.floor_min_bytes = 16G");
	ck_assert_int_eq(judge(), 1);
	f = first_id("NCCL001");
	ck_assert_str_eq(f->subject, "8 ranks");
	ck_assert_double_eq(f->measured, 440);
	ck_assert_str_eq(f->evidence.v[0], "nccl.all_reduce busbw 440.0 GB/s at 16.0 GiB, floor 460.0 GB/s");
	define("nccl.floor_min_bytes = 32G"); /* the sweep stopped short: not judged, and said so */
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("nccl (NCCL001)"), 1);
	define("nccl.latency_warn_us = 10 us");
	ck_assert_int_eq(judge(), 1);
	f = first_id("NCCL002");
	ck_assert_double_eq_tol(f->measured, 20.0, 1e-9);
	ck_assert_str_eq(f->unit, "us");
}
END_TEST

/*
 * NCCL001 judges the largest size from nccl.floor_min_bytes (256 MiB) up, the floor quoted
 * at 16 GiB scaled by Hockney's model (n_half 64 MiB) to that size: 460 GB/s at 16 GiB is
 * 458.2 at 8 GiB and 369.4 at 256 MiB. The old rule judged nothing below 16 GiB.
 */
START_TEST(test_nccl001_scaled_floor)
{
	struct cd_probe_run *p;
	const struct cd_finding *f;

	define("nccl.all_reduce_min_busbw_gbyte_s = 460");
	/* nccl-tests -e 8G at 440 GB/s: below the floor scaled to 8 GiB */
	p = add_probe("nccl.all_reduce", CD_NULL_I64, CD_NULL_I64, 2, (const int64_t[]){ 1LL << 30, 8LL << 30 },
		      (const double[]){ 300, 440 });
	p->nranks = 8;
	ck_assert_int_eq(judge(), 1);
	f = first_id("NCCL001");
	ck_assert_double_eq_tol(f->expected, 460.0 * (8192.0 / 8256.0) * (16448.0 / 16384.0), 1e-9);
	ck_assert_str_eq(f->evidence.v[0], "nccl.all_reduce busbw 440.0 GB/s at 8.0 GiB, floor 458.2 GB/s there: 460.0 "
					   "GB/s at 16.0 GiB scaled by Hockney's r(S) = r_max S / (n_half + S), n_half "
					   "64.0 MiB (nccl.floor_half_bytes)");
	ck_assert_str_eq(f->threshold, "nccl.all_reduce_min_busbw_gbyte_s");
	/* h100-clean.json's healthy 406 GB/s at 256 MiB is above 369.4: no finding */
	p->samples[1].bytes = 256LL << 20;
	p->samples[1].busbw_gbyte_s = 406;
	p->samples[0].bytes = 64LL << 20;
	ck_assert_int_eq(judge(), 0);
	p->samples[1].busbw_gbyte_s = 360;
	ck_assert_int_eq(judge(), 1);
	ck_assert_double_eq_tol(first_id("NCCL001")->expected, 369.4, 0.05);
	/* a sweep that ends at 128 MiB is not judged, and said so */
	p->samples[1].bytes = 128LL << 20;
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("nccl (NCCL001)"), 1);
	ck_assert_ptr_nonnull(strstr(res.rules.not_evaluated[res.rules.n_not_evaluated - 1].reason,
				     "reached 128.0 MiB, below nccl.floor_min_bytes 256.0 MiB"));
	/* past the quoted size the floor is the quoted one, not more */
	p->samples[1].bytes = 32LL << 30;
	p->samples[1].busbw_gbyte_s = 455;
	ck_assert_int_eq(judge(), 1);
	ck_assert_double_eq(first_id("NCCL001")->expected, 460);
}
END_TEST

/*
 * A single-host floor (NVSwitch) says nothing about an all_reduce across hosts: not judged,
 * and said so, unless nccl.net_all_reduce_min_busbw_gbyte_s is set.
 */
START_TEST(test_nccl001_across_hosts)
{
	struct cd_probe_run *p;

	quiet_host(&res, "node18");
	host = &res.hosts[0];
	define("nccl.all_reduce_min_busbw_gbyte_s = 460");
	p = add_probe("nccl.all_reduce", CD_NULL_I64, CD_NULL_I64, 1, (const int64_t[]){ 8LL << 30 },
		      (const double[]){ 338.8 });
	p->nranks = 16;
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("nccl (NCCL001)"), 1);
	ck_assert_ptr_nonnull(strstr(res.rules.not_evaluated[res.rules.n_not_evaluated - 1].reason,
				     "ran across 2 hosts and the profile's floor is for one host"));
	define("nccl.net_all_reduce_min_busbw_gbyte_s = 400");
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("NCCL001")->threshold, "nccl.net_all_reduce_min_busbw_gbyte_s");
	ck_assert_str_eq(first_id("NCCL001")->evidence.v[1], "across 2 hosts: the floor for rings through the NICs");
}
END_TEST

/*
 * NCCL002 reads sizes of 8 KiB or less only: nccl-tests -b 64M has no latency to judge
 * (the old rule took its smallest size, 64 MiB in 1261 us, for one). Across hosts the
 * warn level is nccl.net_latency_warn_us, times log2 of the hosts.
 */
START_TEST(test_nccl002_small_sizes_and_scope)
{
	struct cd_probe_run *p;
	const struct cd_finding *f;

	p = add_probe("nccl.all_reduce", CD_NULL_I64, CD_NULL_I64, 2, (const int64_t[]){ 64LL << 20, 128LL << 20 },
		      (const double[]){ 53.2, 81.2 });
	p->nranks = 16;
	ck_assert_double_gt(p->samples[0].time_us, 1000);
	ck_assert_int_eq(judge(), 0);
	/* the fastest of the small sizes, not the first (nccl-tests' first row is often slow) */
	p = add_probe("nccl.all_gather", CD_NULL_I64, CD_NULL_I64, 3, (const int64_t[]){ 8, 16, 8192 },
		      (const double[]){ 1, 1, 1 });
	p->nranks = 8;
	p->samples[0].time_us = 2000;
	p->samples[1].time_us = 600;
	p->samples[2].time_us = 700;
	ck_assert_int_eq(judge(), 1);
	f = first_id("NCCL002");
	ck_assert_double_eq(f->measured, 600);
	ck_assert_double_eq(f->expected, 500);
	ck_assert_str_eq(f->evidence.v[1], "scope: one host, transport not known: PCIe assumed; warn level 500 us");
	/* four hosts: 1 ms x log2(4) */
	for (int i = 0; i < 3; i++)
		quiet_host(&res, i == 0 ? "node18" : i == 1 ? "node19" : "node20");
	host = &res.hosts[0];
	ck_assert_int_eq(judge(), 0);
	p = &res.probes[1];
	p->samples[0].time_us = p->samples[1].time_us = p->samples[2].time_us = 2500;
	ck_assert_int_eq(judge(), 1);
	f = first_id("NCCL002");
	ck_assert_double_eq(f->expected, 2000);
	ck_assert_str_eq(f->threshold, "nccl.net_latency_warn_us");
	ck_assert_str_eq(f->evidence.v[1], "scope: 4 hosts over TCP; warn level 2000 us (times log2 of the hosts: the "
					   "depth of NCCL's tree)");
	/* every host with an active RDMA port: InfiniBand/RoCE */
	for (size_t i = 0; i < res.n_hosts; i++) {
		host = &res.hosts[i];
		add_port("mlx5_0", "active", 400);
	}
	host = &res.hosts[0];
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("NCCL002")->evidence.v[1], "scope: 4 hosts over InfiniBand/RoCE; warn level 2000 us "
							   "(times log2 of the hosts: the depth of NCCL's tree)");
}
END_TEST

/*
 * NCCL002 is about a collective's small-message latency. nccl.init's one sample is the
 * time to make the communicators (hundreds of ms on a real host), and nccl.pairs runs one
 * large size between two ranks: neither is a latency, neither is judged by it.
 */
START_TEST(test_nccl002_not_init_or_pairs)
{
	struct cd_probe_run *p;

	p = add_probe("nccl.init", CD_NULL_I64, CD_NULL_I64, 1, (const int64_t[]){ 0 }, (const double[]){ 1 });
	p->samples[0].time_us = 350000;
	p = add_probe("nccl.pairs", CD_NULL_I64, 1, 1, (const int64_t[]){ 16 << 20 }, (const double[]){ 20 });
	p->rank = 0;
	ck_assert_double_gt(p->samples[0].time_us, 500);
	ck_assert_int_eq(judge(), 0);
	/* the same time on a collective of the world is NCCL002's */
	p = add_probe("nccl.all_reduce", CD_NULL_I64, CD_NULL_I64, 1, (const int64_t[]){ 8 }, (const double[]){ 1 });
	p->samples[0].time_us = 900;
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("NCCL002")->evidence.v[0], "nccl.all_reduce: 900.0 us at 8 bytes (the fastest size up to "
							   "8 KiB)");
}
END_TEST

/* Under MPI: per rank, out_of_place all_reduce at two sizes, each rank's median times. */
static void late_runs(int ranks, const double *us_small, const double *us_big)
{
	for (int r = 0; r < ranks; r++) {
		struct cd_probe_run *p = add_probe("nccl.all_reduce", r, CD_NULL_I64, 2,
						   (const int64_t[]){ 1024, 65536 }, (const double[]){ 1, 1 });

		p->rank = r;
		p->nranks = ranks;
		p->variant = xstrdup("out_of_place");
		p->samples[0].time_us = us_small[r];
		p->samples[1].time_us = us_big[r];
	}
}

START_TEST(test_nccl003_straggler)
{
	const struct cd_finding *f;

	/* rank 2 arrives 10 ms late: its own times are short, the others' include the wait */
	late_runs(4, (const double[]){ 10150, 10160, 140, 10170 }, (const double[]){ 10410, 10450, 390, 10420 });
	ck_assert_int_eq(judge(), 1); /* NCCL003 only: the others' 10 ms latency is its wait, not NCCL002 */
	f = first_id("NCCL003");
	ck_assert_str_eq(f->subject, "rank 2");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_double_eq_tol(f->measured, (10010 + 10020) / 2.0, 1e-9);
	ck_assert_str_eq(f->threshold, "nccl.straggler_min_wait_us");
	ck_assert_ptr_nonnull(strstr(f->evidence.v[0], "finished first in 2 of 2 comparisons"));
	ck_assert_ptr_nonnull(strstr(f->evidence.v[1], "at 64.0 KiB: rank 2 took 390.0 us, the next fastest rank (0) 10410.0 us"));
	/* a wait of 30 % of the others' time warns; the straggler's own 7 ms is still NCCL002's */
	res.probes[2].samples[0].time_us = 7100;
	res.probes[2].samples[1].time_us = 7300;
	ck_assert_int_eq(judge(), 2);
	ck_assert_int_eq(first_id("NCCL003")->severity, CD_SEV_WARN);
	ck_assert_str_eq(first_id("NCCL002")->subject, "gpu2");
	/* 10 % is noise-sized: nothing, and NCCL002 is back for the slow latency */
	res.probes[2].samples[0].time_us = 9150;
	res.probes[2].samples[1].time_us = 9400;
	judge();
	ck_assert_uint_eq(count_id("NCCL003"), 0);
	ck_assert_uint_eq(count_id("NCCL002"), 4);
}
END_TEST

START_TEST(test_nccl003_not_named)
{
	/* all alike, within microseconds: healthy ranks */
	late_runs(4, (const double[]){ 150, 152, 149, 151 }, (const double[]){ 400, 401, 399, 402 });
	ck_assert_int_eq(judge(), 0);
	/* first in one of two comparisons only: not a majority, not named */
	res.probes[1].samples[0].time_us = 5;
	res.probes[1].samples[1].time_us = 50; /* 349 us below: under the 1 ms minimum wait */
	ck_assert_int_eq(judge(), 0);
	define("nccl.straggler_min_wait_us = 100 us");
	res.probes[1].samples[1].time_us = 402;
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_id("NCCL003"), 0);
	/* first in both: named; 0 turns the rule off */
	res.probes[1].samples[1].time_us = 50;
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("NCCL003")->subject, "rank 1");
	define("nccl.straggler_min_wait_us = 0");
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_nccl003_two_ranks_one_process)
{
	/* without MPI there is one record per collective (rank null): nothing to compare */
	struct cd_probe_run *p = add_probe("nccl.all_reduce", CD_NULL_I64, CD_NULL_I64, 1, (const int64_t[]){ 1024 },
					   (const double[]){ 1 });

	p->nranks = 2;
	p->samples[0].time_us = 100;
	ck_assert_int_eq(judge(), 0);
	/* two ranks */
	late_runs(2, (const double[]){ 10100, 90 }, (const double[]){ 10300, 300 });
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("NCCL003")->subject, "rank 1");
}
END_TEST

START_TEST(test_bal001_gpu_outlier)
{
	static const double bw[] = { 55.1, 55.3, 54.9, 55.2, 55.0, 55.2, 54.8, 55.1 };
	const struct cd_finding *f;

	add_gpus(8);
	/* device-to-device copies have no link rule: only their peers judge them */
	for (int i = 0; i < 8; i++)
		bw_probe("copy.d2d", i, CD_NULL_I64, 40 * bw[i]);
	ck_assert_int_eq(judge(), 0);
	res.probes[5].samples[0].algbw_gbyte_s = 1900.0;
	ck_assert_int_eq(judge(), 1);
	f = first_id("BAL001");
	ck_assert_str_eq(f->subject, "gpu5");
	ck_assert_double_eq(f->measured, 1900.0);
	ck_assert_double_eq_tol(f->expected, 2202.0, 1e-9);
	ck_assert_str_eq(f->threshold, "balance.mad_k");
	/* 5 % below: not an outlier by balance.min_dev_pct */
	res.probes[5].samples[0].algbw_gbyte_s = 2095.0;
	ck_assert_int_eq(judge(), 0);
	/* half speed host-to-device: COPY001 says it, BAL001 stays quiet about the same result */
	for (int i = 0; i < 8; i++)
		bw_probe("copy.h2d", i, CD_NULL_I64, i == 5 ? 27.5 : bw[i]);
	ck_assert_int_eq(judge(), 1);
	ck_assert_uint_eq(count_id("COPY001"), 1);
	/* fewer peers than balance.min_peers: no comparison */
	define("balance.min_peers = 9");
	res.probes[5].samples[0].algbw_gbyte_s = 1000.0;
	ck_assert_uint_eq(judge(), 1);
	ck_assert_uint_eq(count_id("BAL001"), 0);
}
END_TEST

START_TEST(test_bal002_host_outlier)
{
	const struct cd_finding *f;

	for (int h = 0; h < 4; h++) {
		struct cd_probe_run *p;
		char name[16];

		snprintf(name, sizeof(name), "node%d", 20 + h);
		if (h)
			quiet_host(&res, name);
		p = bw_probe("tcp.bw", CD_NULL_I64, CD_NULL_I64, h == 2 ? 5.0 : 11.5);
		set_str(&p->host, h ? name : "node17");
	}
	ck_assert_int_eq(judge(), 1);
	f = first_id("BAL002");
	ck_assert_str_eq(f->host, "node22");
	ck_assert_double_eq(f->measured, 5.0);
	res.probes[2].samples[0].algbw_gbyte_s = 11.0;
	ck_assert_int_eq(judge(), 0);
}
END_TEST

START_TEST(test_stab_rules)
{
	struct cd_probe_run *p;
	const struct cd_finding *f;

	add_gpus(1);
	p = bw_probe("copy.h2d", 0, CD_NULL_I64, 55.0);
	ck_assert_int_eq(judge(), 0);
	p->samples[0].errors = 3;
	ck_assert_int_eq(judge(), 1);
	f = first_id("STAB003");
	ck_assert_str_eq(f->subject, "copy.h2d gpu0");
	ck_assert_double_eq(f->measured, 3);
	p->samples[0].errors = 0;
	p->samples[0].p75_time_us = p->samples[0].time_us * 1.205; /* the middle half spans 21 % */
	ck_assert_int_eq(judge(), 1);
	f = first_id("STAB004");
	ck_assert_double_eq_tol(f->measured, 21.0, 1e-6);
	ck_assert_double_eq(f->expected, 10);
	p = cd_results_add_probe(&res, "nccl.all_reduce");
	p->status = CD_ST_TIMEOUT;
	p->phase = xstrdup("connect");
	p->reason = xstrdup("no progress for 30 s");
	p->nranks = 8;
	p = cd_results_add_probe(&res, "p2p.bw");
	p->status = CD_ST_ERROR;
	p->device = 0;
	p->peer = 1;
	p = cd_results_add_probe(&res, "mpi.latency");
	p->status = CD_ST_SKIPPED; /* not a failure */
	ck_assert_int_eq(judge(), 3);
	f = first_id("STAB001");
	ck_assert_str_eq(f->subject, "nccl.all_reduce 8 ranks");
	ck_assert_str_eq(f->evidence.v[0], "nccl.all_reduce timeout in connect: no progress for 30 s");
	ck_assert_str_eq(first_id("STAB002")->subject, "p2p.bw gpu0-gpu1");
}
END_TEST

/*
 * STAB004 reads the interquartile range, not max - min: twenty iterations of an MPI
 * ping-pong within 2 % and one preempted for 5 ms (max 50x the median) are stable. The
 * old (max - min) / median called this a 4900 % spread. The preempted iteration is an
 * outlier, said as such (STAB005, info), and no verdict.
 */
START_TEST(test_stab004_preemption_is_an_outlier)
{
	struct cd_probe_run *p;
	const struct cd_finding *f;

	p = add_probe("mpi.latency", CD_NULL_I64, 1, 1, (const int64_t[]){ 1 << 20 }, (const double[]){ 10 });
	p->rank = 0;
	p->nranks = 2;
	p->samples[0].max_time_us = p->samples[0].time_us * 50;
	p->samples[0].outliers = 1;
	ck_assert_int_eq(judge(), 1);
	ck_assert_uint_eq(count_id("STAB004"), 0);
	f = first_id("STAB005");
	ck_assert_int_eq(f->severity, CD_SEV_INFO);
	ck_assert_str_eq(f->subject, "node17");
	ck_assert_double_eq(f->measured, 1);
	ck_assert_str_eq(f->evidence.v[1], "mpi.latency 2 ranks: 1 outlier; at 1.0 MiB the slowest took 5242.9 us "
					   "against a median of 104.9 us");
	ck_assert_int_lt(cd_results_worst(&res), CD_SEV_WARN);
	/* half the iterations slow is a spread, not an outlier: STAB004 */
	p->samples[0].p75_time_us = p->samples[0].time_us * 1.6;
	ck_assert_int_eq(judge(), 2);
	f = first_id("STAB004");
	ck_assert_double_eq_tol(f->measured, 60.5, 1e-6);
	ck_assert_str_eq(f->evidence.v[0], "mpi.latency at 1.0 MiB: the middle half of 20 iterations took 104.3 to 167.8 "
					   "us around a median of 104.9 us: an interquartile range of 61 % of the median");
	ck_assert_ptr_nonnull(strstr(f->evidence.v[1], "1 iteration beyond Tukey's far-out fences (up to 5242.9 us)"));
}
END_TEST

/* The host's CPUs drive mpi.*: a 20 % spread there is a busy core; on a GPU copy it is a fault. */
START_TEST(test_stab004_host_probes)
{
	struct cd_probe_run *p;
	const struct cd_finding *f;

	p = add_probe("mpi.allreduce", CD_NULL_I64, 1, 1, (const int64_t[]){ 1 << 20 }, (const double[]){ 5 });
	p->rank = 0;
	p->nranks = 2;
	p->samples[0].p25_time_us = p->samples[0].time_us * 0.98;
	p->samples[0].p75_time_us = p->samples[0].time_us * 1.18;
	ck_assert_int_eq(judge(), 0);
	p = add_probe("copy.h2d", 0, CD_NULL_I64, 1, (const int64_t[]){ 1 << 28 }, (const double[]){ 50 });
	p->samples[0].p25_time_us = p->samples[0].time_us * 0.98;
	p->samples[0].p75_time_us = p->samples[0].time_us * 1.18;
	ck_assert_int_eq(judge(), 1);
	f = first_id("STAB004");
	ck_assert_str_eq(f->subject, "copy.h2d gpu0");
	ck_assert_str_eq(f->threshold, "stability.spread_warn_pct");
	res.probes[0].samples[0].p75_time_us = res.probes[0].samples[0].time_us * 1.30;
	ck_assert_int_eq(judge(), 2);
	ck_assert_str_eq(res.findings[0].threshold, "stability.host_spread_warn_pct");
}
END_TEST

/* Four ranks on two CPUs: the iteration times are the scheduler's; the spread is not judged, and said so. */
START_TEST(test_stab004_oversubscribed)
{
	struct cd_probe_run *p;

	p = add_probe("mpi.bw", CD_NULL_I64, 1, 1, (const int64_t[]){ 4 << 20 }, (const double[]){ 1 });
	p->rank = 0;
	p->nranks = 2;
	p->samples[0].p75_time_us = p->samples[0].time_us * 3;
	ck_assert_int_eq(judge(), 1);
	ck_assert_uint_eq(count_id("STAB004"), 1);
	host->system.cpus_online = 2;
	for (int r = 0; r < 4; r++) {
		struct cd_rank *k = cd_results_add_rank(&res, r);

		k->host_index = 0;
		k->host = xstrdup("node17");
	}
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("stability (STAB004)"), 1);
	ck_assert_ptr_nonnull(strstr(res.rules.not_evaluated[res.rules.n_not_evaluated - 1].reason,
				     "node17 runs 4 ranks on 2 CPUs (oversubscribed)"));
	/* as many ranks as CPUs: judged */
	host->system.cpus_online = 4;
	ck_assert_int_eq(judge(), 1);
	ck_assert_uint_eq(count_group_not_evaluated("stability (STAB004)"), 0);
}
END_TEST

/*
 * A size whose timing thread waited for a CPU over stability.cpu_wait_max_pct (5 %) of its
 * time measured the CPU's contention: its spread is not judged, and said so.
 */
START_TEST(test_stab004_cpu_contended)
{
	struct cd_probe_run *p;

	p = add_probe("mpi.allreduce", CD_NULL_I64, CD_NULL_I64, 1, (const int64_t[]){ 1 << 20 },
		      (const double[]){ 1 });
	p->nranks = 2;
	p->samples[0].p75_time_us = p->samples[0].time_us * 1.3;
	p->samples[0].cpu_wait_pct = 30;
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("stability (STAB004)"), 1);
	ck_assert_ptr_nonnull(strstr(res.rules.not_evaluated[res.rules.n_not_evaluated - 1].reason,
				     "1 probe run waited for a CPU more than 5 % of the timed time at the largest size "
				     "(up to 30 %, mpi.allreduce)"));
	p->samples[0].cpu_wait_pct = 1;
	ck_assert_int_eq(judge(), 1);
	ck_assert_str_eq(first_id("STAB004")->evidence.v[1], "the timing thread waited for a CPU 1.0 % of that time "
							     "(judged up to stability.cpu_wait_max_pct, 5 %)");
}
END_TEST

/* A document without percentiles (older, or imported): its min and max are not a spread. */
START_TEST(test_stab004_no_percentiles)
{
	struct cd_probe_run *p = bw_probe("copy.h2d", 0, CD_NULL_I64, 55.0);

	add_gpus(1);
	p->samples[0].p10_time_us = p->samples[0].p25_time_us = NAN;
	p->samples[0].p75_time_us = p->samples[0].p90_time_us = NAN;
	p->samples[0].outliers = CD_NULL_I64;
	p->samples[0].max_time_us = p->samples[0].time_us * 3;
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("stability (STAB004)"), 1);
	ck_assert_ptr_nonnull(strstr(res.rules.not_evaluated[res.rules.n_not_evaluated - 1].reason,
				     "1 probe run (first copy.h2d) have no per-iteration percentiles"));
	/* a few iterations have no spread to judge, and nothing is missing */
	p->samples[0].iters = 3;
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(count_group_not_evaluated("stability (STAB004)"), 0);
}
END_TEST

START_TEST(test_not_evaluated)
{
	/* the quiet host: system and net have data, nothing else */
	ck_assert_int_eq(judge(), 0);
	ck_assert(res.rules.present);
	ck_assert_uint_eq(res.rules.evaluated.n, 3); /* gpu: the inventory ran and found none */
	ck_assert_str_eq(res.rules.evaluated.v[0], "system");
	ck_assert_str_eq(res.rules.evaluated.v[1], "net");
	ck_assert_str_eq(res.rules.evaluated.v[2], "gpu");
	ck_assert_uint_eq(count_group_not_evaluated("copy"), 1);
	ck_assert_uint_eq(count_group_not_evaluated("ib"), 1);
	ck_assert_uint_eq(count_group_not_evaluated("stability"), 1);
	ck_assert_uint_eq(res.rules.n_not_evaluated, 8);
	for (size_t i = 0; i < res.rules.n_not_evaluated; i++)
		ck_assert_uint_gt(strlen(res.rules.not_evaluated[i].reason), 0);
	/* judging again replaces the section, it does not add to it */
	ck_assert_int_eq(judge(), 0);
	ck_assert_uint_eq(res.rules.n_not_evaluated, 8);
}
END_TEST

Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = tcase_create("system");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_quiet_host);
	tcase_add_test(tc, test_sys001_warn);
	tcase_add_test(tc, test_sys001_one_gpu_warn);
	tcase_add_test(tc, test_sys001_two_gpus_fail);
	tcase_add_test(tc, test_sys001_not_outside_container);
	tcase_add_test(tc, test_sys001_threshold);
	tcase_add_test(tc, test_sys001_shm_unknown);
	tcase_add_test(tc, test_sys002_fires);
	tcase_add_test(tc, test_sys002_two_hcas);
	tcase_add_test(tc, test_sys002_unlimited);
	tcase_add_test(tc, test_sys002_no_hca);
	suite_add_tcase(s, tc);

	tc = tcase_create("net");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_net002_only_lo);
	tcase_add_test(tc, test_net002_admin_up_no_carrier);
	tcase_add_test(tc, test_net002_no_other_iface);
	tcase_add_test(tc, test_net002_eth0_up);
	tcase_add_test(tc, test_net002_net_skipped);
	tcase_add_test(tc, test_net003_physical_warn);
	tcase_add_test(tc, test_net003_ipoib_info);
	tcase_add_test(tc, test_net003_virtual_info);
	tcase_add_test(tc, test_net003_bond_slave);
	tcase_add_test(tc, test_net003_link_local_only);
	tcase_add_test(tc, test_net003_addressed);
	tcase_add_test(tc, test_net003_down);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_nic_is_up);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_every_host);
	suite_add_tcase(s, tc);

	tc = tcase_create("hardware");
	tcase_add_checked_fixture(tc, gsetup, gteardown);
	tcase_add_test(tc, test_sys003_iommu);
	tcase_add_test(tc, test_net004_net005_fabric);
	tcase_add_test(tc, test_pcie001_gpu_width_and_gen);
	tcase_add_test(tc, test_pcie002_nic_link);
	tcase_add_test(tc, test_pcie003_acs);
	tcase_add_test(tc, test_nvl001_nvl002);
	tcase_add_test(tc, test_ib001_ib002_ib003);
	tcase_add_test(tc, test_gpu001_gpu002_gpu003);
	tcase_add_test(tc, test_not_evaluated);
	suite_add_tcase(s, tc);

	tc = tcase_create("measurements");
	tcase_add_checked_fixture(tc, gsetup, gteardown);
	tcase_add_test(tc, test_copy001_copy002);
	tcase_add_test(tc, test_p2p001_p2p002);
	tcase_add_test(tc, test_p2p003_nccl_p2p_off);
	tcase_add_test(tc, test_nccl001_nccl002);
	tcase_add_test(tc, test_nccl002_not_init_or_pairs);
	tcase_add_test(tc, test_nccl003_straggler);
	tcase_add_test(tc, test_nccl003_not_named);
	tcase_add_test(tc, test_nccl003_two_ranks_one_process);
	tcase_add_test(tc, test_bal001_gpu_outlier);
	tcase_add_test(tc, test_bal002_host_outlier);
	tcase_add_test(tc, test_stab_rules);
	tcase_add_test(tc, test_gpu004_driver_missing);
	tcase_add_test(tc, test_gpu004_lost_one);
	tcase_add_test(tc, test_expected_counts);
	tcase_add_test(tc, test_req001_required);
	tcase_add_test(tc, test_net004_rails_and_front_end);
	tcase_add_test(tc, test_ib005_roce_v2_gid);
	tcase_add_test(tc, test_ib003_rails_per_gpu);
	tcase_add_test(tc, test_nccl001_scaled_floor);
	tcase_add_test(tc, test_nccl001_across_hosts);
	tcase_add_test(tc, test_nccl002_small_sizes_and_scope);
	tcase_add_test(tc, test_stab004_preemption_is_an_outlier);
	tcase_add_test(tc, test_stab004_oversubscribed);
	tcase_add_test(tc, test_stab004_host_probes);
	tcase_add_test(tc, test_stab004_no_percentiles);
	tcase_add_test(tc, test_stab004_cpu_contended);
	suite_add_tcase(s, tc);
	return s;
}
