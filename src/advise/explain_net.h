/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reasoning across the lines of a log about an RDMA failure: what each host's NCCL INFO
 * lines say of its fabric (link layer, GID index in use, MTU, GPUDirect RDMA, ACS and
 * IOMMU hints) weighed against the errors (completion status, queue-pair timeouts, async
 * events), giving candidate causes with the evidence for and against each, best first.
 */
#ifndef CD_EXPLAIN_NET_H
#define CD_EXPLAIN_NET_H

#include "results.h"

struct cd_net;

struct cd_net *cd_net_new(void);
void cd_net_free(struct cd_net *n);

/* One log line of host `host` (the name explain gave it). */
void cd_net_line(struct cd_net *n, const char *host, const char *line);

/*
 * After the last line: when the log shows an RDMA error, return the best supported
 * candidate's name (the LOG030 finding's subject) and, when f is not NULL, write the
 * candidates into its evidence, best first, each with its "for:" and "against:" lines;
 * NULL, and f untouched, when there is no RDMA error or every candidate is ruled out.
 */
const char *cd_net_candidates(const struct cd_net *n, struct cd_finding *f);

/*
 * The MTU each host's QP lines report, onto the port of the HCA NCCL numbered so (the
 * order of its "NET/IB : Using" list, which is the order explain added the HCAs in).
 */
void cd_net_to_hosts(const struct cd_net *n, struct cd_results *r);

/* Does the log show an RDMA error the candidates are about? */
int cd_net_has_error(const struct cd_net *n);

/*
 * After the tree: the best candidate's fix first (moved up, or added), and no GID advice
 * where the log proves the ports InfiniBand.
 */
void cd_net_order_advice(struct cd_results *r);

#endif
