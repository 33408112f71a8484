/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl-tests output to probe results. The text is read one bounded line at a time;
 * launcher prefixes ("0: " of srun -l, "[1,0]<stdout>:" of mpirun --tag-output,
 * "[0]" of other taggers) are stripped first, so logs of several ranks printing into
 * one file still parse. A line is one of: a header line ("# nThread …", "# Using
 * devices", "#  Rank …", the column names), a size row, a footer line ("# Out of
 * bounds values", "# Avg bus bandwidth"), or a line of another program (NCCL INFO,
 * the shell), which is counted and ignored. A row that is cut short or mangled is
 * skipped and its line number kept; a row whose fields are all there but one is not
 * a number is an input error, since importing it would import a wrong number.
 *
 * Column layouts differ by version: the root column came with 2.13 (2022), "#wrong"
 * (a count of wrong elements) replaced "error" (a maximum relative error, not a
 * count), "N/A" stands for a check not made, -I adds per-iteration columns, and the
 * column names line says which of these a log has. Without it, the layout is
 * inferred from the number of fields.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "import_nccltests.h"
#include "import_nccltests_infer.h"

#define MAX_TOKENS 64
#define NAME_MAX_LEN 32

static const char *const collectives[] = {
	"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "alltoallv",
	"sendrecv",   "gather",	    "scatter",	      "hypercube",
};

int cd_nt_collective_valid(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(collectives); i++)
		if (!strcmp(collectives[i], name))
			return 1;
	return 0;
}

const char *cd_nt_collective_list(void)
{
	return "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, alltoallv, sendrecv, gather, "
	       "scatter, hypercube";
}

/* One size row: out-of-place [0] and in-place [1]. */
struct row {
	int64_t bytes;
	int64_t count;    /* the count column; -1 when not read */
	int tsize;        /* bytes of its type; 0 when the type is not known */
	int has[2];
	double time_us[2], algbw[2], busbw[2];
	double alg_tol[2], bus_tol[2]; /* half a unit of the last digit printed */
	int64_t wrong[2]; /* CD_NULL_I64: N/A, or an "error" column, which is not a count */
};

/* Rank numbers the rank lines may name that are told apart (a repeated "Rank 0" of separate jobs). */
#define RANKS_SEEN_MAX 65536

/* One test run: from its header (or its first row) to its footer or the next test. */
struct section {
	char coll[NAME_MAX_LEN];  /* "" until the log says */
	int started;              /* saw a header line */
	size_t first_row;         /* line of the first row, for messages */
	int footer;               /* saw "Out of bounds values" */
	int ended;                /* saw "Avg bus bandwidth", a test's last line */
	int64_t oob;
	int64_t iters;
	int64_t nranks;           /* distinct ranks the rank lines name */
	unsigned char *ranks_seen; /* bitmap of those rank numbers */
	int64_t max_rank;         /* 1 + the highest of them: a pasted excerpt may show the last rank line only */
	int modern;               /* "Group" in the rank lines: nccl-tests 2.10 or later */
	char *first_host;         /* host of rank 0 (the first rank line) */
	char redop[NAME_MAX_LEN]; /* of the first row, to infer the collective; "" when left empty */
	int redop_col;            /* the rows have a redop column (it may be left empty) */
	int64_t root;
	int any_count;            /* some row has a #wrong count */
	struct row *rows;
	size_t n_rows, cap_rows;
	/* the column names line: token index of each field; -1 when absent */
	int cols_known;
	int names_line;           /* cols_known from the column names line (not from a row) */
	int c_redop, c_root, c_time[2], c_alg[2], c_bus[2], c_wrong[2];
	int wrong_is_count;       /* "#wrong", not "error" */
	double time_scale;        /* to microseconds */
};

struct state {
	struct cd_results *r;
	struct cd_import *im;
	const char *name;
	const char *opt_coll;
	char pending[NAME_MAX_LEN]; /* a *_perf name seen outside a test header */
	char nccl[32];              /* "NCCL version X" */
	struct section s;
	size_t line;
	int64_t rows;
	char *err;
};

static int fail(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct state *st, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (st->err)
		return -1;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	st->err = st->line ? xasprintf("%s:%zu: %s", st->name, st->line, msg) : xasprintf("%s: %s", st->name, msg);
	free(msg);
	return -1;
}

static void section_reset(struct section *s)
{
	free(s->rows);
	free(s->first_host);
	free(s->ranks_seen);
	memset(s, 0, sizeof(*s));
	s->oob = CD_NULL_I64;
	s->iters = CD_NULL_I64;
	s->nranks = 0;
	s->root = CD_NULL_I64;
	s->c_redop = s->c_root = -1;
	for (int v = 0; v < 2; v++)
		s->c_time[v] = s->c_alg[v] = s->c_bus[v] = s->c_wrong[v] = -1;
	s->time_scale = 1.0;
}

static void skipped(struct state *st)
{
	if (st->im->n_first_skipped < CD_IMPORT_FIRST_SKIPPED)
		st->im->first_skipped[st->im->n_first_skipped++] = (int64_t)st->line;
	st->im->skipped_lines++;
}

/* ---- hosts and GPUs from the rank lines ---- */

