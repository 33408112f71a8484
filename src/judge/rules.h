/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_RULES_H
#define CD_RULES_H

#include "conf.h"
#include "results.h"

struct cd_eval; /* one evaluation: the document, the thresholds, what fired */

struct cd_rule {
	const char *id;       /* stable, never reused: "NET002" */
	const char *group;    /* "system", "net", "pcie", "nvlink", "p2p", "ib", "gpu", "copy", "nccl", … */
	const char *severity; /* what it can report, for the listing: "fail", "warn", "warn|fail" */
	const char *summary;  /* what it checks, for `commdiag rules` and the man page */
	enum cd_key keys[6];  /* the thresholds it reads (CD_K_NONE ends the list) */
	int per_host;         /* called once per host, else once per document with h == NULL */
	/* Append findings; return how many. */
	int (*check)(struct cd_eval *e, const struct cd_host *h);
};

struct cd_rule_group {
	const char *name;
	const char *summary;
};

const struct cd_rule *cd_rules_table(size_t *n);
const struct cd_rule_group *cd_rules_groups(size_t *n);

/*
 * Run every rule over the document with these thresholds: fills r->rules (profile,
 * sources, groups evaluated and not) and appends findings; returns how many.
 */
int cd_rules_evaluate_conf(struct cd_results *r, const struct cd_conf *c);
/* The same for one rule group only (compare: "baseline"); the others are neither judged nor listed. */
int cd_rules_evaluate_group(struct cd_results *r, const struct cd_conf *c, const char *group);
/* The same with the embedded defaults and the profile chosen from r's GPUs. */
int cd_rules_evaluate(struct cd_results *r);

struct cd_catalog;
/* The rules, every threshold in force in c with its origin, and the profiles, for `commdiag rules`. */
void cd_rules_catalog(struct cd_catalog *cat, const struct cd_conf *c);

#endif
