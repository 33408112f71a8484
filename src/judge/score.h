/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The score card: four dimensions, each 0-100, and a weighted total.
 *   bandwidth 30 %  the lowest utilisation among measurements and link states
 *   latency   25 %  the mean of target / measured small-message times
 *   balance   25 %  the lowest slowest/median ratio among comparable results
 *   stability 20 %  the mean per-probe stability (status, data check, spread)
 * A dimension without data is null and the others' weights are scaled to sum to 1.
 * Formulas in detail: man commdiag(1), SCORE.
 */
#ifndef CD_SCORE_H
#define CD_SCORE_H

#include "conf.h"
#include "results.h"

extern const double cd_score_weights[CD_DIM_COUNT]; /* 0.30, 0.25, 0.25, 0.20 */

/* "excellent" (>= 85), "good" (70-84), "needs work" (< 70). */
const char *cd_score_grade(int64_t total);

/* Fill r->score from the document's facts and probes with these thresholds. */
void cd_score_compute(struct cd_results *r, const struct cd_conf *c);

#endif
