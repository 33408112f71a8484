/* SPDX-License-Identifier: BSD-3-Clause */
/* commdiag hang's judge: see rules_hang.h. */
#include "rules_hang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct cd_hang_rule hang_rules[] = {
	{ "HANG001", "fail", "NCCL RAS: a rank or process is missing from the job's data (INCOMPLETE, unresponsive)" },
	{ "HANG002", "fail", "NCCL RAS: a process is considered dead (unreachable via the RAS network)" },
	{ "HANG003", "fail", "NCCL RAS: ranks at different collective counts that did not move between queries (stuck)" },
	{ "HANG004", "info", "NCCL RAS: collective counts moved between queries (progressing, or a passing mismatch)" },
	{ "HANG005", "fail", "NCCL RAS: a rank reports an NCCL initialisation or asynchronous error" },
	{ "HANG006", "fail", "Flight Recorder: a rank never entered a collective the other ranks of its process group "
			     "entered" },
	{ "HANG007", "fail", "Flight Recorder: ranks of a process group entered one collective as different operations "
			     "or with different sizes or data types" },
	{ "HANG008", "warn", "Flight Recorder: a collective every rank of the group entered did not complete on all of "
			     "them" },
	{ "HANG009", "warn", "Flight Recorder: no dump from a rank of a process group the dumps name" },
	{ "HANG010", "fail", "PyTorch watchdog logs: a rank is behind the others of its process group (it timed out at "
			     "a lower SeqNum, or completed less work)" },
	{ "HANG011", "fail", "PyTorch watchdog logs: ranks of a process group timed out and this member reported no "
			     "timeout (the rank they wait for)" },
	{ "HANG012", "warn", "PyTorch watchdog logs: a collective timed out and the logs cannot name the rank behind" },
	{ "HANG013", "warn", "the hang's sources (RAS, Flight Recorder, logs) name different ranks" },
};

const struct cd_hang_rule *cd_hang_rules_table(size_t *n)
{
	*n = ARRAY_SIZE(hang_rules);
	return hang_rules;
}

void cd_hang_catalog(struct cd_catalog *cat)
{
	for (size_t i = 0; i < ARRAY_SIZE(hang_rules); i++) {
		struct cd_cat_rule *r = cd_catalog_add_rule(cat);

		r->id = cd_catalog_str(hang_rules[i].id);
		r->group = cd_catalog_str("hang");
		r->severity = cd_catalog_str(hang_rules[i].severity);
		r->summary = cd_catalog_str(hang_rules[i].summary);
	}
}

static char *who(const struct cd_ras_rank *k)
{
	char rank[32] = "", gpu[64] = "", pid[32] = "";

	if (k->rank >= 0)
		snprintf(rank, sizeof(rank), "rank %ld ", k->rank);
	if (k->gpu)
		snprintf(gpu, sizeof(gpu), "GPU %s ", k->gpu);
	if (k->pid >= 0)
		snprintf(pid, sizeof(pid), "pid %ld ", k->pid);
	return xasprintf("%s%s%s%s%s", rank, gpu, pid, k->comm ? "of communicator " : "", k->comm ? k->comm : "");
}

static struct cd_finding *rank_finding(struct cd_results *r, const char *id, enum cd_severity sev,
				       const struct cd_ras_rank *k, const char *title, const char *where)
{
	char *subj = who(k);
	struct cd_finding *f = cd_results_add_finding(r, id, sev, k->host ? k->host : where, subj, title);

	free(subj);
	if (k->line)
		cd_finding_evidence(f, "RAS: %s", k->line);
	return f;
}

/* the count groups of (comm, coll) in s, in the order the report gave them */
static int same_counts(const struct cd_ras_snapshot *a, const struct cd_ras_snapshot *b, const char *comm,
		       const char *coll)
{
	size_t na = 0, nb = 0;

	for (size_t i = 0; i < a->n_counts; i++) {
		const struct cd_ras_count *x = &a->counts[i];
		int found = 0;

		if (strcmp(x->comm, comm) || strcmp(x->coll, coll))
			continue;
		na++;
		for (size_t j = 0; j < b->n_counts && !found; j++)
			found = !strcmp(b->counts[j].comm, comm) && !strcmp(b->counts[j].coll, coll) &&
				b->counts[j].value == x->value && b->counts[j].nranks == x->nranks;
		if (!found)
			return 0;
	}
	for (size_t j = 0; j < b->n_counts; j++)
		nb += !strcmp(b->counts[j].comm, comm) && !strcmp(b->counts[j].coll, coll);
	return na == nb;
}

