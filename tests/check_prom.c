/* SPDX-License-Identifier: BSD-3-Clause */
/* The Prometheus renderer (report_prom.c): exposition structure, escaping, units, nulls, duplicates. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "report.h"
#include "results.h"
#include "suites.h"

static struct cd_results res;
static struct cd_host *host;

static struct cd_probe_run *add_probe(const char *name, int64_t device, int64_t peer, double time_us, double gbyte_s)
{
	struct cd_probe_run *p = cd_results_add_probe(&res, name);
	struct cd_probe_sample *s;

	p->status = CD_ST_OK;
	p->host = xstrdup("node17");
	p->device = device;
	p->peer = peer;
	s = cd_probe_add_sample(p);
	s->bytes = 8;
	s->iters = 20;
	s->time_us = time_us;
	s->algbw_gbyte_s = gbyte_s;
	s->busbw_gbyte_s = gbyte_s;
	s->errors = 0;
	return p;
}

static void setup(void)
{
	struct cd_nic *n;
	struct cd_hca *c;
	struct cd_ib_port *pt;
	struct cd_gpu *g;
	struct cd_probe_sample *s;
	struct cd_probe_run *p;

	cd_results_init(&res);
	res.tool_version = xstrdup("0.1.0");
	res.run.mode = xstrdup("check");
	res.run.started = xstrdup("2026-11-21T10:00:00Z");
	res.run.duration_s = 41.7;
	host = cd_results_add_host(&res);
	host->hostname = xstrdup("node17");
	for (int k = 0; k < CD_PART_COUNT; k++)
		cd_section_set(&host->part[k], CD_ST_OK, NULL);

	n = cd_host_add_nic(host);
	n->name = xstrdup("eth0");
	n->kind = CD_NIC_PHYSICAL;
	n->state = xstrdup("up");
	n->mtu = 9000;
	n->speed_mbit_s = 100000;
	n = cd_host_add_nic(host);
	n->name = xstrdup("docker0");
	n->kind = CD_NIC_BRIDGE;
	n->state = xstrdup("down");
	n->mtu = 1500;

	c = cd_host_add_hca(host);
	c->name = xstrdup("mlx5_0");
	pt = cd_hca_add_port(c);
	pt->port = 1;
	pt->state = xstrdup("active");
	pt->phys_state = xstrdup("link_up");
	pt->link_layer = xstrdup("infiniband");
	pt->rate_gbit_s = 400;

	g = cd_host_add_gpu(host);
	g->index = 0;
	g->name = xstrdup("NVIDIA H100 80GB HBM3");
	g->pcie_gen = 5;
	g->pcie_width = 16;
	g->pcie_max_gen = 5;
	g->pcie_max_width = 16;
	g->pcie_link_gbyte_s = 63.0;
	g = cd_host_add_gpu(host);
	g->index = 1; /* PCIe link not known: no sample, not a 0 */

	p = add_probe("copy.h2d", 0, CD_NULL_I64, 4871.79, 55.1);
	s = cd_probe_add_sample(p);
	s->bytes = 268435456;
	s->time_us = 4871.79;
	s->algbw_gbyte_s = 55.1;
	s->busbw_gbyte_s = 55.1;
	s->errors = 0;
	add_probe("nccl.all_reduce", CD_NULL_I64, CD_NULL_I64, 17.9, 0.000447)->nranks = 8;
	p = cd_results_add_probe(&res, "p2p.bw");
	p->status = CD_ST_TIMEOUT;
	p->host = xstrdup("node17");
	p->phase = xstrdup("copy");
	p = cd_results_add_probe(&res, "mpi.bw");
	p->status = CD_ST_SKIPPED;
	p->reason = xstrdup("needs 2 ranks");
	p->host = xstrdup("node17");

	cd_results_add_finding(&res, "NET002", CD_SEV_WARN, "node17", "eth1", "MTU differs")->threshold =
		xstrdup("net.fabric_min_mbit_s");
	cd_results_add_finding(&res, "COPY001", CD_SEV_FAIL, "node17", "gpu0", "copy is slow");
	cd_score_init(&res.score);
	res.score.present = 1;
	res.score.total = 87;
	res.score.dim[CD_DIM_BANDWIDTH] = 90;
	res.score.dim[CD_DIM_LATENCY] = 85;
}

static void teardown(void)
{
	cd_results_free(&res);
}

static char *render(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o;

	ck_assert_ptr_nonnull(f);
	o = out_new(OUT_FMT_PROM, f, 0);
	cd_report(o, &res);
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	return buf;
}