static struct cd_host *host_named(struct state *st, const char *name)
{
	struct cd_results *r = st->r;
	struct cd_host *h;
	char *hostname = cd_hostname_from_text(name); /* what the document can hold */

	for (size_t i = 0; i < r->n_hosts; i++)
		if (r->hosts[i].hostname && !strcmp(r->hosts[i].hostname, hostname)) {
			free(hostname);
			return &r->hosts[i];
		}
	h = cd_results_add_host(r);
	h->hostname = hostname;
	h->host_id_source = xasprintf("import: nccl-tests output '%s'", st->name);
	for (int p = 0; p < CD_PART_COUNT; p++)
		cd_section_set(&h->part[p], CD_ST_SKIPPED, "imported from nccl-tests output '%s': not discovered",
			       st->name);
	if (st->nccl[0])
		h->versions.nccl = xstrdup(st->nccl);
	return h;
}

/* "[0000:1b:00]" or "[0002:00:01]" (domain:bus:device) to a bus id; "[0x1b]" names the bus alone. */
static char *bus_id_of(const char *b)
{
	unsigned dom, bus, dev;
	char tail;

	if (sscanf(b, "%4x:%2x:%2x%c", &dom, &bus, &dev, &tail) == 4 && tail == ']')
		return xasprintf("%04x:%02x:%02x.0", dom, bus, dev);
	return NULL;
}

static void add_gpu(struct state *st, const char *hostname, int64_t device, const char *bus, const char *gpu_name)
{
	struct cd_host *h = host_named(st, hostname);
	struct cd_gpu *g;
	int listed = 0;

	for (size_t i = 0; i < st->im->hosts.n && !listed; i++)
		listed = !strcmp(st->im->hosts.v[i], h->hostname);
	if (!listed)
		cd_strv_push(&st->im->hosts, h->hostname);

	for (size_t i = 0; i < h->n_gpus; i++)
		if (h->gpus[i].index == device)
			return;
	g = cd_host_add_gpu(h);
	g->index = device;
	g->bus_id = bus_id_of(bus);
	g->name = *gpu_name ? xstrdup(gpu_name) : NULL;
}

/* ---- numbers ---- */

/* Every imported integer goes into the JSON document, which holds them exactly up to 2^53. */
#define JSON_EXACT (1LL << 53)

static int int_token(const char *t, int64_t *v)
{
	char *end;
	long long x;

	if (!isdigit((unsigned char)*t) && !(*t == '-' && isdigit((unsigned char)t[1])))
		return -1;
	errno = 0;
	x = strtoll(t, &end, 10);
	if (errno || *end || x > JSON_EXACT || x < -JSON_EXACT)
		return -1;
	*v = x;
	return 0;
}

/* 0: a number; 1: nan or inf (printed for a zero time), not a measurement; -1: not a number */
static int dbl_token(const char *t, double *v)
{
	char *end;

	if (!strcmp(t, "nan") || !strcmp(t, "-nan") || !strcmp(t, "inf")) {
		*v = NAN;
		return 1;
	}
	if (!isdigit((unsigned char)*t) && *t != '.')
		return -1;
	errno = 0;
	*v = strtod(t, &end);
	if (errno || *end || !isfinite(*v))
		return -1;
	return 0;
}

static int is_word(const char *t)
{
	return isalpha((unsigned char)*t) && strcmp(t, "N/A");
}

/* ---- the collective ---- */

/* A "<collective>_perf" name in the line, copied to out; 0 when none. */
static int perf_name(const char *line, char *out, size_t len)
{
	const char *p = line;

	while ((p = strstr(p, "_perf"))) {
		const char *b = p;
		char name[NAME_MAX_LEN];
		size_t n;

		while (b > line && (islower((unsigned char)b[-1]) || b[-1] == '_'))
			b--;
		n = (size_t)(p - b);
		if (n && n < sizeof(name)) {
			memcpy(name, b, n);
			name[n] = '\0';
			if (cd_nt_collective_valid(name)) {
				snprintf(out, len, "%s", name);
				return 1;
			}
		}
		p += 5;
	}
	return 0;
}

/* The ranks the rank lines name: the highest rank + 1, or more when ranks repeat (0: no lines). */
static int64_t section_ranks(const struct section *s)
{
	return s->nranks > s->max_rank ? s->nranks : s->max_rank;
}

/* What the section's rows show, for cd_nt_infer(); rows holds one entry per size row. */
static void observe(const struct section *s, struct cd_nt_obs *o, struct cd_nt_obs_row *rows)
{
	memset(o, 0, sizeof(*o));
	o->redop = !s->redop_col ? -1 : s->redop[0] && strcmp(s->redop, "none") ? 1 : 0;
	o->redop_heading = s->names_line ? s->c_redop >= 0 : -1;
	o->redop_name = s->redop;
	o->root = s->root == CD_NULL_I64 ? -1 : s->root >= 0;
	o->modern = s->modern ? 1 : s->nranks ? 0 : -1;
	o->ranks = section_ranks(s);
	o->rows = rows;
	o->n_rows = s->n_rows;
	for (size_t i = 0; i < s->n_rows; i++) {
		const struct row *w = &s->rows[i];
		int v = w->has[0] ? 0 : 1;

		rows[i] = (struct cd_nt_obs_row){ .bytes = w->bytes,
						  .count = w->count,
						  .tsize = w->tsize,
						  .alg = w->algbw[v],
						  .bus = w->busbw[v],
						  .alg_tol = w->alg_tol[v],
						  .bus_tol = w->bus_tol[v] };
	}
}

