/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "out.h"
#include "report.h"
#include "results.h"
#include "suites.h"

static struct cd_results res;
static struct cd_host *host;

static void setup(void)
{
	struct cd_nic *n;
	struct cd_hca *c;
	struct cd_ib_port *p;
	struct cd_pci_device *d;
	struct cd_finding *f;
	struct cd_advice *a;

	cd_results_init(&res);
	res.tool_version = xstrdup("0.1.0");
	res.run.mode = xstrdup("check");
	host = cd_results_add_host(&res);
	host->hostname = xstrdup("node17");
	host->host_id = xstrdup("abc");
	host->host_id_source = xstrdup("/etc/machine-id");
	cd_section_set(&host->part[CD_PART_SYSTEM], CD_ST_OK, NULL);
	cd_section_set(&host->part[CD_PART_NET], CD_ST_OK, NULL);
	cd_section_set(&host->part[CD_PART_GPU], CD_ST_SKIPPED, "libcuda.so.1: cannot open shared object file");
	host->system.container = xstrdup("docker");
	host->system.container_evidence = xstrdup("/.dockerenv exists");
	host->system.shm_bytes = 64LL << 20;
	host->system.memlock_unlimited = CD_TRI_TRUE;

	n = cd_host_add_nic(host);
	n->name = xstrdup("eth0");
	n->kind = CD_NIC_PHYSICAL;
	n->state = xstrdup("up");
	n->admin_up = CD_TRI_TRUE;
	n->mtu = 9000;
	n->speed_mbit_s = 100000;
	cd_strv_push(&n->ipv4, "10.0.0.17/24");
	n->default_route = CD_TRI_TRUE;
	n->numa = 0;

	c = cd_host_add_hca(host);
	c->name = xstrdup("mlx5_0");
	p = cd_hca_add_port(c);
	p->port = 1;
	p->state = xstrdup("active");
	p->rate_gbit_s = 400;
	cd_port_add_gid(p)->gid = xstrdup("fe80:0000:0000:0000:b83f:d203:00a1:b2c3");

	d = cd_host_add_pci(host);
	d->bus_id = xstrdup("0000:3b:00.0");
	d->kind = CD_PCI_NIC;
	d->vendor_id = 0x15b3;
	d->gen = 5;
	d->width = 16;
	d->link_gbyte_s = 63;
	cd_strv_push(&d->os_devices, "eth0");
	d = cd_host_add_pci(host);
	d->bus_id = xstrdup("0000:01:00.0");
	d->kind = CD_PCI_STORAGE;
	d->vendor = xstrdup("Samsung");

	cd_host_set_env(host, "NCCL_SOCKET_IFNAME", "eth0");

	f = cd_results_add_finding(&res, "SYS001", CD_SEV_FAIL, "node17", "/dev/shm", "too small");
	cd_finding_evidence(f, "ev one");
	a = cd_results_add_advice(&res);
	a->env = xstrdup("NCCL_SOCKET_IFNAME");
	a->value = xstrdup("eth0");
	cd_strv_push(&a->findings, "SYS001");
	a->why = xstrdup("because");
}

static void teardown(void)
{
	cd_results_free(&res);
	cd_verbosity = 0;
}

static char *render(enum out_format fmt, int color)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o;

	ck_assert_ptr_nonnull(f);
	o = out_new(fmt, f, color);
	cd_report(o, &res);
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	return buf;
}

#define HAS(s, needle) ck_assert_msg(strstr((s), (needle)) != NULL, "missing '%s' in:\n%s", (needle), (s))
#define HASNT(s, needle) ck_assert_msg(strstr((s), (needle)) == NULL, "unexpected '%s' in:\n%s", (needle), (s))

