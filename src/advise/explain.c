/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Log lines to facts and findings. One pass over the buffer, one bounded line at
 * a time; every pattern is a substring search on that copy, so no input can make
 * it read outside the line. Interleaved ranks are told apart by their prefixes
 * (explain_lines.c reads them): NCCL's "host:pid:tid [dev]", Open MPI's "[host:pid]" or
 * "[host][[job,vpid],rank]", nccl-tests' "host: Test … failure", PyTorch's "[rankN]" (no
 * host). What a launcher, a logger or a terminal put before the line is taken off first; a
 * rank it names keeps its own last host for the lines that name none.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "explain.h"
#include "explain_catalog.h"
#include "explain_state.h"
#include "explain_errline.h"
#include "explain_fold.h"
#include "explain_lines.h"
#include "explain_nics.h"
#include "explain_stated.h"
#include "explain_net.h"
#include "explain_torch.h"
#include "explain_versions.h"

_Static_assert(CD_FOLD_LINE_MAX >= CD_EXPLAIN_LINE_MAX, "a folded line's joins hold any line explain reads");

/* ---- small string helpers over a NUL-terminated line ---- */

static const char *after(const char *line, const char *pat)
{
	const char *p = strstr(line, pat);

	return p ? p + strlen(pat) : NULL;
}


static int wordchar(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == '+' || c == ',' || c == '^' || c == '=';
}

/* A value as NCCL prints it after "set by environment to ": up to the first blank. */
static int valuechar(int c)
{
	return c && !isspace(c);
}

/* ---- hosts ---- */

struct cd_host *explain_host_named(struct state *st, const char *full)
{
	struct cd_results *r = st->r;
	struct cd_host *h;
	char *name = cd_hostname_from_text(full); /* what the document can hold */

	for (size_t i = 0; i < r->n_hosts; i++)
		if (r->hosts[i].hostname && !strcmp(r->hosts[i].hostname, name)) {
			free(name);
			return &r->hosts[i];
		}
	if (r->n_hosts >= MAX_HOSTS) {
		free(name);
		return &r->hosts[0];
	}
	h = cd_results_add_host(r);
	h->hostname = name;
	/* a log names hosts only through prefixes; lines without one get the log's name */
	if (!strcmp(full, st->name))
		h->host_id_source = xstrdup(CD_HOST_FROM_LOG);
	cd_section_set(&h->part[CD_PART_SYSTEM], CD_ST_SKIPPED, "facts from a log, not from this host");
	return h;
}

/* The host the stream (a launcher's rank prefix) last named; NULL for none. With a host: it names that one now. */
static const char *stream_host(struct state *st, const char *stream, const char *host)
{
	int i = 0;

	if (!*stream)
		return NULL;
	while (i < st->n_streams && strcmp(st->streams[i].key, stream))
		i++;
	if (i == st->n_streams) {
		if (!host || i == MAX_STREAMS)
			return NULL;
		snprintf(st->streams[i].key, sizeof(st->streams[i].key), "%s", stream);
		st->n_streams++;
	}
	if (host)
		snprintf(st->streams[i].host, sizeof(st->streams[i].host), "%s", host);
	return st->streams[i].host;
}

static struct cd_host *line_host(struct state *st, const char *line, const char *stream)
{
	char host[128];
	const char *s;

	if (!cd_explain_host_prefix(line, host, sizeof(host))) {
		s = *st->line_host ? st->line_host : stream_host(st, stream, NULL);
		snprintf(host, sizeof(host), "%s", s ? s : st->last_host[0] ? st->last_host : st->name);
	} else {
		snprintf(st->last_host, sizeof(st->last_host), "%s", host);
		stream_host(st, stream, host);
	}
	if (!st->first_host[0])
		snprintf(st->first_host, sizeof(st->first_host), "%s", host);
	return explain_host_named(st, host);
}

/* ---- findings ---- */

struct cd_finding *explain_log_finding(struct state *st, const char *id, enum cd_severity sev, const struct cd_host *h,
				       const char *subject, const char *title, const char *line)
{
	struct cd_results *r = st->r;
	struct cd_finding *f = NULL;

	for (size_t i = st->first_finding; i < r->n_findings; i++) {
		struct cd_finding *x = &r->findings[i];

		if (!strcmp(x->id, id) && x->host && h->hostname && !strcmp(x->host, h->hostname) &&
		    ((!x->subject && !subject) || (x->subject && subject && !strcmp(x->subject, subject)))) {
			f = x;
			break;
		}
	}
	if (!f) {
		if (r->n_findings - st->first_finding >= MAX_FINDINGS)
			return NULL;
		f = cd_results_add_finding(r, id, sev, h->hostname, subject, title);
	}
	if (sev > f->severity)
		f->severity = sev; /* a warning first (libibverbs' memlock notice), the failure after it */
	if (line && f->evidence.n < MAX_EVIDENCE) {
		const char *s = line;

		while (*s == ' ' || *s == '\t')
			s++;
		cd_finding_evidence(f, "%.*s", EVIDENCE_CHARS, s);
	}
	return f;
}

/* ---- facts ---- */

/* "NCCL version 2.7.8+cuda11.1" anywhere; PyTorch ends errors with "NCCL version 2.10.3". */
static int parse_version(struct state *st, struct cd_host *h, const char *line)
{
	const char *v = after(line, "NCCL version ");
	char buf[32];

	if (!v || !isdigit((unsigned char)*v))
		return 0;
	cd_explain_token(v, cd_explain_addrchar, buf, sizeof(buf));
	while (*buf && buf[strlen(buf) - 1] == '.')
		buf[strlen(buf) - 1] = '\0';
	if (!h->versions.nccl) {
		h->versions.nccl = xstrdup(buf);
	} else if (strcmp(h->versions.nccl, buf)) {
		struct cd_finding *f = explain_log_finding(st, "LOG009", CD_SEV_FAIL, h, "nccl",
							   "NCCL versions differ between ranks", NULL);

		if (f && !f->evidence.n)
			cd_finding_evidence(f, "ranks on %s report NCCL %s and %s", h->hostname, h->versions.nccl, buf);
	}
	return 1;
}

