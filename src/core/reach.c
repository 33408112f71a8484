/* SPDX-License-Identifier: BSD-3-Clause */
/* tcp.reach's data as groups, from every attempt or from the compact form (see reach.h). */
#include "reach.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct key2 {
	const char *a, *b;
	size_t i;
};

struct cd_reach_index {
	const struct cd_results *r;
	struct key2 *to_if, *from_if, *from_to, *counts;
	size_t n_to_if, n_from_if, n_from_to, n_counts;
};

static int cmp_key2(const void *x, const void *y)
{
	const struct key2 *p = x, *q = y;
	int c = strcmp(p->a, q->a);

	if (!c)
		c = strcmp(p->b, q->b);
	return c ? c : (p->i > q->i) - (p->i < q->i);
}

enum by { BY_TO_IF, BY_FROM_IF, BY_FROM_TO };

static struct key2 *sorted(const struct cd_results *r, enum by by, size_t *n)
{
	struct key2 *k = xcalloc(r->n_reach ? r->n_reach : 1, sizeof(*k));

	*n = 0;
	for (size_t i = 0; i < r->n_reach; i++) {
		const struct cd_reach *x = &r->reach[i];
		const char *a = by == BY_TO_IF ? x->to : x->from, *b = by == BY_FROM_TO ? x->to : x->iface;

		if (a && b)
			k[(*n)++] = (struct key2){ a, b, i };
	}
	qsort(k, *n, sizeof(*k), cmp_key2);
	return k;
}

/* [*lo, *hi) of group (a, b) in k */
static void group(const struct key2 *k, size_t n, const char *a, const char *b, size_t *lo, size_t *hi)
{
	size_t l = 0, h = n;

	while (l < h) {
		size_t mid = l + (h - l) / 2;
		int c = strcmp(k[mid].a, a);

		if (!c)
			c = strcmp(k[mid].b, b);
		if (c < 0)
			l = mid + 1;
		else
			h = mid;
	}
	*lo = l;
	while (l < n && !strcmp(k[l].a, a) && !strcmp(k[l].b, b))
		l++;
	*hi = l;
}

struct cd_reach_index *cd_reach_index_new(const struct cd_results *r)
{
	struct cd_reach_index *ix = xcalloc(1, sizeof(*ix));

	ix->r = r;
	ix->to_if = sorted(r, BY_TO_IF, &ix->n_to_if);
	ix->from_if = sorted(r, BY_FROM_IF, &ix->n_from_if);
	ix->from_to = sorted(r, BY_FROM_TO, &ix->n_from_to);
	ix->counts = xcalloc(r->n_reach_counts ? r->n_reach_counts : 1, sizeof(*ix->counts));
	for (size_t i = 0; i < r->n_reach_counts; i++)
		if (r->reach_counts[i].host && r->reach_counts[i].iface)
			ix->counts[ix->n_counts++] =
				(struct key2){ r->reach_counts[i].host, r->reach_counts[i].iface, i };
	qsort(ix->counts, ix->n_counts, sizeof(*ix->counts), cmp_key2);
	return ix;
}

void cd_reach_index_free(struct cd_reach_index *ix)
{
	if (!ix)
		return;
	free(ix->to_if);
	free(ix->from_if);
	free(ix->from_to);
	free(ix->counts);
	free(ix);
}

static void tally(const struct cd_reach_index *ix, const struct key2 *k, size_t n, const char *a, const char *b,
		  int in, int64_t *tried, int64_t *ok)
{
	size_t lo, hi;

	*tried = *ok = 0;
	if (!a || !b)
		return;
	if (ix->r->n_reach_counts) {
		/* compact: the counts hold every attempt, reach[] only some */
		group(ix->counts, ix->n_counts, a, b, &lo, &hi);
		for (size_t j = lo; j < hi; j++) {
			const struct cd_reach_count *c = &ix->r->reach_counts[ix->counts[j].i];

			*tried += in ? c->in_tested : c->out_tested;
			*ok += in ? c->in_tested - c->in_failed : c->out_tested - c->out_failed;
		}
		return;
	}
	group(k, n, a, b, &lo, &hi);
	for (size_t j = lo; j < hi; j++)
		*ok += ix->r->reach[k[j].i].ok == CD_TRI_TRUE;
	*tried = (int64_t)(hi - lo);
}

