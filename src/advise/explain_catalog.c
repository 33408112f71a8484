/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cause catalogue: loader and matcher. The file is line-oriented like the other
 * rules/ data: "[id]" starts an entry, "key = value" lines fill it, '#' starts a comment.
 * Everything a malformed entry could mean is refused here, with file and line, so a
 * wrong catalogue never silently explains nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "explain_catalog.h"

#define MATCH_BUDGET 200000 /* matcher steps per pattern and line: bounded cost */

/* The cause classes rules/README-causes.md describes. */
static const char *const classes[] = {
	"socket-ports", "socket-family", "socket-interface", "socket-route", "peer-died", "rdma-path", "rdma-retry",
	"rdma-gdr",     "rdma-hca",      "rdma-dmabuf",      "setting-buffsize", "setting-iface", "limits-fd",
	"versions",     "ofi",           "timeout",          "shm",              "nvls",          "cuda-driver",
	"gpu-arch",     "cuda-fault",    "rendezvous",       "launcher",      "setting-graph",
	"release",      "build",         "memory-limit",
	"p2p",          /* GPU peer access refused: neither shm (no segment) nor rdma (no HCA) */
	"memory",       /* the GPU's memory is exhausted: not cuMem's driver support, not shm */
	"memory-host",  /* host memory (calloc, pinned cudaHostAlloc) ran out: not the GPU's, not RLIMIT_MEMLOCK */
	"nccl-result",  /* an ncclResult_t with no line naming its cause: what it means, what to collect */
	"name-resolution", /* a host name the job uses does not resolve: neither a route nor an interface */
	"net-plugin",   /* NCCL cannot load or use the net plugin it was given: falls back or fails */
	"program",      /* the training program's own distributed use: DDP's parameters, collectives, init */
	"scheduler",    /* the scheduler ended the step (time limit, cgroup OOM, node failure): not the network */
	"coll-offload", /* SHARP, HCOLL or UCC under NCCL/MPI could not start or failed: no HCA or path fault */
};

/* explain's own readers title these; the catalogue need not */
static const char *const titled[] = { "LOG001", "LOG003", "LOG007", "LOG008", "LOG009", "LOG010" };

/* ---- the pattern syntax ---- */

/*
 * The conversion at p ('%'): its length, and its kind in *kind: 's' any text, 'n' a
 * number, '%' a literal percent; 0 when it is not one the catalogue knows.
 */
static size_t conversion(const char *p, int *kind)
{
	size_t n = 1;

	if (p[1] == '%') {
		*kind = '%';
		return 2;
	}
	while (p[n] == 'l' || p[n] == 'z' || p[n] == 'h')
		n++;
	if (n > 3)
		return 0;
	switch (p[n]) {
	case 's':
		*kind = n == 1 ? 's' : 0;
		break;
	case 'd': case 'i': case 'u': case 'x': case 'p':
		*kind = 'n';
		break;
	default:
		*kind = 0;
	}
	return *kind ? n + 1 : 0;
}

static int numchar(int c)
{
	return isxdigit(c) || c == 'x';
}

/* Does p match at s (a prefix of s)? *budget counts steps down; at 0 the answer is no. */
static int match_at(const char *p, const char *s, long *budget)
{
	while (*p) {
		int kind = 0;
		size_t n;

		if (--*budget < 0)
			return 0;
		if (*p != '%') {
			if (*p != *s)
				return *p == '.' && !p[1] && !s[strspn(s, " \t")]; /* a final period a paste dropped */
			p++;
			s++;
			continue;
		}
		n = conversion(p, &kind);
		if (kind == '%') {
			if (*s != '%')
				return 0;
			p += n;
			s++;
			continue;
		}
		p += n;
		if (kind == 's') {
			/* any text, the shortest first: the literal after it decides, so when one
			   follows, only the places where it is (its first 31 bytes) are tried */
			char lit[32];
			size_t r = strcspn(p, "%");

			if (r >= sizeof(lit))
				r = sizeof(lit) - 1;
			memcpy(lit, p, r);
			lit[r] = '\0';
			if (r && !p[r] && lit[r - 1] == '.')
				lit[--r] = '\0'; /* the final period may be missing (above) */
			for (const char *t = s;; t++) {
				if (r && !(t = strstr(t, lit)))
					return 0;
				if (match_at(p, t, budget))
					return 1;
				if (!*t || *budget < 0)
					return 0;
			}
		}
		if (*s == '-')
			s++;
		if (!numchar((unsigned char)*s))
			return 0;
		while (numchar((unsigned char)*s))
			s++;
	}
	return 1;
}

/* The length of pattern's first literal run (up to the first conversion), without the final
 * period of a pattern that is all literal: match_at lets a paste drop it. */
