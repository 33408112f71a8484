/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress: a status line on stderr for runs longer than a second, saying which
 * phase or probe runs, on which GPU or pair, at which size, and for how long:
 *
 *   commdiag: probe 3/14 nccl.all_reduce out_of_place 64 MiB (5/9 sizes) 2.1 s
 *
 * It is not part of the report (stdout is the report only) and is written between
 * steps, never inside a timed loop: the harness updates it before each size's
 * warm-up. Nothing shows before PROGRESS_DELAY_S of the run have passed.
 *
 * CD_PROGRESS_TTY rewrites one line in place ("\r", the text, clear to end of
 * line) and erases it before the report, a message or the end, so the screen keeps
 * only the report. Redraws are rate-limited by a token bucket: PROGRESS_RATE a
 * second on average, in bursts of up to PROGRESS_BURST, since a new probe, its GPU,
 * its setup and its first size come together and should all show.
 * An update the bucket refuses is drawn with the next one it allows; a call that
 * blocks leaves the line as it was (nothing draws from a timer or a thread, so
 * nothing runs beside a measurement).
 *
 * CD_PROGRESS_LINES writes whole lines for logs: one when the phase or probe
 * changes, and within one at most every PROGRESS_LINE_EVERY_S.
 *
 * All state is this module's; only the main thread calls it. The signal handler
 * may call cd_progress_signal_erase(), nothing else.
 */
#ifndef CD_PROGRESS_H
#define CD_PROGRESS_H

#include <stddef.h>

#define PROGRESS_DELAY_S 1.0      /* runs that end sooner show nothing */
#define PROGRESS_BURST 10         /* tty: redraws in a burst ... */
#define PROGRESS_RATE 10.0        /* ... and this many a second on average */
#define PROGRESS_LINE_EVERY_S 5.0 /* lines: within one phase or probe, one line this often at most */

enum cd_progress_mode {
	CD_PROGRESS_OFF,
	CD_PROGRESS_TTY,   /* one line rewritten in place, erased at the end */
	CD_PROGRESS_LINES, /* newline-terminated lines, fewer of them */
};

/*
 * The mode for a run. flag: 1 for --progress, 0 for --no-progress, -1 for neither.
 * Without a flag, progress shows only when stderr is a terminal, -q was not given
 * and this is not an MPI job (mpirun hands ranks a pseudo-terminal whatever its own
 * stderr is). A terminal whose TERM is unset, empty or "dumb" gets lines, since it
 * may not know clear-to-end; so does an MPI job with --progress. Callers pass
 * OFF's answer (flag 0) to the ranks other than 0.
 */
enum cd_progress_mode cd_progress_choose(int flag, int stderr_tty, const char *term, int mpi, int quiet);

/* Start writing to stderr; t0 is the run's start as cd_now_s() (elapsed time counts from it). */
void cd_progress_start(enum cd_progress_mode mode, double t0);
/*
 * Tests: the same with an injected clock, output fd and terminal width
 * (cols 0: ask the terminal, 80 when it does not say).
 */
void cd_progress_start_with(enum cd_progress_mode mode, double t0, double (*now)(void), int fd, int cols);

/* A new phase ("discover gpu", "rules") or probe ("probe 3/14 nccl.all_reduce"): clears target and detail. */
void cd_progress_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Within a probe: the probe number and name, as step does. */
void cd_progress_probe(int i, int n, const char *name);
/* Within a step: what it runs on ("gpu0", "gpu0-gpu1", "out_of_place"); clears the detail; drawn with the next one. */
void cd_progress_target(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Within a target: how far ("setup"). */
void cd_progress_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Within a target: size i (1-based) of n, "64 MiB (5/9 sizes)". */
void cd_progress_size(size_t bytes, size_t i, size_t n);

/* Before a message on stderr: erase the line (the next update draws it again). */
void cd_progress_clear(void);
/* Erase the line and stop: before the report, and at the end of the run. */
void cd_progress_end(void);
/* Async-signal-safe: erase the line when one is shown (a flag read and one write). */
void cd_progress_signal_erase(void);

/* "64 MiB", "1.5 KiB", "8 B": exact binary multiples without a fraction. */
const char *cd_progress_bytes(char *buf, size_t len, size_t bytes);

#endif