/* at most 2000 characters of the output: Check refuses longer messages */
#define HAS(s, needle) ck_assert_msg(strstr((s), (needle)) != NULL, "missing '%s' in:\n%.2000s", (needle), (s))
#define HASNT(s, needle) ck_assert_msg(strstr((s), (needle)) == NULL, "unexpected '%s' in:\n%.2000s", (needle), (s))

/* Lines of s equal to line, whole. */
static int count_lines(const char *s, const char *line)
{
	size_t n = strlen(line);
	int count = 0;

	for (const char *p = s; (p = strstr(p, line)); p += n)
		count += (p == s || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0');
	return count;
}

/*
 * The exposition rules promtool and node_exporter enforce: every family's # HELP then
 * # TYPE, once, before its samples; every sample belongs to the family announced last;
 * no sample line (name and labels) twice; the text ends with a newline.
 */
static void check_structure(const char *s)
{
	char *copy = xstrdup(s), *save = NULL, fam[256] = "";
	char **names = NULL, **series = NULL;
	size_t n_names = 0, n_series = 0, cap_names = 0, cap_series = 0;
	int want_type = 0;

	ck_assert_msg(*s && s[strlen(s) - 1] == '\n', "output does not end with a newline");
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256];

		if (!strncmp(line, "# HELP ", 7)) {
			ck_assert_msg(!want_type, "two # HELP in a row: %s", line);
			ck_assert_int_eq(sscanf(line + 7, "%255s", name), 1);
			for (size_t i = 0; i < n_names; i++)
				ck_assert_msg(strcmp(names[i], name), "family %s announced twice", name);
			*CD_PUSH(names, n_names, cap_names) = xstrdup(name);
			snprintf(fam, sizeof(fam), "%s", name);
			want_type = 1;
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			char type[32];

			ck_assert_msg(want_type, "# TYPE without # HELP: %s", line);
			ck_assert_int_eq(sscanf(line + 7, "%255s %31s", name, type), 2);
			ck_assert_str_eq(name, fam);
			ck_assert_str_eq(type, "gauge");
			want_type = 0;
			continue;
		}
		ck_assert_msg(line[0] != '#', "unexpected comment: %s", line);
		ck_assert_msg(!want_type, "sample before # TYPE: %s", line);
		ck_assert_msg(!strncmp(line, "commdiag_", 9), "sample outside the commdiag_ namespace: %s", line);
		ck_assert_msg(!strncmp(line, fam, strlen(fam)) && strchr("{ ", line[strlen(fam)]),
			      "sample %s outside its family %s", line, fam);
		*strrchr(line, ' ') = '\0';
		for (size_t i = 0; i < n_series; i++)
			ck_assert_msg(strcmp(series[i], line), "series %s twice", line);
		*CD_PUSH(series, n_series, cap_series) = xstrdup(line);
	}
	ck_assert_msg(!want_type, "output ends after a # HELP");
	ck_assert_msg(n_names > 10, "only %zu families", n_names);
	for (size_t i = 0; i < n_names; i++)
		free(names[i]);
	for (size_t i = 0; i < n_series; i++)
		free(series[i]);
	free(names);
	free(series);
	free(copy);
}

START_TEST(test_structure)
{
	char *s = render();

	check_structure(s);
	free(s);
}
END_TEST

START_TEST(test_escaping)
{
	char *s;

	free(host->hostname);
	host->hostname = xstrdup("we\"ird\\host\nname");
	free(host->nics[0].name);
	host->nics[0].name = xstrdup("a{b}=c,d");
	s = render();
	check_structure(s);
	HAS(s, "\ncommdiag_discovery_ok{host=\"we\\\"ird\\\\host\\nname\",section=\"gpu\"} 1\n");
	HAS(s, "\ncommdiag_nic_mtu_bytes{host=\"we\\\"ird\\\\host\\nname\",iface=\"a{b}=c,d\"} 9000\n");
	HASNT(s, "ird\\host");
	free(s);
}
END_TEST

START_TEST(test_findings)
{
	char *s = render();

	ck_assert_int_eq(count_lines(s, "commdiag_finding{host=\"node17\",id=\"NET002\",severity=\"warn\",subject=\"eth1\","
					"threshold=\"net.fabric_min_mbit_s\"} 1"), 1);
	/* no threshold: no label, rather than an empty one */
	ck_assert_int_eq(count_lines(s, "commdiag_finding{host=\"node17\",id=\"COPY001\",severity=\"fail\","
					"subject=\"gpu0\"} 1"), 1);
	ck_assert_int_eq(count_lines(s, "commdiag_findings{severity=\"info\"} 0"), 1);
	ck_assert_int_eq(count_lines(s, "commdiag_findings{severity=\"warn\"} 1"), 1);
	ck_assert_int_eq(count_lines(s, "commdiag_findings{severity=\"fail\"} 1"), 1);
	free(s);
}
END_TEST

