/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "out.h"
#include "results.h"
#include "suites.h"

/* An emitter on a memory stream; done() ends it and returns what it wrote. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct cd_out *o;
};

static struct cd_out *mem_open(struct mem *m, enum out_format fmt, int color)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
	m->o = out_new(fmt, m->f, color);
	ck_assert_ptr_nonnull(m->o);
	return m->o;
}

static char *mem_done(struct mem *m)
{
	ck_assert_int_eq(out_end(m->o), 0);
	fclose(m->f);
	return m->buf;
}

#define TEXT_EQ(expect, calls)                                  \
	do {                                                    \
		struct mem m_;                                  \
		struct cd_out *o = mem_open(&m_, OUT_FMT_TEXT, 0); \
		char *got_;                                     \
		calls;                                          \
		got_ = mem_done(&m_);                           \
		ck_assert_str_eq(got_, expect);                 \
		free(got_);                                     \
	} while (0)

START_TEST(test_text_values)
{
	TEXT_EQ("[ab    ]", out_str(o, OUT_ANY, "k", "[%-6s]", "ab"));
	TEXT_EQ("[n/a   ]", out_str(o, OUT_ANY, "k", "[%-6s]", NULL));
	TEXT_EQ("    42", out_i64(o, OUT_ANY, "k", "%6" PRId64, 42));
	TEXT_EQ("-9000000000", out_i64(o, OUT_ANY, "k", "%" PRId64, -9000000000LL));
	TEXT_EQ("   n/a", out_i64(o, OUT_ANY, "k", "%6" PRId64, CD_NULL_I64));
	TEXT_EQ("n/a   |", out_i64(o, OUT_ANY, "k", "%-6" PRId64 "|", CD_NULL_I64));
	TEXT_EQ("mtu n/a bytes", out_i64(o, OUT_ANY, "k", "mtu %" PRId64 " bytes", CD_NULL_I64));
	TEXT_EQ("     3.14", out_dbl(o, OUT_ANY, "k", "%9.2f", 3.14159));
	TEXT_EQ("      n/a", out_dbl(o, OUT_ANY, "k", "%9.2f", NAN));
	TEXT_EQ("      n/a", out_dbl(o, OUT_ANY, "k", "%9.2f", INFINITY));
	TEXT_EQ(" n/a Gb/s", out_dbl(o, OUT_ANY, "k", " %.0f Gb/s", NAN));
	/* "%%" is one '%' before and after the conversion, with or without a value */
	TEXT_EQ("100%  12.5%", out_dbl(o, OUT_ANY, "k", "100%% %5.1f%%", 12.5));
	TEXT_EQ("100%   n/a%", out_dbl(o, OUT_ANY, "k", "100%% %5.1f%%", NAN));
	TEXT_EQ("50% n/a%%", out_i64(o, OUT_ANY, "k", "50%% %" PRId64 "%%%%", CD_NULL_I64));
	TEXT_EQ("yes", out_bool(o, OUT_ANY, "k", "%s", CD_TRI_TRUE));
	TEXT_EQ("no", out_bool(o, OUT_ANY, "k", "%s", CD_TRI_FALSE));
	TEXT_EQ("[n/a ]", out_bool(o, OUT_ANY, "k", "[%-4s]", CD_TRI_NULL));
	TEXT_EQ("a=1\n", { out_text(o, "a=%d", 1); out_nl(o); });
	/* a NULL format prints nothing */
	TEXT_EQ("", out_str(o, OUT_ANY, "k", NULL, "x"));
}
END_TEST

START_TEST(test_text_ignores_json)
{
	TEXT_EQ("visible", {
		out_obj_open(o, "obj");
		out_str(o, OUT_JSON, "a", "%s", "hidden");
		out_i64(o, OUT_JSON, "b", "%" PRId64, 7);
		out_dbl(o, OUT_JSON, "c", "%f", 1.0);
		out_bool(o, OUT_JSON, "d", "%s", CD_TRI_TRUE);
		out_null(o, "e");
		out_arr_open(o, "arr");
		out_arr_close(o);
		out_str(o, OUT_TEXT, NULL, "%s", "visible");
		out_obj_close(o);
	});
	TEXT_EQ("", ck_assert_int_eq(out_format(o), OUT_FMT_TEXT));
}
END_TEST

