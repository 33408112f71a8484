/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang's judge of PyTorch watchdog reports read from logs (HANG010–HANG012), of
 * what the sources say together (HANG013) and of the job's nodes (rules_hang.h).
 *
 * explain's reader (explain_torch.c) leaves each rank's report in the document's watchdog
 * array: its process group, its rank in the group, the SeqNum that timed out and, from
 * PyTorch 2.2, the last enqueued and completed work. SeqNums count per group, so ranks are
 * compared only within one (the group's GUID, the same on every rank). The rank the others
 * wait for is the one behind (a lower SeqNum, less completed) or the member that never
 * reported a timeout: a rank that never enqueued the collective has nothing for its
 * watchdog to time out on (ProcessGroupNCCL::watchdogHandler checks its enqueued work).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_hang.h"
#include "util.h"

#define MAX_MEMBERS 4096 /* ranks of one group compared; the rest are counted */
#define MAX_MISSING 8    /* missing ranks given a finding each */

struct mem {
	long grank, global;
	long seq, enq, done;
	int two;                       /* an unnamed group: this rank reports two SeqNums */
	const struct cd_wd_report *w;  /* the report of its lowest SeqNum */
};

static long v(int64_t x)
{
	return x == CD_NULL_I64 ? -1 : (long)x;
}

static int same_group(const struct cd_wd_report *a, const char *key)
{
	return key ? a->group && !strcmp(a->group, key) : !a->group;
}

static char *who(long global, long grank, const char *label)
{
	if (global >= 0)
		return xasprintf("rank %ld", global);
	if (grank >= 0)
		return xasprintf("group rank %ld of %s", grank, label ? label : "the unnamed group");
	return xstrdup("a rank the log does not number");
}

static void report_evidence(struct cd_finding *f, const struct cd_wd_report *w)
{
	char enq[48] = "", done[48] = "";

	if (v(w->enqueued) >= 0)
		snprintf(enq, sizeof(enq), ", last enqueued NCCL work %ld", v(w->enqueued));
	if (v(w->completed) >= 0)
		snprintf(done, sizeof(done), ", last completed %ld", v(w->completed));
	cd_finding_evidence(f, "watchdog (%s%s%s): %s SeqNum %ld%s%s%s%s in %s", w->log, w->host ? ", host " : "",
			    w->host ? w->host : "", w->timeout ? "timed out at" : "error or timeout at", v(w->seq),
			    w->op ? " " : "", w->op ? w->op : "", enq, done, w->group_label ? w->group_label : "a group the log does not name");
}

static struct mem *member_of(struct mem *m, size_t *n, const struct cd_wd_report *w)
{
	long grank = v(w->grank), global = v(w->global);

	for (size_t i = 0; i < *n; i++)
		if ((grank >= 0 && m[i].grank == grank) || (grank < 0 && global >= 0 && m[i].global == global))
			return &m[i];
	if (*n == MAX_MEMBERS)
		return NULL;
	m[*n] = (struct mem){ grank, global, -1, -1, -1, 0, NULL };
	return &m[(*n)++];
}

/* A rank whose log shows it alive with no report at all (seq null): its host and log. */
static const struct cd_wd_report *alive(const struct cd_results *r, long global)
{
	for (size_t i = 0; global >= 0 && i < r->n_watchdog; i++)
		if (v(r->watchdog[i].seq) < 0 && v(r->watchdog[i].global) == global)
			return &r->watchdog[i];
	return NULL;
}

/* The global rank a log maps group rank grank of group key to; -1 */
static long global_in(const struct cd_results *r, const char *key, long grank)
{
	for (size_t i = 0; i < r->n_watchdog; i++)
		if (same_group(&r->watchdog[i], key) && key && v(r->watchdog[i].grank) == grank &&
		    v(r->watchdog[i].global) >= 0)
			return v(r->watchdog[i].global);
	return -1;
}

/* The report of global rank `global` timing out in a group other than key; NULL */
static const struct cd_wd_report *waits_elsewhere(const struct cd_results *r, const char *key, long global)
{
	for (size_t i = 0; global >= 0 && i < r->n_watchdog; i++) {
		const struct cd_wd_report *w = &r->watchdog[i];

		if (v(w->seq) >= 0 && v(w->global) == global && w->group && !same_group(w, key))
			return w;
	}
	return NULL;
}

static int has_global(const struct mem *m, size_t n, long global)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].global == global)
			return 1;
	return 0;
}

