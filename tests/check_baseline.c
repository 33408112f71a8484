/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules against a baseline (BASE001-BASE004) on crafted pairs of documents, and the noise they read. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "conf.h"
#include "results.h"
#include "rules.h"
#include "suites.h"

static const int64_t sizes[] = { 8, 1 << 20, 256 << 20 };

/*
 * One host "n1" with two GPUs of `gpu` and nccl.all_reduce over 8 ranks at three sizes, each
 * median t[i] scaled by `factor`, its interquartile range `rel` of the median.
 */
static void make_doc(struct cd_results *r, const char *gpu, double factor, double rel, int64_t nranks)
{
	static const double t[] = { 20.0, 30.0, 1200.0 };
	struct cd_host *h;
	struct cd_probe_run *p;

	cd_results_init(r);
	h = cd_results_add_host(r);
	h->hostname = xstrdup("n1");
	for (int i = 0; i < 2; i++)
		cd_host_add_gpu(h)->name = xstrdup(gpu);
	p = cd_results_add_probe(r, "nccl.all_reduce");
	p->status = CD_ST_OK;
	p->host = xstrdup("n1");
	p->nranks = nranks;
	for (size_t i = 0; i < 3; i++) {
		struct cd_probe_sample *s = cd_probe_add_sample(p);
		double m = t[i] * factor;

		s->bytes = sizes[i];
		s->iters = 20;
		s->time_us = m;
		s->p25_time_us = m * (1 - rel / 2);
		s->p75_time_us = m * (1 + rel / 2);
		s->algbw_gbyte_s = (double)sizes[i] / (m * 1e3);
		s->busbw_gbyte_s = s->algbw_gbyte_s * 1.75;
	}
}

/* Judge `cur` against a heap copy of `old` made by make_doc with these arguments. */
static void with_baseline(struct cd_results *cur, const char *gpu, double factor, double rel, int64_t nranks)
{
	struct cd_results *b = xcalloc(1, sizeof(*b));

	make_doc(b, gpu, factor, rel, nranks);
	cur->baseline = b;
	cur->baseline_file = xstrdup("old.json");
}

static void judge(struct cd_results *r, const char *def)
{
	struct cd_conf c;
	const char *defs[1] = { def };
	struct cd_conf_opts o = { .profile = "none", .defs = defs, .n_defs = def ? 1 : 0 };

	ck_assert_int_eq(cd_conf_load(&c, &o, r), 0);
	cd_rules_evaluate_conf(r, &c);
	cd_conf_free(&c);
}

static size_t count(const struct cd_results *r, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += !strcmp(r->findings[i].id, id);
	return n;
}

static const struct cd_finding *find(const struct cd_results *r, const char *id)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (!strcmp(r->findings[i].id, id))
			return &r->findings[i];
	return NULL;
}

static size_t base_findings(const struct cd_results *r)
{
	return count(r, "BASE001") + count(r, "BASE002") + count(r, "BASE003") + count(r, "BASE004");
}

