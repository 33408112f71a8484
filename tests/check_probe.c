/* SPDX-License-Identifier: BSD-3-Clause */
/* The probe harness with CPU-only fake probes: no GPU needed. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dl.h"
#include "fault.h"
#include "gpu_common.h"
#include "measure.h"
#include "probe.h"
#include "suites.h"

/* ---- bus bandwidth factors: nccl-tests' formulas, computed here independently ---- */

START_TEST(test_busbw_factors)
{
	int n;

	for (n = 1; n <= 16; n++) {
		double d = n;

		ck_assert_double_eq_tol(cd_busbw_all_reduce(n), 2.0 * (d - 1) / d, 1e-12);
		ck_assert_double_eq_tol(cd_busbw_all_gather(n), (d - 1) / d, 1e-12);
		ck_assert_double_eq_tol(cd_busbw_reduce_scatter(n), (d - 1) / d, 1e-12);
		ck_assert_double_eq_tol(cd_busbw_alltoall(n), (d - 1) / d, 1e-12);
		ck_assert_double_eq_tol(cd_busbw_broadcast(n), 1.0, 1e-12);
		ck_assert_double_eq_tol(cd_busbw_reduce(n), 1.0, 1e-12);
		ck_assert_double_eq_tol(cd_busbw_sendrecv(n), 1.0, 1e-12);
	}
	ck_assert_double_eq_tol(cd_busbw_all_reduce(8), 14.0 / 8.0, 1e-12);
	ck_assert_double_eq_tol(cd_busbw_all_gather(8), 7.0 / 8.0, 1e-12);
	/* nccl-tests keeps the formula at one rank: nothing crosses a bus */
	ck_assert_double_eq(cd_busbw_all_reduce(1), 0.0);
	ck_assert_double_eq(cd_busbw_all_gather(1), 0.0);
	ck_assert(isnan(cd_busbw_all_reduce(0)));
	ck_assert(isnan(cd_busbw_sendrecv(-1)));
}
END_TEST

/* ---- size sweep ---- */

START_TEST(test_sweep_factor)
{
	struct cd_sweep s;
	char *err = NULL;
	size_t n = 0, want = 8;

	ck_assert_int_eq(cd_sweep_init(&s, "8", "128M", "2", NULL, &err), 0);
	ck_assert_ptr_null(err);
	for (n = 0; n < s.n; n++, want *= 2)
		ck_assert_uint_eq(s.size[n], want);
	ck_assert_uint_eq(n, 25);
	ck_assert_uint_eq(s.n, 25);
	ck_assert_uint_eq(s.last, 134217728);
}
END_TEST

START_TEST(test_sweep_increment)
{
	static const size_t want[] = { 1024, 2048, 3072, 4096 };
	struct cd_sweep s;
	char *err = NULL;
	size_t n = 0;

	ck_assert_int_eq(cd_sweep_init(&s, "1K", "4K", NULL, "1K", &err), 0);
	for (; n < s.n; n++) {
		ck_assert_uint_lt(n, 4);
		ck_assert_uint_eq(s.size[n], want[n]);
	}
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(s.last, 4096);
}
END_TEST

START_TEST(test_sweep_edges)
{
	struct cd_sweep s;
	char *err = NULL;

	/* steps that do not land on -e stop below it */
	ck_assert_int_eq(cd_sweep_init(&s, "8", "100", "4", NULL, &err), 0);
	ck_assert_uint_eq(s.n, 2); /* 8, 32; 128 > 100 */
	ck_assert_uint_eq(s.last, 32);
	/* one size */
	ck_assert_int_eq(cd_sweep_init(&s, "1M", "1M", NULL, NULL, &err), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.size[0], 1048576);
	/* from 0 B, as osu_latency: 0, then 1, 2, 4, ... (or 0, then the increment) */
	ck_assert_int_eq(cd_sweep_init(&s, "0", "8", NULL, NULL, &err), 0);
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_eq(s.size[0], 0);
	ck_assert_uint_eq(s.size[1], 1);
	ck_assert_uint_eq(s.size[4], 8);
	ck_assert_uint_eq(s.last, 8);
	ck_assert_int_eq(cd_sweep_init(&s, "0", "10", NULL, "4", &err), 0);
	ck_assert_uint_eq(s.n, 3); /* 0, 4, 8 */
	ck_assert_uint_eq(s.size[2], 8);
	ck_assert_int_eq(cd_sweep_init(&s, "0", "1", "2", NULL, &err), 0);
	ck_assert_uint_eq(s.n, 2);
	/* defaults: 8 .. 128M by 2; a lone -e below the default minimum starts there */
	ck_assert_int_eq(cd_sweep_init(&s, NULL, NULL, NULL, NULL, &err), 0);
	ck_assert_uint_eq(s.min, 8);
	ck_assert_uint_eq(s.max, 134217728);
	ck_assert_uint_eq(s.factor, 2);
	ck_assert_int_eq(cd_sweep_init(&s, NULL, "4", NULL, NULL, &err), 0);
	ck_assert_uint_eq(s.min, 4);
	ck_assert_int_eq(cd_sweep_init(&s, "1G", NULL, NULL, NULL, &err), 0);
	ck_assert_uint_eq(s.n, 1);
	/* the multiplication must not wrap around */
	ck_assert_int_eq(cd_sweep_init(&s, "8388608T", "16777215T", "2", NULL, &err), 0); /* 2^63 .. 2^64-2^40 */
	ck_assert_uint_eq(s.n, 1);
	ck_assert_int_eq(cd_sweep_init(&s, "4T", "16T", "2", NULL, &err), 0);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_int_eq(cd_sweep_init(&s, "8T", "15T", "2", NULL, NULL), 0);
	ck_assert_uint_eq(s.n, 1);
}
END_TEST

static void sweep_err(const char *min, const char *max, const char *factor, const char *incr, const char *want)
{
	struct cd_sweep s;
	char *err = NULL;

	ck_assert_int_eq(cd_sweep_init(&s, min, max, factor, incr, &err), -1);
	ck_assert_ptr_nonnull(err);
	ck_assert_str_eq(err, want);
	free(err);
	ck_assert_int_eq(cd_sweep_init(&s, min, max, factor, incr, NULL), -1); /* no message wanted */
}

