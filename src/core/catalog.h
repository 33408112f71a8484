/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What `commdiag rules` and `advise --explain` list: the rules with the thresholds in
 * force, the hardware profiles, and the decision tree. The judge and the advice tree fill
 * it, the report renders it: the table both read, so the report never calls the judge.
 * Strings are the catalog's own (cd_catalog_free frees them).
 */
#ifndef CD_CATALOG_H
#define CD_CATALOG_H

#include <stddef.h>

#include "results.h"

struct cd_cat_threshold {
	char *key;    /* "nccl.latency_warn_us" */
	char *unit;   /* "us", "gbyte_s", "text", … as in finding.unit */
	int is_text;  /* the value is text (value_text), else a number (value) */
	char *value_text;
	double value;
	char *shown;  /* the value as the text listing shows it: "1.0 GiB" */
	char *origin; /* "default.conf:7", "-D", …; NULL when unset */
};

#define CD_CAT_RULE_KEYS 6
struct cd_cat_rule {
	char *id, *group, *severity, *summary;
	size_t n_keys;
	size_t keys[CD_CAT_RULE_KEYS]; /* the thresholds it reads: indexes into thresholds[] */
};

struct cd_cat_profile {
	char *name, *interconnect, *gpu_names, *description; /* gpu_names NULL: none */
};

struct cd_cat_node {
	char *name, *text, *topic; /* topic: set on the first question of a topic */
	int job;                   /* asked once for the job, else for every host */
	int leaf;                  /* a leaf (advises), else a question */
	char *next, *yes, *no;     /* names of the nodes that follow; NULL: the walk ends */
};

struct cd_catalog {
	char *profile, *profile_reason; /* the profile in force (NULL: none) and why */
	struct cd_strv sources;         /* the rules files read, in order */
	struct cd_cat_threshold *thresholds;
	size_t n_thresholds;
	struct cd_cat_rule *rules;
	size_t n_rules;
	struct cd_cat_profile *profiles;
	size_t n_profiles;
	struct cd_cat_node *nodes;
	size_t n_nodes;
};

void cd_catalog_init(struct cd_catalog *c);
void cd_catalog_free(struct cd_catalog *c);
/* Append an empty entry and return it. */
struct cd_cat_threshold *cd_catalog_add_threshold(struct cd_catalog *c);
struct cd_cat_rule *cd_catalog_add_rule(struct cd_catalog *c);
struct cd_cat_profile *cd_catalog_add_profile(struct cd_catalog *c);
struct cd_cat_node *cd_catalog_add_node(struct cd_catalog *c);
/* xstrdup of s, NULL for NULL. */
char *cd_catalog_str(const char *s);

#endif
