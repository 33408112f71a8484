/* SPDX-License-Identifier: BSD-3-Clause */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>
#include <fcntl.h>


int cd_verbosity;
volatile sig_atomic_t cd_stop;

const char *cd_stop_name(void)
{
	switch (cd_stop) {
	case 0:
		return NULL;
	case SIGALRM:
		return "timeout";
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	}
	return "signal";
}

const char *cd_stop_cause(void)
{
	return cd_stop == SIGALRM ? "the --timeout deadline" : cd_stop_name();
}

static void (*before_message)(void);

void cd_set_before_message(void (*fn)(void))
{
	before_message = fn;
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL, *c;

	if (before_message)
		before_message(); /* the progress line erases itself: a message never lands at its end */
	fputs("commdiag: ", stderr);
	if (prefix)
		fputs(prefix, stderr);
	/* messages quote files, logs and environments: no ESC or newline of theirs reaches the terminal */
	if (vasprintf(&msg, fmt, ap) >= 0) {
		c = cd_clean_text(msg, CD_CLEAN_CONTROLS);
		fputs(c ? c : msg, stderr);
		free(c);
		free(msg);
	}
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

void *xmalloc_pages(size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = NULL;

	if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, n ? n : 1))
		oom();
	memset(p, 0, n ? n : 1);
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
	struct stat st;
	char *buf;

	/* a regular file is read in one go at its size (+1 to see the end): a fleet document of
	 * 160 MB was copied by doubling otherwise */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size < max_bytes ? (size_t)st.st_size + 1 : max_bytes;
	buf = xmalloc(cap + 1);
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

/*
 * The number forms of the command line: decimal digits with at most one '.', at
 * least one digit, nothing else (strtod alone would also take " 1", "+1", "0x10",
 * "1e3" and "inf"). Returns the end of the number, or NULL.
 */
static const char *decimal_end(const char *s)
{
	int digits = 0;

	if (!s)
		return NULL;
	while (isdigit((unsigned char)*s))
		s++, digits++;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			digits++;
	return digits ? s : NULL;
}

#define SIZE_FRAC_DIGITS 64

/*
 * Exact, no floating point: "1.5G" is whole × 2^30 plus the fraction .5 × 2^30,
 * the fraction doubled digit by digit 30 times (what spills over is whole bytes);
 * a fraction that does not come out whole is refused, as is anything above 2^64-1.
 */
int cd_parse_size(const char *s, uint64_t *out)
{
	const char *end = decimal_end(s), *p = s;
	char frac[SIZE_FRAC_DIGITS];
	unsigned shift = 0;
	uint64_t whole = 0, spill = 0;
	size_t nfrac = 0;

	if (!end)
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (whole > (UINT64_MAX - d) / 10)
			return -1;
		whole = whole * 10 + d;
	}
	if (*p == '.')
		for (p++; p < end; p++) {
			if (nfrac == sizeof(frac))
				return -1;
			frac[nfrac++] = (char)(*p - '0');
		}
	while (nfrac && !frac[nfrac - 1])
		nfrac--; /* "1.50K" is "1.5K" */
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && *end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	for (unsigned i = 0; i < shift && nfrac; i++) {
		unsigned carry = 0;

		for (size_t k = nfrac; k-- > 0;) {
			unsigned x = (unsigned)frac[k] * 2 + carry;

			frac[k] = (char)(x % 10);
			carry = x / 10;
		}
		spill = spill * 2 + carry;
		while (nfrac && !frac[nfrac - 1])
			nfrac--;
		if (!nfrac)
			spill <<= shift - i - 1;
	}
	if (nfrac)
		return -1; /* not a whole number of bytes */
	if (whole > (UINT64_MAX >> shift) || (whole << shift) > UINT64_MAX - spill)
		return -1;
	*out = (whole << shift) + spill;
	return 0;
}

int cd_parse_seconds(const char *s, double *out)
{
	const char *end = decimal_end(s);
	double v;

	if (!end || *end)
		return -1;
	errno = 0;
	v = strtod(s, NULL);
	if (errno || !isfinite(v) || v <= 0 || v > 86400.0 * 365)
		return -1;
	*out = v;
	return 0;
}

/*
 * "2.21.5" -> 22105 ("2.21" -> 22100; text after the numbers, as in
 * "2.21.5+cuda12.4", is ignored).  Minor and patch must stay below 100 or
 * the number would not order versions; a version outside that, or a
 * component too long to be a version at all, is unknown (-1) rather than
 * an overflow (sscanf's %ld had no bound: found by fuzz_outputs).
 */
long cd_version_num(const char *v)
{
	long part[3] = { 0, 0, 0 };
	int n = 0;

	if (!v)
		return -1;
	while (n < 3) {
		int digits = 0;

		while (*v >= '0' && *v <= '9') {
			if (++digits > 6)
				return -1;
			part[n] = part[n] * 10 + (*v++ - '0');
		}
		if (!digits)
			break;
		n++;
		if (*v != '.')
			break;
		v++;
	}
	if (n < 2 || part[1] > 99 || part[2] > 99)
		return -1;
	return part[0] * 10000 + part[1] * 100 + part[2];
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

/* the length of the valid UTF-8 sequence at p (RFC 3629: no overlong form, no surrogate,
 * nothing above U+10FFFF), or 0; *cp gets its code point */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
	size_t n;
	uint32_t c;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static int clean_control(uint32_t c, enum cd_clean how)
{
	if (how == CD_CLEAN_UTF8)
		return 0;
	if (how == CD_CLEAN_KEEP_LINES && (c == '\n' || c == '\t'))
		return 0;
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

char *cd_clean_text(const char *s, enum cd_clean how)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *w;
	uint32_t c;
	size_t n;

	for (; *p; p += n) {
		n = utf8_seq(p, &c);
		if (!n || clean_control(c, how))
			break;
	}
	if (!*p)
		return NULL;
	/* at worst every byte becomes the three of U+FFFD */
	w = out = xmalloc(3 * strlen(s) + 1);
	memcpy(w, s, (size_t)(p - (const unsigned char *)s));
	w += p - (const unsigned char *)s;
	for (; *p; p += n) {
		n = utf8_seq(p, &c);
		if (!n) {
			memcpy(w, "\xef\xbf\xbd", 3);
			w += 3;
			n = 1;
		} else if (clean_control(c, how)) {
			*w++ = ' ';
		} else {
			memcpy(w, p, n);
			w += n;
		}
	}
	*w = '\0';
	return out;
}

FILE *cd_open_input(const char *path, const char **kind)
{
	struct stat st;
	FILE *f;
	/* O_NONBLOCK: opening a FIFO without a writer must not wait for one */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	*kind = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" :
			S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device" :
			S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (!(f = fdopen(fd, "r")))
		close(fd);
	return f;
}
