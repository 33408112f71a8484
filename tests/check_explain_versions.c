/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's version table (rules/versions.catalog): its parser and refusals with the line,
 * the lookups, and what explain makes of the versions a log shows. The log lines follow
 * NCCL v2.21.5-1's formats (src/debug.cc "%s:%d:%d [%d] NCCL INFO ", src/init.cc
 * VERSION_STRING "NCCL version 2.21.5+cuda12.4", src/misc/cudawrap.cc "cudaDriverVersion %d"),
 * PyTorch's torch/cuda/__init__.py capability warning, and nvidia-smi's header.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain.h"
#include "explain_versions.h"
#include "suites.h"

static struct cd_results res;

static void setup(void)
{
	cd_results_init(&res);
}

static void teardown(void)
{
	cd_results_free(&res);
}

/* Parse text as a table; the error printed, if any, into err. */
static int parse_table(struct cd_vers_db *db, const char *text, char *err, size_t len)
{
	FILE *t = tmpfile();
	int fd = dup(2), rc;
	size_t n;

	ck_assert_ptr_nonnull(t);
	fflush(stderr);
	dup2(fileno(t), 2);
	rc = cd_vers_parse(db, text, strlen(text), "t.versions");
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	rewind(t);
	n = fread(err, 1, len - 1, t);
	err[n] = '\0';
	fclose(t);
	return rc;
}

START_TEST(test_table_refused)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "# a comment\nnccl-build 2.18.1 2.24.3 11.0 11.8 35,50 80\n", "t.versions:2: a row without its source" },
		{ "\n\nnccl-build 2.18 2.24.3 11.0 11.8 35,50 80 | s\n", "t.versions:3: expected an NCCL release" },
		{ "nccl-build 2.24.3 2.18.1 11.0 11.8 35,50 80 | s\n", "t.versions:1: expected an NCCL release no older" },
		{ "nccl-build 2.18.1 2.24.3 11.8 11.0 35,50 80 | s\n", "t.versions:1: expected '-' or a CUDA version" },
		{ "nccl-build 2.18.1 2.24.3 11 - 35,50 80 | s\n", "t.versions:1: expected a CUDA version" },
		{ "nccl-build 2.18.1 2.24.3 11.0 - 35,sm_50 80 | s\n", "t.versions:1: expected a list of architectures" },
		/* the fuzzer's (CI, session 16): a list of no architecture was accepted */
		{ "nccl-build 2.27.3 2.27.3 13.0 - , 120 | N\n", "t.versions:1: expected a list of architectures" },
		{ "nccl-build 2.18.1 2.24.3 11.0 - 35,50 | s\n", "t.versions:1: expected 'nccl-build FIRST" },
		{ "nccl-build 2.18.1 2.24.3 11.0 - 35,50 8 | s\n", "t.versions:1: expected the PTX architecture" },
		{ "nccl-driver 2.18.1 2.30.7 11.3 init | s\n", "t.versions:1: expected a driver API version" },
		{ "cuda-driver 12 5.25 | s\n", "t.versions:1: expected a Linux driver version" },
		{ "cuda-driver twelve 525 | s\n", "t.versions:1: expected a CUDA major release" },
		{ "cuda-header 13.0 | s\n", "t.versions:1: expected a CUDA_VERSION" },
		{ "nccl-arch 2.18.1 | s\n", "t.versions:1: expected a row kind" },
		{ "cuda-driver 12 525 |   \n", "t.versions:1: a row without its source" },
		{ "# only comments\n\n", "t.versions': no row" },
	};
	struct cd_vers_db db;
	char err[512];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_msg(parse_table(&db, bad[i].text, err, sizeof(err)) == -1, "accepted: %s", bad[i].text);
		ck_assert_uint_eq(db.n, 0);
		ck_assert_msg(strstr(err, bad[i].want), "for %s: said '%s', want '%s'", bad[i].text, err, bad[i].want);
	}
	ck_assert_int_eq(parse_table(&db, "cuda-driver 12 525 | NVIDIA's table\n", err, sizeof(err)), 0);
	ck_assert_uint_eq(db.n, 1);
	ck_assert_str_eq(db.v[0].source, "NVIDIA's table");
	ck_assert_int_eq(db.v[0].line, 1);
	cd_vers_free(&db);
}
END_TEST

