/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What main.c and the commands share: the parsed command line (struct ctx), the exit codes,
 * the run's phases and the output sink. main.c parses and dispatches; cmd_check.c runs the
 * pipeline (discover, probe, judge, advise, report) for check, probe, topo, score and report;
 * cmd_tools.c has advise, env, explain, import, rules and version; cmd_hang.c has hang; sink.c
 * writes -o files.
 */
#ifndef CD_CMD_H
#define CD_CMD_H

#include "conf.h"
#include "discover.h"
#include "out.h"
#include "results.h"

#define EXIT_FINDINGS 1
#define EXIT_USAGE 2
#define EXIT_RUNTIME 3
#define DEFAULT_TIMEOUT_S 120.0
#define MAX_REPEAT 64 /* --rules and -D occurrences */

/* Which commands an option applies to. */
#define C_CHECK (1u << 0)
#define C_TOPO (1u << 1)
#define C_REPORT (1u << 2)
#define C_VERSION (1u << 3)
#define C_HELP (1u << 4)
#define C_PROBE (1u << 5)
#define C_RULES (1u << 6)
#define C_SCORE (1u << 7)
#define C_ADVISE (1u << 8)
#define C_ENV (1u << 9)
#define C_EXPLAIN (1u << 10)
#define C_IMPORT (1u << 11)
#define C_HANG (1u << 12)
#define C_COMPARE (1u << 13)
#define C_MERGE (1u << 20) /* a bit far from the others': commands added beside it take the next ones */
#define C_ALL (~0u)
/* the commands that take positional arguments */
/* the global options: every command that writes a report takes them */
#define C_GLOBAL (C_CHECK | C_TOPO | C_REPORT | C_VERSION | C_PROBE | C_RULES | C_SCORE | C_ADVISE | C_ENV | C_EXPLAIN | \
		  C_IMPORT | C_HANG | C_COMPARE | C_MERGE)
/* the commands that judge, and so take thresholds */
#define C_JUDGE (C_CHECK | C_PROBE | C_SCORE | C_RULES | C_ADVISE | C_IMPORT | C_COMPARE | C_MERGE)
/* the commands that render the results document (cd_report): the ones --format prometheus|html serve */
#define C_DOC (C_CHECK | C_TOPO | C_PROBE | C_REPORT | C_SCORE | C_IMPORT | C_HANG | C_COMPARE | C_MERGE)
/* the commands that take positional arguments */
#define C_ARGS (C_HELP | C_PROBE | C_RULES | C_SCORE | C_EXPLAIN | C_IMPORT | C_COMPARE | C_MERGE | C_HANG)
#define DEFAULT_PROBE_TIMEOUT_S 30.0

struct ctx {
	enum out_format format;
	int format_set;
	const char *output;
	int color;
	enum cd_severity fail_on;
	double timeout_s;
	const char *from;
	int tree;   /* advise --explain */
	int shell;  /* --shell: only the paste-able block */
	struct cd_discover_opts dopt;
	unsigned probe_set;         /* CD_SET_*: --quick, default, --full */
	const char *sweep[4];       /* -b -e -f -i as given */
	int warmup, iters;          /* -w -n; -1 = each probe's default */
	double probe_timeout_s;
	struct cd_conf_opts conf; /* --profile, --rules, -D */
	int pairs;                  /* --pairs: bad-node hunting by disjoint pairs */
	int reach_all;              /* --reach all: tcp.reach tests every pair (up to 64 hosts) */
	const char *collective;     /* import --collective: for a log that does not name its test */
	const char *ras;            /* hang --ras HOST:PORT; NULL: NCCL_RAS_ADDR, else localhost:28028 */
	double interval_s;          /* hang --interval: seconds between RAS queries */
	const char *baseline;       /* --baseline FILE: the document to compare with (check, score) */
	const char **fr;            /* hang --fr PATH: Flight Recorder dumps (files or folders) */
	int n_fr;
	const char **nodes;         /* hang --nodes PATH: documents of the job's nodes (files or folders) */
	int n_nodes;
	int check_host;             /* hang --check-host: check the named host here, or say how */
	int progress;               /* --progress 1, --no-progress 0, neither -1 */
	double t_start;             /* when the --timeout deadline was armed */
	char **args; /* positional arguments after the command */
	int nargs;
};

/* The -o temporary file, so a deadline or a signal never leaves half a report behind. */
extern char *volatile pending_tmp;

void say(const char *s);
void phase(int p);
#define PHASE_RAS 7 /* phases 7…12: hang's RAS steps (enum cd_ras_step), then between queries */
void stamp_stop(struct cd_results *r);
/* -o FILE can be written at all (its name, its kind); -1 after the message (exit 2). */
int cd_sink_check(const char *path);
int emit_report(struct ctx *c, void (*render)(struct cd_out *o, const void *arg), const void *arg);
void render_results(struct cd_out *o, const void *r);
void render_shell(struct cd_out *o, const void *r);
int deterministic(void);
void stamp(struct cd_results *r, const char *mode, const struct ctx *c);
int exit_for(const struct ctx *c, const struct cd_results *r);
/* The tail every judging command shares: the duration (unless deterministic), the report, then
 * the exit code of the findings (or the report's error). */
int report_and_exit_code(struct ctx *c, struct cd_results *r);
double report_margin(const struct ctx *c);
int lint_and_advise(struct cd_results *r, int local_conf);
int judge(struct ctx *c, struct cd_results *r, int local_conf);
int load_or_discover(struct ctx *c, struct cd_results *r, const char *mode);
int cmd_check(struct ctx *c);
int cmd_probe(struct ctx *c);
int cmd_topo(struct ctx *c);
int cmd_score(struct ctx *c);
int cmd_report(struct ctx *c);
int cmd_advise(struct ctx *c);
int cmd_env(struct ctx *c);
int cmd_explain(struct ctx *c);
int cmd_import(struct ctx *c);
int cmd_hang(struct ctx *c);
int cmd_compare(struct ctx *c);
/* Load --baseline's (or compare's OLD) document into *out (heap); EXIT_USAGE after the message. */
int load_baseline(const char *file, struct cd_results **out);
/* Hand a loaded baseline to r (which owns it from then on). */
void attach_baseline(struct cd_results *r, struct cd_results *base, const char *file);
int cmd_merge(struct ctx *c);
int cmd_rules(struct ctx *c);
int cmd_version(struct ctx *c);

#endif
