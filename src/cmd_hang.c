/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang: ask a running NCCL job's RAS service (NCCL 2.24 and later) for its status
 * twice, --interval seconds apart, under the one --timeout deadline, and/or read PyTorch
 * Flight Recorder dumps (--fr); judge them (src/judge/rules_hang.c: missing, dead, erroring
 * and stuck ranks; src/judge/rules_fr.c: where a process group's ranks diverged), advise
 * (the decision tree's hang leaf) and report like every command. The RAS client is
 * src/probe/ras_client.c, the report parser src/core/ras.c, the dump reader src/core/fr.c.
 * Logs (LOGFILE…, as explain takes them) are read by explain's reader, which leaves the
 * PyTorch watchdog's reports in the document (cd_results.watchdog) for the judge
 * (src/judge/rules_wd.c). --nodes documents (a node check per host, as merge takes them)
 * give the named rank's node and its own failing findings; --check-host checks this host
 * when it is the one named.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "explain.h"
#include "fr.h"
#include "ras.h"
#include "ras_client.h"
#include "rules_hang.h"
#include "util.h"

#define HANG_QUERIES 2
#define FR_MAX_DUMPS 65536 /* files under --fr: a job of 64k ranks */
#define RAS_LEG_TIMEOUT_MAX_S 5 /* RAS_COLLECTIVE_LEG_TIMEOUT_SEC, src/ras/ras_internal.h: ncclras's default */

static void ras_step(int s)
{
	phase(PHASE_RAS + s);
}

/* Sleep up to `s` seconds; 0, or -1 when stopped. */
static int pause_s(double s)
{
	double end = cd_now_s() + s;

	phase(PHASE_RAS + CD_RAS_STATUS + 1);
	while (!cd_stop) {
		double left = end - cd_now_s();

		if (left <= 0)
			return 0;
		poll(NULL, 0, left > 0.1 ? 100 : (int)(left * 1000) + 1);
	}
	return -1;
}

/* ---- Flight Recorder dumps ---- */

struct fr_set {
	struct cd_fr_dump *d;
	size_t n, cap;
};

static void fr_set_free(struct fr_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		cd_fr_dump_free(&s->d[i]);
	free(s->d);
}

static int load_one(struct fr_set *s, const char *path)
{
	const char *kind;
	FILE *f = cd_open_input(path, &kind);
	unsigned char *buf;
	struct cd_fr_dump d;
	char *err = NULL;
	size_t len = 0;

	if (!f)
		return cd_error("option '--fr': cannot read '%s': %s", path, kind ? kind : strerror(errno));
	buf = (unsigned char *)cd_read_file(f, CD_FR_MAX_FILE, &len);
	fclose(f);
	if (!buf)
		return cd_error("option '--fr': cannot read '%s': %s", path,
				errno == EFBIG ? "larger than a Flight Recorder dump (256 MiB)" : strerror(errno));
	if (cd_fr_parse(&d, path, buf, len, &err) < 0) {
		free(buf);
		cd_error("option '--fr': %s", err);
		free(err);
		return -1;
	}
	free(buf);
	if (d.rank < 0) {
		cd_fr_dump_free(&d);
		return cd_error("option '--fr': '%s': no rank at the end of the file name: PyTorch names each dump "
				"<prefix><global rank> (nccl_trace_rank_3); rename it so",
				path);
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->d[i].rank == d.rank) {
			cd_error("option '--fr': '%s' and '%s' are both rank %ld: give the dumps of one job", s->d[i].path,
				 path, d.rank);
			cd_fr_dump_free(&d);
			return -1;
		}
	if (s->n == FR_MAX_DUMPS) {
		cd_fr_dump_free(&d);
		return cd_error("option '--fr': more than %d dumps", FR_MAX_DUMPS);
	}
	*CD_PUSH(s->d, s->n, s->cap) = d;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder: its regular files not starting with '.', in name order (not its subfolders). */
static int load_dir(struct fr_set *s, const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, before = s->n;
	int rc = 0;

	if (!dp)
		return cd_error("option '--fr': cannot read the folder '%s': %s", dir, strerror(errno));
	while ((de = readdir(dp)) && n <= FR_MAX_DUMPS) {
		char *p;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			*CD_PUSH(names, n, cap) = p;
		else
			free(p);
	}
	closedir(dp);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n && !rc; i++)
		rc = load_one(s, names[i]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!rc && s->n == before)
		return cd_error("option '--fr': the folder '%s' holds no file: expected one Flight Recorder dump per rank "
				"(nccl_trace_rank_0, …)",
				dir);
	return rc;
}

static int load_fr(const struct ctx *c, struct fr_set *s)
{
	for (int i = 0; i < c->n_fr; i++) {
		struct stat st;

		if (stat(c->fr[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (load_dir(s, c->fr[i]) < 0)
				return -1;
		} else if (load_one(s, c->fr[i]) < 0) {
			return -1;
		}
	}
	return 0;
}

static void judge_fr(struct cd_results *r, const struct fr_set *s)
{
	size_t f0 = r->n_findings, json = 0;

	cd_fr_judge(r, s->d, s->n);
	for (size_t i = 0; i < s->n; i++)
		json += s->d[i].json;
	for (size_t i = f0; i < r->n_findings; i++)
		cd_finding_evidence(&r->findings[i], "Flight Recorder: %zu dump%s (%s), ranks %ld to %ld", s->n,
				    s->n == 1 ? "" : "s", json == s->n ? "JSON" : json ? "pickle and JSON" : "pickle",
				    s->d[0].rank, s->d[s->n - 1].rank);
}

static int rank_cmp(const void *a, const void *b)
{
	const struct cd_fr_dump *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* ---- logs: explain's reader, the watchdog's reports into the document ---- */

static int read_logs(const struct ctx *c, struct cd_results *r)
{
	struct cd_results scratch;

	cd_results_init(&scratch);
	for (int i = 0; i < c->nargs; i++) {
		const char *path = c->args[i], *kind = NULL, *base = strrchr(path, '/');
		FILE *f = strcmp(path, "-") ? cd_open_input(path, &kind) : stdin;
		size_t len = 0;
		char *text;

		if (!f) {
			if (kind)
				cd_error("hang: '%s' is %s: expected a log file ('-' reads standard input)", path, kind);
			else
				cd_error("hang: cannot open the log '%s': %s", path, strerror(errno));
			cd_results_free(&scratch);
			return -1;
		}
		text = cd_read_file(f, (size_t)1 << 30, &len);
		if (f != stdin)
			fclose(f);
		if (!text) {
			cd_error("hang: cannot read the log '%s': %s", path, errno ? strerror(errno) : "larger than 1 GiB");
			cd_results_free(&scratch);
			return -1;
		}
		/* the log's other facts and LOG findings are explain's: hang keeps the watchdog's reports */
		cd_explain_parse(&scratch, text, len, !strcmp(path, "-") ? "stdin" : base ? base + 1 : path);
		free(text);
	}
	r->watchdog = scratch.watchdog;
	r->n_watchdog = scratch.n_watchdog;
	r->cap_watchdog = scratch.cap_watchdog;
	scratch.watchdog = NULL;
	scratch.n_watchdog = scratch.cap_watchdog = 0;
	cd_results_free(&scratch);
	return 0;
}

/* ---- the job's nodes: --nodes documents, and this host's check with --check-host ---- */

struct node_set {
	struct cd_results *d;
	char **file;
	size_t n, cap, cap_file;
};

static void node_set_free(struct node_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		cd_results_free(&s->d[i]);
		free(s->file[i]);
	}
	free(s->d);
	free(s->file);
}

static int node_add(struct node_set *s, const char *path)
{
	struct cd_results d;
	size_t nf = s->n;

	if (cd_results_load_file(&d, path) < 0) {
		cd_results_free(&d);
		return -1; /* the loader named the file and what was wrong */
	}
	*CD_PUSH(s->d, s->n, s->cap) = d;
	*CD_PUSH(s->file, nf, s->cap_file) = xstrdup(path);
	return 0;
}

/* Files and folders as merge takes them: a folder's regular *.json files, in name order. */
static int load_nodes(const struct ctx *c, struct node_set *s)
{
	for (int i = 0; i < c->n_nodes; i++) {
		struct stat st;
		char **names = NULL;
		size_t n = 0, cap = 0, before = s->n;
		DIR *dp;
		struct dirent *de;
		int rc = 0;

		if (stat(c->nodes[i], &st) < 0)
			return cd_error("option '--nodes': cannot read '%s': %s", c->nodes[i], strerror(errno));
		if (!S_ISDIR(st.st_mode)) {
			if (node_add(s, c->nodes[i]) < 0)
				return cd_error("option '--nodes': '%s' is not a commdiag document (commdiag check --json)",
						c->nodes[i]);
			continue;
		}
		if (!(dp = opendir(c->nodes[i])))
			return cd_error("option '--nodes': cannot read the folder '%s': %s", c->nodes[i], strerror(errno));
		while ((de = readdir(dp))) {
			size_t l = strlen(de->d_name);
			char *p;

			if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".json"))
				continue;
			p = xasprintf("%s/%s", c->nodes[i], de->d_name);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
				*CD_PUSH(names, n, cap) = p;
			else
				free(p);
		}
		closedir(dp);
		if (n)
			qsort(names, n, sizeof(*names), name_cmp);
		for (size_t k = 0; k < n && !rc; k++)
			if ((rc = node_add(s, names[k])) < 0)
				cd_error("option '--nodes': '%s' is not a commdiag document (commdiag check --json)", names[k]);
		for (size_t k = 0; k < n; k++)
			free(names[k]);
		free(names);
		if (rc)
			return -1;
		if (s->n == before)
			return cd_error("option '--nodes': the folder '%s' holds no *.json document: expected one "
					"commdiag check --json per node",
					c->nodes[i]);
	}
	return 0;
}

/* Is `host` (a name or an address a finding gives) this machine? */
static int is_this_host(const char *host)
{
	char me[256] = "";
	size_t n;

	if (!host || gethostname(me, sizeof(me) - 1) < 0)
		return 0;
	n = strcspn(me, ".");
	return !strcmp(host, me) || (strlen(host) == n && !strncmp(host, me, n)) || !strcmp(host, "localhost") ||
	       !strcmp(host, "127.0.0.1");
}

/*
 * --check-host: when a rank the judges named runs here, discover this host and judge it as
 * `check` does without probes; its document joins the node documents. A remote host's
 * check is the advice's (the command to run there): never a result made up here.
 */
static int check_here(struct ctx *c, const struct cd_results *r, struct node_set *s)
{
	for (size_t i = 0; i < r->n_findings; i++) {
		struct cd_results d;
		int rc;

		if (!r->findings[i].host || strncmp(r->findings[i].id, "HANG", 4) || !is_this_host(r->findings[i].host))
			continue;
		rc = load_or_discover(c, &d, "check");
		if (rc)
			return rc;
		rc = judge(c, &d, 1);
		if (rc) {
			cd_results_free(&d);
			return rc;
		}
		*CD_PUSH(s->d, s->n, s->cap) = d;
		{
			size_t nf = s->n - 1;

			*CD_PUSH(s->file, nf, s->cap_file) = xstrdup("--check-host: this host, discovered and judged now, no probes");
		}
		return 0;
	}
	return 0;
}

/* ---- NCCL RAS ---- */

/* Query RAS HANG_QUERIES times and judge: 0, or an exit code. */
static int run_ras(struct ctx *c, struct cd_results *r)
{
	const char *env = getenv("NCCL_RAS_ADDR");
	const char *addr = c->ras ? c->ras : env && *env ? env : "localhost:28028";
	const char *from = c->ras ? "option '--ras'" : env && *env ? "NCCL_RAS_ADDR" : "the default";
	struct cd_ras_snapshot snaps[HANG_QUERIES];
	char *host = NULL, *port = NULL, *err = NULL, *where, *fmt_note = NULL, *proto = NULL;
	size_t n = 0;
	int try_json = 1, rc = 0, ras_timeout = (int)(c->timeout_s / 4);

	if (cd_ras_split_addr(addr, &host, &port, &err) < 0) {
		cd_error("%s: %s", from, err);
		free(err);
		return EXIT_USAGE;
	}
	if (ras_timeout < 1)
		ras_timeout = 1;
	if (ras_timeout > RAS_LEG_TIMEOUT_MAX_S)
		ras_timeout = RAS_LEG_TIMEOUT_MAX_S;
	where = xasprintf("%s:%s", host, port);
	while (n < HANG_QUERIES && !cd_stop) {
		struct cd_ras_reply rep;

		if (n && pause_s(c->interval_s) < 0)
			break;
		rc = cd_ras_query(host, port, try_json, ras_timeout, ras_step, &rep, &err);
		if (rc == -2)
			break;
		if (rc == -1) {
			cd_error("hang: ras %s (query %zu): %s", where, n + 1, err);
			rc = EXIT_RUNTIME;
			goto out;
		}
		if (!rep.json && try_json) {
			try_json = 0; /* an older server: text from now on */
			fmt_note = xasprintf("the server answered '%s' to SET FORMAT json (before NCCL 2.28.7): the text "
					     "report was read",
					     rep.format_reply ? rep.format_reply : "");
		}
		if (!proto)
			proto = xstrdup(rep.protocol);
		if (cd_ras_parse(&snaps[n], rep.text, rep.len, &err) < 0) {
			cd_error("hang: ras %s (query %zu): the answer to VERBOSE STATUS: %s", where, n + 1, err);
			cd_ras_reply_free(&rep);
			rc = EXIT_RUNTIME;
			goto out;
		}
		cd_ras_reply_free(&rep);
		n++;
	}
	rc = 0;
	if (!cd_stop) {
		size_t f0 = r->n_findings;

		phase(2);
		cd_hang_judge(r, snaps, n, where);
		for (size_t i = f0; i < r->n_findings; i++) {
			cd_finding_evidence(&r->findings[i], "RAS server %s (%s), NCCL %s, %s report, %zu queries %g s apart",
					    where, proto ? proto : "?", snaps[n - 1].version ? snaps[n - 1].version : "?",
					    snaps[n - 1].json ? "JSON" : "text", n, c->interval_s);
			if (fmt_note)
				cd_finding_evidence(&r->findings[i], "%s", fmt_note);
		}
	}
out:
	for (size_t i = 0; i < n; i++)
		cd_ras_snapshot_free(&snaps[i]);
	free(host);
	free(port);
	free(err);
	free(where);
	free(fmt_note);
	free(proto);
	return rc;
}

int cmd_hang(struct ctx *c)
{
	struct fr_set fr = { 0 };
	struct node_set nodes = { 0 };
	struct cd_results r;
	int rc = 0;

	/* the dumps first: a bad one is a usage error before any network traffic */
	if (load_fr(c, &fr) < 0) {
		fr_set_free(&fr);
		return EXIT_USAGE;
	}
	if (fr.n)
		qsort(fr.d, fr.n, sizeof(*fr.d), rank_cmp);
	if (load_nodes(c, &nodes) < 0) {
		fr_set_free(&fr);
		node_set_free(&nodes);
		return EXIT_USAGE;
	}
	cd_results_init(&r);
	if (read_logs(c, &r) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	stamp(&r, "hang", c);
	r.run.ranks = CD_NULL_I64; /* no commdiag ranks ran: the ranks are the job's */
	if ((!c->n_fr && !c->nargs) || c->ras)
		rc = run_ras(c, &r);
	if (rc)
		goto out;
	if (cd_stop) {
		stamp_stop(&r); /* a partial run makes no findings */
	} else {
		phase(2);
		if (fr.n)
			judge_fr(&r, &fr);
		if (c->nargs && !cd_wd_judge(&r)) {
			struct cd_finding *f = cd_results_add_finding(&r, "HANG012", CD_SEV_WARN, NULL, "logs",
								      "no PyTorch watchdog timeout in the logs: they cannot "
								      "name a rank");

			cd_finding_evidence(f, "%d log%s read; the watchdog's lines (\"Watchdog caught collective operation "
					    "timeout\", \"last enqueued NCCL work\") name the SeqNum each rank stopped at",
					    c->nargs, c->nargs == 1 ? "" : "s");
		}
		cd_hang_cross(&r);
		if (c->check_host && (rc = check_here(c, &r, &nodes)))
			goto out;
		if (nodes.n)
			cd_hang_nodes(&r, nodes.d, (const char *const *)nodes.file, nodes.n);
		rc = lint_and_advise(&r, 0);
		if (rc)
			goto out;
	}
	rc = report_and_exit_code(c, &r);
out:
	cd_results_free(&r);
	fr_set_free(&fr);
	node_set_free(&nodes);
	return rc;
}