/*
 * "NET/Plugin: Loaded net plugin Libfabric (v10)"; "… No plugin found (libnccl-net.so),
 * using internal implementation" or "… Could not find: libnccl-net.so" when there is none.
 */
static int parse_plugin(struct state *st, struct cd_host *h, const char *line)
{
	const char *p = after(line, "Loaded net plugin ");
	const char *v;
	char buf[96];

	if (p && (v = strstr(p, " (v")) && isdigit((unsigned char)v[3]) && strchr(v, ')')) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(strchr(v, ')') + 1 - p), p);
	} else if (strstr(line, "NET/Plugin") && (strstr(line, "No plugin found") || strstr(line, "Could not find") ||
						   strstr(line, "using internal") || strstr(line, "Using internal"))) {
		snprintf(buf, sizeof(buf), "internal");
	} else {
		return 0;
	}
	if (!h->versions.nccl_net_plugin) {
		h->versions.nccl_net_plugin = xstrdup(buf);
	} else if (strcmp(h->versions.nccl_net_plugin, buf)) {
		struct cd_finding *f = explain_log_finding(st, "LOG009", CD_SEV_FAIL, h, "nccl net plugin",
							   "NCCL net plugins differ between ranks", NULL);

		if (f && !f->evidence.n)
			cd_finding_evidence(f, "ranks on %s load net plugin %s and %s", h->hostname,
					    h->versions.nccl_net_plugin, buf);
	}
	return 1;
}

/* "NCCL_SOCKET_IFNAME set by environment to eth0." */
static int parse_env(struct cd_host *h, const char *line)
{
	const char *s = strstr(line, " set by environment to ");
	const char *b;
	char name[96], val[256];
	size_t n;

	if (!s)
		return 0;
	b = s;
	while (b > line && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
		b--;
	n = (size_t)(s - b);
	if (!n || n >= sizeof(name))
		return 0;
	memcpy(name, b, n);
	name[n] = '\0';
	/* the whole value: NCCL_IB_HCA's mlx5_0:1, NCCL_COMM_ID's host:port, [IPv6]:port */
	cd_explain_token(s + strlen(" set by environment to "), valuechar, val, sizeof(val));
	while (*val && val[strlen(val) - 1] == '.')
		val[strlen(val) - 1] = '\0';
	if (!strncmp(name, "NCCL_", 5) || !strncmp(name, "TORCH_", 6))
		cd_host_set_env(h, name, val);
	return 1;
}

static void note_transport(struct state *st, const char *via)
{
	char t[48];
	size_t n = cd_explain_token(via, wordchar, t, sizeof(t)), used = strlen(st->transports);

	if (!n)
		return;
	/* "NET/IB/0/GDRDMA" → "NET/IB"; keep P2P/IPC, SHM, … */
	if (!strncmp(t, "NET/", 4)) {
		char *slash = strchr(t + 4, '/');

		if (slash)
			*slash = '\0';
	}
	if (strstr(st->transports, t))
		return;
	snprintf(st->transports + used, sizeof(st->transports) - used, "%s%s", used ? ", " : "", t);
}

/* An address after a pattern: "Connect to 10.0.0.2<45763>", "connect() to 172.17.0.1 failed". */
static int addr_after(const char *line, const char *pat, char *buf, size_t len)
{
	const char *p = after(line, pat);

	return p && cd_explain_token(p, cd_explain_addrchar, buf, len) && strchr(buf, '.');
}

/* ---- PyTorch's watchdog (explain_torch.c reads it) ---- */

/*
 * One LOG001 per log, on the host of its first timeout line: which rank is behind is a
 * question about the job's process groups, not about the host a line happens to follow.
 */
static void timeout_line(struct state *st, struct cd_host *h, const char *line)
{
	for (size_t i = st->first_finding; i < st->r->n_findings; i++) {
		struct cd_finding *f = &st->r->findings[i];

		if (strcmp(f->id, "LOG001"))
			continue;
		if (f->evidence.n < MAX_EVIDENCE) {
			while (*line == ' ' || *line == '\t')
				line++;
			cd_finding_evidence(f, "%.*s", EVIDENCE_CHARS, line);
		}
		return;
	}
	explain_log_finding(st, "LOG001", CD_SEV_FAIL, h, NULL, "collective operation timed out (PyTorch watchdog)", line);
}

/* ---- NCCL's result codes ---- */

/* ncclResult_t as nccl.h numbers it, with what each means for the one reading a log */
static const char *const nccl_result[][2] = {
	{ "ncclSuccess", "no error" },
	{ "ncclUnhandledCudaError", "a CUDA call failed (driver, device or memory)" },
	{ "ncclSystemError", "a system or library call failed: socket, shared memory, IB verbs or memory" },
	{ "ncclInternalError", "NCCL's own check failed, most often because a peer went away or sent the unexpected" },
	{ "ncclInvalidArgument", "an NCCL call got a bad argument (a bug or mismatch in the job)" },
	{ "ncclInvalidUsage", "NCCL was used wrongly: ranks disagree on the operation, count or order" },
	{ "ncclRemoteError", "a remote rank or the network failed" },
	{ "ncclInProgress", "a non-blocking NCCL call had not finished" },
};

static int srcchar(int c)
{
	return isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == ':';
}

/* Does the n-byte name end like a C/C++/CUDA source file ("net_ib.cc", "shm.h")? */
static int source_file(const char *name, size_t n)
{
	static const char *const ext[] = { ".cc", ".cpp", ".cu", ".cuh", ".c", ".h", ".hpp" };

	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		size_t k = strlen(ext[i]);

		if (n > k && !memcmp(name + n - k, ext[i], k))
			return 1;
	}
	return 0;
}

