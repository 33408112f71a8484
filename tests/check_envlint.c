/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The env catalogue from the sources: NCCL's variables of every tag v2.18.1-1..v2.30.7-1
 * (scripts/dev/nccl-env-scan.py), plugin variables by name and by prefix, entries with a
 * trailing comment, and the typos the linter must still catch.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "envlint.h"
#include "suites.h"

static struct cd_results res;
static struct cd_envcat cat;

static void setup(void)
{
	cd_results_init(&res);
	memset(&cat, 0, sizeof(cat));
}

static void teardown(void)
{
	cd_results_free(&res);
	cd_envcat_free(&cat);
}

/* The finding about subject, or NULL. */
static const struct cd_finding *about(const char *subject)
{
	for (size_t i = 0; i < res.n_findings; i++)
		if (res.findings[i].subject && !strcmp(res.findings[i].subject, subject))
			return &res.findings[i];
	return NULL;
}

/* Lint one host whose environment is the NAME, VALUE pairs of kv (NULL-terminated). */
static void lint(const char *const *kv)
{
	struct cd_host *h = cd_results_add_host(&res);

	h->hostname = xstrdup("h");
	for (; kv[0]; kv += 2)
		cd_host_set_env(h, kv[0], kv[1]);
	ck_assert_int_eq(cd_envcat_load_default(&cat), 0);
	cd_envlint(&res, &cat, NULL);
}

/* Real variables the documented list omits: NCCL's own, and the plugins' (healthy A3 High,
 * A3 Ultra and GH200 nodes set these); none is a finding. */
START_TEST(test_real_variables_pass)
{
	static const char *const env[] = {
		"NCCL_GDRCOPY_ENABLE", "1",             /* NCCL_PARAM(GdrCopyEnable, "GDRCOPY_ENABLE", 0), init.cc */
		"NCCL_WORK_FIFO_DEPTH", "65536",        /* read v2.18.1-1..v2.21.5-1 only: stays known */
		"NCCL_MNNVL", "1",                      /* v2.20 only */
		"NCCL_IB_RESILIENCY_PORT_FAILOVER", "1", /* from v2.29.7-1 */
		"NCCL_PARAM_DUMP_ALL", "1",             /* 2.30's DEFINE_NCCL_PARAM registry */
		"NCCL_SHM_MEMCPY_MODE", "1",            /* last in v2.30.4-1 */
		"NCCL_PROXY_CPUSET", "0-3",             /* a string NCCL reads with ncclGetEnv */
		"NCCL_DYNAMIC_CHUNK_SIZE", "524288",    /* Google's TCPX and Fast Socket plugins */
		"NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0",
		"NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS", "500000",
		"NCCL_GPUDIRECTTCPX_SOME_FUTURE_KNOB", "1", /* any name under the plugin's prefix */
		"NCCL_FASTRAK_IFNAME", "eth1,eth2",
		"NCCL_TUNER_CONFIG_PATH", "/usr/local/gib/configs/tuner_config.txtpb",
		"NCCL_TUNER_PLUGIN", "libnccl-tuner.so",
		"NCCL_TUNER_CONFIG_FILE", "/etc/tuner.conf", /* NCCL's example tuner plugin */
		"OFI_NCCL_PROTOCOL", "RDMA",
		"OFI_NCCL_XXX", "1",
		NULL,
	};

	lint(env);
	for (size_t i = 0; env[i]; i += 2)
		ck_assert_msg(!about(env[i]), "%s: %s", env[i], about(env[i]) ? about(env[i])->id : "");
	ck_assert_uint_eq(res.n_findings, 0);
}
END_TEST

