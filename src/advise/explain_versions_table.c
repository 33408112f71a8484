/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The version table (rules/versions.catalog): loader and lookups. The table is data so that
 * a new NCCL or CUDA release is a new row with its source, not a code change; everything a
 * malformed row could mean is refused with file and line, so a wrong table never silently
 * judges nothing. What a log shows, and the verdicts, are in explain_versions.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embed.h"
#include "explain_versions.h"

#define MAX_ROWS 1024

/* ---- numbers ---- */

int cd_vers_nccl_code(const char *s, const char **end)
{
	long a, b, c;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	a = strtol(s, &e, 10);
	if (*e != '.' || !isdigit((unsigned char)e[1]))
		return -1;
	b = strtol(e + 1, &e, 10);
	if (*e != '.' || !isdigit((unsigned char)e[1]))
		return -1;
	c = strtol(e + 1, &e, 10);
	if (a < 1 || a > 9 || b > 99 || c > 99)
		return -1;
	if (end)
		*end = e;
	return (int)(a * 10000 + b * 100 + c);
}

int cd_vers_cuda_code(const char *s, const char **end)
{
	long a, b;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	a = strtol(s, &e, 10);
	if (*e != '.' || !isdigit((unsigned char)e[1]))
		return -1;
	b = strtol(e + 1, &e, 10);
	if (a < 1 || a > 99 || b > 99)
		return -1;
	if (end)
		*end = e;
	return (int)(a * 1000 + b * 10);
}

int cd_vers_driver_ok(const char *s, size_t n)
{
	int fields = 1, digits = 0;

	if (!n || !isdigit((unsigned char)s[0]) || atoi(s) < 100)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (!digits || ++fields > 3)
				return 0;
			digits = 0;
		} else if (isdigit((unsigned char)s[i])) {
			digits++;
		} else {
			return 0;
		}
	}
	return digits > 0;
}

int cd_vers_driver_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
		if (!isdigit((unsigned char)*a) && !isdigit((unsigned char)*b))
			break;
	}
	return 0;
}

/* ---- the table ---- */

struct parser {
	const char *name;
	int line;
};

static int fail(const struct parser *ps, const char *what, const char *got)
{
	if (got)
		return cd_error("explain: %s:%d: %s, got '%.60s'", ps->name, ps->line, what, got);
	return cd_error("explain: %s:%d: %s", ps->name, ps->line, what);
}

