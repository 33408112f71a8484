/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's reading of the cause catalogue (rules/causes.catalog, loaded and matched by
 * explain_catalog.c): each line, and the joins of a folded message, against every entry; at
 * the end, the entries the log shows become findings and advice, the more specific first, and
 * the consequences LOG097 weighs are noted. Split from explain.c in session 19 (layout limit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "explain_catalog.h"
#include "explain_fold.h"
#include "explain_state.h"
#include "util.h"

/* Does pattern (its key, for the quick no of the text's grams) match line? */
static int pattern_hit(const struct cd_grams *g, const struct cd_pattern_key *key, const char *pattern,
		       const char *line)
{
	return cd_grams_may_match(g, key) && cd_cause_match(pattern, line);
}

/* Entry e's requirements and rule-outs that text (with its grams g) meets: they hold for the whole log. */
static void entry_conditions(struct cause_seen *c, const struct cd_cause *e, const struct cd_grams *g, const char *text)
{
	for (int k = 0; k < e->n_require; k++)
		if (!(c->required & (1u << k)) && pattern_hit(g, &e->require_key[k], e->require[k], text))
			c->required |= 1u << k;
	for (int k = 0; k < e->n_rule_out && !c->ruled_out; k++)
		c->ruled_out = pattern_hit(g, &e->rule_out_key[k], e->rule_out[k], text);
}

/* Entry e matched text on this line: keep the line, its host and the text as evidence. 1 for an
 * entry that names a cause, 2 for LOG099's (a result code: an error, no cause). */
static int entry_hit(struct state *st, struct cause_seen *c, const struct cd_cause *e, const struct cd_host *h,
		     const char *text)
{
	c->last_line = st->lineno;
	if (c->hits < MAX_CLAIMED)
		c->lines[c->hits] = st->lineno;
	if (!c->hits++)
		snprintf(c->host, sizeof(c->host), "%s", h->hostname ? h->hostname : st->name);
	if (c->n_evidence < MAX_EVIDENCE)
		snprintf(c->evidence[c->n_evidence++], EVIDENCE_CHARS, "%s", text + strspn(text, " \t"));
	return strcmp(e->finding, "LOG099") ? 1 : 2;
}

/*
 * The patterns of a message folded over lines: a terminal folds at its width without a break
 * character, a mail reader at a space it drops. When this line can continue the long lines
 * before it, their joins (without and with a space) are read against every entry: its
 * requirements and rule-outs always (a folded line that requires or rules out a cause still
 * does), its matches where none of the pieces nor this line matched it. Returns
 * catalogue_line's code for what the joins matched.
 */
static int catalogue_wrapped(struct state *st, const struct cd_host *h, const char *line)
{
	/* joined as a terminal folds (nothing between the pieces) and as a mail reader does (a space) */
	char joined[2][CD_FOLD_JOIN_MAX];
	struct cd_grams *g = st->grams + 1;
	int any = 0;

	if (!cd_fold_seamed(&st->fold))
		return 0;
	for (int j = 0; j < 2; j++) {
		cd_fold_join(&st->fold, line, j ? " " : "", joined[j], sizeof(joined[j]));
		cd_grams_fill(&g[j], joined[j]);
	}
	for (size_t i = 0; st->causes && i < st->causes->n; i++) {
		const struct cd_cause *e = &st->causes->v[i];
		struct cause_seen *c = &st->seen[i];
		int hit = 0;

		/* a piece or this line matched it: a match of the join would only repeat that one */
		int matched = c->last_line >= st->lineno - st->fold.pieces;

		for (int j = 0; j < 2; j++) {
			for (int k = 0; k < e->n_match && !hit && !matched; k++)
				hit = pattern_hit(&g[j], &e->match_key[k], e->match[k], joined[j]);
			entry_conditions(c, e, &g[j], joined[j]);
		}
		if (hit)
			any |= entry_hit(st, c, e, h, joined[0]);
	}
	return any & 1 ? 1 : any;
}

/*
 * Read one line against every entry: its matches, requirements, rule-outs and confirmations.
 * 1: an entry that names a cause matched; 2: only LOG099's (a result code: an error, no cause).
 */
int explain_catalogue_line(struct state *st, const struct cd_host *h, const char *line)
{
	struct cd_grams *g = st->grams;
	int any = 0;

	cd_grams_fill(g, line);
	for (size_t i = 0; st->causes && i < st->causes->n; i++) {
		const struct cd_cause *e = &st->causes->v[i];
		struct cause_seen *c = &st->seen[i];
		int hit = 0;

		for (int k = 0; k < e->n_match && !hit; k++)
			hit = pattern_hit(g, &e->match_key[k], e->match[k], line);
		entry_conditions(c, e, g, line);
		for (int k = 0; k < e->n_confirm; k++)
			if (pattern_hit(g, &e->confirm_key[k], e->confirm[k], line) && c->confirms++ < 1 &&
			    c->n_evidence < MAX_EVIDENCE)
				snprintf(c->evidence[c->n_evidence++], EVIDENCE_CHARS, "confirms: %s", line);
		if (hit)
			any |= entry_hit(st, c, e, h, line);
	}
	return any & 1 ? 1 : any | catalogue_wrapped(st, h, line);
}

/*
 * Were all of entry i's lines matched by an earlier entry that holds? Then that one, more
 * specific, names their cause, and i would only repeat it vaguer.
 */
static int lines_claimed(const struct state *st, size_t i, const int *holds)
{
	const struct cause_seen *c = &st->seen[i];

	if (c->hits > MAX_CLAIMED || c->confirms)
		return 0; /* a line that confirms it says more than the earlier entry knew */
	for (int k = 0; k < c->hits; k++) {
		int claimed = 0;

		for (size_t j = 0; j < i && !claimed; j++)
			for (int m = 0; holds[j] && m < st->seen[j].hits && m < MAX_CLAIMED && !claimed; m++)
				claimed = st->seen[j].lines[m] == c->lines[k];
		if (!claimed)
			return 0;
	}
	return 1;
}

/* Does the log show this entry's cause: a match, every requirement, nothing that rules it out? */
static int cause_holds(const struct state *st, size_t i)
{
	const struct cd_cause *e = &st->causes->v[i];
	const struct cause_seen *c = &st->seen[i];

	return c->hits && !c->ruled_out && c->required == (1u << e->n_require) - 1;
}

int explain_finding_in_log(const struct state *st, const char *id)
{
	for (size_t i = st->first_finding; i < st->r->n_findings; i++)
		if (!strcmp(st->r->findings[i].id, id))
			return 1;
	return 0;
}

/* The catalogue's own fix: an export or an action, citing the entry and its source. */
static void catalogue_advice(struct state *st, const struct cd_cause *e, const struct cause_seen *c)
{
	struct cd_results *r = st->r;
	struct cd_advice *a;
	char *env = e->env ? xstrdup(e->env) : NULL, *value = env ? strchr(env, '=') : NULL;

	if (value)
		*value++ = '\0';
	for (size_t i = 0; i < r->n_advice; i++)
		if ((env ? r->advice[i].env && !strcmp(r->advice[i].env, env) : !r->advice[i].env) && r->advice[i].value &&
		    !strcmp(r->advice[i].value, value ? value : e->fix)) {
			free(env);
			return;
		}
	a = cd_results_add_advice(r);
	a->env = env;
	a->value = xstrdup(value ? value : e->fix);
	cd_strv_push(&a->findings, e->finding);
	{
		char *step = xasprintf("cause catalogue [%s]: %s, %s (%d line%s%s)", e->id, e->library, e->cls, c->hits,
				       c->hits == 1 ? "" : "s", c->confirms ? ", confirmed" : "");

		cd_strv_push(&a->path, step);
		free(step);
	}
	a->why = value ? xasprintf("%s; %s", e->why, e->fix) : xstrdup(e->why);
}

/*
 * The entries the log shows become findings and, where the tree has no leaf for them,
 * advice, in the catalogue's order (the more specific first). An entry that only names
 * a consequence (generic) counts only when nothing specific was found.
 */
void explain_catalogue_finish(struct state *st)
{
	int specific = 0, *holds;

	if (!st->causes)
		return;
	holds = xcalloc(st->causes->n + 1, sizeof(*holds));
	for (size_t i = 0; i < st->causes->n; i++) {
		holds[i] = cause_holds(st, i);
		if (holds[i] && lines_claimed(st, i, holds))
			holds[i] = 0;
		specific |= holds[i] && !st->causes->v[i].generic;
	}
	/* two passes: an entry a confirming line supports speaks before the unconfirmed ones */
	for (size_t n = 0; n < 2 * st->causes->n; n++) {
		size_t i = n % st->causes->n;
		const struct cd_cause *e = &st->causes->v[i];
		const struct cause_seen *c = &st->seen[i];

		if ((n < st->causes->n) != (c->confirms > 0))
			continue;
		if (!holds[i] || (e->generic && specific) || !strcmp(e->finding, "LOG099"))
			continue; /* LOG099's entries speak only where nothing explains the log (finish) */
		if (!explain_finding_in_log(st, e->finding)) {
			size_t before = st->r->n_findings;
			struct cd_host *h = explain_host_named(st, c->host);
			struct cd_finding *f = explain_log_finding(st, e->finding, e->severity, h, NULL,
								   e->title ? e->title : e->id, NULL);

			if (e->generic && e->severity == CD_SEV_FAIL && strcmp(e->finding, "LOG098") &&
			    st->r->n_findings > before && st->n_consequence < MAX_FINDINGS)
				st->consequence[st->n_consequence++] = before;

			for (int k = 0; f && k < c->n_evidence; k++)
				cd_finding_evidence(f, "%s", c->evidence[k]);
			if (f)
				cd_finding_evidence(f, "cause catalogue [%s]: %s %s; %s", e->id, e->library, e->versions, e->source);
		}
		if (!e->tree)
			catalogue_advice(st, e, c);
	}
	free(holds);
}

/*
 * What the catalogue says of an error that names no cause (an ncclResult_t PyTorch
 * raised): what the code means, as evidence, and what to collect next, as advice.
 */
void explain_catalogue_unexplained(struct state *st, struct cd_finding *f)
{
	for (size_t i = 0; f && st->causes && i < st->causes->n; i++) {
		const struct cd_cause *e = &st->causes->v[i];

		if (strcmp(e->finding, "LOG099") || !cause_holds(st, i))
			continue;
		cd_finding_evidence(f, "cause catalogue [%s]: %s", e->id, e->why);
		catalogue_advice(st, e, &st->seen[i]);
	}
}

int cd_explain_note(const char *evidence)
{
	return !strncmp(evidence, "cause catalogue [", 17) || !strncmp(evidence, "confirms: ", 10);
}
