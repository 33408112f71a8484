/* SPDX-License-Identifier: BSD-3-Clause */
#include "catalog.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void cd_catalog_init(struct cd_catalog *c)
{
	memset(c, 0, sizeof(*c));
}

char *cd_catalog_str(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* one more zeroed element of an array of `size`-byte elements */
static void *add(void **v, size_t *n, size_t size)
{
	char *p;

	*v = xrealloc(*v, (*n + 1) * size);
	p = (char *)*v + *n * size;
	memset(p, 0, size);
	(*n)++;
	return p;
}

struct cd_cat_threshold *cd_catalog_add_threshold(struct cd_catalog *c)
{
	return add((void **)&c->thresholds, &c->n_thresholds, sizeof(*c->thresholds));
}

struct cd_cat_rule *cd_catalog_add_rule(struct cd_catalog *c)
{
	return add((void **)&c->rules, &c->n_rules, sizeof(*c->rules));
}

struct cd_cat_profile *cd_catalog_add_profile(struct cd_catalog *c)
{
	return add((void **)&c->profiles, &c->n_profiles, sizeof(*c->profiles));
}

struct cd_cat_node *cd_catalog_add_node(struct cd_catalog *c)
{
	return add((void **)&c->nodes, &c->n_nodes, sizeof(*c->nodes));
}

void cd_catalog_free(struct cd_catalog *c)
{
	for (size_t i = 0; i < c->n_thresholds; i++) {
		struct cd_cat_threshold *t = &c->thresholds[i];

		free(t->key);
		free(t->unit);
		free(t->value_text);
		free(t->shown);
		free(t->origin);
	}
	for (size_t i = 0; i < c->n_rules; i++) {
		free(c->rules[i].id);
		free(c->rules[i].group);
		free(c->rules[i].severity);
		free(c->rules[i].summary);
	}
	for (size_t i = 0; i < c->n_profiles; i++) {
		free(c->profiles[i].name);
		free(c->profiles[i].interconnect);
		free(c->profiles[i].gpu_names);
		free(c->profiles[i].description);
	}
	for (size_t i = 0; i < c->n_nodes; i++) {
		struct cd_cat_node *x = &c->nodes[i];

		free(x->name);
		free(x->text);
		free(x->topic);
		free(x->next);
		free(x->yes);
		free(x->no);
	}
	free(c->thresholds);
	free(c->rules);
	free(c->profiles);
	free(c->nodes);
	free(c->profile);
	free(c->profile_reason);
	cd_strv_free(&c->sources);
	cd_catalog_init(c);
}
