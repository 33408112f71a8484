/* SPDX-License-Identifier: BSD-3-Clause */
/* The pipeline: discover (or load), probe, judge, advise, report; check, probe, topo, score, report. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#ifdef CD_HAVE_MPI
#include <mpi.h>
#define MPI_VERSION_LEN MPI_MAX_LIBRARY_VERSION_STRING
#else
#define MPI_VERSION_LEN 1
#endif

#include "advise.h"
#include "catalog.h"
#include "conf.h"
#include "discover.h"
#include "envlint.h"
#include "explain.h"
#include "fault.h"
#include "import_nccltests.h"
#include "dist.h"
#include "out.h"
#include "probe.h"
#include "progress.h"
#include "reach.h"
#include "report.h"
#include "results.h"
#include "rules.h"
#include "rules_hosts.h"
#include "score.h"

#include "cmd.h"

void render_results(struct cd_out *o, const void *r)
{
	cd_report(o, r);
}

void render_shell(struct cd_out *o, const void *r)
{
	cd_report_shell(o, r);
}

/* ---- commands ---- */

int deterministic(void)
{
	const char *det = getenv("COMMDIAG_DETERMINISTIC");

	return det && *det && strcmp(det, "0");
}

void stamp(struct cd_results *r, const char *mode, const struct ctx *c)
{
	free(r->tool_version);
	r->tool_version = xstrdup(CD_VERSION);
	free(r->run.mode);
	r->run.mode = xstrdup(mode);
	r->run.timeout_s = c->timeout_s;
	if (!deterministic()) {
		char buf[32];
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
		free(r->run.started);
		r->run.started = xstrdup(buf);
	}
}

int exit_for(const struct ctx *c, const struct cd_results *r)
{
	int worst = cd_results_worst(r);

	return worst >= 0 && worst >= (int)c->fail_on ? EXIT_FINDINGS : 0;
}

int report_and_exit_code(struct ctx *c, struct cd_results *r)
{
	int rc;

	if (!deterministic())
		r->run.duration_s = cd_now_s() - c->t_start;
	phase(3);
	rc = emit_report(c, render_results, r);
	return rc ? rc : exit_for(c, r);
}

/*
 * The end of the run, as absolute cd_now_s() times before the --timeout alarm: the report
 * needs a margin, and under MPI the gather a slice before it; the other ranks wait for
 * rank 0's exit code until just before their own alarm.
 */
double report_margin(const struct ctx *c)
{
	return c->timeout_s * 0.1 < 2.0 ? c->timeout_s * 0.1 : 2.0;
}

/*
 * Stopped by SIGINT or SIGTERM under MPI (mpirun forwards SIGTERM to every rank when one
 * of them dies, and sends SIGKILL 1 s later): gather only what answers at once, so the
 * partial document, naming the ranks that did not, is out before then.
 */
#define STOP_GATHER_S 0.3

static double gather_deadline(const struct ctx *c)
{
	double end = c->t_start + c->timeout_s - report_margin(c);

	if (cd_stop && cd_stop != SIGALRM && cd_now_s() + STOP_GATHER_S < end)
		end = cd_now_s() + STOP_GATHER_S;
	return end;
}

static double probes_end(const struct ctx *c)
{
	double g = cd_dist_get()->mpi ? (c->timeout_s * 0.1 < 3.0 ? c->timeout_s * 0.1 : 3.0) : 0.0;

	return gather_deadline(c) - g;
}

/* The probes of this run: the selected ones (probe NAME…), or the set of check. */
static void run_probes(struct ctx *c, struct cd_results *r, struct cd_host *h, const int *selected)
{
	const struct cd_dist *d = cd_dist_get();
	struct cd_probe_ctx pc = { .r = r, .host = h, .nccl_lib = c->dopt.nccl_lib,
				   .warmup = c->warmup, .iters = c->iters, .budget_s = c->probe_timeout_s,
				   .set = c->probe_set, .rank = d->rank, .nranks = d->nranks,
				   .follower = d->local_rank != 0, .pairs = c->pairs,
				   .reach_all = c->reach_all };

	pc.end_s = probes_end(c);
	if (c->pairs)
		pc.set |= CD_SET_PAIRS;
	if (c->sweep[0] || c->sweep[1] || c->sweep[2] || c->sweep[3]) {
		/* validated in main() already */
		cd_sweep_init(&pc.sweep, c->sweep[0], c->sweep[1], c->sweep[2], c->sweep[3], NULL);
		pc.user_sweep = 1;
	}
	phase(4);
	cd_probe_ctx_init(&pc);
	cd_probe_run_table(&pc, selected);
	cd_probe_ctx_free(&pc);
}

/*
 * Findings, score and advice: the rules with their thresholds (profile, --rules,
 * -D), the env linter (with this machine's nccl.conf files unless the facts come
 * from a saved document), then the decision tree. Returns 0 or an exit code.
 */