/* s is a whole number within lo..hi (strtol's syntax, nothing after it): its value in *out. */
static int whole(const char *s, long lo, long hi, int *out)
{
	char *e;
	long v = strtol(s, &e, 10);

	if (e == s || *e || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int sm_list(const struct parser *ps, char *s, struct cd_vers_row *r)
{
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		int v;

		if (whole(t, 10, 999, &v))
			return fail(ps, "expected a list of architectures like 80,90,100", t);
		if (r->n_sm >= CD_VERS_MAX_SM)
			return fail(ps, "more than 16 architectures in one row", NULL);
		r->sm[r->n_sm++] = v;
	}
	/* "," alone holds no token: a row must name at least one architecture */
	if (!r->n_sm)
		return fail(ps, "expected a list of architectures like 80,90,100", s);
	return 0;
}

static int row(const struct parser *ps, char *s, struct cd_vers_row *r)
{
	char *f[8];
	int n = 0;
	const char *e;

	for (char *t = strtok(s, " \t"); t; t = strtok(NULL, " \t")) {
		if (n == 8)
			return fail(ps, "too many fields", t);
		f[n++] = t;
	}
	if (!n)
		return fail(ps, "a source without a row", NULL);
	r->line = ps->line;
	if (!strcmp(f[0], "nccl-build") || !strcmp(f[0], "nccl-driver")) {
		int build = f[0][5] == 'b';

		if (n != (build ? 7 : 5))
			return fail(ps, build ? "expected 'nccl-build FIRST LAST CUDA_FROM CUDA_BELOW SASS PTX'"
					      : "expected 'nccl-driver FIRST LAST MIN_DRIVER_API WHAT'", f[0]);
		r->first = cd_vers_nccl_code(f[1], &e);
		if (r->first < 0 || *e)
			return fail(ps, "expected an NCCL release like 2.18.1", f[1]);
		r->last = cd_vers_nccl_code(f[2], &e);
		if (r->last < 0 || *e || r->last < r->first)
			return fail(ps, "expected an NCCL release no older than the first", f[2]);
		if (!build) {
			if (whole(f[3], 1000, 99990, &r->min_api))
				return fail(ps, "expected a driver API version like 11030", f[3]);
			r->kind = CD_VERS_NCCL_DRIVER;
			snprintf(r->what, sizeof(r->what), "%s", f[4]);
			return 0;
		}
		r->kind = CD_VERS_BUILD;
		r->cuda_from = cd_vers_cuda_code(f[3], &e);
		if (r->cuda_from < 0 || *e)
			return fail(ps, "expected a CUDA version like 12.8", f[3]);
		r->cuda_below = -1;
		if (strcmp(f[4], "-")) {
			r->cuda_below = cd_vers_cuda_code(f[4], &e);
			if (r->cuda_below < 0 || *e || r->cuda_below <= r->cuda_from)
				return fail(ps, "expected '-' or a CUDA version above CUDA_FROM", f[4]);
		}
		if (sm_list(ps, f[5], r))
			return -1;
		if (whole(f[6], 10, 999, &r->ptx))
			return fail(ps, "expected the PTX architecture like 90", f[6]);
		return 0;
	}
	if (!strcmp(f[0], "cuda-driver")) {
		if (n != 3)
			return fail(ps, "expected 'cuda-driver MAJOR MIN_LINUX_DRIVER'", f[0]);
		if (whole(f[1], 1, 99, &r->major))
			return fail(ps, "expected a CUDA major release like 12", f[1]);
		if (!cd_vers_driver_ok(f[2], strlen(f[2])) || strlen(f[2]) >= sizeof(r->min_driver))
			return fail(ps, "expected a Linux driver version like 525.60.13", f[2]);
		r->kind = CD_VERS_CUDA_DRIVER;
		snprintf(r->min_driver, sizeof(r->min_driver), "%s", f[2]);
		return 0;
	}
	if (!strcmp(f[0], "cuda-header")) {
		if (n != 2)
			return fail(ps, "expected 'cuda-header CUDA_VERSION'", f[0]);
		if (whole(f[1], 1000, 99990, &r->min_api))
			return fail(ps, "expected a CUDA_VERSION like 13000", f[1]);
		r->kind = CD_VERS_HEADER;
		return 0;
	}
	return fail(ps, "expected a row kind: nccl-build, nccl-driver, cuda-driver or cuda-header", f[0]);
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int cd_vers_parse(struct cd_vers_db *db, const char *text, size_t len, const char *name)
{
	struct parser ps = { name, 0 };
	size_t pos = 0;
	char buf[4096];
	int rc = 0;

	memset(db, 0, sizeof(*db));
	while (text && pos < len && !rc) {
		size_t end = pos;
		char *s, *bar;
		struct cd_vers_row r;

		while (end < len && text[end] != '\n')
			end++;
		ps.line++;
		if (end - pos >= sizeof(buf)) {
			rc = fail(&ps, "a line longer than 4095 bytes", NULL);
			break;
		}
		if (memchr(text + pos, '\0', end - pos)) {
			rc = fail(&ps, "a NUL byte: not a text file", NULL);
			break;
		}
		memcpy(buf, text + pos, end - pos);
		buf[end - pos] = '\0';
		pos = end + 1;
		s = trim(buf);
		if (!*s || *s == '#')
			continue;
		bar = strchr(s, '|');
		if (!bar || !*trim(bar + 1)) {
			rc = fail(&ps, "a row without its source (expected '| source' at its end)", s);
			break;
		}
		*bar = '\0';
		memset(&r, 0, sizeof(r));
		rc = row(&ps, s, &r);
		if (rc)
			break;
		if (db->n >= MAX_ROWS) {
			rc = fail(&ps, "more than 1024 rows", NULL);
			break;
		}
		r.source = xstrdup(trim(bar + 1));
		*CD_PUSH(db->v, db->n, db->cap) = r;
	}
	if (!rc && !db->n)
		rc = cd_error("explain: '%s': no row (expected nccl-build, nccl-driver, cuda-driver rows)", name);
	if (rc) {
		cd_vers_free(db);
		return -1;
	}
	db->name = xstrdup(name);
	return 0;
}

void cd_vers_free(struct cd_vers_db *db)
{
	for (size_t i = 0; i < db->n; i++)
		free(db->v[i].source);
	free(db->v);
	free(db->name);
	memset(db, 0, sizeof(*db));
}

static struct cd_vers_db loaded;
static int load_state; /* 0 not tried, 1 loaded, -1 failed */

static void free_loaded(void)
{
	cd_vers_free(&loaded);
}

const struct cd_vers_db *cd_vers_default(void)
{
	const char *text, *name;
	char *owned;
	size_t len = 0;
	int rc;

	if (load_state)
		return load_state > 0 ? &loaded : NULL;
	load_state = -1;
	if (!(text = cd_rules_text("explain", "COMMDIAG_VERSIONS", "versions.catalog", &len, &name, &owned)))
		return NULL;
	rc = cd_vers_parse(&loaded, text, len, name);
	free(owned);
	if (rc < 0)
		return NULL;
	load_state = 1;
	atexit(free_loaded);
	return &loaded;
}

/* ---- lookups ---- */

const struct cd_vers_row *cd_vers_build(const struct cd_vers_db *db, int nccl, int cuda)
{
	for (size_t i = 0; db && i < db->n; i++) {
		const struct cd_vers_row *r = &db->v[i];

		if (r->kind == CD_VERS_BUILD && r->first <= nccl && nccl <= r->last && r->cuda_from <= cuda &&
		    (r->cuda_below < 0 || cuda < r->cuda_below))
			return r;
	}
	return NULL;
}

int cd_vers_sass_runs(int target, int sm)
{
	return target / 10 == sm / 10 && target <= sm;
}

int cd_vers_runs_on(const struct cd_vers_row *b, int sm)
{
	for (int i = 0; b && i < b->n_sm; i++)
		if (cd_vers_sass_runs(b->sm[i], sm))
			return 2;
	return b && b->ptx <= sm ? 1 : 0;
}

const struct cd_vers_row *cd_vers_first_for(const struct cd_vers_db *db, int sm)
{
	const struct cd_vers_row *best = NULL;

	for (size_t i = 0; db && i < db->n; i++) {
		const struct cd_vers_row *r = &db->v[i];

		if (r->kind != CD_VERS_BUILD || cd_vers_runs_on(r, sm) != 2)
			continue;
		if (!best || r->first < best->first || (r->first == best->first && r->cuda_from < best->cuda_from))
			best = r;
	}
	return best;
}

const struct cd_vers_row *cd_vers_last_for(const struct cd_vers_db *db, int sm)
{
	const struct cd_vers_row *best = NULL;

	for (size_t i = 0; db && i < db->n; i++) {
		const struct cd_vers_row *r = &db->v[i];

		if (r->kind != CD_VERS_BUILD || cd_vers_runs_on(r, sm) != 2)
			continue;
		if (!best || r->last > best->last || (r->last == best->last && r->cuda_from > best->cuda_from))
			best = r;
	}
	return best;
}

const struct cd_vers_row *cd_vers_cuda_driver(const struct cd_vers_db *db, int major)
{
	for (size_t i = 0; db && i < db->n; i++)
		if (db->v[i].kind == CD_VERS_CUDA_DRIVER && db->v[i].major == major)
			return &db->v[i];
	return NULL;
}

const struct cd_vers_row *cd_vers_nccl_driver(const struct cd_vers_db *db, int nccl, const char *what)
{
	const struct cd_vers_row *best = NULL;

	for (size_t i = 0; db && i < db->n; i++) {
		const struct cd_vers_row *r = &db->v[i];

		if (r->kind == CD_VERS_NCCL_DRIVER && !strcmp(r->what, what) && r->first <= nccl && nccl <= r->last &&
		    (!best || r->min_api > best->min_api))
			best = r;
	}
	return best;
}