/* Typos and made-up names are still unknown; a plugin prefix does not hide NCCL's own typos. */
START_TEST(test_unknown_still_flagged)
{
	static const char *const env[] = {
		"NCCL_SOCKET_IFNAM", "eth0",
		"NCCL_FOO_BAR", "1",
		"NCCL_GDRCOPY_ENABLED", "1",
		"NCCL_GPUDIRECTTCP_CTRL_DEV", "eth0", /* not under NCCL_GPUDIRECTTCPX_ */
		NULL,
	};
	const struct cd_finding *f;

	lint(env);
	f = about("NCCL_SOCKET_IFNAM");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->id, "ENV001");
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
	ck_assert_uint_eq(f->evidence.n, 2);
	ck_assert_str_eq(f->evidence.v[1], "did you mean NCCL_SOCKET_IFNAME?");
	f = about("NCCL_FOO_BAR");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->id, "ENV001");
	ck_assert_uint_eq(f->evidence.n, 1); /* nothing near it */
	f = about("NCCL_GDRCOPY_ENABLED");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->evidence.v[1], "did you mean NCCL_GDRCOPY_ENABLE?");
	f = about("NCCL_GPUDIRECTTCP_CTRL_DEV");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->id, "ENV001");
	ck_assert_uint_eq(res.n_findings, 4);
}
END_TEST

/*
 * NVIDIA's CUDA images set NCCL_VERSION (an H100 container of tests/data/gpu-h100 had
 * NCCL_VERSION=2.28.3-1): a record, not a setting, so no finding; and no "did you mean" it.
 */
START_TEST(test_label_is_no_finding)
{
	static const char *const env[] = { "NCCL_VERSION", "2.28.3-1", "NCCL_VERSIONS", "2", NULL };
	const struct cd_finding *f;

	lint(env);
	ck_assert_ptr_null(about("NCCL_VERSION"));
	f = about("NCCL_VERSIONS");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->id, "ENV001");
	ck_assert_uint_eq(f->evidence.n, 1); /* a label is never the name meant */
	ck_assert_uint_eq(res.n_findings, 1);
}
END_TEST

/* An NCCL_PARAM is strtoll(value, NULL, 0) to NCCL: hex and octal are numbers, a word is 0. */
START_TEST(test_param_is_int)
{
	static const char *const env[] = { "NCCL_GDRCOPY_ENABLE", "yes", "NCCL_GDRCOPY_FIFO_ENABLE", "0x1",
					   "NCCL_GDR_FLUSH_DISABLE", "-1", "NCCL_P2P_MAX_PEERS", "8 ",
					   "NCCL_DYNAMIC_CHUNK_SIZE", "big", NULL };
	const struct cd_finding *f;

	lint(env);
	f = about("NCCL_GDRCOPY_ENABLE");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->id, "ENV004");
	ck_assert_str_eq(f->evidence.v[1], "expected an integer (decimal, 0x hex or 0 octal): NCCL reads a word as 0");
	ck_assert_ptr_null(about("NCCL_GDRCOPY_FIFO_ENABLE"));
	ck_assert_ptr_null(about("NCCL_GDR_FLUSH_DISABLE"));
	ck_assert_ptr_nonnull(about("NCCL_P2P_MAX_PEERS"));
	ck_assert_ptr_null(about("NCCL_DYNAMIC_CHUNK_SIZE")); /* a plugin's: any value */
	ck_assert_uint_eq(res.n_findings, 2);
}
END_TEST

START_TEST(test_parse_prefix_and_comments)
{
	const char *text = "NCCL_A_* plugin One  # github.com/x/y @ abc\n"
			   "NCCL_A_B_*\tplugin Two\n"
			   "NCCL_A_EXACT uint # v2.18.1-1..v2.30.7-1\n"
			   "NCCL_E enum 0,1,2   # v2.20.3-1..v2.20.5-1 src/init.cc\n"
			   "NCCL_N notvar use NCCL_X#2 instead\n"
			   "NCCL_P any #\n";
	const struct cd_envvar *v;

	ck_assert_int_eq(cd_envcat_parse(&cat, text, strlen(text), "cat"), 0);
	ck_assert_uint_eq(cat.n, 6);
	v = cd_envcat_find(&cat, "NCCL_A_C");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->kind, CD_ENVK_PLUGIN);
	ck_assert_str_eq(v->arg, "One");
	/* the longest prefix wins, an exact name beats any prefix */
	ck_assert_str_eq(cd_envcat_find(&cat, "NCCL_A_B_C")->arg, "Two");
	ck_assert_int_eq(cd_envcat_find(&cat, "NCCL_A_EXACT")->kind, CD_ENVK_UINT);
	ck_assert_ptr_null(cd_envcat_find(&cat, "NCCL_A"));
	ck_assert_str_eq(cd_envcat_find(&cat, "NCCL_A_B")->arg, "One"); /* "NCCL_A_B_*" needs its '_' */
	ck_assert_str_eq(cd_envcat_find(&cat, "NCCL_E")->arg, "0,1,2");
	ck_assert_str_eq(cd_envcat_find(&cat, "NCCL_N")->arg, "use NCCL_X#2 instead"); /* '#' inside a word */
	ck_assert_ptr_null(cd_envcat_find(&cat, "NCCL_P")->arg);
	/* a prefix is never offered as "did you mean" */
	ck_assert_str_eq(cd_envcat_nearest(&cat, "NCCL_A_EXACTT"), "NCCL_A_EXACT");
	ck_assert_ptr_null(cd_envcat_nearest(&cat, "NCCL_A_B")); /* one edit from both prefixes */
}
END_TEST

