/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_UTIL_H
#define CD_UTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "commdiag: <msg>\n" on stderr; returns -1 so callers can `return cd_error(...)`. */
int cd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * fn runs before every message above: the progress line (progress.c) erases itself there.
 * A hook rather than a call, because progress.c uses this module.
 */
void cd_set_before_message(void (*fn)(void));

/*
 * What output may carry from a document anyone could have written. Every byte of an
 * invalid UTF-8 sequence becomes U+FFFD (JSON, Prometheus and HTML must be valid UTF-8);
 * with CD_CLEAN_CONTROLS each control character (C0, DEL, C1: an ESC would drive the
 * terminal, a newline would start a line of its own) becomes a space, with
 * CD_CLEAN_KEEP_LINES all but newline and tab. NULL when s is clean as it is, else a heap copy.
 */
/*
 * Open a file the user named as input, for reading: NULL with errno when it cannot be
 * opened, or with errno EINVAL and *kind ("a FIFO", "a directory", …) when it is not a
 * regular file. A FIFO or a device would block the read until the deadline (or forever:
 * /dev/zero), so inputs are regular files; standard input is "-", never a path.
 */
FILE *cd_open_input(const char *path, const char **kind);

enum cd_clean { CD_CLEAN_UTF8, CD_CLEAN_CONTROLS, CD_CLEAN_KEEP_LINES };
char *cd_clean_text(const char *s, enum cd_clean how);
/* Printed only at -v (level 1) or -vv (level 2). */
void cd_debug(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern int cd_verbosity; /* -v counts up, -q counts down; set once by main */

/* Allocation never fails: out of memory is fatal, the only exit outside main. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
/* n zeroed bytes starting on a page, as the OSU micro-benchmarks allocate message buffers. */
void *xmalloc_pages(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Grow *v (element size `size`) so that it holds at least n+1 elements; returns the new slot, zeroed. */
void *cd_vec_push(void *vp, size_t *n, size_t *cap, size_t size);
#define CD_PUSH(arr, n, cap) ((__typeof__(arr))cd_vec_push(&(arr), &(n), &(cap), sizeof(*(arr))))

/*
 * Read a small text file (sysfs, procfs) into buf with the trailing newline removed.
 * Returns 0, or -1 with errno set; never prints.
 */
int cd_read_line(const char *path, char *buf, size_t len);
/* Whole file into a NUL-terminated heap buffer; max_bytes guards against /dev/zero-like inputs. */
char *cd_read_file(FILE *f, size_t max_bytes, size_t *len_out);

/* Last component of a symlink's target (sysfs "device", "driver" links), or NULL. */
char *cd_readlink_base(const char *path);

/*
 * Sizes like "8M", "1G", "64K", "512", "1.5G", "1GiB", "4MB" (binary multiples, as
 * nccl-tests): decimal digits with at most one '.', then K, M, G or T, "i" and "B"
 * (all optional). Exact up to 2^64-1; a fraction must come out a whole number of
 * bytes. Returns 0 or -1 (no message: the caller names the option or file).
 */
int cd_parse_size(const char *s, uint64_t *out);
/* Seconds above 0 and at most a year, as decimal digits with at most one '.' ("10", "2.5"). */
int cd_parse_seconds(const char *s, double *out);
/* Version "2.21.5" as major*10000 + minor*100 + patch (22105); -1 when absent or unreadable. */
long cd_version_num(const char *v);

/* The one place bits become bytes: link rates are Gb/s, bandwidths GB/s (decimal). */
static inline double cd_gbit_to_gbyte(double gbit_s) { return gbit_s / 8.0; }
static inline double cd_gbyte_to_gbit(double gbyte_s) { return gbyte_s * 8.0; }

/*
 * Why the run was told to stop: 0 (it was not), or the signal: SIGINT, SIGTERM, or
 * SIGALRM for the --timeout deadline. Only main's signal handler sets it, once; long
 * steps read it at their safe points (between discovery sections, between probe
 * operations) and wind down, marking what did not run as timeout, so that the partial
 * document can still be written.
 */
extern volatile sig_atomic_t cd_stop;
/* "timeout", "SIGINT" or "SIGTERM" as the document's run.stopped_by says it; NULL when not stopped. */
const char *cd_stop_name(void);
/* The same for sentences: "the --timeout deadline", "SIGINT", "SIGTERM". */
const char *cd_stop_cause(void);

double cd_now_s(void);
/* "24.0 GiB": binary units for memory and file-system sizes, text output only. */
const char *cd_fmt_bytes(char *buf, size_t len, int64_t v); /* CLOCK_MONOTONIC seconds */

/* Integer text of a nullable value: INT64_MIN is the "not known" marker of the results document. */
#define CD_NULL_I64 INT64_MIN

#endif