static int listed(const struct cd_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

static const char *not_evaluated(const struct cd_results *r, const char *group)
{
	for (size_t i = 0; i < r->rules.n_not_evaluated; i++)
		if (!strcmp(r->rules.not_evaluated[i].group, group))
			return r->rules.not_evaluated[i].reason;
	return NULL;
}

static double ratio(const struct cd_results *r, size_t run, size_t sample)
{
	struct cd_baseline_map m;
	double v;

	cd_baseline_map(r, &m);
	v = cd_baseline_time_ratio(r, &m, run, &r->probes[run].samples[sample]);
	cd_baseline_map_free(&m);
	return v;
}

START_TEST(test_noise)
{
	struct cd_probe_sample a = { .time_us = 100, .p25_time_us = 97, .p75_time_us = 100 };
	struct cd_probe_sample b = { .time_us = 100, .p25_time_us = 98, .p75_time_us = 102 };
	struct cd_probe_sample none = { .time_us = 100, .p25_time_us = NAN, .p75_time_us = NAN };
	int known;

	ck_assert_double_eq_tol(cd_sample_rel_iqr(&a), 0.03, 1e-12);
	/* independent spreads add in quadrature: 3 % and 4 % give 5 % */
	ck_assert_double_eq_tol(cd_baseline_noise(&a, &b, &known), 0.05, 1e-12);
	ck_assert_int_eq(known, 1);
	ck_assert(isnan(cd_sample_rel_iqr(&none)));
	ck_assert_double_eq_tol(cd_baseline_noise(&none, &b, &known), 0.04, 1e-12);
	ck_assert_int_eq(known, 0);
}
END_TEST

/* The case: all_reduce 20 % slower fails, on bandwidth above 8 KiB and on time at 8 B. */
START_TEST(test_slower_fails)
{
	struct cd_results r;
	const struct cd_finding *f;

	make_doc(&r, "H100", 1.20, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE001"), 1);
	ck_assert_uint_eq(count(&r, "BASE002"), 1);
	f = find(&r, "BASE001");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_str_eq(f->host, "n1");
	/* bandwidth 1/1.2: 16.7 % below; measured is now, expected the baseline's busbw */
	ck_assert_double_eq_tol(f->measured / f->expected, 1 / 1.2, 1e-9);
	ck_assert_str_eq(f->threshold, "baseline.fail_pct");
	ck_assert_ptr_nonnull(strstr(f->title, "16.7 %"));
	f = find(&r, "BASE002");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert_str_eq(f->unit, "us");
	ck_assert_double_eq_tol(f->measured, 24.0, 1e-9);
	ck_assert_double_eq_tol(f->expected, 20.0, 1e-9);
	ck_assert(listed(&r.rules.evaluated, "baseline"));
	ck_assert_double_eq_tol(ratio(&r, 0, 2), 1.2, 1e-9);
	cd_results_free(&r);
}
END_TEST

/* the severity thresholds are data: with fail_pct at 30 %, 20 % slower only warns */
START_TEST(test_fail_pct_configurable)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.20, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, "baseline.fail_pct=30");
	ck_assert_int_eq(find(&r, "BASE001")->severity, CD_SEV_WARN);
	ck_assert_str_eq(find(&r, "BASE001")->threshold, "baseline.warn_pct");
	cd_results_free(&r);
}
END_TEST

START_TEST(test_identical_quiet)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.0, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	ck_assert(listed(&r.rules.evaluated, "baseline"));
	ck_assert_ptr_null(not_evaluated(&r, "baseline"));
	cd_results_free(&r);
}
END_TEST

/* 5 % slower: a tight baseline (1 % IQR) warns, a noisy one (12 % IQR: bar 1.5 x 12 %) does not */
START_TEST(test_noisy_baseline)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.05, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE001"), 1);
	ck_assert_int_eq(find(&r, "BASE001")->severity, CD_SEV_WARN);
	cd_results_free(&r);

	make_doc(&r, "H100", 1.05, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.12, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	cd_results_free(&r);

	/* and noise now counts as much as noise then */
	make_doc(&r, "H100", 1.05, 0.12, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	cd_results_free(&r);
}
END_TEST

/* a tight run still needs baseline.warn_pct: 2 % slower with 0.1 % spreads is no regression */
START_TEST(test_floor)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.02, 0.001, 8);
	with_baseline(&r, "H100", 1.0, 0.001, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_missing_run)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.0, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	/* the run is there but skipped now: its data is absent all the same */
	r.probes[0].status = CD_ST_SKIPPED;
	r.probes[0].reason = xstrdup("needs NCCL");
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE003"), 1);
	ck_assert_int_eq(find(&r, "BASE003")->severity, CD_SEV_FAIL);
	cd_results_free(&r);

	/* no run at all: the probe's name changed */
	make_doc(&r, "H100", 1.0, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	free(r.probes[0].name);
	r.probes[0].name = xstrdup("nccl.all_gather");
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE003"), 1);
	ck_assert_str_eq(find(&r, "BASE003")->host, "n1");
	cd_results_free(&r);
}
END_TEST

START_TEST(test_missing_size)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.0, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	r.probes[0].n_samples = 2; /* the sweep stopped before 256 MiB */
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE003"), 1);
	ck_assert_ptr_nonnull(strstr(find(&r, "BASE003")->evidence.v[0], "256.0 MiB"));
	ck_assert_uint_eq(count(&r, "BASE001"), 0);
	cd_results_free(&r);
}
END_TEST