/* The embedded table: every row parses, and the lookups give what NCCL's makefiles say. */
START_TEST(test_lookups)
{
	const struct cd_vers_db *db = cd_vers_default();
	const struct cd_vers_row *r;
	size_t kinds[4] = { 0 };

	ck_assert_ptr_nonnull(db);
	for (size_t i = 0; i < db->n; i++) {
		kinds[db->v[i].kind]++;
		ck_assert_msg(db->v[i].source && *db->v[i].source, "row %d without a source", db->v[i].line);
	}
	ck_assert_uint_eq(kinds[CD_VERS_BUILD], 15);
	ck_assert_uint_eq(kinds[CD_VERS_NCCL_DRIVER], 4);
	ck_assert_uint_eq(kinds[CD_VERS_CUDA_DRIVER], 3);
	ck_assert_uint_eq(kinds[CD_VERS_HEADER], 1);

	/* 2.21.5 with CUDA 12.4: sm_90 machine code and PTX compute_90 */
	r = cd_vers_build(db, 22105, 12040);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(cd_vers_runs_on(r, 90), 2);
	ck_assert_int_eq(cd_vers_runs_on(r, 89), 2);  /* sm_80 machine code runs on 8.9 */
	ck_assert_int_eq(cd_vers_runs_on(r, 120), 1); /* only through PTX */
	ck_assert_int_eq(cd_vers_runs_on(r, 35), 0);  /* sm_35 left out from CUDA 12.0 */
	/* 2.21.5 with CUDA 11.7: no Hopper */
	ck_assert_int_eq(cd_vers_runs_on(cd_vers_build(db, 22105, 11070), 90), 1);
	ck_assert_int_eq(cd_vers_runs_on(cd_vers_build(db, 22105, 11070), 35), 2);
	/* Blackwell from 2.25.1 with CUDA 12.8; sm_121 runs sm_120's code, sm_103 sm_100's */
	r = cd_vers_first_for(db, 120);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->first, 22501);
	ck_assert_int_eq(r->cuda_from, 12080);
	ck_assert_int_eq(cd_vers_first_for(db, 121)->first, 22501);
	ck_assert_int_eq(cd_vers_first_for(db, 103)->first, 22501);
	ck_assert_int_eq(cd_vers_first_for(db, 110)->first, 22705); /* Thor: 2.27.5 with CUDA 13 */
	ck_assert_int_eq(cd_vers_first_for(db, 110)->cuda_from, 13000);
	ck_assert_ptr_null(cd_vers_first_for(db, 130));
	/* 2.27.3 with CUDA 13 dropped sm_75; 2.27.5 took it back; 2.28 dropped sm_50 */
	ck_assert_int_eq(cd_vers_runs_on(cd_vers_build(db, 22703, 13000), 75), 0);
	ck_assert_int_eq(cd_vers_runs_on(cd_vers_build(db, 22705, 13000), 75), 2);
	ck_assert_int_eq(cd_vers_runs_on(cd_vers_build(db, 22803, 12080), 50), 0);
	ck_assert_int_eq(cd_vers_last_for(db, 50)->last, 22707);
	ck_assert_ptr_null(cd_vers_build(db, 21705, 12040)); /* 2.17 is not in the table */
	ck_assert_ptr_null(cd_vers_build(db, 22105, 10020));
	/* drivers */
	ck_assert_str_eq(cd_vers_cuda_driver(db, 12)->min_driver, "525");
	ck_assert_str_eq(cd_vers_cuda_driver(db, 11)->min_driver, "450.80.02");
	ck_assert_ptr_null(cd_vers_cuda_driver(db, 10));
	ck_assert_int_eq(cd_vers_nccl_driver(db, 22105, "init")->min_api, 11030);
	ck_assert_int_eq(cd_vers_nccl_driver(db, 23007, "one-sided-rma")->min_api, 12050);
	ck_assert_ptr_null(cd_vers_nccl_driver(db, 22105, "one-sided-rma"));
	ck_assert_int_lt(cd_vers_driver_cmp("470.182.03", "525"), 0);
	ck_assert_int_gt(cd_vers_driver_cmp("535.104.05", "525"), 0);
	ck_assert_int_eq(cd_vers_driver_cmp("525.0", "525"), 0);
	ck_assert_int_lt(cd_vers_driver_cmp("450.36.06", "450.80.02"), 0);
}
END_TEST

static const struct cd_finding *finding(const char *id, const char *subject)
{
	for (size_t i = 0; i < res.n_findings; i++)
		if (!strcmp(res.findings[i].id, id) && (!subject || (res.findings[i].subject &&
								     !strcmp(res.findings[i].subject, subject))))
			return &res.findings[i];
	return NULL;
}

static int evidence_has(const struct cd_finding *f, const char *s)
{
	for (size_t i = 0; f && i < f->evidence.n; i++)
		if (strstr(f->evidence.v[i], s))
			return 1;
	return 0;
}

static const struct cd_advice *advice_has(const char *s)
{
	for (size_t i = 0; i < res.n_advice; i++)
		if (res.advice[i].value && strstr(res.advice[i].value, s))
			return &res.advice[i];
	return NULL;
}