static size_t head_len(const char *pattern)
{
	size_t n = strcspn(pattern, "%");

	return !pattern[n] && n && pattern[n - 1] == '.' ? n - 1 : n;
}

/* The first literal run of pattern into buf: a cheap prefilter. */
static void literal_head(const char *pattern, char *buf, size_t len)
{
	size_t n = head_len(pattern);

	if (n >= len)
		n = len - 1;
	memcpy(buf, pattern, n);
	buf[n] = '\0';
}

int cd_cause_match(const char *pattern, const char *line)
{
	char head[128];
	long budget = MATCH_BUDGET;
	const char *s;

	if (!pattern || !line)
		return 0;
	literal_head(pattern, head, sizeof(head));
	if (*head && !strstr(line, head))
		return 0;
	for (s = line;; s++) {
		if (*head)
			s = strstr(s, head);
		if (!s || budget < 0)
			return 0;
		if (match_at(pattern, s, &budget))
			return 1;
		if (!*s)
			return 0;
	}
}

static unsigned gram_hash(const unsigned char *p)
{
	unsigned v = (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;

	return (v * 2654435761u) >> 17; /* Knuth's multiplicative hash, 15 bits: CD_GRAM_BITS */
}

void cd_grams_fill(struct cd_grams *g, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	memset(g, 0, sizeof(*g));
	for (; p[0] && p[1] && p[2] && p[3]; p++) {
		unsigned h = gram_hash(p);

		g->w[h / 64] |= 1ull << (h % 64);
	}
}

struct cd_pattern_key cd_pattern_key(const char *pattern)
{
	struct cd_pattern_key key = { { 0, 0 }, 0 };
	size_t n = head_len(pattern);

	if (n >= 4) {
		key.k[key.n++] = gram_hash((const unsigned char *)pattern);
		if (n >= 8)
			key.k[key.n++] = gram_hash((const unsigned char *)pattern + n - 4);
	}
	return key;
}

static void pattern_keys(char *const *patterns, int n, struct cd_pattern_key *keys)
{
	for (int k = 0; k < n; k++)
		keys[k] = cd_pattern_key(patterns[k]);
}

int cd_grams_may_match(const struct cd_grams *g, const struct cd_pattern_key *key)
{
	for (int i = 0; i < key->n; i++)
		if (!(g->w[key->k[i] / 64] & 1ull << (key->k[i] % 64)))
			return 0;
	return 1;
}

/* NULL when the pattern is usable, else what is wrong with it. */
static const char *pattern_error(const char *p)
{
	size_t lit = 0;

	for (; *p; p++) {
		int kind = 0;

		if (*p != '%') {
			lit += *p != '.' || p[1]; /* a final '.' is optional at a line's end (the matcher) */
			continue;
		}
		if (!conversion(p, &kind))
			return "a conversion other than %s, %d, %i, %u, %x, %p (with l, ll, z or h) or %%";
		p += conversion(p, &kind) - 1;
	}
	return lit < 4 ? "fewer than 4 literal characters: it would match almost any line" : NULL;
}

/* ---- the loader ---- */

struct parser {
	const char *name;
	int line;
	struct cd_causes *c;
	struct cd_cause *cur;
};

static int fail(const struct parser *ps, const char *what, const char *detail)
{
	return cd_error("explain: '%s:%d': %s%s%s", ps->name, ps->line, what, detail ? ": " : "", detail ? detail : "");
}

static void free_entry(struct cd_cause *e)
{
	char **lists[] = { e->match, e->require, e->rule_out, e->confirm };

	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (int i = 0; i < CD_CAUSE_MAX_PATTERNS; i++)
			free(lists[l][i]);
	free(e->id);
	free(e->library);
	free(e->versions);
	free(e->source);
	free(e->cls);
	free(e->finding);
	free(e->title);
	free(e->fix);
	free(e->env);
	free(e->why);
}

void cd_causes_free(struct cd_causes *c)
{
	for (size_t i = 0; i < c->n; i++)
		free_entry(&c->v[i]);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return 1;
	return 0;
}

static int valid_id(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '.' && *s != '-')
			return 0;
	return 1;
}

/* "LOG" and three digits */
static int valid_finding(const char *s)
{
	return strlen(s) == 6 && !strncmp(s, "LOG", 3) && isdigit((unsigned char)s[3]) && isdigit((unsigned char)s[4]) &&
	       isdigit((unsigned char)s[5]);
}

/*
 * "NAME=VALUE": a shell variable name and a value without quotes or control characters. The
 * name may have lowercase letters, as the report's shell lines allow: Open MPI's and Ray's
 * settings are OMPI_MCA_btl_tcp_if_include and RAY_worker_register_timeout_seconds.
 */
