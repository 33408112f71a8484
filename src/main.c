/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag: can this node (or job) carry distributed-training traffic, and if
 * not, which setting fixes it? Options are parsed once for every command; each
 * command says which options apply to it. Only main() picks the exit code.
 */
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

#include "conf.h"
#include "advise.h"
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
#define C_ALL (~0u)
/* the commands that take positional arguments */
/* the global options: every command that writes a report takes them */
#define C_GLOBAL (C_CHECK | C_TOPO | C_REPORT | C_VERSION | C_PROBE | C_RULES | C_SCORE | C_ADVISE | C_ENV | C_EXPLAIN | \
		  C_IMPORT)
/* the commands that judge, and so take thresholds */
#define C_JUDGE (C_CHECK | C_PROBE | C_SCORE | C_RULES | C_ADVISE | C_IMPORT)
/* the commands that render the results document (cd_report): the ones --format prometheus|html serve */
#define C_DOC (C_CHECK | C_TOPO | C_PROBE | C_REPORT | C_SCORE | C_IMPORT)
/* the commands that take positional arguments */
#define C_ARGS (C_HELP | C_PROBE | C_RULES | C_SCORE | C_EXPLAIN | C_IMPORT)
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
	const char *collective;     /* import --collective: for a log that does not name its test */
	int progress;               /* --progress 1, --no-progress 0, neither -1 */
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
static int cmd_rules(struct ctx *c);
static int cmd_score(struct ctx *c);
static int cmd_advise(struct ctx *c);
static int cmd_env(struct ctx *c);
static int cmd_explain(struct ctx *c);
static int cmd_import(struct ctx *c);

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
	{ "rules", cmd_rules, C_RULES, "list every rule and threshold in force, or validate a rules file",
	  "rules [--profile NAME] [--rules FILE] [-D KEY=VALUE] [--json] | rules check FILE..." },
	{ "score", cmd_score, C_SCORE, "re-judge a saved JSON document with the current rules (check --from)",
	  "score FILE.json|- [--profile NAME] [--rules FILE] [-D KEY=VALUE] [options]" },
	{ "advise", cmd_advise, C_ADVISE, "the settings to change, from the decision tree (--explain prints the tree)",
	  "advise [--from FILE.json] [--explain] [--shell] [options]" },
	{ "env", cmd_env, C_ENV, "lint NCCL_*, TORCH_NCCL_*, GLOO_*, OMPI_MCA_*, UCX_* settings and nccl.conf",
	  "env [--from FILE.json] [options]" },
	{ "explain", cmd_explain, C_EXPLAIN, "read NCCL, PyTorch or Open MPI logs and advise as check does",
	  "explain LOGFILE...|- [--shell] [options]" },
	{ "import", cmd_import, C_IMPORT, "read nccl-tests output (text or -J JSON) as probe results and judge it as score does",
	  "import nccl-tests FILE...|- [--collective NAME] [--profile NAME] [--rules FILE] [-D KEY=VALUE] [options]" },
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
	OPT_PROFILE,
	OPT_RULES,
	OPT_EXPLAIN,
	OPT_SHELL,
	OPT_PAIRS,
	OPT_COLLECTIVE,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
};

