/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flight Recorder dumps → struct cd_fr_dump (see fr.h for the formats). The pickle reader
 * is a stack machine over the data opcodes only, building the same cJSON tree the JSON
 * reader gets, so one extractor serves both. Written from reading PyTorch's
 * torch/csrc/jit/serialization/pickler.cpp, FlightRecorder.hpp and FlightRecorderDetail.hpp
 * and Python's Lib/pickletools.py opcode table (no code taken from them).
 *
 * Ownership in the reader: a value is on the stack, in the tree, or (a dict key, a value a
 * repeated key replaced) in the graveyard; the memo only points at values, so nothing it
 * names is freed before the end. BINGET copies the value (a dump repeats only strings and
 * stack-frame dicts), and the copies count against CD_FR_MAX_NODES.
 */
#include "fr.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *cd_fr_state_str(enum cd_fr_state s)
{
	switch (s) {
	case CD_FR_SCHEDULED:
		return "scheduled";
	case CD_FR_STARTED:
		return "started";
	case CD_FR_COMPLETED:
		return "completed";
	default:
		return "unknown";
	}
}

/* ---- the pickle reader ---- */

struct pk {
	const unsigned char *b;
	size_t len, pos, op_at;
	cJSON **stack; /* NULL entries are MARKs */
	size_t n, cap;
	cJSON **memo;
	size_t n_memo, stored; /* stored: distinct indices, MEMOIZE's next */
	cJSON *grave;
	size_t nodes, marks;
	char err[256];
};

