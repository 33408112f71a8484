/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag: can this node (or job) carry distributed-training traffic, and if
 * not, which setting fixes it? Options are parsed once for every command; each
 * command says which options apply to it. Only main() picks the exit code.
 */
#include <errno.h>
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

#include "discover.h"
#include "dist.h"
#include "out.h"
#include "probe.h"
#include "report.h"
#include "results.h"
#include "rules.h"

#define EXIT_FINDINGS 1
#define EXIT_USAGE 2
#define EXIT_RUNTIME 3
#define DEFAULT_TIMEOUT_S 120.0

/* Which commands an option applies to. */
#define C_CHECK (1u << 0)
#define C_TOPO (1u << 1)
#define C_REPORT (1u << 2)
#define C_VERSION (1u << 3)
#define C_HELP (1u << 4)
#define C_PROBE (1u << 5)
#define C_ALL (~0u)
/* the global options: every command that writes a report takes them */
#define C_GLOBAL (C_CHECK | C_TOPO | C_REPORT | C_VERSION | C_PROBE)
#define DEFAULT_PROBE_TIMEOUT_S 30.0

struct ctx {
	enum out_format format;
	int format_set;
	const char *output;
	int color;
	enum cd_severity fail_on;
	double timeout_s;
	const char *from;
	struct cd_discover_opts dopt;
	unsigned probe_set;         /* CD_SET_*: --quick, default, --full */
	const char *sweep[4];       /* -b -e -f -i as given */
	int warmup, iters;          /* -w -n; -1 = each probe's default */
	double probe_timeout_s;
	int pairs;                  /* --pairs: bad-node hunting by disjoint pairs */
	double t_start;             /* when the --timeout deadline was armed */
	char **args; /* positional arguments after the command */
	int nargs;
};

struct cmd {
	const char *name;
	int (*fn)(struct ctx *c);
	unsigned id;
	const char *summary;
	const char *usage;
};

static int cmd_check(struct ctx *c);
static int cmd_topo(struct ctx *c);
static int cmd_report(struct ctx *c);
static int cmd_version(struct ctx *c);
static int cmd_help(struct ctx *c);
static int cmd_probe(struct ctx *c);

static const struct cmd cmds[] = {
	{ "check", cmd_check, C_CHECK, "discover this host, score it against the rules, and report (the default)",
	  "check [--from FILE.json] [--topology FILE.xml] [options]" },
	{ "topo", cmd_topo, C_TOPO, "discovery only: system, NUMA, PCI, interfaces, RDMA devices, GPUs",
	  "topo [--topology FILE.xml] [options]" },
	{ "probe", cmd_probe, C_PROBE, "run the named probes (or a family: copy, p2p, nccl; 'all'); no name lists them",
	  "probe [NAME...] [-b MIN] [-e MAX] [-f FACTOR|-i STEP] [-n ITERS] [-w WARMUP] [options]" },
	{ "report", cmd_report, C_REPORT, "render a saved JSON document again (text, or JSON with --json)",
	  "report --from FILE.json|- [options]" },
	{ "version", cmd_version, C_VERSION, "commdiag's version and the versions of the libraries it finds",
	  "version [--nccl-lib PATH] [--json]" },
	{ "help", cmd_help, C_HELP, "this list, or the options of one command", "help [COMMAND]" },
};

enum {
	OPT_FORMAT = 256,
	OPT_FAIL_ON,
	OPT_TIMEOUT,
	OPT_NO_COLOR,
	OPT_TOPOLOGY,
	OPT_FROM,
	OPT_NCCL_LIB,
	OPT_QUICK,
	OPT_FULL,
	OPT_PROBE_TIMEOUT,
	OPT_PAIRS,
};

