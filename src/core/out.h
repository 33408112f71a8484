/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one emitter (iproute2's json_print idea over cJSON): one call per field
 * serves text and JSON, so the two can never drift.
 *
 * Text mode prints each call at once through its printf format. JSON mode builds a
 * cJSON tree and writes it once in out_end(), so the stream gets a complete
 * document or nothing. Null values (CD_NULL_I64, NAN, CD_TRI_NULL, NULL strings)
 * are JSON null and "n/a" in text, at the width the format asked for.
 */
#ifndef CD_OUT_H
#define CD_OUT_H

#include <stdint.h>
#include <stdio.h>

/*
 * PROM and HTML are whole-document formats: their renderers (report_prom.c,
 * report_html.c) write through out_raw(); the field calls write nothing in them.
 */
enum out_format { OUT_FMT_TEXT, OUT_FMT_JSON, OUT_FMT_PROM, OUT_FMT_HTML };
enum out_kind { OUT_ANY, OUT_TEXT, OUT_JSON }; /* which formats a call writes to */
enum out_color { OUT_COLOR_NONE, OUT_COLOR_RED, OUT_COLOR_YELLOW, OUT_COLOR_GREEN, OUT_COLOR_BOLD, OUT_COLOR_DIM };

struct cd_out;

struct cd_out *out_new(enum out_format fmt, FILE *f, int color);
enum out_format out_format(const struct cd_out *o);
/* Serialises the JSON tree (JSON mode) and frees o; returns -1 when the write failed. */
int out_end(struct cd_out *o);
/*
 * JSON mode: fn rewrites the finished tree (a struct cJSON *) just before out_end() prints
 * it, and returns 1 for one line without indentation, 0 for the indented form. The report
 * sets it for a large document's compact form (report_compact.c); the emitter knows no layout.
 */
void out_set_json_pass(struct cd_out *o, int (*fn)(void *root));

/* key is NULL for array elements (and ignored in text mode). */
void out_obj_open(struct cd_out *o, const char *key);
void out_obj_close(struct cd_out *o);
void out_arr_open(struct cd_out *o, const char *key);
void out_arr_close(struct cd_out *o);

void out_str(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, const char *v);
void out_i64(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, int64_t v);
void out_dbl(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, double v);
/* v is an enum cd_tri; text shows "yes"/"no"/"n/a" through a %s format. */
void out_bool(struct cd_out *o, enum out_kind k, const char *key, const char *fmt, int v);
void out_null(struct cd_out *o, const char *key); /* JSON only */

/* Text-only free text; ignored in JSON mode. */
void out_text(struct cd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_nl(struct cd_out *o);
/* Prometheus and HTML only: the renderer's own markup, written as is. */
void out_raw(struct cd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Colour for the following text output; a no-op unless colour is on. */
void out_color(struct cd_out *o, enum out_color c);

#endif