START_TEST(test_sweep_errors)
{
	sweep_err("12Q", "1M", "2", NULL, "-b: '12Q' is not a size like 8, 64K, 8M or 1G");
	sweep_err("8", "", "2", NULL, "-e: '' is not a size like 8, 64K, 8M or 1G");
	sweep_err("8K", "4K", "2", NULL, "-e: '4K' is smaller than -b '8K'");
	sweep_err("8", "1M", "1", NULL, "-f: '1' is not a whole factor of at least 2");
	sweep_err("8", "1M", "1.5", NULL, "-f: '1.5' is not a whole factor of at least 2");
	sweep_err("8", "1M", "-2", NULL, "-f: '-2' is not a whole factor of at least 2");
	sweep_err("8", "1M", "", NULL, "-f: '' is not a whole factor of at least 2");
	sweep_err("8", "1M", "99999999999999999999999", NULL,
		  "-f: '99999999999999999999999' is not a whole factor of at least 2");
	sweep_err("8", "1M", NULL, "0", "-i: '0' is not an increment of at least 1 byte");
	sweep_err("8", "1M", NULL, "x", "-i: 'x' is not a size like 8, 64K, 8M or 1G");
	sweep_err("8", "1M", "2", "1K",
		  "-f and -i exclude each other: give a factor (-f) or an increment (-i), not both");
	sweep_err("0", "0", "2", NULL, "-e: '0' is not a size of at least 1 byte");
	sweep_err("1", "1M", NULL, "1K", "-b '1' -e '1M': the sweep has more than 64 sizes: raise -f or -i");
}
END_TEST

/* ---- statistics ---- */

START_TEST(test_stats)
{
	double odd[] = { 5, 1, 4, 2, 3 };
	double even[] = { 10, 2, 8, 4 };
	double one[] = { 7 };

	ck_assert_double_eq(cd_stats_min(odd, 5), 1);
	ck_assert_double_eq(cd_stats_max(odd, 5), 5);
	ck_assert_double_eq(cd_stats_median(odd, 5), 3);
	ck_assert_double_eq(odd[0], 1); /* sorted in place, as documented */
	ck_assert_double_eq(odd[4], 5);
	ck_assert_double_eq(cd_stats_min(even, 4), 2);
	ck_assert_double_eq(cd_stats_max(even, 4), 10);
	ck_assert_double_eq(cd_stats_median(even, 4), 6);
	ck_assert_double_eq(cd_stats_median(one, 1), 7);
	ck_assert(isnan(cd_stats_median(one, 0)));
	ck_assert(isnan(cd_stats_min(one, 0)));
	ck_assert(isnan(cd_stats_max(one, 0)));
}
END_TEST

/* R's quantile(type = 7) and NumPy's percentile give the same numbers */
START_TEST(test_stats_quantile)
{
	const double v[] = { 1, 2, 3, 4, 10 };
	const double two[] = { 4, 8 };

	ck_assert_double_eq(cd_stats_quantile(v, 5, 0), 1);
	ck_assert_double_eq(cd_stats_quantile(v, 5, 0.25), 2);
	ck_assert_double_eq(cd_stats_quantile(v, 5, 0.5), 3);
	ck_assert_double_eq(cd_stats_quantile(v, 5, 0.75), 4);
	ck_assert_double_eq_tol(cd_stats_quantile(v, 5, 0.9), 7.6, 1e-12);
	ck_assert_double_eq(cd_stats_quantile(v, 5, 1), 10);
	ck_assert_double_eq(cd_stats_quantile(two, 2, 0.25), 5);
	ck_assert_double_eq(cd_stats_quantile(v, 1, 0.9), 1);
	ck_assert(isnan(cd_stats_quantile(v, 0, 0.5)));
}
END_TEST

/*
 * Twenty iterations of about 100 us and one preempted for 5 ms: the quartiles do not
 * move, min and max do, and the one iteration is counted as an outlier.
 */
START_TEST(test_stats_fill)
{
	double t[21];
	struct cd_probe_sample s;

	for (int i = 0; i < 20; i++)
		t[i] = 100 + (i % 5);
	t[20] = 5000;
	memset(&s, 0, sizeof(s));
	cd_stats_fill(&s, t, 21);
	ck_assert_double_eq(s.time_us, 102);
	ck_assert_double_eq(s.min_time_us, 100);
	ck_assert_double_eq(s.max_time_us, 5000);
	ck_assert_double_eq(s.p25_time_us, 101);
	ck_assert_double_eq(s.p75_time_us, 103);
	ck_assert_double_eq(s.p10_time_us, 100);
	ck_assert_double_eq(s.p90_time_us, 104);
	ck_assert_int_eq(s.outliers, 1);
	/* one iteration: nothing is an outlier of itself */
	t[0] = 42;
	cd_stats_fill(&s, t, 1);
	ck_assert_double_eq(s.p25_time_us, 42);
	ck_assert_double_eq(s.p90_time_us, 42);
	ck_assert_int_eq(s.outliers, 0);
}
END_TEST

/* ---- fake probes ---- */

struct fake {
	int setups, starts, polls, aborts, checks, teardowns;
	int start_fail_at;      /* fail the Nth start (1-based); 0 never */
	int hang_at;            /* poll never completes from the Nth start on; 0 never */
	int setup_ret;
	size_t corrupt_bytes;   /* check reports 3 wrong elements at this size */
	int64_t op_ns;          /* poll says done this long after start */
	int64_t t_start;
	unsigned char *buf;
};