START_TEST(test_text)
{
	char *s = render(OUT_FMT_TEXT, 0);

	ck_assert_msg(!strncmp(s, "commdiag 0.1.0 check \u00b7 1 rank \u00b7 1 host\n", strlen("commdiag 0.1.0 check \u00b7 1 rank \u00b7 1 host\n")),
		      "first line: %s", s);
	HAS(s, "\n# host node17\n");
	HAS(s, "\n  host id     abc (/etc/machine-id)\n");
	HAS(s, "  sections    system ok \u00b7 topo skipped \u00b7 net ok \u00b7 ib skipped \u00b7 gpu skipped\n");
	HAS(s, "\n              gpu: libcuda.so.1: cannot open shared object file\n");
	HAS(s, "\n  container   docker (/.dockerenv exists)\n");
	HAS(s, "\n  limits      /dev/shm 64.0 MiB \u00b7 memlock unlimited \u00b7 nofile n/a/n/a\n");
	HAS(s, "\n## interfaces (1)\n");
	HAS(s, "\n  eth0         physical  up         9000  100 Gb/s yes     0 10.0.0.17/24         -\n");
	HAS(s, "\n## rdma devices (1)\n");
	HAS(s, "\n  mlx5_0        1 active  n/a       n/a           400 Gb/s   n/a n/a        n/a\n");
	HAS(s, "\n## gpus (0)\n  libcuda.so.1: cannot open shared object file\n");
	HAS(s, "\n  NCCL_SOCKET_IFNAME=eth0\n");
	HAS(s, "\n# findings (1)\n  FAIL  SYS001  node17 /dev/shm: too small\n        - ev one\n");
	HAS(s, "\nsummary: 1 fail, 0 warn, 0 info\n");
	HAS(s, "\n# advice (1)\n  export NCCL_SOCKET_IFNAME='eth0'  [SYS001]\n      why: because\n");
	/* the report ends with the block to paste or eval */
	HAS(s, "\nexport NCCL_SOCKET_IFNAME='eth0'             # SYS001: because\n");
	/* text shows the devices communication cares about; -v shows all */
	HAS(s, "\n  0000:3b:00.0  nic      n/a     63.00 Gen5 x16  eth0 ");
	HASNT(s, "0000:01:00.0");
	HASNT(s, " gid ");
	HASNT(s, "\033[");
	HASNT(s, "\"schema\"");
	free(s);
}
END_TEST

START_TEST(test_text_verbose)
{
	char *s;

	cd_verbosity = 1;
	s = render(OUT_FMT_TEXT, 0);
	HAS(s, "\n## pci devices\n");
	HAS(s, "\n  0000:01:00.0  storage  n/a       n/a -         -                  Samsung\n");
	HAS(s, " gid ");
	HAS(s, "fe80:0000:0000:0000:b83f:d203:00a1:b2c3");
	free(s);
}
END_TEST

START_TEST(test_text_no_findings)
{
	char *s;

	cd_results_free(&res);
	cd_results_init(&res);
	res.tool_version = xstrdup("0.1.0");
	res.run.mode = xstrdup("topo");
	res.run.ranks = 4;
	res.run.duration_s = 1.5;
	res.run.started = xstrdup("2026-11-21T10:00:00Z");
	cd_results_add_host(&res)->hostname = xstrdup("a");
	cd_results_add_host(&res)->hostname = xstrdup("b");
	s = render(OUT_FMT_TEXT, 0);
	HAS(s, "commdiag 0.1.0 topo \u00b7 2026-11-21T10:00:00Z \u00b7 1.50 s \u00b7 4 ranks \u00b7 2 hosts\n");
	HAS(s, "\n# host a\n");
	HAS(s, "\n# host b\n");
	HAS(s, "\n# findings (0)\n  none\n");
	HAS(s, "\nsummary: 0 fail, 0 warn, 0 info\n");
	HAS(s, "  none set (NCCL_*, TORCH_NCCL_*, GLOO_*, OMPI_MCA_*, UCX_*, CUDA_VISIBLE_DEVICES, …)\n");
	HASNT(s, "# advice");
	free(s);
}
END_TEST

START_TEST(test_text_summary_counts)
{
	char *s;

	cd_results_add_finding(&res, "NET003", CD_SEV_WARN, "node17", "eth1", "w1");
	cd_results_add_finding(&res, "NET003", CD_SEV_WARN, "node17", "eth2", "w2");
	cd_results_add_finding(&res, "NET003", CD_SEV_INFO, "node17", "veth0", "i1");
	s = render(OUT_FMT_TEXT, 0);
	HAS(s, "\n# findings (4)\n");
	HAS(s, "\n  WARN  NET003  node17 eth1: w1\n");
	HAS(s, "\n  INFO  NET003  node17 veth0: i1\n");
	HAS(s, "\nsummary: 1 fail, 2 warn, 1 info\n");
	free(s);
}
END_TEST

START_TEST(test_text_color)
{
	char *s = render(OUT_FMT_TEXT, 1);

	HAS(s, "\033[31m  FAIL \033[0m SYS001 ");
	HAS(s, "\033[1m\n# host node17\n\033[0m");
	free(s);
}
END_TEST

