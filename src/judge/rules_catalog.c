/* SPDX-License-Identifier: BSD-3-Clause */
/* The rules, the thresholds in force and the profiles, into the catalog `commdiag rules` renders. */
#include "rules.h"
#include "rules_hang.h"

#include <stdlib.h>

#include "catalog.h"
#include "util.h"

static void add_threshold(struct cd_catalog *cat, const struct cd_conf *c, enum cd_key k)
{
	const struct cd_conf_key *ck = cd_conf_key(k);
	struct cd_cat_threshold *t = cd_catalog_add_threshold(cat);
	char v[96];

	t->key = cd_catalog_str(ck->name);
	t->unit = cd_catalog_str(cd_unit_str(ck->unit));
	t->is_text = ck->unit == CD_U_TEXT;
	if (t->is_text)
		t->value_text = cd_catalog_str(c->text[k]);
	else
		t->value = cd_conf_get(c, k);
	t->shown = cd_catalog_str(cd_conf_fmt(c, k, v, sizeof(v)));
	t->origin = cd_catalog_str(c->origin[k]);
}

static void add_profiles(struct cd_catalog *cat)
{
	const char *const *names = cd_conf_profiles();

	for (size_t i = 0; names[i]; i++) {
		struct cd_cat_profile *p = cd_catalog_add_profile(cat);
		struct cd_conf pc;
		char *file = xasprintf("%s.conf", names[i]);

		cd_conf_init(&pc);
		cd_conf_load_embedded(&pc, file);
		p->name = cd_catalog_str(names[i]);
		p->interconnect = cd_catalog_str(pc.text[CD_K_PROFILE_IC]);
		p->gpu_names = cd_catalog_str(pc.text[CD_K_PROFILE_GPUS]);
		p->description = cd_catalog_str(pc.text[CD_K_PROFILE_DESC]);
		cd_conf_free(&pc);
		free(file);
	}
}

void cd_rules_catalog(struct cd_catalog *cat, const struct cd_conf *c)
{
	size_t n;
	const struct cd_rule *t = cd_rules_table(&n);

	cat->profile = cd_catalog_str(c->profile);
	cat->profile_reason = cd_catalog_str(c->profile_reason);
	for (size_t i = 0; i < c->sources.n; i++)
		cd_strv_push(&cat->sources, c->sources.v[i]);
	/* every key in enum order: the thresholds' listing, and what rules[].keys index */
	for (int k = CD_K_NONE + 1; k < CD_K_COUNT; k++)
		add_threshold(cat, c, k);
	for (size_t i = 0; i < n; i++) {
		struct cd_cat_rule *r = cd_catalog_add_rule(cat);

		r->id = cd_catalog_str(t[i].id);
		r->group = cd_catalog_str(t[i].group);
		r->severity = cd_catalog_str(t[i].severity);
		r->summary = cd_catalog_str(t[i].summary);
		for (size_t k = 0; k < ARRAY_SIZE(t[i].keys) && k < CD_CAT_RULE_KEYS && t[i].keys[k] != CD_K_NONE; k++)
			r->keys[r->n_keys++] = (size_t)(t[i].keys[k] - (CD_K_NONE + 1));
	}
	cd_hang_catalog(cat); /* commdiag hang's rules: over RAS snapshots, not the document */
	add_profiles(cat);
}