static int version_findings(void)
{
	int n = 0;

	for (size_t i = 0; i < res.n_findings; i++)
		n += res.findings[i].subject && (strstr(res.findings[i].subject, "sm_") ||
						 strstr(res.findings[i].subject, "driver") ||
						 strstr(res.findings[i].subject, "cuda build"));
	return n;
}

static void parse(const char *text)
{
	cd_explain_parse(&res, text, strlen(text), "t.log");
}

START_TEST(test_arch_too_new)
{
	const struct cd_finding *f;

	parse("gpu5090:4242:4242 [0] NCCL INFO cudaDriverVersion 12080\n"
	      "gpu5090:4242:4242 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
	      "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
	      "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
	      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n");
	f = finding("LOG024", "nccl sm_120");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CD_SEV_FAIL); /* PTX only, and the log shows a kernel-image failure */
	ck_assert_ptr_nonnull(strstr(f->title, "NCCL 2.21.5 built with CUDA 12.4"));
	ck_assert(evidence_has(f, "versions.catalog:"));
	ck_assert_ptr_nonnull(advice_has("upgrade NCCL to 2.25.1 or later, built with CUDA 12.8"));
	f = finding("LOG024", "pytorch sm_120");
	ck_assert_ptr_nonnull(f);
	ck_assert(evidence_has(f, "supports CUDA capabilities"));
	ck_assert_ptr_nonnull(advice_has("PyTorch build made with CUDA 12.8 or later"));
	/* without the failure, PTX may still run: a warning */
	teardown();
	setup();
	parse("n1:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
	      "<gpu dev=\"0\" sm=\"120\" rank=\"0\" gdr=\"1\">\n");
	f = finding("LOG024", "nccl sm_120");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
}
END_TEST

/* An architecture a newer build dropped: NCCL 2.28.9 built with CUDA 13.0 on a V100. */
START_TEST(test_arch_dropped)
{
	const struct cd_finding *f;

	parse("v100:7:7 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	      "GPU 0: Tesla V100-SXM2-32GB, compute capability 7.0\n");
	f = finding("LOG024", "nccl sm_70");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_ptr_nonnull(advice_has("use an NCCL built with CUDA 12.8 up to before 13.0"));
}
END_TEST

/* A fresh parse of log: its "cuda driver" finding (LOG024), whose title must hold title. */
static const struct cd_finding *driver_finding(const char *log, const char *title)
{
	const struct cd_finding *f;

	teardown();
	setup();
	parse(log);
	f = finding("LOG024", "cuda driver");
	ck_assert_msg(f && strstr(f->title, title), "no LOG024 cuda driver \"%s\" from:\n%s", title, log);
	return f;
}

START_TEST(test_driver_too_old)
{
	const struct cd_finding *f;

	driver_finding("| NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4     |\n"
		       "node7:311:311 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n",
		       "supports CUDA 11.4; NCCL was built with CUDA 12.4");
	ck_assert_ptr_nonnull(advice_has("upgrade the NVIDIA driver to 525 or later"));
	/* the driver string alone, from PyTorch's collect_env */
	driver_finding("PyTorch version: 2.5.1+cu124\nNvidia driver version: 470.182.03\n",
		       "NVIDIA driver 470.182.03 is older than CUDA 12.x needs (525)");
	/* PyTorch's own refusal (torch/cuda/__init__.py), the build's CUDA not shown */
	driver_finding("RuntimeError: The NVIDIA driver on your system is too old (found version 12080). Please update your "
		       "GPU driver by downloading and installing a new version from the URL: "
		       "http://www.nvidia.com/Download/index.aspx\n",
		       "the NVIDIA driver (CUDA 12.8) is too old for PyTorch's CUDA runtime");
	ck_assert_ptr_nonnull(advice_has("CUDA 13.x needs 580 or later"));
	/* nvidia-smi -q's layout */
	driver_finding("    Driver Version                            : 470.182.03\n"
		       "    CUDA Version                              : 11.4\n"
		       "n:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n",
		       "supports CUDA 11.4; NCCL was built with CUDA 12.3");
	/* below what NCCL itself asks of the driver */
	f = driver_finding("n:1:1 [0] NCCL INFO cudaDriverVersion 11020\nn:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda11.0\n",
			   "older than NCCL 2.18.3 needs (11.3)");
	/* NCCL carries on without its driver-API features: a warning, not the cause of a failure */
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
	/* the API number from nvbandwidth's header alone (output.cpp), integer and dotted */
	driver_finding("CUDA Runtime Version: 11020\nCUDA Driver Version: 11020\nDriver Version: 460.32.03\n"
		       "n:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda11.0\n",
		       "older than NCCL 2.18.3 needs (11.3)");
	driver_finding("CUDA Driver Version: 11.2\nn:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda11.0\n", "");
}
END_TEST

START_TEST(test_skew)
{
	const struct cd_finding *f;

	parse("nodeA:10:10 [0] NCCL INFO cudaDriverVersion 12040\n"
	      "nodeA:10:10 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
	      "nodeB:20:20 [0] NCCL INFO cudaDriverVersion 12020\n"
	      "nodeB:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.1\n");
	f = finding("LOG009", "cuda driver api");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->host, "nodeB");
	ck_assert(evidence_has(f, "nodeA has cuda driver api 12.4, nodeB has 12.2"));
	ck_assert_ptr_nonnull(finding("LOG009", "nccl cuda build"));
	ck_assert_ptr_null(finding("LOG024", NULL));
	/* two ranks of one host (no prefixes) that report different drivers */
	teardown();
	setup();
	parse("[rank0]: | NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
	      "[rank1]: | NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4     |\n");
	f = finding("LOG009", "nvidia driver");
	ck_assert_ptr_nonnull(f);
	ck_assert(evidence_has(f, "report nvidia driver 535.104.05 and 550.54.15"));
}
END_TEST

