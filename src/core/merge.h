/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fleet documents: the documents of separate runs (a prolog's check on each node) put into
 * one, so the cross-host rules judge the fleet as they judge an MPI job. Moves, never copies:
 * 4096 documents merge in one pass over their elements.
 */
#ifndef CD_MERGE_H
#define CD_MERGE_H

#include "results.h"

struct cd_merge {
	struct cd_results *r;   /* the fleet document being built */
	int64_t next_rank;      /* the first rank number not yet taken (ranks of each file are renumbered) */
	size_t files;           /* documents added */
};

/* Start a fleet document in r (initialised here): run.mode "merge", no hosts yet. */
void cd_merge_init(struct cd_merge *m, struct cd_results *r);
/*
 * Move the hosts, probes, reach attempts and ranks of src into the fleet, and record the file
 * in run.merged (a fleet document's own run.merged entries are taken over instead, so merging
 * merged documents lists the original files). Ranks and the probes' rank and peer (where the
 * peer is a rank) are renumbered after the ranks already there, host indexes shifted: each
 * file's ranks stay its own. src's findings, advice, rules and score are dropped (the fleet is
 * judged anew); src is left empty (freed and initialised).
 */
void cd_merge_add(struct cd_merge *m, struct cd_results *src, const char *file);
/* The run.merged entry host index h came from, or NULL (hosts are added in entry order). */
const struct cd_merged *cd_merge_entry_of(const struct cd_results *r, size_t h);

#endif