/*
 * The section's collective: named in the log, else --collective, else told from the
 * table (cd_nt_infer: one collective, or the candidates it cannot tell apart, joined
 * by '|'). from says which, for the record; *ranks gets the rank count the numbers
 * imply when no rank line said.
 */
static void resolve_collective(struct state *st, char *coll, size_t clen, char *from, size_t flen, int64_t *ranks)
{
	struct section *s = &st->s;
	struct cd_nt_obs o;
	struct cd_nt_obs_row *rows;
	struct cd_nt_guess g;

	*ranks = section_ranks(s);
	if (s->coll[0] || st->pending[0]) {
		snprintf(coll, clen, "%s", s->coll[0] ? s->coll : st->pending);
		snprintf(from, flen, "named in the log (%s_perf)", coll);
		return;
	}
	if (st->opt_coll) {
		snprintf(coll, clen, "%s", st->opt_coll);
		snprintf(from, flen, "--collective");
		return;
	}
	rows = xcalloc(s->n_rows ? s->n_rows : 1, sizeof(*rows));
	observe(s, &o, rows);
	cd_nt_infer(&o, &g);
	free(rows);
	snprintf(coll, clen, "%s", g.coll);
	snprintf(from, flen, "%s", g.how);
	*ranks = g.ranks;
}

/* ---- the end of a test: rows to probe runs ---- */

static int finish_section(struct state *st)
{
	struct section *s = &st->s;
	char coll[160], from[600];
	int64_t ranks;

	if (!s->n_rows) {
		section_reset(s);
		return 0;
	}
	resolve_collective(st, coll, sizeof(coll), from, sizeof(from), &ranks);
	for (int v = 0; v < 2; v++) {
		struct cd_probe_run *p = NULL;
		char *pname;

		for (size_t i = 0; i < s->n_rows; i++) {
			const struct row *w = &s->rows[i];
			struct cd_probe_sample *x;

			if (!w->has[v])
				continue;
			if (!p) {
				pname = xasprintf("nccl.%s", coll);
				p = cd_results_add_probe(st->r, pname);
				free(pname);
				p->variant = xstrdup(v ? "in_place" : "out_of_place");
				p->status = CD_ST_OK;
				p->host = s->first_host ? xstrdup(s->first_host) : NULL;
				p->nranks = ranks ? ranks : CD_NULL_I64;
				if (s->oob != CD_NULL_I64 && s->oob > 0 && !s->any_count) {
					/* old logs count failures only in the footer: the run failed its check */
					p->status = CD_ST_ERROR;
					p->phase = xstrdup("check");
					p->reason = xasprintf("nccl-tests reported %" PRId64 " out-of-bounds values; "
							      "the log gives no count per size",
							      s->oob);
				}
			}
			x = cd_probe_add_sample(p);
			x->bytes = w->bytes;
			x->iters = s->iters;
			x->time_us = w->time_us[v];
			x->algbw_gbyte_s = w->algbw[v];
			x->busbw_gbyte_s = w->busbw[v];
			x->errors = w->wrong[v];
		}
	}
	st->im->tests++;
	st->im->rows += (int64_t)s->n_rows;
	cd_strv_push(&st->im->collectives, coll);
	cd_strv_push(&st->im->collective_from, from);
	if (s->oob != CD_NULL_I64)
		st->im->out_of_bounds = (st->im->out_of_bounds == CD_NULL_I64 ? 0 : st->im->out_of_bounds) + s->oob;
	st->im->complete = (st->im->complete != CD_TRI_FALSE && s->footer) ? CD_TRI_TRUE : CD_TRI_FALSE;
	st->rows += (int64_t)s->n_rows;
	section_reset(s);
	return 0;
}

/* ---- text lines ---- */

static size_t split(char *line, char **tok, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t\r\v\f", &save); t && n < max; t = strtok_r(NULL, " \t\r\v\f", &save))
		tok[n++] = t;
	return n;
}

