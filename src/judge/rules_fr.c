/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang's judge of PyTorch Flight Recorder dumps (HANG006–HANG009; rules_hang.h).
 * Per process group, walk the collective sequence ids every rank's ring buffer still holds
 * and stop at the first where the ranks diverge, as tools/flight_recorder's builder does
 * (its pairing after a mismatch is unreliable, so is ours): a rank that never entered it,
 * ranks that entered it as different operations or sizes, or a collective all entered and
 * not all completed. Point-to-point entries (send, recv) have their own sequence and are
 * not matched here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_hang.h"
#include "util.h"

#define MAX_NAMED 8 /* ranks spelled out in one line of evidence */

struct slot {
	long long seq;
	const struct cd_fr_entry *e; /* the first entry of the sequence id (a coalesced group has several) */
	char *names, *in, *out;      /* of every entry of the sequence id, joined */
	char *types;                 /* input and output dtypes, joined */
	enum cd_fr_state st;         /* the least advanced */
};

struct member {
	long rank;
	size_t local; /* the group rank */
	const struct cd_fr_dump *d;
	struct slot *s;
	size_t n, cap;
	const struct slot *at; /* the slot of the sequence id under judgement */
};

struct group {
	char *name, *desc;
	long *ranks;
	size_t n_ranks, cap_ranks;
};

static const struct cd_fr_dump *dump_of(const struct cd_fr_dump *d, size_t n, long rank)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].rank == rank)
			return &d[i];
	return NULL;
}

static int same_ranks(const struct group *g, const struct cd_fr_pg *p)
{
	if (g->n_ranks != p->n_ranks)
		return 0;
	for (size_t i = 0; i < g->n_ranks; i++)
		if (g->ranks[i] != p->ranks[i])
			return 0;
	return 1;
}

/* The groups the dumps name: each pg_config entry once; a group only entries name, by them. */
static void collect_groups(const struct cd_fr_dump *d, size_t n, struct group **gs, size_t *ng)
{
	size_t cap = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < d[i].n_pgs; k++) {
			const struct cd_fr_pg *p = &d[i].pgs[k];
			struct group *g;
			size_t j;

			for (j = 0; j < *ng && (strcmp((*gs)[j].name, p->name) || !same_ranks(&(*gs)[j], p)); j++)
				;
			if (j < *ng)
				continue;
			g = CD_PUSH(*gs, *ng, cap);
			memset(g, 0, sizeof(*g));
			g->name = xstrdup(p->name);
			g->desc = xstrdup(p->desc);
			for (size_t r = 0; r < p->n_ranks; r++)
				*CD_PUSH(g->ranks, g->n_ranks, g->cap_ranks) = p->ranks[r];
		}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < d[i].n_entries; k++) {
			const struct cd_fr_entry *e = &d[i].entries[k];
			struct group *g = NULL;
			int known = 0;

			for (size_t q = 0; q < d[i].n_pgs && !known; q++)
				known = !strcmp(d[i].pgs[q].name, e->pg_name); /* its own pg_config names it */
			for (size_t j = 0; j < *ng && !known; j++) {
				if (strcmp((*gs)[j].name, e->pg_name))
					continue;
				g = &(*gs)[j];
				for (size_t r = 0; r < g->n_ranks && !known; r++)
					known = g->ranks[r] == d[i].rank;
			}
			if (known)
				continue;
			if (!g) {
				g = CD_PUSH(*gs, *ng, cap);
				memset(g, 0, sizeof(*g));
				g->name = xstrdup(e->pg_name);
				g->desc = xstrdup(e->pg_desc);
			}
			*CD_PUSH(g->ranks, g->n_ranks, g->cap_ranks) = d[i].rank;
		}
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static char *join(char *a, const char *b)
{
	char *s;

	if (!a)
		return xstrdup(b ? b : "?");
	s = xasprintf("%s + %s", a, b ? b : "?");
	free(a);
	return s;
}

