/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL RAS status reports → struct cd_ras_snapshot. Written from reading NCCL's
 * src/ras/client_support.cc (no code taken from it):
 *
 * Text (rasClientRunComms; v2.24.3-1, v2.26.2-1, v2.28.9-1, v2.30.7-1):
 *   "Errors" / "======" then
 *     "INCOMPLETE" / "  Missing communicator data from N job process(es)" /
 *       "  Process P on node H managing GPU(s) G"
 *     "DEAD" / "  N job process(es) is/are considered dead (…)" / "  Process P on node H managing GPU G"
 *     "#V-C (hash) INCOMPLETE" / "  Missing communicator data from N rank(s)" /
 *       "  Rank R -- GPU G managed by process P on node H"   (2.26 and later)
 *       "  The missing rank(s): R[,R…]"                       (2.24, 2.25)
 *     "#V-C (hash) ERROR" / "  Asynchronous error(s) on N rank(s)" / "  Rank R reported E -- GPU …"
 *   "Warnings" / "========" then
 *     "TIMEOUT" / "  Encountered N communication timeout(s) while gathering communicator data"
 *     "#V-C (hash) MISMATCH" / "  Communicator ranks have different OP operation counts"
 *       (OP is "collective" before 2.26, then ncclFuncStr: Broadcast, Reduce, AllGather, …) /
 *       "  N ranks have launched up to operation V" or "  N ranks have not launched any operations",
 *       each followed by "  Rank R -- GPU G managed by process P on node H" for an outlier group;
 *       a group of one is "  Rank R has launched up to operation V -- GPU G managed by process P on node H".
 *     "  Communicator ranks have different status" / "  N ranks have status S" (not counts: skipped)
 * JSON (rasDumpCommsToJSON and the json* writers; v2.28.7-1 and later): "communicators" [ { "hash",
 *   "ranks" [ { "rank", "host", "pid", "cuda_dev", "nvml_dev", "status" { "init_state", "async_error", … },
 *   "collective_counts" { OP: n } } ], "missing_ranks" [ { "rank", "host", "pid", "cuda_dev", "nvml_dev",
 *   "status" { "unresponsive", "considered_dead" } } ] } ], "ras" { "timeouts_count" }.
 */
#include "ras.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void cd_ras_snapshot_free(struct cd_ras_snapshot *s)
{
	for (size_t i = 0; i < s->n_ranks; i++) {
		free(s->ranks[i].comm);
		free(s->ranks[i].coll);
		free(s->ranks[i].host);
		free(s->ranks[i].gpu);
		free(s->ranks[i].line);
	}
	for (size_t i = 0; i < s->n_counts; i++) {
		free(s->counts[i].comm);
		free(s->counts[i].coll);
		free(s->counts[i].line);
	}
	free(s->ranks);
	free(s->counts);
	free(s->version);
	memset(s, 0, sizeof(*s));
}

static struct cd_ras_rank *add_rank(struct cd_ras_snapshot *s, const char *comm, long rank, const char *line)
{
	struct cd_ras_rank *r = cd_vec_push(&s->ranks, &s->n_ranks, &s->cap_ranks, sizeof(*s->ranks));

	r->comm = comm ? xstrdup(comm) : NULL;
	r->rank = rank;
	r->pid = -1;
	r->count = -1;
	r->line = line ? xstrdup(line) : NULL;
	return r;
}

static void add_count(struct cd_ras_snapshot *s, const char *comm, const char *coll, long long v, long n,
		      const char *line)
{
	struct cd_ras_count *c = cd_vec_push(&s->counts, &s->n_counts, &s->cap_counts, sizeof(*s->counts));

	c->comm = xstrdup(comm ? comm : "?");
	c->coll = xstrdup(coll ? coll : "collective");
	c->value = v;
	c->nranks = n;
	c->line = line ? xstrdup(line) : NULL;
}

/* A node as the report names it (an address from inet_ntop, or "unknown" in JSON); what is no
 * host name or address (empty, over 253 bytes, other characters) is not kept: the finding
 * names the server instead. */
static char *host_of(const char *s, size_t n)
{
	if (!n || n > 253)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(".-:_%", s[i]))
			return NULL;
	return xstrndup(s, n);
}

/* "GPU 5 managed by process 1234 on node 10.0.0.1": the tail after " -- " of a rank line */
static void rank_tail(struct cd_ras_rank *r, const char *tail)
{
	const char *m = strstr(tail, " managed by process ");
	const char *on = m ? strstr(m, " on node ") : NULL;

	if (!m || !on || strncmp(tail, "GPU ", 4))
		return;
	r->gpu = xstrndup(tail + 4, (size_t)(m - tail - 4));
	r->pid = strtol(m + strlen(" managed by process "), NULL, 10);
	r->host = host_of(on + strlen(" on node "), strlen(on + strlen(" on node ")));
}