static const struct opt {
	struct option lo;
	int shortopt;
	unsigned applies;
	const char *arg;
	const char *help;
} opts[] = {
	{ { "json", no_argument, NULL, 'j' }, 'j', C_GLOBAL, NULL, "write the JSON document (same as --format json)" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, 0, C_GLOBAL, "text|json", "output format (default text)" },
	{ { "output", required_argument, NULL, 'o' }, 'o', C_GLOBAL, "FILE",
	  "write the report to FILE atomically (temporary file + rename)" },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', C_ALL, NULL, "more detail on stderr and in text (repeatable)" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', C_ALL, NULL, "no warnings on stderr" },
	{ { "fail-on", required_argument, NULL, OPT_FAIL_ON }, 0, C_GLOBAL, "info|warn|fail",
	  "exit 1 when a finding is at or above this severity (default fail)" },
	{ { "timeout", required_argument, NULL, OPT_TIMEOUT }, 0, C_GLOBAL, "SECONDS",
	  "end the run with exit 3 if it takes longer (default 120)" },
	{ { "no-color", no_argument, NULL, OPT_NO_COLOR }, 0, C_ALL, NULL,
	  "no colour (colour is used only on a terminal, and never when NO_COLOR is set)" },
	{ { "topology", required_argument, NULL, OPT_TOPOLOGY }, 0, C_CHECK | C_TOPO, "FILE.xml",
	  "replay a saved hwloc XML topology instead of this machine's" },
	{ { "from", required_argument, NULL, OPT_FROM }, 0, C_CHECK | C_REPORT, "FILE.json",
	  "load a saved document ('-' for stdin); check re-scores it with the current rules" },
	{ { "nccl-lib", required_argument, NULL, OPT_NCCL_LIB }, 0, C_CHECK | C_TOPO | C_VERSION | C_PROBE, "PATH",
	  "load this NCCL library instead of libnccl.so.2" },
	{ { "quick", no_argument, NULL, OPT_QUICK }, 0, C_CHECK, NULL, "only the quick probes (a prolog's budget)" },
	{ { "full", no_argument, NULL, OPT_FULL }, 0, C_CHECK, NULL, "every probe, not only the default set" },
	{ { "minbytes", required_argument, NULL, 'b' }, 'b', C_CHECK | C_PROBE, "SIZE",
	  "smallest size of the sweep, like 8, 64K, 8M, 1G (nccl-tests' -b)" },
	{ { "maxbytes", required_argument, NULL, 'e' }, 'e', C_CHECK | C_PROBE, "SIZE", "largest size of the sweep (-e)" },
	{ { "stepfactor", required_argument, NULL, 'f' }, 'f', C_CHECK | C_PROBE, "N",
	  "multiply the size by N each step (-f, default 2)" },
	{ { "stepbytes", required_argument, NULL, 'i' }, 'i', C_CHECK | C_PROBE, "SIZE", "add SIZE each step instead (-i)" },
	{ { "iters", required_argument, NULL, 'n' }, 'n', C_CHECK | C_PROBE, "N", "timed iterations per size (-n)" },
	{ { "warmup-iters", required_argument, NULL, 'w' }, 'w', C_CHECK | C_PROBE, "N",
	  "untimed warm-up iterations per size (-w)" },
	{ { "probe-timeout", required_argument, NULL, OPT_PROBE_TIMEOUT }, 0, C_CHECK | C_PROBE, "SECONDS",
	  "deadline of one probe on one GPU, pair or communicator (default 30)" },
	{ { "pairs", no_argument, NULL, OPT_PAIRS }, 0, C_CHECK, NULL,
	  "under mpirun: hunt a bad node with two passes of disjoint pairs (mpi.bw), not all pairs" },
	{ { "help", no_argument, NULL, 'h' }, 'h', C_ALL, NULL, "show help" },
};

/* ---- the run deadline: nothing hangs, whatever a library call does ---- */

static volatile sig_atomic_t deadline_phase; /* index into phases[] */
static const char *const phases[] = { "start", "discovery", "rules", "report", "probes", "mpi start", "gather" };
/* The -o temporary file, so a deadline or a signal never leaves half a report behind. */
static char *volatile pending_tmp;

static void say(const char *s)
{
	ssize_t w = write(STDERR_FILENO, s, strlen(s));

	(void)w;
}

static void on_fatal_signal(int sig)
{
	char *tmp = pending_tmp;

	if (tmp)
		unlink(tmp);
	say(sig == SIGALRM ? "commdiag: timeout: the run exceeded --timeout during "
			   : "commdiag: interrupted during ");
	say(phases[deadline_phase]);
	say("\n");
	_exit(EXIT_RUNTIME);
}

