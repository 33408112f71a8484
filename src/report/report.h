/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_REPORT_H
#define CD_REPORT_H

#include "catalog.h"
#include "out.h"
#include "results.h"

/*
 * Render the whole document: text for people or the JSON document (schema 1; above
 * CD_SCALE_HOSTS hosts its compact form, schema 2).
 */
void cd_report(struct cd_out *o, const struct cd_results *r);
/*
 * The compact form of the JSON document (report_compact.c): one line, NVLink runs counted,
 * host sections equal to an earlier host's as {"same_as": index}. cd_report_compact_form()
 * asks for it on o (JSON only); cd_report_compact() renders in it whatever the host count
 * (an MPI rank's part for rank 0).
 */
void cd_report_compact_form(struct cd_out *o);
void cd_report_compact(struct cd_out *o, const struct cd_results *r);
/* The document as Prometheus metrics (node_exporter's textfile collector); cd_report() dispatches to it. */
void cd_report_prom(struct cd_out *o, const struct cd_results *r);
/*
 * A document of more than CD_SCALE_HOSTS (report_scale.h) hosts: the text report shows the
 * hosts with findings through render_host and summarises the rest (report_scale.c).
 */
int cd_scale_big(const struct cd_results *r);
/* The compact reach matrix's counts per host and interface (JSON only; nothing when there are none). */
void cd_scale_reach_counts(struct cd_out *o, const struct cd_results *r);
void cd_scale_text(struct cd_out *o, const struct cd_results *r,
		   void (*render_host)(struct cd_out *o, const struct cd_host *h));
/* One piece of advice as a shell line: "export K=V", "unset K", or a command as a "# ..." comment. */
/*
 * A command is a comment of up to CD_SHELL_COMMENT_MAX bytes (a catalogue fix runs to some 800;
 * a longer one is cut with " ..."), so a shell line needs CD_SHELL_LINE_MAX with its guard.
 */
#define CD_SHELL_COMMENT_MAX 2048
#define CD_SHELL_LINE_MAX (CD_SHELL_COMMENT_MAX + 400)
void cd_report_shell_line(char *buf, size_t len, const struct cd_advice *a);
/* The advice as lines to paste or eval (text only). */
void cd_report_shell(struct cd_out *o, const struct cd_results *r);
/* `advise`, `env`, `explain`: their sections of the document. */
void cd_report_advice(struct cd_out *o, const struct cd_results *r);
void cd_report_env(struct cd_out *o, const struct cd_results *r);
void cd_report_explain(struct cd_out *o, const struct cd_results *r);
/* `advise --explain`: the decision tree. */
void cd_report_tree(struct cd_out *o, const struct cd_catalog *c);

/*
 * `--format html`: the document as one self-contained page (report_html.c), written
 * through out_raw(). cd_report() dispatches here in OUT_FMT_HTML.
 */
void cd_report_html(struct cd_out *o, const struct cd_results *r);
/* Its parts, for the tests. A heap copy of s (NULL: "") safe in HTML text and attributes. */
char *cd_html_escape(const char *s);
/*
 * The heatmaps' colour scale: the bucket of v by its fraction of the best value of the
 * matrix (v / best, or best / v when lower is better): 0 (< 50 %), 1 (50-70 %),
 * 2 (70-85 %), 3 (85-95 %), 4 (>= 95 %); -1 when there is no value to judge.
 */
#define CD_HTML_BUCKETS 5
int cd_html_bucket(double v, double best, int higher_better);
const char *cd_html_bucket_color(int bucket); /* "#rrggbb"; the no-data grey for -1 */
const char *cd_html_class_color(const char *cls); /* of a path class: "NV18", "PIX", ..., "SYS" */
/*
 * The runs of `probe` on host h by ordered GPU pair, cells[i * n_gpus + j] for the GPUs
 * at positions i and j of h->gpus (NULL: no run); returns how many cells have one.
 */
size_t cd_html_gpu_matrix(const struct cd_results *r, const struct cd_host *h, const char *probe,
			  const struct cd_probe_run **cells);
/* The same between hosts (rank and peer mapped through ranks[]): cells[i * n_hosts + j]. */
size_t cd_html_host_matrix(const struct cd_results *r, const char *probe, const struct cd_probe_run **cells);

/*
 * A fleet document (commdiag merge, report_fleet.c): run.merged, and a verdict per host from
 * the findings that name it (pass, warn or fail, and the rule ids at warn or above). Both
 * write nothing for a document that is not merged.
 */
struct cd_verdict {
	int worst;              /* the highest severity at warn or above; -1: pass */
	struct cd_strv rules;   /* the ids of those findings, sorted, each once */
};
void cd_report_fleet_run(struct cd_out *o, const struct cd_results *r);
void cd_report_fleet_verdicts(struct cd_out *o, const struct cd_results *r);
/* One verdict per host (r->n_hosts of them), and in *fleet the findings that name no listed host. */
struct cd_verdict *cd_fleet_verdicts(const struct cd_results *r, struct cd_verdict *fleet);
void cd_fleet_verdicts_free(struct cd_verdict *v, size_t n, struct cd_verdict *fleet);
const char *cd_verdict_str(int worst); /* "pass", "warn", "fail" */

/* `commdiag rules`: every rule, every threshold in force and its origin, the profiles. */
void cd_report_rules(struct cd_out *o, const struct cd_catalog *c);

#endif