/* "2024-05-01": the date a log shipper or a Slurm/journal prefix starts with */
static int is_date(const char *p)
{
	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? p[i] != '-' : !isdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

/*
 * A timestamp before the line: "2024-05-01T12:00:00.123 ", "2024-05-01 12:00:00,123 ",
 * "[2024-05-01 12:00:00] ". Returns what follows it, or p when there is none.
 */
static char *skip_stamp(char *p)
{
	char *q = p + (*p == '[');

	if (!is_date(q))
		return p;
	if (*p == '[') {
		q = strchr(q, ']');
		return q ? q + 1 : p;
	}
	q += strcspn(q, " \t");
	while (*q == ' ' || *q == '\t')
		q++;
	/* the time as a second field ("2024-05-01 12:00:00"), never a row's first number */
	if (isdigit((unsigned char)q[0]) && isdigit((unsigned char)q[1]) && q[2] == ':')
		q += strcspn(q, " \t");
	return q;
}

/* "node-a1: " before a header or a row (pdsh, clush, dsh name each line by its host). */
static char *skip_host(char *p)
{
	char *q = p;
	int alpha = 0;

	while (isalnum((unsigned char)*q) || *q == '-' || *q == '_' || *q == '.')
		alpha |= isalpha((unsigned char)*q++);
	if (!alpha || q == p || *q != ':' || (q[1] != ' ' && q[1] != '\t'))
		return p;
	q++;
	while (*q == ' ' || *q == '\t')
		q++;
	return *q == '#' || isdigit((unsigned char)*q) ? q : p;
}

/* Remove launcher prefixes in place; returns the start of what the program printed. */
static char *strip_prefixes(char *line)
{
	char *p = line;
	int tagged = 0;

	for (int round = 0; round < 4; round++) {
		char *q;

		while (*p == ' ' || *p == '\t')
			p++;
		if ((q = skip_stamp(p)) != p || (q = skip_host(p)) != p) {
			p = q;
			continue;
		}
		q = p;
		if (isdigit((unsigned char)*q)) { /* srun -l: "12: " */
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ':' && (q[1] == ' ' || q[1] == '\t' || !q[1])) {
				p = q + 1;
				continue;
			}
			break;
		}
		if (*q == '[') { /* "[1,0]<stdout>:" (mpirun --tag-output) or "[0]" */
			q++;
			while (isdigit((unsigned char)*q) || *q == ',')
				q++;
			if (*q != ']' || q == p + 1)
				break;
			q++;
			if (!strncmp(q, "<stdout>:", 9) || !strncmp(q, "<stderr>:", 9))
				q += 9;
			else
				tagged = 1;
			p = q;
			continue;
		}
		break;
	}
	if (tagged) {
		/* several ranks tagged "[N]" wrote into one line: drop the tags inside it too */
		char *w = p;

		for (char *q = p; *q;) {
			if (*q == '[' && isdigit((unsigned char)q[1])) {
				char *e = q + 1;

				while (isdigit((unsigned char)*e))
					e++;
				if (*e == ']') {
					*w++ = ' ';
					q = e + 1;
					continue;
				}
			}
			*w++ = *q++;
		}
		*w = '\0';
	}
	return p;
}

/*
 * A rank the rank lines name, counted once: logs of several processes that each ran
 * without MPI (each its own one-rank job) repeat "Rank 0", and a log may hold the
 * rank list twice.
 */
static void count_rank(struct section *s, int64_t rank)
{
	if (rank < 0 || rank >= RANKS_SEEN_MAX) {
		s->nranks++;
		return;
	}
	if (!s->ranks_seen)
		s->ranks_seen = xcalloc(RANKS_SEEN_MAX / 8, 1);
	if (rank + 1 > s->max_rank)
		s->max_rank = rank + 1;
	if (s->ranks_seen[rank / 8] & (1u << (rank % 8)))
		return;
	s->ranks_seen[rank / 8] |= (unsigned char)(1u << (rank % 8));
	s->nranks++;
}

/* "#  Rank  0 Group  0 Pid  1234 on   host device  0 [0x1b] NVIDIA H100 80GB HBM3" (Group since 2.10). */
static int rank_line(struct state *st, char *s)
{
	char *tok[MAX_TOKENS], *bus, *name;
	char copy[CD_NT_LINE_MAX];
	size_t n, k = 0;
	int64_t rank, dev;
	char *host = NULL;

	snprintf(copy, sizeof(copy), "%s", s);
	bus = strchr(s, '[');
	name = bus ? strchr(bus, ']') : NULL;
	n = split(copy, tok, MAX_TOKENS);
	if (n < 2 || strcmp(tok[0], "Rank") || int_token(tok[1], &rank) < 0)
		return 0;
	for (k = 2; k + 1 < n; k++) {
		if (!strcmp(tok[k], "on"))
			host = tok[k + 1];
		if (!strcmp(tok[k], "device") && host)
			break;
	}
	if (!host || k + 1 >= n || int_token(tok[k + 1], &dev) < 0 || dev < 0 || !name) {
		skipped(st);
		return 1;
	}
	name++;
	while (*name == ' ')
		name++;
	name[strcspn(name, "\r\n")] = '\0';
	if (!st->s.first_host)
		st->s.first_host = cd_hostname_from_text(host); /* as host_named() keeps it */
	for (size_t i = 2; i < n; i++)
		if (!strcmp(tok[i], "Group"))
			st->s.modern = 1;
	count_rank(&st->s, rank);
	add_gpu(st, host, dev, bus + 1, name);
	return 1;
}

/* The column names: "size count type redop root time algbw busbw #wrong time …". */
static void column_line(struct section *s, char *line)
{
	char *tok[MAX_TOKENS];
	size_t n = split(line, tok, MAX_TOKENS);
	int v = 0, seen_time = 0;

	s->cols_known = 1;
	s->names_line = 1;
	s->wrong_is_count = 1;
	for (size_t i = 0; i < n; i++) {
		const char *t = tok[i];
		int idx = (int)i;

		if (!strcmp(t, "redop"))
			s->c_redop = idx;
		else if (!strcmp(t, "root"))
			s->c_root = idx;
		else if (!strcmp(t, "time") || !strcmp(t, "cputime")) {
			if (seen_time++ && v < 1)
				v++;
			s->c_time[v] = idx;
		} else if (!strcmp(t, "algbw"))
			s->c_alg[v] = idx;
		else if (!strcmp(t, "busbw"))
			s->c_bus[v] = idx;
		else if (!strcmp(t, "#wrong") || !strcmp(t, "error")) {
			s->c_wrong[v] = idx;
			if (!strcmp(t, "error"))
				s->wrong_is_count = 0;
		}
	}
	if (s->c_time[0] < 0 || s->c_alg[0] < 0 || s->c_bus[0] < 0)
		s->cols_known = s->names_line = 0;
}

