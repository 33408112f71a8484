/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests output to probe results: layouts of several versions, prefixes, cuts, bad numbers, JSON. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_nccltests.h"
#include "suites.h"

static struct cd_results res;
static char *err;

static void setup(void)
{
	cd_results_init(&res);
	err = NULL;
}

static void teardown(void)
{
	cd_results_free(&res);
	free(err);
}

static int imp(const char *text, const char *coll)
{
	free(err);
	err = NULL;
	return cd_import_nccltests(&res, text, strlen(text), "t.log", coll, &err);
}

static const struct cd_probe_run *probe(const char *name, const char *variant)
{
	for (size_t i = 0; i < res.n_probes; i++)
		if (!strcmp(res.probes[i].name, name) && !strcmp(res.probes[i].variant, variant))
			return &res.probes[i];
	return NULL;
}

#define HEADER_2_13                                                                                            \
	"# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "  \
	"validation: 1 graph: 0\n#\n# Using devices\n"                                                         \
	"#  Rank  0 Group  0 Pid   6899 on nodeA device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"               \
	"#  Rank  1 Group  0 Pid   6900 on nodeA device  1 [0000:05:00] NVIDIA H100 80GB HBM3\n"               \
	"#  Rank  2 Group  0 Pid   6733 on nodeB device  0 [0x04] NVIDIA H100 80GB HBM3\n#\n"                  \
	"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw " \
	"  busbw #wrong\n"                                                                                     \
	"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s) " \
	" (GB/s)\n"

START_TEST(test_current_layout)
{
	const char *log = "./build/all_reduce_perf -b 8 -e 128 -g 1\n" HEADER_2_13
			  "           8             2     float     sum      -1    135.8    0.00    0.00      0    123.5"
			  "    0.00    0.00      0\n"
			  "         128            32     float     sum      -1    123.0    1.50    2.81      7    122.7"
			  "    1.60    3.00    N/A\n"
			  "# Out of bounds values : 7 FAILED\n# Avg bus bandwidth    : 1.2\n";
	const struct cd_probe_run *oop, *ip;

	ck_assert_int_eq(imp(log, NULL), 2);
	ck_assert_ptr_null(err);
	oop = probe("nccl.all_reduce", "out_of_place");
	ip = probe("nccl.all_reduce", "in_place");
	ck_assert_ptr_nonnull(oop);
	ck_assert_ptr_nonnull(ip);
	ck_assert_int_eq(oop->status, CD_ST_OK); /* counts per size: the rows carry the failure */
	ck_assert_str_eq(oop->host, "nodeA");
	ck_assert_int_eq(oop->nranks, 3);
	ck_assert_uint_eq(oop->n_samples, 2);
	ck_assert_int_eq(oop->samples[1].bytes, 128);
	ck_assert_int_eq(oop->samples[1].iters, 20);
	ck_assert_double_eq_tol(oop->samples[1].time_us, 123.0, 1e-9);
	ck_assert_double_eq_tol(oop->samples[1].algbw_gbyte_s, 1.5, 1e-9);
	ck_assert_double_eq_tol(oop->samples[1].busbw_gbyte_s, 2.81, 1e-9);
	ck_assert_int_eq(oop->samples[1].errors, 7);
	ck_assert_int_eq(ip->samples[1].errors, CD_NULL_I64); /* N/A: not checked */
	ck_assert_double_eq_tol(ip->samples[1].busbw_gbyte_s, 3.0, 1e-9);
	/* hosts and GPUs from the rank lines */
	ck_assert_uint_eq(res.n_hosts, 2);
	ck_assert_str_eq(res.hosts[0].hostname, "nodeA");
	ck_assert_uint_eq(res.hosts[0].n_gpus, 2);
	ck_assert_str_eq(res.hosts[0].gpus[1].bus_id, "0000:05:00.0");
	ck_assert_str_eq(res.hosts[0].gpus[1].name, "NVIDIA H100 80GB HBM3");
	ck_assert_ptr_null(res.hosts[1].gpus[0].bus_id); /* "[0x04]": the bus alone is not a bus id */
	ck_assert_int_eq(res.hosts[0].part[CD_PART_GPU].status, CD_ST_SKIPPED);
	ck_assert_ptr_nonnull(strstr(res.hosts[0].host_id_source, "t.log"));
	/* the record */
	ck_assert_uint_eq(res.run.n_imports, 1);
	ck_assert_str_eq(res.run.imports[0].file, "t.log");
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "all_reduce");
	ck_assert_int_eq(res.run.imports[0].rows, 2);
	ck_assert_int_eq(res.run.imports[0].out_of_bounds, 7);
	ck_assert_int_eq(res.run.imports[0].complete, CD_TRI_TRUE);
	ck_assert_int_eq(res.run.imports[0].other_lines, 1); /* the command line */
}
END_TEST