static int seen_before(const struct cd_ras_snapshot *s, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(s->counts[j].comm, s->counts[i].comm) && !strcmp(s->counts[j].coll, s->counts[i].coll))
			return 1;
	return 0;
}

static void judge_counts(struct cd_results *r, const struct cd_ras_snapshot *s, size_t n, const char *where,
			 int *moving)
{
	const struct cd_ras_snapshot *first = &s[0], *last = &s[n - 1];

	for (size_t i = 0; i < last->n_counts; i++) {
		const struct cd_ras_count *c = &last->counts[i];
		long long hi = -1;
		size_t groups = 0, named = 0;
		struct cd_finding *f;

		if (seen_before(last, i))
			continue;
		for (size_t j = 0; j < last->n_counts; j++)
			if (!strcmp(last->counts[j].comm, c->comm) && !strcmp(last->counts[j].coll, c->coll)) {
				groups++;
				if (last->counts[j].value > hi)
					hi = last->counts[j].value;
			}
		if (!same_counts(first, last, c->comm, c->coll) || !same_counts(last, first, c->comm, c->coll)) {
			*moving = 1;
			if (groups > 1) {
				f = cd_results_add_finding(r, "HANG004", CD_SEV_INFO, where, c->comm,
							   "ranks at different collective counts, but the counts moved "
							   "between queries (transitional)");
				cd_finding_evidence(f, "%s %s: the counts changed over %zu queries", c->comm, c->coll, n);
				for (size_t j = 0; j < last->n_counts; j++)
					if (!strcmp(last->counts[j].comm, c->comm) && !strcmp(last->counts[j].coll, c->coll))
						cd_finding_evidence(f, "RAS (last query): %s", last->counts[j].line);
			}
			continue;
		}
		if (groups < 2 || n < 2)
			continue;
		/* stuck: name every rank behind the most advanced count */
		for (size_t j = 0; j < last->n_ranks; j++) {
			const struct cd_ras_rank *k = &last->ranks[j];
			char *t;

			if (!k->coll || !k->comm || strcmp(k->comm, c->comm) || strcmp(k->coll, c->coll) || k->count < 0 ||
			    k->count >= hi)
				continue;
			t = xasprintf("stuck in %s: launched up to operation %lld while others reached %lld, unchanged "
				      "over %zu queries",
				      c->coll, k->count, hi, n);
			f = rank_finding(r, "HANG003", CD_SEV_FAIL, k, t, where);
			f->measured = (double)k->count;
			f->expected = (double)hi;
			f->unit = xstrdup("operations");
			free(t);
			for (size_t g = 0; g < last->n_counts; g++)
				if (!strcmp(last->counts[g].comm, c->comm) && !strcmp(last->counts[g].coll, c->coll))
					cd_finding_evidence(f, "RAS: %s", last->counts[g].line);
			named++;
		}
		if (!named) {
			f = cd_results_add_finding(r, "HANG003", CD_SEV_FAIL, where, c->comm,
						   "ranks stuck at different collective counts (the server named no rank: "
						   "the group behind is not an outlier)");
			for (size_t g = 0; g < last->n_counts; g++)
				if (!strcmp(last->counts[g].comm, c->comm) && !strcmp(last->counts[g].coll, c->coll))
					cd_finding_evidence(f, "RAS: %s", last->counts[g].line);
		}
	}
}

