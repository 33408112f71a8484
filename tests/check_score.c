/* SPDX-License-Identifier: BSD-3-Clause */
/* The score card: exact scores of the fixture documents, each dimension's formula, renormalisation. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "import_nccltests.h"
#include "measure.h"
#include "rules.h"
#include "score.h"
#include "scope.h"
#include "suites.h"

static struct cd_results res;
static struct cd_conf thr;

static void setup(void)
{
	cd_results_init(&res);
	cd_conf_init(&thr);
}

static void teardown(void)
{
	cd_results_free(&res);
	cd_conf_free(&thr);
}

/* Load a fixture and judge it as `commdiag score FILE` does: profile chosen from its GPUs. */
static void judge_file(const char *path)
{
	ck_assert_int_eq(cd_results_load_file(&res, path), 0);
	cd_results_clear_judgement(&res);
	ck_assert_int_eq(cd_conf_load(&thr, NULL, &res), 0);
	cd_rules_evaluate_conf(&res, &thr);
	cd_score_compute(&res, &thr);
}

static void judge_doc(void)
{
	cd_conf_free(&thr);
	ck_assert_int_eq(cd_conf_load(&thr, NULL, NULL), 0);
	cd_score_compute(&res, &thr);
}

static void card(int64_t total, int64_t bw, int64_t lat, int64_t bal, int64_t stab)
{
	const struct cd_score *s = &res.score;

	ck_assert(s->present);
	ck_assert_int_eq(s->total, total);
	ck_assert_int_eq(s->dim[CD_DIM_BANDWIDTH], bw);
	ck_assert_int_eq(s->dim[CD_DIM_LATENCY], lat);
	ck_assert_int_eq(s->dim[CD_DIM_BALANCE], bal);
	ck_assert_int_eq(s->dim[CD_DIM_STABILITY], stab);
}

START_TEST(test_faulty_h100)
{
	static const char *const want[][2] = { { "PCIE002", "mlx5_6" }, { "IB001", "mlx5_3/1" }, { "COPY001", "gpu5" } };

	judge_file("tests/data/docs/h100-faulty.json");
	ck_assert_str_eq(res.rules.profile, "h100-sxm");
	ck_assert_uint_eq(res.n_findings, 3);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_str_eq(res.findings[i].id, want[i][0]);
		ck_assert_str_eq(res.findings[i].subject, want[i][1]);
		ck_assert_int_eq(res.findings[i].severity, CD_SEV_FAIL);
	}
	card(57, 0, 100, 50, 99); /* stability: the interquartile range, 0.7 % at worst */
	ck_assert_str_eq(res.score.grade, "needs work");
	ck_assert_int_eq(res.score.renormalised, CD_TRI_FALSE);
	ck_assert_double_eq(res.score.weight[CD_DIM_BANDWIDTH], 0.3);
	ck_assert_double_eq(res.score.weight[CD_DIM_STABILITY], 0.2);
	ck_assert_str_eq(res.score.basis[CD_DIM_BANDWIDTH], "lowest of 41: gpu-node07 mlx5_3/1 port down");
	ck_assert_ptr_nonnull(strstr(res.score.basis[CD_DIM_BALANCE], "copy.h2d on gpu-node07: slowest 27.6 GB/s"));
}
END_TEST

START_TEST(test_clean_h100)
{
	judge_file("tests/data/docs/h100-clean.json");
	ck_assert_uint_eq(res.n_findings, 0);
	card(100, 100, 100, 99, 99);
	ck_assert_str_eq(res.score.grade, "excellent");
	ck_assert_uint_eq(res.rules.n_not_evaluated, 1);
	ck_assert_str_eq(res.rules.not_evaluated[0].group, "p2p");
}
END_TEST

START_TEST(test_grades)
{
	ck_assert_str_eq(cd_score_grade(100), "excellent");
	ck_assert_str_eq(cd_score_grade(85), "excellent");
	ck_assert_str_eq(cd_score_grade(84), "good");
	ck_assert_str_eq(cd_score_grade(70), "good");
	ck_assert_str_eq(cd_score_grade(69), "needs work");
	ck_assert_str_eq(cd_score_grade(0), "needs work");
	ck_assert_double_eq_tol(cd_score_weights[0] + cd_score_weights[1] + cd_score_weights[2] + cd_score_weights[3], 1.0,
				1e-12);
}
END_TEST

