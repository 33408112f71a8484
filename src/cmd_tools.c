/* SPDX-License-Identifier: BSD-3-Clause */
/* The commands around the pipeline: advise, env, explain, import, rules, version. */
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
#include "report.h"
#include "results.h"
#include "rules.h"
#include "rules_hosts.h"
#include "score.h"

#include "cmd.h"

static void render_advise(struct cd_out *o, const void *r)
{
	cd_report_advice(o, r);
}

static void render_tree(struct cd_out *o, const void *cat)
{
	cd_report_tree(o, cat);
}

int cmd_advise(struct ctx *c)
{
	struct cd_results r;
	int rc;

	if (c->tree) {
		if (c->from || c->shell)
			return cd_error("advise: '--explain' prints the tree alone; it takes no '--from' or '--shell'"),
			       EXIT_USAGE;
		struct cd_catalog cat;

		phase(3);
		cd_catalog_init(&cat);
		cd_advise_catalog(&cat);
		rc = emit_report(c, render_tree, &cat);
		cd_catalog_free(&cat);
		return rc;
	}
	rc = load_or_discover(c, &r, "advise");
	if (rc)
		return rc;
	phase(2);
	rc = judge(c, &r, !c->from);
	if (rc) {
		cd_results_free(&r);
		return rc;
	}
	phase(3);
	rc = emit_report(c, c->shell ? render_shell : render_advise, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}

static void render_env_report(struct cd_out *o, const void *r)
{
	cd_report_env(o, r);
}

int cmd_env(struct ctx *c)
{
	struct cd_results r;
	int rc = load_or_discover(c, &r, "env");

	if (rc)
		return rc;
	phase(2);
	rc = lint_and_advise(&r, !c->from);
	if (rc) {
		cd_results_free(&r);
		return rc;
	}
	phase(3);
	rc = emit_report(c, render_env_report, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}

/* A log named on the command line, or stdin for "-": the whole of it, up to a bound. */
static char *read_log(const char *who, const char *path, size_t *len)
{
	const char *kind = NULL;
	FILE *f = strcmp(path, "-") ? cd_open_input(path, &kind) : stdin;
	char *text;

	if (!f) {
		if (kind)
			cd_error("%s: '%s' is %s: expected a regular file ('-' reads standard input)", who, path, kind);
		else
			cd_error("%s: cannot open '%s': %s", who, path, strerror(errno));
		return NULL;
	}
	text = cd_read_file(f, (size_t)1 << 30, len);
	if (!text)
		cd_error("%s: cannot read '%s': %s", who, path, errno ? strerror(errno) : "larger than 1 GiB");
	if (f != stdin)
		fclose(f);
	return text;
}

static void render_explain(struct cd_out *o, const void *r)
{
	cd_report_explain(o, r);
}

int cmd_explain(struct ctx *c)
{
	struct cd_results r;
	int rc;

	if (!c->nargs)
		return cd_error("explain: which log? use 'commdiag explain LOGFILE...' ('-' for stdin)"), EXIT_USAGE;
	if (cd_explain_init() < 0)
		return EXIT_USAGE;
	cd_results_init(&r);
	stamp(&r, "explain", c);
	r.run.ranks = CD_NULL_I64;
	phase(1);
	for (int i = 0; i < c->nargs; i++) {
		size_t len = 0;
		char *text = read_log("explain", c->args[i], &len);
		const char *base = strrchr(c->args[i], '/');

		if (!text) {
			cd_results_free(&r);
			return EXIT_USAGE;
		}
		cd_explain_parse(&r, text, len, !strcmp(c->args[i], "-") ? "stdin" : base ? base + 1 : c->args[i]);
		free(text);
	}
	phase(2);
	/* the variables NCCL reported, linted as for a host; no local files: the log is another machine */
	rc = lint_and_advise(&r, 0);
	if (rc) {
		cd_results_free(&r);
		return rc;
	}
	cd_explain_vet(&r);
	phase(3);
	rc = emit_report(c, c->shell ? render_shell : render_explain, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}

/* Say on stderr what of one imported file could not be used (the document says it too). */
static void import_notes(const struct cd_import *im)
{
	if (im->skipped_lines > 0) {
		char at[96] = "";
		size_t used = 0;

		for (size_t k = 0; k < im->n_first_skipped && used < sizeof(at); k++)
			used += (size_t)snprintf(at + used, sizeof(at) - used, "%s%" PRId64, k ? ", " : "",
						 im->first_skipped[k]);
		cd_warn("import: '%s': skipped %" PRId64 " unusable line%s (cut short or mangled) at line%s %s%s", im->file,
			im->skipped_lines, im->skipped_lines == 1 ? "" : "s", im->n_first_skipped == 1 ? "" : "s", at,
			(int64_t)im->n_first_skipped < im->skipped_lines ? ", …" : "");
	}
	if (im->complete == CD_TRI_FALSE)
		cd_warn("import: '%s': a test ends without its footer ('# Out of bounds values'): the log was cut short",
			im->file);
}

/*
 * import nccl-tests FILE…: the files become one document (mode "import"), judged by the
 * same judge() as check and score, then reported in any format.
 */
int cmd_import(struct ctx *c)
{
	struct cd_results r;
	struct cd_conf conf;
	int rc;

	if (!c->nargs || strcmp(c->args[0], "nccl-tests"))
		return cd_error("import: %s%s%s: use 'commdiag import nccl-tests FILE...' ('-' for stdin)",
				c->nargs ? "unknown format '" : "which format?", c->nargs ? c->args[0] : "",
				c->nargs ? "', the one known is nccl-tests" : ""),
		       EXIT_USAGE;
	if (c->nargs < 2)
		return cd_error("import nccl-tests: which file? use 'commdiag import nccl-tests FILE...' ('-' for stdin)"),
		       EXIT_USAGE;
	/* a bad --rules, -D or --profile stops the run before any reading */
	rc = cd_conf_load(&conf, &c->conf, NULL);
	cd_conf_free(&conf);
	if (rc < 0)
		return EXIT_USAGE;
	cd_results_init(&r);
	stamp(&r, "import", c);
	r.run.ranks = CD_NULL_I64; /* no commdiag ranks ran: the ranks were nccl-tests' */
	phase(1);
	for (int i = 1; i < c->nargs; i++) {
		const char *name = strcmp(c->args[i], "-") ? c->args[i] : "stdin";
		size_t len = 0;
		char *err = NULL, *text = read_log("import", c->args[i], &len);
		int n;

		if (!text) {
			cd_results_free(&r);
			return EXIT_USAGE;
		}
		n = cd_import_nccltests(&r, text, len, name, c->collective, &err);
		free(text);
		/* a footer alone shows a bus bandwidth: kept, not refused */
		if (n == 0 && r.run.n_imports && cd_import_footer_only(&r.run.imports[r.run.n_imports - 1]))
			n = 1;
		if (n <= 0) {
			if (n < 0)
				cd_error("import: %s", err);
			else
				cd_error("import: '%s': nothing to import: no size rows of an nccl-tests run (its text "
					 "output, or the JSON of -J) in it",
					 name);
			free(err);
			cd_results_free(&r);
			return EXIT_USAGE;
		}
		import_notes(&r.run.imports[r.run.n_imports - 1]);
	}
	phase(2);
	rc = judge(c, &r, 0);
	if (rc) {
		cd_results_free(&r);
		return rc;
	}
	rc = report_and_exit_code(c, &r);
	cd_results_free(&r);
	return rc;
}

static void render_rules(struct cd_out *o, const void *cat)
{
	cd_report_rules(o, cat);
}

int cmd_rules(struct ctx *c)
{
	struct cd_conf conf;
	struct cd_catalog cat;
	int rc;

	phase(2);
	if (c->nargs && !strcmp(c->args[0], "check")) {
		if (c->nargs < 2)
			return cd_error("rules check: which file? use 'commdiag rules check FILE'"), EXIT_USAGE;
		for (int i = 1; i < c->nargs; i++) {
			int n = cd_conf_check_file(c->args[i]);

			if (n < 0)
				return EXIT_USAGE;
			printf("%s: %d key%s, ok\n", c->args[i], n, n == 1 ? "" : "s");
		}
		return 0;
	}
	if (c->nargs)
		return cd_error("rules: unknown argument '%s': expected 'check FILE' or nothing", c->args[0]), EXIT_USAGE;
	if (cd_conf_load(&conf, &c->conf, NULL) < 0) {
		cd_conf_free(&conf);
		return EXIT_USAGE;
	}
	phase(3);
	cd_catalog_init(&cat);
	cd_rules_catalog(&cat, &conf);
	cd_conf_free(&conf);
	rc = emit_report(c, render_rules, &cat);
	cd_catalog_free(&cat);
	return rc;
}

struct versions {
	const struct cd_host *h;
	const char *mpi;
};

static void render_versions(struct cd_out *o, const void *arg)
{
	const struct versions *v = arg;
	const struct cd_host *h = v->h;

	out_str(o, OUT_ANY, "commdiag", "commdiag   %s\n", CD_VERSION);
	out_str(o, OUT_ANY, "hwloc", "hwloc      %s\n", h->versions.hwloc);
	out_str(o, OUT_ANY, "libnl", "libnl      %s\n", h->versions.libnl);
	out_str(o, OUT_ANY, "libibverbs", "libibverbs %s\n", h->versions.libibverbs);
	out_str(o, OUT_ANY, "cjson", "cJSON      %s\n", cJSON_Version());
	out_str(o, OUT_ANY, "mpi", "mpi        %s\n", v->mpi[0] ? v->mpi : NULL);
	out_str(o, OUT_ANY, "driver", "driver     %s\n", h->versions.driver);
	out_i64(o, OUT_ANY, "cuda_driver", "cuda       %" PRId64, h->versions.cuda_driver);
	if (h->versions.cuda_driver == CD_NULL_I64 && h->part[CD_PART_GPU].reason)
		out_str(o, OUT_TEXT, NULL, " (%s)", h->part[CD_PART_GPU].reason);
	out_nl(o);
	out_str(o, OUT_ANY, "nccl", "nccl       %s\n", h->versions.nccl);
}

int cmd_version(struct ctx *c)
{
	struct cd_results r;
	struct versions v;
	char mpi[MPI_VERSION_LEN];
	int rc;

	phase(1);
	cd_results_init(&r);
	v.h = cd_results_add_host(&r);
	if (cd_discover_host(r.hosts, &c->dopt) < 0) {
		cd_results_free(&r);
		return EXIT_USAGE;
	}
	mpi[0] = '\0';
#ifdef CD_HAVE_MPI
	{
		int len = 0;

		MPI_Get_library_version(mpi, &len);
		mpi[strcspn(mpi, "\n,")] = '\0';
	}
#endif
	v.mpi = mpi;
	phase(3);
	rc = emit_report(c, render_versions, &v);
	cd_results_free(&r);
	return rc;
}
