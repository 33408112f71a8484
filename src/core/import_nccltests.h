/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `commdiag import nccl-tests`: the output of NVIDIA's nccl-tests (the text a run
 * prints, or the JSON file of -J/--output_file) turned into nccl.<collective> probe
 * results, hosts and GPUs, so the rules, score and advice judge logs users already
 * have. Pure: text in, document out; nothing is printed here.
 */
#ifndef CD_IMPORT_NCCLTESTS_H
#define CD_IMPORT_NCCLTESTS_H

#include <stddef.h>

#include "results.h"

/* Lines longer than this are cut (and then rarely parse as a table row). */
#define CD_NT_LINE_MAX 4096

/* Is name a collective nccl-tests has a test for ("all_reduce", "alltoall", …)? */
int cd_nt_collective_valid(const char *name);
/* The names, comma-separated, for messages. */
const char *cd_nt_collective_list(void);

/*
 * Import one file's text (any bytes) into r: one cd_import record in r->run.imports,
 * hosts and GPUs from the "# Rank N … on HOST device D [BUS] NAME" lines, and per test
 * in the file an nccl.<collective> probe run per variant (out_of_place, in_place).
 * `name` names the file in the record and in messages ("stdin" for -). `collective`
 * (may be NULL) is used for a test whose log does not say which collective it ran;
 * without it the collective is told from the table (import_nccltests_infer.h), or the
 * candidates it cannot tell apart name the probe ("nccl.all_gather|alltoall").
 * Returns the number of size rows imported (0: nothing importable; r then has the
 * record but no probe), or -1 with *err set to a malloc'd "name:line: what was wrong"
 * (bad numbers, JSON of the wrong shape).
 */
int cd_import_nccltests(struct cd_results *r, const char *text, size_t len, const char *name, const char *collective,
			char **err);

/* A paste of a footer alone ("# Avg bus bandwidth : 123.4"): no rows, but a bus bandwidth it shows. */
int cd_import_footer_only(const struct cd_import *im);

#endif
