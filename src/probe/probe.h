/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A probe knows how to run one operation; the harness (src/probe.c) owns the rest:
 * the size sweep, warm-up (not timed), timed iterations, the data check (outside the
 * timed loop), statistics (median, min, max), algbw/busbw and the deadline.
 * This is nccl-tests' testColl/testEngine split, minus one binary per test.
 */
#ifndef CD_PROBE_H
#define CD_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "results.h"

/* What a probe needs; the caller compares it with what the host has (cd_probe_unmet). */
enum { NEED_GPU = 1u << 0, NEED_GPU2 = 1u << 1, NEED_NCCL = 1u << 2, NEED_RANKS2 = 1u << 3 };

/* setup and start may also return this: the probe gave up at env->deadline itself. */
#define CD_PROBE_TIMEOUT (-2)

/*
 * What the harness hands a probe. The caller fills device/peer/rank/nranks (and may
 * lend buffers in send/recv); the harness sets max_bytes and deadline before setup
 * and clears why[] before each call.
 */
struct cd_probe_env {
	int device;             /* GPU index; -1 for host-only probes */
	int peer;               /* peer GPU or rank; -1 when none */
	int rank;
	int nranks;             /* >= 1: the n of the bus bandwidth factor */
	void *send, *recv;      /* borrowed from the caller, or allocated by setup and freed by teardown */
	size_t max_bytes;       /* the sweep's largest size (what setup must allocate for) */
	void *priv;             /* the probe's own state */
	double deadline;        /* absolute cd_now_s() time after which the harness aborts */
	char why[256];          /* a failure reason, written with cd_probe_fail() */
};

struct cd_probe {
	const char *name;                               /* "nccl.all_reduce", "copy.h2d" */
	unsigned needs;                                 /* NEED_* */
	double (*busbw_factor)(int nranks);             /* nccl-tests' factors; NULL = 1 */
	int (*setup)(struct cd_probe_env *env, size_t max_bytes);  /* optional: 0, -1, CD_PROBE_TIMEOUT */
	int (*start)(struct cd_probe_env *env, size_t bytes);      /* launch one operation: 0 or -1 */
	int (*poll)(struct cd_probe_env *env);          /* 1 done, 0 still running, -1 failed; NULL: start is synchronous */
	void (*abort)(struct cd_probe_env *env);        /* once, past the deadline: tear the operation down; optional */
	int64_t (*check)(struct cd_probe_env *env, size_t bytes); /* optional: wrong elements of the last op, -1 if it cannot tell */
	void (*teardown)(struct cd_probe_env *env);     /* optional; called whenever setup succeeded (or is NULL) */
	void (*before)(struct cd_probe_env *env);       /* optional: before each operation, outside its time */
	/*
	 * Batch mode, nvbandwidth's and nccl-tests' method: each timed sample is `batch`
	 * operations launched back to back (start called that many times without waiting),
	 * then polled once; the sample is their time / batch, from op_us when the probe has
	 * it (device time: CUDA events), else the wall clock from before the first start to
	 * poll's done. 0 or 1: each operation is timed alone, from start to done.
	 */
	int batch;
	int (*begin)(struct cd_probe_env *env);         /* optional: before a sample's starts (hold a stream, an event): 0, -1 */
	int (*end)(struct cd_probe_env *env);           /* optional: after them (an event, release the stream): 0, -1 */
	int (*op_us)(struct cd_probe_env *env, double *us); /* optional: device time per operation of the sample polled done; 0, or -1: use the wall clock */
	const char *phase;                              /* what a timeout in start/poll is called: "copy", "collective" */
	const char *setup_phase;                        /* what a timeout in setup is called: "init"; NULL = "setup" */
};

/*
 * Bus bandwidth factors, exactly nccl-tests' *GetBw (src/<coll>.cu): busbw = algbw × factor.
 * The formulas are kept as they are for every n, so all_reduce gives 0 for n = 1
 * (2(n-1)/n), as do all_gather, reduce_scatter and alltoall ((n-1)/n): one rank moves
 * nothing over a bus. n <= 0 is not a communicator size; those functions return NAN.
 * For all_gather, reduce_scatter and alltoall nccl-tests' algbw divides the total
 * (count × nranks × type size) by the time: a probe's sweep size is that total.
 */