static int valid_env(const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq || eq == s || (!isalpha((unsigned char)*s) && *s != '_') || !eq[1])
		return 0;
	for (const char *p = s; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	for (const char *p = eq + 1; *p; p++)
		if (*p == '\'' || *p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
			return 0;
	return 1;
}

static int yes_no(const struct parser *ps, const char *v, int *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "no")) {
		*out = !strcmp(v, "yes");
		return 0;
	}
	return fail(ps, "expected yes or no", v);
}

static int set_once(const struct parser *ps, char **slot, const char *key, const char *v)
{
	if (*slot)
		return fail(ps, "a second value for a key that takes one", key);
	*slot = xstrdup(v);
	return 0;
}

static int add_pattern(const struct parser *ps, char **list, int *n, const char *key, const char *v)
{
	const char *why = pattern_error(v);

	if (why)
		return fail(ps, why, v);
	if (*n >= CD_CAUSE_MAX_PATTERNS)
		return fail(ps, "too many lines of this key (at most 8)", key);
	list[(*n)++] = xstrdup(v);
	return 0;
}

static int set_key(struct parser *ps, const char *key, const char *v)
{
	struct cd_cause *e = ps->cur;

	if (!strcmp(key, "match"))
		return add_pattern(ps, e->match, &e->n_match, key, v);
	if (!strcmp(key, "require"))
		return add_pattern(ps, e->require, &e->n_require, key, v);
	if (!strcmp(key, "rule_out"))
		return add_pattern(ps, e->rule_out, &e->n_rule_out, key, v);
	if (!strcmp(key, "confirm"))
		return add_pattern(ps, e->confirm, &e->n_confirm, key, v);
	if (!strcmp(key, "source")) {
		char *s = e->source ? xasprintf("%s; %s", e->source, v) : xstrdup(v);

		free(e->source);
		e->source = s;
		return 0;
	}
	if (!strcmp(key, "library"))
		return set_once(ps, &e->library, key, v);
	if (!strcmp(key, "versions"))
		return set_once(ps, &e->versions, key, v);
	if (!strcmp(key, "class")) {
		if (!in_list(v, classes, ARRAY_SIZE(classes)))
			return fail(ps, "unknown cause class (README-causes.md lists them)", v);
		return set_once(ps, &e->cls, key, v);
	}
	if (!strcmp(key, "finding")) {
		if (!valid_finding(v))
			return fail(ps, "expected a finding id LOG followed by three digits", v);
		return set_once(ps, &e->finding, key, v);
	}
	if (!strcmp(key, "severity")) {
		if (strcmp(v, "fail") && strcmp(v, "warn"))
			return fail(ps, "expected fail or warn", v);
		e->severity = !strcmp(v, "fail") ? CD_SEV_FAIL : CD_SEV_WARN;
		return 0;
	}
	if (!strcmp(key, "title"))
		return set_once(ps, &e->title, key, v);
	if (!strcmp(key, "fix"))
		return set_once(ps, &e->fix, key, v);
	if (!strcmp(key, "why"))
		return set_once(ps, &e->why, key, v);
	if (!strcmp(key, "env")) {
		if (!valid_env(v))
			return fail(ps, "expected NAME=VALUE (a shell variable, a value without quotes)", v);
		return set_once(ps, &e->env, key, v);
	}
	if (!strcmp(key, "generic"))
		return yes_no(ps, v, &e->generic);
	if (!strcmp(key, "advice")) {
		if (strcmp(v, "tree") && strcmp(v, "catalogue"))
			return fail(ps, "expected tree or catalogue", v);
		e->tree = !strcmp(v, "tree");
		return 0;
	}
	return fail(ps, "unknown key (match, require, rule_out, confirm, library, versions, source, class, finding, "
		    "severity, title, generic, advice, fix, env, why)", key);
}

/* The entry just read has what explain needs; line: its section's. */
static int check_entry(struct parser *ps)
{
	static const char *const need[] = { "match", "library", "versions", "source", "class", "finding", "fix", "why" };
	struct cd_cause *e = ps->cur;
	int at = ps->line;

	if (!e)
		return 0;
	const void *have[] = { e->n_match ? e : NULL, e->library, e->versions, e->source, e->cls, e->finding, e->fix, e->why };

	ps->line = e->line;
	for (size_t i = 0; i < ARRAY_SIZE(need); i++)
		if (!have[i]) {
			char what[96];

			snprintf(what, sizeof(what), "entry [%s] has no '%s'", e->id, need[i]);
			return fail(ps, what, NULL);
		}
	if (!e->title && !in_list(e->finding, titled, ARRAY_SIZE(titled)))
		return fail(ps, "a finding explain does not title itself needs a 'title'", e->id);
	if (e->env && e->tree)
		return fail(ps, "'env' with 'advice = tree': the tree, not the catalogue, gives the setting", e->id);
	/* LOG098: a help text that lists several causes names none; its checks are shown, in turn,
	 * and only where nothing specific matched; a setting would be a guess */
	if (!strcmp(e->finding, "LOG098") && (e->env || e->tree || !e->generic))
		return fail(ps, "finding LOG098 (a text that lists several causes) needs 'generic = yes' and "
			    "'advice = catalogue', and no 'env'", e->id);
	ps->line = at;
	return 0;
}

