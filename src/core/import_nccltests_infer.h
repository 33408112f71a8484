/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which collective an nccl-tests table measured, told from the table itself when the
 * log does not name it (a pasted table, without the command line or the "Collective
 * test starting" line). Private to import_nccltests.c.
 */
#ifndef CD_IMPORT_NCCLTESTS_INFER_H
#define CD_IMPORT_NCCLTESTS_INFER_H

#include <stddef.h>
#include <stdint.h>

/* One size row as printed, with how precisely it was printed. */
struct cd_nt_obs_row {
	int64_t bytes;            /* the size column */
	int64_t count;            /* the count column */
	int tsize;                /* bytes of the type column's type; 0 when the type is not known */
	double alg, bus;          /* algbw and busbw, GB/s */
	double alg_tol, bus_tol;  /* half a unit of the last digit printed */
};

/* What a test's table shows. */
struct cd_nt_obs {
	int redop;                /* 1: a reduction ("sum", …); 0: "none", or a redop field left empty; -1: no redop word */
	int redop_heading;        /* the column names list "redop": 1 yes, 0 no, -1 no names line seen */
	const char *redop_name;   /* as printed, for the message; may be NULL */
	int root;                 /* -1: no root column; 0: root printed as -1; 1: a root rank (>= 0) */
	int modern;               /* 1: the log shows nccl-tests 2.10+ ("Group" in the rank lines); 0: rank lines
	                           * without it (older); -1: no rank lines */
	int64_t ranks;            /* ranks the "# Rank N …" lines name; 0 when there are none */
	const struct cd_nt_obs_row *rows;
	size_t n_rows;
};

/* The answer: one collective, or the ones the table cannot tell apart. */
struct cd_nt_guess {
	char coll[128];           /* "all_reduce", or candidates joined by '|': "all_gather|alltoall" */
	int n_cands;              /* 1: told; more: that many candidates */
	int64_t ranks;            /* the rank count the numbers imply; 0 when they do not say */
	char how[512];            /* the evidence, for the document ("busbw/algbw 1.75 = 2(n-1)/n, n = 8; …") */
};

/* Never fails: with no evidence at all every collective with a bus bandwidth stays a candidate. */
void cd_nt_infer(const struct cd_nt_obs *o, struct cd_nt_guess *g);

/* Bytes per element of an nccl-tests type name ("float" 4, "bfloat16" 2, …); 0 when unknown. */
int cd_nt_type_size(const char *type);

/* Half a unit of the last digit a number was printed with ("1.50" 0.005, "1234.5" 0.05, "1e+03" 500). */
double cd_nt_print_tol(const char *token);

#endif
