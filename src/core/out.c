/* SPDX-License-Identifier: BSD-3-Clause */
#include "out.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "results.h"
#include "util.h"

#define OUT_MAX_DEPTH 16

struct cd_out {
	enum out_format fmt;
	FILE *f;
	int color;
	cJSON *root;
	cJSON *stack[OUT_MAX_DEPTH];
	int depth;
	int (*pass)(void *root);
};

struct cd_out *out_new(enum out_format fmt, FILE *f, int color)
{
	struct cd_out *o = xcalloc(1, sizeof(*o));

	o->fmt = fmt;
	o->f = f;
	o->color = color && fmt == OUT_FMT_TEXT;
	if (fmt == OUT_FMT_JSON) {
		o->root = cJSON_CreateObject();
		if (!o->root)
			abort();
		o->stack[0] = o->root;
		o->depth = 1;
	}
	return o;
}

void out_set_json_pass(struct cd_out *o, int (*fn)(void *root))
{
	o->pass = fn;
}

enum out_format out_format(const struct cd_out *o)
{
	return o->fmt;
}

int out_end(struct cd_out *o)
{
	int rc = 0;

	if (!o)
		return 0;
	if (o->fmt == OUT_FMT_JSON) {
		char *s;

		assert(o->depth == 1 && "unbalanced out_*_open/close");
		s = o->pass && o->pass(o->root) ? cJSON_PrintUnformatted(o->root) : cJSON_Print(o->root);
		if (!s)
			abort();
		if (fputs(s, o->f) == EOF || fputc('\n', o->f) == EOF)
			rc = -1;
		cJSON_free(s);
		cJSON_Delete(o->root);
	}
	if (o->color)
		fputs("\033[0m", o->f);
	if (fflush(o->f) == EOF || ferror(o->f))
		rc = -1;
	free(o);
	return rc;
}

static int json(const struct cd_out *o, enum out_kind k)
{
	return o->fmt == OUT_FMT_JSON && k != OUT_TEXT;
}

static int text(const struct cd_out *o, enum out_kind k)
{
	return o->fmt == OUT_FMT_TEXT && k != OUT_JSON && o->f;
}

/* Attach item under key in the current container (arrays ignore the key). */
static void attach(struct cd_out *o, const char *key, cJSON *item)
{
	cJSON *cur = o->stack[o->depth - 1];

	if (!item)
		abort();
	if (cJSON_IsArray(cur)) {
		cJSON_AddItemToArray(cur, item);
	} else {
		char *c;

		assert(key && "object member without a key");
		/* keys can be a document's too (the env map's): valid UTF-8 like its values */
		c = cd_clean_text(key, CD_CLEAN_UTF8);
		cJSON_AddItemToObject(cur, c ? c : key, item);
		free(c);
	}
}

static void push(struct cd_out *o, const char *key, cJSON *item)
{
	attach(o, key, item);
	assert(o->depth < OUT_MAX_DEPTH);
	o->stack[o->depth++] = item;
}

void out_obj_open(struct cd_out *o, const char *key)
{
	if (o->fmt == OUT_FMT_JSON)
		push(o, key, cJSON_CreateObject());
}

void out_arr_open(struct cd_out *o, const char *key)
{
	if (o->fmt == OUT_FMT_JSON)
		push(o, key, cJSON_CreateArray());
}

static void pop(struct cd_out *o)
{
	if (o->fmt != OUT_FMT_JSON)
		return;
	assert(o->depth > 1 && "out_*_close without open");
	o->depth--;
}

void out_obj_close(struct cd_out *o)
{
	pop(o);
}

void out_arr_close(struct cd_out *o)
{
	pop(o);
}

/*
 * Print "n/a" where fmt expected a number: keep its flags and width, so columns
 * stay aligned, and turn the conversion into %s.
 */
