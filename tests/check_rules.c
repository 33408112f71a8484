/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules over crafted documents: each case sets only what the rule reads. */
#include <check.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
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

START_TEST(test_net003_ipoib_warn)
{
	add_nic("ib0", CD_NIC_IPOIB, "up", CD_TRI_TRUE);
	ck_assert_int_eq(evaluate(), 1);
	ck_assert_int_eq(first_id("NET003")->severity, CD_SEV_WARN);
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
	for (const char *const *id = (const char *const[]){ "SYS001", "SYS002", "NET002", "NET003", NULL }; *id; id++) {
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
	tcase_add_test(tc, test_net003_ipoib_warn);
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
	return s;
}
