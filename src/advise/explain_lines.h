/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a launcher, a logger or a terminal put in front of a log line, told apart from the
 * line: explain's readers and the cause catalogue see the program's own text, and the
 * prefix that names a rank, a pod or a process (srun --label, mpirun --tag-output,
 * torchrun's tee, Ray, kubectl --prefix, docker compose, syslog and journald) keeps the
 * lines of one rank together when many ranks print into one log.
 */
#ifndef CD_EXPLAIN_LINES_H
#define CD_EXPLAIN_LINES_H

#include <stddef.h>

/*
 * The length of the decorations at the start of line (0: none), each layer in turn (a
 * timestamp, then a rank label, …); stream gets the parts that name whose line it is, such
 * as "srun 3" or "pod/trainer-0/pytorch" ("" when no layer names one).
 */
size_t cd_explain_decorations(const char *line, char *stream, size_t len);

#endif