static void print_na(struct cd_out *o, const char *fmt)
{
	const char *p = fmt;
	char spec[32];
	size_t n = 0;

	while (*p) {
		if (p[0] == '%' && p[1] == '%') {
			fputc('%', o->f);
			p += 2;
			continue;
		}
		if (*p != '%') {
			fputc(*p++, o->f);
			continue;
		}
		spec[n++] = *p++;
		while (*p && strchr("-+ #0", *p) && n < sizeof(spec) - 3)
			spec[n++] = *p++;
		while (*p >= '0' && *p <= '9' && n < sizeof(spec) - 3)
			spec[n++] = *p++;
		while (*p && strchr(".0123456789hlLqjzt", *p))
			p++; /* precision and length modifiers */
		if (*p)
			p++; /* the conversion character */
		spec[n++] = 's';
		spec[n] = '\0';
		fprintf(o->f, spec, "n/a");
		/* the rest is literal text, where "%%" still means one '%' */
		for (; *p; p++) {
			fputc(*p, o->f);
			if (p[0] == '%' && p[1] == '%')
				p++;
		}
		return;
	}
}

/* Strings come from documents anyone may write: JSON gets valid UTF-8, text no control character. */
void out_str(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, const char *v)
{
	char *c;

	if (json(o, k)) {
		c = v ? cd_clean_text(v, CD_CLEAN_UTF8) : NULL;
		attach(o, key, v ? cJSON_CreateString(c ? c : v) : cJSON_CreateNull());
		free(c);
	} else if (text(o, k) && fmt) {
		c = v ? cd_clean_text(v, CD_CLEAN_CONTROLS) : NULL;
		fprintf(o->f, fmt, c ? c : v ? v : "n/a");
		free(c);
	}
}

/* fmt and its arguments printed, then cleaned as `how` says */
static void vprint_clean(struct cd_out *o, enum cd_clean how, const char *fmt, va_list ap)
{
	char *buf = NULL, *c;

	if (vasprintf(&buf, fmt, ap) < 0)
		return;
	c = cd_clean_text(buf, how);
	fputs(c ? c : buf, o->f);
	free(c);
	free(buf);
}

void out_i64(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, int64_t v)
{
	if (json(o, k)) {
		/* cJSON stores doubles: exact up to 2^53, which covers every count and byte size here */
		attach(o, key, v == CD_NULL_I64 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v));
	} else if (text(o, k) && fmt) {
		if (v == CD_NULL_I64)
			print_na(o, fmt);
		else
			fprintf(o->f, fmt, v);
	}
}

void out_dbl(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, double v)
{
	if (json(o, k)) {
		attach(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
	} else if (text(o, k) && fmt) {
		if (!isfinite(v))
			print_na(o, fmt);
		else
			fprintf(o->f, fmt, v);
	}
}

void out_bool(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, int v)
{
	if (json(o, k))
		attach(o, key, v == CD_TRI_NULL ? cJSON_CreateNull() : cJSON_CreateBool(v != 0));
	else if (text(o, k) && fmt)
		fprintf(o->f, fmt, v == CD_TRI_NULL ? "n/a" : v ? "yes" : "no");
}

void out_null(struct cd_out *o, const char *key)
{
	if (o->fmt == OUT_FMT_JSON)
		attach(o, key, cJSON_CreateNull());
}

void out_text(struct cd_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->fmt != OUT_FMT_TEXT || !o->f)
		return;
	/* the format's own lines stay; an ESC or a carriage return from an argument does not */
	va_start(ap, fmt);
	vprint_clean(o, CD_CLEAN_KEEP_LINES, fmt, ap);
	va_end(ap);
}

void out_raw(struct cd_out *o, const char *fmt, ...)
{
	va_list ap;

	if ((o->fmt != OUT_FMT_PROM && o->fmt != OUT_FMT_HTML) || !o->f)
		return;
	/* one invalid byte in a label makes promtool and node_exporter drop the whole file */
	va_start(ap, fmt);
	vprint_clean(o, CD_CLEAN_UTF8, fmt, ap);
	va_end(ap);
}

void out_nl(struct cd_out *o)
{
	if (o->fmt == OUT_FMT_TEXT && o->f)
		fputc('\n', o->f);
}

void out_color(struct cd_out *o, enum out_color c)
{
	static const char *const esc[] = {
		[OUT_COLOR_NONE] = "\033[0m",	[OUT_COLOR_RED] = "\033[31m", [OUT_COLOR_YELLOW] = "\033[33m",
		[OUT_COLOR_GREEN] = "\033[32m", [OUT_COLOR_BOLD] = "\033[1m", [OUT_COLOR_DIM] = "\033[2m",
	};

	if (o->color && (size_t)c < ARRAY_SIZE(esc))
		fputs(esc[c], o->f);
}
