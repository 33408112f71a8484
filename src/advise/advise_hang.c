/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decision tree's hang branch (advise.c: job.hang, leaf.hang): what commdiag hang found,
 * from NCCL RAS (HANG001–HANG005) or PyTorch Flight Recorder dumps (HANG006–HANG009), turned
 * into the rank to look at, what to look at on its host, and the settings that make the next
 * hang leave the evidence. A job with no such finding gets nothing from here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "advise_walk.h"

#define MAX_RANK_ITEMS 4 /* ranks given an item of their own; the findings name the rest */

static const char *const hang_ids[] = { "HANG001", "HANG002", "HANG003", "HANG005", "HANG006",
					"HANG007", "HANG008", "HANG009", "HANG010", "HANG011" };

static int hang_finding(const struct cd_finding *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(hang_ids); i++)
		if (!strcmp(f->id, hang_ids[i]))
			return 1;
	return 0;
}

int q_hang(struct cd_walk *w)
{
	int any = 0;

	for (size_t i = 0; i < ARRAY_SIZE(hang_ids); i++)
		any |= has(w, hang_ids[i]);
	return any;
}

/* The process group's timeout rules_fr.c wrote into the evidence, in seconds; NAN when none. */
static double pg_timeout_s(const struct cd_finding *f)
{
	for (size_t i = 0; i < f->evidence.n; i++) {
		double ms;

		if (sscanf(f->evidence.v[i], "process-group timeout: %lf ms", &ms) == 1 && isfinite(ms) && ms > 0)
			return ms / 1000.0;
	}
	return NAN;
}

static int evidence_has(const struct cd_finding *f, const char *s)
{
	for (size_t i = 0; i < f->evidence.n; i++)
		if (strstr(f->evidence.v[i], s))
			return 1;
	return 0;
}

/*
 * What the judge found of the finding's node (cd_hang_nodes' "node: " lines): the node's
 * failing findings, or that it was checked and passed; "" without a node document.
 */
static void node_said(const struct cd_finding *f, char *buf, size_t len)
{
	static const char *const verbs[] = { " failed ", " warned " };
	size_t used = 0;
	int listed = 0;

	buf[0] = '\0';
	for (size_t v = 0; v < ARRAY_SIZE(verbs); v++) {
		int n = 0;

		for (size_t i = 0; i < f->evidence.n && used < len; i++) {
			const char *e = f->evidence.v[i], *id = strstr(e, verbs[v]);

			if (strncmp(e, "node: ", 6) || !id)
				continue;
			id += strlen(verbs[v]);
			if (!listed && strncmp(e + 6, f->host, strlen(f->host)))
				used += (size_t)snprintf(buf, len, " (node %.*s)", (int)strcspn(e + 6, " "), e + 6);
			if (used < len)
				used += (size_t)snprintf(buf + used, len - used, "%s%s%.*s",
							 n ? ", " : listed ? "; " : ", whose last check ", n ? "" : verbs[v] + 1,
							 (int)strcspn(id, ":"), id);
			n++;
			listed++;
		}
	}
	for (size_t i = 0; !listed && i < f->evidence.n; i++)
		if (!strncmp(f->evidence.v[i], "node: ", 6) && strstr(f->evidence.v[i], "has no finding at warn or fail"))
			snprintf(buf, len, ", whose last check found nothing at warn or fail: look at what runs on it");
}

/* One item per rank: RAS and the logs know its host, the dumps do not. */
static void rank_item(struct cd_walk *w, const struct cd_finding *f, int hosted)
{
	const char *who = f->subject ? f->subject : "the rank";
	char v[768], node[384];

	if (hosted && f->host) {
		node_said(f, node, sizeof(node));
		if (*node)
			snprintf(v, sizeof(v), "%s on %s%s; its GPU (nvidia-smi -q -d PERFORMANCE,CLOCK; dmesg for Xid) and "
				 "its NIC (ibstat; ip -s link); py-spy dump --pid of the stuck process", who, f->host, node);
		else
			snprintf(v, sizeof(v), "%s on %s: run its node check there (ssh %s commdiag check, or inside the job's "
				 "allocation srun -w %s -N1 -n1 commdiag check); its GPU (nvidia-smi -q -d PERFORMANCE,CLOCK; "
				 "dmesg for Xid) and its NIC (ibstat; ip -s link); py-spy dump --pid of the stuck process",
				 who, f->host, f->host, f->host);
		walk_emit(w, NULL, v, f->host, "%s", f->title);
	} else {
		snprintf(v, sizeof(v), "%s: find its host (the launcher's rank map: torchrun's log, the scheduler's task "
			 "list), then commdiag check there; its GPU (nvidia-smi -q; dmesg for Xid) and its NIC (ibstat); "
			 "py-spy dump --pid of its process for where it stands", who);
		walk_emit(w, NULL, v, NULL, "%s", f->title);
	}
}