int cd_hang_judge(struct cd_results *r, const struct cd_ras_snapshot *s, size_t n, const char *where)
{
	const struct cd_ras_snapshot *last = &s[n - 1];
	size_t before = r->n_findings;
	int moving = 0;

	for (size_t i = 0; i < last->n_ranks; i++) {
		const struct cd_ras_rank *k = &last->ranks[i];
		const struct cd_ras_rank *dead = NULL;
		int covered = 0;

		/* the text report names a process under INCOMPLETE or DEAD and its ranks under each
		 * communicator: one finding per rank, dead when its process is */
		for (size_t j = 0; j < last->n_ranks; j++) {
			const struct cd_ras_rank *o = &last->ranks[j];

			if (j == i || o->pid != k->pid || k->pid < 0 || !o->host || !k->host || strcmp(o->host, k->host))
				continue;
			if (!k->comm && o->comm && (o->missing || o->dead))
				covered = 1;
			if (k->comm && !o->comm && o->dead)
				dead = o;
		}
		if (covered)
			continue;
		if (dead && k->missing) {
			struct cd_finding *f = rank_finding(r, "HANG002", CD_SEV_FAIL, k,
							    "considered dead by NCCL RAS (unreachable via the RAS network)",
							    where);

			if (dead->line)
				cd_finding_evidence(f, "RAS: %s", dead->line);
			continue;
		}
		if (k->dead)
			rank_finding(r, "HANG002", CD_SEV_FAIL, k,
				     "considered dead by NCCL RAS (unreachable via the RAS network)", where);
		else if (k->missing)
			rank_finding(r, "HANG001", CD_SEV_FAIL, k,
				     k->comm ? "missing: no data from this rank (INCOMPLETE)"
					     : "missing: no data from this process (unresponsive)",
				     where);
		else if (k->error)
			rank_finding(r, "HANG005", CD_SEV_FAIL, k, "reports an NCCL error", where);
	}
	judge_counts(r, s, n, where, &moving);
	if (moving && r->n_findings == before) {
		struct cd_finding *f = cd_results_add_finding(r, "HANG004", CD_SEV_INFO, where, "job",
							      "collective counts moved between queries: the job progresses");

		cd_finding_evidence(f, "%zu queries, %ld communicator%s in the last", n, last->ncomms,
				    last->ncomms == 1 ? "" : "s");
	}
	if (last->timeouts > 0)
		for (size_t i = before; i < r->n_findings; i++)
			cd_finding_evidence(&r->findings[i], "RAS: %ld communication timeout%s while gathering the data",
					    last->timeouts, last->timeouts == 1 ? "" : "s");
	return (int)(r->n_findings - before);
}

/* ---- the job's nodes ---- */

static int short_eq(const char *a, const char *b)
{
	size_t na = strcspn(a, "."), nb = strcspn(b, ".");

	return na == nb && !strncmp(a, b, na);
}

/* Is host (a finding's: a name or an IPv4/IPv6 address) the node h? */
static int is_node(const struct cd_host *h, const char *host)
{
	if (h->hostname && (!strcmp(h->hostname, host) || short_eq(h->hostname, host)))
		return 1;
	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *nic = &h->nics[i];

		for (size_t k = 0; k < nic->ipv4.n + nic->ipv6.n; k++) {
			const char *a = k < nic->ipv4.n ? nic->ipv4.v[k] : nic->ipv6.v[k - nic->ipv4.n];
			size_t l = strcspn(a, "/");

			if (strlen(host) == l && !strncmp(a, host, l))
				return 1;
		}
	}
	return 0;
}

#define NODE_FINDINGS 6 /* a node's findings quoted per hang finding */

void cd_hang_nodes(struct cd_results *r, const struct cd_results *nodes, const char *const *files, size_t n)
{
	size_t hosts = 0;

	for (size_t d = 0; d < n; d++)
		hosts += nodes[d].n_hosts;
	for (size_t i = 0; i < r->n_findings; i++) {
		struct cd_finding *f = &r->findings[i];
		int found = 0;

		if (!f->host || strncmp(f->id, "HANG", 4))
			continue;
		for (size_t d = 0; d < n && !found; d++)
			for (size_t k = 0; k < nodes[d].n_hosts && !found; k++) {
				const struct cd_host *h = &nodes[d].hosts[k];
				size_t shown = 0, bad = 0;

				if (!is_node(h, f->host))
					continue;
				found = 1;
				for (size_t j = 0; j < nodes[d].n_findings; j++) {
					const struct cd_finding *g = &nodes[d].findings[j];

					if (g->severity < CD_SEV_WARN || !g->host || strcmp(g->host, h->hostname))
						continue;
					if (shown++ < NODE_FINDINGS)
						cd_finding_evidence(f, "node: %s (%s) %s %s%s%s: %s", h->hostname, files[d],
								    g->severity == CD_SEV_FAIL ? "failed" : "warned", g->id,
								    g->subject ? " " : "", g->subject ? g->subject : "", g->title);
					bad++;
				}
				if (bad > NODE_FINDINGS)
					cd_finding_evidence(f, "node: %s: %zu more findings at warn or fail in %s", h->hostname,
							    bad - NODE_FINDINGS, files[d]);
				if (!bad)
					cd_finding_evidence(f, "node: %s (%s) has no finding at warn or fail%s", h->hostname,
							    files[d], nodes[d].rules.present ? "" : " (the document was not judged)");
			}
		if (!found)
			cd_finding_evidence(f, "node: %s is none of the %zu hosts of the --nodes documents", f->host, hosts);
	}
}