/* Infer the layout from a row when no column names were seen. */
static int infer_layout(struct section *s, char **tok, size_t n)
{
	size_t k = 3, rest, stride;

	if (k < n && is_word(tok[k]))
		s->c_redop = (int)k++;
	rest = n - k;
	if (rest % 4 == 1)
		s->c_root = (int)k++;
	else if (rest % 4 != 0)
		return -1;
	if (n - k < 4)
		return -1;
	/* -I (per-iteration timing) puts i_min, i_max, i_p99 and i_cv% after each #wrong */
	stride = n - k == 16 ? 8 : 4;
	for (int v = 0; v < 2 && k + 4 <= n; v++, k += stride) {
		s->c_time[v] = (int)k;
		s->c_alg[v] = (int)k + 1;
		s->c_bus[v] = (int)k + 2;
		s->c_wrong[v] = (int)k + 3;
	}
	/* an old "error" column holds a fraction ("1e-06"), "#wrong" an integer */
	s->wrong_is_count = !strpbrk(tok[s->c_wrong[0]], ".eE");
	s->cols_known = 1;
	return 0;
}

/* "2025-10-28" or "12:00:00": a piece of the timestamp -T (2.17+) appends to each row */
static int is_stamp(const char *t)
{
	size_t n = strspn(t, "0123456789-:.T");

	return !t[n] && n >= 8 && (strchr(t, '-') || strchr(t, ':'));
}

/*
 * The row's fields, with the missing ones put back: a trailing timestamp is dropped,
 * and a redop left empty (alltoall before 2.10 printed it blank under a "redop"
 * heading) gets an empty field, so the columns line up with the names.
 */
static size_t row_tokens(struct section *sec, char *s, char **tok)
{
	static char empty[] = "";
	size_t n = split(s, tok, MAX_TOKENS - 1);

	while (n > 3 && is_stamp(tok[n - 1]))
		n--;
	if (sec->cols_known && sec->c_redop >= 3 && (size_t)sec->c_redop < n && !is_word(tok[sec->c_redop]) &&
	    is_word(tok[2])) {
		memmove(tok + sec->c_redop + 1, tok + sec->c_redop, (n - (size_t)sec->c_redop) * sizeof(*tok));
		tok[sec->c_redop] = empty;
		n++;
	}
	return n;
}

static int row_line(struct state *st, char *s)
{
	struct section *sec = &st->s;
	char *tok[MAX_TOKENS];
	size_t n;
	int64_t bytes, count = -1;
	struct row w = { 0 };
	static const char *const what[] = { "time", "algbw", "busbw", "#wrong" };

	/* rows after a test's last line belong to another test, with its own layout */
	if (sec->ended && sec->n_rows && finish_section(st) < 0)
		return -1;
	n = row_tokens(sec, s, tok);
	if (!n || int_token(tok[0], &bytes) < 0 || (n > 1 && int_token(tok[1], &count) < 0)) {
		/* not a row at all: a date, a host name with digits, … */
		st->im->other_lines++;
		return 0;
	}
	if (n < 3 || !is_word(tok[2]) || bytes < 0 || count < 0) {
		skipped(st);
		return 0;
	}
	if (!sec->cols_known && infer_layout(sec, tok, n) < 0) {
		sec->cols_known = 0;
		skipped(st);
		return 0;
	}
	/* a row cut short (a log that ends mid-line, or two ranks' output spliced) */
	if ((int)n <= sec->c_wrong[0] || (int)n <= sec->c_bus[0] || (sec->c_root >= 0 && (int)n <= sec->c_root) ||
	    (sec->c_redop >= 0 && (int)n <= sec->c_redop)) {
		skipped(st);
		return 0;
	}
	w.bytes = bytes;
	w.count = count;
	w.tsize = cd_nt_type_size(tok[2]);
	for (int v = 0; v < 2; v++) {
		int cols[4] = { sec->c_time[v], sec->c_alg[v], sec->c_bus[v], sec->c_wrong[v] };
		double val[3];
		int nan = 0;

		w.wrong[v] = CD_NULL_I64;
		/* a column the names line did not give, or beyond this row's end: no such variant */
		if (cols[0] < 0 || cols[1] < 0 || cols[2] < 0 || (int)n <= cols[0] || (int)n <= cols[1] ||
		    (int)n <= cols[2])
			continue;
		for (int f = 0; f < 3; f++) {
			int rc = dbl_token(tok[cols[f]], &val[f]);

			if (rc < 0)
				return fail(st, "'%s' is not a number (%s of the %s columns)", tok[cols[f]], what[f],
					    v ? "in-place" : "out-of-place");
			nan |= rc;
		}
		if (nan)
			continue;
		w.has[v] = 1;
		w.time_us[v] = val[0] * sec->time_scale;
		w.algbw[v] = val[1];
		w.busbw[v] = val[2];
		w.alg_tol[v] = cd_nt_print_tol(tok[cols[1]]);
		w.bus_tol[v] = cd_nt_print_tol(tok[cols[2]]);
		if (cols[3] >= 0 && (int)n > cols[3] && strcmp(tok[cols[3]], "N/A")) {
			int64_t wrong;
			double frac;

			if (sec->wrong_is_count && int_token(tok[cols[3]], &wrong) == 0 && wrong >= 0) {
				w.wrong[v] = wrong;
				sec->any_count = 1;
			} else if (sec->wrong_is_count || dbl_token(tok[cols[3]], &frac) != 0) {
				return fail(st, "'%s' is not a count of wrong elements or N/A (%s of the %s columns)",
					    tok[cols[3]], what[3], v ? "in-place" : "out-of-place");
			}
		}
	}
	if (!w.has[0] && !w.has[1]) {
		skipped(st);
		return 0;
	}
	if (!sec->n_rows) {
		sec->first_row = st->line;
		sec->redop_col = sec->c_redop >= 0;
		if (sec->c_redop >= 0)
			snprintf(sec->redop, sizeof(sec->redop), "%s", tok[sec->c_redop]);
		if (sec->c_root >= 0 && int_token(tok[sec->c_root], &sec->root) < 0)
			sec->root = CD_NULL_I64;
	}
	*CD_PUSH(sec->rows, sec->n_rows, sec->cap_rows) = w;
	return 0;
}

