/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The advisor: a decision tree, kept as a static node table, walked over the
 * facts and findings of a document. Each leaf appends advice whose value is
 * computed from that document (an interface that reaches every host, the GID
 * index of that port, the bridges with ACS on), the findings it answers and the
 * questions walked to reach it. `check` and `explain` walk the same tree, so the
 * same cause gets the same advice whether it came from discovery or from a log.
 */
#ifndef CD_ADVISE_H
#define CD_ADVISE_H

#include "results.h"

/* Scope of a node: asked once for the job, or once for every host. */
enum cd_advise_scope { CD_SCOPE_JOB, CD_SCOPE_HOST };

struct cd_walk; /* the state of one walk, private to advise.c */

struct cd_advise_node {
	const char *name;       /* stable short name, e.g. "iface.job" */
	const char *text;       /* question, or for a leaf what it advises */
	enum cd_advise_scope scope;
	const char *topic;      /* set on the first question of a topic: the path restarts there */
	int (*test)(struct cd_walk *w);  /* a question: yes (1) or no (0) */
	void (*act)(struct cd_walk *w);  /* a leaf: appends advice */
	int yes, no;            /* questions: the next node; -1 ends the walk */
	int next;               /* leaves: where the walk goes on; -1 ends it */
};

/* The tree, for `advise --explain`. */
const struct cd_advise_node *cd_advise_tree(size_t *n);

/*
 * Walk the tree over r and append advice (identical items are merged).
 * Returns the number of advice items added.
 */
int cd_advise(struct cd_results *r);

struct cd_catalog;
/* The tree's nodes, in walking order, for `advise --explain`. */
void cd_advise_catalog(struct cd_catalog *cat);

#endif