static struct fake F;

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int fake_setup(struct cd_probe_env *env, size_t max_bytes)
{
	size_t i;

	F.setups++;
	ck_assert_uint_eq(env->max_bytes, max_bytes);
	if (F.setup_ret)
		return F.setup_ret == -1 ? cd_probe_fail(env, "cudaMalloc: out of memory") : F.setup_ret;
	env->send = malloc(max_bytes);
	env->recv = malloc(max_bytes);
	ck_assert_ptr_nonnull(env->send);
	ck_assert_ptr_nonnull(env->recv);
	for (i = 0; i < max_bytes; i++)
		((unsigned char *)env->send)[i] = (unsigned char)(i * 7 + 1);
	return 0;
}

static int fake_start(struct cd_probe_env *env, size_t bytes)
{
	F.starts++;
	if (F.start_fail_at && F.starts >= F.start_fail_at)
		return cd_probe_fail(env, "cudaMemcpyAsync: invalid argument");
	F.t_start = mono_ns();
	memcpy(env->recv, env->send, bytes); /* synchronous: poll says done at once */
	return 0;
}

static int fake_poll(struct cd_probe_env *env)
{
	(void)env;
	F.polls++;
	if (F.hang_at && F.starts >= F.hang_at)
		return 0;
	if (F.op_ns && mono_ns() - F.t_start < F.op_ns)
		return 0;
	return 1;
}

static void fake_abort(struct cd_probe_env *env)
{
	(void)env;
	F.aborts++;
}

static int64_t fake_check(struct cd_probe_env *env, size_t bytes)
{
	const unsigned char *a = env->send, *b = env->recv;
	int64_t wrong = 0;
	size_t i;

	F.checks++;
	for (i = 0; i < bytes; i++)
		wrong += a[i] != b[i];
	return bytes == F.corrupt_bytes ? wrong + 3 : wrong;
}

static void fake_teardown(struct cd_probe_env *env)
{
	F.teardowns++;
	free(env->send);
	free(env->recv);
	env->send = env->recv = NULL;
}

static double factor_half(int n)
{
	return n / 2.0;
}

static const struct cd_probe probe_fake = {
	.name = "fake.memcpy",
	.busbw_factor = factor_half,
	.setup = fake_setup,
	.start = fake_start,
	.poll = fake_poll,
	.abort = fake_abort,
	.check = fake_check,
	.teardown = fake_teardown,
	.phase = "collective",
};

static struct cd_probe_env env_init(void)
{
	struct cd_probe_env env = { .device = -1, .peer = -1, .rank = 0, .nranks = 4 };

	memset(&F, 0, sizeof(F));
	return env;
}

static void sweep(struct cd_sweep *s, const char *min, const char *max)
{
	ck_assert_int_eq(cd_sweep_init(s, min, max, "2", NULL, NULL), 0);
}

START_TEST(test_run_memcpy)
{
	struct cd_probe_env env = env_init();
	struct cd_results r;
	struct cd_probe_run *run;
	struct cd_sweep s;
	size_t i;

	cd_results_init(&r);
	run = cd_results_add_probe(&r, "fake.memcpy");
	sweep(&s, "1K", "1M");
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 2, 5, 30.0, run), 0);
	ck_assert_int_eq(run->status, CD_ST_OK);
	ck_assert_ptr_null(run->reason);
	ck_assert_ptr_null(run->phase);
	ck_assert_str_eq(run->name, "fake.memcpy");
	ck_assert_int_eq(run->nranks, 4);
	ck_assert_int_eq(run->device, CD_NULL_I64);
	ck_assert_uint_eq(run->n_samples, 11);
	for (i = 0; i < run->n_samples; i++) {
		const struct cd_probe_sample *sm = &run->samples[i];

		ck_assert_int_eq(sm->bytes, (int64_t)1024 << i);
		ck_assert_int_eq(sm->iters, 5);
		ck_assert(sm->time_us > 0);
		ck_assert(sm->min_time_us <= sm->time_us);
		ck_assert(sm->time_us <= sm->max_time_us);
		ck_assert(sm->min_time_us <= sm->p10_time_us && sm->p10_time_us <= sm->p25_time_us);
		ck_assert(sm->p25_time_us <= sm->time_us && sm->time_us <= sm->p75_time_us);
		ck_assert(sm->p75_time_us <= sm->p90_time_us && sm->p90_time_us <= sm->max_time_us);
		ck_assert(sm->outliers >= 0 && sm->outliers <= 5);
		/* the run-queue wait is read where the kernel gives it, and is a share of the timed time */
		if (cd_probe_cpu_wait_ns() >= 0)
			ck_assert(sm->cpu_wait_pct >= 0 && sm->cpu_wait_pct <= 100);
		else
			ck_assert(isnan(sm->cpu_wait_pct));
		ck_assert_double_eq(sm->algbw_gbyte_s, (double)sm->bytes / sm->time_us / 1e3);
		ck_assert_double_eq(sm->busbw_gbyte_s, sm->algbw_gbyte_s * 2.0);
		ck_assert_int_eq(sm->errors, 0);
	}
	ck_assert_int_eq(F.setups, 1);
	ck_assert_int_eq(F.starts, 11 * (2 + 5));
	ck_assert_int_eq(F.checks, 11);
	ck_assert_int_eq(F.aborts, 0);
	ck_assert_int_eq(F.teardowns, 1);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_run_wrong_elements)
{
	struct cd_probe_env env = env_init();
	struct cd_results r;
	struct cd_probe_run *run;
	struct cd_sweep s;

	cd_results_init(&r);
	run = cd_results_add_probe(&r, "fake.memcpy");
	sweep(&s, "1K", "16K");
	F.corrupt_bytes = 4096;
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 3, 30.0, run), -1);
	ck_assert_int_eq(run->status, CD_ST_ERROR);
	ck_assert_str_eq(run->reason, "3 wrong elements at 4096 bytes");
	ck_assert_uint_eq(run->n_samples, 5); /* kept going, as nccl-tests does */
	ck_assert_int_eq(run->samples[1].errors, 0);
	ck_assert_int_eq(run->samples[2].errors, 3);
	ck_assert_int_eq(run->samples[3].errors, 0);
	ck_assert_int_eq(F.teardowns, 1);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_run_unchecked_and_sync)
{
	struct cd_probe sync = probe_fake;
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { .device = CD_NULL_I64 };
	struct cd_sweep s;

	sync.poll = NULL;       /* start is the whole operation */
	sync.check = NULL;      /* errors stay null: not checked */
	sync.busbw_factor = NULL;
	sync.phase = NULL;
	env.device = 2;
	sweep(&s, "64", "256");
	ck_assert_int_eq(cd_probe_run_sweep(&sync, &env, &s, 0, 1, 30.0, &run), 0);
	ck_assert_str_eq(run.name, "fake.memcpy");
	ck_assert_int_eq(run.device, 2);
	ck_assert_uint_eq(run.n_samples, 3);
	ck_assert_int_eq(run.samples[0].errors, CD_NULL_I64);
	ck_assert_double_eq(run.samples[0].busbw_gbyte_s, run.samples[0].algbw_gbyte_s);
	ck_assert_int_eq(F.polls, 0);
	ck_assert_int_eq(F.starts, 3);
	free(run.name);
	free(run.samples);
}
END_TEST

