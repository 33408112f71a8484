/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reports of large documents (issue 18): above CD_SCALE_HOSTS hosts the text, HTML and
 * Prometheus renderers show the hosts with findings in full and summarise the others; the
 * JSON always keeps everything. Private to src/report.
 */
#ifndef CD_REPORT_SCALE_H
#define CD_REPORT_SCALE_H

#include <stddef.h>

#include "out.h"
#include "report.h"
#include "results.h"

/* Above this many hosts a report summarises (the size at which tcp.reach stops keeping every pair, too). */
#define CD_SCALE_HOSTS 64
/* The HTML page draws the path matrix and GPU heatmaps of this many hosts, worst first. */
#define CD_SCALE_WORST 16
/* Lists cut at this many lines (the rest counted, and in the JSON). */
#define CD_SCALE_LIST 20

/* A host and its findings, for ranking: worst first (fail, then warn, then info, then position). */
struct cd_scale_host {
	size_t host;
	size_t fail, warn, info;
};
/* Every host, worst first; *n_bad gets how many have a finding at warn or above. Free the array. */
struct cd_scale_host *cd_scale_rank(const struct cd_results *r, size_t *n_bad);

/* HTML parts (report_html.c calls them for a large document). */
void cd_scale_html_hosts(struct cd_out *o, const struct cd_results *r);
void cd_scale_html_histograms(struct cd_out *o, const struct cd_results *r);
void cd_scale_html_probes(struct cd_out *o, const struct cd_results *r);

/* Per probe name: runs by status and the bandwidth (or latency) spread; one row each. */
struct cd_scale_probe {
	const char *name;
	size_t runs, ok, failed; /* failed: error or timeout */
	size_t n_vals;
	double *vals;           /* per finished run: bandwidth GB/s, or latency us for a latency probe */
	size_t *run;            /* the run of each value */
	int higher_better;
};
struct cd_scale_probe *cd_scale_probes(const struct cd_results *r, size_t *n);
void cd_scale_probes_free(struct cd_scale_probe *v, size_t n);

#endif
