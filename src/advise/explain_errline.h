/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_EXPLAIN_ERRLINE_H
#define CD_EXPLAIN_ERRLINE_H

/*
 * Does a log line report an error in the way the libraries and runtimes print one (an error
 * level, a fatal abort, a failed call, a crash, the loader's refusal), whatever the library?
 * explain quotes the first such line of a log nothing explains, so an admin knows where to look.
 */
int cd_error_line(const char *line);

/*
 * Which library printed an error line: its key ("nccl", "torch", "ucx", "ofi", "ompi", "mpich",
 * "slurm"), or NULL where the line names none. The keys of a log nothing explains become its
 * LOG099 subject, in the order their first error appeared, and the decision tree answers each
 * with that library's own log switch (advise_job.c, l_collect): NCCL's INFO log does not show
 * why UCX or Open MPI failed.
 */
const char *cd_error_library(const char *line);

#endif