/*
 * Batch mode (nvbandwidth, nccl-tests): a sample is `batch` starts back to back, one
 * begin and one end around them, one wait; its time is op_us's device time when the
 * probe has it, not the clock's.
 */
static int batch_begins, batch_ends, batch_starts_at_end, batch_dev;

static int batch_begin(struct cd_probe_env *env)
{
	(void)env;
	batch_begins++;
	return 0;
}

static int batch_end(struct cd_probe_env *env)
{
	(void)env;
	batch_ends++;
	batch_starts_at_end = F.starts;
	return 0;
}

static int batch_op_us(struct cd_probe_env *env, double *us)
{
	(void)env;
	if (!batch_dev)
		return -1;
	*us = 1e6; /* a device time no clock here would give: it must be the one reported */
	return 0;
}

START_TEST(test_run_batch)
{
	struct cd_probe b = probe_fake;
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { .device = CD_NULL_I64 };
	struct cd_sweep s;

	b.batch = 4;
	b.begin = batch_begin;
	b.end = batch_end;
	b.op_us = batch_op_us;
	batch_begins = batch_ends = batch_starts_at_end = 0;
	batch_dev = 1;
	sweep(&s, "64", "64");
	ck_assert_int_eq(cd_probe_run_sweep(&b, &env, &s, 1, 3, 30.0, &run), 0);
	/* one warm-up and three timed samples, each of four operations launched before any wait */
	ck_assert_int_eq(F.starts, 16);
	ck_assert_int_eq(batch_begins, 4);
	ck_assert_int_eq(batch_ends, 4);
	ck_assert_int_eq(batch_starts_at_end, 16);
	ck_assert_int_eq(F.polls, 4); /* once per sample, after its last start */
	ck_assert_uint_eq(run.n_samples, 1);
	ck_assert_int_eq(run.samples[0].iters, 3);
	ck_assert_double_eq(run.samples[0].time_us, 1e6);
	ck_assert_int_eq(run.samples[0].errors, 0);
	free(run.name);
	free(run.samples);

	/* no device time: the clock's, divided by the batch (a 1 s sample would not be) */
	memset(&run, 0, sizeof(run));
	run.device = CD_NULL_I64;
	env = env_init();
	batch_dev = 0;
	ck_assert_int_eq(cd_probe_run_sweep(&b, &env, &s, 0, 2, 30.0, &run), 0);
	ck_assert_int_eq(F.starts, 8);
	ck_assert_double_lt(run.samples[0].time_us, 1e6);
	free(run.name);
	free(run.samples);
}
END_TEST

/* A start that blocks past the deadline (a group waiting for a late peer) ends its batch there. */
static int blocking_start(struct cd_probe_env *env, size_t bytes)
{
	struct timespec ts = { 0, 60 * 1000000 };

	nanosleep(&ts, NULL);
	return fake_start(env, bytes);
}

START_TEST(test_run_batch_deadline)
{
	struct cd_probe b = probe_fake;
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;

	b.batch = 100; /* 6 s of starts: the 0.1 s budget must stop it after the first few */
	b.begin = batch_begin;
	b.end = batch_end;
	b.start = blocking_start;
	batch_begins = batch_ends = 0;
	sweep(&s, "64", "64");
	ck_assert_int_eq(cd_probe_run_sweep(&b, &env, &s, 0, 1, 0.1, &run), -1);
	ck_assert_int_eq(run.status, CD_ST_TIMEOUT);
	ck_assert_int_le(F.starts, 3);
	ck_assert_int_eq(batch_ends, 1); /* what was held is released */
	ck_assert_int_eq(F.aborts, 1);
	free(run.name);
	free(run.phase);
	free(run.reason);
	free(run.samples);
}
END_TEST

/* THE DEADLINE PATH: an operation that never completes */
START_TEST(test_run_deadline)
{
	struct cd_probe_env env = env_init();
	struct cd_results r;
	struct cd_probe_run *run;
	struct cd_sweep s;
	double t0, dt;

	cd_results_init(&r);
	run = cd_results_add_probe(&r, "fake.memcpy");
	sweep(&s, "1K", "1M");
	F.hang_at = 2 * 3 + 1; /* the first op of the third size (2 warm-up + 1 timed each) */
	t0 = cd_now_s();
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 2, 1, 0.5, run), -1);
	dt = cd_now_s() - t0;
	ck_assert(dt >= 0.5);
	ck_assert(dt < 1.5);
	ck_assert_int_eq(run->status, CD_ST_TIMEOUT);
	ck_assert_str_eq(run->phase, "collective");
	ck_assert_str_eq(run->reason, "operation of 4096 bytes did not complete within the run's 0.5 s budget");
	ck_assert_int_eq(F.aborts, 1);
	ck_assert_int_eq(F.teardowns, 1);
	ck_assert_int_eq(F.starts, 7); /* nothing after the hung operation */
	ck_assert_uint_eq(run->n_samples, 2); /* the sizes that finished stay */
	ck_assert_int_eq(run->samples[1].bytes, 2048);
	/* backed off: far fewer polls than a 0.5 s busy loop would make */
	ck_assert_int_lt(F.polls, 2000000);
	cd_results_free(&r);
}
END_TEST