START_TEST(test_no_data)
{
	struct cd_host *h = cd_results_add_host(&res);

	h->hostname = xstrdup("login1");
	judge_doc();
	ck_assert(res.score.present);
	ck_assert_int_eq(res.score.total, CD_NULL_I64);
	ck_assert_ptr_null(res.score.grade);
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		ck_assert_int_eq(res.score.dim[d], CD_NULL_I64);
		ck_assert(isnan(res.score.weight[d]));
		ck_assert_ptr_nonnull(res.score.basis[d]);
	}
	ck_assert_str_eq(res.score.basis[CD_DIM_STABILITY], "no probe ran");
}
END_TEST

/* One size of 20 iterations whose middle half spans `spread` of the median (IQR / median). */
static struct cd_probe_run *probe(const char *name, int64_t device, int64_t bytes, double gbs, double spread)
{
	struct cd_probe_run *p = cd_results_add_probe(&res, name);
	struct cd_probe_sample *sm = cd_probe_add_sample(p);

	p->status = CD_ST_OK;
	p->device = device;
	sm->bytes = bytes;
	sm->iters = 20;
	sm->time_us = (double)bytes / gbs / 1e3;
	sm->min_time_us = sm->p10_time_us = sm->p25_time_us = sm->time_us;
	sm->max_time_us = sm->p90_time_us = sm->p75_time_us = sm->time_us * (1 + spread);
	sm->outliers = 0;
	sm->algbw_gbyte_s = gbs;
	sm->busbw_gbyte_s = gbs;
	return p;
}

static void gpu_host(int n)
{
	struct cd_host *h = cd_results_add_host(&res);

	h->hostname = xstrdup("node17");
	for (int i = 0; i < n; i++) {
		struct cd_gpu *g = cd_host_add_gpu(h);

		g->index = i;
		g->pcie_gen = g->pcie_max_gen = 4;
		g->pcie_width = g->pcie_max_width = 16;
	}
}

START_TEST(test_renormalised)
{
	/* one GPU, one copy: bandwidth and stability only; latency and balance have no data */
	gpu_host(1);
	probe("copy.h2d", 0, 1 << 28, 20.0, 0.10); /* 20 of 31.5 GB/s: 63.5 %, / 85 % = 75 */
	judge_doc();
	card(77, 75, CD_NULL_I64, CD_NULL_I64, 80); /* (0.3 * 75 + 0.2 * 80) / 0.5 = 77 */
	ck_assert_int_eq(res.score.renormalised, CD_TRI_TRUE);
	ck_assert_double_eq(res.score.weight[CD_DIM_BANDWIDTH], 0.6);
	ck_assert_double_eq(res.score.weight[CD_DIM_STABILITY], 0.4);
	ck_assert(isnan(res.score.weight[CD_DIM_LATENCY]));
	ck_assert_str_eq(res.score.grade, "good");
	ck_assert_str_eq(res.score.basis[CD_DIM_LATENCY],
			 "no latency measurement with a target (nccl.*, p2p.latency, mpi.latency at 8 KiB or less)");
}
END_TEST

START_TEST(test_dimensions)
{
	struct cd_probe_run *p;

	gpu_host(4);
	/* balance: the slowest of 4 against their median */
	probe("copy.d2h", 0, 1 << 28, 26.0, 0);
	probe("copy.d2h", 1, 1 << 28, 26.0, 0);
	probe("copy.d2h", 2, 1 << 28, 26.0, 0);
	probe("copy.d2h", 3, 1 << 28, 13.0, 0);
	/* latency: target 50 us (default.conf), measured 100 us: 50; p2p.latency 10 us of 10: 100 */
	p = probe("nccl.all_reduce", CD_NULL_I64, 8, 8.0 / 100.0 / 1e3, 0);
	p->nranks = 4;
	probe("p2p.latency", 0, 8, 8.0 / 10.0 / 1e3, 0);
	/* stability: a timeout scores 0 in the mean */
	p = cd_results_add_probe(&res, "nccl.all_gather");
	p->status = CD_ST_TIMEOUT;
	judge_doc();
	/* bandwidth: 13 of 31.5 GB/s = 41.3 %, / 85 % = 48.6 -> 49 */
	ck_assert_int_eq(res.score.dim[CD_DIM_BANDWIDTH], 49);
	ck_assert_int_eq(res.score.dim[CD_DIM_LATENCY], 75);
	ck_assert_int_eq(res.score.dim[CD_DIM_BALANCE], 50);
	/* 7 runs: six at spread 0 (100) and one timeout (0) -> 85.7 */
	ck_assert_int_eq(res.score.dim[CD_DIM_STABILITY], 86);
	/* 0.3*49 + 0.25*75 + 0.25*50 + 0.2*86 = 62.95 */
	ck_assert_int_eq(res.score.total, 63);
	ck_assert_int_eq(res.score.renormalised, CD_TRI_FALSE);
}
END_TEST