/*
 * The env linter, then the decision tree: the tail of every judging command.
 * local_conf: also lint this machine's nccl.conf files (not for a saved document or a
 * log, which describe another machine). Returns 0 or an exit code.
 */
int lint_and_advise(struct cd_results *r, int local_conf)
{
	struct cd_envcat cat = { 0 };
	char *paths;

	if (cd_envcat_load_default(&cat) < 0)
		return EXIT_RUNTIME;
	paths = local_conf ? cd_envlint_conf_paths() : NULL;
	cd_envlint(r, &cat, paths);
	cd_envcat_free(&cat);
	free(paths);
	cd_advise(r);
	return 0;
}

/* local_conf: the facts are this machine's (not a saved document, a log or an import) */
int judge(struct ctx *c, struct cd_results *r, int local_conf)
{
	struct cd_conf conf;

	if (cd_conf_load(&conf, &c->conf, r) < 0) {
		cd_conf_free(&conf);
		return EXIT_USAGE;
	}
	cd_rules_evaluate_conf(r, &conf);
	cd_score_compute(r, &conf);
	cd_conf_free(&conf);
	return lint_and_advise(r, local_conf);
}

/* Is this finding id one this build makes (a rule, a cross-host rule, or the env linter)? */
static int own_finding(const char *id)
{
	size_t n;
	const struct cd_rule *t = cd_rules_table(&n);
	const struct cd_xrule *x;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].id, id))
			return 1;
	x = cd_rules_hosts_table(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(x[i].id, id))
			return 1;
	return !strncmp(id, "ENV", 3);
}

/*
 * advise --from: the saved findings of rules this build lacks (another version,
 * the MPI job's cross-host checks) are kept as input to the tree; the rest, and
 * all advice, is made anew.
 */
static void keep_foreign_findings(struct cd_results *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n_findings; i++) {
		struct cd_finding *f = &r->findings[i];

		if (!own_finding(f->id)) {
			r->findings[k++] = *f;
			continue;
		}
		cd_finding_free(f);
	}
	r->n_findings = k;
	k = r->n_findings;
	r->n_findings = 0;
	cd_results_clear_judgement(r);  /* frees the advice; findings are already sorted */
	r->n_findings = k;
}