/*
 * SIGINT, SIGTERM or main's --timeout set cd_stop while an operation is in flight:
 * it is aborted at the next poll and recorded as timeout with the cause, at once,
 * long before its own budget.
 */
static int stopping_poll(struct cd_probe_env *env)
{
	if (F.starts < 3)
		return fake_poll(env);
	if (++F.polls > 100)
		cd_stop = SIGINT; /* what main's handler does */
	return 0;
}

START_TEST(test_run_stopped_by_signal)
{
	struct cd_probe stopping = probe_fake;
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;
	double t0 = cd_now_s();

	stopping.poll = stopping_poll;
	sweep(&s, "1K", "1M");
	ck_assert_int_eq(cd_probe_run_sweep(&stopping, &env, &s, 0, 1, 30.0, &run), -1);
	ck_assert(cd_now_s() - t0 < 1.0);
	ck_assert_int_eq(run.status, CD_ST_TIMEOUT);
	ck_assert_str_eq(run.phase, "collective");
	ck_assert_str_eq(run.reason, "operation of 4096 bytes aborted: stopped by SIGINT");
	ck_assert_int_eq(F.aborts, 1);
	ck_assert_int_eq(F.teardowns, 1);
	ck_assert_uint_eq(run.n_samples, 2);

	/* a run told to stop starts nothing more */
	env = env_init();
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 0, 1, 30.0, &run), -1);
	ck_assert_int_eq(F.starts, 0);
	ck_assert_int_eq(F.teardowns, 1);
	ck_assert_str_eq(run.reason, "stopped by SIGINT before the operation of 1024 bytes");
	cd_stop = SIGALRM;
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 0, 1, 30.0, &run), -1);
	ck_assert_str_eq(run.reason, "stopped by the --timeout deadline before the operation of 1024 bytes");
	cd_stop = 0;
	free(run.name);
	free(run.reason);
	free(run.phase);
	free(run.samples);
}
END_TEST

/* The test fault probe.hang: an operation that completes is treated as one that never does. */
START_TEST(test_run_fault_probe_hang)
{
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;
	double t0, dt;

	ck_assert_int_eq(cd_fault_set("probe.hang"), 0);
	sweep(&s, "1K", "4K");
	t0 = cd_now_s();
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 1, 0.3, &run), -1);
	dt = cd_now_s() - t0;
	ck_assert_int_eq(cd_fault_set(NULL), 0);
	ck_assert(dt >= 0.3);
	ck_assert(dt < 1.3); /* deadline + 1 s */
	ck_assert_int_eq(run.status, CD_ST_TIMEOUT);
	ck_assert_str_eq(run.phase, "collective");
	ck_assert_str_eq(run.reason, "operation of 1024 bytes did not complete within the run's 0.3 s budget");
	ck_assert_int_eq(F.starts, 1);
	ck_assert_int_eq(F.aborts, 1);
	ck_assert_int_eq(F.teardowns, 1);
	free(run.name);
	free(run.reason);
	free(run.phase);
	free(run.samples);
}
END_TEST

/* The budget runs out between operations: stop, nothing to abort. */
static int slow_start(struct cd_probe_env *env, size_t bytes)
{
	struct timespec ts = { 0, 20 * 1000000 };

	nanosleep(&ts, NULL);
	return fake_start(env, bytes);
}

START_TEST(test_run_budget_spent)
{
	struct cd_probe slow = probe_fake;
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;

	slow.start = slow_start;
	sweep(&s, "1K", "1M");
	ck_assert_int_eq(cd_probe_run_sweep(&slow, &env, &s, 0, 4, 0.1, &run), -1);
	ck_assert_int_eq(run.status, CD_ST_TIMEOUT);
	ck_assert_str_eq(run.phase, "collective");
	ck_assert_ptr_nonnull(strstr(run.reason, "the 0.1 s budget was spent before the operation of"));
	ck_assert_int_eq(F.aborts, 0);
	ck_assert_int_eq(F.teardowns, 1);
	ck_assert_int_le(F.starts, 6);
	free(run.name);
	free(run.phase);
	free(run.reason);
	free(run.samples);
}
END_TEST

START_TEST(test_run_zero_budget)
{
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;

	sweep(&s, "1K", "1K");
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 1, 0, &run), -1);
	ck_assert_int_eq(run.status, CD_ST_TIMEOUT);
	ck_assert_int_eq(F.starts, 0);
	ck_assert_int_eq(F.teardowns, 1);
	free(run.name);
	free(run.phase);
	free(run.reason);
}
END_TEST

START_TEST(test_run_start_fails)
{
	struct cd_probe_env env = env_init();
	struct cd_results r;
	struct cd_probe_run *run;
	struct cd_sweep s;

	cd_results_init(&r);
	run = cd_results_add_probe(&r, "fake.memcpy");
	sweep(&s, "1K", "1M");
	F.start_fail_at = 3;
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 1, 30.0, run), -1);
	ck_assert_int_eq(run->status, CD_ST_ERROR);
	ck_assert_str_eq(run->reason, "cudaMemcpyAsync: invalid argument");
	ck_assert_uint_eq(run->n_samples, 1);
	ck_assert_int_eq(F.starts, 3);
	ck_assert_int_eq(F.aborts, 0);
	ck_assert_int_eq(F.teardowns, 1);
	cd_results_free(&r);
}
END_TEST

static int bare_start(struct cd_probe_env *env, size_t bytes)
{
	(void)env;
	(void)bytes;
	return -1; /* no reason given: the harness names the operation */
}

START_TEST(test_run_start_fails_without_reason)
{
	struct cd_probe bare = { .name = "bare", .start = bare_start };
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;

	sweep(&s, "1K", "1M");
	ck_assert_int_eq(cd_probe_run_sweep(&bare, &env, &s, 0, 1, 30.0, &run), -1);
	ck_assert_int_eq(run.status, CD_ST_ERROR);
	ck_assert_str_eq(run.reason, "operation of 1024 bytes failed");
	ck_assert_str_eq(run.phase, "probe");
	free(run.name);
	free(run.phase);
	free(run.reason);
}
END_TEST