/* "nThread 1 nGpus 8 minBytes 8 … iters: 20 agg iters: 1 …" */
static void config_line(struct section *s, const char *line)
{
	const char *p = strstr(line, " iters:");
	int64_t v;

	/* the first " iters:" follows "warmup"; the timed count is the next one */
	if (p && p > line + 6 && !strncmp(p - 6, "warmup", 6))
		p = strstr(p + 7, " iters:");
	/* bounded as the -J path bounds it: a count past 2^53 would not come back as an integer */
	if (p && sscanf(p + 7, "%" SCNd64, &v) == 1 && v > 0 && v < 1000000000000)
		s->iters = v;
}

static int begin_section(struct state *st)
{
	if (st->s.n_rows && finish_section(st) < 0)
		return -1;
	if (!st->s.n_rows && (st->s.started || st->s.nranks)) {
		char keep[NAME_MAX_LEN];

		/* a header with no rows after it: a test that printed nothing (or a repeated header) */
		snprintf(keep, sizeof(keep), "%s", st->s.coll);
		section_reset(&st->s);
		snprintf(st->s.coll, sizeof(st->s.coll), "%s", keep);
	}
	st->s.started = 1;
	return 0;
}

static int text_line(struct state *st, char *raw)
{
	char *s = strip_prefixes(raw), *h;
	struct section *sec = &st->s;
	char name[NAME_MAX_LEN];

	s[strcspn(s, "\r\n")] = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	if (isdigit((unsigned char)*s))
		return row_line(st, s);
	/* headers and footers, with or without the '#' (markdown eats it in pasted logs) */
	h = s;
	if (*h == '#')
		h++;
	while (*h == ' ' || *h == '\t')
		h++;
	if (!strncmp(h, "Collective test starting:", 25)) {
		if (begin_section(st) < 0)
			return -1;
		if (perf_name(h, name, sizeof(name)))
			snprintf(sec->coll, sizeof(sec->coll), "%s", name);
		return 0;
	}
	if (!strncmp(h, "Collective test concluded:", 26)) {
		if (!sec->coll[0] && perf_name(h, name, sizeof(name)))
			snprintf(sec->coll, sizeof(sec->coll), "%s", name);
		return finish_section(st);
	}
	if (!strncmp(h, "nThread ", 8) || strstr(h, "minBytes ")) {
		if (sec->started && (sec->n_rows || sec->nranks || sec->iters != CD_NULL_I64) && begin_section(st) < 0)
			return -1;
		sec->started = 1;
		/* the binary named on the command line before this header ran this test */
		if (!sec->coll[0] && st->pending[0]) {
			snprintf(sec->coll, sizeof(sec->coll), "%s", st->pending);
			st->pending[0] = '\0';
		}
		config_line(sec, h);
		return 0;
	}
	if (!strncmp(h, "Rank ", 5))
		return rank_line(st, h), 0;
	if (strstr(h, "size") && strstr(h, "count") && strstr(h, "busbw")) {
		char copy[CD_NT_LINE_MAX];

		/* a second table pasted after the first, with no header line between: another test */
		if (sec->n_rows && finish_section(st) < 0)
			return -1;
		snprintf(copy, sizeof(copy), "%s", h);
		column_line(sec, copy);
		return 0;
	}
	if (strstr(h, "(B)") && strstr(h, "(elements)")) {
		if (strstr(h, "(ms)"))
			sec->time_scale = 1000.0;
		return 0;
	}
	if (!strncmp(h, "Out of bounds values", 20)) {
		const char *c = strchr(h, ':');
		int64_t v;

		sec->footer = 1;
		if (c && sscanf(c + 1, "%" SCNd64, &v) == 1 && v >= 0)
			sec->oob = v;
		return 0;
	}
	if (!strncmp(h, "Avg bus bandwidth", 17)) {
		const char *c = strchr(h, ':');
		double v;

		sec->ended = 1; /* the last line of a test: a row after it starts another */
		if (c && sscanf(c + 1, "%lf", &v) == 1 && isfinite(v) && v >= 0)
			*CD_PUSH(st->im->avg_busbw, st->im->n_avg_busbw, st->im->cap_avg_busbw) = v;
		return 0;
	}
	if (!strncmp(h, "NCCL version ", 13)) {
		size_t n = strcspn(h + 13, " +\t");

		if (n && n < sizeof(st->nccl))
			snprintf(st->nccl, sizeof(st->nccl), "%.*s", (int)n, h + 13);
		return 0;
	}
	if (perf_name(h, name, sizeof(name))) {
		/* the command line of the next test: the rows so far were another's */
		if (sec->n_rows && finish_section(st) < 0)
			return -1;
		snprintf(st->pending, sizeof(st->pending), "%s", name);
	}
	if (*s == '#' || !strncmp(h, "Using devices", 13) || strstr(h, "out-of-place"))
		return 0; /* nccl-tests' own comments */
	st->im->other_lines++;
	return 0;
}