double cd_busbw_all_reduce(int n);     /* 2(n-1)/n */
double cd_busbw_all_gather(int n);     /* (n-1)/n */
double cd_busbw_reduce_scatter(int n); /* (n-1)/n */
double cd_busbw_alltoall(int n);       /* (n-1)/n */
double cd_busbw_broadcast(int n);      /* 1 */
double cd_busbw_reduce(int n);         /* 1 */
double cd_busbw_sendrecv(int n);       /* 1 */

/*
 * The size sweep, as nccl-tests: sizes min, min×factor, … (or min, min+incr, …) up to
 * and including max; the last size may be below max when the steps do not land on it.
 * A sweep from 0 B goes on as osu_latency's does: 0, 1, factor, factor², … (or 0, incr, …).
 */
#define CD_SWEEP_MAX 64              /* sizes in one sweep */
#define CD_SWEEP_DEFAULT_MIN "8"
#define CD_SWEEP_DEFAULT_MAX "128M"
#define CD_SWEEP_DEFAULT_FACTOR "2"

struct cd_sweep {
	size_t min, max;    /* bytes; max >= 1, min may be 0 */
	size_t factor;      /* >= 2 for a multiplicative sweep, else 0 */
	size_t incr;        /* >= 1 for an additive sweep, else 0 */
	size_t n;           /* number of sizes, 1..CD_SWEEP_MAX */
	size_t size[CD_SWEEP_MAX]; /* the sizes, ascending */
	size_t last;        /* the largest size swept, at least 1 (what buffers need) */
};

/*
 * Parse -b MIN -e MAX and one of -f FACTOR / -i INCREMENT. Sizes take cd_parse_size()
 * forms ("8", "64K", "8M", "1G"). NULL means the default: min 8 (lowered to MAX when
 * that is smaller), max 128M (raised to MIN when that is larger), factor 2 when
 * neither -f nor -i is given. Returns 0, or -1 with *err (when err is not NULL) set
 * to a heap message naming the option, e.g. "-b: '12Q' is not a size like 8, 64K,
 * 8M or 1G", for main to print before exiting 2.
 */
int cd_sweep_init(struct cd_sweep *s, const char *min, const char *max, const char *factor,
		  const char *incr, char **err);

/*
 * Statistics over n values; NAN when n is 0. cd_stats_median sorts v in place
 * (ascending) and returns the middle value, or the mean of the two middle values
 * when n is even.
 */
double cd_stats_median(double *v, size_t n);
double cd_stats_min(const double *v, size_t n);
double cd_stats_max(const double *v, size_t n);
/*
 * The q-quantile (0 <= q <= 1) of n ascending values, interpolating linearly between
 * order statistics (Hyndman & Fan's type 7: R's default and NumPy's); NAN when n is 0.
 */
double cd_stats_quantile(const double *sorted, size_t n, double q);
/*
 * Fill a sample's times from n per-iteration times (v is sorted in place): median, min,
 * max, p10, p25, p75, p90, and the count of iterations beyond Tukey's far-out fences
 * (below Q1 - 3 IQR or above Q3 + 3 IQR).
 */
void cd_stats_fill(struct cd_probe_sample *s, double *v, size_t n);
/*
 * Nanoseconds the calling thread has spent runnable but waiting for a CPU (the second
 * field of /proc/thread-self/schedstat, the kernel's run-queue delay), or -1 when the
 * kernel does not say. The harness reads it around a size's timed iterations.
 */
int64_t cd_probe_cpu_wait_ns(void);

/*
 * The harness's wait policy: how long to sleep between polls once an operation has run
 * elapsed_ns; 0 means poll again at once (the first 1 ms spins). Never more than 1% of
 * elapsed (above the 1 µs floor) nor 50 µs, so sleeping adds little to a measured time.
 */
