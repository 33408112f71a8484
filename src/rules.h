/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_RULES_H
#define CD_RULES_H

#include "results.h"

struct cd_rule {
	const char *id;      /* stable, never reused: "NET002" */
	const char *group;   /* "system", "net", "ib", "gpu", … */
	const char *summary; /* what it checks, for `commdiag help` and the man page */
	/* Append the findings of one host; return how many. */
	int (*check)(struct cd_results *r, const struct cd_host *h);
};

const struct cd_rule *cd_rules_table(size_t *n);
/* Run every rule over every host; returns the number of findings added. */
int cd_rules_evaluate(struct cd_results *r);
/* Administratively up and operationally up (or "unknown", as virtual devices report). */
int cd_nic_is_up(const struct cd_nic *n);

#endif
