/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's reader of PyTorch ProcessGroupNCCL's watchdog (private to explain.c).
 * Which rank a timed-out collective waits for can be told only inside one process
 * group: SeqNums count per group, and "Rank z" in "[PG ID x PG GUID y Rank z]" (or
 * "[PG x Rank z]", "[Rank z]") is the rank inside that group. The global rank is
 * c10's "[rankN]:" line prefix, or "global rank: N" in the group's initialization
 * options; the default group's ranks are global ranks.
 */
#ifndef CD_EXPLAIN_TORCH_H
#define CD_EXPLAIN_TORCH_H

#include "results.h"

struct cd_torch;

struct cd_torch *cd_torch_new(void);
void cd_torch_free(struct cd_torch *t);

/* Read one log line; returns 1 when it is one of the watchdog's or a group's own. */
int cd_torch_line(struct cd_torch *t, const char *line);

/* Did a collective time out (a watchdog timeout line was read)? */
int cd_torch_timed_out(const struct cd_torch *t);

/*
 * Write what the reports say into f (LOG001): the subject names the rank behind
 * in its group, or says why none can be named; evidence per group; the timeout.
 * nranks: NCCL's communicator size when the log shows exactly one, else 0.
 */
void cd_torch_summarise(const struct cd_torch *t, struct cd_finding *f, int nranks);

/* The host explain gives the lines that follow (NCCL's prefix); NULL or "" when none. */
void cd_torch_set_host(struct cd_torch *t, const char *host);

/*
 * Append every report read to r->watchdog (log: the file's name), and each rank the
 * log shows alive without one (seq null), for hang's judge (rules_wd.c).
 * nranks: as for cd_torch_summarise.
 */
void cd_torch_export(const struct cd_torch *t, struct cd_results *r, const char *log, int nranks);

#endif
