/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_REPORT_H
#define CD_REPORT_H

#include "conf.h"
#include "out.h"
#include "results.h"

/* Render the whole document: text for people or the JSON document (schema 1). */
void cd_report(struct cd_out *o, const struct cd_results *r);
/* The document as Prometheus metrics (node_exporter's textfile collector); cd_report() dispatches to it. */
void cd_report_prom(struct cd_out *o, const struct cd_results *r);
/* The advice as lines to paste or eval (text only). */
void cd_report_shell(struct cd_out *o, const struct cd_results *r);
/* `advise`, `env`, `explain`: their sections of the document. */
void cd_report_advice(struct cd_out *o, const struct cd_results *r);
void cd_report_env(struct cd_out *o, const struct cd_results *r);
void cd_report_explain(struct cd_out *o, const struct cd_results *r);
/* `advise --explain`: the decision tree. */
void cd_report_tree(struct cd_out *o);

/* `commdiag rules`: every rule, every threshold in force and its origin, the profiles. */
void cd_report_rules(struct cd_out *o, const struct cd_conf *c);

#endif