/* "Process P on node H managing GPU(s) G" */
static int process_line(struct cd_ras_snapshot *s, const char *l, int dead, const char *raw)
{
	long pid;
	int n = 0;
	const char *on, *mg;
	struct cd_ras_rank *r;

	if (sscanf(l, "Process %ld on node %n", &pid, &n) != 1 || !n)
		return 0;
	on = l + n;
	mg = strstr(on, " managing GPU");
	if (!mg)
		return 0;
	r = add_rank(s, NULL, -1, raw);
	r->pid = pid;
	r->host = host_of(on, (size_t)(mg - on));
	mg += strlen(" managing GPU");
	if (*mg == 's')
		mg++;
	while (*mg == ' ')
		mg++;
	r->gpu = xstrdup(mg);
	r->missing = !dead;
	r->dead = dead;
	return 1;
}

enum sect { S_NONE, S_INCOMPLETE_PROC, S_DEAD, S_COMM_INCOMPLETE, S_COMM_ERROR, S_MISMATCH_STATUS, S_MISMATCH_COUNT };

static int parse_text(struct cd_ras_snapshot *s, char *text, char **err)
{
	enum sect st = S_NONE;
	char comm[128] = "", coll[64] = "";
	long long value = -1;
	int warnings = 0;
	char *save = NULL;

	s->ncomms = -1;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *raw = l, *t = l;
		size_t n = strlen(l);
		long a;
		long long v;
		int k = 0;

		if (n && l[n - 1] == '\r')
			l[--n] = '\0';
		while (*t == ' ')
			t++;
		raw = t; /* the evidence quotes the line without its indent */
		if (!strncmp(l, "NCCL version ", 13) && !s->version) {
			s->version = xstrndup(l + 13, strcspn(l + 13, " "));
			continue;
		}
		if (!strcmp(l, "Warnings")) {
			warnings = 1;
			st = S_NONE;
			continue;
		}
		if (l[0] == '#') { /* "#0-0 (27a079b828ff1a75) MISMATCH" */
			char *sp = strrchr(l, ' ');

			if (!sp)
				continue;
			snprintf(comm, sizeof(comm), "%.*s", (int)(sp - l), l);
			st = !strcmp(sp + 1, "INCOMPLETE") ? S_COMM_INCOMPLETE
			     : !strcmp(sp + 1, "ERROR")    ? S_COMM_ERROR
			     : !strcmp(sp + 1, "MISMATCH") ? S_MISMATCH_COUNT
							   : S_NONE;
			coll[0] = '\0';
			value = -1;
			continue;
		}
		if (l[0] != ' ') {
			st = !strcmp(l, "INCOMPLETE") ? S_INCOMPLETE_PROC : !strcmp(l, "DEAD") ? S_DEAD : S_NONE;
			continue;
		}
		if (sscanf(t, "Encountered %ld communication timeout", &a) == 1) {
			s->timeouts = a;
			continue;
		}
		switch (st) {
		case S_INCOMPLETE_PROC:
		case S_DEAD:
			process_line(s, t, st == S_DEAD, raw);
			break;
		case S_COMM_INCOMPLETE:
			if (!strncmp(t, "The missing rank", 16)) { /* 2.24: "The missing ranks: 3,21" */
				const char *p = strchr(t, ':');

				while (p && *p) {
					char *end;
					long rk = strtol(p + 1, &end, 10);

					if (end == p + 1)
						break;
					add_rank(s, comm, rk, raw)->missing = 1;
					p = *end == ',' ? end : NULL;
				}
			} else if (sscanf(t, "Rank %ld -- %n", &a, &k) == 1 && k) {
				struct cd_ras_rank *r = add_rank(s, comm, a, raw);

				r->missing = 1;
				rank_tail(r, t + k);
			}
			break;
		case S_COMM_ERROR:
			if (sscanf(t, "Rank %ld reported %n", &a, &k) == 1 && k) {
				const char *tail = strstr(t, " -- ");
				struct cd_ras_rank *r = add_rank(s, comm, a, raw);

				r->error = 1;
				if (tail)
					rank_tail(r, tail + 4);
			}
			break;
		case S_MISMATCH_STATUS:
		case S_MISMATCH_COUNT:
			if (!strcmp(t, "Communicator ranks have different status")) {
				st = S_MISMATCH_STATUS;
			} else if (sscanf(t, "Communicator ranks have different %63s operation counts", coll) == 1) {
				st = S_MISMATCH_COUNT;
				value = -1;
			} else if (st == S_MISMATCH_COUNT && sscanf(t, "%ld ranks have launched up to operation %lld", &a,
								   &v) == 2 && a > 0 && v >= 0) {
				value = v;
				add_count(s, comm, coll, v, a, raw);
			} else if (st == S_MISMATCH_COUNT && sscanf(t, "%ld ranks have not launched any operations", &a) == 1 &&
				   a > 0) {
				value = 0;
				add_count(s, comm, coll, 0, a, raw);
			} else if (st == S_MISMATCH_COUNT && sscanf(t, "Rank %ld has launched up to operation %lld -- %n", &a,
								   &v, &k) == 2 && k) {
				struct cd_ras_rank *r = add_rank(s, comm, a, raw);

				r->coll = xstrdup(coll);
				r->count = v;
				rank_tail(r, t + k);
				add_count(s, comm, coll, v, 1, raw);
			} else if (st == S_MISMATCH_COUNT && sscanf(t, "Rank %ld has not launched any operations -- %n", &a,
								   &k) == 1 && k) {
				struct cd_ras_rank *r = add_rank(s, comm, a, raw);

				r->coll = xstrdup(coll);
				r->count = 0;
				rank_tail(r, t + k);
				add_count(s, comm, coll, 0, 1, raw);
			} else if (st == S_MISMATCH_COUNT && value >= 0 && sscanf(t, "Rank %ld -- %n", &a, &k) == 1 && k) {
				struct cd_ras_rank *r = add_rank(s, comm, a, raw);

				r->coll = xstrdup(coll);
				r->count = value;
				rank_tail(r, t + k);
			}
			break;
		default:
			break;
		}
	}
	if (!warnings) {
		*err = xstrdup("the text report ends before its 'Warnings' section (cut short?)");
		return -1;
	}
	return 0;
}