START_TEST(test_run_setup_fails)
{
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;

	sweep(&s, "1K", "1M");
	F.setup_ret = -1;
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 1, 30.0, &run), -1);
	ck_assert_int_eq(run.status, CD_ST_ERROR);
	ck_assert_str_eq(run.reason, "cudaMalloc: out of memory");
	ck_assert_str_eq(run.phase, "setup");
	ck_assert_int_eq(F.starts, 0);
	ck_assert_int_eq(F.teardowns, 0); /* setup failed: nothing to tear down */
	ck_assert_uint_eq(run.n_samples, 0);
	free(run.phase);
	free(run.reason);

	env = env_init();
	F.setup_ret = CD_PROBE_TIMEOUT;
	run.phase = run.reason = NULL;
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 1, 2.0, &run), -1);
	ck_assert_int_eq(run.status, CD_ST_TIMEOUT);
	ck_assert_str_eq(run.reason, "setup did not complete within 2.0 s");
	ck_assert_int_eq(F.teardowns, 0);
	free(run.name);
	free(run.phase);
	free(run.reason);
}
END_TEST

START_TEST(test_run_bad_arguments)
{
	struct cd_probe_env env = env_init();
	struct cd_probe_run run = { 0 };
	struct cd_sweep s;

	sweep(&s, "1K", "1M");
	ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 0, 30.0, &run), -1);
	ck_assert_int_eq(run.status, CD_ST_ERROR);
	ck_assert_str_eq(run.reason, "iterations must be at least 1");
	ck_assert_int_eq(F.setups, 0);
	free(run.name);
	free(run.reason);
}
END_TEST

/*
 * The poll back-off must not distort timing. The policy itself is checked exactly; the
 * measured times only loosely (never early; not grossly late), because a loaded CI
 * machine can delay any wake-up by milliseconds. The precise numbers are in src/probe.c.
 */
START_TEST(test_backoff_policy)
{
	int64_t e;

	ck_assert_int_eq(cd_probe_backoff_ns(0), 0);
	ck_assert_int_eq(cd_probe_backoff_ns(999999), 0);      /* spin for the first 1 ms */
	ck_assert_int_eq(cd_probe_backoff_ns(1000000), 10000);
	ck_assert_int_eq(cd_probe_backoff_ns(2000000), 20000);
	ck_assert_int_eq(cd_probe_backoff_ns(5000000), 50000);
	ck_assert_int_eq(cd_probe_backoff_ns(3600000000000), 50000); /* capped */
	for (e = 1000000; e < 100000000; e += 77777) {
		ck_assert_int_le(cd_probe_backoff_ns(e), e / 100);
		ck_assert_int_ge(cd_probe_backoff_ns(e), 1000);
	}
}
END_TEST

START_TEST(test_run_backoff_accuracy)
{
	static const int64_t op_us[] = { 20, 300, 2000, 8000 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(op_us); i++) {
		struct cd_probe_env env = env_init();
		struct cd_probe_run run = { 0 };
		struct cd_sweep s;
		double want = (double)op_us[i];

		F.op_ns = op_us[i] * 1000;
		sweep(&s, "1K", "1K");
		ck_assert_int_eq(cd_probe_run_sweep(&probe_fake, &env, &s, 1, 7, 30.0, &run), 0);
		ck_assert(run.samples[0].min_time_us >= want);
		ck_assert_msg(run.samples[0].min_time_us <= want * 1.5 + 50000,
			      "op of %.0f us measured at best %.1f us", want, run.samples[0].min_time_us);
		free(run.name);
		free(run.samples);
	}
}
END_TEST

START_TEST(test_skip_and_needs)
{
	struct cd_results r;
	struct cd_probe_run *run;
	const char *why;

	ck_assert_ptr_null(cd_probe_unmet(0, 0));
	ck_assert_ptr_null(cd_probe_unmet(NEED_GPU | NEED_NCCL, NEED_GPU | NEED_GPU2 | NEED_NCCL));
	ck_assert_str_eq(cd_probe_unmet(NEED_GPU, 0), "needs a GPU");
	ck_assert_str_eq(cd_probe_unmet(NEED_GPU | NEED_GPU2, NEED_GPU), "needs two GPUs");
	ck_assert_str_eq(cd_probe_unmet(NEED_NCCL, NEED_GPU), "needs NCCL");
	ck_assert_str_eq(cd_probe_unmet(NEED_RANKS2 | NEED_GPU, NEED_GPU), "needs two ranks");

	cd_results_init(&r);
	run = cd_results_add_probe(&r, "nccl.all_reduce");
	why = cd_probe_unmet(NEED_GPU | NEED_NCCL, 0);
	cd_probe_skip(run, why);
	ck_assert_int_eq(run->status, CD_ST_SKIPPED);
	ck_assert_str_eq(run->reason, "needs a GPU");
	ck_assert_ptr_null(run->phase);
	ck_assert_uint_eq(run->n_samples, 0);
	cd_probe_skip(run, "no peer GPU reachable"); /* a second call replaces the reason */
	ck_assert_str_eq(run->reason, "no peer GPU reachable");
	cd_results_free(&r);
}
END_TEST

/* ---- the probe table and its runner ---- */

static int table_index(const char *name)
{
	size_t n;
	const struct cd_probe_def *const *t = cd_probe_table(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i]->name, name))
			return (int)i;
	return -1;
}