static void assert_keys(const cJSON *obj, const char *const *keys)
{
	const cJSON *el = obj->child;
	size_t i = 0;

	for (; el && keys[i]; el = el->next, i++)
		ck_assert_msg(el->string && !strcmp(el->string, keys[i]), "key %zu is '%s', want '%s'", i,
			      el->string ? el->string : "(null)", keys[i]);
	ck_assert_msg(!el && !keys[i], "key count differs at %zu", i);
}

START_TEST(test_json_layout)
{
	static const char *const top[] = { "schema", "tool", "run", "hosts", "ranks", "probes", "reach", "findings", "advice", "rules", "score", NULL };
	static const char *const hostkeys[] = { "hostname", "host_id", "host_id_source", "status", "reason", "system",
						"versions", "topology_source", "numa_nodes", "pci_devices", "gpus",
						"paths", "acs", "nics", "hcas", "env", NULL };
	static const char *const parts[] = { "system", "topo", "net", "ib", "gpu", NULL };
	char *s = render(OUT_FMT_JSON, 1);
	cJSON *root = cJSON_Parse(s), *h, *v, *pci;

	ck_assert_ptr_nonnull(root);
	HASNT(s, "\033[");
	HASNT(s, "summary:");
	HASNT(s, "# host");
	assert_keys(root, top);
	ck_assert_double_eq(cJSON_GetObjectItem(root, "schema")->valuedouble, 1);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "tool"), "name")->valuestring, "commdiag");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "tool"), "version")->valuestring, "0.1.0");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "run"), "started")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(root, "score")));
	v = cJSON_GetObjectItem(root, "probes");
	ck_assert(cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0);

	h = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "hosts"), 0);
	ck_assert_ptr_nonnull(h);
	assert_keys(h, hostkeys);
	assert_keys(cJSON_GetObjectItem(h, "status"), parts);
	assert_keys(cJSON_GetObjectItem(h, "reason"), parts);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "status"), "net")->valuestring, "ok");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "status"), "gpu")->valuestring, "skipped");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "reason"), "net")));
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "reason"), "gpu")->valuestring,
			 "libcuda.so.1: cannot open shared object file");
	v = cJSON_GetObjectItem(h, "system");
	ck_assert_double_eq(cJSON_GetObjectItem(v, "shm_bytes")->valuedouble, 67108864.0);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(v, "memlock_unlimited")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "memlock_bytes")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "fabric_manager")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "versions"), "cuda_driver")));

	/* JSON has every PCI device, ids as hex strings */
	pci = cJSON_GetObjectItem(h, "pci_devices");
	ck_assert_int_eq(cJSON_GetArraySize(pci), 2);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(pci, 0), "vendor_id")->valuestring, "0x15b3");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(pci, 0), "device_id")));
	ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(pci, 0), "pcie"), "gen")->valuedouble, 5);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(pci, 1), "kind")->valuestring, "storage");

	v = cJSON_GetArrayItem(cJSON_GetObjectItem(h, "nics"), 0);
	ck_assert_double_eq(cJSON_GetObjectItem(v, "speed_mbit_s")->valuedouble, 100000);
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "ipv4"), 0)->valuestring, "10.0.0.17/24");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(v, "ipv6")), 0);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(v, "default_route")));

	v = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(h, "hcas"), 0), "ports"), 0);
	ck_assert_double_eq(cJSON_GetObjectItem(v, "rate_gbit_s")->valuedouble, 400);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "roce_v2_gid_index")));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(v, "gids")), 1);

	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(h, "env"), "NCCL_SOCKET_IFNAME")->valuestring, "eth0");

	v = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "findings"), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(v, "id")->valuestring, "SYS001");
	ck_assert_str_eq(cJSON_GetObjectItem(v, "severity")->valuestring, "fail");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "measured")));
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "evidence"), 0)->valuestring, "ev one");
	v = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "advice"), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(v, "env")->valuestring, "NCCL_SOCKET_IFNAME");
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "findings"), 0)->valuestring, "SYS001");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(v, "path")), 0);
	cJSON_Delete(root);
	free(s);
}
END_TEST

START_TEST(test_json_empty_document)
{
	static const char *const top[] = { "schema", "tool", "run", "hosts", "ranks", "probes", "reach", "findings", "advice", "rules", "score", NULL };
	char *s;
	cJSON *root;

	cd_results_free(&res);
	cd_results_init(&res);
	s = render(OUT_FMT_JSON, 0);
	root = cJSON_Parse(s);
	ck_assert_ptr_nonnull(root);
	assert_keys(root, top);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "hosts")), 0);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")), 0);
	ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "run"), "ranks")->valuedouble, 1);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "run"), "duration_s")));
	cJSON_Delete(root);
	free(s);
}
END_TEST