static int pk_fail(struct pk *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pk_fail(struct pk *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int need(struct pk *p, size_t n)
{
	if (p->len - p->pos < n)
		return pk_fail(p, "truncated: the opcode at byte %zu needs %zu more bytes", p->op_at, n);
	return 0;
}

static uint64_t le(const unsigned char *b, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

static int push(struct pk *p, cJSON *v)
{
	if (!v)
		return pk_fail(p, "out of memory at byte %zu", p->op_at);
	if (++p->nodes > CD_FR_MAX_NODES) {
		cJSON_Delete(v);
		return pk_fail(p, "more than %u values: not a Flight Recorder dump", CD_FR_MAX_NODES);
	}
	*CD_PUSH(p->stack, p->n, p->cap) = v;
	return 0;
}

static int push_mark(struct pk *p)
{
	if (++p->marks > CD_FR_MAX_DEPTH)
		return pk_fail(p, "more than %d marks open at byte %zu", CD_FR_MAX_DEPTH, p->op_at);
	*CD_PUSH(p->stack, p->n, p->cap) = NULL;
	return 0;
}

static cJSON *top(struct pk *p)
{
	return p->n && p->stack[p->n - 1] ? p->stack[p->n - 1] : NULL;
}

/* The index of the topmost MARK, or -1 (after the message). */
static long find_mark(struct pk *p)
{
	for (size_t i = p->n; i-- > 0;)
		if (!p->stack[i])
			return (long)i;
	return pk_fail(p, "the opcode at byte %zu needs a MARK and there is none", p->op_at);
}

static void bury(struct pk *p, cJSON *v)
{
	cJSON_AddItemToArray(p->grave, v);
}

/*
 * A container's valueint (unused by cJSON for arrays and objects) holds its height, so
 * nesting is bounded as it is built: cJSON_Delete and cJSON_Duplicate recurse. A value
 * once in a container is off the stack and never changes, so the height stays true.
 */
static int height(const cJSON *v)
{
	return cJSON_IsArray(v) || cJSON_IsObject(v) ? v->valueint : 0;
}

static int adopt_ok(struct pk *p, cJSON *parent, const cJSON *child)
{
	int h = height(child) + 1;

	if (h > CD_FR_MAX_DEPTH)
		return pk_fail(p, "values nested more than %d deep at byte %zu", CD_FR_MAX_DEPTH, p->op_at);
	if (h > parent->valueint)
		parent->valueint = h;
	return 0;
}

/* dict[key] = val, both taken off the stack by the caller */
static int set_item(struct pk *p, cJSON *dict, cJSON *key, cJSON *val)
{
	char num[32];
	const char *k;
	cJSON *old;

	if (cJSON_IsString(key))
		k = key->valuestring;
	else if (cJSON_IsNumber(key) && fabs(key->valuedouble) < 9007199254740992.0)
		k = (snprintf(num, sizeof(num), "%.0f", key->valuedouble), num);
	else {
		bury(p, key);
		bury(p, val);
		return pk_fail(p, "a dict key that is neither a string nor an integer at byte %zu", p->op_at);
	}
	if (adopt_ok(p, dict, val) < 0) {
		bury(p, key);
		bury(p, val);
		return -1;
	}
	old = cJSON_GetObjectItemCaseSensitive(dict, k);
	if (old)
		bury(p, cJSON_DetachItemViaPointer(dict, old));
	cJSON_AddItemToObject(dict, k, val);
	bury(p, key);
	return 0;
}

static int container_below(struct pk *p, long at, int object, const char *op)
{
	if (at < 0 || !p->stack[at] || (object ? !cJSON_IsObject(p->stack[at]) : !cJSON_IsArray(p->stack[at])))
		return pk_fail(p, "%s at byte %zu without a %s under it", op, p->op_at, object ? "dict" : "list");
	return 0;
}

static int op_setitems(struct pk *p)
{
	long m = find_mark(p);

	if (m < 0 || container_below(p, m - 1, 1, "SETITEMS") < 0)
		return -1;
	if ((p->n - (size_t)m - 1) % 2)
		return pk_fail(p, "SETITEMS at byte %zu with an odd number of items", p->op_at);
	p->marks--;
	for (size_t i = (size_t)m + 1; i < p->n; i += 2) {
		cJSON *k = p->stack[i], *v = p->stack[i + 1];

		p->stack[i] = p->stack[i + 1] = NULL;
		if (set_item(p, p->stack[m - 1], k, v) < 0) {
			for (size_t j = i + 2; j < p->n; j++)
				bury(p, p->stack[j]);
			p->n = (size_t)m;
			return -1;
		}
	}
	p->n = (size_t)m;
	return 0;
}

static int op_appends(struct pk *p)
{
	long m = find_mark(p);

	if (m < 0 || container_below(p, m - 1, 0, "APPENDS") < 0)
		return -1;
	p->marks--;
	for (size_t i = (size_t)m + 1; i < p->n; i++) {
		if (adopt_ok(p, p->stack[m - 1], p->stack[i]) < 0)
			return -1; /* the rest stays on the stack, freed with it */
		cJSON_AddItemToArray(p->stack[m - 1], p->stack[i]);
		p->stack[i] = NULL;
	}
	p->n = (size_t)m;
	return 0;
}

/* a tuple of the top k values (k < 0: down to the MARK) */
static int op_tuple(struct pk *p, long k)
{
	size_t from;
	cJSON *t;

	if (k < 0) {
		long m = find_mark(p);

		if (m < 0)
			return -1;
		from = (size_t)m + 1;
		p->marks--;
	} else {
		if (p->n < (size_t)k)
			return pk_fail(p, "TUPLE%ld at byte %zu with %zu values on the stack", k, p->op_at, p->n);
		from = p->n - (size_t)k;
		for (size_t i = from; i < p->n; i++)
			if (!p->stack[i])
				return pk_fail(p, "TUPLE%ld at byte %zu over a MARK", k, p->op_at);
	}
	t = cJSON_CreateArray();
	if (!t)
		return pk_fail(p, "out of memory");
	for (size_t i = from; i < p->n; i++) {
		if (adopt_ok(p, t, p->stack[i]) < 0) {
			cJSON_Delete(t);
			return -1;
		}
		cJSON_AddItemToArray(t, p->stack[i]);
		p->stack[i] = NULL;
	}
	p->n = k < 0 ? from - 1 : from;
	return push(p, t);
}

static size_t count_nodes(const cJSON *v, size_t limit)
{
	size_t n = 1;

	for (const cJSON *c = v->child; c && n <= limit; c = c->next)
		n += count_nodes(c, limit - n);
	return n;
}

static int memo_put(struct pk *p, uint64_t idx)
{
	cJSON *v = top(p);

	if (!v)
		return pk_fail(p, "a memo store at byte %zu with nothing to store", p->op_at);
	if (idx >= CD_FR_MAX_NODES)
		return pk_fail(p, "memo index %llu at byte %zu beyond %u", (unsigned long long)idx, p->op_at,
			       CD_FR_MAX_NODES);
	if (idx >= p->n_memo) {
		size_t n = p->n_memo ? p->n_memo : 64;

		while (n <= idx)
			n *= 2;
		p->memo = xrealloc(p->memo, n * sizeof(*p->memo));
		memset(p->memo + p->n_memo, 0, (n - p->n_memo) * sizeof(*p->memo));
		p->n_memo = n;
	}
	p->stored += !p->memo[idx];
	p->memo[idx] = v;
	return 0;
}

static int memo_get(struct pk *p, uint64_t idx)
{
	cJSON *v = idx < p->n_memo ? p->memo[idx] : NULL;
	size_t n;

	if (!v)
		return pk_fail(p, "memo index %llu at byte %zu was never stored", (unsigned long long)idx, p->op_at);
	n = count_nodes(v, CD_FR_MAX_NODES);
	if (n > CD_FR_MAX_NODES - p->nodes)
		return pk_fail(p, "more than %u values: not a Flight Recorder dump", CD_FR_MAX_NODES);
	p->nodes += n - 1;
	return push(p, cJSON_Duplicate(v, 1));
}

static int push_string(struct pk *p, uint64_t n)
{
	char *s;
	int rc;

	if (need(p, (size_t)(n > SIZE_MAX ? SIZE_MAX : n)) < 0)
		return -1;
	s = xstrndup((const char *)p->b + p->pos, (size_t)n);
	p->pos += (size_t)n;
	rc = push(p, cJSON_CreateString(s));
	free(s);
	return rc;
}

static const char *refused_name(unsigned char op)
{
	switch (op) {
	case 'c':
		return "GLOBAL";
	case 0x93:
		return "STACK_GLOBAL";
	case 'R':
		return "REDUCE";
	case 'b':
		return "BUILD";
	case 'i':
		return "INST";
	case 'o':
		return "OBJ";
	case 0x81:
		return "NEWOBJ";
	case 0x92:
		return "NEWOBJ_EX";
	case 'P':
		return "PERSID";
	case 'Q':
		return "BINPERSID";
	case 0x82:
	case 0x83:
	case 0x84:
		return "EXT";
	default:
		return NULL;
	}
}

static int step(struct pk *p, unsigned char op, int *stop)
{
	const unsigned char *a = p->b + p->pos;
	const char *bad = refused_name(op);

	switch (op) {
	case 0x80: /* PROTO */
		if (need(p, 1) < 0)
			return -1;
		if (a[0] < 2 || a[0] > 5)
			return pk_fail(p, "pickle protocol %u: expected 2 to 5", a[0]);
		p->pos++;
		return 0;
	case 0x95: /* FRAME: a length hint only */
		if (need(p, 8) < 0)
			return -1;
		p->pos += 8;
		return 0;
	case '.':
		*stop = 1;
		return 0;
	case '}':
		return push(p, cJSON_CreateObject());
	case ']':
		return push(p, cJSON_CreateArray());
	case ')':
		return push(p, cJSON_CreateArray());
	case '(':
		return push_mark(p);
	case 's': {
		cJSON *k, *v;

		if (p->n < 3 || !p->stack[p->n - 1] || !p->stack[p->n - 2] || !cJSON_IsObject(p->stack[p->n - 3]))
			return pk_fail(p, "SETITEM at byte %zu without a dict, key and value", p->op_at);
		k = p->stack[p->n - 2];
		v = p->stack[p->n - 1];
		p->n -= 2;
		return set_item(p, p->stack[p->n - 1], k, v);
	}
	case 'u':
		return op_setitems(p);
	case 'a':
		if (p->n < 2 || !p->stack[p->n - 1] || !cJSON_IsArray(p->stack[p->n - 2]))
			return pk_fail(p, "APPEND at byte %zu without a list and a value", p->op_at);
		if (adopt_ok(p, p->stack[p->n - 2], p->stack[p->n - 1]) < 0)
			return -1;
		cJSON_AddItemToArray(p->stack[p->n - 2], p->stack[p->n - 1]);
		p->n--;
		return 0;
	case 'e':
		return op_appends(p);
	case 'X': /* BINUNICODE */
		if (need(p, 4) < 0)
			return -1;
		p->pos += 4;
		return push_string(p, le(a, 4));
	case 0x8c: /* SHORT_BINUNICODE */
		if (need(p, 1) < 0)
			return -1;
		p->pos += 1;
		return push_string(p, a[0]);
	case 0x8d: /* BINUNICODE8 */
		if (need(p, 8) < 0)
			return -1;
		p->pos += 8;
		return push_string(p, le(a, 8));
	case 'J': /* BININT: signed 32 */
		if (need(p, 4) < 0)
			return -1;
		p->pos += 4;
		return push(p, cJSON_CreateNumber((double)(int32_t)(uint32_t)le(a, 4)));
	case 'K':
		if (need(p, 1) < 0)
			return -1;
		p->pos += 1;
		return push(p, cJSON_CreateNumber(a[0]));
	case 'M':
		if (need(p, 2) < 0)
			return -1;
		p->pos += 2;
		return push(p, cJSON_CreateNumber((double)le(a, 2)));
	case 0x8a: { /* LONG1: n bytes, two's complement, little-endian */
		uint64_t v;
		size_t n;

		if (need(p, 1) < 0)
			return -1;
		n = a[0];
		if (n > 8)
			return pk_fail(p, "LONG1 of %zu bytes at byte %zu: more than 64 bits", n, p->op_at);
		if (need(p, 1 + n) < 0)
			return -1;
		v = le(a + 1, n);
		if (n && n < 8 && (a[n] & 0x80))
			v |= ~(uint64_t)0 << (8 * n);
		p->pos += 1 + n;
		return push(p, cJSON_CreateNumber(n ? (double)(int64_t)v : 0.0));
	}
	case 'G': { /* BINFLOAT: big-endian double */
		uint64_t bits = 0;
		double d;

		if (need(p, 8) < 0)
			return -1;
		for (int i = 0; i < 8; i++)
			bits = bits << 8 | a[i];
		memcpy(&d, &bits, sizeof(d));
		p->pos += 8;
		return push(p, isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull());
	}
	case 'N':
		return push(p, cJSON_CreateNull());
	case 0x88:
		return push(p, cJSON_CreateTrue());
	case 0x89:
		return push(p, cJSON_CreateFalse());
	case 0x85:
		return op_tuple(p, 1);
	case 0x86:
		return op_tuple(p, 2);
	case 0x87:
		return op_tuple(p, 3);
	case 't':
		return op_tuple(p, -1);
	case 0x94: /* MEMOIZE: the next index */
		return memo_put(p, p->stored);
	case 'q':
		if (need(p, 1) < 0)
			return -1;
		p->pos += 1;
		return memo_put(p, a[0]);
	case 'r':
		if (need(p, 4) < 0)
			return -1;
		p->pos += 4;
		return memo_put(p, le(a, 4));
	case 'h':
		if (need(p, 1) < 0)
			return -1;
		p->pos += 1;
		return memo_get(p, a[0]);
	case 'j':
		if (need(p, 4) < 0)
			return -1;
		p->pos += 4;
		return memo_get(p, le(a, 4));
	default:
		if (bad)
			return pk_fail(p, "pickle opcode %s (0x%02x) at byte %zu imports or calls code: refused (a Flight "
				       "Recorder dump holds only data)",
				       bad, op, p->op_at);
		return pk_fail(p, "pickle opcode 0x%02x at byte %zu is not one a Flight Recorder dump uses", op, p->op_at);
	}
}

/* The whole stream to one value; NULL with p->err set. */
static cJSON *unpickle(struct pk *p)
{
	cJSON *v = NULL;
	int stop = 0;

	p->grave = cJSON_CreateArray();
	if (!p->grave)
		return pk_fail(p, "out of memory"), NULL;
	if (!p->len || p->b[0] != 0x80) {
		pk_fail(p, "not a pickle of protocol 2 or later (the first byte is not PROTO 0x80)");
		goto out;
	}
	while (!stop) {
		if (p->pos >= p->len) {
			pk_fail(p, "truncated: no STOP after byte %zu", p->len);
			goto out;
		}
		p->op_at = p->pos;
		if (step(p, p->b[p->pos++], &stop) < 0)
			goto out;
	}
	if (p->n != 1 || !p->stack[0]) {
		pk_fail(p, "STOP at byte %zu leaves %zu values and marks, not one value", p->op_at, p->n);
		goto out;
	}
	v = p->stack[0];
	p->n = 0;
out:
	for (size_t i = 0; i < p->n; i++)
		cJSON_Delete(p->stack[i]);
	cJSON_Delete(p->grave);
	free(p->stack);
	free(p->memo);
	return v;
}

/* ---- the dump, from either tree ---- */

static const cJSON *key(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = key(o, k);

	return cJSON_IsString(v) && v->valuestring ? xstrdup(v->valuestring) : NULL;
}

/* An integer 0 … 2^53 (a string of one in JSON's pg_status), else -1. */
static long long int_of(const cJSON *v)
{
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0 &&
	    v->valuedouble == floor(v->valuedouble))
		return (long long)v->valuedouble;
	return -1;
}

/* Sizes as Python prints the list: "[[1024, 8], []]"; NULL when absent. Bounded. */
static void sizes_text(const cJSON *v, char *buf, size_t len, size_t *used, int depth)
{
	const cJSON *c;

#define PUT(...) (*used < len ? (*used += (size_t)snprintf(buf + *used, len - *used, __VA_ARGS__)) : 0)
	if (depth > 4) {
		PUT("…");
		return;
	}
	if (cJSON_IsArray(v)) {
		PUT("[");
		cJSON_ArrayForEach(c, v)
		{
			sizes_text(c, buf, len, used, depth + 1);
			if (c->next)
				PUT(", ");
		}
		PUT("]");
	} else if (cJSON_IsNumber(v)) {
		PUT("%.0f", v->valuedouble);
	} else if (cJSON_IsString(v)) {
		PUT("'%s'", v->valuestring);
	} else {
		PUT("?");
	}
#undef PUT
}

static char *list_text(const cJSON *o, const char *k)
{
	const cJSON *v = key(o, k);
	char buf[512];
	size_t used = 0;

	if (!v)
		return NULL;
	buf[0] = 0;
	sizes_text(v, buf, sizeof(buf), &used, 0);
	if (used >= sizeof(buf))
		memcpy(buf + sizeof(buf) - 5, "…]", sizeof("…]"));
	return xstrdup(buf);
}

/* "[0, 1, 2]" (ranks_str) or a list of integers; -1 when neither */
static int parse_ranks(const cJSON *v, struct cd_fr_pg *g)
{
	const char *s;
	size_t cap = 0;

	if (cJSON_IsArray(v)) {
		const cJSON *c;

		cJSON_ArrayForEach(c, v)
		{
			long long r = int_of(c);

			if (r < 0 || r > 0x7fffffff || g->n_ranks >= CD_FR_MAX_RANKS)
				return -1;
			*CD_PUSH(g->ranks, g->n_ranks, cap) = (long)r;
		}
		return 0;
	}
	if (!cJSON_IsString(v))
		return -1;
	s = v->valuestring;
	while (isspace((unsigned char)*s))
		s++;
	if (*s++ != '[')
		return -1;
	for (;;) {
		char *end;
		long r;

		while (isspace((unsigned char)*s))
			s++;
		if (*s == ']' && !g->n_ranks)
			break;
		if (!isdigit((unsigned char)*s))
			return -1;
		r = strtol(s, &end, 10);
		if (r < 0 || r > 0x7fffffff || g->n_ranks >= CD_FR_MAX_RANKS)
			return -1;
		*CD_PUSH(g->ranks, g->n_ranks, cap) = r;
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == ']')
			break;
		if (*s++ != ',')
			return -1;
	}
	s++;
	while (isspace((unsigned char)*s))
		s++;
	return *s ? -1 : 0;
}

static enum cd_fr_state state_of(const char *s)
{
	if (!s)
		return CD_FR_UNKNOWN;
	if (!strcmp(s, "completed"))
		return CD_FR_COMPLETED;
	if (!strcmp(s, "started"))
		return CD_FR_STARTED;
	if (!strcmp(s, "scheduled"))
		return CD_FR_SCHEDULED;
	return CD_FR_UNKNOWN;
}

static int read_entry(struct cd_fr_dump *d, const cJSON *e, size_t i, char **err)
{
	struct cd_fr_entry *x;
	const cJSON *pg = key(e, "process_group"), *seq = key(e, "collective_seq_id"), *p2p = key(e, "is_p2p");
	char *st;

	if (!cJSON_IsObject(e))
		return *err = xasprintf("'%s': entries[%zu] is not a dict", d->path, i), -1;
	if (!seq)
		seq = key(e, "seq_id"); /* older dumps */
	if (!cJSON_IsArray(pg) || cJSON_GetArraySize(pg) < 1 || !cJSON_IsString(cJSON_GetArrayItem(pg, 0)))
		return *err = xasprintf("'%s': entries[%zu] has no process_group (name, desc)", d->path, i), -1;
	if (int_of(seq) < 0)
		return *err = xasprintf("'%s': entries[%zu] has no collective_seq_id (an integer 0 or more)", d->path, i),
		       -1;
	x = CD_PUSH(d->entries, d->n_entries, d->cap_entries);
	memset(x, 0, sizeof(*x));
	x->pg_name = xstrdup(cJSON_GetArrayItem(pg, 0)->valuestring);
	x->pg_desc = cJSON_IsString(cJSON_GetArrayItem(pg, 1)) ? xstrdup(cJSON_GetArrayItem(pg, 1)->valuestring) : NULL;
	x->coll_seq = int_of(seq);
	x->record_id = int_of(key(e, "record_id"));
	x->p2p_seq = int_of(key(e, "p2p_seq_id"));
	x->op_id = int_of(key(e, "op_id"));
	x->profiling_name = str_of(e, "profiling_name");
	x->in_sizes = list_text(e, "input_sizes");
	x->out_sizes = list_text(e, "output_sizes");
	x->in_dtypes = list_text(e, "input_dtypes");
	x->out_dtypes = list_text(e, "output_dtypes");
	st = str_of(e, "state");
	x->state = state_of(st);
	free(st);
	x->timeout_ms = cJSON_IsNumber(key(e, "timeout_ms")) ? key(e, "timeout_ms")->valuedouble : NAN;
	if (cJSON_IsBool(p2p))
		x->p2p = cJSON_IsTrue(p2p);
	else /* a dump without is_p2p: send and recv by their names */
		x->p2p = x->profiling_name &&
			 (strstr(x->profiling_name, ":send") || strstr(x->profiling_name, ":recv"));
	return 0;
}

static int read_tree(struct cd_fr_dump *d, const cJSON *root, char **err)
{
	const cJSON *cfg, *entries, *c;
	size_t i = 0;

	if (!cJSON_IsObject(root))
		return *err = xasprintf("'%s': not a Flight Recorder dump: the top value is not a dict", d->path), -1;
	d->version = str_of(root, "version");
	if (!d->version)
		return *err = xasprintf("'%s': not a Flight Recorder dump: no \"version\" string", d->path), -1;
	d->comm_lib = str_of(root, "comm_lib_version");
	cfg = key(root, "pg_config");
	entries = key(root, "entries");
	if (!cfg && !entries)
		return *err = xasprintf("'%s': not a Flight Recorder dump: neither \"pg_config\" nor \"entries\"", d->path),
		       -1;
	if (cfg && !cJSON_IsObject(cfg))
		return *err = xasprintf("'%s': \"pg_config\" is not a dict", d->path), -1;
	cJSON_ArrayForEach(c, cfg)
	{
		struct cd_fr_pg *g = CD_PUSH(d->pgs, d->n_pgs, d->cap_pgs);

		memset(g, 0, sizeof(*g));
		g->name = str_of(c, "name");
		if (!g->name)
			g->name = xstrdup(c->string);
		g->desc = str_of(c, "desc");
		if (!cJSON_IsObject(c) || parse_ranks(key(c, "ranks"), g) < 0)
			return *err = xasprintf("'%s': pg_config[\"%s\"]: \"ranks\" is not a list of ranks like \"[0, 1]\"",
						d->path, c->string),
			       -1;
	}
	if (entries && !cJSON_IsArray(entries))
		return *err = xasprintf("'%s': \"entries\" is not a list", d->path), -1;
	cJSON_ArrayForEach(c, entries)
	{
		if (read_entry(d, c, i++, err) < 0)
			return -1;
	}
	return 0;
}

int cd_fr_rank_from_name(const char *path, long *rank)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *end = base + strlen(base), *dot = strrchr(base, '.'), *s;

	if (dot && dot > base && !isdigit((unsigned char)dot[1]))
		end = dot; /* "…_3.json", "…_3.pkl" */
	s = end;
	while (s > base && isdigit((unsigned char)s[-1]))
		s--;
	if (s == end || end - s > 9)
		return -1;
	*rank = strtol(s, NULL, 10);
	return 0;
}