/* another rank count or other GPUs: not judged, not missing, and said so */
START_TEST(test_not_comparable)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.5, 0.01, 4);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	ck_assert_ptr_nonnull(not_evaluated(&r, "baseline (ranks)"));
	ck_assert(isnan(ratio(&r, 0, 2)));
	cd_results_free(&r);

	make_doc(&r, "A100", 1.5, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	ck_assert_ptr_nonnull(strstr(not_evaluated(&r, "baseline (host n1)"), "A100"));
	ck_assert(isnan(ratio(&r, 0, 2)));
	cd_results_free(&r);

	/* another host altogether: the whole group is not evaluated */
	make_doc(&r, "H100", 1.5, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	free(r.hosts[0].hostname);
	r.hosts[0].hostname = xstrdup("n2");
	free(r.probes[0].host);
	r.probes[0].host = xstrdup("n2");
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	ck_assert_ptr_nonnull(not_evaluated(&r, "baseline"));
	ck_assert(!listed(&r.rules.evaluated, "baseline"));
	cd_results_free(&r);
}
END_TEST

START_TEST(test_faster_info)
{
	struct cd_results r;

	make_doc(&r, "H100", 0.8, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE004"), 1);
	ck_assert_int_eq(find(&r, "BASE004")->severity, CD_SEV_INFO);
	ck_assert_uint_eq(count(&r, "BASE001") + count(&r, "BASE002"), 0);
	cd_results_free(&r);
}
END_TEST

/* only the latency end slower: BASE002, not BASE001 */
START_TEST(test_latency_regime)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.0, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	r.probes[0].samples[0].time_us *= 1.5;
	r.probes[0].samples[0].p25_time_us *= 1.5;
	r.probes[0].samples[0].p75_time_us *= 1.5;
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE002"), 1);
	ck_assert_uint_eq(count(&r, "BASE001"), 0);
	cd_results_free(&r);
}
END_TEST

/* without a baseline the group is not part of the run: neither evaluated nor listed as missing */
START_TEST(test_no_baseline)
{
	struct cd_results r;

	make_doc(&r, "H100", 1.0, 0.01, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	ck_assert(!listed(&r.rules.evaluated, "baseline"));
	ck_assert_ptr_null(not_evaluated(&r, "baseline"));
	ck_assert(isnan(ratio(&r, 0, 0)));
	cd_results_free(&r);
}
END_TEST

/* compare judges the baseline group only: no other group is evaluated or listed */
START_TEST(test_group_only)
{
	struct cd_results r;
	struct cd_conf c;
	struct cd_conf_opts o = { .profile = "none" };

	make_doc(&r, "H100", 1.2, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	ck_assert_int_eq(cd_conf_load(&c, &o, &r), 0);
	cd_rules_evaluate_group(&r, &c, "baseline");
	cd_conf_free(&c);
	ck_assert_uint_eq(r.rules.evaluated.n, 1);
	ck_assert_str_eq(r.rules.evaluated.v[0], "baseline");
	ck_assert_uint_eq(r.rules.n_not_evaluated, 0);
	ck_assert_uint_eq(r.n_findings, base_findings(&r));
	ck_assert_uint_eq(count(&r, "BASE001"), 1);
	cd_results_free(&r);
}
END_TEST

/*
 * Runs pair by key, not by position; a key that repeats (two hosts of one name) pairs the
 * k-th with the k-th, so each baseline run is compared once.
 */
START_TEST(test_pairing)
{
	struct cd_results r;
	struct cd_baseline_map m;
	struct cd_probe_run *p;

	make_doc(&r, "H100", 1.0, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	/* now: a copy first, then the all_reduce, then a second all_reduce of the same key, 50 % slower */
	p = cd_results_add_probe(&r, "copy.h2d");
	p->status = CD_ST_OK;
	p->host = xstrdup("n1");
	p->device = 0;
	p = cd_results_add_probe(&r, "nccl.all_reduce");
	p->status = CD_ST_OK;
	p->host = xstrdup("n1");
	p->nranks = 8;
	for (size_t i = 0; i < r.probes[0].n_samples; i++) {
		struct cd_probe_sample *s = cd_probe_add_sample(p);

		*s = r.probes[0].samples[i];
		s->time_us *= 1.5;
	}
	cd_baseline_map(&r, &m);
	ck_assert_uint_eq(m.pair[0], 0); /* the first all_reduce of the baseline with the first now */
	ck_assert_uint_eq(m.of[0], 0);
	ck_assert_uint_eq(m.of[1], CD_BASELINE_NONE);
	ck_assert_uint_eq(m.of[2], CD_BASELINE_NONE); /* the baseline has one all_reduce */
	cd_baseline_map_free(&m);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	/* a second all_reduce in the baseline pairs with the second now: slower */
	p = cd_results_add_probe(r.baseline, "nccl.all_reduce");
	p->status = CD_ST_OK;
	p->host = xstrdup("n1");
	p->nranks = 8;
	for (size_t i = 0; i < r.probes[0].n_samples; i++)
		*cd_probe_add_sample(p) = r.baseline->probes[0].samples[i];
	cd_results_clear_judgement(&r);
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE001"), 1);
	ck_assert_uint_eq(count(&r, "BASE002"), 1);
	ck_assert_double_eq_tol(ratio(&r, 2, 1), 1.5, 1e-9);
	ck_assert_double_eq_tol(ratio(&r, 0, 1), 1.0, 1e-9);
	cd_results_free(&r);
}
END_TEST

/* compare --require baseline: nothing comparable is a failure (REQ001), and only that group is required */
START_TEST(test_require)
{
	struct cd_results r;
	struct cd_conf c;
	struct cd_conf_opts o = { .profile = "h100-sxm", .require = "baseline" };

	make_doc(&r, "H100", 1.0, 0.01, 8);
	with_baseline(&r, "H100", 1.0, 0.01, 8);
	free(r.probes[0].host);
	r.probes[0].host = xstrdup("n2");
	free(r.hosts[0].hostname);
	r.hosts[0].hostname = xstrdup("n2");
	ck_assert_int_eq(cd_conf_load(&c, &o, &r), 0);
	cd_rules_evaluate_group(&r, &c, "baseline");
	cd_conf_free(&c);
	ck_assert_uint_eq(count(&r, "REQ001"), 1);
	ck_assert_str_eq(find(&r, "REQ001")->subject, "baseline");
	/* the profile's own gpu and nvlink are not required of a comparison */
	ck_assert_uint_eq(r.rules.required.n, 1);
	ck_assert_uint_eq(r.n_findings, 1);
	cd_results_free(&r);
}
END_TEST

/* an import of nccl-tests has no percentiles: the floor alone holds, and the evidence says so */
START_TEST(test_no_percentiles)
{
	struct cd_results r;
	const struct cd_finding *f;
	int said = 0;

	make_doc(&r, "H100", 1.05, NAN, 8);
	with_baseline(&r, "H100", 1.0, NAN, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE001"), 1);
	f = find(&r, "BASE001");
	for (size_t i = 0; i < f->evidence.n; i++)
		said |= strstr(f->evidence.v[i], "no recorded percentiles") != NULL;
	ck_assert(said);
	cd_results_free(&r);

	make_doc(&r, "H100", 1.02, NAN, 8);
	with_baseline(&r, "H100", 1.0, NAN, 8);
	judge(&r, NULL);
	ck_assert_uint_eq(base_findings(&r), 0);
	cd_results_free(&r);
}
END_TEST

/* the committed fixtures, as the e2e tests use them */
START_TEST(test_fixtures)
{
	struct cd_results r;
	struct cd_results *b = xcalloc(1, sizeof(*b));

	ck_assert_int_eq(cd_results_load_file(b, "tests/data/docs/h100-clean.json"), 0);
	ck_assert_int_eq(cd_results_load_file(&r, "tests/data/docs/baseline/allreduce-20pct-slower.json"), 0);
	cd_results_clear_judgement(&r);
	r.baseline = b;
	judge(&r, NULL);
	ck_assert_uint_eq(count(&r, "BASE001"), 1);
	ck_assert_int_eq(find(&r, "BASE001")->severity, CD_SEV_FAIL);
	/* the copies did not change: no finding about them */
	ck_assert_uint_eq(base_findings(&r), 2);
	cd_results_free(&r);
}
END_TEST

Suite *baseline_suite(void)
{
	Suite *s = suite_create("baseline");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_noise);
	tcase_add_test(tc, test_slower_fails);
	tcase_add_test(tc, test_fail_pct_configurable);
	tcase_add_test(tc, test_identical_quiet);
	tcase_add_test(tc, test_noisy_baseline);
	tcase_add_test(tc, test_floor);
	tcase_add_test(tc, test_missing_run);
	tcase_add_test(tc, test_missing_size);
	tcase_add_test(tc, test_not_comparable);
	tcase_add_test(tc, test_faster_info);
	tcase_add_test(tc, test_latency_regime);
	tcase_add_test(tc, test_no_baseline);
	tcase_add_test(tc, test_group_only);
	tcase_add_test(tc, test_pairing);
	tcase_add_test(tc, test_require);
	tcase_add_test(tc, test_no_percentiles);
	tcase_add_test(tc, test_fixtures);
	suite_add_tcase(s, tc);
	return s;
}