/* The document of this host, or of --from; 0 or an exit code. */
int load_or_discover(struct ctx *c, struct cd_results *r, const char *mode)
{
	cd_results_init(r);
	if (c->from) {
		if (cd_results_load_file(r, c->from) < 0)
			return EXIT_USAGE;
		if (!strcmp(mode, "advise"))
			keep_foreign_findings(r);
		else
			cd_results_clear_judgement(r);
		free(r->tool_version);
		r->tool_version = xstrdup(CD_VERSION);
		return 0;
	}
	phase(1);
	stamp(r, mode, c);
	if (cd_discover_host(cd_results_add_host(r), &c->dopt) < 0) {
		cd_results_free(r);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * This rank's part of r: the first rank of a host discovers the host (appended to
 * r->hosts), every rank adds its ranks[] entry. Returns the host probes should name: r's
 * host, or *scratch (identity and env only) on the other ranks of a host. NULL when
 * discovery rejected the user's input (message printed).
 */
static struct cd_host *discover_rank(struct cd_results *r, struct cd_host *scratch, const struct cd_discover_opts *o)
{
	struct cd_host *h;

	cd_dist_stamp_run(r);
	if (cd_dist_get()->local_rank == 0) {
		h = cd_results_add_host(r);
		if (cd_discover_host(h, o) < 0)
			return NULL;
	} else {
		/* the other ranks of a host: who they are and their env, for probes and ranks[] */
		h = scratch;
		cd_system_discover(h, o);
	}
	free(h->versions.commdiag);
	h->versions.commdiag = xstrdup(CD_VERSION);
	if (cd_dist_get()->mpi)
		cd_dist_add_self(r, h);
	return h;
}

static int discover_and_report(struct ctx *c, const char *mode, int score, const int *selected)
{
	struct cd_results r, *base = NULL;
	double t0 = cd_now_s();
	int rc, missing = 0;

	if (c->from && !cd_dist_prints())
		return 0; /* a saved document is rank 0's to re-judge */
	if (score) {
		struct cd_conf conf;

		/* a bad --rules, -D or --profile stops the run before any discovery */
		rc = cd_conf_load(&conf, &c->conf, NULL);
		cd_conf_free(&conf);
		if (rc < 0)
			return EXIT_USAGE;
	}
	/* a --baseline that is no document stops the run before any discovery too */
	if (c->baseline && (rc = load_baseline(c->baseline, &base)))
		return rc;
	if (c->from) {
		/* a saved run keeps its facts; its findings and advice are made anew */
		rc = load_or_discover(c, &r, mode);
		if (rc) {
			if (base)
				cd_results_free(base);
			free(base);
			return rc;
		}
	} else {
		struct cd_results scratch;
		struct cd_host *h;

		cd_results_init(&r);
		cd_results_init(&scratch);
		phase(1);
		stamp(&r, mode, c);
		/* under MPI the first rank of each host discovers it; the others only say who they are */
		h = discover_rank(&r, cd_results_add_host(&scratch), &c->dopt);
		if (!h) {
			attach_baseline(&r, base, c->baseline); /* freed with r */
			cd_results_free(&r);
			cd_results_free(&scratch);
			return EXIT_USAGE;
		}
		if (score && !cd_stop)
			run_probes(c, &r, h, selected);
		phase(6);
		if (cd_dist_get()->nranks > 1)
			cd_progress_step("gather from %d ranks", cd_dist_get()->nranks);
		missing = cd_dist_gather(&r, gather_deadline(c));
		cd_results_free(&scratch);
		if (!cd_dist_prints()) {
			attach_baseline(&r, base, c->baseline); /* freed with r */
			cd_results_free(&r);
			return 0; /* the exit code comes from rank 0 (cd_dist_end) */
		}
	}
	attach_baseline(&r, base, c->baseline);
	if (score && !cd_stop) {
		phase(2);
		rc = judge(c, &r, !c->from);
		if (rc) {
			cd_results_free(&r);
			return rc;
		}
	}
	if (cd_stop)
		stamp_stop(&r); /* the rules did not run either: a partial run makes no findings */
	if (!c->from && !deterministic())
		r.run.duration_s = cd_now_s() - t0;
	phase(3);
	rc = emit_report(c, c->shell ? render_shell : render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	/* the partial document is out; the run itself did not finish */
	if (missing && rc != EXIT_USAGE)
		rc = EXIT_RUNTIME;
	cd_results_free(&r);
	return rc;
}

int cmd_check(struct ctx *c)
{
	if (c->from && c->dopt.topology_xml)
		return cd_error("options '--from' and '--topology' exclude each other: a saved document has its topology"),
		       EXIT_USAGE;
	return discover_and_report(c, "check", 1, NULL);
}

static void list_probes(void)
{
	size_t n;
	const struct cd_probe_def *const *t = cd_probe_table(&n);

	printf("%-20s %-16s %-8s %s\n", "probe", "needs", "set", "what it measures");
	for (size_t i = 0; i < n; i++) {
		const struct cd_probe_def *d = t[i];
		char needs[64] = "", sets[32] = "";

		snprintf(needs, sizeof(needs), "%s%s%s%s", d->needs & NEED_GPU2 ? "2gpu," : d->needs & NEED_GPU ? "gpu," : "",
			 d->needs & NEED_NCCL ? "nccl," : "", d->needs & NEED_RANKS2 ? "2ranks," : "", d->needs ? "" : "-");
		if (needs[strlen(needs) - 1] == ',')
			needs[strlen(needs) - 1] = '\0';
		snprintf(sets, sizeof(sets), "%s", d->sets & CD_SET_QUICK ? "quick" :
			 d->sets & CD_SET_DEFAULT ? "default" : "full");
		printf("%-20s %-16s %-8s %s\n", d->name, needs, sets, d->summary);
	}
}

int cmd_probe(struct ctx *c)
{
	size_t n;
	int *selected, rc;
	const char *bad = NULL;

	if (c->nargs == 0) {
		list_probes();
		return 0;
	}
	cd_probe_table(&n);
	selected = xcalloc(n + 1, sizeof(*selected));
	if (cd_probe_select(c->args, c->nargs, selected, &bad) < 0) {
		free(selected);
		cd_error("probe: unknown probe '%s': see 'commdiag probe' for the list", bad);
		return EXIT_USAGE;
	}
	rc = discover_and_report(c, "probe", 1, selected);
	free(selected);
	return rc;
}

int cmd_topo(struct ctx *c)
{
	return discover_and_report(c, "topo", 0, NULL);
}

int cmd_score(struct ctx *c)
{
	if (c->nargs != 1)
		return cd_error("score: which document? use 'commdiag score FILE.json' ('-' for stdin)"), EXIT_USAGE;
	if (c->from)
		return cd_error("score: the document is the argument; '--from' is for check and report"), EXIT_USAGE;
	c->from = c->args[0];
	return discover_and_report(c, "check", 1, NULL);
}

int cmd_report(struct ctx *c)
{
	struct cd_results r;
	int rc;

	phase(3);
	if (!c->from)
		return cd_error("report: which document? use 'commdiag report --from FILE.json' ('-' for stdin)"),
		       EXIT_USAGE;
	if (cd_results_load_file(&r, c->from) < 0)
		return EXIT_USAGE;
	rc = emit_report(c, render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}