/* "host:pid" of an NCCL line ("host:pid:tid [dev] NCCL INFO …"); 0 when the line has no such prefix. */
static int nccl_proc(const char *line, char *out, size_t len)
{
	size_t n = strcspn(line, " \t");
	const char *c1 = memchr(line, ':', n), *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;

	if (!c1 || !c2 || c1 == line || !isdigit((unsigned char)c1[1]) || (size_t)(c2 - line) >= len)
		return 0;
	snprintf(out, len, "%.*s", (int)(c2 - line), line);
	return 1;
}

/*
 * A process whose error trace is followed by its own "Init COMPLETE" handled that error: NCCL
 * fell back (no NIC info from a net plugin, an optional transport) and its communicator came up.
 */
static void trace_proc(struct state *st, const char *line, int init_done)
{
	char proc[160];
	int i;

	if (!nccl_proc(line, proc, sizeof(proc)))
		return;
	for (i = 0; i < st->n_trace_procs && strcmp(st->trace_procs[i].proc, proc); i++)
		;
	if (i == st->n_trace_procs) {
		if (init_done)
			return; /* no trace of this process before: nothing was handled */
		if (i == MAX_STREAMS) {
			st->trace_procs_full = 1;
			return;
		}
		snprintf(st->trace_procs[st->n_trace_procs++].proc, sizeof(st->trace_procs[0].proc), "%s", proc);
	}
	st->trace_procs[i].init_done = init_done;
}

/* Every error of the log is a trace its process recovered from, and NCCL warned of nothing. */
static int traces_handled(const struct state *st)
{
	if (!st->traced || st->traced != st->errors || st->nccl_warns || st->trace_procs_full || !st->n_trace_procs)
		return 0;
	for (int i = 0; i < st->n_trace_procs; i++)
		if (!st->trace_procs[i].init_done)
			return 0;
	return 1;
}

/*
 * NCCL prints each frame of a failed call on its way up as "NCCL INFO file.cc:LINE -> CODE"
 * (checks.h); the first such line of a log is where the error began. Ring and channel lines
 * ("0[1a000] -> 1[1b000]") have no source file before the arrow and are not taken.
 */
static void parse_result_trace(struct state *st, const char *line)
{
	const char *arrow = strstr(line, " -> "), *start, *colon;
	char *end;
	long code;

	if (!arrow || !strstr(line, "NCCL"))
		return;
	code = strtol(arrow + 4, &end, 10);
	if (end == arrow + 4 || (*end && !isspace((unsigned char)*end)) || code < 1 || code >= (long)ARRAY_SIZE(nccl_result))
		return;
	for (start = arrow; start > line && srcchar((unsigned char)start[-1]);)
		start--;
	colon = memchr(start, ':', (size_t)(arrow - start));
	if (!colon || !isdigit((unsigned char)colon[1]) || !source_file(start, (size_t)(colon - start)))
		return;
	if (!st->result_lines[code]++)
		snprintf(st->result_origin[code], sizeof(st->result_origin[code]), "%.*s", (int)(arrow - start), start);
	st->errors++;
	st->traced++;
	trace_proc(st, line, 0);
}

/* "ncclSystemError (2): what it means; first at net_ib.cc:123 (4 lines)" for each code seen */
static void result_evidence(const struct state *st, struct cd_finding *f)
{
	for (size_t c = 1; f && c < ARRAY_SIZE(nccl_result); c++)
		if (st->result_lines[c])
			cd_finding_evidence(f, "%s (%zu): %s; first at %s (%d line%s)", nccl_result[c][0], c,
					    nccl_result[c][1], st->result_origin[c], st->result_lines[c],
					    st->result_lines[c] == 1 ? "" : "s");
}

/*
 * The versions the log shows against rules/versions.catalog (explain_versions.c): an
 * architecture the NCCL or PyTorch build has no kernels for, a driver older than the build
 * needs, drivers or builds that differ between ranks. Each verdict is a finding; one with a
 * fix is also advice naming the table's row, after the catalogue's own.
 */
static void versions_finish(struct state *st)
{
	const struct cd_vers_db *db = cd_vers_default();
	struct cd_vers_verdict *v = xcalloc(32, sizeof(*v));
	size_t n = cd_vers_judge(st->vers, db, v, 32);

	for (size_t i = 0; i < n; i++) {
		struct cd_finding *f = explain_log_finding(st, v[i].id, v[i].sev, explain_host_named(st, v[i].host),
							   v[i].subject, v[i].title, NULL);
		struct cd_advice *a;
		int dup = 0;

		for (int k = 0; f && k < v[i].n_evidence; k++)
			cd_finding_evidence(f, "%s", v[i].evidence[k]);
		if (!f || !v[i].fix[0])
			continue;
		for (size_t k = 0; k < st->r->n_advice && !dup; k++)
			dup = !st->r->advice[k].env && st->r->advice[k].value && !strcmp(st->r->advice[k].value, v[i].fix);
		if (dup)
			continue;
		a = cd_results_add_advice(st->r);
		a->value = xstrdup(v[i].fix);
		cd_strv_push(&a->findings, v[i].id);
		cd_strv_push(&a->path, v[i].path[0] ? v[i].path : "version table");
		a->why = xasprintf("%s: %s", v[i].title, v[i].why);
	}
	free(v);
}