int cd_fr_parse(struct cd_fr_dump *d, const char *path, const unsigned char *buf, size_t len, char **err)
{
	cJSON *root;
	size_t i = 0;

	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	if (cd_fr_rank_from_name(path, &d->rank) < 0)
		d->rank = -1;
	while (i < len && isspace(buf[i]))
		i++;
	if (len > CD_FR_MAX_FILE) {
		*err = xasprintf("'%s': %zu bytes: more than a Flight Recorder dump (%u MiB at most)", path, len,
				 CD_FR_MAX_FILE >> 20);
		goto fail;
	}
	if (i < len && buf[i] == '{') {
		const char *end = NULL;
		size_t values = 1;

		d->json = 1;
		/* cJSON builds the whole tree: bound it as the pickle's, before (a value follows a
		 * comma or opens a container; commas inside strings only overcount) */
		for (size_t k = i; k < len; k++)
			values += buf[k] == ',' || buf[k] == '[' || buf[k] == '{';
		if (values > CD_FR_MAX_NODES) {
			*err = xasprintf("'%s': more than %u values: not a Flight Recorder dump", path, CD_FR_MAX_NODES);
			goto fail;
		}
		root = cJSON_ParseWithLengthOpts((const char *)buf, len, &end, 0);
		if (!root) {
			*err = xasprintf("'%s': not valid JSON near byte %zu", path,
					 end ? (size_t)(end - (const char *)buf) : (size_t)0);
			goto fail;
		}
	} else {
		struct pk p = { .b = buf, .len = len };

		root = unpickle(&p);
		if (!root) {
			*err = xasprintf("'%s': %s", path, p.err);
			goto fail;
		}
	}
	if (read_tree(d, root, err) < 0) {
		cJSON_Delete(root);
		goto fail;
	}
	cJSON_Delete(root);
	return 0;
fail:
	cd_fr_dump_free(d);
	return -1;
}

void cd_fr_dump_free(struct cd_fr_dump *d)
{
	for (size_t i = 0; i < d->n_entries; i++) {
		struct cd_fr_entry *e = &d->entries[i];

		free(e->pg_name);
		free(e->pg_desc);
		free(e->profiling_name);
		free(e->in_sizes);
		free(e->out_sizes);
		free(e->in_dtypes);
		free(e->out_dtypes);
	}
	for (size_t i = 0; i < d->n_pgs; i++) {
		free(d->pgs[i].name);
		free(d->pgs[i].desc);
		free(d->pgs[i].ranks);
	}
	free(d->entries);
	free(d->pgs);
	free(d->path);
	free(d->version);
	free(d->comm_lib);
	memset(d, 0, sizeof(*d));
}
