/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telling an nccl-tests table's collective from its numbers. Each test computes its
 * bus bandwidth from its algorithm bandwidth by a factor of its own (its *GetBw
 * function), prints its reduction operator or "none", and prints a root for the
 * rooted operations only; its size column is the larger of the send and receive
 * buffers and its count column the count the collective is called with, so
 * size / (count × type size) is 1 for some and the rank count for the others. Every
 * collective nccl-tests has is checked against all four; the ones that fit every row,
 * within the precision the row was printed with, remain. What the table cannot tell
 * apart (all_gather and alltoall print the same columns and share their factor) stays
 * a list of candidates, never a guess.
 *
 * Read from NVIDIA/nccl-tests (2.19.6 and the tags back to v2.0.0):
 *   src/all_reduce.cu AllReduceGetBw        busbw = algbw × 2(n-1)/n, size = count × type
 *   src/all_gather.cu AllGatherGetBw        busbw = algbw × (n-1)/n,  size = n × count × type
 *   src/reduce_scatter.cu ReduceScatterGetBw busbw = algbw × (n-1)/n, size = n × count × type
 *   src/alltoall.cu AlltoAllGetBw           busbw = algbw × (n-1)/n,  size = n × count × type
 *   src/broadcast.cu BroadcastGetBw         busbw = algbw,            size = count × type, rooted
 *   src/reduce.cu ReduceGetBw               busbw = algbw,            size = count × type, rooted
 *   src/sendrecv.cu SendRecvGetBw           busbw = algbw,            size = count × type
 *   src/gather.cu GatherGetBw, src/scatter.cu ScatterGetBw: (n-1)/n, size = n × count × type, rooted
 *   src/hypercube.cu HyperCubeGetBw         busbw = algbw,            size = n × count × type
 * The sizes: common.cu TimeTest prints max(sendBytes, expectedBytes) and nbytes/wordSize
 * (the *GetCollByteCount paramcount).
 *
 * The columns: since 2.13 one layout for all (size count type redop root), the
 * reductions printing their operator (sendrecv too), the others "none" (2.13.4+) or an
 * empty field (2.13.0-2.13.3), root -1 but for broadcast, reduce, gather and scatter.
 * Before 2.13 each test printed its own (the print_line_header of each src/<test>.cu at
 * v2.11.0): a redop field for all_reduce, reduce_scatter, reduce and alltoall (left
 * empty), a root field for broadcast, reduce, gather and scatter, neither for
 * all_gather, sendrecv and hypercube. So a table without a root column is never a
 * rooted collective's, and one without a redop word is not a reduction's unless it is
 * an old sendrecv.
 *
 * Before mid-2020 (v2.0.0's all_gather.cu and reduce_scatter.cu) algbw already counted
 * only n-1 chunks and busbw equalled it: those factors are tried for logs that show
 * nothing of 2.10+; gather, scatter and hypercube came with 2.10 and 2.11.
 */
#include "import_nccltests_infer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum factor { F_ONE, F_ALLREDUCE, F_NM1 };

static const struct kind {
	const char *name;
	int per_rank;   /* size = n × count × type (else size = count × type) */
	int redop;      /* prints its reduction operator (else "none") */
	int rooted;     /* prints a root rank (else -1) */
	int old_redop;  /* before 2.13 its rows had a redop field */
	enum factor f;
	int era;        /* 0: any version; 1: only before 2.10 (the old factors); 2: only from 2.10 */
} kinds[] = {
	{ "all_reduce", 0, 1, 0, 1, F_ALLREDUCE, 0 },
	{ "all_gather", 1, 0, 0, 0, F_NM1, 0 },
	{ "all_gather", 1, 0, 0, 0, F_ONE, 1 },
	{ "reduce_scatter", 1, 1, 0, 1, F_NM1, 0 },
	{ "reduce_scatter", 1, 1, 0, 1, F_ONE, 1 },
	{ "alltoall", 1, 0, 0, 1, F_NM1, 0 },
	{ "broadcast", 0, 0, 1, 0, F_ONE, 0 },
	{ "reduce", 0, 1, 1, 1, F_ONE, 0 },
	{ "sendrecv", 0, 1, 0, 0, F_ONE, 0 },
	{ "gather", 1, 0, 1, 0, F_NM1, 2 },
	{ "scatter", 1, 0, 1, 0, F_NM1, 2 },
	{ "hypercube", 1, 0, 0, 0, F_ONE, 2 },
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))
/* Rank counts tried when nothing else says: nccl-tests runs on up to tens of thousands of GPUs. */
#define MAX_RANKS 65536

