/* SPDX-License-Identifier: BSD-3-Clause */
/* The progress line: its text, the one-second rule, the rate limit and the two modes, on an injected clock. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "suites.h"

static double fake_t;
static FILE *sink;

static double fake_now(void)
{
	return fake_t;
}

static void start(enum cd_progress_mode mode, int cols)
{
	sink = tmpfile();
	ck_assert_ptr_nonnull(sink);
	fake_t = 0.0;
	cd_progress_start_with(mode, 0.0, fake_now, fileno(sink), cols);
}

/* Everything written so far (the fd is written with write(2): no stdio buffer to flush). */
static char *written(void)
{
	static char buf[1 << 16];
	ssize_t n;

	lseek(fileno(sink), 0, SEEK_SET);
	n = read(fileno(sink), buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void teardown(void)
{
	cd_progress_start_with(CD_PROGRESS_OFF, 0.0, fake_now, STDERR_FILENO, 0);
	if (sink)
		fclose(sink);
	sink = NULL;
}

START_TEST(test_choose)
{
	/* neither flag: a terminal only, not quiet, not MPI; a dumb terminal gets lines */
	ck_assert_int_eq(cd_progress_choose(-1, 1, "xterm-256color", 0, 0), CD_PROGRESS_TTY);
	ck_assert_int_eq(cd_progress_choose(-1, 0, "xterm", 0, 0), CD_PROGRESS_OFF);
	ck_assert_int_eq(cd_progress_choose(-1, 1, "xterm", 0, 1), CD_PROGRESS_OFF);
	ck_assert_int_eq(cd_progress_choose(-1, 1, "xterm", 1, 0), CD_PROGRESS_OFF);
	ck_assert_int_eq(cd_progress_choose(-1, 1, "dumb", 0, 0), CD_PROGRESS_LINES);
	ck_assert_int_eq(cd_progress_choose(-1, 1, NULL, 0, 0), CD_PROGRESS_LINES);
	ck_assert_int_eq(cd_progress_choose(-1, 1, "", 0, 0), CD_PROGRESS_LINES);
	/* --progress: lines when stderr is a file or under MPI, whatever -q says */
	ck_assert_int_eq(cd_progress_choose(1, 0, "xterm", 0, 0), CD_PROGRESS_LINES);
	ck_assert_int_eq(cd_progress_choose(1, 1, "xterm", 0, 1), CD_PROGRESS_TTY);
	ck_assert_int_eq(cd_progress_choose(1, 1, "xterm", 1, 0), CD_PROGRESS_LINES);
	/* --no-progress: never */
	ck_assert_int_eq(cd_progress_choose(0, 1, "xterm", 0, 0), CD_PROGRESS_OFF);
}
END_TEST

START_TEST(test_bytes)
{
	char b[32];

	ck_assert_str_eq(cd_progress_bytes(b, sizeof(b), 8), "8 B");
	ck_assert_str_eq(cd_progress_bytes(b, sizeof(b), 1000), "1000 B");
	ck_assert_str_eq(cd_progress_bytes(b, sizeof(b), 64 << 10), "64 KiB");
	ck_assert_str_eq(cd_progress_bytes(b, sizeof(b), (size_t)64 << 20), "64 MiB");
	ck_assert_str_eq(cd_progress_bytes(b, sizeof(b), (size_t)3 << 30), "3 GiB");
	ck_assert_str_eq(cd_progress_bytes(b, sizeof(b), 1536), "1.5 KiB");
	ck_assert_str_eq(cd_progress_bytes(b, sizeof(b), ((size_t)1 << 20) + 1), "1.0 MiB");
}
END_TEST

/* The whole line, drawn in place, once the first second has passed. */
START_TEST(test_tty_line_after_one_second)
{
	start(CD_PROGRESS_TTY, 200);
	fake_t = 0.2;
	cd_progress_step("discover gpu");
	fake_t = 0.5;
	cd_progress_probe(3, 14, "nccl.all_reduce");
	cd_progress_target("out_of_place");
	cd_progress_size((size_t)64 << 20, 5, 9);
	fake_t = 0.99;
	cd_progress_size((size_t)128 << 20, 6, 9);
	ck_assert_str_eq(written(), ""); /* a run that ends within a second shows nothing */
	cd_progress_end();
	ck_assert_str_eq(written(), "");

	start(CD_PROGRESS_TTY, 200);
	cd_progress_probe(3, 14, "nccl.all_reduce");
	cd_progress_target("out_of_place");
	fake_t = 2.14;
	cd_progress_size((size_t)64 << 20, 5, 9);
	ck_assert_str_eq(written(), "\rcommdiag: probe 3/14 nccl.all_reduce out_of_place 64 MiB (5/9 sizes) 2.1 s\033[K");
	/* the end erases it: the report starts on a clean line */
	cd_progress_end();
	ck_assert_str_eq(written(), "\rcommdiag: probe 3/14 nccl.all_reduce out_of_place 64 MiB (5/9 sizes) 2.1 s\033[K"
				    "\r\033[K");
	/* and nothing more after the end */
	fake_t = 3.0;
	cd_progress_step("rules");
	ck_assert_int_eq(count(written(), "rules"), 0);
}
END_TEST

/* A new step clears the target and detail of the last; a target is drawn with its detail. */
START_TEST(test_step_clears)
{
	start(CD_PROGRESS_TTY, 200);
	fake_t = 1.5;
	cd_progress_step("probe 1/2 copy.h2d");
	cd_progress_target("gpu1");
	ck_assert_int_eq(count(written(), "gpu1"), 0);
	cd_progress_detail("setup");
	cd_progress_step("discover net");
	ck_assert_str_eq(written(), "\rcommdiag: probe 1/2 copy.h2d 1.5 s\033[K"
				    "\rcommdiag: probe 1/2 copy.h2d gpu1 setup 1.5 s\033[K"
				    "\rcommdiag: discover net 1.5 s\033[K");
}
END_TEST

/* 10 redraws a second on average, never more than 20 in any second, however often the harness updates. */
START_TEST(test_tty_rate_limit)
{
	double draws[4096];
	int n = 0, before = 0;

	start(CD_PROGRESS_TTY, 200);
	cd_progress_probe(1, 1, "p2p.bw");
	cd_progress_target("gpu0-gpu1");
	/* 10 s of a fast sweep: an update every millisecond */
	for (int i = 0; i < 10000; i++) {
		fake_t = 1.0 + i * 0.001;
		cd_progress_size(8, (size_t)i % 9 + 1, 9);
		int now = count(written(), "\033[K");

		if (now > before)
			draws[n++] = fake_t;
		ck_assert_int_le(now - before, 1);
		before = now;
	}
	ck_assert_int_ge(n, 100); /* 10 at once, then 10 a second */
	ck_assert_int_le(n, 10 + 10 * 10 + 1);
	for (int i = 0; i < n; i++) {
		int in_window = 0;

		for (int k = i; k < n && draws[k] < draws[i] + 1.0; k++)
			in_window++;
		ck_assert_int_le(in_window, 20);
	}
}
END_TEST

/* An update the bucket refused is not lost: the next redraw shows the latest state. */
START_TEST(test_tty_refused_update_shows_later)
{
	start(CD_PROGRESS_TTY, 200);
	fake_t = 1.0;
	cd_progress_probe(1, 1, "copy.h2d");
	for (int i = 1; i <= 12; i++)
		cd_progress_size((size_t)1 << i, (size_t)i, 13); /* 10 drawn (the step and 9 sizes), the rest refused */
	ck_assert_int_eq(count(written(), "\033[K"), 10);
	ck_assert_int_eq(count(written(), "(12/13 sizes)"), 0);
	fake_t = 1.0625; /* 0.625 of a token */
	cd_progress_size(8192, 13, 13);
	ck_assert_int_eq(count(written(), "\033[K"), 10);
	fake_t = 1.1875;
	cd_progress_detail("check");
	ck_assert_int_eq(count(written(), "\033[K"), 11);
	ck_assert_ptr_nonnull(strstr(written(), "probe 1/1 copy.h2d check 1.2 s\033[K"));
}
END_TEST

/* A message on stderr first erases the line; the next update draws it again. */
START_TEST(test_clear_and_signal_erase)
{
	start(CD_PROGRESS_TTY, 200);
	cd_progress_clear(); /* nothing shown: nothing written */
	cd_progress_signal_erase();
	ck_assert_str_eq(written(), "");
	fake_t = 1.0;
	cd_progress_step("discover ib");
	cd_progress_clear();
	cd_progress_clear();
	ck_assert_str_eq(written(), "\rcommdiag: discover ib 1.0 s\033[K\r\033[K");
	cd_progress_detail("mlx5_0");
	cd_progress_signal_erase();
	cd_progress_signal_erase();
	ck_assert_str_eq(written(), "\rcommdiag: discover ib 1.0 s\033[K\r\033[K"
				    "\rcommdiag: discover ib mlx5_0 1.0 s\033[K\r\033[K");
}
END_TEST

/* A narrow terminal: the line is cut to its width less one, the elapsed time kept. */
START_TEST(test_tty_cut_to_width)
{
	const char *w, *end;

	start(CD_PROGRESS_TTY, 40);
	fake_t = 12.34;
	cd_progress_probe(13, 19, "nccl.reduce_scatter");
	cd_progress_target("out_of_place");
	cd_progress_size((size_t)256 << 20, 9, 9);
	w = strrchr(written(), '\r'); /* the last redraw: the step was drawn before its size */
	ck_assert_ptr_nonnull(w);
	end = strstr(w, "\033[K");
	ck_assert_ptr_nonnull(end);
	ck_assert_int_eq((int)(end - w - 1), 39);
	ck_assert_str_eq(end, "\033[K");
	ck_assert_int_eq(strncmp(end - 10, "... 12.3 s", 10), 0);
	ck_assert_int_eq(strncmp(w, "\rcommdiag: probe 13/19 nccl.r", 29), 0);
}
END_TEST

/* Lines for logs: one per new step, within a step one per 5 s at most; no escape codes. */
START_TEST(test_lines)
{
	const char *w;

	start(CD_PROGRESS_LINES, 0);
	fake_t = 0.3;
	cd_progress_step("discover system");
	cd_progress_step("discover gpu");
	fake_t = 1.0;
	cd_progress_probe(1, 2, "copy.h2d"); /* the first update past 1 s */
	cd_progress_target("gpu0");
	cd_progress_size(8, 1, 3);
	fake_t = 5.9;
	cd_progress_size(16, 2, 3);
	fake_t = 6.0;
	cd_progress_size(32, 3, 3);
	fake_t = 6.5;
	cd_progress_target("gpu1");
	cd_progress_size(8, 1, 3);
	cd_progress_probe(2, 2, "copy.d2h");
	cd_progress_target("gpu0");
	cd_progress_size(8, 1, 3);
	cd_progress_end();
	w = written();
	ck_assert_str_eq(w, "commdiag: probe 1/2 copy.h2d 1.0 s\n"
			    "commdiag: probe 1/2 copy.h2d gpu0 32 B (3/3 sizes) 6.0 s\n"
			    "commdiag: probe 2/2 copy.d2h 6.5 s\n");
}
END_TEST

START_TEST(test_lines_from_a_step_begun_before_one_second)
{
	start(CD_PROGRESS_LINES, 0);
	fake_t = 0.4;
	cd_progress_probe(1, 1, "p2p.bw");
	cd_progress_target("gpu0-gpu1");
	cd_progress_size(8, 1, 4);
	fake_t = 1.24;
	cd_progress_size(16, 2, 4);
	ck_assert_str_eq(written(), "commdiag: probe 1/1 p2p.bw gpu0-gpu1 16 B (2/4 sizes) 1.2 s\n");
}
END_TEST

START_TEST(test_off)
{
	start(CD_PROGRESS_OFF, 0);
	fake_t = 10.0;
	cd_progress_step("discover gpu");
	cd_progress_size(8, 1, 1);
	cd_progress_clear();
	cd_progress_signal_erase();
	cd_progress_end();
	ck_assert_str_eq(written(), "");
}
END_TEST

Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_choose);
	tcase_add_test(tc, test_bytes);
	tcase_add_test(tc, test_tty_line_after_one_second);
	tcase_add_test(tc, test_step_clears);
	tcase_add_test(tc, test_tty_rate_limit);
	tcase_add_test(tc, test_tty_refused_update_shows_later);
	tcase_add_test(tc, test_clear_and_signal_erase);
	tcase_add_test(tc, test_tty_cut_to_width);
	tcase_add_test(tc, test_lines);
	tcase_add_test(tc, test_lines_from_a_step_begun_before_one_second);
	tcase_add_test(tc, test_off);
	suite_add_tcase(s, tc);
	return s;
}
