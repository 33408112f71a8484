/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compact form of the JSON document (schema 2, report_compact.c) and its loading
 * (results_json.c): every committed document survives compact → load → render unchanged,
 * the shapes it writes, and the bad references and runs the loader refuses.
 */
#include <check.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ck_stderr.h"
#include "out.h"
#include "report.h"
#include "results.h"
#include "suites.h"

static char *render(const struct cd_results *r, enum out_format fmt, int compact)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o;

	ck_assert_ptr_nonnull(f);
	o = out_new(fmt, f, 0);
	if (compact)
		cd_report_compact(o, r);
	else
		cd_report(o, r);
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	return buf;
}

static int load(struct cd_results *r, const char *text)
{
	return cd_results_load_json(r, text, strlen(text), "test.json");
}

/* Every committed document: its compact form loads back to the same document (rendered indented and as text). */
START_TEST(test_compact_committed_docs)
{
	static const char *const pats[] = { "tests/data/docs/*.json", "tests/data/docs/*/*.json",
					    "tests/data/docs/*/*/*.json" };
	size_t n = 0;

	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		glob_t g;

		if (glob(pats[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct cd_results r, back;
			char *s1, *c, *s2, *c2, *t1, *t2;

			ck_assert_msg(cd_results_load_file(&r, g.gl_pathv[i]) == 0, "%s does not load", g.gl_pathv[i]);
			s1 = render(&r, OUT_FMT_JSON, 0);
			c = render(&r, OUT_FMT_JSON, 1);
			ck_assert_msg(!strncmp(c, "{\"schema\":2,", 12) && !strchr(c, '\t') && strchr(c, '\n') == c + strlen(c) - 1,
				      "%s: not one line of schema 2", g.gl_pathv[i]);
			ck_assert_msg(load(&back, c) == 0, "%s: its compact form does not load", g.gl_pathv[i]);
			s2 = render(&back, OUT_FMT_JSON, 0);
			ck_assert_msg(!strcmp(s1, s2), "%s: compact round trip differs", g.gl_pathv[i]);
			c2 = render(&back, OUT_FMT_JSON, 1);
			ck_assert_msg(!strcmp(c, c2), "%s: the compact form is not a fixed point", g.gl_pathv[i]);
			t1 = render(&r, OUT_FMT_TEXT, 0);
			t2 = render(&back, OUT_FMT_TEXT, 0);
			ck_assert_msg(!strcmp(t1, t2), "%s: the text report differs", g.gl_pathv[i]);
			free(s1), free(c), free(s2), free(c2), free(t1), free(t2);
			cd_results_free(&r);
			cd_results_free(&back);
			n++;
		}
		globfree(&g);
	}
	ck_assert_uint_ge(n, 40); /* the committed documents were found (run from the repository root) */
}
END_TEST

#define LINK(n, up) "{\"link\": " #n ", \"up\": " up ", \"version\": 4, \"remote_bus_id\": null, \"remote_kind\": \"nvswitch\"}"
#define GPU "{\"index\": 0, \"uuid\": \"GPU-a\", \"nvlinks\": [" LINK(0, "true") ", " LINK(1, "true") ", " LINK(2, "false") ", " LINK(3, "true") ", " LINK(4, "true") "]}"

/* NVLink runs are counted, equal sections refer to the first host that has them, by index. */
START_TEST(test_compact_shapes)
{
	static const char doc[] = "{\"schema\": 1, \"hosts\": ["
				  "{\"hostname\": \"a\", \"gpus\": [" GPU "], \"env\": {\"NCCL_DEBUG\": \"WARN\"}},"
				  "{\"hostname\": \"a\", \"gpus\": [" GPU "], \"env\": {\"NCCL_DEBUG\": \"INFO\"}},"
				  "{\"hostname\": \"c\", \"gpus\": [], \"env\": {\"NCCL_DEBUG\": \"INFO\"}}]}";
	struct cd_results r, back;
	char *c, *s1, *s2;
	const struct cd_gpu *g;

	ck_assert_int_eq(load(&r, doc), 0);
	c = render(&r, OUT_FMT_JSON, 1);
	ck_assert_ptr_nonnull(strstr(c, "\"nvlinks\":[{\"link\":0,\"up\":true,\"version\":4,\"remote_bus_id\":null,"
					"\"remote_kind\":\"nvswitch\",\"count\":2},{\"link\":2,\"up\":false,\"version\":4,"
					"\"remote_bus_id\":null,\"remote_kind\":\"nvswitch\"},{\"link\":3,\"up\":true,"
					"\"version\":4,\"remote_bus_id\":null,\"remote_kind\":\"nvswitch\",\"count\":2}]"));
	/* host 1 (the same name as host 0) refers to it by index; host 2's env is host 1's, its gpus [] stay */
	ck_assert_ptr_nonnull(strstr(c, "\"hostname\":\"a\",\"host_id\":null"));
	ck_assert_ptr_nonnull(strstr(c, "\"gpus\":{\"same_as\":0}"));
	ck_assert_ptr_nonnull(strstr(c, "\"env\":{\"same_as\":1}"));
	ck_assert_ptr_nonnull(strstr(c, "\"gpus\":[]"));
	ck_assert_ptr_null(strstr(c, "\"env\":{\"same_as\":0}"));

	ck_assert_int_eq(load(&back, c), 0);
	ck_assert_uint_eq(back.n_hosts, 3);
	g = &back.hosts[1].gpus[0];
	ck_assert_uint_eq(g->n_nvlinks, 5);
	for (size_t i = 0; i < 5; i++) {
		ck_assert_int_eq(g->nvlinks[i].link, (int64_t)i);
		ck_assert_int_eq(g->nvlinks[i].up, i == 2 ? CD_TRI_FALSE : CD_TRI_TRUE);
		ck_assert_str_eq(g->nvlinks[i].remote_kind, "nvswitch");
	}
	/* copies, each freed with its own host */
	ck_assert_ptr_ne(g->nvlinks[1].remote_kind, g->nvlinks[0].remote_kind);
	ck_assert_ptr_ne(g->uuid, back.hosts[0].gpus[0].uuid);
	ck_assert_str_eq(back.hosts[2].env[0].value, "INFO");
	s1 = render(&r, OUT_FMT_JSON, 0);
	s2 = render(&back, OUT_FMT_JSON, 0);
	ck_assert_str_eq(s1, s2);
	free(c), free(s1), free(s2);
	cd_results_free(&r);
	cd_results_free(&back);
}
END_TEST

/* What the loader would refuse is never written: runs of at most 36 links, none from a negative link. */
START_TEST(test_compact_runs_bounded)
{
	char doc[8192];
	size_t at;
	struct cd_results r, back;
	char *c, *s1, *s2;

	at = (size_t)snprintf(doc, sizeof(doc), "{\"schema\": 1, \"hosts\": [{\"gpus\": [{\"nvlinks\": [");
	for (int i = -2; i < 40; i++)
		at += (size_t)snprintf(doc + at, sizeof(doc) - at, "%s{\"link\": %d, \"up\": true}", i > -2 ? ", " : "", i);
	snprintf(doc + at, sizeof(doc) - at, "]}]}]}");
	ck_assert_int_eq(load(&r, doc), 0);
	c = render(&r, OUT_FMT_JSON, 1);
	ck_assert_ptr_nonnull(strstr(c, "{\"link\":-2,\"up\":true,\"version\":null,\"remote_bus_id\":null,\"remote_kind\":null},"
					"{\"link\":-1,"));
	ck_assert_ptr_nonnull(strstr(c, "{\"link\":0,\"up\":true,\"version\":null,\"remote_bus_id\":null,\"remote_kind\":null,"
					"\"count\":36},{\"link\":36,"));
	ck_assert_ptr_nonnull(strstr(c, "\"count\":4}"));
	ck_assert_int_eq(load(&back, c), 0);
	ck_assert_uint_eq(back.hosts[0].gpus[0].n_nvlinks, 42);
	s1 = render(&r, OUT_FMT_JSON, 0);
	s2 = render(&back, OUT_FMT_JSON, 0);
	ck_assert_str_eq(s1, s2);
	free(c), free(s1), free(s2);
	cd_results_free(&r);
	cd_results_free(&back);
}
END_TEST

struct load_args {
	struct cd_results *r;
	const char *text;
};

static int load_text(const void *arg)
{
	const struct load_args *a = arg;

	return load(a->r, a->text);
}

/* Load text with stderr captured; returns the message (heap) and sets *rc. */
static char *load_capture(struct cd_results *r, const char *text, int *rc)
{
	struct load_args a = {r, text};

	return ck_stderr_of(load_text, &a, rc);
}

static void reject(const char *text, const char *expect)
{
	struct cd_results r;
	int rc;
	char *msg = load_capture(&r, text, &rc);

	ck_assert_msg(rc == -1, "accepted: %s", text);
	ck_assert_str_eq(msg, expect);
	ck_assert_uint_eq(r.n_hosts, 0);
	free(msg);
	cd_results_free(&r);
}

#define MSG(m) "commdiag: results: 'test.json': " m "\n"
#define RUN "expected 2 to 36 links numbered up from a link index of 0 or more"

START_TEST(test_compact_errors)
{
	reject("{\"schema\": 3}", MSG("schema: this commdiag reads schema 1 and 2, the document has schema 3"));
	/* a reference to a later host, to itself, out of range, not an index, with more keys */
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": {\"same_as\": 1}}, {\"gpus\": []}]}",
	       MSG("hosts[0].gpus.same_as: expected only the index of a host before this one (host 0)"));
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": []}, {\"nics\": {\"same_as\": 1}}]}",
	       MSG("hosts[1].nics.same_as: expected only the index of a host before this one (host 1)"));
	reject("{\"schema\": 2, \"hosts\": [{}, {\"hcas\": {\"same_as\": -1}}]}",
	       MSG("hosts[1].hcas.same_as: expected only the index of a host before this one (host 1)"));
	reject("{\"schema\": 2, \"hosts\": [{}, {\"system\": {\"same_as\": 0.5}}]}",
	       MSG("hosts[1].system.same_as: expected only the index of a host before this one (host 1)"));
	reject("{\"schema\": 2, \"hosts\": [{}, {\"paths\": {\"same_as\": \"0\"}}]}",
	       MSG("hosts[1].paths.same_as: expected only the index of a host before this one (host 1)"));
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": []}, {\"gpus\": {\"same_as\": 0, \"x\": 1}}]}",
	       MSG("hosts[1].gpus.same_as: expected only the index of a host before this one (host 1)"));
	/* the host referred to must have the section written out */
	reject("{\"schema\": 2, \"hosts\": [{}, {\"gpus\": {\"same_as\": 0}}]}",
	       MSG("hosts[1].gpus.same_as: host 0's gpus is null: expected the host that has it written out"));
	reject("{\"schema\": 2, \"hosts\": [{\"env\": {\"A\": \"1\"}}, {\"env\": {\"same_as\": 0}}, {\"env\": {\"same_as\": 1}}]}",
	       MSG("hosts[2].env.same_as: host 1's env is a reference too: expected the host that has it written out"));
	/* schema 1 has no references: a section in their shape is of the wrong type */
	reject("{\"schema\": 1, \"hosts\": [{\"gpus\": []}, {\"gpus\": {\"same_as\": 0}}]}",
	       MSG("hosts[1].gpus: expected an array"));
	/* NVLink runs: 2 to NVML_NVLINK_MAX_LINKS links, numbered up from a real index */
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": [{\"nvlinks\": [{\"link\": 0, \"count\": 37}]}]}]}",
	       MSG("hosts[0].gpus[0].nvlinks[0].count: " RUN));
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": [{\"nvlinks\": [{\"link\": 0, \"count\": 1}]}]}]}",
	       MSG("hosts[0].gpus[0].nvlinks[0].count: " RUN));
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": [{\"nvlinks\": [{\"link\": null, \"count\": 4}]}]}]}",
	       MSG("hosts[0].gpus[0].nvlinks[0].count: " RUN));
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": [{\"nvlinks\": [{\"link\": -3, \"count\": 4}]}]}]}",
	       MSG("hosts[0].gpus[0].nvlinks[0].count: " RUN));
	reject("{\"schema\": 2, \"hosts\": [{\"gpus\": [{\"nvlinks\": [{\"link\": 0, \"count\": 2.5}]}]}]}",
	       MSG("hosts[0].gpus[0].nvlinks[0].count: expected an integer"));
}
END_TEST

Suite *compact_suite(void)
{
	Suite *s = suite_create("compact");
	TCase *tc = tcase_create("compact");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_compact_committed_docs);
	tcase_add_test(tc, test_compact_shapes);
	tcase_add_test(tc, test_compact_runs_bounded);
	tcase_add_test(tc, test_compact_errors);
	suite_add_tcase(s, tc);
	return s;
}
