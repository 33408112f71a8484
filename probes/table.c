/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl-tests' idea, one binary: every probe commdiag has, in the order they run. */
#include "probe.h"
#include "util.h"

extern const struct cd_probe_def cd_probe_copy_h2d, cd_probe_copy_d2h, cd_probe_copy_d2d, cd_probe_copy_bidir;
extern const struct cd_probe_def cd_probe_tcp_reach, cd_probe_tcp_bw;
extern const struct cd_probe_def cd_probe_mpi_latency, cd_probe_mpi_bw, cd_probe_mpi_allreduce;

static const struct cd_probe_def *const table[] = {
	&cd_probe_copy_h2d,
	&cd_probe_copy_d2h,
	&cd_probe_copy_d2d,
	&cd_probe_copy_bidir,
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