START_TEST(test_no_findings)
{
	char *s;

	for (size_t i = 0; i < res.n_findings; i++)
		cd_finding_free(&res.findings[i]);
	res.n_findings = 0;
	s = render();
	check_structure(s);
	/* the counts stay, at 0, so an alert on them has a series; the family of single findings goes */
	ck_assert_int_eq(count_lines(s, "commdiag_findings{severity=\"fail\"} 0"), 1);
	HASNT(s, "# TYPE commdiag_finding gauge");
	free(s);
}
END_TEST

START_TEST(test_units)
{
	char *s = render();

	HAS(s, "\ncommdiag_last_run_timestamp_seconds 1795255200\n");
	HAS(s, "\ncommdiag_run_duration_seconds 41.7\n");
	HAS(s, "\ncommdiag_probe_time_seconds{host=\"node17\",probe=\"nccl.all_reduce\",size_bytes=\"8\"} 1.79e-05\n");
	HAS(s, "\ncommdiag_probe_latency_seconds{host=\"node17\",probe=\"nccl.all_reduce\"} 1.79e-05\n");
	HAS(s, "\ncommdiag_probe_algbw_bytes_per_second{host=\"node17\",probe=\"copy.h2d\",gpu=\"0\","
	       "size_bytes=\"268435456\"} 55100000000\n");
	HAS(s, "\ncommdiag_probe_bandwidth_bytes_per_second{host=\"node17\",probe=\"copy.h2d\",gpu=\"0\"} 55100000000\n");
	HAS(s, "\ncommdiag_probe_link_bytes_per_second{host=\"node17\",probe=\"copy.h2d\",gpu=\"0\"} 63000000000\n");
	HAS(s, "\ncommdiag_nic_speed_bytes_per_second{host=\"node17\",iface=\"eth0\"} 12500000000\n");
	HAS(s, "\ncommdiag_hca_port_rate_bytes_per_second{host=\"node17\",hca=\"mlx5_0\",port=\"1\"} 50000000000\n");
	HAS(s, "\ncommdiag_hca_port_active{host=\"node17\",hca=\"mlx5_0\",port=\"1\"} 1\n");
	HAS(s, "\ncommdiag_gpu_pcie_link_gen{host=\"node17\",gpu=\"0\"} 5\n");
	HAS(s, "\ncommdiag_score_ratio 0.87\n");
	HAS(s, "\ncommdiag_score_dimension_ratio{dimension=\"latency\"} 0.85\n");
	free(s);
}
END_TEST

START_TEST(test_nulls)
{
	char *s;

	free(res.run.started);
	res.run.started = NULL; /* COMMDIAG_DETERMINISTIC */
	res.run.duration_s = NAN;
	s = render();
	check_structure(s);
	/* unknown facts are no sample, never a 0: GPU 1's link, docker0's speed, the dimensions without data */
	HASNT(s, "gpu=\"1\"");
	HASNT(s, "commdiag_nic_speed_bytes_per_second{host=\"node17\",iface=\"docker0\"}");
	HAS(s, "\ncommdiag_nic_up{host=\"node17\",iface=\"docker0\"} 0\n");
	HASNT(s, "commdiag_last_run_timestamp_seconds");
	HASNT(s, "commdiag_run_duration_seconds");
	HASNT(s, "dimension=\"balance\"");
	free(s);

	res.run.started = xstrdup("2026-11-21 10:00"); /* not the document's form: no guess */
	s = render();
	HASNT(s, "commdiag_last_run_timestamp_seconds");
	free(s);
}
END_TEST

START_TEST(test_probe_status)
{
	char *s = render();

	ck_assert_int_eq(count_lines(s, "commdiag_probes{host=\"node17\",status=\"ok\"} 2"), 1);
	ck_assert_int_eq(count_lines(s, "commdiag_probes{host=\"node17\",status=\"skipped\"} 1"), 1);
	ck_assert_int_eq(count_lines(s, "commdiag_probes{host=\"node17\",status=\"error\"} 0"), 1);
	ck_assert_int_eq(count_lines(s, "commdiag_probes{host=\"node17\",status=\"timeout\"} 1"), 1);
	ck_assert_int_eq(count_lines(s, "commdiag_probe_ok{host=\"node17\",probe=\"p2p.bw\"} 0"), 1);
	/* a probe that did not finish has no bandwidth and no link to judge it against */
	HASNT(s, "commdiag_probe_bandwidth_bytes_per_second{host=\"node17\",probe=\"p2p.bw\"");
	HASNT(s, "commdiag_probe_link_bytes_per_second{host=\"node17\",probe=\"p2p.bw\"");
	HAS(s, "\ncommdiag_run_complete 1\n");
	free(s);

	res.run.stopped_by = xstrdup("timeout");
	s = render();
	HAS(s, "\ncommdiag_run_complete 0\n");
	free(s);
}
END_TEST

