/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's cause catalogue (rules/causes.catalog, private to explain.c and its vet): what the
 * libraries print when a job fails, as data. Each entry is a message pattern in the
 * library's own printf format, where it comes from, the cause it names, the LOG finding
 * it becomes and the fix with its evidence. The loader refuses a malformed file with its
 * name and line; the matcher is bounded, so no line can make it run away.
 */
#ifndef CD_EXPLAIN_CATALOG_H
#define CD_EXPLAIN_CATALOG_H

#include <stddef.h>

#include "results.h"

#define CD_CAUSE_MAX_PATTERNS 8 /* match, require, rule_out or confirm lines per entry */

/*
 * A quick no for a pattern and a text: a pattern matches only where its literal head (the text
 * before its first conversion) is in the text whole, so a 4-byte piece of the head that the
 * text lacks rules the pattern out before the matcher runs. A text's 4-byte pieces are kept as
 * bits of their hash (cd_grams), a pattern's as up to two hashes (cd_pattern_key). No false no:
 * a bit set by another piece only lets the matcher decide.
 */
#define CD_GRAM_BITS 32768
struct cd_grams {
	unsigned long long w[CD_GRAM_BITS / 64];
};
struct cd_pattern_key {
	unsigned k[2];
	int n; /* 0: a head shorter than 4 bytes, the matcher always decides */
};
void cd_grams_fill(struct cd_grams *g, const char *text);
struct cd_pattern_key cd_pattern_key(const char *pattern);
int cd_grams_may_match(const struct cd_grams *g, const struct cd_pattern_key *key);

struct cd_cause {
	char *id;                                  /* the [section] name */
	int line;                                  /* where the section starts */
	char *match[CD_CAUSE_MAX_PATTERNS];        /* any one of them */
	char *require[CD_CAUSE_MAX_PATTERNS];      /* all of them, anywhere in the log */
	char *rule_out[CD_CAUSE_MAX_PATTERNS];     /* any one rules the entry out */
	char *confirm[CD_CAUSE_MAX_PATTERNS];      /* evidence for it */
	int n_match, n_require, n_rule_out, n_confirm;
	struct cd_pattern_key match_key[CD_CAUSE_MAX_PATTERNS], require_key[CD_CAUSE_MAX_PATTERNS];
	struct cd_pattern_key rule_out_key[CD_CAUSE_MAX_PATTERNS], confirm_key[CD_CAUSE_MAX_PATTERNS];
	char *library, *versions, *source, *cls;   /* source: its lines joined with "; " */
	char *finding, *title, *fix, *env, *why;   /* env: "NAME=VALUE" or NULL */
	enum cd_severity severity;
	int generic;                               /* a consequence: only when nothing specific matched */
	int tree;                                  /* the decision tree gives the fix from the finding */
};

/* The most entries a catalogue may hold: a bound on a file the user may override, well above
 * the embedded one (about 900 entries, session 17). Spelt out once, as text for the error too. */
#define CD_CAUSES_MAX_TEXT "4096"
#define CD_CAUSES_MAX 4096

struct cd_causes {
	struct cd_cause *v;
	size_t n, cap;
};

/*
 * Parse a catalogue; name is what errors quote ("causes.catalog:12: …"). Returns 0, or
 * -1 after printing the error (c then holds nothing).
 */
int cd_causes_parse(struct cd_causes *c, const char *text, size_t len, const char *name);
void cd_causes_free(struct cd_causes *c);

/*
 * The catalogue explain uses: the file COMMDIAG_CAUSES names, else the embedded one,
 * loaded once. NULL after printing why when it is malformed or cannot be read.
 */
const struct cd_causes *cd_causes_default(void);

/* Does pattern occur anywhere in line? (the catalogue's printf-format syntax) */
int cd_cause_match(const char *pattern, const char *line);

#endif