START_TEST(test_parse_errors)
{
	static const char *const bad[] = {
		"NCCL_X_* any\n",             /* a prefix that is not a plugin's */
		"NCCL_X_* plugin\n",          /* no plugin named */
		"NCCL_X_* plugin # none\n",   /* the comment is no name */
		"NCCL_X* plugin Foo\n",       /* a prefix ends with '_' */
		"_* plugin Foo\n",
		"NCCL_Y plugin\n",
		"NCCL_Z enum # 0,1\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_msg(cd_envcat_parse(&cat, bad[i], strlen(bad[i]), "cat") == -1, "accepted: %s", bad[i]);
		cd_envcat_free(&cat);
	}
}
END_TEST

/* The embedded catalogue: its plugin prefixes are there, each with its plugin named. */
START_TEST(test_embedded_prefixes)
{
	static const char *const prefixes[] = { "NCCL_GPUDIRECTTCPX_", "NCCL_FASTRAK_", "OFI_NCCL_" };
	size_t n = 0;

	ck_assert_int_eq(cd_envcat_load_default(&cat), 0);
	for (size_t i = 0; i < cat.n; i++)
		if (cat.v[i].prefix) {
			ck_assert_int_eq(cat.v[i].kind, CD_ENVK_PLUGIN);
			ck_assert_ptr_nonnull(cat.v[i].arg);
			n++;
		}
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		const struct cd_envvar *v = cd_envcat_find(&cat, prefixes[i]);

		ck_assert_msg(v && v->prefix && !strcmp(v->name, prefixes[i]), "no prefix %s", prefixes[i]);
	}
	ck_assert_uint_ge(n, ARRAY_SIZE(prefixes));
	ck_assert_ptr_null(cd_envcat_find(&cat, "NCCL_OFI_PROTOCOL")); /* a C macro prefix, not a variable's */
}
END_TEST

/*
 * Device lists read as NCCL reads them (libdefaults.h's one reader): "eth0:1" names eth0
 * (the port is no part of the name), empty items name nothing, '=' makes names exact, and
 * the missing items are quoted as written.
 */