int cd_nt_type_size(const char *t)
{
	static const struct {
		const char *name;
		int size;
	} types[] = {
		{ "int8", 1 },	  { "uint8", 1 },  { "int32", 4 },    { "uint32", 4 },	 { "int64", 8 },  { "uint64", 8 },
		{ "half", 2 },	  { "float", 4 },  { "double", 8 },   { "bfloat16", 2 }, { "f8e4m3", 1 }, { "f8e5m2", 1 },
		{ "fp8_e4m3", 1 }, { "fp8_e5m2", 1 }, { "int", 4 },	  { "char", 1 },
	};

	for (size_t i = 0; t && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].name, t))
			return types[i].size;
	return 0;
}

double cd_nt_print_tol(const char *t)
{
	const char *dot = strchr(t, '.'), *e = strpbrk(t, "eE");
	int decimals = 0;

	if (dot)
		for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++)
			decimals++;
	if (e)
		return 0.5 * pow(10.0, atoi(e + 1) - decimals);
	return 0.5 * pow(10.0, -decimals);
}

static double factor(enum factor f, int64_t n)
{
	switch (f) {
	case F_ALLREDUCE:
		return 2.0 * (double)(n - 1) / (double)n;
	case F_NM1:
		return (double)(n - 1) / (double)n;
	default:
		return 1.0;
	}
}

/*
 * The factors busbw/algbw may be, given how each row was rounded: every row bounds it
 * between (busbw - tol) / (algbw + tol) and (busbw + tol) / (algbw - tol). A row that
 * printed 0.00 says nothing. 0 when the rows contradict each other (no factor fits).
 */
static int factor_bounds(const struct cd_nt_obs *o, double *lo, double *hi)
{
	*lo = 0;
	*hi = INFINITY;
	for (size_t i = 0; i < o->n_rows; i++) {
		const struct cd_nt_obs_row *w = &o->rows[i];

		if (w->alg <= w->alg_tol)
			continue;
		*lo = fmax(*lo, (w->bus - w->bus_tol) / (w->alg + w->alg_tol) - 1e-12);
		*hi = fmin(*hi, (w->bus + w->bus_tol) / (w->alg - w->alg_tol) + 1e-12);
	}
	return *lo <= *hi;
}

/* size / (count × type size), the same on every row that has a count: 0 when not known or not the same. */
static int64_t size_ratio(const struct cd_nt_obs *o)
{
	int64_t k = 0;

	for (size_t i = 0; i < o->n_rows; i++) {
		const struct cd_nt_obs_row *w = &o->rows[i];
		int64_t unit, q;

		if (w->count <= 0 || w->tsize <= 0)
			continue;
		unit = w->count * w->tsize;
		if (w->bytes % unit)
			return 0;
		q = w->bytes / unit;
		if (k && q != k)
			return 0;
		k = q;
	}
	return k;
}

/* The largest algbw row's busbw/algbw, for the message. */
static double shown_ratio(const struct cd_nt_obs *o)
{
	const struct cd_nt_obs_row *best = NULL;

	for (size_t i = 0; i < o->n_rows; i++)
		if (o->rows[i].alg > 0 && (!best || o->rows[i].alg > best->alg))
			best = &o->rows[i];
	return best ? best->bus / best->alg : NAN;
}

struct fit {
	int ok;
	int64_t lo, hi; /* the rank counts that fit (F_ONE: any, lo = hi = 0) */
};

/* The rank count whose factor is f: factor() solved for n (it grows with n). */
static double ranks_for(enum factor k, double f)
{
	double gap = (k == F_ALLREDUCE ? 2.0 : 1.0) - f;

	if (gap <= 0)
		return INFINITY;
	return (k == F_ALLREDUCE ? 2.0 : 1.0) / gap;
}

/* Which rank counts make kind k fit factors in [lo, hi]; ranks: the one count to try, or 0 for any. */
static struct fit fit_kind(const struct kind *k, double lo, double hi, int64_t ranks)
{
	struct fit r = { 0, 0, 0 };
	double a, b;

	if (k->f == F_ONE) {
		r.ok = lo <= 1.0 && 1.0 <= hi;
		return r;
	}
	if (ranks) {
		double f = factor(k->f, ranks);

		r.ok = lo <= f && f <= hi;
		r.lo = r.hi = r.ok ? ranks : 0;
		return r;
	}
	a = ceil(ranks_for(k->f, lo) - 1e-9);
	b = floor(ranks_for(k->f, hi) + 1e-9);
	a = fmax(a, 2);
	b = fmin(b, MAX_RANKS);
	if (a > b)
		return r;
	r.ok = 1;
	r.lo = (int64_t)a;
	r.hi = (int64_t)b;
	return r;
}

/* Do the redop and root columns fit kind k (see the top of this file)? */
static int columns_fit(const struct cd_nt_obs *o, const struct kind *k)
{
	if (o->root < 0) {
		/* no root column: a layout before 2.13, of a collective without a root */
		if (k->rooted)
			return 0;
		if (o->redop >= 0)
			return k->old_redop && k->redop == o->redop;
		if (o->redop_heading == 1) /* a heading over an empty field: old alltoall */
			return k->old_redop && !k->redop;
		if (o->redop_heading == 0)
			return !k->old_redop;
		return !k->old_redop || !k->redop; /* not known whether an empty field hides */
	}
	if (k->rooted != o->root)
		return 0;
	return o->redop == 1 ? k->redop : !k->redop;
}