static int section(struct parser *ps, char *s)
{
	char *end = strchr(s, ']');

	if (!end || end[1])
		return fail(ps, "expected [id] alone on the line", s);
	*end = '\0';
	if (!valid_id(s + 1))
		return fail(ps, "an entry id is made of a-z, 0-9, '.' and '-'", s + 1);
	for (size_t i = 0; i < ps->c->n; i++)
		if (!strcmp(ps->c->v[i].id, s + 1))
			return fail(ps, "a second entry with this id", s + 1);
	if (check_entry(ps) < 0)
		return -1;
	if (ps->c->n >= CD_CAUSES_MAX)
		return fail(ps, "more than " CD_CAUSES_MAX_TEXT " entries", NULL);
	ps->cur = CD_PUSH(ps->c->v, ps->c->n, ps->c->cap);
	memset(ps->cur, 0, sizeof(*ps->cur));
	ps->cur->id = xstrdup(s + 1);
	ps->cur->line = ps->line;
	ps->cur->severity = CD_SEV_FAIL;
	return 0;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int one_line(struct parser *ps, char *raw)
{
	char *s = trim(raw), *eq, *key;

	if (!*s || *s == '#')
		return 0;
	if (*s == '[')
		return section(ps, s);
	if (!ps->cur)
		return fail(ps, "a key before the first [id]", s);
	eq = strchr(s, '=');
	if (!eq)
		return fail(ps, "expected key = value", s);
	*eq = '\0';
	key = trim(s);
	s = trim(eq + 1);
	if (!*s)
		return fail(ps, "an empty value", key);
	return set_key(ps, key, s);
}

int cd_causes_parse(struct cd_causes *c, const char *text, size_t len, const char *name)
{
	struct parser ps = { name, 0, c, NULL };
	size_t pos = 0;
	char *buf = xmalloc(4096);
	int rc = 0;

	memset(c, 0, sizeof(*c));
	while (text && pos < len && !rc) {
		size_t end = pos;

		while (end < len && text[end] != '\n')
			end++;
		ps.line++;
		if (end - pos >= 4096) {
			rc = fail(&ps, "a line longer than 4095 bytes", NULL);
			break;
		}
		if (memchr(text + pos, '\0', end - pos)) {
			rc = fail(&ps, "a NUL byte: not a text file", NULL);
			break;
		}
		memcpy(buf, text + pos, end - pos);
		buf[end - pos] = '\0';
		rc = one_line(&ps, buf);
		pos = end + 1;
	}
	if (!rc)
		rc = check_entry(&ps);
	for (size_t i = 0; !rc && i < c->n; i++) {
		struct cd_cause *e = &c->v[i];

		pattern_keys(e->match, e->n_match, e->match_key);
		pattern_keys(e->require, e->n_require, e->require_key);
		pattern_keys(e->rule_out, e->n_rule_out, e->rule_out_key);
		pattern_keys(e->confirm, e->n_confirm, e->confirm_key);
	}
	if (!rc && !c->n) {
		ps.line = 0;
		rc = cd_error("explain: '%s': no entry (expected [id] sections)", name);
	}
	free(buf);
	if (rc)
		cd_causes_free(c);
	return rc ? -1 : 0;
}

static struct cd_causes loaded;
static int load_state; /* 0 not tried, 1 loaded, -1 failed */

static void free_loaded(void)
{
	cd_causes_free(&loaded);
}

const struct cd_causes *cd_causes_default(void)
{
	const char *text, *name;
	char *owned;
	size_t len = 0;
	int rc;

	if (load_state)
		return load_state > 0 ? &loaded : NULL;
	load_state = -1;
	if (!(text = cd_rules_text("explain", "COMMDIAG_CAUSES", "causes.catalog", &len, &name, &owned)))
		return NULL;
	rc = cd_causes_parse(&loaded, text, len, name);
	free(owned);
	if (rc < 0)
		return NULL;
	load_state = 1;
	atexit(free_loaded);
	return &loaded;
}