static void arm_deadline(double seconds)
{
	struct itimerval it = { 0 };
	struct sigaction sa = { 0 };

	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	it.it_value.tv_sec = (time_t)seconds;
	it.it_value.tv_usec = (suseconds_t)((seconds - floor(seconds)) * 1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void phase(int p)
{
	deadline_phase = p;
}

/* ---- output: stdout, or FILE written to a temporary file and renamed ---- */

struct sink {
	FILE *f;
	char *tmp;
	const char *path;
};

static int sink_open(struct sink *s, const char *path)
{
	const char *base;
	char *dup, *dir;
	struct stat st;
	int fd;

	memset(s, 0, sizeof(*s));
	if (!path || !strcmp(path, "-")) {
		s->f = stdout;
		return 0;
	}
	s->path = path;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!*base || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return cd_error("option '--output': '%s' is a directory: expected a file name", path);
	dup = xstrdup(path);
	dir = dirname(dup);
	s->tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
	free(dup);
	pending_tmp = s->tmp; /* mkstemp fills the name in place: no window without cleanup */
	fd = mkstemp(s->tmp);
	if (fd < 0) {
		int err = errno;

		pending_tmp = NULL;
		free(s->tmp);
		s->tmp = NULL;
		return cd_error("option '--output': cannot create '%s': %s", path, strerror(err));
	}
	fchmod(fd, 0644);
	s->f = fdopen(fd, "w");
	if (!s->f) {
		pending_tmp = NULL;
		close(fd);
		unlink(s->tmp);
		free(s->tmp);
		s->tmp = NULL;
		return cd_error("option '--output': cannot open '%s': %s", path, strerror(errno));
	}
	return 0;
}

static void sink_abort(struct sink *s)
{
	pending_tmp = NULL;
	if (s->tmp) {
		fclose(s->f);
		unlink(s->tmp);
		free(s->tmp);
		s->tmp = NULL;
	}
}

/* Called after out_end() flushed the stream. */
static int sink_commit(struct sink *s)
{
	int rc = 0;

	if (!s->tmp)
		return 0;
	pending_tmp = NULL;
	if (fsync(fileno(s->f)) < 0 && errno != EINVAL)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (fclose(s->f) != 0 && !rc)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (!rc && rename(s->tmp, s->path) < 0)
		rc = cd_error("cannot rename '%s' to '%s': %s", s->tmp, s->path, strerror(errno));
	if (rc)
		unlink(s->tmp);
	free(s->tmp);
	s->tmp = NULL;
	return rc;
}

/* Render through the one emitter to stdout or -o; returns 0, EXIT_USAGE or EXIT_RUNTIME. */
static int emit(struct ctx *c, void (*render)(struct cd_out *o, const void *arg), const void *arg)
{
	struct sink s;
	struct cd_out *o;

	if (sink_open(&s, c->output) < 0)
		return EXIT_USAGE;
	o = out_new(c->format, s.f, c->color && s.f == stdout);
	render(o, arg);
	if (out_end(o) < 0) {
		sink_abort(&s);
		cd_error("cannot write the report to '%s': %s", c->output ? c->output : "stdout", strerror(errno));
		return EXIT_RUNTIME;
	}
	return sink_commit(&s) < 0 ? EXIT_RUNTIME : 0;
}

static void render_results(struct cd_out *o, const void *r)
{
	cd_report(o, r);
}

/* ---- commands ---- */

static int deterministic(void)
{
	const char *det = getenv("COMMDIAG_DETERMINISTIC");

	return det && *det && strcmp(det, "0");
}

static void stamp(struct cd_results *r, const char *mode, const struct ctx *c)
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

static int exit_for(const struct ctx *c, const struct cd_results *r)
{
	int worst = cd_results_worst(r);

	return worst >= 0 && worst >= (int)c->fail_on ? EXIT_FINDINGS : 0;
}

/*
 * The end of the run, as absolute cd_now_s() times before the --timeout alarm: the report
 * needs a margin, and under MPI the gather a slice before it; the other ranks wait for
 * rank 0's exit code until just before their own alarm.
 */
static double report_margin(const struct ctx *c)
{
	return c->timeout_s * 0.1 < 2.0 ? c->timeout_s * 0.1 : 2.0;
}

static double gather_deadline(const struct ctx *c)
{
	return c->t_start + c->timeout_s - report_margin(c);
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
				   .follower = d->local_rank != 0, .pairs = c->pairs };

	pc.end_s = probes_end(c);
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

static int discover_and_report(struct ctx *c, const char *mode, int score, const int *selected)
{
	struct cd_results r, scratch;
	double t0 = cd_now_s();
	int rc, missing = 0;

	if (c->from && !cd_dist_prints())
		return 0; /* a saved document is rank 0's to re-judge */
	cd_results_init(&r);
	cd_results_init(&scratch);
	if (c->from) {
		/* re-judge a saved run: its facts stay, its findings and advice are made anew */
		if (cd_results_load_file(&r, c->from) < 0)
			return EXIT_USAGE;
		cd_results_clear_judgement(&r);
		/* the facts keep their run; the judgement is this version's */
		free(r.tool_version);
		r.tool_version = xstrdup(CD_VERSION);
	} else {
		struct cd_host *h;

		phase(1);
		stamp(&r, mode, c);
		/* under MPI the first rank of each host discovers it; the others only say who they are */
		h = cd_dist_discover(&r, cd_results_add_host(&scratch), &c->dopt);
		if (!h) {
			cd_results_free(&r);
			cd_results_free(&scratch);
			return EXIT_USAGE;
		}
		if (score)
			run_probes(c, &r, h, selected);
		phase(6);
		missing = cd_dist_gather(&r, gather_deadline(c));
		cd_results_free(&scratch);
		if (!cd_dist_prints()) {
			cd_results_free(&r);
			return 0; /* the exit code comes from rank 0 (cd_dist_end) */
		}
	}
	if (score) {
		phase(2);
		cd_rules_evaluate(&r);
	}
	if (!c->from && !deterministic())
		r.run.duration_s = cd_now_s() - t0;
	phase(3);
	rc = emit(c, render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	/* the partial document is out; the run itself did not finish */
	if (missing && rc != EXIT_USAGE)
		rc = EXIT_RUNTIME;
	cd_results_free(&r);
	return rc;
}

static int cmd_check(struct ctx *c)
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

	printf("%-18s %-13s %-14s %s\n", "probe", "needs", "runs in", "what it measures");
	for (size_t i = 0; i < n; i++) {
		const struct cd_probe_def *d = t[i];
		char needs[64] = "", sets[32] = "";

		snprintf(needs, sizeof(needs), "%s%s%s%s", d->needs & NEED_GPU2 ? "2 gpus " : d->needs & NEED_GPU ? "gpu " : "",
			 d->needs & NEED_NCCL ? "nccl " : "", d->needs & NEED_RANKS2 ? "2 ranks " : "",
			 d->needs ? "" : "-");
		snprintf(sets, sizeof(sets), "%s", d->sets & CD_SET_QUICK ? "quick" :
			 d->sets & CD_SET_DEFAULT ? "default" : "full");
		printf("%-18s %-13s %-14s %s\n", d->name, needs, sets, d->summary);
	}
}

static int cmd_probe(struct ctx *c)
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

static int cmd_topo(struct ctx *c)
{
	return discover_and_report(c, "topo", 0, NULL);
}

static int cmd_report(struct ctx *c)
{
	struct cd_results r;
	int rc;

	phase(3);
	if (!c->from)
		return cd_error("report: which document? use 'commdiag report --from FILE.json' ('-' for stdin)"),
		       EXIT_USAGE;
	if (cd_results_load_file(&r, c->from) < 0)
		return EXIT_USAGE;
	rc = emit(c, render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
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

static int cmd_version(struct ctx *c)
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
	rc = emit(c, render_versions, &v);
	cd_results_free(&r);
	return rc;
}

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static void print_options(FILE *f, unsigned id)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		const struct opt *p = &opts[i];
		char left[64];

		if (!(p->applies & id))
			continue;
		if (p->shortopt)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", p->shortopt, p->lo.name, p->arg ? " " : "",
				 p->arg ? p->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", p->lo.name, p->arg ? " " : "", p->arg ? p->arg : "");
		fprintf(f, "  %-30s %s\n", left, p->help);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: commdiag [COMMAND] [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\noptions:\n");
	print_options(f, C_ALL & ~C_HELP);
	fprintf(f, "\nexit status: 0 no finding at or above --fail-on, 1 findings at or above it,\n"
		   "2 usage or input error, 3 runtime error or timeout\n"
		   "see 'commdiag help COMMAND' and man commdiag(1)\n");
}

static int cmd_help(struct ctx *c)
{
	const struct cmd *cmd;

	if (c->nargs == 0) {
		usage(stdout);
		return 0;
	}
	if (c->nargs > 1)
		return cd_error("help: one command at a time"), EXIT_USAGE;
	cmd = find_cmd(c->args[0]);
	if (!cmd)
		return cd_error("help: unknown command '%s', try 'commdiag help'", c->args[0]), EXIT_USAGE;
	printf("usage: commdiag %s\n\n%s\n\noptions:\n", cmd->usage, cmd->summary);
	print_options(stdout, cmd->id);
	return 0;
}

/* ---- option parsing ---- */

static const struct opt *opt_by_val(int val)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i].lo.val == val)
			return &opts[i];
	return NULL;
}

