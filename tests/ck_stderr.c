/* SPDX-License-Identifier: BSD-3-Clause */
#include "ck_stderr.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

char *ck_stderr_of(int (*fn)(const void *arg), const void *arg, int *rc)
{
	char path[] = "/tmp/commdiag_ck_stderr.XXXXXX";
	int fd = mkstemp(path), saved;
	FILE *f;
	char *msg;

	ck_assert_int_ge(fd, 0);
	close(fd);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_ptr_nonnull(freopen(path, "w", stderr));
	*rc = fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	clearerr(stderr);
	/* freopen made stderr fully buffered to a file; a terminal's stderr is unbuffered */
	setvbuf(stderr, NULL, _IONBF, 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	msg = cd_read_file(f, 1 << 16, NULL);
	fclose(f);
	unlink(path);
	ck_assert_ptr_nonnull(msg);
	return msg;
}