void cd_reach_into(const struct cd_reach_index *ix, const char *to, const char *iface, int64_t *tried, int64_t *ok)
{
	tally(ix, ix->to_if, ix->n_to_if, to, iface, 1, tried, ok);
}

void cd_reach_outof(const struct cd_reach_index *ix, const char *from, const char *iface, int64_t *tried,
		    int64_t *ok)
{
	tally(ix, ix->from_if, ix->n_from_if, from, iface, 0, tried, ok);
}

int cd_reach_pair(const struct cd_reach_index *ix, const char *from, const char *to)
{
	size_t lo, hi;

	if (!from || !to)
		return -1;
	group(ix->from_to, ix->n_from_to, from, to, &lo, &hi);
	if (lo == hi)
		return -1;
	for (size_t j = lo; j < hi; j++)
		if (ix->r->reach[ix->from_to[j].i].ok == CD_TRI_TRUE)
			return 1;
	return 0;
}

/* ---- the compact form ---- */

struct tick {
	const char *host, *iface;
	int in, failed;
};

static int cmp_tick(const void *x, const void *y)
{
	const struct tick *p = x, *q = y;
	int c = strcmp(p->host, q->host);

	return c ? c : strcmp(p->iface, q->iface);
}

static void count_attempts(struct cd_results *r)
{
	struct tick *t = xcalloc(2 * r->n_reach + 1, sizeof(*t));
	size_t n = 0;

	for (size_t i = 0; i < r->n_reach; i++) {
		const struct cd_reach *x = &r->reach[i];

		if (!x->iface)
			continue;
		if (x->to)
			t[n++] = (struct tick){ x->to, x->iface, 1, x->ok != CD_TRI_TRUE };
		if (x->from)
			t[n++] = (struct tick){ x->from, x->iface, 0, x->ok != CD_TRI_TRUE };
	}
	qsort(t, n, sizeof(*t), cmp_tick);
	for (size_t s = 0, e; s < n; s = e) {
		struct cd_reach_count *c = CD_PUSH(r->reach_counts, r->n_reach_counts, r->cap_reach_counts);

		memset(c, 0, sizeof(*c));
		c->host = xstrdup(t[s].host);
		c->iface = xstrdup(t[s].iface);
		for (e = s; e < n && !cmp_tick(&t[s], &t[e]); e++) {
			if (t[e].in) {
				c->in_tested++;
				c->in_failed += t[e].failed;
			} else {
				c->out_tested++;
				c->out_failed += t[e].failed;
			}
		}
	}
	free(t);
}

size_t cd_reach_compact(struct cd_results *r)
{
	unsigned char *keep;
	struct key2 *k;
	size_t n, out = 0, dropped = 0;

	if (r->n_hosts <= CD_REACH_COMPACT_HOSTS || r->n_reach_counts || !r->n_reach)
		return 0;
	count_attempts(r);
	/* keep what fails, and the first success of each pair: it proves the path (TCP001) */
	keep = xcalloc(r->n_reach, 1);
	for (size_t i = 0; i < r->n_reach; i++)
		keep[i] = r->reach[i].ok != CD_TRI_TRUE || !r->reach[i].from || !r->reach[i].to || !r->reach[i].iface;
	k = sorted(r, BY_FROM_TO, &n);
	for (size_t s = 0, e; s < n; s = e) {
		int kept = 0;

		for (e = s; e < n && !strcmp(k[e].a, k[s].a) && !strcmp(k[e].b, k[s].b); e++)
			if (!kept && r->reach[k[e].i].ok == CD_TRI_TRUE && r->reach[k[e].i].iface)
				kept = keep[k[e].i] = 1;
	}
	free(k);
	for (size_t i = 0; i < r->n_reach; i++) {
		struct cd_reach *x = &r->reach[i];

		if (keep[i]) {
			r->reach[out++] = *x;
			continue;
		}
		free(x->from);
		free(x->to);
		free(x->iface);
		free(x->address);
		free(x->error);
		dropped++;
	}
	r->n_reach = out;
	free(keep);
	return dropped;
}