/* NCCL's socket transport listing an interface another host cannot use: virtual, or link-local only. */
static void socket_iface_check(struct state *st, struct cd_host *h, const char *line, const char *p)
{
	char name[64], addr[80];

	for (int guard = 0; p && *p && *p != ';' && guard < 32; guard++) {
		enum cd_nic_kind k;

		if (!cd_explain_iface_item(&p, name, sizeof(name), addr, sizeof(addr)))
			return;
		k = cd_explain_nic_kind(name);
		if (k == CD_NIC_VETH || k == CD_NIC_BRIDGE || k == CD_NIC_TUNNEL || k == CD_NIC_LOOPBACK ||
		    !strncasecmp(addr, "fe80:", 5))
			explain_log_finding(st, "LOG023", CD_SEV_WARN, h, name, "NCCL's socket transport uses a virtual or "
					    "link-local-only interface", line);
	}
}

/* ---- one line ---- */

static int has_any(const char *line, const char *const *pats, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(line, pats[i]))
			return 1;
	return 0;
}

/* Who printed an error line: each library's key once, in the order of its first error. */
static void note_error_library(struct state *st, const char *line)
{
	const char *key = cd_error_library(line); /* one of its static keys: compared by address */

	for (int i = 0; key && i < st->n_error_libs; i++)
		if (st->error_libs[i] == key)
			return;
	if (key && st->n_error_libs < (int)ARRAY_SIZE(st->error_libs))
		st->error_libs[st->n_error_libs++] = key;
}

/*
 * The WARN counted on the line before was NCCL's notice that no verbs library loads ("Failed to
 * open libibverbs.so[.1]", a fact: it goes to sockets), folded so that its words end on this
 * line: it is not an unexplained warning, and the fact holds.
 */
static void fold_notice(struct state *st, const char *line)
{
	if (!st->warn_line || st->warn_line != st->lineno - 1 || !cd_fold_has(&st->fold, line, "Failed to open libibverbs"))
		return;
	st->nccl_warns -= st->warn_nccl;
	st->warns--;
	st->n_unmatched -= st->warn_kept;
	st->warn_line = 0;
	st->ib_none = 1;
}

static int nofab_text(const char *t)
{
	return strstr(t, "system not yet initialized") || strstr(t, "cudaErrorSystemNotReady");
}

/* A registration refused for memory, or the limit named. */
static int memlock_text(const char *t)
{
	return ((strstr(t, "ibv_reg_mr") || strstr(t, "ibv_create_cq")) && strstr(t, "Cannot allocate memory")) ||
	       strstr(t, "RLIMIT_MEMLOCK") || strstr(t, "max locked memory");
}

static int retry_text(const char *t)
{
	return strstr(t, "transport retry counter exceeded") || strstr(t, "IBV_WC_RETRY_EXC_ERR");
}

/* The readers of a phrase that makes a finding by itself: on a line, and on a folded line's seam. */
static const struct phrase_reader {
	int (*says)(const char *text);
	const char *id, *subject, *title;
} phrase_readers[] = {
	{ nofab_text, "LOG012", "fabric manager", "CUDA not initialised: the NVSwitch fabric is not up" },
	{ memlock_text, "LOG008", "memlock", "RDMA memory registration failed (locked-memory limit)" },
	{ retry_text, "LOG007", NULL, "RDMA completions failed: retry count exceeded" },
};
enum { PHRASE_NOFAB, PHRASE_MEMLOCK, PHRASE_RETRY };

static void phrase_finding(struct state *st, const struct cd_host *h, const struct phrase_reader *p, const char *text)
{
	/* libibverbs' "Warning: RLIMIT_MEMLOCK is N bytes" comes at open, before any registration:
	   a job whose buffers fit goes on, so alone it warns (a failed registration fails) */
	enum cd_severity sev = p == &phrase_readers[PHRASE_MEMLOCK] && strstr(text, "Warning: RLIMIT_MEMLOCK") ?
				       CD_SEV_WARN : CD_SEV_FAIL;

	explain_log_finding(st, p->id, sev, h, p->subject, p->title, text);
}

/* A phrase on a folded line's seam that neither side holds alone makes its finding. */
static void fold_phrases(struct state *st, const struct cd_host *h, const char *line)
{
	const char *last;

	if (!cd_fold_seamed(&st->fold))
		return;
	last = st->fold.piece[st->fold.pieces - 1];
	for (int j = 0; j < 2; j++)
		for (size_t i = 0; i < ARRAY_SIZE(phrase_readers); i++) {
			const struct phrase_reader *p = &phrase_readers[i];

			if (p->says(st->fold.seam[j]) && !p->says(last) && !p->says(line)) {
				phrase_finding(st, h, p, st->fold.seam[j]);
				return;
			}
		}
}

/*
 * Is the line inside a help box of Open MPI's (opal_show_help: a rule of 74 dashes above and
 * below) whose first line is "WARNING"? Such a box is a notice: the errno it quotes ("Error
 * code: 2 (No such file or directory)") is the fallback it took, not a cause (LOG096). Only a
 * rule of 70 dashes or more opens or closes a box, its header is the line right after, and a
 * box still open after 60 lines was cut off (a log that ends in one, ranks printing over it).
 */
