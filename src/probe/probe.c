/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe harness: size sweep, warm-up, timed iterations, data check, statistics,
 * algbw/busbw and the deadline (nccl-tests common.cu's job, for every probe at once).
 */
#include "probe.h"

#include <ctype.h>
#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "progress.h"
#include "util.h"

/* ---- bus bandwidth factors: nccl-tests src/<coll>.cu, *GetBw ---- */

double cd_busbw_all_reduce(int n)
{
	return n > 0 ? (double)(2 * (n - 1)) / (double)n : NAN;
}

double cd_busbw_all_gather(int n)
{
	return n > 0 ? (double)(n - 1) / (double)n : NAN;
}

double cd_busbw_reduce_scatter(int n)
{
	return n > 0 ? (double)(n - 1) / (double)n : NAN;
}

double cd_busbw_alltoall(int n)
{
	return n > 0 ? (double)(n - 1) / (double)n : NAN;
}

double cd_busbw_broadcast(int n)
{
	return n > 0 ? 1.0 : NAN;
}

double cd_busbw_reduce(int n)
{
	return n > 0 ? 1.0 : NAN;
}

double cd_busbw_sendrecv(int n)
{
	return n > 0 ? 1.0 : NAN;
}

/* ---- the size sweep ---- */

static int sweep_fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sweep_fail(char **err, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (err)
		*err = msg;
	else
		free(msg);
	return -1;
}

static int parse_bytes(const char *opt, const char *s, size_t *out, char **err)
{
	uint64_t v;

	if (cd_parse_size(s, &v) < 0)
		return sweep_fail(err, "%s: '%s' is not a size like 8, 64K, 8M or 1G", opt, s);
#if SIZE_MAX < UINT64_MAX
	if (v > SIZE_MAX)
		return sweep_fail(err, "%s: '%s' is larger than this machine can address", opt, s);
#endif
	*out = (size_t)v;
	return 0;
}

/* The size after prev in a sweep that does not start at 0; 0 after the last. */
static size_t sweep_step(const struct cd_sweep *s, size_t prev)
{
	size_t next;

	if (s->factor) {
		if (prev > SIZE_MAX / s->factor)
			return 0;
		next = prev * s->factor;
	} else {
		if (prev > SIZE_MAX - s->incr)
			return 0;
		next = prev + s->incr;
	}
	return next <= s->max ? next : 0;
}

int cd_sweep_init(struct cd_sweep *s, const char *min, const char *max, const char *factor,
		  const char *incr, char **err)
{
	const char *min_text = min ? min : CD_SWEEP_DEFAULT_MIN;
	const char *max_text = max ? max : CD_SWEEP_DEFAULT_MAX;
	size_t b;

	memset(s, 0, sizeof(*s));
	if (err)
		*err = NULL;
	if (parse_bytes("-b", min_text, &s->min, err) < 0 || parse_bytes("-e", max_text, &s->max, err) < 0)
		return -1;
	if (!min && s->max < s->min) /* only -e given: start there */
		s->min = s->max, min_text = max_text;
	if (!max && s->max < s->min) /* only -b given: a single size */
		s->max = s->min, max_text = min_text;
	if (!s->max)
		return sweep_fail(err, "-e: '%s' is not a size of at least 1 byte", max_text);
	if (s->max < s->min)
		return sweep_fail(err, "-e: '%s' is smaller than -b '%s'", max_text, min_text);
	if (factor && incr)
		return sweep_fail(err, "-f and -i exclude each other: give a factor (-f) or an increment (-i), not both");
	if (incr) {
		if (parse_bytes("-i", incr, &s->incr, err) < 0)
			return -1;
		if (!s->incr)
			return sweep_fail(err, "-i: '%s' is not an increment of at least 1 byte", incr);
	} else {
		const char *f = factor ? factor : CD_SWEEP_DEFAULT_FACTOR;
		unsigned long long v;
		char *end;
		size_t i;

		for (i = 0; f[i]; i++)
			if (!isdigit((unsigned char)f[i]))
				break;
		errno = 0;
		v = (i && !f[i]) ? strtoull(f, &end, 10) : 0;
		if (errno || v < 2 || v > SIZE_MAX)
			return sweep_fail(err, "-f: '%s' is not a whole factor of at least 2", f);
		s->factor = (size_t)v;
	}
	/* 0 B first (osu_latency's first line), then on from 1 B or the increment, as osu does */
	b = s->min ? s->min : 0;
	for (;;) {
		if (s->n == CD_SWEEP_MAX)
			return sweep_fail(err, "-b '%s' -e '%s': the sweep has more than %d sizes: raise -f or -i",
					  min_text, max_text, CD_SWEEP_MAX);
		s->size[s->n++] = b;
		s->last = b ? b : 1; /* a buffer of 0 bytes is no buffer: cuMemAlloc refuses it */
		b = b ? sweep_step(s, b) : s->factor ? 1 : s->incr;
		if (!b || b > s->max)
			break;
	}
	return 0;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double cd_stats_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double cd_stats_min(const double *v, size_t n)
{
	double m = n ? v[0] : NAN;
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double cd_stats_max(const double *v, size_t n)
{
	double m = n ? v[0] : NAN;
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

double cd_stats_quantile(const double *sorted, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (!n)
		return NAN;
	h = (double)(n - 1) * (q < 0 ? 0 : q > 1 ? 1 : q);
	lo = floor(h);
	i = (size_t)lo;
	return i + 1 < n ? sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]) : sorted[n - 1];
}

void cd_stats_fill(struct cd_probe_sample *s, double *v, size_t n)
{
	double iqr;
	int64_t out = 0;

	s->time_us = cd_stats_median(v, n); /* sorts v */
	if (!n)
		return;
	s->min_time_us = v[0];
	s->max_time_us = v[n - 1];
	s->p10_time_us = cd_stats_quantile(v, n, 0.10);
	s->p25_time_us = cd_stats_quantile(v, n, 0.25);
	s->p75_time_us = cd_stats_quantile(v, n, 0.75);
	s->p90_time_us = cd_stats_quantile(v, n, 0.90);
	/* Tukey's "far out" values (Exploratory Data Analysis, 1977): 3 IQR beyond the quartiles */
	iqr = s->p75_time_us - s->p25_time_us;
	for (size_t i = 0; i < n; i++)
		out += v[i] < s->p25_time_us - 3 * iqr || v[i] > s->p75_time_us + 3 * iqr;
	s->outliers = out;
}

/* ---- probe plumbing ---- */

int cd_probe_fail(struct cd_probe_env *env, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(env->why, sizeof(env->why), fmt, ap);
	va_end(ap);
	return -1;
}

const char *cd_probe_unmet(unsigned needs, unsigned have)
{
	static const struct {
		unsigned bit;
		const char *why;
	} need[] = {
		{ NEED_GPU, "needs a GPU" },
		{ NEED_GPU2, "needs two GPUs" },
		{ NEED_NCCL, "needs NCCL" },
		{ NEED_RANKS2, "needs two ranks" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(need); i++)
		if ((needs & need[i].bit) && !(have & need[i].bit))
			return need[i].why;
	return NULL;
}

void cd_probe_set_status(struct cd_probe_run *out, enum cd_status st, const char *phase, const char *reason)
{
	out->status = st;
	free(out->phase);
	out->phase = phase ? xstrdup(phase) : NULL;
	free(out->reason);
	out->reason = reason ? xstrdup(reason) : NULL;
}

void cd_probe_skip(struct cd_probe_run *out, const char *reason)
{
	cd_probe_set_status(out, CD_ST_SKIPPED, NULL, reason ? reason : "skipped");
}

/* ---- timing ---- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Waiting for an operation. The first SPIN_NS of every operation are a pure poll loop,
 * so anything shorter is timed to the poll's own resolution (nccl-tests spins too);
 * the clock, as dear as an MPI_Testall, is read only every SPIN_POLLS polls there (the
 * end of an operation is still read at once, by the caller).
 * After that the loop sleeps between polls for elapsed/BACKOFF_DIV, between 1 µs and
 * 50 µs, so a hung operation costs about a quarter of a core until its deadline rather
 * than a whole one, and completion is noticed late by at most ~1% of the operation's
 * time plus one wake-up. The wake-up is a few µs because the harness sets the thread's
 * timer slack to 1 ns while it runs (the default 50 µs slack made 1-2 ms operations
 * read 4-6% long). Measured on an idle 2-core VM, median over 50 operations of known
 * length: 5 µs +1.2% (clock/poll overhead), 50 µs +0.2%, 0.5 ms +0.02%, 1.1 ms +1.5%,
 * 2 ms +0.8%, 5 ms +0.7%, 20 ms +0.2%, 100 ms +0.03%.
 */
#define SPIN_NS 1000000         /* 1 ms */
#define SPIN_POLLS 16
#define BACKOFF_DIV 100
#define MIN_SLEEP_NS 1000       /* 1 µs */
#define MAX_SLEEP_NS 50000      /* 50 µs */

int64_t cd_probe_backoff_ns(int64_t elapsed_ns)
{
	int64_t ns;

	if (elapsed_ns < SPIN_NS)
		return 0;
	ns = elapsed_ns / BACKOFF_DIV;
	return ns < MIN_SLEEP_NS ? MIN_SLEEP_NS : ns > MAX_SLEEP_NS ? MAX_SLEEP_NS : ns;
}

enum { OP_DONE = 1, OP_FAILED = -1, OP_TIMEOUT = -2, OP_STOPPED = -3 };

/*
 * Wait for the operation started at t0; OP_TIMEOUT when deadline (ns) passes first,
 * OP_STOPPED when the run is told to stop (cd_stop: SIGINT, SIGTERM, --timeout).
 * The test fault probe.hang makes every operation one that never completes.
 */
static int op_wait(const struct cd_probe *p, struct cd_probe_env *env, int64_t t0, int64_t deadline)
{
	int hang = cd_fault_active("probe.hang"), spinning = 1;

	for (unsigned polls = 1;; polls++) {
		int r = p->poll ? p->poll(env) : 1;
		int64_t t, dt;
		struct timespec ts;

		if (r > 0 && !hang)
			return OP_DONE;
		if (r < 0)
			return OP_FAILED;
		if (cd_stop)
			return OP_STOPPED;
		if (spinning && polls % SPIN_POLLS)
			continue;
		t = now_ns();
		if (t >= deadline)
			return OP_TIMEOUT;
		dt = cd_probe_backoff_ns(t - t0);
		spinning = !dt;
		if (spinning)
			continue;
		if (dt > deadline - t)
			dt = deadline - t;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)dt;
		nanosleep(&ts, NULL); /* EINTR: poll again early, harmless */
	}
}

struct sweep_state {
	const struct cd_probe *p;
	struct cd_probe_env *env;
	struct cd_probe_run *out;
	int64_t deadline;       /* ns, CLOCK_MONOTONIC */
	double budget_s;
	const char *phase;
};

/* What a failed or timed-out operation records; -1. */
static int op_failed(struct sweep_state *st, size_t bytes, int r)
{
	char *msg;

	if (r == OP_TIMEOUT || r == OP_STOPPED) {
		if (st->p->abort)
			st->p->abort(st->env);
		if (r == OP_STOPPED)
			msg = xasprintf("operation of %zu bytes aborted: stopped by %s", bytes, cd_stop_cause());
		else
			/* the budget is the run's, all sizes: not this operation's alone */
			msg = xasprintf("operation of %zu bytes did not complete within the run's %.1f s budget", bytes,
					st->budget_s);
		cd_probe_set_status(st->out, CD_ST_TIMEOUT, st->phase, msg);
	} else {
		msg = st->env->why[0] ? xstrdup(st->env->why)
				      : xasprintf("operation of %zu bytes failed", bytes);
		cd_probe_set_status(st->out, CD_ST_ERROR, st->phase, msg);
	}
	free(msg);
	return -1;
}

/*
 * One sample: one operation, or p->batch launched back to back and waited for once. On
 * success *us is the time of one operation. Records the status on failure or timeout.
 */
static int one_sample(struct sweep_state *st, size_t bytes, double *us)
{
	int k = st->p->batch > 1 ? st->p->batch : 1, r = 0, late = 0, i;
	int64_t t0, t1;
	char *msg;
	double dev;

	if (cd_stop) {
		msg = xasprintf("stopped by %s before the operation of %zu bytes", cd_stop_cause(), bytes);
		cd_probe_set_status(st->out, CD_ST_TIMEOUT, st->phase, msg);
		free(msg);
		return -1;
	}
	if (now_ns() >= st->deadline) {
		msg = xasprintf("the %.1f s budget was spent before the operation of %zu bytes",
				st->budget_s, bytes);
		cd_probe_set_status(st->out, CD_ST_TIMEOUT, st->phase, msg);
		free(msg);
		return -1;
	}
	if (st->p->before)
		st->p->before(st->env);
	st->env->why[0] = '\0';
	t0 = now_ns();
	if (k > 1 && st->p->begin && st->p->begin(st->env) < 0)
		return op_failed(st, bytes, OP_FAILED);
	for (i = 0; i < k && r == 0; i++) {
		/* a start may block (a group waiting for a late peer): the deadline holds between them */
		if (i && (cd_stop || now_ns() >= st->deadline)) {
			late = cd_stop ? OP_STOPPED : OP_TIMEOUT;
			break;
		}
		r = st->p->start(st->env, bytes);
	}
	/* what was launched must be released before anything waits for it */
	if (k > 1 && st->p->end && st->p->end(st->env) < 0 && r == 0)
		r = -1;
	if (late && r == 0)
		r = late;
	else if (r == 0)
		r = op_wait(st->p, st->env, t0, st->deadline);
	else
		r = r == CD_PROBE_TIMEOUT ? OP_TIMEOUT : OP_FAILED;
	t1 = now_ns();
	if (r != OP_DONE)
		return op_failed(st, bytes, r);
	if (k > 1 && st->p->op_us && st->p->op_us(st->env, &dev) == 0 && dev >= 0)
		*us = dev;
	else
		*us = (double)(t1 - t0) / 1e3 / k;
	return 0;
}

int64_t cd_probe_cpu_wait_ns(void)
{
	char buf[128];
	unsigned long long run, wait;
	ssize_t n;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (int64_t)wait : -1;
}

/* Warm-up, timed iterations and check for one size; -1 stops the sweep. */
static int one_size(struct sweep_state *st, size_t bytes, int warmup, int iters, double *t_us)
{
	struct cd_probe_sample *s;
	int64_t w0, w1;
	double factor, total = 0, dt;
	int i;

	for (i = 0; i < warmup; i++)
		if (one_sample(st, bytes, &dt) < 0)
			return -1;
	w0 = cd_probe_cpu_wait_ns(); /* outside the timed operations: they never wait for this read */
	for (i = 0; i < iters; i++) {
		if (one_sample(st, bytes, &t_us[i]) < 0)
			return -1;
		total += t_us[i] * (st->p->batch > 1 ? st->p->batch : 1);
	}
	w1 = cd_probe_cpu_wait_ns();
	s = cd_probe_add_sample(st->out);
	s->bytes = (int64_t)bytes;
	s->iters = iters;
	if (w0 >= 0 && w1 >= w0 && total > 0)
		s->cpu_wait_pct = fmin(100.0, 100.0 * (double)(w1 - w0) / 1e3 / total);
	cd_stats_fill(s, t_us, (size_t)iters);
	factor = st->p->busbw_factor ? st->p->busbw_factor(st->env->nranks) : 1.0;
	if (s->time_us > 0) {
		s->algbw_gbyte_s = (double)bytes / s->time_us / 1e3; /* B/µs = MB/s; /1e3 = GB/s */
		s->busbw_gbyte_s = s->algbw_gbyte_s * factor;
	}
	if (st->p->check) {
		int64_t wrong;

		st->env->why[0] = '\0';
		wrong = st->p->check(st->env, bytes);
		if (wrong < 0) {
			char *msg = st->env->why[0] ? xstrdup(st->env->why)
						    : xasprintf("data check of %zu bytes failed", bytes);

			cd_probe_set_status(st->out, CD_ST_ERROR, "check", msg);
			free(msg);
			return -1;
		}
		s->errors = wrong;
		if (wrong > 0 && st->out->status == CD_ST_OK) {
			char *msg = xasprintf("%lld wrong elements at %zu bytes", (long long)wrong, bytes);

			cd_probe_set_status(st->out, CD_ST_ERROR, "check", msg);
			free(msg);
		}
	}
	return 0;
}

/* The progress line's target: the GPU, the GPU pair, or the peer rank, and the variant. */
static void progress_target(const struct cd_probe_env *env, const struct cd_probe_run *out, int setup)
{
	char t[64] = "";

	if (env->device >= 0 && env->peer >= 0)
		snprintf(t, sizeof(t), "gpu%d-gpu%d", env->device, env->peer);
	else if (env->device >= 0)
		snprintf(t, sizeof(t), "gpu%d", env->device);
	else if (env->peer >= 0)
		snprintf(t, sizeof(t), "rank %d", env->peer);
	cd_progress_target("%s%s%s", t, t[0] && out->variant ? " " : "", out->variant ? out->variant : "");
	cd_progress_detail("%s", setup ? "setup" : "");
}

int cd_probe_run_sweep(const struct cd_probe *p, struct cd_probe_env *env, const struct cd_sweep *sw,
		       int warmup, int iters, double deadline_s, struct cd_probe_run *out)
{
	struct sweep_state st = { .p = p, .env = env, .out = out, .budget_s = deadline_s,
				  .phase = p->phase ? p->phase : "probe" };
	int64_t start = now_ns();
	int slack, setup_ok = 0;
	double *t_us = NULL;
	size_t b, i;

	if (!out->name)
		out->name = xstrdup(p->name);
	out->nranks = env->nranks >= 1 ? env->nranks : CD_NULL_I64;
	out->device = env->device >= 0 ? env->device : CD_NULL_I64;
	out->peer = env->peer >= 0 ? env->peer : CD_NULL_I64;
	cd_probe_set_status(out, CD_ST_OK, NULL, NULL);
	if (!p->start || iters < 1 || !sw->n) {
		cd_probe_set_status(out, CD_ST_ERROR, NULL, !p->start ? "probe has no operation" :
			iters < 1 ? "iterations must be at least 1" : "empty size sweep");
		return -1;
	}
	if (warmup < 0)
		warmup = 0;
	if (!(deadline_s > 0))
		st.deadline = start;
	else if (deadline_s * 1e9 >= (double)(INT64_MAX - start))
		st.deadline = INT64_MAX;
	else
		st.deadline = start + (int64_t)(deadline_s * 1e9);
	env->max_bytes = sw->last;
	env->deadline = cd_now_s() + (deadline_s > 0 ? deadline_s : 0);
	env->why[0] = '\0';

	slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (slack > 1)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	progress_target(env, out, p->setup != NULL);
	if (p->setup) {
		int r = p->setup(env, sw->last);

		if (r < 0) {
			char *msg;

			if (r == CD_PROBE_TIMEOUT)
				msg = env->why[0] ? xstrdup(env->why)
						  : xasprintf("setup did not complete within %.1f s", deadline_s);
			else
				msg = env->why[0] ? xstrdup(env->why) : xstrdup("setup failed");
			cd_probe_set_status(out, r == CD_PROBE_TIMEOUT ? CD_ST_TIMEOUT : CD_ST_ERROR,
				p->setup_phase ? p->setup_phase : "setup", msg);
			free(msg);
			goto out;
		}
	}
	setup_ok = 1;
	t_us = xcalloc((size_t)iters, sizeof(*t_us));
	for (i = 0; i < sw->n; i++) {
		b = sw->size[i];
		/* between sizes, before the untimed warm-up: never inside the timed iterations */
		cd_progress_size(b, i + 1, sw->n);
		if (one_size(&st, b, warmup, iters, t_us) < 0)
			break;
	}
out:
	if (setup_ok && p->teardown)
		p->teardown(env);
	free(t_us);
	if (slack > 1)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	return out->status == CD_ST_OK ? 0 : -1;
}
