/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's version knowledge (rules/versions.catalog, private to explain.c; the table in
 * explain_versions_table.c, the log's side in explain_versions.c): which GPU
 * architectures each NCCL release's build targets under which CUDA, what NCCL asks of the
 * CUDA driver, which Linux driver each CUDA major release needs. The reader collects the
 * versions a log shows per host (NCCL's "NCCL version 2.x.y+cudaX.Y" and "cudaDriverVersion",
 * nvidia-smi's header, PyTorch's collect_env and capability warnings, NCCL's topology dump)
 * and the judge compares them with the table. Versions are integers: NCCL 2.21.5 is 22105,
 * CUDA 12.4 is 12040 (cudaDriverGetVersion()'s form).
 */
#ifndef CD_EXPLAIN_VERSIONS_H
#define CD_EXPLAIN_VERSIONS_H

#include <stddef.h>

#include "results.h"

#define CD_VERS_MAX_SM 16

enum cd_vers_kind { CD_VERS_BUILD, CD_VERS_NCCL_DRIVER, CD_VERS_CUDA_DRIVER, CD_VERS_HEADER };

struct cd_vers_row {
	enum cd_vers_kind kind;
	int line;                 /* in the file, for evidence and errors */
	int first, last;          /* NCCL releases (build, nccl-driver) */
	int cuda_from, cuda_below; /* build: [from, below), below -1 when open */
	int sm[CD_VERS_MAX_SM];   /* build: SASS targets, 90 = sm_90 */
	int n_sm, ptx;            /* build: compute_PTX */
	int min_api;              /* nccl-driver: cuDriverGetVersion() minimum; header: CUDA_VERSION */
	char what[32];            /* nccl-driver: "init" or the feature */
	int major;                /* cuda-driver */
	char min_driver[32];      /* cuda-driver: "450.80.02" */
	char *source;
};

struct cd_vers_db {
	struct cd_vers_row *v;
	size_t n, cap;
	char *name;               /* "versions.catalog" or the COMMDIAG_VERSIONS path */
};

/* Parse a table; name is what errors quote. 0, or -1 after printing "name:LINE: ..." (db then empty). */
int cd_vers_parse(struct cd_vers_db *db, const char *text, size_t len, const char *name);
void cd_vers_free(struct cd_vers_db *db);

/* The table explain uses: COMMDIAG_VERSIONS's file, else the embedded one; loaded once. NULL after printing why. */
const struct cd_vers_db *cd_vers_default(void);

/* ---- lookups ---- */

/* The build row of NCCL release nccl built with CUDA cuda; NULL when the table does not cover it. */
const struct cd_vers_row *cd_vers_build(const struct cd_vers_db *db, int nccl, int cuda);
/* Can a build run on sm? 2: machine code for it (same major, minor no newer), 1: only through PTX, 0: no. */
int cd_vers_runs_on(const struct cd_vers_row *build, int sm);
/* The earliest NCCL release whose build has machine code for sm, with the lowest CUDA that gives it; NULL: none. */
const struct cd_vers_row *cd_vers_first_for(const struct cd_vers_db *db, int sm);
/* The newest build row with machine code for sm (for an architecture a build dropped); NULL: none. */
const struct cd_vers_row *cd_vers_last_for(const struct cd_vers_db *db, int sm);
/* The cuda-driver row of a CUDA major release; NULL when unknown. */
const struct cd_vers_row *cd_vers_cuda_driver(const struct cd_vers_db *db, int major);
/* The strictest nccl-driver row of what ("init") that applies to release nccl; NULL: none. */
const struct cd_vers_row *cd_vers_nccl_driver(const struct cd_vers_db *db, int nccl, const char *what);
/* Compare driver versions "535.104.05" numerically field by field: <0, 0, >0. */
int cd_vers_driver_cmp(const char *a, const char *b);
/* Does machine code for target (90 = sm_90) run on sm? Same major release, minor no newer. */
int cd_vers_sass_runs(int target, int sm);

/* ---- numbers, as the table and the logs write them ---- */

/* "2.21.5" → 22105, *end after it; -1 when it is not three small numbers. */
int cd_vers_nccl_code(const char *s, const char **end);
/* "12.4" → 12040 (cudaDriverGetVersion()'s form), *end after it (end may be NULL); -1 when not major.minor. */
int cd_vers_cuda_code(const char *s, const char **end);
/* Is s[0..n) a driver version "535.104.05": one to three dot-separated numbers, the first at least 100? */
int cd_vers_driver_ok(const char *s, size_t n);

/* ---- what a log shows ---- */

struct cd_vers_log;

/* One verdict for explain to turn into a finding (and, with a fix, advice). */
struct cd_vers_verdict {
	const char *id;           /* "LOG024", "LOG009" */
	enum cd_severity sev;
	char host[128], subject[48], title[200];
	char evidence[4][240];
	int n_evidence;
	char fix[320], why[320]; /* fix empty: no advice */
	char path[160];          /* which rows decided it */
};

struct cd_vers_log *cd_vers_log_new(void);
void cd_vers_log_free(struct cd_vers_log *l);
/*
 * Read one log line of host (unprefixed: the line named no host, so what it shows holds for
 * every host of the log); 1 when it showed a version, architecture or driver.
 */
int cd_vers_log_line(struct cd_vers_log *l, const char *host, int unprefixed, const char *line);
/* Compare what the log showed with the table; fills up to max verdicts and returns how many. */
size_t cd_vers_judge(const struct cd_vers_log *l, const struct cd_vers_db *db, struct cd_vers_verdict *out, size_t max);

#endif
