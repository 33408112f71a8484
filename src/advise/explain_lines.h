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

/*
 * The host a line names in the prefix its program printed (under the decorations): NCCL's
 * "host:pid:tid [dev]" anywhere in it, Open MPI's "[host:pid]" or "[host][[job,vpid],rank]" and
 * UCX's "[host:pid:thread]" among its first brackets, nccl-tests' "host: Test … failure". 1 and
 * host filled when it names one; 0 and host untouched when not.
 */
int cd_explain_host_prefix(const char *line, char *host, size_t len);

/* A host name's characters, an address's (IPv4 or IPv6); the token at p made of chars ok()
 * accepts, copied into buf (bounded). */
int cd_explain_hostchar(int c);
int cd_explain_addrchar(int c);
size_t cd_explain_token(const char *p, int (*ok)(int), char *buf, size_t len);

#endif