START_TEST(test_table_wellformed)
{
	size_t n;
	const struct cd_probe_def *const *t = cd_probe_table(&n);

	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		struct cd_sweep sw;
		char *err = NULL;

		ck_assert_msg(t[i]->name && strchr(t[i]->name, '.'), "probe %zu: name is family.op", i);
		ck_assert_ptr_nonnull(t[i]->summary);
		ck_assert_ptr_nonnull(t[i]->run);
		ck_assert_msg(t[i]->sets & CD_SET_FULL, "%s: --full runs everything", t[i]->name);
		ck_assert_msg(!(t[i]->sets & CD_SET_QUICK) || (t[i]->sets & CD_SET_DEFAULT),
			      "%s: quick probes are in the default set too", t[i]->name);
		ck_assert_msg(cd_sweep_init(&sw, t[i]->min, t[i]->max, NULL, NULL, &err) == 0, "%s: %s", t[i]->name,
			      err);
		ck_assert_int_ge(t[i]->iters, 1);
		ck_assert_int_ge(t[i]->warmup, 0);
		/* the judge reads latency at 8 KiB or less: every latency the rules read is measured there */
		if (!strcmp(t[i]->name, "mpi.latency") || !strcmp(t[i]->name, "p2p.latency") ||
		    (!strncmp(t[i]->name, "nccl.", 5) && strcmp(t[i]->name, "nccl.init") && strcmp(t[i]->name, "nccl.pairs")))
			ck_assert_msg(sw.size[0] <= CD_LAT_MAX_BYTES, "%s: default sweep starts at %zu bytes", t[i]->name,
				      sw.size[0]);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(t[k]->name, t[i]->name);
	}
}
END_TEST

