/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A baseline: an earlier results document the current one is compared with (`compare`,
 * `check --baseline`). Pure readings shared by the judge (rules_baseline.c: BASE001-BASE004)
 * and the report (the Prometheus ratio), so both pair runs and read spreads the same way.
 *
 * A run of the baseline pairs with the run of the document that has its probe name, variant,
 * host, device and peer; when a key repeats (two hosts of one name), the k-th of the baseline
 * pairs with the k-th of the document. nranks is compared by the caller (another count is
 * "not comparable", not "missing"). Sizes pair by bytes. Pairing sorts both documents' runs,
 * so its cost is n log n, whatever the size of the fleet.
 */
#ifndef CD_BASELINE_H
#define CD_BASELINE_H

#include <stddef.h>

#include "results.h"

#define CD_BASELINE_NONE ((size_t)-1)

struct cd_baseline_map {
	size_t n_base;          /* r->baseline->n_probes */
	size_t n_runs;          /* r->n_probes */
	size_t *pair;           /* per baseline run: its run in r, or CD_BASELINE_NONE */
	size_t *of;             /* per run of r: its baseline run, or CD_BASELINE_NONE */
	/*
	 * per baseline run: why its host cannot be compared with the host of that name now (other
	 * GPU models or count), NULL when it can; points into host_why
	 */
	const char **other_hw;
	char **host_why;        /* per host of the baseline: the reason, owned; NULL when comparable */
	size_t n_host_why;
};

/* Pair r's runs with r->baseline's; a map of nothing when r has no baseline. */
void cd_baseline_map(const struct cd_results *r, struct cd_baseline_map *m);
void cd_baseline_map_free(struct cd_baseline_map *m);
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
 * Median time of sample s of r's run `run` over the baseline's at that size (above 1:
 * slower), when the run has a comparable baseline run (finished, same nranks, same GPUs)
 * and both medians are known; NAN otherwise.
 */
double cd_baseline_time_ratio(const struct cd_results *r, const struct cd_baseline_map *m, size_t run,
			      const struct cd_probe_sample *s);
/* The host of p by name: its own, else the document's only host; NULL when not known. */
const char *cd_probe_host_name(const struct cd_results *r, const struct cd_probe_run *p);

#endif
