/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests output to probe results: layouts of several versions, prefixes, cuts, bad numbers, JSON. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_nccltests.h"
#include "import_nccltests_infer.h"
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

/* ---- issue 21: the collective told from a table that does not name it ---- */

#define HEAD_213                                                                                               \
	"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw " \
	"  busbw #wrong\n"

/* all_gather and alltoall print the same columns and factor: both kept, the ranks from the sizes */
START_TEST(test_infer_candidates)
{
	const char *log = HEAD_213 "    33554432       1048576    double    none      -1   109.62  306.10  229.58       0"
				   "   107.36  312.55  234.41       0\n"
				   "  8589934592     268435456    double    none      -1  18515.0  463.94  347.96       0"
				   "  18008.3  477.00  357.75       0\n";
	const struct cd_probe_run *p;

	ck_assert_int_eq(imp(log, NULL), 2);
	p = probe("nccl.all_gather|alltoall", "out_of_place");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->nranks, 4); /* size = 4 x count x 8 B */
	ck_assert_double_eq_tol(p->samples[1].busbw_gbyte_s, 347.96, 1e-9);
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "all_gather|alltoall");
	ck_assert_ptr_nonnull(strstr(res.run.imports[0].collective_from.v[0], "candidates from the table"));
	ck_assert_ptr_nonnull(strstr(res.run.imports[0].collective_from.v[0], "size = 4 x count"));
	/* --collective names it */
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp(log, "alltoall"), 2);
	ck_assert_ptr_nonnull(probe("nccl.alltoall", "in_place"));
	ck_assert_str_eq(res.run.imports[0].collective_from.v[0], "--collective");
}
END_TEST

/* One answer where the columns and the factor leave one: reduce_scatter, all_reduce with its ranks */
START_TEST(test_infer_single)
{
	const char *rs = HEAD_213 "    33554432       1048576    double     sum      -1   110.27  304.30  228.22       0"
				  "   108.21  310.09  232.57       0\n";
	const char *ar = HEAD_213 "  8589934592    2147483648     float     sum      -1    20299  423.16  834.57      0"
				  "    20006  429.37  846.82      0\n";

	ck_assert_int_eq(imp(rs, NULL), 1);
	ck_assert_ptr_nonnull(probe("nccl.reduce_scatter", "out_of_place"));
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp(ar, NULL), 1);
	ck_assert_ptr_nonnull(probe("nccl.all_reduce", "out_of_place"));
	/* 834.57/423.16 printed to 2 decimals: 2(n-1)/n holds for n = 72 alone */
	ck_assert_int_eq(probe("nccl.all_reduce", "out_of_place")->nranks, 72);
	ck_assert_ptr_nonnull(strstr(res.run.imports[0].collective_from.v[0], "72 ranks (from busbw/algbw)"));
}
END_TEST

/* sendrecv looks like all_reduce on 2 ranks; the rank count stays unknown without rank lines */
START_TEST(test_infer_sendrecv_ambiguous)
{
	const char *log = HEAD_213 "   536870912     134217728     float     sum      -1  11591.0   46.32   46.32       0"
				   "  11556.7   46.46   46.46       0\n";

	ck_assert_int_eq(imp(log, NULL), 1);
	ck_assert_ptr_nonnull(probe("nccl.all_reduce|sendrecv", "out_of_place"));
	ck_assert_int_eq(probe("nccl.all_reduce|sendrecv", "out_of_place")->nranks, CD_NULL_I64);
}
END_TEST

/* Layouts before 2.13: each test its own columns (print_line_header of each test at v2.11.0). */
START_TEST(test_infer_old_layouts)
{
	/* alltoall: a redop heading over an empty field */
	const char *a2a = "#       size         count      type   redop     time   algbw   busbw  error     time   algbw"
			  "   busbw  error\n"
			  "   268435456       1048576     float           520935    0.52    0.51  0e+00   519562    0.52"
			  "    0.51  1e+00\n";
	/* sendrecv: neither redop nor root */
	const char *sr = "#       size         count      type     time   algbw   busbw  error     time   algbw   busbw"
			 "  error\n"
			 "    33554432       8388608     float    837.47   40.07   40.07  0e+00    849.70   39.49   39.49"
			 "  0e+00\n";
	/* broadcast: a root, no redop */
	const char *bc = "#       size         count    type    root     time   algbw   busbw  error     time   algbw"
			 "   busbw  error\n"
			 "     1048576        262144   float       0    40.10   26.15   26.15    N/A    39.80   26.35"
			 "   26.35    N/A\n";

	ck_assert_int_eq(imp(a2a, NULL), 1);
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "alltoall");
	ck_assert_int_eq(probe("nccl.alltoall", "out_of_place")->nranks, 64);
	ck_assert_int_eq(probe("nccl.alltoall", "in_place")->samples[0].errors, CD_NULL_I64);
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp(sr, NULL), 1);
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "sendrecv");
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp(bc, NULL), 1);
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "broadcast");
}
END_TEST

