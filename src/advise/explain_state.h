/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's state while it reads one log, private to explain.c and explain_cause.c (the
 * catalogue's reading): the hosts, findings and facts so far, and what each catalogue entry
 * has seen. Nothing outside src/advise includes it; stages see the results document only.
 */
#ifndef CD_EXPLAIN_STATE_H
#define CD_EXPLAIN_STATE_H

#include <stddef.h>

#include "explain_catalog.h"
#include "explain_fold.h"
#include "results.h"

struct cd_torch;
struct cd_vers_log;
struct cd_net;
struct cd_stated;

#define MAX_HOSTS 256
#define MAX_FINDINGS 512
#define MAX_EVIDENCE 3
#define EVIDENCE_CHARS 220
#define MAX_CLAIMED 16 /* lines remembered per catalogue entry, to tell whose they are */
#define MAX_SEGMENTS 32 /* a physical line's parts between carriage returns, read apart */
#define MAX_STREAMS 64 /* launcher prefixes (ranks, pods) remembered with the host each last named */

/* What the log showed of one catalogue entry. */
struct cause_seen {
	int hits;                  /* lines that matched */
	unsigned required;         /* bit i: require[i] seen */
	int ruled_out, confirms;
	char host[128];            /* the host of its first line */
	char evidence[MAX_EVIDENCE][EVIDENCE_CHARS];
	int n_evidence;
	long lines[MAX_CLAIMED];   /* the numbers of its first matching lines */
	long last_line;            /* the number of its last matching line */
};

struct state {
	struct cd_results *r;
	const char *name;
	char first_host[128];           /* the first host this log named */
	char last_host[128];            /* lines without a prefix belong to the rank before them */
	/* a launcher's rank prefix ("srun 3", "mpi 1,3"): that rank's own last host, so lines of
	 * ranks interleaved in one log are not given the host another rank named just before */
	struct {
		char key[96], host[128];
	} streams[MAX_STREAMS];
	int n_streams;
	char line_host[128];            /* the host one segment of this physical line names */
	size_t first_finding;           /* findings before this log */
	int recognised, errors, warns;
	int nccl_warns;                 /* "NCCL WARN": NCCL's error channel; other libraries' WARN may be a notice */
	int traced;                     /* NCCL error-trace lines ("file.cc:LINE -> CODE") among errors */
	struct {
		char proc[160];         /* "host:pid" of a process that printed a trace */
		int init_done;          /* it printed "Init COMPLETE" after its trace: the error was handled */
	} trace_procs[MAX_STREAMS];
	int n_trace_procs, trace_procs_full;
	int gdr_yes, gdr_no, ib_none, net_socket, net_ib;
	char transports[256];
	struct cd_torch *torch;        /* PyTorch's watchdog: reports per process group */
	int world, world_mixed;        /* NCCL's communicator size; several different ones */
	char unmatched[MAX_EVIDENCE][EVIDENCE_CHARS];
	int n_unmatched;
	long warn_line;                 /* the last unmatched WARN: its line, whether NCCL's, whether kept (fold_notice) */
	int warn_nccl, warn_kept;
	/* NCCL's error trace lines "file.cc:LINE -> CODE": per ncclResult_t, how many and where first */
	int result_lines[8];
	char result_origin[8][96];
	const struct cd_causes *causes; /* NULL: no catalogue (it failed to load) */
	struct cause_seen *seen;        /* one per catalogue entry */
	int ompi_connect_box;           /* inside Open MPI's "failed to TCP connect" help box */
	struct cd_vers_log *vers;       /* the versions, architectures and drivers the log shows */
	struct cd_net *net;             /* RDMA facts and errors, for the candidate causes (LOG030) */
	char first_error[EVIDENCE_CHARS]; /* the first line that reports an error, whatever prints it */
	const char *error_libs[8];      /* cd_error_library's keys of the error lines, first first (LOG099) */
	int n_error_libs;
	long first_error_line;
	/* the first line that states its cause in the system's words (explain_stated.h), an error
	 * line before any other: LOG096 where nothing else explains the log */
	const struct cd_stated *stated;
	char stated_line[EVIDENCE_CHARS];
	long stated_lineno;
	size_t stated_host;
	int stated_error;
	/* inside a help box of Open MPI's, its lines so far, and whether it is a notice (explain.c,
	 * notice_box) */
	int box, box_lines, box_notice;
	long lineno;
	struct cd_fold fold;            /* the run a folded message may continue (explain_fold.h) */
	struct cd_grams grams[3];       /* this line's and its two joins' (catalogue_line, catalogue_wrapped) */
	size_t consequence[MAX_FINDINGS]; /* findings only generic entries (consequences) made (LOG097) */
	int n_consequence;
};

/* The host a prefix names (added to the document the first time). */
struct cd_host *explain_host_named(struct state *st, const char *full);
/* A finding of this log (one per id, host and subject; the line as evidence); NULL past the limit. */
struct cd_finding *explain_log_finding(struct state *st, const char *id, enum cd_severity sev, const struct cd_host *h,
				       const char *subject, const char *title, const char *line);

/* explain_cause.c: whether this log has made a finding of that id so far */
int explain_finding_in_log(const struct state *st, const char *id);
/* explain_cause.c: 1 when an entry that names a cause matched the line (or its fold's joins),
 * 2 when only LOG099's (a result code) did, 0 for none */
int explain_catalogue_line(struct state *st, const struct cd_host *h, const char *line);
/* the entries the log shows, as findings and advice */
void explain_catalogue_finish(struct state *st);
/* LOG099's entries: what an unexplained result code means, and what to collect */
void explain_catalogue_unexplained(struct state *st, struct cd_finding *f);

#endif