/* 2.x before the root column and #wrong: "error" is a maximum deviation, not a count. */
START_TEST(test_old_layout)
{
	const char *log = "#       size         count      type   redop     time   algbw   busbw  error     time   algbw"
			  "   busbw  error\n"
			  "        4096          1024     float     sum    93.73    0.04    0.09  1e-06    93.15    0.04"
			  "    0.09  1e-06\n"
			  "# Out of bounds values : 3 FAILED\n";
	const struct cd_probe_run *p;

	/* unnamed: busbw/algbw 0.09/0.04, rounded, fits only 2(n-1)/n with n >= 9, and redop sum */
	ck_assert_int_eq(imp(log, NULL), 1);
	ck_assert_ptr_null(err);
	ck_assert_ptr_nonnull(probe("nccl.all_reduce", "out_of_place"));
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "all_reduce");
	ck_assert_ptr_nonnull(strstr(res.run.imports[0].collective_from.v[0], "inferred from the table"));
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp(log, "all_reduce"), 1);
	p = probe("nccl.all_reduce", "out_of_place");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->samples[0].errors, CD_NULL_I64);
	ck_assert_double_eq_tol(p->samples[0].time_us, 93.73, 1e-9);
	/* no count per size: the footer's failure marks the run */
	ck_assert_int_eq(p->status, CD_ST_ERROR);
	ck_assert_ptr_nonnull(strstr(p->reason, "3 out-of-bounds"));
}
END_TEST

/* No column names at all, root present: inferred from the field count; root >= 0 names the collective. */
START_TEST(test_inferred_broadcast)
{
	const char *log = "     1048576        262144     float    none       0    40.10   26.15   26.15      0    39.80"
			  "   26.35   26.35      0\n";

	ck_assert_int_eq(imp(log, NULL), 1);
	ck_assert_ptr_nonnull(probe("nccl.broadcast", "in_place"));
	ck_assert_int_eq(probe("nccl.broadcast", "out_of_place")->samples[0].errors, 0);
}
END_TEST

/* srun -l, mpirun --tag-output and "[N]" tags spliced into a row; other programs' lines. */
START_TEST(test_prefixes_and_interleaving)
{
	const char *log =
		"0: # nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20\n"
		"0: #  Rank  0 Group  0 Pid 1 on h1 device  0 [0000:1b:00] NVIDIA A100-SXM4-80GB\n"
		"1: #  Rank  1 Group  0 Pid 2 on h2 device  0 [0000:1b:00] NVIDIA A100-SXM4-80GB\n"
		"h1:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
		"[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     "
		"time   algbw   busbw #wrong\n"
		"[1,0]<stdout>:           8             2     float     sum      -1    12.90    0.00    0.00      0    "
		"12.87    0.00    0.00      0\n"
		"[0]          16             4     float     sum      -1[0]    12.88    0.00    0.00      0[0]    12.83"
		"    0.00    0.00      0\n"
		"0: # Out of bounds values : 0 OK\n";

	ck_assert_int_eq(imp(log, "all_reduce"), 2);
	ck_assert_uint_eq(res.n_hosts, 2);
	ck_assert_int_eq(probe("nccl.all_reduce", "in_place")->samples[1].bytes, 16);
	ck_assert_double_eq_tol(probe("nccl.all_reduce", "in_place")->samples[1].time_us, 12.83, 1e-9);
	ck_assert_int_eq(res.run.imports[0].other_lines, 1);
	ck_assert_int_eq(res.run.imports[0].skipped_lines, 0);
}
END_TEST

/* A log cut mid-table: the rows before the cut are imported, the cut line is named. */
START_TEST(test_truncated)
{
	const char *log = "./all_gather_perf -g 8\n" HEADER_2_13
			  "           8             2     float    none      -1    42.56    0.00    0.00      0\n"
			  "          16             4     float    none      -1    42.00\n"
			  "          32             8\n";

	ck_assert_int_eq(imp(log, NULL), 1);
	ck_assert_ptr_nonnull(probe("nccl.all_gather", "out_of_place"));
	ck_assert_ptr_null(probe("nccl.all_gather", "in_place"));
	ck_assert_int_eq(res.run.imports[0].skipped_lines, 2);
	ck_assert_uint_eq(res.run.imports[0].n_first_skipped, 2);
	ck_assert_int_eq(res.run.imports[0].first_skipped[0], 12);
	ck_assert_int_eq(res.run.imports[0].complete, CD_TRI_FALSE);
}
END_TEST

START_TEST(test_bad_number)
{
	const char *log = "./all_reduce_perf\n" HEADER_2_13
			  "           8             2     float     sum      -1    1.2.3    0.00    0.00      0    123.5"
			  "    0.00    0.00      0\n";

	ck_assert_int_eq(imp(log, NULL), -1);
	ck_assert_ptr_nonnull(strstr(err, "t.log:11: '1.2.3' is not a number (time of the out-of-place"));
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp("./all_reduce_perf\n" HEADER_2_13 "  8  2  float  sum  -1  1.0  0.0  0.0  x  1.0  0.0  0.0  0\n",
			     NULL),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "'x' is not a count of wrong elements"));
}
END_TEST