static void parse_text(struct state *st, const char *text, size_t len)
{
	size_t off = 0;
	char line[CD_NT_LINE_MAX];

	st->im = cd_results_add_import(st->r, st->name, "nccl-tests text");
	section_reset(&st->s);
	while (off < len && !st->err) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off, c = n < sizeof(line) - 1 ? n : sizeof(line) - 1;

		st->line++;
		memcpy(line, text + off, c);
		line[c] = '\0';
		/* a NUL inside a line ends it for C; the rest of that line is not text */
		text_line(st, line);
		off += n + 1;
	}
	if (!st->err)
		finish_section(st);
}

/* ---- the JSON of -J/--output_file (nccl-tests 2.17+, file version 1 to 3) ---- */

static int json_num(struct state *st, const cJSON *o, const char *key, const char *where, double *v)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsNumber(e)) {
		*v = e->valuedouble;
		return isfinite(*v) && *v >= 0 ? 0 : fail(st, "%s.%s: expected a number >= 0", where, key);
	}
	/* nccl-tests writes NaN as the string "nan", and "N/A"-like nulls for checks not made */
	if (cJSON_IsNull(e) || !e || (cJSON_IsString(e) && !strcmp(e->valuestring, "nan"))) {
		*v = NAN;
		return 1;
	}
	return fail(st, "%s.%s: expected a number", where, key);
}

static int json_variant(struct state *st, const cJSON *res, int v, size_t i, struct row *w)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(res, v ? "in_place" : "out_of_place");
	char where[64];
	double t, a, b, wrong;
	int rc;

	w->wrong[v] = CD_NULL_I64;
	if (!o || cJSON_IsNull(o))
		return 0;
	snprintf(where, sizeof(where), "results[%zu].%s", i, v ? "in_place" : "out_of_place");
	if (!cJSON_IsObject(o))
		return fail(st, "%s: expected an object", where);
	rc = json_num(st, o, cJSON_GetObjectItemCaseSensitive(o, "time") ? "time" : "cpu_time", where, &t);
	if (rc < 0 || json_num(st, o, "alg_bw", where, &a) < 0 || json_num(st, o, "bus_bw", where, &b) < 0 ||
	    json_num(st, o, "nwrong", where, &wrong) < 0)
		return -1;
	if (rc || isnan(b))
		return 0;
	w->has[v] = 1;
	w->time_us[v] = t;
	w->algbw[v] = a;
	w->busbw[v] = b;
	w->alg_tol[v] = w->bus_tol[v] = 5e-7; /* written with %lf */
	if (!isnan(wrong)) {
		if (wrong != floor(wrong) || wrong > 9e15)
			return fail(st, "%s.nwrong: expected a whole number", where);
		w->wrong[v] = (int64_t)wrong;
		st->s.any_count = 1;
	}
	return 0;
}