/* The same probe run twice (the same labels): one series, the first; node_exporter would refuse the file. */
START_TEST(test_duplicates)
{
	char *s;

	add_probe("copy.h2d", 0, CD_NULL_I64, 9999.0, 1.0);
	cd_verbosity = -1; /* the warning that says so */
	s = render();
	cd_verbosity = 0;
	check_structure(s);
	ck_assert_int_eq(count_lines(s, "commdiag_probe_algbw_bytes_per_second{host=\"node17\",probe=\"copy.h2d\","
					"gpu=\"0\",size_bytes=\"8\"} 55100000000"), 1);
	HASNT(s, " 1000000000\n"); /* the second run's 1 GB/s */
	/* both runs are counted: the counts are not series of one run */
	ck_assert_int_eq(count_lines(s, "commdiag_probes{host=\"node17\",status=\"ok\"} 3"), 1);
	free(s);
}
END_TEST

/* An empty document still has the run's families and nothing else half-made. */
/* The GPU's UUID beside its index, named as dcgm-exporter names it, on GPU facts and probes. */
START_TEST(test_gpu_uuid)
{
	char *s;

	host->gpus[0].uuid = xstrdup("GPU-7a3c0000-1d2e-4f5a-8b9c-0d1e2f3a4b5c");
	add_probe("copy.d2h", 7, CD_NULL_I64, 10.0, 1.0); /* a device the host does not list */
	s = render();
	check_structure(s);
	HAS(s, "\ncommdiag_gpu_pcie_link_gen{host=\"node17\",gpu=\"0\",UUID=\"GPU-7a3c0000-1d2e-4f5a-8b9c-0d1e2f3a4b5c\"} 5\n");
	HAS(s, "\ncommdiag_probe_bandwidth_bytes_per_second{host=\"node17\",probe=\"copy.h2d\",gpu=\"0\","
	       "UUID=\"GPU-7a3c0000-1d2e-4f5a-8b9c-0d1e2f3a4b5c\"} 55100000000\n");
	HAS(s, "\ncommdiag_probe_bandwidth_bytes_per_second{host=\"node17\",probe=\"copy.d2h\",gpu=\"7\"} 1000000000\n");
	free(s);
}
END_TEST

START_TEST(test_empty)
{
	struct cd_results empty;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o;

	cd_results_init(&empty);
	o = out_new(OUT_FMT_PROM, f, 0);
	cd_report(o, &empty);
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	HAS(buf, "# TYPE commdiag_info gauge\ncommdiag_info 1\n");
	HAS(buf, "\ncommdiag_hosts 0\n");
	HASNT(buf, "commdiag_probes{");
	HASNT(buf, "commdiag_score");
	free(buf);
	cd_results_free(&empty);
}
END_TEST

/*
 * A fleet of n 8-GPU hosts, alike but for host 42 (a GPU at PCIe gen 3, a fail finding)
 * and host 7 (a warn finding).
 */
static void fleet(struct cd_results *r, int n)
{
	cd_results_init(r);
	r->tool_version = xstrdup("0.1.0");
	for (int i = 0; i < n; i++) {
		struct cd_host *h = cd_results_add_host(r);
		struct cd_nic *nic;
		struct cd_ib_port *pt;
		struct cd_hca *c;
		char name[32];

		snprintf(name, sizeof(name), "node%04d", i);
		h->hostname = xstrdup(name);
		for (int k = 0; k < CD_PART_COUNT; k++)
			cd_section_set(&h->part[k], CD_ST_OK, NULL);
		nic = cd_host_add_nic(h);
		nic->name = xstrdup("eth0");
		nic->kind = CD_NIC_PHYSICAL;
		nic->state = xstrdup("up");
		nic->mtu = 9000;
		c = cd_host_add_hca(h);
		c->name = xstrdup("mlx5_0");
		pt = cd_hca_add_port(c);
		pt->port = 1;
		pt->state = xstrdup("active");
		pt->rate_gbit_s = 400;
		for (int k = 0; k < 8; k++) {
			struct cd_gpu *g = cd_host_add_gpu(h);
			struct cd_probe_run *p = cd_results_add_probe(r, "copy.h2d");
			struct cd_probe_sample *sm = cd_probe_add_sample(p);

			g->index = k;
			g->pcie_gen = i == 42 && k == 3 ? 3 : 5;
			g->pcie_width = 16;
			g->pcie_link_gbyte_s = 63.0;
			p->status = CD_ST_OK;
			p->host = xstrdup(name);
			p->device = k;
			sm->bytes = 268435456;
			sm->iters = 20;
			sm->time_us = 4871.79;
			sm->algbw_gbyte_s = sm->busbw_gbyte_s = 55.1;
		}
	}
	cd_results_add_finding(r, "PCIE001", CD_SEV_FAIL, "node0042", "gpu3", "PCIe link below its maximum");
	cd_results_add_finding(r, "NET002", CD_SEV_WARN, "node0007", "eth0", "MTU differs");
	cd_results_add_finding(r, "HOST002", CD_SEV_WARN, NULL, "fleet", "driver versions differ");
}