static const struct opt {
	struct option lo;
	int shortopt;
	unsigned applies;
	const char *arg;
	const char *help;
} opts[] = {
	{ { "json", no_argument, NULL, 'j' }, 'j', C_GLOBAL, NULL, "write the JSON document (same as --format json)" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, 0, C_GLOBAL, "text|json|prometheus|html",
	  "output format (default text; prometheus and html: check, topo, probe NAME, report, score, import)" },
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
	{ { "from", required_argument, NULL, OPT_FROM }, 0, C_CHECK | C_REPORT | C_ADVISE | C_ENV, "FILE.json",
	  "load a saved document ('-' for stdin); check re-scores it with the current rules" },
	{ { "nccl-lib", required_argument, NULL, OPT_NCCL_LIB }, 0, C_CHECK | C_TOPO | C_VERSION | C_PROBE | C_ADVISE | C_ENV,
	  "PATH",
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
	{ { "profile", required_argument, NULL, OPT_PROFILE }, 0, C_JUDGE, "NAME",
	  "thresholds of this hardware profile ('none': default.conf only) instead of the one chosen from the GPUs" },
	{ { "rules", required_argument, NULL, OPT_RULES }, 0, C_JUDGE, "FILE",
	  "read thresholds from FILE over the profile's (repeatable)" },
	{ { "define", required_argument, NULL, 'D' }, 'D', C_JUDGE, "KEY=VALUE",
	  "set one threshold, over everything else (repeatable)" },
	{ { "explain", no_argument, NULL, OPT_EXPLAIN }, 0, C_ADVISE, NULL,
	  "print the decision tree itself instead of walking it" },
	{ { "shell", no_argument, NULL, OPT_SHELL }, 0, C_CHECK | C_ADVISE | C_EXPLAIN, NULL,
	  "print only the advice as lines to paste or eval (export/unset; commands as comments)" },
	{ { "pairs", no_argument, NULL, OPT_PAIRS }, 0, C_CHECK, NULL,
	  "under mpirun: hunt a bad node with two passes of disjoint pairs (mpi.bw, nccl.pairs), not all pairs" },
	{ { "collective", required_argument, NULL, OPT_COLLECTIVE }, 0, C_IMPORT, "NAME",
	  "the collective of a log that does not name it (all_reduce, all_gather, alltoall, …)" },
	{ { "progress", no_argument, NULL, OPT_PROGRESS }, 0, C_CHECK | C_TOPO | C_PROBE, NULL,
	  "a status line on stderr (phase, probe, size) even when stderr is not a terminal" },
	{ { "no-progress", no_argument, NULL, OPT_NO_PROGRESS }, 0, C_CHECK | C_TOPO | C_PROBE, NULL,
	  "no status line, not even on a terminal" },
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
static const char *const phases[] = { "start", "discovery", "rules", "report", "probes", "mpi start", "gather" };
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
	cd_progress_signal_erase();
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

/*
 * ---- output: stdout, or FILE written aside and renamed over it ----
 *
 * The document is written to an unnamed file in FILE's directory (O_TMPFILE) that gets a
 * name only once it is whole and synced: a run killed while writing (mpirun's SIGKILL a
 * second after its SIGTERM) leaves nothing behind. Where the file system cannot do that,
 * or /proc is missing, a named temporary file (mkstemp) is used, which a signal handler
 * removes, SIGKILL excepted. Either way FILE is replaced by rename(2): whole or untouched.
 */

struct sink {
	FILE *f;
	char *tmp;  /* the temporary name: from the start (mkstemp), or from the commit on (unnamed) */
	char *dir;
	const char *path;
	int unnamed;
};

static void sink_free(struct sink *s)
{
	pending_tmp = NULL;
	free(s->tmp);
	free(s->dir);
	s->tmp = s->dir = NULL;
}

/* An unnamed file in dir: fd, or -1 with errno (EOPNOTSUPP: this system cannot). */
static int open_unnamed(const char *dir)
{
	int fd;

	if (access("/proc/self/fd", X_OK) < 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		errno = EOPNOTSUPP;
	return fd;
}

static int sink_open(struct sink *s, const char *path)
{
	const char *base;
	char *dup;
	struct stat st;
	int fd, err;

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
	s->dir = xstrdup(dirname(dup));
	free(dup);
	fd = open_unnamed(s->dir);
	if (fd >= 0) {
		s->unnamed = 1;
	} else if (errno == EOPNOTSUPP) {
		s->tmp = xasprintf("%s/.%s.XXXXXX", s->dir, base);
		pending_tmp = s->tmp; /* mkstemp fills the name in place: no window without cleanup */
		fd = mkstemp(s->tmp);
	}
	if (fd < 0) {
		err = errno;
		sink_free(s);
		return cd_error("option '--output': cannot create '%s': %s", path, strerror(err));
	}
	fchmod(fd, 0644);
	s->f = fdopen(fd, "w");
	if (!s->f) {
		err = errno;
		close(fd);
		if (s->tmp)
			unlink(s->tmp);
		sink_free(s);
		return cd_error("option '--output': cannot open '%s': %s", path, strerror(err));
	}
	return 0;
}

static void sink_abort(struct sink *s)
{
	if (!s->path)
		return;
	fclose(s->f);
	if (s->tmp)
		unlink(s->tmp);
	sink_free(s);
}

/* Give the unnamed file a temporary name next to FILE; 0, or -1 with errno. */
static int name_unnamed(struct sink *s)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(cd_now_s() * 1e9);
	const char *base = strrchr(s->path, '/');
	char proc[64];

	base = base ? base + 1 : s->path;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(s->f));
	for (unsigned int i = 0;; i++) {
		char *x6;

		free(s->tmp);
		/* the same shape as mkstemp's: .NAME.XXXXXX */
		s->tmp = xasprintf("%s/.%s.XXXXXX", s->dir, base);
		x6 = s->tmp + strlen(s->tmp) - 6;
		for (int k = 0; k < 6; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			x6[k] = alnum[(x >> 33) % (sizeof(alnum) - 1)];
		}
		pending_tmp = s->tmp; /* a stop between the link and the rename still removes it */
		if (linkat(AT_FDCWD, proc, AT_FDCWD, s->tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		pending_tmp = NULL;
		if (errno != EEXIST || i == 100) {
			/* the name is not ours: the caller must not remove it */
			int err = errno;

			free(s->tmp);
			s->tmp = NULL;
			errno = err;
			return -1;
		}
	}
}

/* Called after out_end() flushed the stream. */
static int sink_commit(struct sink *s)
{
	int rc = 0;

	if (!s->path)
		return 0;
	if (cd_fault_active("output.stall")) {
		cd_warn("test fault output.stall: the report is written, not yet committed, until the run is stopped");
		while (!cd_stop)
			pause();
	}
	if (fsync(fileno(s->f)) < 0 && errno != EINVAL)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (!rc && s->unnamed && name_unnamed(s) < 0)
		rc = cd_error("cannot write '%s': cannot name the finished file: %s", s->path, strerror(errno));
	if (fclose(s->f) != 0 && !rc)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (!rc && rename(s->tmp, s->path) < 0)
		rc = cd_error("cannot rename '%s' to '%s': %s", s->tmp, s->path, strerror(errno));
	if (rc && s->tmp)
		unlink(s->tmp);
	sink_free(s);
	return rc;
}

/* Render through the one emitter to stdout or -o; returns 0, EXIT_USAGE or EXIT_RUNTIME. */
static int emit(struct ctx *c, void (*render)(struct cd_out *o, const void *arg), const void *arg)
{
	struct sink s;
	struct cd_out *o;

	cd_progress_end(); /* the report starts on a clean line */
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

static void render_shell(struct cd_out *o, const void *r)
{
	cd_report_shell(o, r);
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
				   .follower = d->local_rank != 0, .pairs = c->pairs };

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
static int lint_and_advise(struct cd_results *r, int local_conf)
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
static int judge(struct ctx *c, struct cd_results *r, int local_conf)
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
static int load_or_discover(struct ctx *c, struct cd_results *r, const char *mode)
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

static int discover_and_report(struct ctx *c, const char *mode, int score, const int *selected)
{
	struct cd_results r;
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
	if (c->from) {
		/* a saved run keeps its facts; its findings and advice are made anew */
		rc = load_or_discover(c, &r, mode);
		if (rc)
			return rc;
	} else {
		struct cd_results scratch;
		struct cd_host *h;

		cd_results_init(&r);
		cd_results_init(&scratch);
		phase(1);
		stamp(&r, mode, c);
		/* under MPI the first rank of each host discovers it; the others only say who they are */
		h = cd_dist_discover(&r, cd_results_add_host(&scratch), &c->dopt);
		if (!h) {
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
			cd_results_free(&r);
			return 0; /* the exit code comes from rank 0 (cd_dist_end) */
		}
	}
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
	rc = emit(c, c->shell ? render_shell : render_results, &r);
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

static void render_advise(struct cd_out *o, const void *r)
{
	cd_report_advice(o, r);
}

static void render_tree(struct cd_out *o, const void *unused)
{
	(void)unused;
	cd_report_tree(o);
}

static int cmd_advise(struct ctx *c)
{
	struct cd_results r;
	int rc;

	if (c->tree) {
		if (c->from || c->shell)
			return cd_error("advise: '--explain' prints the tree alone; it takes no '--from' or '--shell'"),
			       EXIT_USAGE;
		phase(3);
		return emit(c, render_tree, NULL);
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
	rc = emit(c, c->shell ? render_shell : render_advise, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}

static void render_env_report(struct cd_out *o, const void *r)
{
	cd_report_env(o, r);
}

static int cmd_env(struct ctx *c)
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
	rc = emit(c, render_env_report, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}

/* A log named on the command line, or stdin for "-": the whole of it, up to a bound. */
static char *read_log(const char *who, const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *text;

	if (!f) {
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

static int cmd_explain(struct ctx *c)
{
	struct cd_results r;
	int rc;

	if (!c->nargs)
		return cd_error("explain: which log? use 'commdiag explain LOGFILE...' ('-' for stdin)"), EXIT_USAGE;
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
	phase(3);
	rc = emit(c, c->shell ? render_shell : render_explain, &r);
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
static int cmd_import(struct ctx *c)
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
	if (!deterministic())
		r.run.duration_s = cd_now_s() - c->t_start;
	phase(3);
	rc = emit(c, render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}

static int cmd_topo(struct ctx *c)
{
	return discover_and_report(c, "topo", 0, NULL);
}

static int cmd_score(struct ctx *c)
{
	if (c->nargs != 1)
		return cd_error("score: which document? use 'commdiag score FILE.json' ('-' for stdin)"), EXIT_USAGE;
	if (c->from)
		return cd_error("score: the document is the argument; '--from' is for check and report"), EXIT_USAGE;
	c->from = c->args[0];
	return discover_and_report(c, "check", 1, NULL);
}

static void render_rules(struct cd_out *o, const void *conf)
{
	cd_report_rules(o, conf);
}

static int cmd_rules(struct ctx *c)
{
	struct cd_conf conf;
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
	rc = emit(c, render_rules, &conf);
	cd_conf_free(&conf);
	return rc;
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
		if (strlen(left) > 30) /* the choices of --format: the description goes under them */
			fprintf(f, "  %s\n  %-30s %s\n", left, "", p->help);
		else
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
			 .probe_timeout_s = DEFAULT_PROBE_TIMEOUT_S, .progress = -1 };
	const struct cmd *cmd = &cmds[0];
	int opt, rc, verbosity = 0;
	/* --rules and -D repeat; on the stack, so early usage errors leak nothing */
	const char *rule_files[MAX_REPEAT], *defs[MAX_REPEAT];

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
			else if (!strcmp(optarg, "prometheus"))
				c.format = OUT_FMT_PROM;
			else if (!strcmp(optarg, "html"))
				c.format = OUT_FMT_HTML;
			else
				return cd_error("option '--format': unknown format '%s': expected text, json, prometheus or html",
						optarg),
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
		case OPT_COLLECTIVE:
			if (!cd_nt_collective_valid(optarg))
				return cd_error("option '--collective': unknown collective '%s': expected one of %s", optarg,
						cd_nt_collective_list()),
				       EXIT_USAGE;
			c.collective = optarg;
			break;
		case OPT_PROGRESS:
		case OPT_NO_PROGRESS:
			c.progress = opt == OPT_PROGRESS;
			break;
		case OPT_PROBE_TIMEOUT:
			if (cd_parse_seconds(optarg, &c.probe_timeout_s) < 0)
				return cd_error("option '--probe-timeout': '%s' is not a number of seconds above 0", optarg),
				       EXIT_USAGE;
			break;
		case OPT_PROFILE:
			c.conf.profile = optarg;
			break;
		case OPT_RULES:
			if (c.conf.n_files == MAX_REPEAT)
				return cd_error("option '--rules': at most %d files", MAX_REPEAT), EXIT_USAGE;
			rule_files[c.conf.n_files++] = optarg;
			break;
		case 'D':
			if (c.conf.n_defs == MAX_REPEAT)
				return cd_error("option '-D': at most %d definitions", MAX_REPEAT), EXIT_USAGE;
			defs[c.conf.n_defs++] = optarg;
			break;
		case OPT_EXPLAIN:
			c.tree = 1;
			break;
		case OPT_SHELL:
			c.shell = 1;
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
	c.conf.files = rule_files;
	c.conf.defs = defs;
	if (c.nargs && !(cmd->id & C_ARGS))
		return cd_error("%s: unexpected argument '%s'", cmd->name, c.args[0]), EXIT_USAGE;
	if (used_both(used, OPT_QUICK, OPT_FULL))
		return cd_error("options '--quick' and '--full' exclude each other"), EXIT_USAGE;
	if (used_both(used, OPT_PROGRESS, OPT_NO_PROGRESS))
		return cd_error("options '--progress' and '--no-progress' exclude each other"), EXIT_USAGE;
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

	/* metrics and the page are made of the whole results document: the other commands' output is not one */
	if (c.format >= OUT_FMT_PROM) {
		const char *fmt = c.format == OUT_FMT_PROM ? "prometheus" : "html";

		if (!(cmd->id & C_DOC) || (cmd->id == C_PROBE && !c.nargs))
			return cd_error("option '--format %s': '%s'%s does not render a results document; %s is for "
					"check, topo, probe NAME..., report, score and import", fmt, cmd->name,
					cmd->id == C_PROBE ? " without a probe name lists the probes: it" : "", fmt),
			       EXIT_USAGE;
		if (c.shell)
			return cd_error("option '--shell' writes shell lines: it cannot be combined with '--format %s'",
					fmt),
			       EXIT_USAGE;
	}
	if (c.shell && c.format == OUT_FMT_JSON)
		return cd_error("option '--shell' writes shell lines: it cannot be combined with '--json'"), EXIT_USAGE;
	{
		const char *nc = getenv("NO_COLOR");

		if ((nc && *nc) || c.format != OUT_FMT_TEXT || (c.output && strcmp(c.output, "-")) ||
		    !isatty(STDOUT_FILENO))
			c.color = 0;
	}
	c.t_start = cd_now_s();
	arm_deadline(c.timeout_s);
	/* after the handlers: its "fault injection on" line tells a test signals are safe to send */
	if (cd_fault_init() < 0)
		return EXIT_USAGE;
	/* commands that discover run as one job under mpirun/srun; the others run per rank */
	if (cmd->id & (C_CHECK | C_TOPO | C_PROBE)) {
		phase(5);
		if (cd_dist_init(&argc, &argv) < 0)
			return EXIT_RUNTIME;
		/* mpirun forwards output through a pseudo-terminal: isatty() says yes for a file */
		if (cd_dist_get()->mpi)
			c.color = 0;
		/* under MPI only rank 0 shows progress */
		cd_progress_start(cd_progress_choose(cd_dist_get()->rank == 0 ? c.progress : 0, isatty(STDERR_FILENO),
						     getenv("TERM"), cd_dist_get()->mpi, verbosity < 0),
				  c.t_start);
	}
	rc = cmd->fn(&c);
	cd_progress_end();
	if (cd_stop && rc != EXIT_USAGE) {
		const char *partial = stamped && rc != EXIT_RUNTIME ? ": the report is partial" : "";

		if (cd_stop == SIGALRM)
			cd_error("timeout: the run exceeded --timeout (%g s) during %s%s", c.timeout_s,
				 phases[stop_phase], partial);
		else
			cd_error("interrupted by %s during %s%s", cd_stop_name(), phases[stop_phase], partial);
		rc = EXIT_RUNTIME;
	}
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