/* A count, rank or pid: a number from 0 to 2^53 (what a double holds exactly); else -1, absent. */
static long long jnum(const cJSON *v)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0))
		return -1;
	return (long long)v->valuedouble;
}

static long jint(const cJSON *o, const char *k)
{
	return (long)jnum(cJSON_GetObjectItemCaseSensitive(o, k));
}

static int jtrue(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void jrank(struct cd_ras_rank *r, const cJSON *o)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "host");
	long cuda = jint(o, "cuda_dev"), nvml = jint(o, "nvml_dev");

	r->host = cJSON_IsString(h) && strcmp(h->valuestring, "unknown") ? host_of(h->valuestring, strlen(h->valuestring))
									  : NULL;
	r->pid = jint(o, "pid");
	if (cuda >= 0)
		r->gpu = cuda == nvml || nvml < 0 ? xasprintf("%ld", cuda) : xasprintf("%ld (NVML %ld)", cuda, nvml);
}

static char *jline(const cJSON *o)
{
	char *p = cJSON_PrintUnformatted(o);
	char *r = xstrdup(p ? p : "");

	cJSON_free(p);
	return r;
}

static void json_comm(struct cd_ras_snapshot *s, const cJSON *c)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(c, "hash");
	const char *comm = cJSON_IsString(h) ? h->valuestring : "?";
	const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(c, "ranks");
	const cJSON *miss = cJSON_GetObjectItemCaseSensitive(c, "missing_ranks");
	const cJSON *first = cJSON_IsArray(ranks) ? cJSON_GetArrayItem(ranks, 0) : NULL;
	const cJSON *ops = first ? cJSON_GetObjectItemCaseSensitive(first, "collective_counts") : NULL;
	const cJSON *op, *rk;

	cJSON_ArrayForEach(rk, ranks) {
		const cJSON *stt = cJSON_GetObjectItemCaseSensitive(rk, "status");
		long init = jint(stt, "init_state"), async = jint(stt, "async_error");

		/* 0 ncclSuccess, 7 ncclInProgress (ras.rst): anything else is an error */
		if ((init > 0 && init != 7) || (async > 0 && async != 7)) {
			struct cd_ras_rank *r = add_rank(s, comm, jint(rk, "rank"), NULL);
			char *l = jline(rk);

			r->error = 1;
			jrank(r, rk);
			r->line = l;
		}
	}
	/* each collective: its values and how many ranks are at each, and each rank's count where they differ */
	cJSON_ArrayForEach(op, ops) {
		long long vals[64];
		long nat[64];
		size_t nv = 0;

		cJSON_ArrayForEach(rk, ranks) {
			const cJSON *cc = cJSON_GetObjectItemCaseSensitive(rk, "collective_counts");
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(cc, op->string);
			long long v = jnum(x);
			size_t i;

			for (i = 0; i < nv && vals[i] != v; i++)
				;
			if (i == nv && nv < 64)
				vals[nv] = v, nat[nv++] = 0;
			if (i < nv)
				nat[i]++;
		}
		for (size_t i = 0; i < nv; i++) {
			char *l = xasprintf("%s: %ld rank%s at %s %lld", comm, nat[i], nat[i] > 1 ? "s" : "", op->string,
					    vals[i]);

			add_count(s, comm, op->string, vals[i], nat[i], l);
			free(l);
		}
		if (nv < 2)
			continue;
		cJSON_ArrayForEach(rk, ranks) {
			const cJSON *cc = cJSON_GetObjectItemCaseSensitive(rk, "collective_counts");
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(cc, op->string);
			struct cd_ras_rank *r = add_rank(s, comm, jint(rk, "rank"), NULL);

			r->coll = xstrdup(op->string);
			r->count = jnum(x);
			jrank(r, rk);
			r->line = xasprintf("%s rank %ld: %s %lld (pid %ld on %s)", comm, r->rank, op->string, r->count,
					    r->pid, r->host ? r->host : "?");
		}
	}
	cJSON_ArrayForEach(rk, miss) {
		const cJSON *stt = cJSON_GetObjectItemCaseSensitive(rk, "status");
		struct cd_ras_rank *r;

		/* reachable but no member (neither unresponsive nor dead): NOCOMM, an init or a teardown (ras.rst) */
		if (!jtrue(stt, "unresponsive") && !jtrue(stt, "considered_dead"))
			continue;
		r = add_rank(s, comm, jint(rk, "rank"), NULL);
		r->dead = jtrue(stt, "considered_dead");
		r->missing = !r->dead;
		jrank(r, rk);
		r->line = jline(rk);
	}
}

