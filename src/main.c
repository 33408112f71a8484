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
#include "fault.h"
#include "out.h"
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
#define C_ALL (~0u)
/* the global options: every command that writes a report takes them */
#define C_GLOBAL (C_CHECK | C_TOPO | C_REPORT | C_VERSION)

struct ctx {
	enum out_format format;
	int format_set;
	const char *output;
	int color;
	enum cd_severity fail_on;
	double timeout_s;
	const char *from;
	struct cd_discover_opts dopt;
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

static const struct cmd cmds[] = {
	{ "check", cmd_check, C_CHECK, "discover this host, score it against the rules, and report (the default)",
	  "check [--from FILE.json] [--topology FILE.xml] [options]" },
	{ "topo", cmd_topo, C_TOPO, "discovery only: system, NUMA, PCI, interfaces, RDMA devices, GPUs",
	  "topo [--topology FILE.xml] [options]" },
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
	{ { "nccl-lib", required_argument, NULL, OPT_NCCL_LIB }, 0, C_CHECK | C_TOPO | C_VERSION, "PATH",
	  "load this NCCL library instead of libnccl.so.2" },
	{ { "help", no_argument, NULL, 'h' }, 'h', C_ALL, NULL, "show help" },
};

/* ---- the run deadline and signals: nothing hangs, whatever a library call does ---- */

/*
 * The first SIGINT, SIGTERM or deadline (SIGALRM) only sets cd_stop: the run stops
 * at its next safe point, marks what did not run as timeout and still writes the
 * partial document (exit 3). The same handler arms a backstop 1.5 s later, for
 * a call that never comes back to a safe point: that second alarm, like a second
 * SIGINT or SIGTERM, removes the -o temporary file and exits 3 at once. Everything
 * the handler does is async-signal-safe: flags, setitimer, unlink, write, _exit.
 */
#define BACKSTOP_TEXT "1.5 s"
static const struct itimerval backstop = { .it_value = { 1, 500000 } };

static volatile sig_atomic_t deadline_phase; /* index into phases[] */
static volatile sig_atomic_t stop_phase;     /* deadline_phase when cd_stop was set */
static const char *const phases[] = { "start", "discovery", "rules", "report" };
static int stamped; /* the document written says it is partial */
/* The -o temporary file, so a deadline or a signal never leaves half a report behind. */
static char *volatile pending_tmp;

static void say(const char *s)
{
	ssize_t w = write(STDERR_FILENO, s, strlen(s));

	(void)w;
}

static void on_signal(int sig)
{
	char *tmp = pending_tmp;

	if (!cd_stop) {
		stop_phase = deadline_phase;
		cd_stop = sig;
		setitimer(ITIMER_REAL, &backstop, NULL);
		return;
	}
	if (tmp)
		unlink(tmp);
	if (sig == SIGALRM)
		say("commdiag: timeout: still in ");
	else
		say("commdiag: interrupted again during ");
	say(phases[deadline_phase]);
	say(sig == SIGALRM ? " " BACKSTOP_TEXT " after the stop (a call that does not return?): exiting at once, no report\n"
			   : ": exiting at once, no report\n");
	_exit(EXIT_RUNTIME);
}

static void arm_deadline(double seconds)
{
	struct itimerval it = { 0 };
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;
	/* restart interrupted reads: a library must not see EINTR it does not expect */
	sa.sa_flags = SA_RESTART;
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

/* The document says it is partial, and where the run stopped. */
static void stamp_stop(struct cd_results *r)
{
	free(r->run.stopped_by);
	r->run.stopped_by = xstrdup(cd_stop_name());
	free(r->run.stopped_phase);
	r->run.stopped_phase = xstrdup(phases[stop_phase]);
	stamped = 1;
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
	/* pending_tmp stays set until the rename: a signal before it still removes the file */
	if (fsync(fileno(s->f)) < 0 && errno != EINVAL)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (fclose(s->f) != 0 && !rc)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (!rc && rename(s->tmp, s->path) < 0)
		rc = cd_error("cannot rename '%s' to '%s': %s", s->tmp, s->path, strerror(errno));
	if (rc)
		unlink(s->tmp);
	pending_tmp = NULL;
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

static int discover_and_report(struct ctx *c, const char *mode, int score)
{
	struct cd_results r;
	double t0 = cd_now_s();
	int rc;

	cd_results_init(&r);
	if (c->from) {
		/* re-judge a saved run: its facts stay, its findings and advice are made anew */
		if (cd_results_load_file(&r, c->from) < 0)
			return EXIT_USAGE;
		cd_results_clear_judgement(&r);
		/* the facts keep their run; the judgement is this version's */
		free(r.tool_version);
		r.tool_version = xstrdup(CD_VERSION);
	} else {
		phase(1);
		stamp(&r, mode, c);
		if (cd_discover_host(cd_results_add_host(&r), &c->dopt) < 0) {
			cd_results_free(&r);
			return EXIT_USAGE;
		}
	}
	if (score && !cd_stop) {
		phase(2);
		cd_rules_evaluate(&r);
	}
	if (cd_stop)
		stamp_stop(&r); /* the rules did not run either: a partial run makes no findings */
	if (!c->from && !deterministic())
		r.run.duration_s = cd_now_s() - t0;
	phase(3);
	rc = emit(c, render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}

static int cmd_check(struct ctx *c)
{
	if (c->from && c->dopt.topology_xml)
		return cd_error("options '--from' and '--topology' exclude each other: a saved document has its topology"),
		       EXIT_USAGE;
	return discover_and_report(c, "check", 1);
}

static int cmd_topo(struct ctx *c)
{
	return discover_and_report(c, "topo", 0);
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

int main(int argc, char **argv)
{
	struct option lo[ARRAY_SIZE(opts) + 1];
	char shortopts[64] = "";
	int used[ARRAY_SIZE(opts)] = { 0 };
	struct ctx c = { .format = OUT_FMT_TEXT, .fail_on = CD_SEV_FAIL, .timeout_s = DEFAULT_TIMEOUT_S, .color = 1 };
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
	if (c.nargs && cmd->fn != cmd_help)
		return cd_error("%s: unexpected argument '%s'", cmd->name, c.args[0]), EXIT_USAGE;
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
	arm_deadline(c.timeout_s);
	/* after the handlers: its "fault injection on" line tells a test signals are safe to send */
	if (cd_fault_init() < 0)
		return EXIT_USAGE;
	rc = cmd->fn(&c);
	if (cd_stop && rc != EXIT_USAGE) {
		const char *partial = stamped && rc != EXIT_RUNTIME ? ": the report is partial" : "";

		if (cd_stop == SIGALRM)
			cd_error("timeout: the run exceeded --timeout (%g s) during %s%s", c.timeout_s,
				 phases[stop_phase], partial);
		else
			cd_error("interrupted by %s during %s%s", cd_stop_name(), phases[stop_phase], partial);
		rc = EXIT_RUNTIME;
	}
	/* git's rule: a report that did not reach stdout is a failure (reported once: emit() may have said it) */
	if (rc != EXIT_RUNTIME && (fflush(stdout) || ferror(stdout))) {
		cd_error("cannot write to stdout: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return rc;
}
