/* SPDX-License-Identifier: BSD-3-Clause */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <unistd.h>

int cd_verbosity;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fputs("commdiag: ", stderr);
	if (prefix)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cd_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	return -1;
}

void cd_warn(const char *fmt, ...)
{
	va_list ap;

	if (cd_verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void cd_debug(int level, const char *fmt, ...)
{
	va_list ap;

	if (cd_verbosity < level)
		return;
	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

static void oom(void)
{
	fputs("commdiag: out of memory\n", stderr);
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void *cd_vec_push(void *vp, size_t *n, size_t *cap, size_t size)
{
	char **v = vp;
	char *slot;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		*v = xrealloc(*v, *cap * size);
	}
	slot = *v + *n * size;
	memset(slot, 0, size);
	(*n)++;
	return slot;
}

int cd_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		int err = ferror(f) ? errno : ENODATA;

		fclose(f);
		errno = err;
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

char *cd_read_file(FILE *f, size_t max_bytes, size_t *len_out)
{
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap + 1);

	for (;;) {
		size_t got;

		if (len == cap) {
			if (cap >= max_bytes) {
				int c = getc(f);

				if (c == EOF && !ferror(f))
					break; /* exactly max_bytes: the whole file fits */
				free(buf);
				errno = c == EOF ? (errno ? errno : EIO) : EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f)) {
				free(buf);
				errno = errno ? errno : EIO;
				return NULL;
			}
			break;
		}
	}
	if (len > max_bytes) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

int cd_parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;
	double mult = 1;

	/* decimal digits only: strtod alone would take " 1", "0x10" and "inf" */
	if (!s || !((*s >= '0' && *s <= '9') || *s == '.') || strpbrk(s, "xXnN"))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default:
		return -1;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	v *= mult;
	if (v >= 18446744073709551616.0 || v != floor(v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int cd_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 86400.0 * 365)
		return -1;
	*out = v;
	return 0;
}

double cd_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *cd_fmt_bytes(char *buf, size_t len, int64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	size_t u = 0;

	while (d >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", d, unit[u]);
	return buf;
}

char *cd_readlink_base(const char *path)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	const char *base;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	return *base ? xstrdup(base) : NULL;
}