START_TEST(test_color)
{
	struct mem m;
	struct cd_out *o;
	char *s;

	o = mem_open(&m, OUT_FMT_TEXT, 1);
	out_color(o, OUT_COLOR_RED);
	out_text(o, "FAIL");
	out_color(o, OUT_COLOR_NONE);
	s = mem_done(&m);
	ck_assert_str_eq(s, "\033[31mFAIL\033[0m\033[0m"); /* out_end resets once more */
	free(s);

	o = mem_open(&m, OUT_FMT_TEXT, 1);
	out_color(o, OUT_COLOR_BOLD);
	out_color(o, OUT_COLOR_YELLOW);
	out_color(o, OUT_COLOR_GREEN);
	out_color(o, OUT_COLOR_DIM);
	s = mem_done(&m);
	ck_assert_str_eq(s, "\033[1m\033[33m\033[32m\033[2m\033[0m");
	free(s);

	o = mem_open(&m, OUT_FMT_TEXT, 0);
	out_color(o, OUT_COLOR_RED);
	out_text(o, "FAIL");
	out_color(o, OUT_COLOR_NONE);
	s = mem_done(&m);
	ck_assert_str_eq(s, "FAIL");
	free(s);

	/* colour never reaches JSON */
	o = mem_open(&m, OUT_FMT_JSON, 1);
	out_color(o, OUT_COLOR_RED);
	out_str(o, OUT_ANY, "k", "%s", "v");
	out_color(o, OUT_COLOR_NONE);
	s = mem_done(&m);
	ck_assert_ptr_null(strchr(s, '\033'));
	free(s);
}
END_TEST

START_TEST(test_json_tree)
{
	struct mem m;
	struct cd_out *o = mem_open(&m, OUT_FMT_JSON, 0);
	cJSON *root, *obj, *arr, *el;
	char *s;

	out_str(o, OUT_ANY, "name", "%s", "node17");
	out_str(o, OUT_ANY, "none", "%s", NULL);
	out_i64(o, OUT_ANY, "count", "%" PRId64, 4096);
	out_i64(o, OUT_JSON, "big", NULL, 1LL << 40);
	out_i64(o, OUT_ANY, "unknown", "%" PRId64, CD_NULL_I64);
	out_dbl(o, OUT_ANY, "rate", "%.1f", 12.5);
	out_dbl(o, OUT_ANY, "nan", "%.1f", NAN);
	out_bool(o, OUT_ANY, "yes", "%s", CD_TRI_TRUE);
	out_bool(o, OUT_ANY, "no", "%s", CD_TRI_FALSE);
	out_bool(o, OUT_ANY, "maybe", "%s", CD_TRI_NULL);
	out_null(o, "nothing");
	out_text(o, "text only %d\n", 1);
	out_nl(o);
	out_str(o, OUT_TEXT, "hidden", "%s", "text");
	out_i64(o, OUT_TEXT, "hidden_i", "%" PRId64, 1);
	out_obj_open(o, "obj");
	out_str(o, OUT_JSON, "inner", NULL, "x");
	out_arr_open(o, "list");
	out_i64(o, OUT_ANY, NULL, "%" PRId64, 1);
	out_str(o, OUT_ANY, "ignored_key", "%s", "two");
	out_null(o, NULL);
	out_obj_open(o, NULL);
	out_bool(o, OUT_JSON, "deep", NULL, CD_TRI_TRUE);
	out_obj_close(o);
	out_arr_open(o, NULL);
	out_arr_close(o);
	out_arr_close(o);
	out_obj_close(o);
	out_arr_open(o, "empty");
	out_arr_close(o);
	s = mem_done(&m);

	ck_assert_ptr_nonnull(strstr(s, "\n")); /* a complete document, newline-terminated */
	ck_assert_int_eq(s[strlen(s) - 1], '\n');
	root = cJSON_Parse(s);
	ck_assert_ptr_nonnull(root);
	ck_assert(cJSON_IsObject(root));
	ck_assert_int_eq(cJSON_GetArraySize(root), 13);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(root, "name")->valuestring, "node17");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "none")));
	ck_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "count")));
	ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(root, "count")->valuedouble, 4096);
	ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(root, "big")->valuedouble, 1099511627776.0);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "unknown")));
	ck_assert_double_eq(cJSON_GetObjectItemCaseSensitive(root, "rate")->valuedouble, 12.5);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "nan")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "yes")));
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "no")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "maybe")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "nothing")));
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(root, "hidden"));
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(root, "hidden_i"));
	ck_assert_ptr_null(strstr(s, "text only"));

	obj = cJSON_GetObjectItemCaseSensitive(root, "obj");
	ck_assert(cJSON_IsObject(obj));
	ck_assert_int_eq(cJSON_GetArraySize(obj), 2);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(obj, "inner")->valuestring, "x");
	arr = cJSON_GetObjectItemCaseSensitive(obj, "list");
	ck_assert(cJSON_IsArray(arr));
	ck_assert_int_eq(cJSON_GetArraySize(arr), 5);
	ck_assert_double_eq(cJSON_GetArrayItem(arr, 0)->valuedouble, 1);
	ck_assert_str_eq(cJSON_GetArrayItem(arr, 1)->valuestring, "two");
	ck_assert_ptr_null(cJSON_GetArrayItem(arr, 1)->string); /* array elements have no key */
	ck_assert(cJSON_IsNull(cJSON_GetArrayItem(arr, 2)));
	el = cJSON_GetArrayItem(arr, 3);
	ck_assert(cJSON_IsObject(el));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(el, "deep")));
	el = cJSON_GetArrayItem(arr, 4);
	ck_assert(cJSON_IsArray(el));
	ck_assert_int_eq(cJSON_GetArraySize(el), 0);
	el = cJSON_GetObjectItemCaseSensitive(root, "empty");
	ck_assert(cJSON_IsArray(el));
	ck_assert_int_eq(cJSON_GetArraySize(el), 0);
	/* keys keep the order of the calls */
	ck_assert_str_eq(root->child->string, "name");
	ck_assert_str_eq(cJSON_GetArrayItem(root, 12)->string, "empty");
	cJSON_Delete(root);
	free(s);
}
END_TEST

