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
#include <sys/resource.h>
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


struct cmd {
	const char *name;
	int (*fn)(struct ctx *c);
	unsigned id;
	const char *summary;
	const char *usage;
};

static int cmd_help(struct ctx *c);

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
	  "version [--nccl-lib PATH] [--load-net-plugin] [--json]" },
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
	{ "hang", cmd_hang, C_HANG, "which rank is stuck, missing or dead: ask a running NCCL job's RAS service twice, seconds apart, "
	  "or read PyTorch Flight Recorder dumps (--fr) and watchdog logs (LOGFILE, as explain)",
	  "hang [LOGFILE...|-] [--ras HOST:PORT] [--interval SECONDS] [--fr DIR|FILE]… [--nodes FILE|DIR]… [--check-host] "
	  "[--timeout SECONDS] [options]" },
	{ "compare", cmd_compare, C_COMPARE,
	  "judge NEW against OLD per probe and size: regressions beyond both runs' noise, missing results (BASE*)",
	  "compare OLD.json NEW.json [-D baseline.KEY=VALUE] [options]" },
	{ "merge", cmd_merge, C_MERGE, "put the documents of many nodes (files or a directory) into one fleet document and judge it",
	  "merge FILE.json...|DIR [--profile NAME] [--rules FILE] [-D KEY=VALUE] [options]" },
};

enum {
	OPT_FORMAT = 256,
	OPT_FAIL_ON,
	OPT_TIMEOUT,
	OPT_NO_COLOR,
	OPT_TOPOLOGY,
	OPT_FROM,
	OPT_NCCL_LIB,
	OPT_LOAD_NET_PLUGIN,
	OPT_QUICK,
	OPT_FULL,
	OPT_PROBE_TIMEOUT,
	OPT_PROFILE,
	OPT_RULES,
	OPT_REQUIRE,
	OPT_EXPLAIN,
	OPT_SHELL,
	OPT_PAIRS,
	OPT_COLLECTIVE,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_RAS,
	OPT_INTERVAL,
	OPT_BASELINE,
	OPT_FR,
	OPT_REACH,
	OPT_NODES,
	OPT_CHECK_HOST,
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
	  "output format (default text; prometheus and html: check, topo, probe NAME, report, score, import, hang, compare)" },
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
	{ { "load-net-plugin", no_argument, NULL, OPT_LOAD_NET_PLUGIN }, 0,
	  C_CHECK | C_TOPO | C_VERSION | C_PROBE | C_ADVISE | C_ENV, NULL,
	  "load the NCCL net plugin NCCL_NET_PLUGIN names, to report its version (runs its code)" },
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
	{ { "require", required_argument, NULL, OPT_REQUIRE }, 0, C_JUDGE, "GROUP[,GROUP…]",
	  "rule groups that must be evaluated (gpu, nccl, ib, …): 'not evaluated' fails (REQ001; repeatable)" },
	{ { "explain", no_argument, NULL, OPT_EXPLAIN }, 0, C_ADVISE, NULL,
	  "print the decision tree itself instead of walking it" },
	{ { "shell", no_argument, NULL, OPT_SHELL }, 0, C_CHECK | C_ADVISE | C_EXPLAIN, NULL,
	  "print only the advice as lines to paste or eval (export/unset; commands as comments)" },
	{ { "pairs", no_argument, NULL, OPT_PAIRS }, 0, C_CHECK, NULL,
	  "under mpirun: hunt a bad node with two passes of disjoint pairs (mpi.bw, nccl.pairs), not all pairs" },
	{ { "reach", required_argument, NULL, OPT_REACH }, 0, C_CHECK | C_PROBE, "sample|all",
	  "tcp.reach: each host tests a bounded sample of peers at once (default), or every pair (all, up to 64 hosts)" },
	{ { "collective", required_argument, NULL, OPT_COLLECTIVE }, 0, C_IMPORT, "NAME",
	  "the collective of a log that does not name it (all_reduce, all_gather, alltoall, …)" },
	{ { "progress", no_argument, NULL, OPT_PROGRESS }, 0, C_CHECK | C_TOPO | C_PROBE, NULL,
	  "a status line on stderr (phase, probe, size) even when stderr is not a terminal" },
	{ { "no-progress", no_argument, NULL, OPT_NO_PROGRESS }, 0, C_CHECK | C_TOPO | C_PROBE, NULL,
	  "no status line, not even on a terminal" },
	{ { "ras", required_argument, NULL, OPT_RAS }, 0, C_HANG, "HOST:PORT",
	  "the NCCL RAS service to ask (default NCCL_RAS_ADDR, else localhost:28028)" },
	{ { "interval", required_argument, NULL, OPT_INTERVAL }, 0, C_HANG, "SECONDS",
	  "seconds between RAS queries (default 5)" },
	{ { "baseline", required_argument, NULL, OPT_BASELINE }, 0, C_CHECK | C_SCORE, "FILE.json",
	  "also judge the run against this earlier document per probe and size (BASE001-BASE004, as compare)" },
	{ { "fr", required_argument, NULL, OPT_FR }, 0, C_HANG, "DIR|FILE",
	  "PyTorch Flight Recorder dumps: a file, or a folder of one per rank (repeatable; RAS is asked only with --ras too)" },
	{ { "nodes", required_argument, NULL, OPT_NODES }, 0, C_HANG, "FILE|DIR",
	  "commdiag documents of the job's nodes (a file, or a folder as merge takes; repeatable): the named rank's node and its failing findings" },
	{ { "check-host", no_argument, NULL, OPT_CHECK_HOST }, 0, C_HANG, NULL,
	  "run the node check here when the named rank's host is this host, else print the command to run there" },
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
static const char *const phases[] = { "start",
				       "discovery",
				       "rules",
				       "report",
				       "probes",
				       "mpi start",
				       "gather",
				       /* PHASE_RAS + enum cd_ras_step, then the pause between queries */
				       "ras: connecting",
				       "ras: waiting for SERVER PROTOCOL",
				       "ras: waiting for OK to TIMEOUT",
				       "ras: waiting for the answer to SET FORMAT json",
				       "ras: waiting for STATUS",
				       "ras: between queries" };