START_TEST(test_probes)
{
	struct cd_probe_run *p = cd_results_add_probe(&res, "copy.h2d");
	struct cd_probe_sample *sm;
	cJSON *root, *v;
	char *s;

	p->device = 0;
	sm = cd_probe_add_sample(p);
	sm->bytes = 1048576;
	sm->iters = 20;
	sm->time_us = 21.5;
	sm->p25_time_us = 21.25;
	sm->p75_time_us = 22;
	sm->outliers = 1;
	sm->algbw_gbyte_s = 48.77;
	sm->errors = 0;
	p = cd_results_add_probe(&res, "nccl.all_reduce");
	p->status = CD_ST_TIMEOUT;
	p->device = 1;
	p->peer = 0;
	p->phase = xstrdup("connect");
	p->reason = xstrdup("no progress for 30 s");

	s = render(OUT_FMT_TEXT, 0);
	HAS(s, "\n# probes (2)\n  copy.h2d             gpu 0 ok\n");
	HAS(s, "\n           bytes   iters     time us     p25 us     p75 us     min us      max us  out algbw GB/s busbw "
	       "GB/s  wrong\n");
	HAS(s, "\n         1048576      20       21.50      21.25      22.00        n/a         n/a    1      48.77        "
	       "n/a      0\n");
	HAS(s, "\n  nccl.all_reduce      gpu 1 peer 0 timeout in connect: no progress for 30 s\n");
	free(s);

	s = render(OUT_FMT_JSON, 0);
	root = cJSON_Parse(s);
	ck_assert_ptr_nonnull(root);
	v = cJSON_GetObjectItem(root, "probes");
	ck_assert_int_eq(cJSON_GetArraySize(v), 2);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 1), "status")->valuestring, "timeout");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 1), "phase")->valuestring, "connect");
	v = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(v, 0), "results"), 0);
	ck_assert_double_eq(cJSON_GetObjectItem(v, "bytes")->valuedouble, 1048576);
	ck_assert_double_eq(cJSON_GetObjectItem(v, "algbw_gbyte_s")->valuedouble, 48.77);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "busbw_gbyte_s")));
	ck_assert_double_eq(cJSON_GetObjectItem(v, "p25_time_us")->valuedouble, 21.25);
	ck_assert_double_eq(cJSON_GetObjectItem(v, "outliers")->valuedouble, 1);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(v, "p90_time_us")));
	cJSON_Delete(root);
	free(s);
}
END_TEST

/* A command is printed whole as a comment (catalogue fixes run to some 800 bytes); past the
 * buffer it is cut with " ..." so the cut shows, never inside a UTF-8 sequence. */
START_TEST(test_shell_line_long_command)
{
	struct cd_advice a = { 0 };
	char *v = xmalloc(3001), line[CD_SHELL_LINE_MAX];
	size_t n;

	memset(v, 'x', 3000);
	v[3000] = '\0';
	memcpy(v + 790, "TAIL", 4); /* the end of an 800-byte fix */
	a.value = v;
	cd_report_shell_line(line, sizeof(line), &a);
	ck_assert_ptr_nonnull(strstr(line, "TAIL"));
	n = strlen(line);
	ck_assert_uint_lt(n, sizeof(line));
	ck_assert_str_eq(line + n - 4, " ...");
	v[900] = '\0';
	cd_report_shell_line(line, sizeof(line), &a);
	ck_assert_uint_eq(strlen(line), 902); /* "# " and the 900 bytes, not cut */
	memset(v, 0, 3001);
	for (size_t i = 0; i + 2 < 3000; i += 2)
		memcpy(v + i, "\xc3\xa9", 2); /* é: a cut must not split it */
	cd_report_shell_line(line, sizeof(line), &a);
	n = strlen(line) - 4; /* before " ...": "# " and whole two-byte characters */
	ck_assert_str_eq(line + n, " ...");
	ck_assert_uint_eq((n - 2) % 2, 0);
	free(v);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("text");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_text_verbose);
	tcase_add_test(tc, test_text_no_findings);
	tcase_add_test(tc, test_text_summary_counts);
	tcase_add_test(tc, test_text_color);
	tcase_add_test(tc, test_shell_line_long_command);
	suite_add_tcase(s, tc);
	tc = tcase_create("json");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_json_layout);
	tcase_add_test(tc, test_json_empty_document);
	tcase_add_test(tc, test_probes);
	suite_add_tcase(s, tc);
	return s;
}