/* Everything consistent: no version finding at all. */
START_TEST(test_healthy)
{
	parse("| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4     |\n"
	      "nodeA:10:10 [0] NCCL INFO cudaDriverVersion 12040\n"
	      "nodeA:10:10 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
	      "nodeB:20:20 [0] NCCL INFO cudaDriverVersion 12040\n"
	      "nodeB:20:20 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
	      "<gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"1\">\n"
	      "CUDA Driver Version / Runtime Version          12.4 / 12.4\n"
	      /* nvbandwidth's header (output.cpp): the API number is not the NVIDIA driver's release */
	      "CUDA Runtime Version: 12040\n"
	      "CUDA Driver Version: 12040\n"
	      "Driver Version: 550.54.15\n");
	ck_assert_int_eq(version_findings(), 0);
	ck_assert_ptr_null(finding("LOG024", NULL));
	ck_assert_ptr_null(finding("LOG009", NULL));
}
END_TEST

/* The reader alone: which lines it takes, and what it must not. */
START_TEST(test_reader)
{
	const struct cd_vers_db *db = cd_vers_default();
	struct cd_vers_log *l = cd_vers_log_new();
	struct cd_vers_verdict v[8];

	ck_assert_int_eq(cd_vers_log_line(l, "h", 0, "h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4"), 1);
	ck_assert_int_eq(cd_vers_log_line(l, "h", 0, "h:1:1 [0] NCCL INFO Channel 00/02 : 0 1"), 0);
	/* deviceQuery's driver/runtime line is not nvidia-smi's "Driver Version:" */
	ck_assert_int_eq(cd_vers_log_line(l, "h", 0, "  CUDA Driver Version / Runtime Version          11.4 / 11.4"), 0);
	/* a CUDA version where a driver version belongs is not a driver */
	ck_assert_int_eq(cd_vers_log_line(l, "h", 0, "Driver Version: 12.4"), 1);
	ck_assert_uint_eq(cd_vers_judge(l, db, v, 8), 0);
	ck_assert_int_eq(cd_vers_log_line(l, "h", 0, "Found GPU0 Tesla K40m which is of cuda capability 3.5."), 1);
	ck_assert_uint_eq(cd_vers_judge(l, db, v, 8), 1);
	ck_assert_str_eq(v[0].subject, "nccl sm_35");
	ck_assert_int_eq(v[0].sev, CD_SEV_FAIL);
	/* NCCL 2.26's shared-memory warning names the device's architecture (cudaArch 1200 is sm_120) */
	ck_assert_int_eq(cd_vers_log_line(l, "h", 0, "h:1:1 [0] enqueue.cc:50 NCCL WARN cudaArch 1200 ncclMaxSharedMem "
					  "101376 exceeds device/fn maxSharedMem 99328"), 1);
	ck_assert_uint_eq(cd_vers_judge(l, db, v, 8), 2);
	ck_assert_str_eq(v[1].subject, "nccl sm_120");
	ck_assert_int_eq(v[1].sev, CD_SEV_WARN); /* 2.21.5+cuda12.4 has PTX compute_90 */
	cd_vers_log_free(l);
}
END_TEST

Suite *explain_versions_suite(void)
{
	Suite *s = suite_create("explain_versions");
	TCase *tc = tcase_create("versions");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_table_refused);
	tcase_add_test(tc, test_lookups);
	tcase_add_test(tc, test_arch_too_new);
	tcase_add_test(tc, test_arch_dropped);
	tcase_add_test(tc, test_driver_too_old);
	tcase_add_test(tc, test_skew);
	tcase_add_test(tc, test_healthy);
	tcase_add_test(tc, test_reader);
	suite_add_tcase(s, tc);
	return s;
}