START_TEST(test_device_lists)
{
	static const char *const env[] = {
		"NCCL_SOCKET_IFNAME", "eth0:1,,ib",
		"NCCL_OOB_NET_IFNAME", "=eth,eth0",
		"NCCL_IB_HCA", "mlx5_0:1,,mlx5_9:1,^x",
		"OMPI_MCA_btl_tcp_if_include", "eth0,10.0.0.0/8,,eth9", /* exact names; a subnet names no device */
		"GLOO_SOCKET_IFNAME", "eth,ib0",
		"OMPI_MCA_oob_tcp_if_include", "^eth9",
		NULL,
	};
	struct cd_host *h = cd_results_add_host(&res);
	const struct cd_finding *f;

	h->hostname = xstrdup("h");
	h->part[CD_PART_NET].status = CD_ST_OK;
	h->part[CD_PART_IB].status = CD_ST_OK;
	cd_host_add_nic(h)->name = xstrdup("eth0");
	cd_host_add_nic(h)->name = xstrdup("ib0");
	cd_host_add_hca(h)->name = xstrdup("mlx5_0");
	for (size_t i = 0; env[i]; i += 2)
		cd_host_set_env(h, env[i], env[i + 1]);
	ck_assert_int_eq(cd_envcat_load_default(&cat), 0);
	cd_envlint(&res, &cat, NULL);
	ck_assert_ptr_null(about("NCCL_SOCKET_IFNAME"));
	ck_assert_ptr_nonnull(f = about("NCCL_OOB_NET_IFNAME"));
	ck_assert_str_eq(f->id, "ENV006");
	ck_assert_str_eq(f->evidence.v[1], "no interface matches 'eth'; this host has eth0, ib0");
	ck_assert_ptr_nonnull(f = about("NCCL_IB_HCA"));
	ck_assert_str_eq(f->id, "ENV007");
	ck_assert_str_eq(f->evidence.v[1], "no HCA matches 'mlx5_9:1,^x'; this host has mlx5_0");
	ck_assert_ptr_nonnull(f = about("OMPI_MCA_btl_tcp_if_include"));
	ck_assert_str_eq(f->evidence.v[1], "no interface matches 'eth9'; this host has eth0, ib0");
	ck_assert_ptr_nonnull(f = about("GLOO_SOCKET_IFNAME"));
	ck_assert_str_eq(f->evidence.v[1], "no interface matches 'eth'; this host has eth0, ib0");
	ck_assert_ptr_null(about("OMPI_MCA_oob_tcp_if_include"));
}
END_TEST

/* A host with eth0 and mlx5_0 port 1, its environment UCX_NET_DEVICES=value, linted. */
static void lint_ucx(const char *value)
{
	struct cd_host *h = cd_results_add_host(&res);
	struct cd_hca *c = cd_host_add_hca(h);

	h->hostname = xstrdup("h");
	h->part[CD_PART_NET].status = CD_ST_OK;
	h->part[CD_PART_IB].status = CD_ST_OK;
	cd_host_add_nic(h)->name = xstrdup("eth0");
	c->name = xstrdup("mlx5_0");
	cd_hca_add_port(c)->port = 1;
	cd_host_set_env(h, "UCX_NET_DEVICES", value);
	if (!cat.n)
		ck_assert_int_eq(cd_envcat_load_default(&cat), 0);
	cd_envlint(&res, &cat, NULL);
}

/*
 * UCX_NET_DEVICES through the matcher the judge uses (cd_ucx_net_device_match): an HCA's
 * port it lacks is missing, a device's base name names its ports, "all" and an exclusion
 * list ('^', ucs's allow-list negation) name nothing that could be missing.
 */
START_TEST(test_ucx_devices)
{
	const struct cd_finding *f;

	lint_ucx("mlx5_0:1,eth0,mlx5_0:2,ib,mlx5_0");
	ck_assert_ptr_nonnull(f = about("UCX_NET_DEVICES"));
	ck_assert_str_eq(f->id, "ENV006");
	ck_assert_str_eq(f->evidence.v[1], "no interface or HCA port matches 'mlx5_0:2,ib'");
	cd_results_free(&res);
	cd_results_init(&res);
	lint_ucx("^mlx5_9:1");
	ck_assert_ptr_null(about("UCX_NET_DEVICES"));
	cd_results_free(&res);
	cd_results_init(&res);
	lint_ucx("all");
	ck_assert_ptr_null(about("UCX_NET_DEVICES"));
}
END_TEST

Suite *envlint_suite(void)
{
	Suite *s = suite_create("envlint");
	TCase *tc = tcase_create("catalogue");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_real_variables_pass);
	tcase_add_test(tc, test_unknown_still_flagged);
	tcase_add_test(tc, test_label_is_no_finding);
	tcase_add_test(tc, test_param_is_int);
	tcase_add_test(tc, test_parse_prefix_and_comments);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_embedded_prefixes);
	tcase_add_test(tc, test_device_lists);
	tcase_add_test(tc, test_ucx_devices);
	suite_add_tcase(s, tc);
	return s;
}