/* The rank's entries of group g, one slot per sequence id, sorted. */
static void build_slots(struct member *m, const struct group *g)
{
	for (size_t k = 0; k < m->d->n_entries; k++) {
		const struct cd_fr_entry *e = &m->d->entries[k];
		struct slot *s = NULL;

		if (e->p2p || strcmp(e->pg_name, g->name))
			continue;
		/* entries are in record order, so a coalesced group's ops are adjacent: only the newest
		 * slot can be theirs (no search: a job of thousands of ranks has 2000 entries each) */
		if (m->n && m->s[m->n - 1].seq == e->coll_seq)
			s = &m->s[m->n - 1];
		if (!s) {
			s = CD_PUSH(m->s, m->n, m->cap);
			memset(s, 0, sizeof(*s));
			s->seq = e->coll_seq;
			s->e = e;
			s->st = e->state;
		} else if (e->state < s->st) {
			s->st = e->state;
		}
		s->names = join(s->names, e->profiling_name);
		s->in = join(s->in, e->in_sizes);
		s->out = join(s->out, e->out_sizes);
		s->types = join(s->types, e->in_dtypes);
		s->types = join(s->types, e->out_dtypes);
	}
	if (m->n)
		qsort(m->s, m->n, sizeof(*m->s), slot_cmp);
}

static const struct slot *find_slot(const struct member *m, long long seq)
{
	struct slot key = { .seq = seq };

	return m->n ? bsearch(&key, m->s, m->n, sizeof(*m->s), slot_cmp) : NULL;
}

static char *group_name(const struct group *g)
{
	return g->desc && *g->desc ? xasprintf("'%s' (%s)", g->name, g->desc) : xasprintf("'%s'", g->name);
}

static char *base(const char *path)
{
	const char *b = strrchr(path, '/');

	return xstrdup(b ? b + 1 : path);
}

static void evidence_member(struct cd_finding *f, const struct member *m, const struct slot *s)
{
	char *b = base(m->d->path);

	if (s)
		cd_finding_evidence(f, "rank %ld (%s): #%lld %s %s, input %s, output %s", m->rank, b, s->seq, s->names,
				    cd_fr_state_str(s->st), s->in, s->out);
	else if (m->n)
		cd_finding_evidence(f, "rank %ld (%s): last #%lld %s %s", m->rank, b, m->s[m->n - 1].seq,
				    m->s[m->n - 1].names, cd_fr_state_str(m->s[m->n - 1].st));
	else
		cd_finding_evidence(f, "rank %ld (%s): no collective of this group in its dump", m->rank, b);
	free(b);
}

/* Ranks of ms whose `at` satisfies pick (or all): "0, 1, 3" and "and N more". */
static char *rank_list(const struct member *ms, size_t n, int want_at)
{
	char buf[256] = "";
	size_t used = 0, named = 0, more = 0;

	for (size_t i = 0; i < n; i++) {
		if (want_at >= 0 && (ms[i].at != NULL) != want_at)
			continue;
		if (named == MAX_NAMED) {
			more++;
			continue;
		}
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%ld", named ? ", " : "", ms[i].rank);
		named++;
		if (used >= sizeof(buf))
			used = sizeof(buf) - 1;
	}
	return more ? xasprintf("%s and %zu more", buf, more) : xstrdup(buf);
}

static void common_evidence(struct cd_finding *f, const struct member *ms, size_t n, const struct slot *ref)
{
	size_t shown = 0;

	for (size_t i = 0; i < n && shown < MAX_NAMED; i++, shown++)
		evidence_member(f, &ms[i], ms[i].at);
	if (n > shown)
		cd_finding_evidence(f, "and %zu more ranks", n - shown);
	if (ref && isfinite(ref->e->timeout_ms))
		/* read back by the advice (advise_job.c, l_hang): the process group's timeout */
		cd_finding_evidence(f, "process-group timeout: %.0f ms", ref->e->timeout_ms);
	cd_finding_evidence(f, "Flight Recorder dump version %s%s%s", ms[0].d->version, ms[0].d->comm_lib ? ", NCCL " : "",
			    ms[0].d->comm_lib ? ms[0].d->comm_lib : "");
}