static int notice_box(struct state *st, const char *line)
{
	const char *text = line + strspn(line, " \t");
	size_t dashes = strspn(text, "-");

	if (dashes >= 70 && !text[dashes]) {
		st->box = !st->box;
		st->box_lines = st->box_notice = 0;
		return 0;
	}
	if (!st->box)
		return 0;
	if (!st->box_lines++)
		st->box_notice = !strncmp(text, "WARNING", 7);
	if (st->box_lines > 60)
		st->box = st->box_notice = 0;
	return st->box_notice;
}

/*
 * One segment of a line, its decorations already taken off (stream: the rank they named);
 * error_line: cd_error_line's verdict on it, which the reading loop also needs.
 */
static void classify(struct state *st, const char *line, const char *stream, int error_line)
{
	static const char *const p2p[] = { "failed to open CUDA IPC handle", "peer access is not supported",
					   "Could not enable P2P between", "CANNOT Access Peer",
					   "P2P is disabled between connected GPUs", "cudaIpcOpenMemHandle failed" };
	static const char *const sock[] = { "socketStartConnect: Connect to", "Call to connect failed",
					    "Call to connect timeout", "Network is unreachable",
					    "Connection closed by remote peer", "socketProgress: Connection closed" };
	static const char *const nosock[] = { "no socket interface found", "is neither AF_INET(2) nor AF_INET6(10)" };
	static const char *const errs[] = { "unhandled system error", "ncclInternalError", "internal error",
					    "unhandled cuda error", "ncclSystemError", "invalid usage", "ncclRemoteError",
					    "Test NCCL failure", "Test CUDA failure", "remote process exited", "NCCL error" };
	struct cd_host *h = line_host(st, line, stream);
	fold_notice(st, line);
	fold_phrases(st, h, line);
	if (strstr(line, "NCCL INFO") && strstr(line, "Init COMPLETE"))
		trace_proc(st, line, 1);
	else if (cd_fold_has(&st->fold, line, "Init COMPLETE") && strstr(st->fold.piece[0], "NCCL INFO"))
		trace_proc(st, st->fold.piece[0], 1); /* a folded "… NCCL INFO … Init COMPLETE": its first piece names the process */
	if (!st->first_error[0] && error_line) {
		snprintf(st->first_error, sizeof(st->first_error), "%s", line + strspn(line, " \t"));
		st->first_error_line = st->lineno;
	}
	{
		/* the box is followed on every line; the words only where this line could still be
		 * the one kept: none yet, or the first error line after a plain one */
		int in_notice = notice_box(st, line);
		const struct cd_stated *s =
			in_notice || (st->stated && (!error_line || st->stated_error)) ? NULL : cd_stated_cause(line);

		if (s) {
			st->stated = s;
			st->stated_error = error_line;
			st->stated_lineno = st->lineno;
			st->stated_host = (size_t)(h - st->r->hosts);
			snprintf(st->stated_line, sizeof(st->stated_line), "%s", line + strspn(line, " \t"));
		}
	}
	const char *p;
	char addr[80];
	int known = parse_version(st, h, line) | parse_env(h, line) | parse_plugin(st, h, line);
	int torch = (cd_torch_set_host(st->torch, h->host_id_source ? NULL : h->hostname), cd_torch_line(st->torch, line));
	int cat = explain_catalogue_line(st, h, line);

	cd_vers_log_line(st->vers, h->hostname, cd_host_from_log(h), line);
	parse_result_trace(st, line);
	cd_net_line(st->net, h->hostname, line);
	if (strstr(line, "Open MPI failed to TCP connect to a peer MPI process"))
		st->ompi_connect_box = 1; /* its "Message: connect() to ADDR failed" line follows */

	if ((p = after(line, "NET/Socket : Using "))) {
		cd_explain_nccl_ifaces(h, p);
		socket_iface_check(st, h, line, p);
	} else if ((p = after(line, "Bootstrap : Using ")) || (p = after(line, "Bootstrap: Using ")) ||
		   (p = after(line, "NET : Using interface ")))
		cd_explain_nccl_ifaces(h, p);
	else if ((p = after(line, "NET/IB : Using ")) && *p == '[')
		cd_explain_nccl_hcas(h, p);
	else if (strstr(line, "NET/IB : No device found") || strstr(line, "Failed to open libibverbs") ||
		 strstr(line, "Count not open libibverbs.so.1"))
		st->ib_none = 1; /* no RDMA device or no verbs library (2.30: "Count" sic, .so.1 the last tried) */
	else if (strstr(line, "Using network Socket") || strstr(line, "Using internal Network Socket"))
		st->net_socket = 1;
	else if (strstr(line, "Using network IB"))
		st->net_ib = 1;
	else if ((p = after(line, " via ")) && strstr(line, "Channel"))
		note_transport(st, p);
	else if ((p = after(line, " nranks ")) && strstr(line, "comm 0x")) {
		int n = (int)strtol(p, NULL, 10);

		st->world_mixed |= st->world && n != st->world;
		st->world = n;
	} else if (!known)
		known = strstr(line, "NCCL INFO") != NULL;
	if (known != 0 && known != 1)
		known = 1;
	known |= torch;
	if (strstr(line, "via NET/IB/") || strstr(line, "via NET/IBext")) {
		if (strstr(line, "GDRDMA"))
			st->gdr_yes = 1;
		else
			st->gdr_no = 1;
	}

	/* /dev/shm (LOG004) and a duplicate GPU (LOG006) are the catalogue's: its entries read the errno */
	if (has_any(line, p2p, ARRAY_SIZE(p2p)))
		explain_log_finding(st, "LOG005", CD_SEV_WARN, h, "p2p", "GPU peer-to-peer unavailable or failing", line);
	else if (strstr(line, "cuMem") && (strstr(line, "failed") || strstr(line, "Cuda failure")))
		explain_log_finding(st, "LOG013", CD_SEV_WARN, h, "cumem", "cuMem allocation or mapping failed", line);
	else if (torch && cd_torch_timed_out(st->torch) &&
		   (strstr(line, "Watchdog caught collective operation timeout") || strstr(line, "Timeout at NCCL work")))
		timeout_line(st, h, line);
	else if (strstr(line, "Got completion") && (strstr(line, "error 12") || strstr(line, "status=12")))
		explain_log_finding(st, "LOG007", CD_SEV_FAIL, h,
				    strstr(line, "::ffff:") || strstr(line, "RoCE") ? "RoCE" : NULL,
				    "RDMA completions failed: retry count exceeded (status 12)", line);
	else if (retry_text(line))
		phrase_finding(st, h, &phrase_readers[PHRASE_RETRY], line);
	else if (memlock_text(line))
		phrase_finding(st, h, &phrase_readers[PHRASE_MEMLOCK], line);
	else if (strstr(line, "GPU Direct RDMA Disabled") && !strstr(line, "(distance "))
		/* "… for HCA %d '%s' (no module)" (NCCL up to 2.17): no peer-memory module. The
		   "(distance %d > %d)" form is NCCL's topology choice (graph/paths.cc: the NIC is further
		   from the GPU than NCCL_NET_GDR_LEVEL), which no module changes: explain_net keeps it as a fact */
		explain_log_finding(st, "LOG011", CD_SEV_WARN, h, "gdr", "GPUDirect RDMA disabled", line);
	else if (nofab_text(line))
		phrase_finding(st, h, &phrase_readers[PHRASE_NOFAB], line);
	else if (strstr(line, "nvls.cc") && (strstr(line, "Cuda failure") || strstr(line, "failed")))
		explain_log_finding(st, "LOG014", CD_SEV_FAIL, h, "nvls", "NVLS (NVLink SHARP) setup failed", line);
	else if (st->ompi_connect_box && strstr(line, "Message:") && addr_after(line, "connect() to ", addr, sizeof(addr))) {
		st->ompi_connect_box = 0;
		addr[strcspn(addr, ":")] = '\0'; /* "10.7.0.188:1024": the port is not the address */
		explain_log_finding(st, "LOG010", CD_SEV_FAIL, h, addr, "Open MPI TCP connection failed", line);
	} else if ((strstr(line, "btl_tcp") || strstr(line, "oob_tcp") || strstr(line, "Open MPI failed to TCP connect")) &&
		 (addr_after(line, "connect() to ", addr, sizeof(addr))))
		explain_log_finding(st, "LOG010", CD_SEV_FAIL, h, addr, "Open MPI TCP connection failed", line);
	else if (strstr(line, "Call to connect returned") && strstr(line, ", retrying"))
		; /* NCCL 2.7-2.23's INFO every 1000 refused connects: it goes on trying; its WARN when it stops is the failure */
	else if (has_any(line, sock, ARRAY_SIZE(sock))) { /* older WARN forms: the catalogue's s15-ncclold entries */
		if (!addr_after(line, "Connect to ", addr, sizeof(addr)) && !addr_after(line, "peer ", addr, sizeof(addr)))
			addr[0] = '\0';
		explain_log_finding(st, "LOG003", CD_SEV_FAIL, h, *addr ? addr : NULL, "socket connection between ranks failed", line);
	} else if (has_any(line, nosock, ARRAY_SIZE(nosock)) && !strstr(line, "with family 0 is neither"))
		/* family 0: a peer's address read at the wrong place (the catalogue's version skew) */
		explain_log_finding(st, "LOG003", CD_SEV_FAIL, h, "interface", "no usable socket interface", line);
	else if (cat == 1)
		; /* the catalogue decides what it means once the whole log is read */
	else if (cat == 2 || has_any(line, errs, ARRAY_SIZE(errs)))
		st->errors++;
	else if (strstr(line, "Failed to open libibverbs"))
		; /* no verbs library: the fact was read above (ib_none); this branch only keeps the line
		   out of the WARN branch below and counts it recognised (LOG000's count), for NCCL
		   goes to sockets and that is not an error */
	else if (strstr(line, "NCCL WARN") || strstr(line, " WARN ")) {
		st->warn_nccl = strstr(line, "NCCL WARN") != NULL;
		st->nccl_warns += st->warn_nccl;
		st->warn_kept = st->n_unmatched < MAX_EVIDENCE;
		if (st->warn_kept)
			snprintf(st->unmatched[st->n_unmatched++], EVIDENCE_CHARS, "%s", line);
		st->warns++;
		st->warn_line = st->lineno;
	} else if (!known) {
		return;
	}
	st->recognised++;
}