/* Timestamps before lines and after rows (-T), pdsh host prefixes, repeated "Rank 0" of separate jobs. */
START_TEST(test_stamps_hosts_ranks)
{
	const char *log =
		"[2024-05-01 12:00:00] #  Rank  0 Pid   1320 on nodeA device  0 [0x00] Tesla V100-SXM2-16GB\n"
		"2024-05-01T12:00:00.123 #  Rank  0 Pid   2066 on nodeB device  0 [0x00] Tesla V100-SXM2-16GB\n"
		"nodeA: " HEAD_213
		"2024-05-01 12:00:01,5 nodeA:    1048576        262144     float     sum      -1    28.15   37.25   65.19"
		"      0    27.52   38.10   66.67      0  2025-10-28 12:00:01\n";
	const struct cd_probe_run *p;

	ck_assert_int_eq(imp(log, NULL), 1);
	p = probe("nccl.all_reduce", "out_of_place");
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq_tol(p->samples[0].busbw_gbyte_s, 65.19, 1e-9);
	ck_assert_int_eq(probe("nccl.all_reduce", "in_place")->samples[0].errors, 0);
	/* the two "Rank 0" lines say 1 rank, which busbw/algbw 1.75 contradicts: the numbers decide */
	ck_assert_int_eq(p->nranks, 8);
	ck_assert_ptr_nonnull(strstr(res.run.imports[0].collective_from.v[0], "rank lines' count did not fit"));
	ck_assert_uint_eq(res.run.imports[0].hosts.n, 2);
	ck_assert_str_eq(res.run.imports[0].hosts.v[1], "nodeB");
}
END_TEST

/* Columns that fit no collective's factor: still imported, under every candidate the columns allow. */
START_TEST(test_infer_no_factor)
{
	const char *log = HEAD_213 "     1048576        262144     float     sum      -1    28.15   37.25   99.99       0"
				   "    27.52   38.10   99.99      0\n";

	ck_assert_int_eq(imp(log, NULL), 1);
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "all_reduce|sendrecv");
	ck_assert_ptr_nonnull(strstr(res.run.imports[0].collective_from.v[0], "fits no nccl-tests factor"));
}
END_TEST

/* -J JSON whose args do not name the binary: told from its rows like a table. */
START_TEST(test_infer_json)
{
	const char *doc = "{\"results\":[{\"size\":1073741824,\"count\":268435456,\"type\":\"float\",\"redop\":\"sum\","
			  "\"root\":\"    -1\",\"out_of_place\":{\"time\":9371.6,\"alg_bw\":114.574000,\"bus_bw\":"
			  "200.504500,\"nwrong\":0}}]}";

	ck_assert_int_eq(imp(doc, NULL), 1);
	ck_assert_ptr_nonnull(probe("nccl.all_reduce", "out_of_place"));
	ck_assert_int_eq(probe("nccl.all_reduce", "out_of_place")->nranks, 8);
}
END_TEST

/* Two tables pasted one after the other (nccl-tests#78): two tests, each told from its own columns. */
START_TEST(test_two_pasted_tables)
{
	FILE *a = fopen("tests/data/nccl-tests/corpus/nccl-tests-78-allreduce-old.log", "re"),
	     *b = fopen("tests/data/nccl-tests/corpus/nccl-tests-78-alltoall-old.log", "re");
	size_t la = 0, lb = 0;
	char *ta, *tb, *both;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ta = cd_read_file(a, 1 << 20, &la);
	tb = cd_read_file(b, 1 << 20, &lb);
	fclose(a);
	fclose(b);
	/* the footers out: only the column names line tells where the second table starts */
	both = xasprintf("%.*s%.*s", (int)(strstr(ta, "# Out of") - ta), ta, (int)(strstr(tb, "# Out of") - tb), tb);
	ck_assert_int_eq(imp(both, NULL), 4);
	ck_assert_uint_eq(res.run.imports[0].collectives.n, 2);
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "all_reduce");
	ck_assert_str_eq(res.run.imports[0].collectives.v[1], "alltoall");
	free(ta);
	free(tb);
	free(both);
}
END_TEST