static char *render_doc(const struct cd_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o = out_new(OUT_FMT_PROM, f, 0);

	cd_report(o, r);
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	return buf;
}

static size_t count_series(const char *s)
{
	size_t n = 0;

	for (const char *p = s; *p; p = strchr(p, '\n') + 1) {
		n += *p != '#';
		if (!strchr(p, '\n'))
			break;
	}
	return n;
}

/*
 * Issue 18: above 64 hosts only hosts with a finding at warn or fail have series of their
 * own; the others are in the fleet stats. The count does not grow with the hosts.
 */
START_TEST(test_fleet_bounded)
{
	struct cd_results a, b;
	char *sa, *sb;
	size_t na, nb;

	fleet(&a, 300);
	fleet(&b, 600);
	sa = render_doc(&a);
	sb = render_doc(&b);
	check_structure(sa);
	na = count_series(sa);
	nb = count_series(sb);
	/* 300 hosts in full would be over 300 x (8 GPUs x 7 facts) series */
	ck_assert_msg(na == nb, "series grew with the hosts: %zu at 300, %zu at 600", na, nb);
	ck_assert_msg(na < 1000, "%zu series for 300 hosts", na);
	/* the failing and the warned host keep their own series; a clean host has none */
	HAS(sa, "commdiag_gpu_pcie_link_gen{host=\"node0042\",gpu=\"3\"} 3\n");
	HAS(sa, "commdiag_probe_ok{host=\"node0007\",probe=\"copy.h2d\",gpu=\"0\"} 1\n");
	HAS(sa, "commdiag_finding{host=\"node0042\",id=\"PCIE001\",severity=\"fail\",subject=\"gpu3\"} 1\n");
	HASNT(sa, "host=\"node0001\"");
	/* the fleet: min and median over every host's GPUs (the odd one's gen 3 is the lowest) and counts */
	HAS(sa, "commdiag_fleet_gpu_pcie_link_gen{stat=\"min\"} 3\n");
	HAS(sa, "commdiag_fleet_gpu_pcie_link_gen{stat=\"median\"} 5\n");
	HAS(sa, "commdiag_fleet_gpu_pcie_link_gen_samples 2400\n");
	HAS(sa, "commdiag_fleet_probe_ok_samples{probe=\"copy.h2d\"} 2400\n");
	HAS(sa, "commdiag_fleet_hca_port_info_samples{state=\"active\"} 300\n");
	HAS(sa, "commdiag_fleet_hosts{hosts=\"bad\"} 2\n");
	/* a finding of the fleet, no host's, is as before */
	HAS(sa, "commdiag_finding{id=\"HOST002\",severity=\"warn\",subject=\"fleet\"} 1\n");
	free(sa);
	free(sb);
	cd_results_free(&a);
	cd_results_free(&b);
	/* up to 64 hosts: every host in full, no fleet families */
	fleet(&a, 64);
	sa = render_doc(&a);
	HAS(sa, "commdiag_gpu_pcie_link_gen{host=\"node0001\",gpu=\"0\"} 5\n");
	HASNT(sa, "commdiag_fleet_");
	free(sa);
	cd_results_free(&a);
}
END_TEST

Suite *prom_suite(void)
{
	Suite *s = suite_create("prom");
	TCase *tc = tcase_create("prom");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_structure);
	tcase_add_test(tc, test_escaping);
	tcase_add_test(tc, test_findings);
	tcase_add_test(tc, test_no_findings);
	tcase_add_test(tc, test_units);
	tcase_add_test(tc, test_nulls);
	tcase_add_test(tc, test_probe_status);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_gpu_uuid);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_fleet_bounded);
	suite_add_tcase(s, tc);
	return s;
}
