/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests' idea, one binary: every probe commdiag has, in the order they run. */
#include "probe.h"
#include "util.h"

extern const struct cd_probe_def cd_probe_copy_h2d, cd_probe_copy_d2h, cd_probe_copy_d2d, cd_probe_copy_bidir;
extern const struct cd_probe_def cd_probe_p2p_bw, cd_probe_p2p_latency;
extern const struct cd_probe_def cd_probe_nccl_init, cd_probe_nccl_all_reduce, cd_probe_nccl_all_gather,
	cd_probe_nccl_reduce_scatter, cd_probe_nccl_broadcast, cd_probe_nccl_reduce, cd_probe_nccl_alltoall,
	cd_probe_nccl_sendrecv, cd_probe_nccl_pairs;
extern const struct cd_probe_def cd_probe_tcp_reach, cd_probe_tcp_bw;
extern const struct cd_probe_def cd_probe_mpi_latency, cd_probe_mpi_bw, cd_probe_mpi_allreduce;

static const struct cd_probe_def *const table[] = {
	&cd_probe_copy_h2d,
	&cd_probe_copy_d2h,
	&cd_probe_copy_d2d,
	&cd_probe_copy_bidir,
	&cd_probe_p2p_bw,
	&cd_probe_p2p_latency,
	/* nccl.init first: the collectives share its communicators */
	&cd_probe_nccl_init,
	&cd_probe_nccl_all_reduce,
	&cd_probe_nccl_all_gather,
	&cd_probe_nccl_reduce_scatter,
	&cd_probe_nccl_broadcast,
	&cd_probe_nccl_reduce,
	&cd_probe_nccl_alltoall,
	&cd_probe_nccl_sendrecv,
	&cd_probe_nccl_pairs,
	&cd_probe_tcp_reach,
	&cd_probe_tcp_bw,
	&cd_probe_mpi_latency,
	&cd_probe_mpi_bw,
	&cd_probe_mpi_allreduce,
};

const struct cd_probe_def *const *cd_probe_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}
