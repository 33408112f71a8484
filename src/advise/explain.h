/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `commdiag explain`: NCCL (NCCL_DEBUG=INFO/WARN), PyTorch and Open MPI log lines
 * turned into facts (hosts, NCCL version, interfaces and HCAs NCCL used, the
 * environment it reported) and LOG### findings, so the advisor's tree can walk
 * them exactly as it walks a discovered host.
 */
#ifndef CD_EXPLAIN_H
#define CD_EXPLAIN_H

#include <stddef.h>

#include "results.h"

/* Lines longer than this are cut; a log is read as text whatever bytes it holds. */
#define CD_EXPLAIN_LINE_MAX 4096

/*
 * Parse one log (any bytes; NUL and invalid UTF-8 are fine) into r: hosts named by
 * the "host:pid:tid" prefixes (lines without one go to a host called `name`),
 * facts, and findings. Several logs may be parsed into one document. Never fails;
 * returns how many lines it recognised.
 */
int cd_explain_parse(struct cd_results *r, const char *text, size_t len, const char *name);

/*
 * Load the cause catalogue (rules/causes.catalog, or the file COMMDIAG_CAUSES names)
 * before parsing; -1 after printing file:line and what was expected when it is malformed.
 * Without it cd_explain_parse still reads the lines explain knows by itself.
 */
int cd_explain_init(void);

/*
 * After the tree (explain_vet.c): drop every setting that picks a network unless a finding
 * shows that network failing: socket interfaces only after a socket error, HCAs, GID index
 * and rails only after an RDMA error. The tree reads facts; a RoCE HCA or an address in a
 * log is a fact, not a failure, and must not by itself yield a setting; nor is a connection a
 * peer closed after a cause that is not the network (a release bug, a GPU fault, a kill).
 */
void cd_explain_vet(struct cd_results *r);

/*
 * Is this evidence line one of explain's own notes on a catalogue entry ("cause catalogue
 * [id]: …", "confirms: …", written by explain_cause.c) rather than a line of the log?
 */
int cd_explain_note(const char *evidence);

#endif
