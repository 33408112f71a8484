/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_SYSTEM_H
#define CD_SYSTEM_H

#include "results.h"

/* Is this variable part of the communication stack's configuration (NCCL_*, OMPI_MCA_*, …)? */
int cd_system_is_comm_env(const char *name);
/* Copy the communication variables of envp into h->env, sorted by name. */
void cd_system_snapshot_env(struct cd_host *h, char **envp);

#endif