static int hosted_twin(const struct cd_results *r, const struct cd_finding *f)
{
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct cd_finding *g = &r->findings[i];

		if (g != f && g->host && hang_finding(g) && f->subject && g->subject && !strcmp(f->subject, g->subject))
			return 1;
	}
	return 0;
}

void l_hang(struct cd_walk *w)
{
	size_t ranks = 0;
	int fr = 0, ras = 0, logs = 0, inside = 0;
	double busy_timeout_s = NAN;
	const char *busy = NULL;

	for (size_t i = 0; i < w->r->n_findings; i++) {
		const struct cd_finding *f = &w->r->findings[i];
		int from_ras;

		if (!hang_finding(f))
			continue;
		/* RAS and the logs name a rank's host; the dumps do not */
		from_ras = strcmp(f->id, "HANG006") < 0;
		logs |= strcmp(f->id, "HANG009") > 0;
		fr |= !from_ras && strcmp(f->id, "HANG009") <= 0;
		ras |= from_ras;
		if (!strcmp(f->id, "HANG007")) {
			walk_emit(w, NULL, "make every rank of the process group call the same collectives with the same "
				  "shapes: a code path that depends on the rank, or data split unevenly",
				  NULL, "%s: %s", f->subject ? f->subject : "a rank", f->title);
			continue;
		}
		if (!strcmp(f->id, "HANG008") && f->subject && !strncmp(f->subject, "process group", 13)) {
			inside = 1;
			walk_emit(w, NULL, "commdiag check on every host of the process group: its network and GPUs, since "
				  "every rank is inside the collective",
				  NULL, "%s: %s", f->subject, f->title);
			continue;
		}
		if (!strcmp(f->id, "HANG006") && evidence_has(f, "busy outside communication") && !busy) {
			busy = f->subject;
			busy_timeout_s = pg_timeout_s(f);
		}
		if (!strcmp(f->id, "HANG011") && f->title && strstr(f->title, "(see that group)"))
			continue; /* it waits in another group, whose own finding names the rank there */
		if (!f->host && hosted_twin(w->r, f))
			continue; /* the same rank, with its host, from another source: that item says it */
		if (ranks++ < MAX_RANK_ITEMS)
			rank_item(w, f, f->host != NULL);
	}
	if (inside || ras)
		walk_emit(w, "NCCL_DEBUG", "INFO", NULL, "a collective that does not finish: NCCL's own log of the next run "
			  "names the transport and the peer");
	if (busy && isfinite(busy_timeout_s)) {
		char v[192];

		/* twice the timeout: room for the known work, still a bound on a real hang */
		snprintf(v, sizeof(v), "only when the work is expected: dist.init_process_group(..., timeout=timedelta("
			 "seconds=%.0f)) (now %.0f s)", 2 * busy_timeout_s, busy_timeout_s);
		walk_emit(w, NULL, v, NULL, "%s stopped communicating after its last collective completed: if that is "
			  "known work on one rank (a checkpoint, an evaluation), the others time out waiting for it",
			  busy);
	}
	/* what catches the next one: PyTorch's flight recorder on every rank */
	walk_emit(w, "TORCH_NCCL_TRACE_BUFFER_SIZE", "2000", NULL, "%s; keep the last collectives of every rank (the "
		  "default of current PyTorch's FlightRecorder.hpp; 0, off, in older releases such as 2.4)",
		  fr ? "the dumps found where the ranks diverged"
		     : logs && !ras ? "the watchdog's logs named the rank and SeqNum, not what each rank was doing"
				    : "RAS named the rank, not the collective");
	walk_emit(w, "TORCH_NCCL_DUMP_ON_TIMEOUT", "1", NULL, "write every rank's flight recorder when the watchdog "
		  "fires, for commdiag hang --fr");
}