START_TEST(test_links_count)
{
	/* no probe at all: a down port still costs bandwidth, and lanes missing on a GPU */
	struct cd_host *h;
	struct cd_hca *c;
	struct cd_ib_port *port;

	gpu_host(2);
	h = &res.hosts[0];
	h->gpus[1].pcie_width = 8;
	c = cd_host_add_hca(h);
	c->name = xstrdup("mlx5_0");
	port = cd_hca_add_port(c);
	port->port = 1;
	port->state = xstrdup("active");
	port->rate_gbit_s = 400;
	judge_doc();
	ck_assert_int_eq(res.score.dim[CD_DIM_BANDWIDTH], 50);
	ck_assert_int_eq(res.score.total, 50); /* the only dimension with data */
	h->gpus[1].pcie_width = 16;
	h->gpus[1].pcie_gen = 1; /* idle generation drop: not lost capacity */
	judge_doc();
	ck_assert_int_eq(res.score.dim[CD_DIM_BANDWIDTH], 100);
}
END_TEST

/*
 * Stability grades the interquartile range, so one preempted iteration (max 50x the
 * median) costs nothing: the old (max - min) / median graded this run 0.
 */
START_TEST(test_stability_robust)
{
	struct cd_probe_run *p;

	gpu_host(1);
	p = probe("copy.h2d", 0, 1 << 28, 20.0, 0.02);
	p->samples[0].max_time_us = p->samples[0].time_us * 50;
	p->samples[0].outliers = 1;
	judge_doc();
	ck_assert_int_eq(res.score.dim[CD_DIM_STABILITY], 96); /* 1 - 2 % / 50 % */
	ck_assert_str_eq(res.score.basis[CD_DIM_STABILITY],
			 "mean of 1; worst copy.h2d gpu0 spread 2.0 % (interquartile range / median)");
}
END_TEST

/*
 * What stability cannot grade it leaves out and counts in the basis, never graded from min
 * and max: runs without percentiles (an older document, an import) and runs on a host with
 * more ranks than CPUs (their spread is the scheduler's). Failures still count.
 */
START_TEST(test_stability_not_graded)
{
	struct cd_probe_run *p;

	gpu_host(1);
	p = probe("copy.h2d", 0, 1 << 28, 20.0, 0.02);
	p->samples[0].p25_time_us = p->samples[0].p75_time_us = NAN;
	judge_doc();
	ck_assert_int_eq(res.score.dim[CD_DIM_STABILITY], CD_NULL_I64);
	ck_assert_str_eq(res.score.basis[CD_DIM_STABILITY],
			 "1 run without per-iteration percentiles (older document or import) is not graded");
	p = cd_results_add_probe(&res, "copy.d2h");
	p->status = CD_ST_TIMEOUT;
	judge_doc();
	ck_assert_int_eq(res.score.dim[CD_DIM_STABILITY], 0);
	ck_assert_str_eq(res.score.basis[CD_DIM_STABILITY], "mean of 1; worst copy.d2h timeout; 1 run without "
							    "per-iteration percentiles (older document or import) is "
							    "not graded");
	cd_results_free(&res);
	cd_results_init(&res);
	gpu_host(1);
	res.hosts[0].system.cpus_online = 2;
	for (int r = 0; r < 4; r++)
		cd_results_add_rank(&res, r)->host_index = 0;
	p = probe("mpi.latency", CD_NULL_I64, 1 << 20, 1.0, 0.9);
	p->rank = 0;
	p->peer = 1;
	judge_doc();
	/* its 90 % spread is the scheduler's: graded on finishing alone, so the score holds still */
	ck_assert_int_eq(res.score.dim[CD_DIM_STABILITY], 100);
	ck_assert_str_eq(res.score.basis[CD_DIM_STABILITY], "mean of 1; worst mpi.latency finished; 1 run on "
							    "oversubscribed node17 (4 ranks on 2 CPUs: times measure the "
							    "scheduler) is graded on finishing only, not on spread");
	ck_assert_int_eq(res.score.total, 100);
	/* and a run there that timed out still scores 0 */
	res.probes[0].status = CD_ST_TIMEOUT;
	judge_doc();
	ck_assert_int_eq(res.score.dim[CD_DIM_STABILITY], 0);
}
END_TEST

