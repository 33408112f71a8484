/* SPDX-License-Identifier: BSD-3-Clause */
/* The unit suites' one way to see what a loader or parser printed: every input error must be
 * one clear message on stderr, and the suites assert on its text. */
#ifndef CK_STDERR_H
#define CK_STDERR_H

/* Runs fn(arg) with stderr sent to a temporary file and restored after (also under
 * CK_FORK=no, where the next test shares this process); returns what fn printed (heap,
 * never NULL: an empty string if nothing) and fn's result in *rc. */
char *ck_stderr_of(int (*fn)(const void *arg), const void *arg, int *rc);

#endif