/* a rank (or ranks) that never entered seq: 1 when found */
static int judge_missing(struct cd_results *r, const struct group *g, struct member *ms, size_t n,
			 const struct slot *ref)
{
	char *gn = group_name(g), *who = rank_list(ms, n, 1);
	const char *ranks = strchr(who, ',') || strstr(who, "more") ? "ranks" : "rank";
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		struct member *m = &ms[i];
		const struct slot *last = m->n ? &m->s[m->n - 1] : NULL;
		char subj[64], *t;
		struct cd_finding *f;

		if (m->at)
			continue;
		snprintf(subj, sizeof(subj), "rank %ld", m->rank);
		if (last && last->seq < ref->seq)
			t = xasprintf("never entered collective #%lld (%s) of process group %s as group rank %zu: %s %s "
				      "entered it; its last was #%lld (%s, %s)",
				      ref->seq, ref->names, gn, m->local, ranks, who, last->seq, last->names,
				      cd_fr_state_str(last->st));
		else if (last)
			t = xasprintf("skipped collective #%lld (%s) of process group %s as group rank %zu: %s %s "
				      "entered it, and it went on to #%lld",
				      ref->seq, ref->names, gn, m->local, ranks, who, last->seq);
		else
			t = xasprintf("never entered collective #%lld (%s) of process group %s as group rank %zu: %s %s "
				      "entered it; its dump holds no collective of the group",
				      ref->seq, ref->names, gn, m->local, ranks, who);
		f = cd_results_add_finding(r, "HANG006", CD_SEV_FAIL, NULL, subj, t);
		free(t);
		f->measured = last ? (double)last->seq : NAN;
		f->expected = (double)ref->seq;
		f->unit = xstrdup("collective sequence id");
		common_evidence(f, ms, n, ref);
		/* where the rank is now: its newest entry of any group (entries are in record order) */
		if (m->d->n_entries) {
			const struct cd_fr_entry *e = &m->d->entries[m->d->n_entries - 1];

			if (e->state != CD_FR_COMPLETED && strcmp(e->pg_name, g->name))
				cd_finding_evidence(f, "it waits in %s #%lld (%s) of process group '%s' (%s): look there first",
						    e->p2p ? "point-to-point" : "collective", e->p2p ? e->p2p_seq : e->coll_seq,
						    e->profiling_name ? e->profiling_name : "?", e->pg_name,
						    cd_fr_state_str(e->state));
			else if (e->state == CD_FR_COMPLETED)
				cd_finding_evidence(f, "its newest collective of any group completed: the rank is busy "
						       "outside communication (compute, data loading, a checkpoint) or stuck "
						       "before the call");
		}
		found = 1;
	}
	free(gn);
	free(who);
	return found;
}

/* the field of a slot that differs: 0 names, 1 input sizes, 2 output sizes, 3 dtypes */
static const char *field(const struct slot *s, int k)
{
	return k == 0 ? s->names : k == 1 ? s->in : k == 2 ? s->out : s->types;
}

