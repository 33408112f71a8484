/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_RULES_HOSTS_H
#define CD_RULES_HOSTS_H

#include <stddef.h>

#include "results.h"

/* A rule over the whole job (every host, rank, reach attempt), not one host. */
struct cd_xrule {
	const char *id;      /* "HOST001", "MPI003", "NET001" */
	const char *group;
	const char *summary;
	int (*check)(struct cd_results *r); /* appends findings; returns how many */
};

const struct cd_xrule *cd_rules_hosts_table(size_t *n);
/* Run the cross-host rules (called once by cd_rules_evaluate); returns the number of findings. */
int cd_rules_hosts_evaluate(struct cd_results *r);

#endif
