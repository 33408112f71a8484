/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang: the judge of NCCL RAS snapshots taken a few seconds apart (HANG001–HANG005)
 * and of PyTorch Flight Recorder dumps (HANG006–HANG009).
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

#endif