static int parse_json(struct state *st, const char *text, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *cfg, *res, *e, *args, *oob, *ver;
	size_t i = 0;
	int rc = -1;

	st->im = cd_results_add_import(st->r, st->name, "nccl-tests json");
	section_reset(&st->s);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();

		return fail(st, "not valid JSON near byte %zu", at && at >= text ? (size_t)(at - text) : (size_t)0);
	}
	if (!cJSON_IsObject(root) || !cJSON_IsArray(res = cJSON_GetObjectItemCaseSensitive(root, "results"))) {
		fail(st, "not nccl-tests JSON output: no \"results\" list");
		goto out;
	}
	{
		char where[256] = "";
		const char *dup = cd_json_duplicate_key(root, where, sizeof(where));

		if (dup) {
			fail(st, "%s%skey '%.64s' appears twice: expected each key once", where, where[0] ? ": " : "", dup);
			goto out;
		}
	}
	ver = cJSON_GetObjectItemCaseSensitive(root, "nccl_version");
	if (cJSON_IsNumber(ver) && ver->valuedouble >= 20900 && ver->valuedouble < 1e6) {
		int code = (int)ver->valuedouble;

		snprintf(st->nccl, sizeof(st->nccl), "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
	}
	args = cJSON_GetObjectItemCaseSensitive(root, "args");
	if (cJSON_IsArray(args) && cJSON_IsString(cJSON_GetArrayItem(args, 0)))
		perf_name(cJSON_GetArrayItem(args, 0)->valuestring, st->s.coll, sizeof(st->s.coll));
	cfg = cJSON_GetObjectItemCaseSensitive(root, "config");
	if (cJSON_IsObject(cfg)) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(cfg, "iterations"),
			    *devs = cJSON_GetObjectItemCaseSensitive(cfg, "devices");

		if (cJSON_IsNumber(it) && it->valuedouble >= 1 && it->valuedouble < 1e12)
			st->s.iters = (int64_t)it->valuedouble;
		cJSON_ArrayForEach(e, devs) {
			const cJSON *hn = cJSON_GetObjectItemCaseSensitive(e, "hostname"),
				    *dv = cJSON_GetObjectItemCaseSensitive(e, "device"),
				    *hex = cJSON_GetObjectItemCaseSensitive(e, "device_hex"),
				    *info = cJSON_GetObjectItemCaseSensitive(e, "device_info");
			char bus[64];

			if (!cJSON_IsString(hn) || !*hn->valuestring || !cJSON_IsNumber(dv) || dv->valuedouble < 0 ||
			    dv->valuedouble > 1e6) {
				fail(st, "config.devices[%zu]: expected \"hostname\" and \"device\"", i);
				goto out;
			}
			snprintf(bus, sizeof(bus), "%s]", cJSON_IsString(hex) ? hex->valuestring : "");
			if (!st->s.first_host)
				st->s.first_host = cd_hostname_from_text(hn->valuestring);
			st->s.modern = 1;
			st->s.nranks++;
			add_gpu(st, hn->valuestring, (int64_t)dv->valuedouble, bus,
				cJSON_IsString(info) ? info->valuestring : "");
			i++;
		}
	}
	i = 0;
	cJSON_ArrayForEach(e, res) {
		const cJSON *size = cJSON_GetObjectItemCaseSensitive(e, "size"),
			    *redop = cJSON_GetObjectItemCaseSensitive(e, "redop"),
			    *rt = cJSON_GetObjectItemCaseSensitive(e, "root");
		struct row w = { 0 };

		if (!cJSON_IsNumber(size) || size->valuedouble < 0 || size->valuedouble > (double)JSON_EXACT ||
		    size->valuedouble != floor(size->valuedouble)) {
			fail(st, "results[%zu].size: expected a whole number of bytes", i);
			goto out;
		}
		w.bytes = (int64_t)size->valuedouble;
		w.count = -1;
		{
			const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(e, "count"),
				    *ty = cJSON_GetObjectItemCaseSensitive(e, "type");

			if (cJSON_IsNumber(cnt) && cnt->valuedouble >= 0 && cnt->valuedouble < (double)JSON_EXACT)
				w.count = (int64_t)cnt->valuedouble;
			w.tsize = cJSON_IsString(ty) ? cd_nt_type_size(ty->valuestring) : 0;
		}
		if (json_variant(st, e, 0, i, &w) < 0 || json_variant(st, e, 1, i, &w) < 0)
			goto out;
		if (!st->s.n_rows) {
			st->s.redop_col = cJSON_IsString(redop);
			if (cJSON_IsString(redop))
				snprintf(st->s.redop, sizeof(st->s.redop), "%s", redop->valuestring);
			if (cJSON_IsString(rt))
				st->s.root = strtoll(rt->valuestring, NULL, 10);
		}
		if (w.has[0] || w.has[1])
			*CD_PUSH(st->s.rows, st->s.n_rows, st->s.cap_rows) = w;
		else
			st->im->skipped_lines++;
		i++;
	}
	oob = cJSON_GetObjectItemCaseSensitive(root, "out_of_bounds");
	if (cJSON_IsObject(oob)) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(oob, "count");

		st->s.footer = 1;
		if (cJSON_IsNumber(c) && c->valuedouble >= 0 && c->valuedouble < 9e15)
			st->s.oob = (int64_t)c->valuedouble;
	}
	rc = finish_section(st);
out:
	section_reset(&st->s);
	cJSON_Delete(root);
	return rc;
}

int cd_import_nccltests(struct cd_results *r, const char *text, size_t len, const char *name, const char *collective,
			char **err)
{
	struct state st = { .r = r, .name = name, .opt_coll = collective };
	size_t k = 0;

	*err = NULL;
	while (k < len && isspace((unsigned char)text[k]))
		k++;
	if (k < len && text[k] == '{')
		parse_json(&st, text, len);
	else
		parse_text(&st, text, len);
	section_reset(&st.s);
	free(st.s.rows);
	if (st.err) {
		*err = st.err;
		return -1;
	}
	return (int)(st.rows > 1000000000 ? 1000000000 : st.rows);
}

int cd_import_footer_only(const struct cd_import *im)
{
	return im && !im->rows && im->n_avg_busbw > 0;
}