static int stamped; /* the document written says it is partial */
/* The -o temporary file, so a deadline or a signal never leaves half a report behind. */
char *volatile pending_tmp;

void say(const char *s)
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

	sigset_t ours;

	sa.sa_handler = on_signal;
	/* restart interrupted reads: a library must not see EINTR it does not expect */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * A blocked mask is inherited through exec: a parent that blocked SIGALRM (some job
	 * launchers' threads do) made --timeout never fire. GNU timeout unblocks it too.
	 */
	sigemptyset(&ours);
	sigaddset(&ours, SIGALRM);
	sigaddset(&ours, SIGINT);
	sigaddset(&ours, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &ours, NULL);
	it.it_value.tv_sec = (time_t)seconds;
	it.it_value.tv_usec = (suseconds_t)((seconds - floor(seconds)) * 1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * Discovery opens a file per sysfs attribute (hwloc, verbs, NVML). Started with a tiny
 * soft limit (ulimit -n 4), hwloc read nothing and every PCI device came out as vendor
 * 0x0000 with topo "ok": take what the hard limit allows, up to a sane number.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= 1024)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 1024 ? 1024 : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 64)
		cd_warn("only %ju file descriptors (ulimit -n, hard limit): discovery may miss facts",
			(uintmax_t)rl.rlim_cur);
}

void phase(int p)
{
	deadline_phase = p;
}