int64_t cd_probe_backoff_ns(int64_t elapsed_ns);

/* A failure reason for the harness to record; returns -1 so a probe can `return cd_probe_fail(...)`. */
int cd_probe_fail(struct cd_probe_env *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* NULL when `have` (NEED_* bits) covers `needs`, else why not ("needs two GPUs"). */
const char *cd_probe_unmet(unsigned needs, unsigned have);
/* Record the probe as skipped with reason (copied). */
void cd_probe_skip(struct cd_probe_run *out, const char *reason);
/* Record how a run ended: its status, the phase it was in and why (both copied; NULL for none). */
void cd_probe_set_status(struct cd_probe_run *out, enum cd_status st, const char *phase, const char *reason);

/*
 * Run p over every size of sw: setup(max = sw->last), then per size `warmup` untimed
 * and `iters` timed samples (each one operation timed with CLOCK_MONOTONIC from start
 * until poll says done, or p->batch operations back to back, timed by p->op_us or the
 * clock and divided: see struct cd_probe), then check; teardown. Appends one sample per completed size to out and
 * fills out->nranks/device/peer from env (name is left as the caller set it, or p->name).
 *
 * deadline_s is the wall-clock budget of the whole sweep, setup included (INFINITY for
 * none; <= 0 times out at once). An operation still running at the deadline is aborted
 * (p->abort, once) and recorded as CD_ST_TIMEOUT with phase p->phase ("probe" if NULL);
 * a budget spent between operations stops the sweep the same way, without abort,
 * since nothing is in flight. Failures of setup/start/poll are CD_ST_ERROR with a
 * reason (the probe's cd_probe_fail text if it gave one) and stop the sweep. Wrong
 * elements from check are recorded in the sample and make the status CD_ST_ERROR
 * ("N wrong elements at S bytes", first occurrence) but the sweep goes on, as
 * nccl-tests reports #wrong and continues. A start that blocks cannot be interrupted:
 * asynchronous probes return from start at once and let poll report completion.
 *
 * A run told to stop (cd_stop: SIGINT, SIGTERM, main's --timeout) is a safe point
 * between operations and at every poll: the operation in flight is aborted and the
 * run recorded as CD_ST_TIMEOUT with the phase and "stopped by SIGINT". The test fault
 * probe.hang (fault.h) makes every operation one that never completes.
 *
 * Returns 0 when out->status is CD_ST_OK, else -1. Prints nothing but the progress line
 * (progress.h), updated before setup and before each size's warm-up, never between the
 * timed operations.
 */
int cd_probe_run_sweep(const struct cd_probe *p, struct cd_probe_env *env, const struct cd_sweep *sw,
		       int warmup, int iters, double deadline_s, struct cd_probe_run *out);

/* ---- the probe table: what `commdiag probe NAME…` and `check` run ---- */

/*
 * Which runs include a probe: `check --quick`, `check`, `check --full`, and `check --pairs`
 * whatever its set (`probe` runs what it names).
 */
enum { CD_SET_QUICK = 1u << 0, CD_SET_DEFAULT = 1u << 1, CD_SET_FULL = 1u << 2, CD_SET_PAIRS = 1u << 3 };
#define CD_SETS_ALL (CD_SET_QUICK | CD_SET_DEFAULT | CD_SET_FULL)

/* What one run of the table may use; main fills it, the families read it. */
struct cd_probe_ctx {
	struct cd_results *r;
	struct cd_host *host;       /* this host's facts (GPUs, paths); probe runs name it */
	const char *nccl_lib;       /* --nccl-lib, or NULL for libnccl.so.2 */
	struct cd_sweep sweep;      /* -b/-e/-f/-i when user_sweep, else each probe's default */
	int user_sweep;
	int warmup, iters;          /* -w / -n; < 0: the probe's default */
	double budget_s;            /* deadline of one probe run (one GPU, pair or communicator) */
	double end_s;               /* absolute cd_now_s() after which nothing new starts; INFINITY for none */
	unsigned set;               /* CD_SET_* of this run */
	int rank, nranks;           /* MPI; 0 and 1 without */
	int follower;               /* another rank of this host runs its node-local probes (dist.c) */
	int pairs;                  /* check --pairs: MPI pair probes hunt a bad node (two passes) */
	int reach_all;              /* --reach all: tcp.reach tests every pair, not a sample */
	unsigned have;              /* NEED_* bits the host satisfies (cd_probe_ctx_init) */
	char *unmet[4];             /* per NEED_* bit (by bit number): why it is not satisfied */
};

struct cd_probe_def {
	const char *name;           /* "copy.h2d" */
	const char *summary;        /* one line for `commdiag probe` and the man page */
	unsigned needs;             /* NEED_* */
	unsigned sets;              /* CD_SET_* */
	const char *min, *max;      /* default sweep (cd_parse_size forms) */
	int warmup, iters;          /* defaults */
	/*
	 * Plan the targets (each GPU, each pair, one communicator …), run the harness on
	 * each and append the runs to ctx->r. Called only when needs are met.
	 */
	void (*run)(const struct cd_probe_def *d, struct cd_probe_ctx *ctx);
	/* optional: once after the table ran, for state a family shares (NCCL communicators) */
	void (*finish)(void);
	/*
	 * Under MPI every rank runs it, followers and ranks whose needs are unmet included, as
	 * one job-wide world: run() then agrees with the other ranks whether it can start.
	 */
	int all_ranks;
};

/* The table, in run order. */
const struct cd_probe_def *const *cd_probe_table(size_t *n);

/*
 * Fill ctx->have and the reasons behind unmet needs from the host's facts (GPU
 * section, GPU count, whether NCCL loads) and ctx->nranks. Free with cd_probe_ctx_free.
 */
void cd_probe_ctx_init(struct cd_probe_ctx *ctx);
void cd_probe_ctx_free(struct cd_probe_ctx *ctx);
/* Why the first of needs (NEED_* bits) this host lacks is unmet ("needs NCCL: …"); NULL when none is. */
const char *cd_probe_ctx_unmet(const struct cd_probe_ctx *ctx, unsigned needs);

/*
 * Mark the probes to run: each name is a probe ("copy.h2d"), a family ("copy"), or
 * "all". Returns 0, or -1 with *bad pointing at the first name that matches nothing.
 * selected[] has one flag per table entry.
 */
int cd_probe_select(char *const *names, int n, int *selected, const char **bad);

/*
 * Run the selected probes (NULL: those of ctx->set) in table order: a probe whose
 * needs are unmet is recorded once as skipped with the reason; past ctx->end_s the
 * rest are recorded as timeout, phase "start", without starting.
 */
void cd_probe_run_table(struct cd_probe_ctx *ctx, const int *selected);

/* For families: a new run in ctx->r named d->name on this host, device/peer as given (-1 = none). */
struct cd_probe_run *cd_probe_new_run(struct cd_probe_ctx *ctx, const struct cd_probe_def *d, int device, int peer);
/*
 * Bad-node hunting (check --pairs) for d: dist.c's schedule of pairs, pair(arg, peer,
 * initiator, phase) on each (dist.h says what it returns), at most pair_s seconds each
 * within ctx->end_s. A partner that never came is d's timeout, recorded by the initiator.
 */
void cd_probe_hunt(const struct cd_probe_def *d, struct cd_probe_ctx *ctx,
		   double (*pair)(void *arg, int peer, int initiator, int phase), void *arg, double pair_s);
/* The sweep to use for d: the user's, or d's default. */
void cd_probe_sweep_for(const struct cd_probe_ctx *ctx, const struct cd_probe_def *d, struct cd_sweep *sw);
/* The harness on one target with ctx's iterations and budget (capped at ctx->end_s). */
int cd_probe_run_on(struct cd_probe_ctx *ctx, const struct cd_probe_def *d, const struct cd_probe *p,
		    struct cd_probe_env *env, struct cd_probe_run *out);

#endif