static int judge_mismatch(struct cd_results *r, const struct group *g, struct member *ms, size_t n,
			  const struct slot *ref)
{
	static const char *const what[] = { "as a different operation", "with different input sizes",
					     "with different output sizes", "with different data types (input + output)" };
	int found = 0;

	for (int k = 0; k < 4 && !found; k++) {
		const char *major = NULL;
		size_t best = 0, same = 0;
		char *gn;

		for (size_t i = 0; i < n; i++)
			same += !strcmp(field(ms[i].at, k), field(ms[0].at, k));
		if (same == n)
			continue; /* the usual case, in one pass */

		/* the value most ranks have; on a tie, none is the odd one out */
		for (size_t i = 0; i < n; i++) {
			size_t c = 0;

			for (size_t j = 0; j < n; j++)
				c += !strcmp(field(ms[i].at, k), field(ms[j].at, k));
			if (c > best) {
				best = c;
				major = field(ms[i].at, k);
			} else if (c == best && major && strcmp(major, field(ms[i].at, k))) {
				/* a tie (major already NULL stays so: fuzz_fr found strcmp(NULL)) */
				major = NULL;
			}
		}
		if (best == n)
			continue;
		gn = group_name(g);
		if (!major || best * 2 <= n) {
			char subj[64];
			struct cd_finding *f;
			char *t = xasprintf("ranks entered collective #%lld of process group %s %s, no value shared by "
					    "most of them",
					    ref->seq, gn, what[k]);

			snprintf(subj, sizeof(subj), "process group %s", g->name);
			f = cd_results_add_finding(r, "HANG007", CD_SEV_FAIL, NULL, subj, t);
			free(t);
			common_evidence(f, ms, n, ref);
		} else {
			for (size_t i = 0; i < n; i++) {
				char subj[64], *t;
				struct cd_finding *f;

				if (!strcmp(field(ms[i].at, k), major))
					continue;
				snprintf(subj, sizeof(subj), "rank %ld", ms[i].rank);
				t = xasprintf("entered collective #%lld of process group %s as group rank %zu %s: %s where "
					      "%zu of %zu ranks have %s",
					      ref->seq, gn, ms[i].local, what[k], field(ms[i].at, k), best, n, major);
				f = cd_results_add_finding(r, "HANG007", CD_SEV_FAIL, NULL, subj, t);
				free(t);
				common_evidence(f, ms, n, ref);
			}
		}
		free(gn);
		found = 1;
	}
	return found;
}

static int judge_state(struct cd_results *r, const struct group *g, struct member *ms, size_t n,
		       const struct slot *ref)
{
	size_t done = 0;
	char *gn, *t;
	struct cd_finding *f;

	for (size_t i = 0; i < n; i++)
		done += ms[i].at->st == CD_FR_COMPLETED;
	if (done == n)
		return 0;
	gn = group_name(g);
	if (done) {
		for (size_t i = 0; i < n; i++) {
			char subj[64];

			if (ms[i].at->st == CD_FR_COMPLETED)
				continue;
			snprintf(subj, sizeof(subj), "rank %ld", ms[i].rank);
			t = xasprintf("did not complete collective #%lld (%s) of process group %s as group rank %zu (%s) "
				      "while %zu of %zu ranks completed it",
				      ref->seq, ref->names, gn, ms[i].local, cd_fr_state_str(ms[i].at->st), done, n);
			f = cd_results_add_finding(r, "HANG008", CD_SEV_WARN, NULL, subj, t);
			free(t);
			common_evidence(f, ms, n, ref);
		}
	} else {
		char subj[64];

		snprintf(subj, sizeof(subj), "process group %s", g->name);
		t = xasprintf("every rank entered collective #%lld (%s) of process group %s and none completed it: "
			      "the collective itself does not finish (NCCL, the network or a GPU)",
			      ref->seq, ref->names, gn);
		f = cd_results_add_finding(r, "HANG008", CD_SEV_WARN, NULL, subj, t);
		free(t);
		common_evidence(f, ms, n, ref);
	}
	free(gn);
	return 1;
}