/* the whole-document formats take only their renderer's markup; text and JSON never see it */
START_TEST(test_raw_formats)
{
	static const enum out_format fmts[] = { OUT_FMT_TEXT, OUT_FMT_JSON, OUT_FMT_PROM, OUT_FMT_HTML };
	static const char *const want[] = { "free\n", "{\n}\n", "x 1\n", "x 1\n" };

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct mem m;
		struct cd_out *o = mem_open(&m, fmts[i], 1);
		char *got;

		out_raw(o, "x %d\n", 1);
		out_str(o, OUT_ANY, "k", "v=%s ", "v");
		out_i64(o, OUT_ANY, "n", "%lld ", 2);
		out_color(o, OUT_COLOR_RED);
		out_text(o, "free\n");
		got = mem_done(&m);
		if (fmts[i] == OUT_FMT_TEXT)
			ck_assert_ptr_nonnull(strstr(got, "free\n"));
		else if (fmts[i] == OUT_FMT_JSON)
			ck_assert_ptr_null(strstr(got, "x 1"));
		else
			ck_assert_str_eq(got, want[i]);
		free(got);
	}
}
END_TEST

START_TEST(test_json_empty)
{
	struct mem m;
	char *s;

	mem_open(&m, OUT_FMT_JSON, 0);
	ck_assert_int_eq(out_format(m.o), OUT_FMT_JSON);
	s = mem_done(&m);
	ck_assert_str_eq(s, "{\n}\n");
	free(s);
}
END_TEST

START_TEST(test_write_error)
{
	FILE *f = fopen("/dev/full", "w");
	struct cd_out *o;

	ck_assert_ptr_nonnull(f);
	o = out_new(OUT_FMT_JSON, f, 0);
	out_str(o, OUT_ANY, "k", "%s", "v");
	ck_assert_int_eq(out_end(o), -1);
	fclose(f);

	f = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(f);
	o = out_new(OUT_FMT_TEXT, f, 0);
	out_text(o, "some text\n");
	ck_assert_int_eq(out_end(o), -1);
	fclose(f);

	f = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(f);
	o = out_new(OUT_FMT_JSON, f, 0);
	out_str(o, OUT_ANY, "k", "%s", "v");
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	ck_assert_int_eq(out_end(NULL), 0);
}
END_TEST

Suite *out_suite(void)
{
	Suite *s = suite_create("out");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, test_text_values);
	tcase_add_test(tc, test_text_ignores_json);
	tcase_add_test(tc, test_color);
	suite_add_tcase(s, tc);
	tc = tcase_create("json");
	tcase_add_test(tc, test_json_tree);
	tcase_add_test(tc, test_json_empty);
	tcase_add_test(tc, test_raw_formats);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}