/* The document says it is partial, and where the run stopped. */
void stamp_stop(struct cd_results *r)
{
	free(r->run.stopped_by);
	r->run.stopped_by = xstrdup(cd_stop_name());
	free(r->run.stopped_phase);
	r->run.stopped_phase = xstrdup(phases[stop_phase]);
	stamped = 1;
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
			 .probe_timeout_s = DEFAULT_PROBE_TIMEOUT_S, .progress = -1, .interval_s = 5.0 };
	const struct cmd *cmd = &cmds[0];
	int opt, rc, verbosity = 0;
	/* --rules and -D repeat; on the stack, so early usage errors leak nothing */
	const char *rule_files[MAX_REPEAT], *defs[MAX_REPEAT], *fr_paths[MAX_REPEAT], *node_paths[MAX_REPEAT];

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
				return cd_error("option '--timeout': '%s' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5", optarg),
				       EXIT_USAGE;
			break;
		case OPT_NO_COLOR:
			c.color = 0;
			break;
		case OPT_TOPOLOGY:
			c.dopt.topology_xml = optarg;
			break;
		case OPT_FROM:
			/* the last of several used to win silently: many documents are 'commdiag merge' */
			if (c.from)
				return cd_error("option '--from' given twice ('%s', '%s'): it takes one document; "
						"'commdiag merge FILE...|DIR' puts many into one", c.from, optarg),
				       EXIT_USAGE;
			c.from = optarg;
			break;
		case OPT_LOAD_NET_PLUGIN:
			c.dopt.load_net_plugin = 1;
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
		case OPT_REACH:
			if (strcmp(optarg, "sample") && strcmp(optarg, "all"))
				return cd_error("option '--reach': unknown mode '%s': expected sample or all", optarg), EXIT_USAGE;
			c.reach_all = !strcmp(optarg, "all");
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
		case OPT_RAS:
			c.ras = optarg;
			break;
		case OPT_FR:
			if (c.n_fr == MAX_REPEAT)
				return cd_error("option '--fr': at most %d paths (give the folder that holds the dumps)", MAX_REPEAT),
				       EXIT_USAGE;
			fr_paths[c.n_fr++] = optarg;
			break;
		case OPT_NODES:
			if (c.n_nodes == MAX_REPEAT)
				return cd_error("option '--nodes': at most %d paths (give the folder that holds the documents)",
						MAX_REPEAT),
				       EXIT_USAGE;
			node_paths[c.n_nodes++] = optarg;
			break;
		case OPT_CHECK_HOST:
			c.check_host = 1;
			break;
		case OPT_INTERVAL:
			if (cd_parse_seconds(optarg, &c.interval_s) < 0)
				return cd_error("option '--interval': '%s' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 5 or 0.5", optarg),
				       EXIT_USAGE;
			break;
		case OPT_BASELINE:
			c.baseline = optarg;
			break;
		case OPT_PROBE_TIMEOUT:
			if (cd_parse_seconds(optarg, &c.probe_timeout_s) < 0)
				return cd_error("option '--probe-timeout': '%s' is not a number of seconds: expected a plain number above 0 and at most 31536000 (a year), like 120 or 0.5", optarg),
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
		case OPT_REQUIRE: {
			/* repeatable: a prolog's own --require and the admin's add up */
			static char joined[1024];
			size_t len = strlen(joined);

			if (len + strlen(optarg) + 2 > sizeof(joined))
				return cd_error("option '--require': the lists add up to more than %zu characters: expected "
						"rule group names like gpu,nccl,ib", sizeof(joined) - 1), EXIT_USAGE;
			snprintf(joined + len, sizeof(joined) - len, "%s%s", len ? "," : "", optarg);
			c.conf.require = joined;
			break;
		}
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
	c.fr = fr_paths;
	c.nodes = node_paths;
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
					"check, topo, probe NAME..., report, score, import, hang and compare", fmt, cmd->name,
					cmd->id == C_PROBE ? " without a probe name lists the probes: it" : "", fmt),
			       EXIT_USAGE;
		if (c.shell)
			return cd_error("option '--shell' writes shell lines: it cannot be combined with '--format %s'",
					fmt),
			       EXIT_USAGE;
	}
	if (c.shell && c.format == OUT_FMT_JSON)
		return cd_error("option '--shell' writes shell lines: it cannot be combined with '--json'"), EXIT_USAGE;
	/* before the run, not after it: a name that can never be written is a usage error now */
	if (cd_sink_check(c.output) < 0)
		return EXIT_USAGE;
	{
		const char *nc = getenv("NO_COLOR");

		if ((nc && *nc) || c.format != OUT_FMT_TEXT || (c.output && strcmp(c.output, "-")) ||
		    !isatty(STDOUT_FILENO))
			c.color = 0;
	}
	c.t_start = cd_now_s();
	raise_fd_limit();
	arm_deadline(c.timeout_s);
	/* after the handlers: its "fault injection on" line tells a test signals are safe to send */
	if (cd_fault_init() < 0)
		return EXIT_USAGE;
	/* commands that discover run as one job under mpirun/srun; the others run per rank */
	if (cmd->id & (C_CHECK | C_TOPO | C_PROBE)) {
		phase(5);
		cd_dist_set_render(cd_report_compact); /* the parts of an MPI run travel as the compact JSON document */
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
	/* git's rule: a report that did not reach stdout is a failure (reported once: emit_report() may have said it) */
	if (rc != EXIT_RUNTIME && (fflush(stdout) || ferror(stdout))) {
		cd_error("cannot write to stdout: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return rc;
}
