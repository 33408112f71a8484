/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's RAS status report (NCCL 2.24 and later), read into one snapshot: the ranks of each
 * communicator with their collective counts, the missing and the dead. Both formats the
 * server sends: the text one (every version; written by rasClientRunComms in
 * src/ras/client_support.cc, v2.24.3-1 to v2.30.7-1) and the JSON one (`SET FORMAT json`,
 * v2.28.7-1 and later: rasDumpCommsToJSON in the same file). Pure parsing: no socket here
 * (the client is src/probe/ras_client.c), so the unit tests feed it recorded reports.
 */
#ifndef CD_RAS_H
#define CD_RAS_H

#include <stddef.h>

#include "results.h"

#define CD_RAS_PORT 28028       /* NCCL_RAS_CLIENT_PORT, src/ras/ras_internal.h */
#define CD_RAS_CLIENT_PROTOCOL 2       /* NCCL_RAS_CLIENT_PROTOCOL, the same in v2.24.3-1 … v2.30.7-1 */
#define CD_RAS_MAX_REPORT (64u << 20)

/* One rank as a report shows it. Unknown numbers are -1, an unknown count is -1. */
struct cd_ras_rank {
	char *comm;       /* the communicator: "#0-0 (27a079b828ff1a75)" (text) or "0xae94…" (JSON) */
	char *coll;       /* the collective of `count` ("AllReduce"; "collective" before 2.26); NULL: none */
	long rank;
	char *host;       /* "172.16.64.213"; NULL when the report did not say */
	long pid;
	char *gpu;        /* "5", "5 (NVML 7)" */
	long long count;  /* the operations launched up to, -1 when not known */
	int missing;      /* INCOMPLETE: no data from it */
	int dead;         /* DEAD (text: the process list; JSON: considered_dead) */
	int error;        /* an initialisation or asynchronous NCCL error */
	char *line;       /* the server's line(s) this came from, for the evidence */
};

/* One collective of one communicator: the counts its ranks launched up to (a MISMATCH). */
struct cd_ras_count {
	char *comm;
	char *coll;
	long long value;
	long nranks;      /* how many ranks are at it */
	char *line;
};

struct cd_ras_snapshot {
	int json;                 /* which format the server answered in */
	char *version;            /* "2.28.9" when the report says */
	struct cd_ras_rank *ranks;  /* every rank named: missing, dead, erroring, and each rank's counts */
	size_t n_ranks, cap_ranks;
	struct cd_ras_count *counts; /* the count groups of each (communicator, collective) */
	size_t n_counts, cap_counts;
	long ncomms;              /* communicators in the report; -1 when not known */
	long timeouts;            /* RAS's own communication timeouts while gathering */
};

void cd_ras_snapshot_free(struct cd_ras_snapshot *s);
/*
 * Parse one whole report (text or JSON, told by its first non-blank byte). Returns 0, or -1
 * with *err set (malloc'd) when it is not a complete RAS report: a text report ends with its
 * "Warnings" section, a JSON one with its closing brace.
 */
int cd_ras_parse(struct cd_ras_snapshot *s, const char *text, size_t len, char **err);

#endif
