/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A baseline: an earlier results document the current one is compared with (`compare`,
 * `check --baseline`). Pure readings shared by the judge (rules_baseline.c: BASE001-BASE004)
 * and the report (the Prometheus ratio), so both match runs and read spreads the same way.
 *
 * A run of the baseline matches a run of the document when its probe name, variant, host,
 * device and peer are the same; nranks is compared by the caller (a different count is
 * "not comparable", not "missing"). Sizes match by bytes.
 */
#ifndef CD_BASELINE_H
#define CD_BASELINE_H

#include <stddef.h>

#include "results.h"

/* The run of `in` with p's name, variant, host, device and peer (p belongs to `of`); NULL when none. */
const struct cd_probe_run *cd_baseline_find(const struct cd_results *in, const struct cd_results *of,
					    const struct cd_probe_run *p);
/* p's sample of this size; NULL when p has none. */
const struct cd_probe_sample *cd_probe_sample_at(const struct cd_probe_run *p, int64_t bytes);
/* (p75 - p25) / median of one size's iteration times; NAN when not recorded. */
double cd_sample_rel_iqr(const struct cd_probe_sample *s);
/*
 * The noise two medians are compared against: each run's relative interquartile range,
 * added in quadrature (independent spreads); an unrecorded spread counts as 0, and
 * *known says whether both were recorded.
 */
double cd_baseline_noise(const struct cd_probe_sample *old, const struct cd_probe_sample *cur, int *known);
/*
 * Median time of this size now over the baseline's (above 1: slower), when r has a
 * baseline with a comparable run (same nranks) and both medians; NAN otherwise.
 */
double cd_baseline_time_ratio(const struct cd_results *r, const struct cd_probe_run *p,
			      const struct cd_probe_sample *s);
/*
 * Why the host named `host` cannot be compared with the baseline's host of that name (other
 * GPU models or count), written into buf; NULL when it can, or when r has no baseline.
 */
const char *cd_baseline_host_differs(const struct cd_results *r, const char *host, char *buf, size_t len);
/* The host of p by name: its own, else the document's only host; NULL when not known. */
const char *cd_probe_host_name(const struct cd_results *r, const struct cd_probe_run *p);

#endif