/*
 * NCCL 2.28.7 and 2.28.9 write a missing rank's "nvml_dev": N with no comma before its "status"
 * (jsonWriteMissingRank, src/ras/client_support.cc; fixed in v2.29.2-1): the one JSON they send
 * when a rank is missing does not parse. Put that comma back, and only that one.
 */
static char *repair_228(const char *text, size_t len, size_t *out_len)
{
	static const char key[] = "\"nvml_dev\": ";
	char *o = xmalloc(len * 2 + 1);
	size_t n = 0, fixed = 0;

	for (size_t i = 0; i < len;) {
		size_t j = i + sizeof(key) - 1, k;

		if (len - i > sizeof(key) && !memcmp(text + i, key, sizeof(key) - 1)) {
			if (j < len && text[j] == '-')
				j++;
			while (j < len && isdigit((unsigned char)text[j]))
				j++;
			for (k = j; k < len && isspace((unsigned char)text[k]); k++)
				;
			memcpy(o + n, text + i, j - i);
			n += j - i;
			if (k + 8 <= len && !memcmp(text + k, "\"status\"", 8)) {
				o[n++] = ',';
				fixed++;
			}
			i = j;
			continue;
		}
		o[n++] = text[i++];
	}
	o[n] = '\0';
	*out_len = n;
	if (!fixed) {
		free(o);
		return NULL;
	}
	return o;
}

static int parse_json(struct cd_ras_snapshot *s, const char *text, size_t len, char **err)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *comms, *c, *v;

	if (!root) {
		size_t rl;
		char *fixed = repair_228(text, len, &rl);

		if (fixed)
			root = cJSON_ParseWithLength(fixed, rl);
		free(fixed);
	}

	if (!root || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		*err = xstrdup("the JSON report does not parse (cut short?)");
		return -1;
	}
	s->json = 1;
	v = cJSON_GetObjectItemCaseSensitive(root, "nccl_version");
	if (cJSON_IsString(v))
		s->version = xstrdup(v->valuestring);
	comms = cJSON_GetObjectItemCaseSensitive(root, "communicators");
	if (!cJSON_IsArray(comms)) {
		cJSON_Delete(root);
		*err = xstrdup("the JSON report has no 'communicators' array");
		return -1;
	}
	s->ncomms = cJSON_GetArraySize(comms);
	cJSON_ArrayForEach(c, comms)
		json_comm(s, c);
	s->timeouts = jint(cJSON_GetObjectItemCaseSensitive(root, "ras"), "timeouts_count");
	if (s->timeouts < 0)
		s->timeouts = 0;
	cJSON_Delete(root);
	return 0;
}

int cd_ras_parse(struct cd_ras_snapshot *s, const char *text, size_t len, char **err)
{
	size_t i = 0;
	char *copy;
	int rc;

	memset(s, 0, sizeof(*s));
	*err = NULL;
	if (len > CD_RAS_MAX_REPORT) {
		*err = xasprintf("the report is over %u MiB", CD_RAS_MAX_REPORT >> 20);
		return -1;
	}
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i == len) {
		*err = xstrdup("the report is empty");
		return -1;
	}
	if (text[i] == '{')
		rc = parse_json(s, text + i, len - i, err);
	else {
		if (memchr(text, '\0', len)) {
			*err = xstrdup("the text report has a NUL byte");
			return -1;
		}
		copy = xstrndup(text, len);
		rc = parse_text(s, copy, err);
		free(copy);
	}
	if (rc < 0)
		cd_ras_snapshot_free(s);
	return rc;
}