/* nccl#340: rows and footer of one test, then the next binary's command line and header. */
START_TEST(test_next_command_line)
{
	const char *log = "      65536          8192   float    16.57    1.98    1.98  0e+00    13.83    2.37    2.37  0e+00\n"
			  "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 6.6972 \n\n"
			  "./broadcast_perf -b 8 -e 128M -f 2 -g 2\n"
			  "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20\n"
			  "           8             2   float       0    45.82    0.00    0.00    N/A    38.17    0.00"
			  "    0.00    N/A\n"
			  "# Avg bus bandwidth    : 0 \n"
			  "          16             4   float       0    45.82    0.00    0.00    N/A    38.17    0.00"
			  "    0.00    N/A\n";

	ck_assert_int_eq(imp(log, NULL), 3);
	ck_assert_uint_eq(res.run.imports[0].collectives.n, 3);
	/* the command line names the test after it, not the rows before it */
	ck_assert_str_eq(res.run.imports[0].collectives.v[0], "all_gather|hypercube");
	ck_assert_str_eq(res.run.imports[0].collectives.v[1], "broadcast");
	ck_assert_str_eq(res.run.imports[0].collective_from.v[1], "named in the log (broadcast_perf)");
	/* a row after the "Avg bus bandwidth" line: another test, told from its own columns */
	ck_assert_str_eq(res.run.imports[0].collectives.v[2], "broadcast");
	ck_assert_ptr_nonnull(strstr(res.run.imports[0].collective_from.v[2], "inferred"));
}
END_TEST

/* -I: per-iteration columns after each variant's #wrong, with and without the column names. */
START_TEST(test_per_iteration_columns)
{
	const char *row = "     1048576        262144     float     sum      -1    28.15   37.25   65.19      0    27.90"
			  "    29.01    28.99     1.20    27.52   38.10   66.67      0    27.40    28.00    27.98     0.90\n";
	char *named = xasprintf("#       size         count      type   redop    root     time   algbw   busbw  #wrong"
				"    i_min    i_max    i_p99    i_cv%%     time   algbw   busbw  #wrong    i_min    i_max"
				"    i_p99    i_cv%%\n%s",
				row);

	ck_assert_int_eq(imp(row, "all_reduce"), 1);
	ck_assert_double_eq_tol(probe("nccl.all_reduce", "in_place")->samples[0].busbw_gbyte_s, 66.67, 1e-9);
	cd_results_free(&res);
	cd_results_init(&res);
	ck_assert_int_eq(imp(named, "all_reduce"), 1);
	ck_assert_double_eq_tol(probe("nccl.all_reduce", "in_place")->samples[0].time_us, 27.52, 1e-9);
	free(named);
}
END_TEST

START_TEST(test_print_tol_and_types)
{
	ck_assert_double_eq_tol(cd_nt_print_tol("1.50"), 0.005, 1e-12);
	ck_assert_double_eq_tol(cd_nt_print_tol("1234.5"), 0.05, 1e-12);
	ck_assert_double_eq_tol(cd_nt_print_tol("10094"), 0.5, 1e-12);
	ck_assert_double_eq_tol(cd_nt_print_tol("1e+03"), 500, 1e-9);
	ck_assert_double_eq_tol(cd_nt_print_tol("1.2e+04"), 500, 1e-9);
	ck_assert_int_eq(cd_nt_type_size("bfloat16"), 2);
	ck_assert_int_eq(cd_nt_type_size("double"), 8);
	ck_assert_int_eq(cd_nt_type_size("f8e5m2"), 1);
	ck_assert_int_eq(cd_nt_type_size("quad"), 0);
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
	tcase_add_test(tc, test_infer_candidates);
	tcase_add_test(tc, test_infer_single);
	tcase_add_test(tc, test_infer_sendrecv_ambiguous);
	tcase_add_test(tc, test_infer_old_layouts);
	tcase_add_test(tc, test_stamps_hosts_ranks);
	tcase_add_test(tc, test_infer_no_factor);
	tcase_add_test(tc, test_infer_json);
	tcase_add_test(tc, test_print_tol_and_types);
	tcase_add_test(tc, test_two_pasted_tables);
	tcase_add_test(tc, test_next_command_line);
	tcase_add_test(tc, test_per_iteration_columns);
	tcase_add_test(tc, test_arbitrary_bytes);
	suite_add_tcase(s, tc);
	return s;
}