/*
 * Latency is judged against the scope the run shows. An imported two-node nccl-tests run
 * (2 x 8 H100, 123-136 us at 8-256 B over GPUDirect-TCPXO) is across hosts with no RDMA
 * facts: the TCP target (150 us), not the 25 us of one NVSwitch host.
 */
START_TEST(test_latency_scope_import)
{
	FILE *f = fopen("tests/data/nccl-tests/multinode-h100-ztan.log", "re");
	struct cd_conf_opts o = { .profile = "h100-sxm" };
	char *text, *err = NULL;
	size_t len = 0;

	ck_assert_ptr_nonnull(f);
	text = cd_read_file(f, 1 << 20, &len);
	fclose(f);
	ck_assert_int_gt(cd_import_nccltests(&res, text, len, "ztan.log", NULL, &err), 0);
	free(text);
	ck_assert_int_eq(cd_conf_load(&thr, &o, &res), 0);
	cd_rules_evaluate_conf(&res, &thr);
	cd_score_compute(&res, &thr);
	ck_assert_int_eq(res.score.dim[CD_DIM_LATENCY], 100);
	ck_assert_str_eq(res.score.basis[CD_DIM_LATENCY], "mean of 2; worst nccl.all_reduce 16 ranks 123.0 us against the "
							  "150.0 us target of 2 hosts, transport not known: TCP assumed");
	for (size_t i = 0; i < res.n_findings; i++)
		ck_assert_int_lt(res.findings[i].severity, CD_SEV_WARN);
}
END_TEST

/* One host: NVLink or PCIe from the GPUs' links; MPI ranks of one host: shared memory. */
START_TEST(test_latency_scope_host)
{
	struct cd_probe_run *p;

	gpu_host(2);
	res.hosts[0].part[CD_PART_GPU].status = CD_ST_OK;
	p = probe("nccl.all_reduce", CD_NULL_I64, 8, 8.0 / 40.0 / 1e3, 0); /* 40 us */
	p->nranks = 2;
	judge_doc();
	ck_assert_str_eq(res.score.basis[CD_DIM_LATENCY],
			 "mean of 1; worst nccl.all_reduce 2 ranks 40.0 us against the 50.0 us target of one host over PCIe");
	for (int g = 0; g < 2; g++) {
		struct cd_nvlink *l = cd_gpu_add_nvlink(&res.hosts[0].gpus[g]);

		l->up = CD_TRI_TRUE;
		l->remote_kind = xstrdup("nvswitch");
	}
	ck_assert_int_eq(cd_conf_define(&thr, "nccl.latency_target_us = 20 us"), 0);
	cd_score_compute(&res, &thr);
	ck_assert_int_eq(res.score.dim[CD_DIM_LATENCY], 50);
	ck_assert_ptr_nonnull(strstr(res.score.basis[CD_DIM_LATENCY], "target of one host over NVLink"));
	/* two ranks of this host ping-ponging: shared memory, 1 us */
	cd_results_add_rank(&res, 0)->host_index = 0;
	cd_results_add_rank(&res, 1)->host_index = 0;
	res.hosts[0].system.cpus_online = 64;
	p = probe("mpi.latency", CD_NULL_I64, 8, 8.0 / 4.0 / 1e3, 0); /* 4 us */
	p->rank = 0;
	p->peer = 1;
	cd_score_compute(&res, &thr);
	ck_assert_int_eq(res.score.dim[CD_DIM_LATENCY], 38); /* (50 + 25) / 2 */
	ck_assert_ptr_nonnull(strstr(res.score.basis[CD_DIM_LATENCY],
				     "mpi.latency 4.0 us against the 1.0 us target of one host through shared memory"));
	/* a timing thread that waited for a CPU 20 % of the time: not graded either */
	res.probes[0].samples[0].cpu_wait_pct = 20;
	cd_score_compute(&res, &thr);
	ck_assert_int_eq(res.score.dim[CD_DIM_LATENCY], 25);
	ck_assert_ptr_nonnull(strstr(res.score.basis[CD_DIM_LATENCY], "; 1 run whose timing thread waited for a CPU over "
								     "5 % of the time is not graded"));
	ck_assert_int_eq(res.score.dim[CD_DIM_STABILITY], 100); /* both finished; the waiting one's spread not graded */
	ck_assert_ptr_nonnull(strstr(res.score.basis[CD_DIM_STABILITY], "1 run whose timing thread waited for a CPU over "
									 "5 % of the time is graded on finishing only"));
	res.probes[0].samples[0].cpu_wait_pct = 0.5;
	/* more ranks than CPUs: those times are the scheduler's, not graded */
	res.hosts[0].system.cpus_online = 1;
	cd_score_compute(&res, &thr);
	ck_assert_int_eq(res.score.dim[CD_DIM_LATENCY], CD_NULL_I64);
	ck_assert_str_eq(res.score.basis[CD_DIM_LATENCY], "2 runs on oversubscribed node17 (2 ranks on 1 CPUs: times "
							  "measure the scheduler) are not graded");
}
END_TEST

