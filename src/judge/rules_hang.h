/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang: the judge of NCCL RAS snapshots taken a few seconds apart (HANG001–HANG005)
 * and of PyTorch Flight Recorder dumps (HANG006–HANG009), of PyTorch watchdog logs (HANG010–HANG012) and
 * of what the sources say together (HANG013).
 * Stuck or transitional is told the way NCCL's ras.rst advises: a MISMATCH of collective
 * counts that is still the same at the last query is stuck; one whose counts moved is not.
 */
#ifndef CD_RULES_HANG_H
#define CD_RULES_HANG_H

#include <stddef.h>

#include "catalog.h"
#include "fr.h"
#include "ras.h"
#include "results.h"

struct cd_hang_rule {
	const char *id, *severity, *summary;
};

const struct cd_hang_rule *cd_hang_rules_table(size_t *n);
/* Append the findings of snapshots s[0..n-1] (oldest first; n >= 1) of the job at `where`. */
int cd_hang_judge(struct cd_results *r, const struct cd_ras_snapshot *s, size_t n, const char *where);
void cd_hang_catalog(struct cd_catalog *cat);
/*
 * Append the findings of Flight Recorder dumps d[0..n-1] (one per rank, distinct ranks;
 * rules_fr.c, HANG006–HANG009): per process group, the first collective where its ranks
 * diverge, as PyTorch's tools/flight_recorder matches them.
 */
int cd_fr_judge(struct cd_results *r, const struct cd_fr_dump *d, size_t n);
/*
 * Append the findings of the PyTorch watchdog reports in r->watchdog (rules_wd.c,
 * HANG010–HANG012): per process group, the rank behind or the member that did not report.
 */
int cd_wd_judge(struct cd_results *r);
/*
 * After the judges of every source: each finding naming a rank says whether the other
 * sources name it too; sources that name no rank in common are HANG013.
 */
int cd_hang_cross(struct cd_results *r);
/*
 * The job's nodes: each HANG finding that names a host gets the node of nodes[0..n-1]
 * (documents of commdiag check, files[i] where each came from) that host is, by name,
 * short name or address, and that node's own findings at warn or fail, as evidence
 * ("node: …" lines, which the advice quotes); a host in none of them is said so.
 */
void cd_hang_nodes(struct cd_results *r, const struct cd_results *nodes, const char *const *files, size_t n);

#endif