/* ---- after the last line ---- */

/* A finding that names a failure: not what was read (LOG000), a fact (LOG002), a help text's list
 * of causes (LOG098) or errors without a cause (LOG099). */
static int names_failure(const char *id)
{
	return strcmp(id, "LOG000") && strcmp(id, "LOG002") && strcmp(id, "LOG098") && strcmp(id, "LOG099");
}

static int cause_found(const struct state *st)
{
	for (size_t i = st->first_finding; i < st->r->n_findings; i++)
		if (names_failure(st->r->findings[i].id))
			return 1;
	return 0;
}

/* LOG097: every finding but LOG098/LOG099's came from generic entries that fail (consequences: a
 * peer that exited, a closed connection): the cause is in another process's log, or earlier. */
static void consequences_only(struct state *st, struct cd_host *first)
{
	struct cd_finding *f;

	if (!st->n_consequence)
		return;
	for (size_t i = st->first_finding; i < st->r->n_findings; i++) {
		int k = 0;

		while (k < st->n_consequence && st->consequence[k] != i)
			k++;
		if (k == st->n_consequence && names_failure(st->r->findings[i].id))
			return;
	}
	f = explain_log_finding(st, "LOG097", CD_SEV_INFO, first, NULL,
				"the log shows only consequences of a failure that began elsewhere", NULL);
	for (int k = 0; f && k < st->n_consequence; k++) {
		struct cd_finding *c = &st->r->findings[st->consequence[k]];

		c->consequence = 1; /* in the document, so the report (and an imported one) reads it */
		cd_finding_evidence(f, "%s: %s", c->id, c->title);
	}
}