/* A job's 8-byte all_reduce over all of r's hosts. */
static void fleet_run(struct cd_results *r)
{
	struct cd_probe_run *p = cd_results_add_probe(r, "nccl.all_reduce");
	struct cd_probe_sample *sm = cd_probe_add_sample(p);

	p->status = CD_ST_OK;
	sm->bytes = 8;
	sm->time_us = 60;
}

/* A job of 65 hosts (above the 64 where scope.c keeps its answer), one mlx5_0 port each in `state`. */
static void fleet(struct cd_results *r, const char *state)
{
	for (int i = 0; i < 65; i++) {
		struct cd_host *h = cd_results_add_host(r);
		struct cd_hca *c = cd_host_add_hca(h);
		struct cd_ib_port *port = cd_hca_add_port(c);

		h->hostname = xasprintf("node%02d", i);
		h->part[CD_PART_IB].status = CD_ST_OK;
		c->name = xstrdup("mlx5_0");
		port->port = 1;
		port->state = xstrdup(state);
	}
	fleet_run(r);
}

/* The transport cd_latency_ref reads for r's first run. */
static enum cd_scope scope_of(const struct cd_results *r)
{
	int64_t *ranks = cd_hosts_ranks(r);
	struct cd_lat_ref x;

	ck_assert_int_eq(cd_latency_ref(r, &thr, ranks, &r->probes[0], &x), 0);
	free(ranks);
	ck_assert_uint_eq(x.hosts, 65);
	ck_assert_int_eq(x.known, 1);
	return x.scope;
}

/*
 * Two documents judged in one process (compare OLD NEW, merge) each get their own answer
 * to "RDMA between these hosts?": the answer kept for one is never the other's. The second
 * half is a document that lands where a freed one was (malloc hands the block back): the
 * same hosts array, other facts. A memo kept outside the document answered RDMA there.
 */
START_TEST(test_latency_scope_two_documents)
{
	struct cd_results a, b;

	ck_assert_int_eq(cd_conf_load(&thr, NULL, NULL), 0);
	cd_results_init(&a);
	cd_results_init(&b);
	fleet(&a, "active");
	fleet(&b, "down");
	ck_assert_int_eq(scope_of(&a), CD_SCOPE_RDMA);
	ck_assert_int_eq(scope_of(&b), CD_SCOPE_TCP);
	ck_assert_int_eq(scope_of(&a), CD_SCOPE_RDMA);
	cd_results_free(&b);
	/* b takes over a's hosts array, its ports now down; a is freed */
	cd_results_init(&b);
	b.hosts = a.hosts;
	b.n_hosts = a.n_hosts;
	b.cap_hosts = a.cap_hosts;
	a.hosts = NULL;
	a.n_hosts = a.cap_hosts = 0;
	cd_results_free(&a);
	for (size_t i = 0; i < b.n_hosts; i++) {
		free(b.hosts[i].hcas[0].ports[0].state);
		b.hosts[i].hcas[0].ports[0].state = xstrdup("down");
	}
	fleet_run(&b);
	ck_assert_int_eq(scope_of(&b), CD_SCOPE_TCP);
	cd_results_free(&b);
}
END_TEST

Suite *score_suite(void)
{
	Suite *s = suite_create("score");
	TCase *tc = tcase_create("fixtures");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_faulty_h100);
	tcase_add_test(tc, test_clean_h100);
	suite_add_tcase(s, tc);
	tc = tcase_create("formulas");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_grades);
	tcase_add_test(tc, test_no_data);
	tcase_add_test(tc, test_renormalised);
	tcase_add_test(tc, test_dimensions);
	tcase_add_test(tc, test_links_count);
	tcase_add_test(tc, test_stability_robust);
	tcase_add_test(tc, test_stability_not_graded);
	tcase_add_test(tc, test_latency_scope_import);
	tcase_add_test(tc, test_latency_scope_host);
	tcase_add_test(tc, test_latency_scope_two_documents);
	suite_add_tcase(s, tc);
	return s;
}