static void list_ranks(char *buf, size_t len, const struct mem *m, size_t n, long seq, int want)
{
	size_t used = 0, shown = 0, more = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if ((m[i].seq == seq) != want)
			continue;
		if (shown == 6) {
			more++;
			continue;
		}
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %ld", shown ? ", " : "",
						 m[i].global >= 0 ? "rank" : "group rank", m[i].global >= 0 ? m[i].global : m[i].grank);
		shown++;
	}
	if (more && used < len)
		snprintf(buf + used, len - used, " and %zu more", more);
}

/* One group's verdict; returns the findings it made. */
static size_t judge_group(struct cd_results *r, const char *key, struct mem *m)
{
	const char *label = NULL, *op = NULL;
	long size = -1, lo = -1, hi = -1, dlo = -1, dhi = -1;
	size_t n = 0, made = 0, reports = 0;
	int is_default = 0, two = 0;
	char others[256];

	for (size_t i = 0; i < r->n_watchdog; i++) {
		const struct cd_wd_report *w = &r->watchdog[i];
		struct mem *x;

		if (!same_group(w, key))
			continue;
		if (!label && w->group_label)
			label = w->group_label;
		is_default |= w->is_default;
		if (v(w->group_size) > size)
			size = v(w->group_size);
		if (v(w->seq) < 0)
			continue; /* a member the log maps, with no report: the size and the label only */
		reports++;
		if (!(x = member_of(m, &n, w)))
			continue;
		if (x->global < 0)
			x->global = v(w->global);
		if (x->seq >= 0 && x->seq != v(w->seq))
			x->two = 1;
		if (x->seq < 0 || v(w->seq) < x->seq) {
			x->seq = v(w->seq);
			x->enq = v(w->enqueued);
			x->done = v(w->completed);
			x->w = w;
		}
	}
	if (!reports)
		return 0;
	for (size_t i = 0; i < n; i++) {
		two |= m[i].two;
		if (lo < 0 || m[i].seq < lo)
			lo = m[i].seq;
		if (m[i].seq > hi)
			hi = m[i].seq;
		if (m[i].done >= 0 && (dlo < 0 || m[i].done < dlo))
			dlo = m[i].done;
		if (m[i].done > dhi)
			dhi = m[i].done;
	}
	if (!key && two) {
		/* before 2.3 the log names no group: a rank with two SeqNums is in two groups */
		struct cd_finding *f = cd_results_add_finding(r, "HANG012", CD_SEV_WARN, NULL, "process group",
							      "collectives timed out and the logs cannot name the rank behind: "
							      "they name no process group and a rank reports two SeqNums, so "
							      "the reports come from more than one group");

		for (size_t i = 0; i < n && i < 8; i++)
			report_evidence(f, m[i].w);
		cd_finding_evidence(f, "SeqNums count per process group; PyTorch 2.3 and later name the group in "
				    "the watchdog's lines");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (m[i].seq == lo && m[i].w->op)
			op = m[i].w->op;
	/* behind: a lower SeqNum than others of the group, or, at one SeqNum, less work completed */
	for (size_t i = 0; i < n; i++) {
		struct cd_finding *f;
		char *subj, *t;

		if (lo < hi && m[i].seq == lo) {
			list_ranks(others, sizeof(others), m, n, lo, 0);
			t = xasprintf("behind in %s: its watchdog timed out at SeqNum %ld%s%s while %s timed out at "
				      "%ld or later",
				      label ? label : "its process group", lo, op ? " " : "", op ? op : "", others, hi);
		} else if (lo == hi && dlo >= 0 && dlo < dhi && m[i].done == dlo) {
			t = xasprintf("behind in %s: last completed NCCL work %ld while another rank of the group "
				      "completed %ld (all timed out at SeqNum %ld)",
				      label ? label : "its process group", dlo, dhi, lo);
		} else {
			continue;
		}
		subj = who(m[i].global, m[i].grank, label);
		f = cd_results_add_finding(r, "HANG010", CD_SEV_FAIL, m[i].w->host, subj, t);
		f->measured = (double)(lo < hi ? lo : dlo);
		f->expected = (double)(lo < hi ? hi : dhi);
		f->unit = xstrdup(lo < hi ? "SeqNum" : "NCCL work");
		free(subj);
		free(t);
		report_evidence(f, m[i].w);
		for (size_t k = 0, shown = 0; k < n && shown < 3; k++)
			if (m[k].seq != m[i].seq || (lo == hi && m[k].done != m[i].done)) {
				report_evidence(f, m[k].w);
				shown++;
			}
		made++;
	}
	/* missing: members of a group of known size that reported nothing, or, in the default
	 * group (global ranks), ranks whose logs show them alive without a timeout */
	if (!made) {
		size_t missing = 0;

		for (long g = 0; size > 0 && g < size && g < MAX_MEMBERS; g++) {
			int seen = 0;

			for (size_t i = 0; i < n && !seen; i++)
				seen = m[i].grank == g;
			if (seen)
				continue;
			if (missing++ < MAX_MISSING) {
				long global = is_default ? g : global_in(r, key, g);
				const struct cd_wd_report *a = alive(r, global), *elsewhere = waits_elsewhere(r, key, global);
				struct cd_finding *f;
				char *subj = who(global, g, label), *t;

				list_ranks(others, sizeof(others), m, n, lo, 1);
				if (elsewhere)
					t = xasprintf("did not reach SeqNum %ld%s%s of %s, where %s wait: it timed out itself in %s "
						      "at SeqNum %ld%s%s (see that group)",
						      lo, op ? " " : "", op ? op : "", label ? label : "its process group", others,
						      elsewhere->group_label ? elsewhere->group_label : "another group",
						      v(elsewhere->seq), elsewhere->op ? " " : "", elsewhere->op ? elsewhere->op : "");
				else
					t = xasprintf("did not report a timeout while %s of %s (%ld ranks) timed out at SeqNum "
						      "%ld%s%s: the rank they wait for",
						      others, label ? label : "its process group", size, lo, op ? " " : "",
						      op ? op : "");
				f = cd_results_add_finding(r, "HANG011", CD_SEV_FAIL, a ? a->host : NULL, subj, t);
				f->measured = (double)n;
				f->expected = (double)size;
				f->unit = xstrdup("ranks reporting");
				free(subj);
				free(t);
				if (elsewhere)
					report_evidence(f, elsewhere);
				else if (a)
					cd_finding_evidence(f, "its log (%s) shows it running with no watchdog timeout: it never "
							    "enqueued SeqNum %ld (busy outside communication, or stuck before "
							    "the collective)", a->log, lo);
				for (size_t i = 0; i < n && i < 3; i++)
					report_evidence(f, m[i].w);
				if (v(m[0].w->enqueued) >= 0)
					cd_finding_evidence(f, "the ranks that timed out enqueued up to NCCL work %ld and "
							    "completed %ld", m[0].enq, m[0].done);
			}
		}
		if (missing > MAX_MISSING) {
			struct cd_finding *f = &r->findings[r->n_findings - 1];

			cd_finding_evidence(f, "%zu more ranks of the group did not report (findings for the first %d)",
					    missing - MAX_MISSING, MAX_MISSING);
		}
		made += missing > MAX_MISSING ? MAX_MISSING : missing;
		/* the group's size unknown: in the default group a rank alive without a timeout is it */
		for (size_t i = 0; size <= 0 && (is_default || !key) && i < r->n_watchdog; i++) {
			const struct cd_wd_report *a = &r->watchdog[i];
			struct cd_finding *f;
			char *subj, *t;

			if (v(a->seq) >= 0 || v(a->global) < 0 || has_global(m, n, v(a->global)) || alive(r, v(a->global)) != a)
				continue;
			if (!is_default) {
				/* no group named: NCCL's one communicator, if the global ranks of the reports are its */
				int globals = 1;

				for (size_t k = 0; k < n; k++)
					globals &= m[k].global >= 0;
				if (!globals)
					continue;
			}
			list_ranks(others, sizeof(others), m, n, lo, 1);
			subj = who(v(a->global), -1, label);
			t = xasprintf("its log shows it running with no watchdog timeout while %s of %s timed out at "
				      "SeqNum %ld%s%s: the rank they wait for",
				      others, label ? label : "the job", lo, op ? " " : "", op ? op : "");
			f = cd_results_add_finding(r, "HANG011", CD_SEV_FAIL, a->host, subj, t);
			free(subj);
			free(t);
			cd_finding_evidence(f, "its log: %s", a->log);
			for (size_t k = 0; k < n && k < 3; k++)
				report_evidence(f, m[k].w);
			made++;
		}
	}
	if (!made) {
		struct cd_finding *f;
		char *t;

		list_ranks(others, sizeof(others), m, n, lo, 1);
		t = xasprintf("%s timed out at SeqNum %ld%s%s in %s and the logs cannot name the rank behind: %s",
			      others, lo, op ? " " : "", op ? op : "", label ? label : "a group the logs do not name",
			      size > 0 ? "every member reported the same SeqNum"
				       : "a member that did not report is the straggler, and the logs do not show the group's "
					 "size (its \"initialization options: size:\" line) nor a log of it");
		f = cd_results_add_finding(r, "HANG012", CD_SEV_WARN, NULL, label ? label : "process group", t);
		free(t);
		for (size_t i = 0; i < n && i < 4; i++)
			report_evidence(f, m[i].w);
		made = 1;
	}
	return made;
}

int cd_wd_judge(struct cd_results *r)
{
	struct mem *m;
	size_t before = r->n_findings;

	if (!r->n_watchdog)
		return 0;
	m = xcalloc(MAX_MEMBERS, sizeof(*m));
	for (size_t i = 0; i < r->n_watchdog; i++) {
		const struct cd_wd_report *w = &r->watchdog[i];
		int first = 1;

		if (v(w->seq) < 0)
			continue;
		for (size_t k = 0; k < i && first; k++)
			first = v(r->watchdog[k].seq) < 0 || !(w->group ? r->watchdog[k].group && !strcmp(r->watchdog[k].group, w->group)
									  : !r->watchdog[k].group);
		if (first)
			judge_group(r, w->group, m);
	}
	free(m);
	return (int)(r->n_findings - before);
}

/* ---- the sources together ---- */

enum src { S_RAS, S_FR, S_LOG, S_N };

static const char *const src_name[S_N] = { "NCCL RAS", "the Flight Recorder dumps", "the watchdog logs" };

static int source_of(const char *id)
{
	static const char *const ids[][5] = { { "HANG001", "HANG002", "HANG003", "HANG005", NULL },
					      { "HANG006", "HANG007", "HANG008", NULL, NULL },
					      { "HANG010", "HANG011", NULL, NULL, NULL } };

	for (int s = 0; s < S_N; s++)
		for (int k = 0; ids[s][k]; k++)
			if (!strcmp(id, ids[s][k]))
				return s;
	return -1;
}

/* "rank 5 …": the rank a finding names (RAS: the communicator's rank; the others: global) */
static long rank_in(const struct cd_finding *f)
{
	long rank;

	if (f->subject && sscanf(f->subject, "rank %ld", &rank) == 1 && rank >= 0)
		return rank;
	return -1;
}

static int named_by(const struct cd_results *r, size_t n, int s, long rank)
{
	for (size_t i = 0; i < n; i++)
		if (source_of(r->findings[i].id) == s && rank_in(&r->findings[i]) == rank)
			return 1;
	return 0;
}

/* The dumps name no host: a log of the same global rank does (NCCL's host:pid:tid prefix). */
static void host_from_logs(const struct cd_results *r, struct cd_finding *f, long rank)
{
	for (size_t i = 0; i < r->n_watchdog; i++) {
		const struct cd_wd_report *w = &r->watchdog[i];

		if (w->host && w->global != CD_NULL_I64 && w->global == rank) {
			f->host = xstrdup(w->host);
			cd_finding_evidence(f, "host %s: rank %ld's, from NCCL's host:pid:tid prefix in its log (%s)", w->host,
					    rank, w->log);
			return;
		}
	}
}

int cd_hang_cross(struct cd_results *r)
{
	size_t n = r->n_findings;
	int had[S_N] = { 0 }, sources = 0;
	char said[S_N][192];

	for (size_t i = 0; i < n; i++)
		if (source_of(r->findings[i].id) == S_FR && !r->findings[i].host && rank_in(&r->findings[i]) >= 0)
			host_from_logs(r, &r->findings[i], rank_in(&r->findings[i]));

	for (size_t i = 0; i < n; i++) {
		int s = source_of(r->findings[i].id);

		if (s >= 0 && rank_in(&r->findings[i]) >= 0)
			had[s] = 1;
	}
	for (int s = 0; s < S_N; s++)
		sources += had[s];
	if (sources < 2)
		return 0;
	for (int s = 0; s < S_N; s++) {
		size_t used = 0, shown = 0;

		said[s][0] = '\0';
		for (size_t i = 0; i < n && shown < 6; i++) {
			long rank = rank_in(&r->findings[i]);

			if (source_of(r->findings[i].id) != s || rank < 0 || named_by(r, i, s, rank))
				continue;
			used += (size_t)snprintf(said[s] + used, sizeof(said[s]) - used, "%s%ld", shown ? ", " : "rank ", rank);
			shown++;
			if (used >= sizeof(said[s]))
				break;
		}
	}
	/* agreement raises confidence; each finding says which other source names its rank */
	for (size_t i = 0; i < n; i++) {
		struct cd_finding *f = &r->findings[i];
		int s = source_of(f->id);
		long rank = rank_in(f);

		if (s < 0 || rank < 0)
			continue;
		for (int o = 0; o < S_N; o++) {
			if (o == s || !had[o])
				continue;
			if (named_by(r, n, o, rank)) {
				cd_finding_evidence(f, "%s name%s rank %ld too: the sources agree", src_name[o],
						    o == S_RAS ? "s" : "", rank);
			} else {
				cd_finding_evidence(f, "%s do%s not name rank %ld (%s %s)", src_name[o], o == S_RAS ? "es" : "",
						    rank, o == S_RAS ? "it names" : "they name", said[o]);
			}
		}
	}
	for (int s = 0; s < S_N; s++)
		for (int o = s + 1; o < S_N; o++) {
			int common = 0;

			if (!had[s] || !had[o])
				continue;
			for (size_t i = 0; i < n && !common; i++)
				common = source_of(r->findings[i].id) == s && rank_in(&r->findings[i]) >= 0 &&
					 named_by(r, n, o, rank_in(&r->findings[i]));
			if (!common) {
				struct cd_finding *f = cd_results_add_finding(r, "HANG013", CD_SEV_WARN, NULL, "sources",
									      "the hang's sources name different ranks");

				cd_finding_evidence(f, "%s: %s", src_name[s], said[s]);
				cd_finding_evidence(f, "%s: %s", src_name[o], said[o]);
				if (s == S_RAS)
					cd_finding_evidence(f, "RAS numbers ranks in each NCCL communicator, the dumps and the "
							    "logs by global rank: they agree only where the communicator spans "
							    "the job");
				cd_finding_evidence(f, "a second stuck rank, or sources taken at different moments (a dump "
						    "of an earlier timeout), disagree too: look at each rank named");
			}
		}
	return (int)(r->n_findings - n);
}
