/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PyTorch ProcessGroupNCCL's watchdog, as its lines read (torch/csrc/distributed/c10d/
 * ProcessGroupNCCL.cpp, 2.0 to 2.7):
 *
 *   [rank13]:[E218 …] [Rank 1] Watchdog caught collective operation timeout:
 *       WorkNCCL(SeqNum=216, OpType=ALLTOALL_BASE, NumelIn=…, Timeout(ms)=600000) ran for …
 *   [rank13]:[E218 …] [PG ID 11 PG GUID 119 Rank 1] Exception (either an error or timeout)
 *       detected by watchdog at work: 216, last enqueued NCCL work: 220, last completed NCCL work: 215.
 *
 * "[rankN]:" is c10's log prefix: the global rank (SetGlobalRank at init_process_group).
 * The tag is the group's logPrefix(): "[PG ID <local id> PG GUID <group name>(<desc>) Rank
 * <rank in the group>]" since 2.5, "[PG <name> (<desc>) Rank r]" in 2.4, "[PG <id> Rank r]"
 * in 2.3, none before. The "[Rank N]" of the timeout line is WorkNCCL's own prefix, a
 * group rank (since 2.4 a static: the first work's rank in the process), so a tag on the
 * same line or a companion line ("… detected by watchdog at work: S", "Timeout at NCCL
 * work: S", "Work timeout is detected by watchdog at work: S") says which group a report
 * is of. The PG ID counts groups per process and differs between ranks of one group;
 * the GUID (group name) is the same on all of them, so groups are told apart by it.
 *
 * SeqNums count per group: reports are compared only within one. Group ranks become
 * global ranks through a line that shows both (the prefix and a tag, or "ProcessGroupNCCL
 * initialization options: size: N, global rank: G" with a tag), or through the default
 * group, whose ranks are the global ranks. With TORCH_NCCL_DESYNC_DEBUG the watchdog logs
 * PyTorch's own verdict, in group ranks ("ranks [3] are the lagging ranks that caused
 * this timeout", "[3] joined but didn't finish collective #N").
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_torch.h"

#define MAX_REPORTS 256
#define MAX_GROUPS 64
#define MAX_MAPS 1024
#define MAX_LAG 64
#define MAX_RANK 1000000 /* a rank number in a log is believed below this */
#define MAX_NAMED 4      /* ranks named in one list before "and N more" */
#define MAX_VERDICTS 8   /* groups with an evidence line each */
#define UNNAMED (-2)     /* the one group of a log that names none */
#define MAX_SEEN 256     /* ranks whose [rankN] prefix a log shows, for hang: alive without a timeout */

struct tgroup {
	char key[64];    /* what names it on every rank: "GUID 119", "PG 1" */
	char label[112]; /* as the log writes it, less the rank and PG ID: "PG GUID 119" */
	int is_default;  /* "(default_pg)": its ranks are the global ranks */
	long size;       /* "initialization options: size: N"; -1 */
};

struct treport {
	int global;  /* "[rankN]:"; -1 */
	int grank;   /* Rank z of the tag; -1 */
	int wd_rank; /* "[Rank N] Watchdog caught"; -1 */
	int group;   /* index in groups; -1 */
	int timeout; /* the line says timeout, not "error or timeout" */
	long seq, enqueued, completed;
	char op[32];
	char host[128]; /* explain's host of the line; "" when none */
};

struct tmap {
	int group, grank, global;
};

struct tlag {
	int group, grank; /* group -1: a desync report of a log that names no group */
};

struct tseen {
	int global;
	char host[128];
};

struct cd_torch {
	struct tgroup groups[MAX_GROUPS];
	struct tseen seen[MAX_SEEN];
	int nseen;
	char host[128]; /* the host explain gives the line being read */
	struct treport reports[MAX_REPORTS];
	struct tmap maps[MAX_MAPS];
	struct tlag lag[MAX_LAG];
	int ngroups, nreports, nmaps, nlag, dropped;
	int timed_out;
	long timeout_ms;
	int ctx_group, ctx_global; /* the last tag read and its line's [rankN]: a desync report's group */
};

struct cd_torch *cd_torch_new(void)
{
	struct cd_torch *t = xcalloc(1, sizeof(*t));

	t->timeout_ms = -1;
	t->ctx_group = -1;
	t->ctx_global = -1;
	return t;
}

void cd_torch_free(struct cd_torch *t)
{
	free(t);
}

int cd_torch_timed_out(const struct cd_torch *t)
{
	return t && t->timed_out;
}

/* ---- reading ---- */

/* Decimal digits at p (at most 18); -1 if none. *end: after them. */
static long number(const char *p, const char **end)
{
	long v = 0;
	int n = 0;

	while (p && isdigit((unsigned char)p[n]) && n < 18) {
		v = v * 10 + (p[n] - '0');
		n++;
	}
	if (end)
		*end = p ? p + n : NULL;
	return n ? v : -1;
}

static long number_after(const char *line, const char *pat)
{
	const char *p = line ? strstr(line, pat) : NULL;

	return p ? number(p + strlen(pat), NULL) : -1;
}

/* c10's "[rankN]:" (and Python's "[rankN]: " excepthook prefix): the global rank. */
static int global_rank(const char *line)
{
	for (const char *p = strstr(line, "[rank"); p; p = strstr(p + 1, "[rank")) {
		const char *e;
		long v = number(p + 5, &e);

		if (v >= 0 && v < MAX_RANK && *e == ']')
			return (int)v;
	}
	return -1;
}

struct tag {
	char key[64], label[112];
	int grank, is_default;
};

/* Copy up to len-1 chars of p that are not in stop; returns how many. */
static size_t span(const char *p, const char *stop, char *buf, size_t len)
{
	size_t n = 0;

	while (p[n] && !strchr(stop, p[n]) && n + 1 < len) {
		buf[n] = p[n];
		n++;
	}
	buf[n] = '\0';
	return p[n] && !strchr(stop, p[n]) ? 0 : n; /* too long: not a tag */
}

/* "[PG ID 11 PG GUID 119(desc) Rank 1]", "[PG 1 (desc) Rank 0]", "[PG 0 Rank 2]" */
static int pg_tag(const char *line, struct tag *t)
{
	for (const char *p = strstr(line, "[PG "); p; p = strstr(p + 1, "[PG ")) {
		const char *q = p + 4, *r;
		char id[24] = "", name[48], desc[48] = "";
		int spaced = 0;
		size_t n;
		long rank;

		if (!strncmp(q, "ID ", 3)) {
			n = span(q + 3, " ]", id, sizeof(id));
			if (!n || strncmp(q + 3 + n, " PG GUID ", 9))
				continue;
			q += 3 + n + 9;
		}
		n = span(q, " (]", name, sizeof(name));
		if (!n)
			continue;
		q += n;
		if (*q == '(' || (q[0] == ' ' && q[1] == '(')) {
			spaced = *q == ' ';
			q += spaced + 1;
			n = span(q, ")]", desc, sizeof(desc));
			if (q[n] != ')')
				continue;
			q += n + 1;
		}
		if (strncmp(q, " Rank ", 6))
			continue;
		rank = number(q + 6, &r);
		if (rank < 0 || rank >= MAX_RANK || *r != ']')
			continue;
		snprintf(t->key, sizeof(t->key), "%s %s", *id ? "GUID" : "PG", name);
		if (*id) /* the PG ID is this process's count: another rank may give the group another */
			snprintf(t->label, sizeof(t->label), "PG GUID %s%s%s%s", name, *desc ? "(" : "", desc, *desc ? ")" : "");
		else
			snprintf(t->label, sizeof(t->label), "PG %s%s%s%s", name, *desc ? " (" : "", desc, *desc ? ")" : "");
		t->grank = (int)rank;
		t->is_default = !strcmp(desc, "default_pg");
		return 1;
	}
	return 0;
}

static int group_of(struct cd_torch *t, const struct tag *tag)
{
	struct tgroup *g;

	for (int i = 0; i < t->ngroups; i++) {
		g = &t->groups[i];
		if (strcmp(g->key, tag->key))
			continue;
		/* the prefix gains the description once the communicator exists */
		if (strlen(tag->label) > strlen(g->label))
			snprintf(g->label, sizeof(g->label), "%s", tag->label);
		g->is_default |= tag->is_default;
		return i;
	}
	if (t->ngroups >= MAX_GROUPS)
		return -1;
	g = &t->groups[t->ngroups];
	snprintf(g->key, sizeof(g->key), "%s", tag->key);
	snprintf(g->label, sizeof(g->label), "%s", tag->label);
	g->is_default = tag->is_default;
	g->size = -1;
	return t->ngroups++;
}

static void add_map(struct cd_torch *t, int group, int grank, long global)
{
	if (group < 0 || grank < 0 || global < 0 || global >= MAX_RANK)
		return;
	for (int i = 0; i < t->nmaps; i++)
		if (t->maps[i].group == group && t->maps[i].grank == grank)
			return; /* the first line that says it */
	if (t->nmaps < MAX_MAPS)
		t->maps[t->nmaps++] = (struct tmap){ group, grank, (int)global };
}

static int same_report(const struct cd_torch *t, int i, const struct treport *r)
{
	const struct treport *x = &t->reports[i];
	int compatible = x->group < 0 || r->group < 0 || (x->group == r->group && x->grank == r->grank);

	if (x->seq != r->seq)
		return 0;
	if (x->global >= 0 || r->global >= 0)
		return x->global == r->global && compatible;
	if (x->group >= 0 && r->group >= 0)
		return x->group == r->group && x->grank == r->grank;
	if (x->group < 0 && r->group < 0)
		return x->wd_rank >= 0 && x->wd_rank == r->wd_rank;
	return i == t->nreports - 1; /* a timeout line and its tagged companion, one after the other */
}

static void add_report(struct cd_torch *t, const struct treport *r)
{
	for (int i = t->nreports - 1; i >= 0; i--) {
		struct treport *x = &t->reports[i];

		if (!same_report(t, i, r))
			continue;
		if (x->group < 0 && r->group >= 0) {
			x->group = r->group;
			x->grank = r->grank;
		}
		if (x->global < 0)
			x->global = r->global;
		if (!x->host[0])
			snprintf(x->host, sizeof(x->host), "%s", r->host);
		if (x->wd_rank < 0)
			x->wd_rank = r->wd_rank;
		if (x->enqueued < 0)
			x->enqueued = r->enqueued;
		if (x->completed < 0)
			x->completed = r->completed;
		if (!x->op[0])
			snprintf(x->op, sizeof(x->op), "%s", r->op);
		x->timeout |= r->timeout;
		return;
	}
	if (t->nreports >= MAX_REPORTS) {
		t->dropped++;
		return;
	}
	t->reports[t->nreports++] = *r;
}

/* "[3, 5]" at p: the group ranks PyTorch's desync report names as lagging */
static void add_lag(struct cd_torch *t, int group, const char *p)
{
	for (int guard = 0; p && *p && *p != ']' && guard < MAX_LAG; guard++) {
		const char *e;
		long v;

		while (*p == ' ' || *p == ',' || *p == '[')
			p++;
		v = number(p, &e);
		if (v < 0 || v >= MAX_RANK)
			return;
		if (t->nlag < MAX_LAG)
			t->lag[t->nlag++] = (struct tlag){ group, (int)v };
		p = e;
	}
}

int cd_torch_line(struct cd_torch *t, const char *line)
{
	struct treport r = { -1, -1, -1, -1, 0, -1, -1, -1, "", "" };
	struct tag tag;
	int has_tag = pg_tag(line, &tag), global = global_rank(line), g = -1;
	const char *p, *w;

	snprintf(r.host, sizeof(r.host), "%s", t->host);
	if (global >= 0) {
		int k = 0;

		while (k < t->nseen && t->seen[k].global != global)
			k++;
		if (k == t->nseen && t->nseen < MAX_SEEN) {
			t->seen[t->nseen].global = global;
			snprintf(t->seen[t->nseen++].host, sizeof(t->seen[0].host), "%s", t->host);
		}
	}
	if (has_tag) {
		g = group_of(t, &tag);
		add_map(t, g, tag.grank, global);
		t->ctx_group = g;
		t->ctx_global = global;
		r.group = g;
		r.grank = g >= 0 ? tag.grank : -1;
	}
	r.global = global;
	if ((p = strstr(line, "initialization options:")) && has_tag && g >= 0) {
		long size = number_after(p, " size: ");

		if (size > 0 && size < MAX_RANK)
			t->groups[g].size = size;
		add_map(t, g, tag.grank, number_after(p, "global rank: "));
		return 1;
	}
	if ((p = strstr(line, "Watchdog caught collective operation timeout")) && (w = strstr(p, "WorkNCCL("))) {
		const char *rk = NULL, *s;

		for (s = strstr(line, "[Rank "); s && s < p; s = strstr(s + 1, "[Rank "))
			rk = s;
		if (rk)
			r.wd_rank = (int)number(rk + 6, NULL);
		r.seq = number_after(w, "SeqNum=");
		if ((s = strstr(w, "OpType=")))
			span(s + 7, ",) ", r.op, sizeof(r.op));
		if (number_after(w, "Timeout(ms)=") > 0)
			t->timeout_ms = number_after(w, "Timeout(ms)=");
		r.timeout = 1;
		t->timed_out = 1;
		if (r.seq >= 0)
			add_report(t, &r);
		return 1;
	}
	if (strstr(line, "NCCL error is detected by watchdog"))
		return 1; /* an error, not a timeout: no SeqNum to compare */
	if ((p = strstr(line, "detected by watchdog at work: ")) || (p = strstr(line, "Timeout at NCCL work: "))) {
		r.seq = number(strchr(p, ':') + 2, NULL);
		r.enqueued = number_after(p, "last enqueued NCCL work: ");
		r.completed = number_after(p, "last completed NCCL work: ");
		r.timeout = strstr(line, "Timeout at NCCL work") || strstr(line, "Work timeout is detected");
		t->timed_out |= r.timeout;
		if (r.seq >= 0)
			add_report(t, &r);
		return 1;
	}
	/* the desync report's lines follow its tagged first line without a prefix of their own */
	if ((p = strstr(line, "] are the lagging ranks that caused this timeout")) ||
	    (p = strstr(line, "] joined but didn't finish collective #"))) {
		const char *b = p;
		int ctx = has_tag ? g : (global < 0 || global == t->ctx_global) ? t->ctx_group : -1;

		while (b > line && b[-1] != '[')
			b--;
		add_lag(t, ctx, b);
		return 1;
	}
	return has_tag;
}

/* ---- summing up ---- */

struct member {
	int grank, global;
	long seq, enqueued, completed;
	const char *op;
};

struct view {
	const struct cd_torch *t;
	int unnamed;    /* no tag in the whole log: the reports are read as one group */
	int nranks;     /* NCCL's communicator size, for the unnamed group */
	struct member m[MAX_REPORTS];
	int n;
};

static int global_of(const struct cd_torch *t, int g, int grank)
{
	if (g < 0 || grank < 0)
		return -1;
	for (int i = 0; i < t->nmaps; i++)
		if (t->maps[i].group == g && t->maps[i].grank == grank)
			return t->maps[i].global;
	return t->groups[g].is_default ? grank : -1;
}

/* The members of group g that reported, one each (its lowest SeqNum). */
static void members(struct view *v, int g)
{
	const struct cd_torch *t = v->t;

	v->n = 0;
	for (int i = 0; i < t->nreports; i++) {
		const struct treport *r = &t->reports[i];
		int grank = g == UNNAMED ? r->wd_rank : r->grank, global;
		struct member *m = NULL;

		if ((g == UNNAMED ? r->group >= 0 : r->group != g) || r->seq < 0)
			continue;
		global = r->global >= 0 ? r->global : g == UNNAMED ? -1 : global_of(t, g, grank);
		for (int k = 0; k < v->n; k++)
			if ((global >= 0 && v->m[k].global == global) || (global < 0 && v->m[k].global < 0 && v->m[k].grank == grank))
				m = &v->m[k];
		if (m && m->seq <= r->seq)
			continue;
		if (!m)
			m = &v->m[v->n++];
		*m = (struct member){ grank, global, r->seq, r->enqueued, r->completed, r->op };
	}
}

/* "global rank 13 (group rank 1)", "global rank 2", "group rank 1 (global rank unknown)" */
static size_t name(char *buf, size_t len, int grank, int global, int plain)
{
	if (global >= 0 && (plain || grank < 0 || grank == global))
		return (size_t)snprintf(buf, len, "global rank %d", global);
	if (global >= 0)
		return (size_t)snprintf(buf, len, "global rank %d (group rank %d)", global, grank);
	if (grank >= 0)
		return (size_t)snprintf(buf, len, "group rank %d (global rank unknown)", grank);
	return (size_t)snprintf(buf, len, "a rank the log does not number");
}

/* The members whose SeqNum is seq (want 1) or is not (want 0), named and joined. */
static void names(const struct view *v, int g, long seq, int want, char *buf, size_t len)
{
	int plain = g == UNNAMED || v->t->groups[g].is_default, shown = 0, more = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < v->n; k++) {
		if ((v->m[k].seq == seq) != want)
			continue;
		if (shown == MAX_NAMED) {
			more++;
			continue;
		}
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s", shown ? ", " : "");
		if (used < len)
			used += name(buf + used, len - used, v->m[k].grank, v->m[k].global, plain);
		shown++;
	}
	if (more && used < len)
		snprintf(buf + used, len - used, " and %d more", more);
}

static const char *op_at(const struct view *v, long seq)
{
	for (int k = 0; k < v->n; k++)
		if (v->m[k].seq == seq && v->m[k].op && v->m[k].op[0])
			return v->m[k].op;
	return "";
}

/* The group ranks in [0, size) that did not report, named; 0 if the size is not known. */
static int missing(const struct view *v, int g, char *buf, size_t len)
{
	long size = g == UNNAMED ? v->nranks : v->t->groups[g].size;
	int plain = g == UNNAMED || v->t->groups[g].is_default, shown = 0, more = 0;
	size_t used = 0;

	buf[0] = '\0';
	if (size <= 0 || size > MAX_RANK)
		return 0;
	for (long r = 0; r < size; r++) {
		int seen = 0;

		for (int k = 0; k < v->n && !seen; k++)
			seen = v->m[k].grank == r;
		if (seen)
			continue;
		if (shown == MAX_NAMED * 2) {
			more++;
			continue;
		}
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s", shown ? ", " : "");
		if (used < len)
			used += name(buf + used, len - used, (int)r, g == UNNAMED ? -1 : global_of(v->t, g, (int)r), plain);
		shown++;
	}
	if (more && used < len)
		snprintf(buf + used, len - used, " and %d more", more);
	return shown + more;
}

/* PyTorch's desync report for group g, named; 0 if it has none. */
static int lagging(const struct view *v, int g, char *buf, size_t len)
{
	int plain = g == UNNAMED || v->t->groups[g].is_default, shown = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < v->t->nlag && shown < MAX_NAMED * 2; i++) {
		const struct tlag *l = &v->t->lag[i];

		if (l->group != (g == UNNAMED ? -1 : g))
			continue;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s", shown ? ", " : "");
		if (used < len)
			used += name(buf + used, len - used, l->grank, g == UNNAMED ? -1 : global_of(v->t, g, l->grank), plain);
		shown++;
	}
	return shown;
}

/* One group's verdict into buf; 1 when it names a rank behind the others. */
static int verdict(struct view *v, int g, char *buf, size_t len)
{
	char who[384], rest[384], lag[384], where[160];
	long lo = -1, hi = -1;
	const char *op;

	members(v, g);
	for (int k = 0; k < v->n; k++) {
		if (lo < 0 || v->m[k].seq < lo)
			lo = v->m[k].seq;
		if (v->m[k].seq > hi)
			hi = v->m[k].seq;
	}
	if (g == UNNAMED)
		snprintf(where, sizeof(where), "%s", "");
	else
		snprintf(where, sizeof(where), " in %s", v->t->groups[g].label);
	if (lagging(v, g, lag, sizeof(lag))) {
		snprintf(buf, len, "PyTorch's desync report names %s as lagging%s", lag, where);
		return 1;
	}
	op = op_at(v, lo);
	if (lo < hi) {
		names(v, g, lo, 1, who, sizeof(who));
		names(v, g, lo, 0, rest, sizeof(rest));
		snprintf(buf, len, "%s %s behind%s: SeqNum %ld%s%s while %s reached %ld", who,
			 strstr(who, ", ") || strstr(who, " more") ? "are" : "is", where, lo, *op ? " " : "", op, rest, hi);
		return 1;
	}
	names(v, g, lo, 1, who, sizeof(who));
	snprintf(rest, sizeof(rest), "%s", "");
	if (v->n == 1 && v->m[0].completed >= 0)
		snprintf(rest, sizeof(rest), " (last completed %ld, last enqueued %ld)", v->m[0].completed, v->m[0].enqueued);
	snprintf(where, sizeof(where), "%s%s", g == UNNAMED ? "" : v->t->groups[g].label, g == UNNAMED ? "" : ": ");
	if (missing(v, g, lag, sizeof(lag)))
		snprintf(buf, len, "%s%s wait%s at SeqNum %ld%s%s%s; not reporting, the straggler among them: %s", where, who,
			 v->n == 1 ? "s" : "", lo, *op ? " " : "", op, rest, lag);
	else
		snprintf(buf, len, "%s%s wait%s at SeqNum %ld%s%s%s; a member that did not report is the straggler (the log "
			 "does not show the group's size)", where, who, v->n == 1 ? "s" : "", lo, *op ? " " : "", op, rest);
	return 0;
}

/* Without a group in the log: does any process report two SeqNums (two groups, then)? */
static int several_groups(const struct cd_torch *t, char *buf, size_t len)
{
	for (int i = 0; i < t->nreports; i++)
		for (int k = i + 1; k < t->nreports; k++) {
			const struct treport *a = &t->reports[i], *b = &t->reports[k];
			int same = a->global >= 0 ? a->global == b->global : b->global < 0 && a->wd_rank == b->wd_rank;

			if (!same || a->seq == b->seq)
				continue;
			if (a->global >= 0)
				snprintf(buf, len, "global rank %d reports SeqNums %ld and %ld", a->global, a->seq, b->seq);
			else
				snprintf(buf, len, "\"[Rank %d]\" reports SeqNums %ld and %ld (one process in two groups, or "
					 "two processes, the log cannot say which)", a->wd_rank, a->seq, b->seq);
			return 1;
		}
	return 0;
}

void cd_torch_summarise(const struct cd_torch *t, struct cd_finding *f, int nranks)
{
	struct view *v = xcalloc(1, sizeof(*v));
	char line[2048], subject[2048] = "", why[512];
	int behind = 0, groups = 0, unassigned = 0, named = 0;

	if (!t || !f)
		goto out;
	v->t = t;
	v->nranks = nranks;
	v->unnamed = !t->ngroups;
	if (t->timeout_ms > 0) {
		f->expected = (double)t->timeout_ms;
		free(f->unit);
		f->unit = xstrdup("ms");
	}
	for (int i = 0; i < t->nreports; i++)
		unassigned += t->reports[i].group < 0;
	if (v->unnamed && several_groups(t, why, sizeof(why))) {
		snprintf(subject, sizeof(subject), "cannot tell which rank is behind: the log names no process group and "
			 "%s, so its reports come from more than one group", why);
		cd_finding_evidence(f, "SeqNums count per process group; PyTorch before 2.3 does not name the group in its "
				    "log (TORCH_NCCL_TRACE_BUFFER_SIZE and TORCH_NCCL_DUMP_ON_TIMEOUT record it)");
		goto out;
	}
	if (v->unnamed) {
		if (t->nreports) {
			behind = verdict(v, UNNAMED, subject, sizeof(subject));
			named = 1;
			groups = 1;
			cd_finding_evidence(f, "the log names no process group: its reports are read as one group "
					    "(no rank reports two SeqNums)");
		}
	} else {
		for (int g = 0; g < t->ngroups; g++) {
			int b;

			members(v, g);
			if (!v->n)
				continue;
			b = verdict(v, g, line, sizeof(line));
			if (groups++ < MAX_VERDICTS)
				cd_finding_evidence(f, "%s", line);
			if (b && !behind++)
				snprintf(subject, sizeof(subject), "%s", line);
			else if (groups == 1 && !behind)
				snprintf(subject, sizeof(subject), "%s", line);
			named = 1;
		}
		if (groups > 1 && behind)
			cd_finding_evidence(f, "%d process groups timed out; SeqNums are compared only within a group", groups);
		else if (groups > 1)
			snprintf(subject, sizeof(subject), "%d process groups timed out and none has a rank behind the others "
				 "of its group (SeqNums count per group): in each, a member that did not report is the straggler",
				 groups);
	}
	for (int i = 0, shown = 0; i < t->nreports && shown < MAX_VERDICTS; i++) {
		const struct treport *r = &t->reports[i];

		if (r->group >= 0 || v->unnamed)
			continue;
		name(why, sizeof(why), -1, r->global, 1);
		cd_finding_evidence(f, "%s timed out at SeqNum %ld%s%s; the log does not say in which process group, so "
				    "it is compared with no other", r->global >= 0 ? why : "a rank", r->seq, r->op[0] ? " " : "", r->op);
		shown++;
	}
	if (!groups && t->nreports)
		snprintf(subject, sizeof(subject), "cannot tell which rank is behind: the log does not say which process "
			 "group the %d timed-out collective%s belong%s to", unassigned, unassigned == 1 ? "" : "s",
			 unassigned == 1 ? "s" : "");
	if (named)
		cd_finding_evidence(f, "\"global rank\" is c10's [rankN] line prefix (or a group's \"global rank:\"); "
				    "\"group rank\" is the Rank of the group's [PG … Rank N] tag");
	if (t->dropped)
		cd_finding_evidence(f, "%d further watchdog reports not read (more than %d)", t->dropped, MAX_REPORTS);
	if (!*subject)
		snprintf(subject, sizeof(subject), "%s", "a collective timed out; the log shows no SeqNum to compare");
out:
	if (f && *subject) {
		free(f->subject);
		f->subject = xstrdup(subject);
	}
	free(v);
}

/* ---- the reports, into the document for hang's judge ---- */

void cd_torch_set_host(struct cd_torch *t, const char *host)
{
	snprintf(t->host, sizeof(t->host), "%s", host ? host : "");
}

static struct cd_wd_report *push_report(struct cd_results *r, const char *log, const char *host)
{
	struct cd_wd_report *w = CD_PUSH(r->watchdog, r->n_watchdog, r->cap_watchdog);

	memset(w, 0, sizeof(*w));
	w->log = xstrdup(log);
	w->host = host && *host ? xstrdup(host) : NULL;
	w->group_size = w->global = w->grank = w->seq = w->enqueued = w->completed = CD_NULL_I64;
	return w;
}

static int64_t or_null(long v)
{
	return v >= 0 ? (int64_t)v : CD_NULL_I64;
}

void cd_torch_export(const struct cd_torch *t, struct cd_results *r, const char *log, int nranks)
{
	for (int i = 0; t && i < t->nreports; i++) {
		const struct treport *x = &t->reports[i];
		struct cd_wd_report *w = push_report(r, log, x->host);
		int g = x->group, grank = g >= 0 ? x->grank : x->wd_rank;

		if (g >= 0) {
			w->group = xstrdup(t->groups[g].key);
			w->group_label = xstrdup(t->groups[g].label);
			w->is_default = t->groups[g].is_default;
			w->group_size = or_null(t->groups[g].size);
		} else if (!t->ngroups && nranks > 0) {
			w->group_size = nranks; /* a log that names no group: NCCL's one communicator */
		}
		w->timeout = x->timeout;
		w->grank = or_null(grank);
		w->global = or_null(x->global >= 0 ? x->global : global_of(t, g, grank));
		w->seq = or_null(x->seq);
		w->enqueued = or_null(x->enqueued);
		w->completed = or_null(x->completed);
		w->op = x->op[0] ? xstrdup(x->op) : NULL;
	}
	/* a rank the log shows alive, with no report of its own: the one the others may wait for */
	for (int k = 0; t && k < t->nseen; k++) {
		int reported = 0;

		for (int i = 0; i < t->nreports && !reported; i++)
			reported = t->reports[i].global == t->seen[k].global;
		if (!reported)
			push_report(r, log, t->seen[k].host)->global = t->seen[k].global;
	}
	/* a group rank the log maps to a global one ("global rank:"), with no report in that group:
	 * a member of the group that did not time out in it */
	for (int k = 0; t && k < t->nmaps; k++) {
		const struct tmap *m = &t->maps[k];
		const struct tgroup *g = &t->groups[m->group];
		struct cd_wd_report *w;
		int reported = 0;

		for (int i = 0; i < t->nreports && !reported; i++)
			reported = t->reports[i].group == m->group && t->reports[i].grank == m->grank;
		if (reported)
			continue;
		w = push_report(r, log, t->host);
		w->group = xstrdup(g->key);
		w->group_label = xstrdup(g->label);
		w->is_default = g->is_default;
		w->group_size = or_null(g->size);
		w->grank = m->grank;
		w->global = m->global;
	}
}