static int ll_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void judge_group(struct cd_results *r, const struct group *g, const struct cd_fr_dump *d, size_t nd)
{
	struct member *ms = xcalloc(g->n_ranks ? g->n_ranks : 1, sizeof(*ms));
	long long lo = -1, *seqs = NULL;
	size_t n = 0, ns = 0, cap = 0;

	for (size_t i = 0; i < g->n_ranks; i++) {
		const struct cd_fr_dump *x = dump_of(d, nd, g->ranks[i]);

		if (!x)
			continue;
		ms[n].rank = g->ranks[i];
		ms[n].local = i;
		ms[n].d = x;
		build_slots(&ms[n], g);
		/* compare only where every ring buffer still reaches */
		if (ms[n].n && ms[n].s[0].seq > lo)
			lo = ms[n].s[0].seq;
		n++;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ms[i].n; k++)
			if (ms[i].s[k].seq >= lo)
				*CD_PUSH(seqs, ns, cap) = ms[i].s[k].seq;
	if (ns)
		qsort(seqs, ns, sizeof(*seqs), ll_cmp);
	for (size_t k = 0; n >= 2 && lo >= 0 && k < ns; k++) {
		const struct slot *ref = NULL;
		size_t have = 0;

		if (k && seqs[k] == seqs[k - 1])
			continue;
		for (size_t i = 0; i < n; i++) {
			ms[i].at = find_slot(&ms[i], seqs[k]);
			if (ms[i].at && !ref)
				ref = ms[i].at;
			have += ms[i].at != NULL;
		}
		if (have < n) {
			if (judge_missing(r, g, ms, n, ref))
				break;
		} else if (judge_mismatch(r, g, ms, n, ref) || judge_state(r, g, ms, n, ref)) {
			break;
		}
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < ms[i].n; k++) {
			free(ms[i].s[k].names);
			free(ms[i].s[k].in);
			free(ms[i].s[k].out);
			free(ms[i].s[k].types);
		}
		free(ms[i].s);
	}
	free(seqs);
	free(ms);
}

/* One HANG009 per rank the groups name and no dump covers, with the groups it is in. */
static void judge_absent(struct cd_results *r, const struct group *gs, size_t ng, const struct cd_fr_dump *d,
			 size_t nd)
{
	long *seen = NULL;
	size_t ns = 0, cap = 0;

	for (size_t j = 0; j < ng; j++)
		for (size_t i = 0; i < gs[j].n_ranks; i++) {
			long rank = gs[j].ranks[i];
			struct cd_finding *f;
			char subj[64];
			int dup = 0;

			for (size_t k = 0; k < ns && !dup; k++)
				dup = seen[k] == rank;
			if (dup || dump_of(d, nd, rank))
				continue;
			*CD_PUSH(seen, ns, cap) = rank;
			if (ns > 64)
				continue; /* a job of thousands dumped from a few: the first say enough */
			snprintf(subj, sizeof(subj), "rank %ld", rank);
			f = cd_results_add_finding(r, "HANG009", CD_SEV_WARN, NULL, subj,
						   "no Flight Recorder dump from this rank: its process may have died or "
						   "hung before the dump, or its file was not collected");
			for (size_t k = 0; k < ng; k++)
				for (size_t q = 0; q < gs[k].n_ranks; q++)
					if (gs[k].ranks[q] == rank) {
						char *gn = group_name(&gs[k]);

						cd_finding_evidence(f, "member of process group %s as group rank %zu", gn, q);
						free(gn);
					}
		}
	if (ns > 64) {
		struct cd_finding *f = cd_results_add_finding(r, "HANG009", CD_SEV_WARN, NULL, "ranks",
							      "no Flight Recorder dump from more ranks");

		cd_finding_evidence(f, "%zu ranks the process groups name have no dump; the first 64 are named above", ns);
	}
	free(seen);
}

int cd_fr_judge(struct cd_results *r, const struct cd_fr_dump *d, size_t n)
{
	struct group *gs = NULL;
	size_t ng = 0, before = r->n_findings;

	collect_groups(d, n, &gs, &ng);
	for (size_t j = 0; j < ng; j++)
		judge_group(r, &gs[j], d, n);
	judge_absent(r, gs, ng, d, n);
	for (size_t j = 0; j < ng; j++) {
		free(gs[j].name);
		free(gs[j].desc);
		free(gs[j].ranks);
	}
	free(gs);
	return (int)(r->n_findings - before);
}