START_TEST(test_nothing)
{
	ck_assert_int_eq(imp("", NULL), 0);
	ck_assert_int_eq(imp("hello\nNCCL INFO something\n# nThread 1 nGpus 1\n", NULL), 0);
	ck_assert_uint_eq(res.n_probes, 0);
}
END_TEST

/* Two tests in one file, each named by its "Collective test starting" line. */
START_TEST(test_fixture_two_tests)
{
	FILE *f = fopen("tests/data/nccl-tests/multi-coll-h100-xxrjun.log", "re");
	size_t len = 0;
	char *text;

	ck_assert_ptr_nonnull(f);
	text = cd_read_file(f, 1 << 20, &len);
	fclose(f);
	ck_assert_int_eq(cd_import_nccltests(&res, text, len, "x.log", NULL, &err), 20);
	free(text);
	ck_assert_ptr_nonnull(probe("nccl.alltoall", "out_of_place"));
	ck_assert_ptr_nonnull(probe("nccl.sendrecv", "in_place"));
	ck_assert_int_eq(probe("nccl.sendrecv", "in_place")->samples[0].errors, CD_NULL_I64);
	ck_assert_uint_eq(res.n_hosts, 2);
	ck_assert_uint_eq(res.hosts[1].n_gpus, 2);
	ck_assert_int_eq(res.run.imports[0].tests, 2);
}
END_TEST

START_TEST(test_json)
{
	const char *doc =
		"{\"version\":3,\"args\":[\"/opt/nccl-tests/build/reduce_scatter_perf\",\"-g\",\"2\"],"
		"\"nccl_version\":22705,\"config\":{\"iterations\":50,\"devices\":[{\"rank\":0,\"hostname\":\"n1\","
		"\"device\":0,\"device_hex\":\"0000:1b:00\",\"device_info\":\"NVIDIA H200\"},{\"rank\":1,\"hostname\":"
		"\"n1\",\"device\":1,\"device_hex\":\"0x43\",\"device_info\":\"NVIDIA H200\"}]},\"results\":["
		"{\"size\":1024,\"redop\":\"sum\",\"root\":\"    -1\",\"out_of_place\":{\"time\":10.5,\"alg_bw\":0.1,"
		"\"bus_bw\":0.05,\"nwrong\":2.0},\"in_place\":{\"time\":\"nan\",\"alg_bw\":\"nan\",\"bus_bw\":\"nan\","
		"\"nwrong\":null}}],\"out_of_bounds\":{\"count\":2,\"okay\":\"false\"}}";
	const struct cd_probe_run *p;

	ck_assert_int_eq(imp(doc, NULL), 1);
	p = probe("nccl.reduce_scatter", "out_of_place");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(probe("nccl.reduce_scatter", "in_place"));
	ck_assert_int_eq(p->samples[0].errors, 2);
	ck_assert_int_eq(p->samples[0].iters, 50);
	ck_assert_str_eq(res.hosts[0].versions.nccl, "2.27.5");
	ck_assert_str_eq(res.hosts[0].gpus[0].bus_id, "0000:1b:00.0");
	ck_assert_str_eq(res.run.imports[0].format, "nccl-tests json");
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp("{\"results\":[{\"size\":\"big\"}]}", NULL), -1);
	ck_assert_str_eq(err, "t.log: results[0].size: expected a whole number of bytes");
	/* above 2^53 the document could not hold it exactly, nor load it back (found by fuzz_import) */
	ck_assert_int_eq(imp("{\"results\":[{\"size\":21073741868435456}]}", NULL), -1);
	ck_assert_str_eq(err, "t.log: results[0].size: expected a whole number of bytes");
	ck_assert_int_eq(imp("{\"results\":[{\"size\":8,\"out_of_place\":{\"time\":true}}]}", NULL), -1);
	ck_assert_str_eq(err, "t.log: results[0].out_of_place.time: expected a number");
	ck_assert_int_eq(imp("{\"results\": [", NULL), -1);
	ck_assert_ptr_nonnull(strstr(err, "not valid JSON"));
}
END_TEST

START_TEST(test_arbitrary_bytes)
{
	char buf[512];
	unsigned seed = 7;

	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (char)(" 0123456789.#-\n[]:abfloatsumN/A"[(seed >> 16) % 32]);
		}
		free(err);
		err = NULL;
		(void)cd_import_nccltests(&res, buf, sizeof(buf), "r.log", "all_reduce", &err);
	}
}
END_TEST

Suite *import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("nccl-tests");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_current_layout);
	tcase_add_test(tc, test_old_layout);
	tcase_add_test(tc, test_inferred_broadcast);
	tcase_add_test(tc, test_prefixes_and_interleaving);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_bad_number);
	tcase_add_test(tc, test_nothing);
	tcase_add_test(tc, test_fixture_two_tests);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_arbitrary_bytes);
	suite_add_tcase(s, tc);
	return s;
}