/*
 * LOG096: nothing explains the log, but a line states its cause in the words the system prints
 * for one (explain_stated.h). The finding quotes the line; the advice is the general check for
 * what those words say, never a setting, and does not repeat the line (a log's text is not
 * advice). Not where a help text listed several causes (LOG098): its checks are the advice.
 */
static void stated_cause(struct state *st)
{
	const struct cd_stated *s = st->stated;
	struct cd_finding *f;
	struct cd_advice *a;

	if (!s || cause_found(st) || explain_finding_in_log(st, "LOG098"))
		return;
	f = explain_log_finding(st, "LOG096", CD_SEV_WARN, &st->r->hosts[st->stated_host], s->cause,
				"a line states a cause no catalogue entry reads", NULL);
	if (!f)
		return;
	cd_finding_evidence(f, "line %ld: %s", st->stated_lineno, st->stated_line);
	cd_finding_evidence(f, "\"%s\" is how %s says it", s->words, s->source);
	for (size_t i = 0; i < st->r->n_advice; i++) /* another log of this run stated the same: its advice stands */
		if (st->r->advice[i].value && !strcmp(st->r->advice[i].value, s->check) && st->r->advice[i].findings.n &&
		    !strcmp(st->r->advice[i].findings.v[0], "LOG096"))
			return;
	a = cd_results_add_advice(st->r);
	a->value = xstrdup(s->check);
	cd_strv_push(&a->findings, "LOG096");
	cd_strv_push(&a->path, "a line states its cause; no catalogue entry reads it");
	a->why = xasprintf("line %ld of %s says \"%s\" (%s): %s", st->stated_lineno, st->name, s->words, s->source,
			   s->cause);
}

static void finish(struct state *st, struct cd_host *first)
{
	struct cd_finding *f;

	for (size_t i = st->first_finding; i < st->r->n_findings; i++)
		if (!strcmp(st->r->findings[i].id, "LOG001"))
			cd_torch_summarise(st->torch, &st->r->findings[i], st->world_mixed ? 0 : st->world);
	cd_torch_export(st->torch, st->r, st->name, st->world_mixed ? 0 : st->world); /* for hang's judge */
	if (st->gdr_yes && st->gdr_no)
		explain_log_finding(st, "LOG011", CD_SEV_WARN, first, "gdr",
				    "GPUDirect RDMA used on some IB connections and not on others", NULL);
	/* NCCL versions that differ between hosts */
	for (size_t i = 1; i < st->r->n_hosts; i++) {
		const char *a = st->r->hosts[0].versions.nccl, *b = st->r->hosts[i].versions.nccl;

		if (a && b && strcmp(a, b)) {
			f = explain_log_finding(st, "LOG009", CD_SEV_FAIL, &st->r->hosts[i], "nccl",
						"NCCL versions differ between hosts", NULL);
			if (f && !f->evidence.n)
				cd_finding_evidence(f, "%s has NCCL %s, %s has %s", st->r->hosts[0].hostname, a,
						    st->r->hosts[i].hostname, b);
		}
	}
	for (size_t i = 1; i < st->r->n_hosts; i++) {
		const char *a = st->r->hosts[0].versions.nccl_net_plugin, *b = st->r->hosts[i].versions.nccl_net_plugin;

		if (a && b && strcmp(a, b)) {
			f = explain_log_finding(st, "LOG009", CD_SEV_FAIL, &st->r->hosts[i], "nccl net plugin",
						"NCCL net plugins differ between hosts", NULL);
			if (f && !f->evidence.n)
				cd_finding_evidence(f, "%s loads net plugin %s, %s loads %s", st->r->hosts[0].hostname, a,
						    st->r->hosts[i].hostname, b);
		}
	}
	cd_net_to_hosts(st->net, st->r);
	explain_catalogue_finish(st);
	versions_finish(st);
	{
		const char *best = cd_net_candidates(st->net, NULL);

		if (best && (f = explain_log_finding(st, "LOG030", CD_SEV_INFO, first, best,
						     "candidate causes of the RDMA error, best supported first", NULL)))
			cd_net_candidates(st->net, f);
	}
	if (st->ib_none && st->net_socket)
		explain_log_finding(st, "LOG002", CD_SEV_INFO, first, "network", "no RDMA device: NCCL uses TCP sockets", NULL);
	consequences_only(st, first);
	stated_cause(st);
	/*
	 * LOG099 needs an error: a line a library prints for one, or an NCCL WARN (NCCL's error
	 * channel). Another library's WARN alone is a notice ("UCX  WARN  CPU affinity is not
	 * set"), and an NCCL error trace every process of which then completed its init was handled.
	 */
	if (((st->errors && !traces_handled(st)) || st->nccl_warns) && !cause_found(st)) {
		char libs[64] = ""; /* the subject: "ucx,ompi" */

		for (int i = 0, n = 0; i < st->n_error_libs; i++)
			n += snprintf(libs + n, sizeof(libs) - (size_t)n, "%s%s", i ? "," : "", st->error_libs[i]);
		f = explain_log_finding(st, "LOG099", CD_SEV_WARN, first, *libs ? libs : NULL,
					"errors in the log without a recognisable cause", NULL);
		result_evidence(st, f);
		explain_catalogue_unexplained(st, f);
		for (int i = 0; f && i < st->n_unmatched; i++)
			cd_finding_evidence(f, "%s", st->unmatched[i]);
	}
	/* what was read, for the report and for a log nothing explains */
	f = explain_log_finding(st, "LOG000", CD_SEV_INFO, first, st->name, "what the log shows", NULL);
	if (!f)
		return;
	cd_finding_evidence(f, "%d recognised line%s, %d error%s, %d unmatched warning%s", st->recognised,
			    st->recognised == 1 ? "" : "s", st->errors, st->errors == 1 ? "" : "s", st->warns,
			    st->warns == 1 ? "" : "s");
	for (size_t i = 0; i < st->r->n_hosts; i++) {
		const struct cd_host *h = &st->r->hosts[i];

		if (h->versions.nccl || h->n_nics || h->n_hcas)
			cd_finding_evidence(f, "%s: NCCL %s, %zu interface%s, %zu HCA%s", h->hostname,
					    h->versions.nccl ? h->versions.nccl : "n/a", h->n_nics, h->n_nics == 1 ? "" : "s",
					    h->n_hcas, h->n_hcas == 1 ? "" : "s");
	}
	if (st->net_socket || st->net_ib)
		cd_finding_evidence(f, "network: %s", st->net_ib ? "IB" : "Socket");
	if (*st->transports)
		cd_finding_evidence(f, "transports: %s", st->transports);
	/* a log nothing explains: where an admin should start reading */
	if (st->first_error[0] && !cause_found(st))
		cd_finding_evidence(f, "first line reporting an error (line %ld): %s", st->first_error_line, st->first_error);
	if (st->world > 0)
		cd_finding_evidence(f, "communicator of %d ranks", st->world);
	result_evidence(st, f);
}

