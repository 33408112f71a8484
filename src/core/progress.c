/* SPDX-License-Identifier: BSD-3-Clause */
#include "progress.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util.h"

#define ERASE "\r\033[K"

static struct {
	enum cd_progress_mode mode;
	double (*now)(void);
	int fd;
	int cols;             /* 0: ask the terminal at each draw (it may be resized) */
	double t0;
	double tokens;        /* tty: redraws the bucket allows now */
	double last_fill;     /* tty: when the bucket was last filled */
	double last_line;     /* lines: when the last line was written */
	char step[96], target[64], detail[64];
	char line_step[96];   /* lines: the step of the last line written */
} P = { .fd = STDERR_FILENO };

/* A line is on the terminal: the signal handler reads it, so it is the one shared flag. */
static volatile sig_atomic_t shown;

enum cd_progress_mode cd_progress_choose(int flag, int stderr_tty, const char *term, int mpi, int quiet)
{
	int dumb = !term || !*term || !strcmp(term, "dumb");

	if (flag == 0 || (flag < 0 && (!stderr_tty || quiet || mpi)))
		return CD_PROGRESS_OFF;
	return stderr_tty && !dumb && !mpi ? CD_PROGRESS_TTY : CD_PROGRESS_LINES;
}

void cd_progress_start_with(enum cd_progress_mode mode, double t0, double (*now)(void), int fd, int cols)
{
	memset(&P, 0, sizeof(P));
	P.mode = mode;
	P.t0 = t0;
	P.now = now;
	P.fd = fd;
	P.cols = cols;
	P.tokens = PROGRESS_BURST;
	P.last_fill = t0;
	P.last_line = -1e300;
	shown = 0;
	cd_set_before_message(cd_progress_clear);
}

void cd_progress_start(enum cd_progress_mode mode, double t0)
{
	cd_progress_start_with(mode, t0, cd_now_s, STDERR_FILENO, 0);
}

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(P.fd, s, n);

		if (w <= 0)
			return; /* stderr gone or full: progress is not worth an error */
		s += w;
		n -= (size_t)w;
	}
}

static int width(void)
{
	struct winsize ws;

	if (P.cols > 0)
		return P.cols;
	if (ioctl(P.fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

/*
 * "commdiag: STEP TARGET DETAIL 2.1 s". On a terminal the text is cut to one column
 * less than its width: a line that wraps cannot be rewritten with \r.
 */
static size_t compose(char *buf, size_t len, double t, int cut)
{
	char tail[32];
	size_t n, tl;

	n = (size_t)snprintf(buf, len, "commdiag: %s%s%s%s%s", P.step, P.target[0] ? " " : "", P.target,
			     P.detail[0] ? " " : "", P.detail);
	if (n >= len)
		n = len - 1;
	tl = (size_t)snprintf(tail, sizeof(tail), " %.1f s", t - P.t0);
	if (cut) {
		size_t w = (size_t)width() - 1;

		if (n + tl > w && w > tl + 3) {
			n = w - tl - 3;
			memcpy(buf + n, "...", 3);
			n += 3;
		}
	}
	if (n + tl >= len)
		n = len - 1 - tl;
	memcpy(buf + n, tail, tl + 1);
	return n + tl;
}

/* tty: may the line be drawn at t? One token per redraw, PROGRESS_RATE tokens a second. */
static int take_token(double t)
{
	if (t > P.last_fill) {
		P.tokens += (t - P.last_fill) * PROGRESS_RATE;
		if (P.tokens > PROGRESS_BURST)
			P.tokens = PROGRESS_BURST;
		P.last_fill = t;
	}
	if (P.tokens < 1.0)
		return 0;
	P.tokens -= 1.0;
	return 1;
}

static void update(void)
{
	char line[512];
	double t;
	size_t n;

	if (P.mode == CD_PROGRESS_OFF)
		return;
	t = P.now();
	if (t - P.t0 < PROGRESS_DELAY_S)
		return;
	if (P.mode == CD_PROGRESS_TTY) {
		if (!take_token(t))
			return;
		line[0] = '\r';
		n = 1 + compose(line + 1, sizeof(line) - 1 - 3, t, 1);
		memcpy(line + n, "\033[K", 3);
		put(line, n + 3);
		shown = 1;
		return;
	}
	if (!strcmp(P.step, P.line_step) && t - P.last_line < PROGRESS_LINE_EVERY_S)
		return;
	n = compose(line, sizeof(line) - 1, t, 0);
	line[n++] = '\n';
	put(line, n);
	P.last_line = t;
	snprintf(P.line_step, sizeof(P.line_step), "%s", P.step);
}

void cd_progress_step(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(P.step, sizeof(P.step), fmt, ap);
	va_end(ap);
	P.target[0] = P.detail[0] = '\0';
	update();
}

void cd_progress_probe(int i, int n, const char *name)
{
	cd_progress_step("probe %d/%d %s", i, n, name);
}

void cd_progress_target(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(P.target, sizeof(P.target), fmt, ap);
	va_end(ap);
	P.detail[0] = '\0'; /* shown with the detail or size that follows: one redraw, not two */
}

void cd_progress_detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(P.detail, sizeof(P.detail), fmt, ap);
	va_end(ap);
	update();
}

const char *cd_progress_bytes(char *buf, size_t len, size_t bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0, b = bytes;

	while (b >= 1024 && !(b % 1024) && u + 1 < ARRAY_SIZE(unit)) {
		b /= 1024;
		u++;
	}
	if (b < 1024)
		snprintf(buf, len, "%zu %s", b, unit[u]);
	else
		cd_fmt_bytes(buf, len, (int64_t)bytes);
	return buf;
}

void cd_progress_size(size_t bytes, size_t i, size_t n)
{
	char b[32];

	cd_progress_detail("%s (%zu/%zu sizes)", cd_progress_bytes(b, sizeof(b), bytes), i, n);
}

void cd_progress_clear(void)
{
	if (shown) {
		put(ERASE, sizeof(ERASE) - 1);
		shown = 0;
	}
}

void cd_progress_end(void)
{
	cd_progress_clear();
	P.mode = CD_PROGRESS_OFF;
}

void cd_progress_signal_erase(void)
{
	if (shown) {
		ssize_t w = write(P.fd, ERASE, sizeof(ERASE) - 1);

		(void)w;
		shown = 0;
	}
}