static int admissible(const struct cd_nt_obs *o, const struct kind *k, int64_t per_rank)
{
	if (!columns_fit(o, k))
		return 0;
	if (per_rank == 1 && k->per_rank)
		return 0;
	if (per_rank > 1 && !k->per_rank)
		return 0;
	if (k->era == 1 && (o->modern == 1 || o->root >= 0))
		return 0;
	if (k->era == 2 && o->modern == 0)
		return 0;
	return 1;
}

static void add_cand(struct cd_nt_guess *g, const char *name)
{
	char *p = g->coll;
	size_t len = strlen(name);

	/* the same name twice (an old and a new factor): once */
	while ((p = strstr(p, name))) {
		if ((p == g->coll || p[-1] == '|') && (p[len] == '\0' || p[len] == '|'))
			return;
		p += len;
	}
	if (strlen(g->coll) + len + 2 > sizeof(g->coll))
		return;
	if (g->coll[0])
		strcat(g->coll, "|");
	strcat(g->coll, name);
	g->n_cands++;
}

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* One pass over the kinds; check_bw 0 drops the factor test (nothing fitted it). */
static int64_t pick(const struct cd_nt_obs *o, struct cd_nt_guess *g, int64_t per_rank, int64_t ranks, int check_bw)
{
	int64_t n_seen = -1; /* the one rank count every fitting kind agrees on; 0 when they differ */
	double lo = 0, hi = INFINITY;

	g->coll[0] = '\0';
	g->n_cands = 0;
	if (check_bw && !factor_bounds(o, &lo, &hi))
		return 0;
	for (size_t i = 0; i < N_KINDS; i++) {
		const struct kind *k = &kinds[i];
		struct fit f = { 1, 0, 0 };

		if (!admissible(o, k, per_rank))
			continue;
		if (check_bw && !(f = fit_kind(k, lo, hi, ranks)).ok)
			continue;
		add_cand(g, k->name);
		if (f.lo && f.lo == f.hi)
			n_seen = n_seen < 0 || n_seen == f.lo ? f.lo : 0;
		else if (k->f != F_ONE || !check_bw)
			n_seen = 0;
	}
	/* two candidates may fit with different counts (all_reduce on 2 ranks, sendrecv on any) */
	return n_seen > 0 && g->n_cands == 1 ? n_seen : 0;
}

void cd_nt_infer(const struct cd_nt_obs *o, struct cd_nt_guess *g)
{
	int64_t per_rank = size_ratio(o), ranks = per_rank > 1 ? per_rank : o->ranks, n;
	double ratio = shown_ratio(o);
	const char *note = "";

	memset(g, 0, sizeof(*g));
	n = pick(o, g, per_rank, ranks, 1);
	if (!g->n_cands && ranks && ranks == o->ranks && per_rank <= 1) {
		/* several jobs' rank lines in one log, or a cut list: the numbers decide */
		note = "; the rank lines' count did not fit";
		ranks = 0;
		n = pick(o, g, per_rank, 0, 1);
	}
	if (!g->n_cands) {
		note = "; busbw/algbw fits no nccl-tests factor, so it was not used";
		n = pick(o, g, per_rank, 0, 0);
	}
	if (!g->n_cands) {
		/* the columns contradict every collective: keep every one with a bus bandwidth */
		note = "; the columns fit no collective";
		for (size_t i = 0; i < N_KINDS; i++)
			add_cand(g, kinds[i].name);
		n = 0;
	}
	g->ranks = ranks ? ranks : n;
	snprintf(g->how, sizeof(g->how), "%s from the table: ", g->n_cands == 1 ? "inferred" : "candidates");
	if (o->redop < 0)
		append(g->how, sizeof(g->how), "no redop word");
	else
		append(g->how, sizeof(g->how), "redop '%.16s'", o->redop_name ? o->redop_name : o->redop ? "an operator" : "none");
	append(g->how, sizeof(g->how), o->root < 0 ? ", no root column" : o->root ? ", a root rank" : ", root -1");
	if (per_rank == 1)
		append(g->how, sizeof(g->how), ", size = count x type size");
	else if (per_rank > 1)
		append(g->how, sizeof(g->how), ", size = %lld x count x type size", (long long)per_rank);
	if (!isnan(ratio))
		append(g->how, sizeof(g->how), ", busbw/algbw %.3f", ratio);
	if (g->ranks)
		append(g->how, sizeof(g->how), ", %lld ranks%s", (long long)g->ranks,
		       per_rank > 1	 ? " (from the sizes)"
		       : ranks		 ? " (from the rank lines)"
					 : " (from busbw/algbw)");
	append(g->how, sizeof(g->how), "%s", note);
}
