/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `commdiag rules` and `advise --explain`: the catalog (catalog.h) that the judge and the
 * advice tree filled, as text or JSON.
 */
#include "report.h"

/* one threshold: its JSON object, and a text line in text_fmt (key, value, origin) */
static void render_threshold(struct cd_out *o, const struct cd_cat_threshold *t, const char *text_fmt)
{
	out_obj_open(o, NULL);
	out_str(o, OUT_JSON, "key", NULL, t->key);
	if (t->is_text)
		out_str(o, OUT_JSON, "value", NULL, t->value_text);
	else
		out_dbl(o, OUT_JSON, "value", NULL, t->value);
	out_str(o, OUT_JSON, "unit", NULL, t->unit);
	out_str(o, OUT_JSON, "origin", NULL, t->origin);
	out_text(o, text_fmt, t->key, t->shown, t->origin ? t->origin : "unset");
	out_obj_close(o);
}

static void render_rule_list(struct cd_out *o, const struct cd_catalog *c)
{
	out_text(o, "\n# rules (%zu)\n  %-8s %-9s %-9s %s\n", c->n_rules, "id", "group", "severity", "checks");
	out_arr_open(o, "rules");
	for (size_t i = 0; i < c->n_rules; i++) {
		const struct cd_cat_rule *t = &c->rules[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "id", "  %-8s", t->id);
		out_str(o, OUT_ANY, "group", " %-9s", t->group);
		out_str(o, OUT_ANY, "severity", " %-9s", t->severity);
		out_str(o, OUT_ANY, "summary", " %s\n", t->summary);
		out_arr_open(o, "thresholds");
		for (size_t k = 0; k < t->n_keys; k++)
			render_threshold(o, &c->thresholds[t->keys[k]], "                             %s = %s (%s)\n");
		out_arr_close(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void render_profiles(struct cd_out *o, const struct cd_catalog *c)
{
	out_text(o, "\n# profiles (%zu)\n  %-13s %-12s %-36s %s\n", c->n_profiles, "name", "interconnect", "gpu names",
		 "description");
	out_arr_open(o, "profiles");
	for (size_t i = 0; i < c->n_profiles; i++) {
		const struct cd_cat_profile *p = &c->profiles[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "name", "  %-13s", p->name);
		out_str(o, OUT_ANY, "interconnect", " %-12s", p->interconnect);
		out_str(o, OUT_ANY, "gpu_names", " %-36s", p->gpu_names ? p->gpu_names : "-");
		out_str(o, OUT_ANY, "description", " %s\n", p->description);
		out_obj_close(o);
	}
	out_arr_close(o);
}

void cd_report_rules(struct cd_out *o, const struct cd_catalog *c)
{
	out_str(o, OUT_JSON, "profile", NULL, c->profile);
	out_text(o, "profile %s", c->profile ? c->profile : "none");
	out_str(o, OUT_ANY, "profile_reason", " (%s)\n", c->profile_reason);
	out_arr_open(o, "sources");
	for (size_t i = 0; i < c->sources.n; i++)
		out_str(o, OUT_JSON, NULL, NULL, c->sources.v[i]);
	out_arr_close(o);
	out_text(o, "thresholds from");
	for (size_t i = 0; i < c->sources.n; i++)
		out_text(o, "%s%s", i ? " \u00b7 " : " ", c->sources.v[i]);
	out_nl(o);
	render_rule_list(o, c);
	out_text(o, "\n# thresholds (%zu)\n", c->n_thresholds);
	out_arr_open(o, "thresholds");
	for (size_t k = 0; k < c->n_thresholds; k++)
		render_threshold(o, &c->thresholds[k], "  %-34s %-14s %s\n");
	out_arr_close(o);
	render_profiles(o, c);
}

/* `advise --explain`: the tree itself, one node a line, in walking order. */
void cd_report_tree(struct cd_out *o, const struct cd_catalog *c)
{
	out_text(o, "# decision tree (%zu nodes; job questions once, host questions for every host)\n", c->n_nodes);
	out_arr_open(o, "tree");
	for (size_t i = 0; i < c->n_nodes; i++) {
		const struct cd_cat_node *x = &c->nodes[i];

		if (x->topic)
			out_text(o, "\n## %s (%s)\n", x->topic, x->job ? "job" : "each host");
		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "name", "  %-22s", x->name);
		out_str(o, OUT_JSON, "scope", NULL, x->job ? "job" : "host");
		out_str(o, OUT_JSON, "topic", NULL, x->topic);
		out_str(o, OUT_JSON, "kind", NULL, x->leaf ? "leaf" : "question");
		out_str(o, OUT_ANY, "text", x->leaf ? " => %s" : " %s", x->text);
		if (x->leaf) {
			out_str(o, OUT_ANY, "next", "  then %s", x->next ? x->next : "end");
		} else {
			out_str(o, OUT_ANY, "yes", "  yes: %s", x->yes ? x->yes : "end");
			out_str(o, OUT_ANY, "no", "  no: %s", x->no ? x->no : "end");
		}
		out_nl(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}