int cd_explain_parse(struct cd_results *r, const char *text, size_t len, const char *name)
{
	struct state *st = xcalloc(1, sizeof(*st));
	char *line = xmalloc(CD_EXPLAIN_LINE_MAX + 1);
	struct cd_host *first;
	size_t pos = 0, seg[MAX_SEGMENTS], dec[MAX_SEGMENTS];
	char stream[MAX_SEGMENTS][96];
	int n, nseg;

	st->r = r;
	st->name = name && *name ? name : "log";
	st->first_finding = r->n_findings;
	st->torch = cd_torch_new();
	st->vers = cd_vers_log_new();
	st->net = cd_net_new();
	st->causes = cd_causes_default();
	st->seen = xcalloc(st->causes ? st->causes->n + 1 : 1, sizeof(*st->seen));
	while (text && pos < len) {
		size_t end = pos, l = 0;

		while (end < len && text[end] != '\n')
			end++;
		st->lineno++;
		/*
		 * bounded copy; NULs and control bytes become spaces, ESC sequences are dropped. A
		 * carriage return ends a segment: what a terminal drew over (a tqdm bar redrawn with
		 * "\r", the line printed after it, CRLF's end) is read as a line of its own, all of
		 * them one rank's output: a segment naming no host has the host another one names.
		 */
		nseg = 0;
		seg[nseg++] = 0;
		for (size_t i = pos; i < end; i++) {
			unsigned char c = (unsigned char)text[i];

			if (c == '\r' && nseg < MAX_SEGMENTS && l + 1 < CD_EXPLAIN_LINE_MAX) {
				line[l++] = '\0';
				seg[nseg++] = l;
				continue;
			}
			if (l + 1 >= CD_EXPLAIN_LINE_MAX)
				continue;
			if (c == 0x1b && i + 1 < end && text[i + 1] == '[') {
				i += 2;
				while (i < end && !isalpha((unsigned char)text[i]))
					i++;
				continue;
			}
			line[l++] = c < 0x20 && c != '\t' ? ' ' : (char)c;
		}
		line[l] = '\0';
		/* the readers and the catalogue see the program's text; the launcher's prefix says whose */
		for (int k = 0; k < nseg; k++)
			dec[k] = cd_explain_decorations(line + seg[k], stream[k], sizeof(stream[k]));
		st->line_host[0] = '\0';
		for (int k = 0; k < nseg && !st->line_host[0]; k++)
			cd_explain_host_prefix(line + seg[k] + dec[k], st->line_host, sizeof(st->line_host));
		/* a folded line's continuation has no launcher prefix and no host of its own */
		cd_fold_line(&st->fold, nseg == 1 && dec[0] == 0 && !st->line_host[0], line + seg[0] + dec[0]);
		for (int k = 0; k < nseg; k++)
			if (line[seg[k] + strspn(line + seg[k], " \t")]) {
				const char *own = line + seg[k] + dec[k];
				int counted = st->errors + st->warns, error_line = cd_error_line(own);

				classify(st, own, stream[k], error_line);
				if (st->errors + st->warns > counted || error_line)
					note_error_library(st, own);
			}
		cd_fold_next(&st->fold, line + seg[nseg - 1] + dec[nseg - 1], l);
		pos = end + 1;
	}
	/* host pointers move as hosts are added: look the first one up again */
	first = explain_host_named(st, st->first_host[0] ? st->first_host : st->name);
	finish(st, first);
	n = st->recognised;
	free(line);
	cd_torch_free(st->torch);
	cd_vers_log_free(st->vers);
	cd_net_free(st->net);
	free(st->seen);
	free(st);
	return n;
}

int cd_explain_init(void)
{
	return cd_causes_default() && cd_vers_default() ? 0 : -1;
}