START_TEST(test_table_select)
{
	size_t n;
	int *sel;
	const char *bad = NULL;
	char *exact[] = { "copy.d2h" }, *family[] = { "copy" }, *all[] = { "all" }, *unknown[] = { "copy", "cpy" };
	char *prefix_only[] = { "cop" };

	cd_probe_table(&n);
	sel = calloc(n, sizeof(*sel));
	ck_assert_int_eq(cd_probe_select(exact, 1, sel, &bad), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(sel[i], (int)i == table_index("copy.d2h"));
	ck_assert_int_eq(cd_probe_select(family, 1, sel, &bad), 0);
	ck_assert_int_eq(sel[table_index("copy.h2d")], 1);
	ck_assert_int_eq(sel[table_index("copy.bidir")], 1);
	ck_assert_int_eq(cd_probe_select(all, 1, sel, &bad), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(sel[i], 1);
	ck_assert_int_eq(cd_probe_select(unknown, 2, sel, &bad), -1);
	ck_assert_str_eq(bad, "cpy");
	/* a family is a whole word before the dot, not any prefix */
	ck_assert_int_eq(cd_probe_select(prefix_only, 1, sel, &bad), -1);
	free(sel);
}
END_TEST

/* A host whose GPU section says why there are no GPUs, as on this CI machine. */
static struct cd_host *host_without_gpus(struct cd_results *r)
{
	struct cd_host *h;

	cd_results_init(r);
	h = cd_results_add_host(r);
	h->hostname = strdup("node17");
	cd_section_set(&h->part[CD_PART_GPU], CD_ST_SKIPPED, "libcuda.so.1: cannot open shared object file");
	return h;
}

START_TEST(test_table_skips_with_reason)
{
	struct cd_results r;
	struct cd_probe_ctx pc = { .r = &r, .nranks = 1, .set = CD_SET_DEFAULT, .budget_s = 5, .end_s = INFINITY,
				   .warmup = -1, .iters = -1 };
	size_t n;
	const struct cd_probe_def *const *t = cd_probe_table(&n);
	size_t in_default = 0;

	pc.host = host_without_gpus(&r);
	cd_probe_ctx_init(&pc);
	ck_assert_uint_eq(pc.have & (NEED_GPU | NEED_GPU2 | NEED_RANKS2), 0);
	cd_probe_run_table(&pc, NULL);
	for (size_t i = 0; i < n; i++)
		in_default += !!(t[i]->sets & CD_SET_DEFAULT);
	/* one skipped run per probe of the set, each saying why, none started */
	ck_assert_uint_eq(r.n_probes, in_default);
	for (size_t i = 0; i < r.n_probes; i++) {
		ck_assert_int_eq(r.probes[i].status, CD_ST_SKIPPED);
		ck_assert_str_eq(r.probes[i].host, "node17");
		ck_assert_int_eq(r.probes[i].device, CD_NULL_I64);
		if (!strncmp(r.probes[i].name, "copy.", 5))
			ck_assert_str_eq(r.probes[i].reason, "needs a GPU: libcuda.so.1: cannot open shared object file");
	}
	cd_probe_ctx_free(&pc);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_table_unmet_reasons)
{
	struct cd_results r;
	struct cd_probe_ctx pc = { .r = &r, .nranks = 1, .nccl_lib = "libdoesnotexist.so.9" };
	struct cd_host *h = host_without_gpus(&r);

	pc.host = h;
	cd_section_set(&h->part[CD_PART_GPU], CD_ST_OK, NULL);
	cd_host_add_gpu(h)->index = 0;
	cd_probe_ctx_init(&pc);
	ck_assert_uint_eq(pc.have, NEED_GPU);
	ck_assert_str_eq(pc.unmet[1], "needs two GPUs: this host has one");
	ck_assert_msg(strstr(pc.unmet[2], "needs NCCL: libdoesnotexist.so.9") != NULL, "%s", pc.unmet[2]);
	ck_assert_str_eq(pc.unmet[3], "needs two or more ranks: run under mpirun or srun");
	cd_probe_ctx_free(&pc);
	cd_results_free(&r);
}
END_TEST

/* With the needs met but no driver to load, a GPU probe fails in setup with the loader's reason. */
START_TEST(test_table_run_without_driver)
{
	struct cd_results r;
	struct cd_probe_ctx pc = { .r = &r, .nranks = 1, .budget_s = 5, .end_s = INFINITY, .warmup = -1, .iters = -1 };
	struct cd_host *h = host_without_gpus(&r);
	const char *why = NULL;
	int *sel;
	size_t n;
	char *name[] = { "copy.h2d" };

	if (cd_dl_cuda(&why))
		return; /* a machine with a driver: this case cannot be made here */
	pc.host = h;
	cd_host_add_gpu(h)->index = 0;
	cd_host_add_gpu(h)->index = 1;
	pc.have = NEED_GPU | NEED_GPU2;
	cd_probe_table(&n);
	sel = calloc(n, sizeof(*sel));
	ck_assert_int_eq(cd_probe_select(name, 1, sel, &why), 0);
	cd_probe_run_table(&pc, sel);
	ck_assert_uint_eq(r.n_probes, 2); /* one per GPU */
	ck_assert_int_eq(r.probes[1].device, 1);
	ck_assert_int_eq(r.probes[1].status, CD_ST_ERROR);
	ck_assert_str_eq(r.probes[1].phase, "setup");
	ck_assert_msg(strstr(r.probes[1].reason, "libcuda.so.1") != NULL, "%s", r.probes[1].reason);

	/* past the run's end nothing starts: recorded as timeout before it began */
	pc.end_s = cd_now_s() - 1;
	cd_probe_run_table(&pc, sel);
	ck_assert_uint_eq(r.n_probes, 3);
	ck_assert_int_eq(r.probes[2].status, CD_ST_TIMEOUT);
	ck_assert_str_eq(r.probes[2].phase, "start");
	free(sel);
	cd_results_free(&r);
}
END_TEST

/* The GPU data check's windows: whole when small; above, first and last and a stride between, word-aligned, in order. */
START_TEST(test_gpu_check_windows)
{
	size_t len, off, prev_end = 0, k, bytes = (40u << 20) + 3;

	off = cd_gpu_check_window(CD_GPU_CHECK_WHOLE, 0, &len);
	ck_assert_uint_eq(off, 0);
	ck_assert_uint_eq(len, CD_GPU_CHECK_WHOLE);
	cd_gpu_check_window(CD_GPU_CHECK_WHOLE, 1, &len);
	ck_assert_uint_eq(len, 0);
	for (k = 0; (off = cd_gpu_check_window(bytes, k, &len)), len; k++) {
		ck_assert_uint_eq(off % 4, 0);
		ck_assert(k == 0 || off >= prev_end); /* no element counted twice */
		ck_assert(off + len <= bytes);
		ck_assert_uint_ge(len, CD_GPU_CHECK_WIN);
		prev_end = off + len;
		if (k == 0)
			ck_assert_uint_eq(off, 0);
	}
	ck_assert_uint_eq(k, CD_GPU_CHECK_WINDOWS + 2);
	ck_assert_uint_eq(prev_end, bytes); /* the last window ends with the buffer: a short copy is caught */
}
END_TEST

/* A wrong byte anywhere in a window, the ragged tail included, is one wrong element; between windows none. */
START_TEST(test_gpu_count_wrong_range)
{
	size_t bytes = (20u << 20) + 2, len, off, last;
	unsigned char *buf = malloc(bytes);
	int64_t wrong = 0;

	ck_assert_ptr_nonnull(buf);
	cd_gpu_fill(buf, bytes, CD_GPU_SEED);
	ck_assert_int_eq(cd_gpu_count_wrong(buf, bytes, CD_GPU_SEED), 0);
	off = cd_gpu_check_window(bytes, 5, &len);
	buf[off + len - 1] ^= 1;                       /* the last byte of window 5 */
	buf[off + len + 4096] ^= 1;                    /* between windows 5 and 6 */
	last = cd_gpu_check_window(bytes, CD_GPU_CHECK_WINDOWS + 1, &len);
	buf[bytes - 1] ^= 0x40;                        /* the ragged tail, as FAKE_CUDA=corrupt flips it */
	for (size_t k = 0; (off = cd_gpu_check_window(bytes, k, &len)), len; k++)
		wrong += cd_gpu_count_wrong_range(buf, off, off + len, CD_GPU_SEED);
	ck_assert_int_eq(wrong, 2);
	ck_assert_int_eq(cd_gpu_count_wrong(buf, bytes, CD_GPU_SEED), 3);
	ck_assert_int_eq(cd_gpu_count_wrong_range(buf, last, bytes - 2, CD_GPU_SEED), 0);
	free(buf);
}
END_TEST

Suite *probe_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("math");
	TCase *th = tcase_create("harness");

	tcase_add_test(tc, test_busbw_factors);
	tcase_add_test(tc, test_run_batch);
	tcase_add_test(tc, test_run_batch_deadline);
	tcase_add_test(tc, test_sweep_factor);
	tcase_add_test(tc, test_sweep_increment);
	tcase_add_test(tc, test_sweep_edges);
	tcase_add_test(tc, test_sweep_errors);
	tcase_add_test(tc, test_stats);
	tcase_add_test(tc, test_stats_quantile);
	tcase_add_test(tc, test_stats_fill);
	tcase_add_test(tc, test_backoff_policy);
	tcase_add_test(tc, test_gpu_check_windows);
	tcase_add_test(tc, test_gpu_count_wrong_range);
	suite_add_tcase(s, tc);

	tcase_set_timeout(th, 30);
	tcase_add_test(th, test_run_memcpy);
	tcase_add_test(th, test_run_wrong_elements);
	tcase_add_test(th, test_run_unchecked_and_sync);
	tcase_add_test(th, test_run_deadline);
	tcase_add_test(th, test_run_budget_spent);
	tcase_add_test(th, test_run_stopped_by_signal);
	tcase_add_test(th, test_run_fault_probe_hang);
	tcase_add_test(th, test_run_zero_budget);
	tcase_add_test(th, test_run_start_fails);
	tcase_add_test(th, test_run_start_fails_without_reason);
	tcase_add_test(th, test_run_setup_fails);
	tcase_add_test(th, test_run_bad_arguments);
	tcase_add_test(th, test_run_backoff_accuracy);
	tcase_add_test(th, test_skip_and_needs);
	tcase_add_test(th, test_table_wellformed);
	tcase_add_test(th, test_table_select);
	tcase_add_test(th, test_table_skips_with_reason);
	tcase_add_test(th, test_table_unmet_reasons);
	tcase_add_test(th, test_table_run_without_driver);
	suite_add_tcase(s, th);
	return s;
}