static int used_both(const int *used, int a, int b)
{
	return used[opt_by_val(a) - opts] && used[opt_by_val(b) - opts];
}

/* A whole number >= min for -n / -w. */
static int parse_count(const char *opt, const char *s, int min, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 1000000)
		return cd_error("option '%s': '%s' is not a whole number from %d to 1000000", opt, s, min);
	*out = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	struct option lo[ARRAY_SIZE(opts) + 1];
	char shortopts[64] = "";
	int used[ARRAY_SIZE(opts)] = { 0 };
	struct ctx c = { .format = OUT_FMT_TEXT, .fail_on = CD_SEV_FAIL, .timeout_s = DEFAULT_TIMEOUT_S, .color = 1,
			 .probe_set = CD_SET_DEFAULT, .warmup = -1, .iters = -1,
			 .probe_timeout_s = DEFAULT_PROBE_TIMEOUT_S };
	const struct cmd *cmd = &cmds[0];
	int opt, rc, verbosity = 0;

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		lo[i] = opts[i].lo;
		if (opts[i].shortopt) {
			size_t n = strlen(shortopts);

			shortopts[n] = (char)opts[i].shortopt;
			shortopts[n + 1] = opts[i].lo.has_arg ? ':' : '\0';
			shortopts[n + 2] = '\0';
		}
	}
	memset(&lo[ARRAY_SIZE(opts)], 0, sizeof(lo[0]));
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		const struct opt *p = opt_by_val(opt);

		if (opt == '?' || opt == ':') {
			if (optopt && optopt < 256 && opt_by_val(optopt) && opt_by_val(optopt)->lo.has_arg)
				cd_error("option '-%c' needs a value", optopt);
			else if (optopt && optopt < 256)
				cd_error("unknown option '-%c', try 'commdiag help'", optopt);
			else if (optopt && opt_by_val(optopt))
				cd_error("option '--%s' needs a value", opt_by_val(optopt)->lo.name);
			else
				cd_error("unknown option '%s', try 'commdiag help'", argv[optind - 1]);
			return EXIT_USAGE;
		}
		used[p - opts] = 1;
		switch (opt) {
		case 'j':
			c.format = OUT_FMT_JSON;
			c.format_set = 1;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				c.format = OUT_FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				c.format = OUT_FMT_JSON;
			else
				return cd_error("option '--format': unknown format '%s': expected text or json", optarg),
				       EXIT_USAGE;
			c.format_set = 1;
			break;
		case 'o':
			if (!*optarg)
				return cd_error("option '--output': expected a file name"), EXIT_USAGE;
			c.output = optarg;
			break;
		case 'v':
			verbosity++;
			break;
		case 'q':
			verbosity--;
			break;
		case OPT_FAIL_ON:
			rc = cd_severity_parse(optarg);
			if (rc < 0)
				return cd_error("option '--fail-on': unknown severity '%s': expected info, warn or fail",
						optarg),
				       EXIT_USAGE;
			c.fail_on = (enum cd_severity)rc;
			break;
		case OPT_TIMEOUT:
			if (cd_parse_seconds(optarg, &c.timeout_s) < 0)
				return cd_error("option '--timeout': '%s' is not a number of seconds above 0", optarg),
				       EXIT_USAGE;
			break;
		case OPT_NO_COLOR:
			c.color = 0;
			break;
		case OPT_TOPOLOGY:
			c.dopt.topology_xml = optarg;
			break;
		case OPT_FROM:
			c.from = optarg;
			break;
		case OPT_NCCL_LIB:
			c.dopt.nccl_lib = optarg;
			break;
		case OPT_QUICK:
			c.probe_set = CD_SET_QUICK;
			break;
		case OPT_FULL:
			c.probe_set = CD_SET_FULL;
			break;
		case 'b':
		case 'e':
		case 'f':
		case 'i':
			c.sweep[strchr("befi", opt) - "befi"] = optarg;
			break;
		case 'n':
		case 'w':
			if (parse_count(opt == 'n' ? "--iters" : "--warmup-iters", optarg, opt == 'n' ? 1 : 0,
					opt == 'n' ? &c.iters : &c.warmup) < 0)
				return EXIT_USAGE;
			break;
		case OPT_PAIRS:
			c.pairs = 1;
			break;
		case OPT_PROBE_TIMEOUT:
			if (cd_parse_seconds(optarg, &c.probe_timeout_s) < 0)
				return cd_error("option '--probe-timeout': '%s' is not a number of seconds above 0", optarg),
				       EXIT_USAGE;
			break;
		case 'h':
			cmd = NULL;
			break;
		}
	}
	cd_verbosity = verbosity;
	if (optind < argc) {
		const struct cmd *named = find_cmd(argv[optind]);

		if (!named)
			return cd_error("unknown command '%s', try 'commdiag help'", argv[optind]), EXIT_USAGE;
		if (!cmd) { /* "commdiag check --help" */
			c.args = &argv[optind];
			c.nargs = 1;
			return cmd_help(&c);
		}
		cmd = named;
		optind++;
	} else if (!cmd) {
		usage(stdout);
		return 0;
	}
	c.args = &argv[optind];
	c.nargs = argc - optind;
	if (c.nargs && cmd->fn != cmd_help && cmd->fn != cmd_probe)
		return cd_error("%s: unexpected argument '%s'", cmd->name, c.args[0]), EXIT_USAGE;
	if (used_both(used, OPT_QUICK, OPT_FULL))
		return cd_error("options '--quick' and '--full' exclude each other"), EXIT_USAGE;
	if (c.sweep[0] || c.sweep[1] || c.sweep[2] || c.sweep[3]) {
		struct cd_sweep sw;
		char *err = NULL;

		if (cd_sweep_init(&sw, c.sweep[0], c.sweep[1], c.sweep[2], c.sweep[3], &err) < 0) {
			cd_error("%s", err);
			free(err);
			return EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (used[i] && !(opts[i].applies & cmd->id))
			return cd_error("option '--%s' does not apply to '%s', see 'commdiag help %s'", opts[i].lo.name,
					cmd->name, cmd->name),
			       EXIT_USAGE;

	{
		const char *nc = getenv("NO_COLOR");

		if ((nc && *nc) || c.format != OUT_FMT_TEXT || (c.output && strcmp(c.output, "-")) ||
		    !isatty(STDOUT_FILENO))
			c.color = 0;
	}
	c.t_start = cd_now_s();
	arm_deadline(c.timeout_s);
	/* commands that discover run as one job under mpirun/srun; the others run per rank */
	if (cmd->id & (C_CHECK | C_TOPO | C_PROBE)) {
		phase(5);
		if (cd_dist_init(&argc, &argv) < 0)
			return EXIT_RUNTIME;
		/* mpirun forwards output through a pseudo-terminal: isatty() says yes for a file */
		if (cd_dist_get()->mpi)
			c.color = 0;
	}
	rc = cmd->fn(&c);
	if (cmd->id & (C_CHECK | C_TOPO | C_PROBE))
		rc = cd_dist_end(rc, rc == EXIT_RUNTIME && cd_dist_get()->rank == 0,
				 c.t_start + c.timeout_s - report_margin(&c) / 4);
	/* git's rule: a report that did not reach stdout is a failure (reported once: emit() may have said it) */
	if (rc != EXIT_RUNTIME && (fflush(stdout) || ferror(stdout))) {
		cd_error("cannot write to stdout: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return rc;
}
