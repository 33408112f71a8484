/* SPDX-License-Identifier: BSD-3-Clause */
/* PyTorch Flight Recorder dumps (tests/data/fr: torch's pickle, Python's pickle, JSON) →
 * struct cd_fr_dump; the refusals of the pickle reader; the judge of where ranks diverge. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "fr.h"
#include "rules_hang.h"
#include "suites.h"
#include "util.h"

#define FR_DATA "tests/data/fr/"

static unsigned char *slurp(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	char *t;

	snprintf(path, sizeof(path), FR_DATA "%s", name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	t = cd_read_file(f, 1 << 20, len);
	fclose(f);
	ck_assert_ptr_nonnull(t);
	return (unsigned char *)t;
}

static void load(struct cd_fr_dump *d, const char *name)
{
	size_t len;
	unsigned char *t = slurp(name, &len);
	char *err = NULL;
	int rc = cd_fr_parse(d, name, t, len, &err);

	ck_assert_msg(rc == 0, "%s: %s", name, err ? err : "?");
	free(t);
}

/* parse bytes that must be refused; the message must hold `want` */
static void refused(const void *b, size_t len, const char *want)
{
	struct cd_fr_dump d;
	char *err = NULL;

	ck_assert_int_eq(cd_fr_parse(&d, "x/nccl_trace_rank_0", b, len, &err), -1);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
	ck_assert_ptr_null(d.entries);
	free(err);
}

START_TEST(test_torch_pickle)
{
	struct cd_fr_dump d;

	load(&d, "missing/nccl_trace_rank_0");
	ck_assert_int_eq(d.rank, 0);
	ck_assert_str_eq(d.version, "2.10");
	ck_assert_str_eq(d.comm_lib, "2.27.5");
	ck_assert_int_eq(d.json, 0);
	ck_assert_uint_eq(d.n_pgs, 1);
	ck_assert_str_eq(d.pgs[0].name, "0");
	ck_assert_str_eq(d.pgs[0].desc, "default_pg");
	ck_assert_uint_eq(d.pgs[0].n_ranks, 4);
	ck_assert_int_eq(d.pgs[0].ranks[3], 3);
	ck_assert_uint_eq(d.n_entries, 6);
	ck_assert_int_eq(d.entries[5].coll_seq, 6);
	ck_assert_int_eq(d.entries[5].record_id, 5);
	ck_assert_str_eq(d.entries[5].profiling_name, "nccl:all_reduce");
	ck_assert_str_eq(d.entries[5].pg_name, "0");
	ck_assert_str_eq(d.entries[5].in_sizes, "[[1024]]");
	ck_assert_str_eq(d.entries[5].in_dtypes, "['Float']");
	ck_assert_int_eq(d.entries[5].state, CD_FR_STARTED);
	ck_assert_int_eq(d.entries[4].state, CD_FR_COMPLETED);
	ck_assert_int_eq(d.entries[5].p2p, 0);
	ck_assert(d.entries[5].timeout_ms == 600000);
	cd_fr_dump_free(&d);
	/* 2.4: no comm_lib_version, no thread keys */
	load(&d, "size/nccl_trace_rank_1");
	ck_assert_str_eq(d.version, "2.4");
	ck_assert_ptr_null(d.comm_lib);
	ck_assert_str_eq(d.entries[2].in_sizes, "[[512]]");
	cd_fr_dump_free(&d);
}
END_TEST

START_TEST(test_python_pickle_and_json)
{
	struct cd_fr_dump d, j;

	/* protocol 4: FRAME, SHORT_BINUNICODE, MEMOIZE, SETITEM and APPEND forms */
	load(&d, "resaved/nccl_trace_rank_1");
	ck_assert_int_eq(d.rank, 1);
	ck_assert_uint_eq(d.n_entries, 3);
	ck_assert_str_eq(d.entries[2].profiling_name, "nccl:broadcast");
	cd_fr_dump_free(&d);
	/* the same dump in both formats reads the same */
	load(&d, "missing/nccl_trace_rank_3");
	load(&j, "json/nccl_trace_rank_3.json");
	ck_assert_int_eq(j.json, 1);
	ck_assert_int_eq(j.rank, 3);
	ck_assert_uint_eq(j.n_entries, d.n_entries);
	ck_assert_uint_eq(j.n_pgs, d.n_pgs);
	ck_assert_uint_eq(j.pgs[0].n_ranks, d.pgs[0].n_ranks);
	for (size_t i = 0; i < d.n_entries; i++) {
		ck_assert_int_eq(j.entries[i].coll_seq, d.entries[i].coll_seq);
		ck_assert_int_eq(j.entries[i].state, d.entries[i].state);
		ck_assert_str_eq(j.entries[i].in_sizes, d.entries[i].in_sizes);
		ck_assert_str_eq(j.entries[i].pg_desc, d.entries[i].pg_desc);
	}
	cd_fr_dump_free(&d);
	cd_fr_dump_free(&j);
}
END_TEST

#define REF(lit, want) refused(lit, sizeof(lit) - 1, want)

START_TEST(test_refusals)
{
	size_t len;
	unsigned char *g = slurp("refused/nccl_trace_rank_0", &len);
	unsigned char deep[2 + 100 + 99 + 1];
	size_t n = 0;

	refused(g, len, "pickle opcode GLOBAL (0x63) at byte 39");
	free(g);
	REF("\x80\x02}q\x00(X\x01\x00\x00\x00" "a)R.", "REDUCE (0x52) at byte 13");
	REF("\x80\x02\x93.", "STACK_GLOBAL");
	REF("\x80\x02\x81.", "NEWOBJ");
	REF("\x80\x02" "b.", "BUILD");
	REF("\x80\x02}X\xff\xff\xff\x7f", "truncated");
	REF("\x80\x02}", "no STOP");
	REF("\x80\x02}}.", "leaves 2 values");
	REF("\x80\x02u.", "needs a MARK");
	REF("\x80\x02h\x07.", "memo index 7");
	REF("\x80\x02\x8a\x09.", "more than 64 bits");
	REF("\x80\x09}.", "protocol 9");
	REF("\x80\x02]\x88s.", "SETITEM at byte 4");
	REF("\x80\x02(\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80\x88u.", "without a dict");
	REF("\x80\x02}(]\x88u.", "neither a string nor an integer");
	REF("PK\x03\x04", "not a pickle");
	REF("{\"version\": 1}", "no \"version\" string");
	REF("{\"version\": \"2.10\", \"entries\": [{}]}", "entries[0] has no process_group");
	REF("\x80\x02}(X\x07\x00\x00\x00versionX\x04\x00\x00\x00" "2.10u.", "neither \"pg_config\" nor \"entries\"");
	REF("{\"version\":\"2.10\",\"pg_config\":{\"0\":{\"ranks\":\"[0, x]\"}}}", "\"ranks\" is not a list");
	/* 100 lists nested by APPEND, with no MARK at all */
	n = 0;
	deep[n++] = 0x80;
	deep[n++] = 2;
	for (int i = 0; i < 100; i++)
		deep[n++] = ']';
	for (int i = 0; i < 99; i++)
		deep[n++] = 'a';
	deep[n++] = '.';
	refused(deep, n, "nested more than 64 deep");
}
END_TEST

/* its own case, with time to allocate the 4 Mi values it is refused at on a loaded machine */
START_TEST(test_memo_bomb)
{
	unsigned char bomb[3 + 8 * 40 + 1];
	size_t n = 0;

	/* a list memoized, then filled with two copies of itself, 40 times: 2^40 values unbounded */
	bomb[n++] = 0x80;
	bomb[n++] = 2;
	bomb[n++] = ']';
	for (int i = 0; i < 40; i++) {
		memcpy(bomb + n, "q\x00(h\x00h\x00" "e", 8);
		n += 8;
	}
	bomb[n++] = '.';
	refused(bomb, n, "more than 4194304 values");
}
END_TEST

/* JSON: refused before cJSON builds a tree of more values than a pickle may hold */
START_TEST(test_json_bound)
{
	const char *head = "{\"version\":\"2.10\",\"entries\":[";
	size_t n = strlen(head), len = n + 3u * (CD_FR_MAX_NODES + 1) + 2;
	char *j = xmalloc(len);

	memcpy(j, head, n);
	for (unsigned i = 0; i <= CD_FR_MAX_NODES; i++, n += 3)
		memcpy(j + n, "[],", 3);
	memcpy(j + n - 1, "]}", 2);
	refused(j, n + 1, "more than 4194304 values");
	free(j);
}
END_TEST

START_TEST(test_rank_from_name)
{
	long r = -1;

	ck_assert_int_eq(cd_fr_rank_from_name("/tmp/nccl_trace_rank_12", &r), 0);
	ck_assert_int_eq(r, 12);
	ck_assert_int_eq(cd_fr_rank_from_name("d/rank_3.json", &r), 0);
	ck_assert_int_eq(r, 3);
	ck_assert_int_eq(cd_fr_rank_from_name("d/trace.pkl", &r), -1);
	ck_assert_int_eq(cd_fr_rank_from_name("d7/trace", &r), -1);
}
END_TEST

static void judge_dir(struct cd_results *r, const char *dir, int n, const char *suffix)
{
	struct cd_fr_dump d[8];
	char name[128];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s/nccl_trace_rank_%d%s", dir, i, suffix);
		load(&d[i], name);
	}
	cd_results_init(r);
	cd_fr_judge(r, d, (size_t)n);
	for (int i = 0; i < n; i++)
		cd_fr_dump_free(&d[i]);
}

START_TEST(test_judge)
{
	struct cd_results r;
	size_t n;

	judge_dir(&r, "healthy", 4, "");
	ck_assert_uint_eq(r.n_findings, 0);
	cd_results_free(&r);

	judge_dir(&r, "missing", 4, "");
	ck_assert_uint_eq(r.n_findings, 1);
	ck_assert_str_eq(r.findings[0].id, "HANG006");
	ck_assert_str_eq(r.findings[0].subject, "rank 2");
	ck_assert_ptr_nonnull(strstr(r.findings[0].title, "never entered collective #6 (nccl:all_reduce)"));
	ck_assert(r.findings[0].measured == 5 && r.findings[0].expected == 6);
	cd_results_free(&r);

	judge_dir(&r, "json", 4, ".json");
	ck_assert_uint_eq(r.n_findings, 1);
	ck_assert_str_eq(r.findings[0].subject, "rank 2");
	cd_results_free(&r);

	judge_dir(&r, "size", 4, "");
	ck_assert_uint_eq(r.n_findings, 1);
	ck_assert_str_eq(r.findings[0].id, "HANG007");
	ck_assert_str_eq(r.findings[0].subject, "rank 1");
	ck_assert_ptr_nonnull(strstr(r.findings[0].title, "[[512]] where 3 of 4 ranks have [[1024]]"));
	cd_results_free(&r);

	/* only ranks 0 and 1 of the size case: a tie names the group; 2 and 3 have no dump */
	judge_dir(&r, "size", 2, "");
	ck_assert_uint_eq(r.n_findings, 3);
	ck_assert_str_eq(r.findings[0].id, "HANG007");
	ck_assert_str_eq(r.findings[0].subject, "process group 0");
	ck_assert_str_eq(r.findings[1].id, "HANG009");
	ck_assert_str_eq(r.findings[1].subject, "rank 2");
	ck_assert_str_eq(r.findings[2].subject, "rank 3");
	cd_results_free(&r);

	/* both ranks in broadcast #3, neither done: the group; then rank 0 done: rank 1 named */
	{
		struct cd_fr_dump d[2];

		load(&d[0], "inside/nccl_trace_rank_0");
		load(&d[1], "inside/nccl_trace_rank_1");
		cd_results_init(&r);
		cd_fr_judge(&r, d, 2);
		ck_assert_uint_eq(r.n_findings, 1);
		ck_assert_str_eq(r.findings[0].id, "HANG008");
		ck_assert_str_eq(r.findings[0].subject, "process group 0");
		cd_results_free(&r);
		d[0].entries[2].state = CD_FR_COMPLETED;
		cd_results_init(&r);
		cd_fr_judge(&r, d, 2);
		ck_assert_uint_eq(r.n_findings, 1);
		ck_assert_str_eq(r.findings[0].subject, "rank 1");
		ck_assert_ptr_nonnull(strstr(r.findings[0].title, "did not complete collective #3 (nccl:broadcast)"));
		cd_results_free(&r);
		cd_fr_dump_free(&d[0]);
		cd_fr_dump_free(&d[1]);
	}

	/* rank 3's all_reduce #5 in bfloat16 while the others are float */
	{
		struct cd_fr_dump d[4];
		char name[64];

		for (int i = 0; i < 4; i++) {
			snprintf(name, sizeof(name), "healthy/nccl_trace_rank_%d", i);
			load(&d[i], name);
		}
		free(d[3].entries[4].in_dtypes);
		d[3].entries[4].in_dtypes = xstrdup("['BFloat16']");
		cd_results_init(&r);
		cd_fr_judge(&r, d, 4);
		ck_assert_uint_eq(r.n_findings, 1);
		ck_assert_str_eq(r.findings[0].id, "HANG007");
		ck_assert_str_eq(r.findings[0].subject, "rank 3");
		ck_assert_ptr_nonnull(strstr(r.findings[0].title, "entered collective #5 of process group '0' (default_pg) "
								 "as group rank 3 with different data types"));
		cd_results_free(&r);
		for (int i = 0; i < 4; i++)
			cd_fr_dump_free(&d[i]);
	}

	/* rank 3 stops in tp group '2' (group rank 1); rank 2 waits there, not in the world */
	judge_dir(&r, "multi", 4, "");
	ck_assert_uint_eq(r.n_findings, 3);
	ck_assert_str_eq(r.findings[1].subject, "rank 3");
	ck_assert_str_eq(r.findings[2].subject, "rank 3");
	ck_assert_ptr_nonnull(strstr(r.findings[2].title, "process group '2' (tp) as group rank 1"));
	for (n = 0; n < r.findings[0].evidence.n; n++)
		if (strstr(r.findings[0].evidence.v[n], "it waits in collective #4 (nccl:all_gather_into_tensor) of "
							"process group '2'"))
			break;
	ck_assert_uint_lt(n, r.findings[0].evidence.n);
	cd_results_free(&r);
}
END_TEST

/* ---- PyTorch watchdog logs (tests/data/hang/logs): explain's reader, then hang's judge ---- */

static void read_logs(struct cd_results *r, const char *dir, int n)
{
	cd_results_init(r);
	for (int i = 0; i < n; i++) {
		char path[256], name[32];
		size_t len;
		FILE *f;
		char *t;

		snprintf(name, sizeof(name), "rank%d.log", i);
		snprintf(path, sizeof(path), "tests/data/hang/logs/%s/%s", dir, name);
		f = fopen(path, "rb");
		ck_assert_msg(f != NULL, "cannot open %s", path);
		t = cd_read_file(f, 1 << 20, &len);
		fclose(f);
		cd_explain_parse(r, t, len, name);
		free(t);
	}
}

static const struct cd_wd_report *report_of(const struct cd_results *r, int64_t global)
{
	for (size_t i = 0; i < r->n_watchdog; i++)
		if (r->watchdog[i].global == global)
			return &r->watchdog[i];
	return NULL;
}

START_TEST(test_watchdog_reports)
{
	struct cd_results r;
	const struct cd_wd_report *w;

	read_logs(&r, "stuck", 4);
	/* three reports; rank 2's [rank2] line and its group's "global rank: 2" */
	ck_assert_uint_eq(r.n_watchdog, 5);
	w = report_of(&r, 3);
	ck_assert_ptr_nonnull(w);
	ck_assert_str_eq(w->log, "rank3.log");
	ck_assert_str_eq(w->host, "node-b");
	ck_assert_str_eq(w->group, "GUID 0");
	ck_assert_str_eq(w->group_label, "PG GUID 0(default_pg)");
	ck_assert_str_eq(w->op, "ALLREDUCE");
	ck_assert(w->is_default && w->timeout);
	ck_assert(w->grank == 3 && w->seq == 6 && w->enqueued == 6 && w->completed == 5 && w->group_size == 4);
	/* rank 2: alive (its [rank2] line), no report */
	w = report_of(&r, 2);
	ck_assert_ptr_nonnull(w);
	ck_assert_str_eq(w->host, "node-b");
	ck_assert(w->seq == CD_NULL_I64 && !w->group);
	w = NULL;
	for (size_t i = 0; i < r.n_watchdog; i++)
		if (r.watchdog[i].group && r.watchdog[i].seq == CD_NULL_I64)
			w = &r.watchdog[i];
	ck_assert_ptr_nonnull(w);
	ck_assert(w->global == 2 && w->grank == 2 && w->seq == CD_NULL_I64 && w->group_size == 4);
	ck_assert_str_eq(w->group, "GUID 0");
	cd_results_clear_judgement(&r);
	ck_assert_int_eq(cd_wd_judge(&r), 1);
	ck_assert_str_eq(r.findings[0].id, "HANG011");
	ck_assert_str_eq(r.findings[0].subject, "rank 2");
	ck_assert_str_eq(r.findings[0].host, "node-b");
	ck_assert(r.findings[0].measured == 3 && r.findings[0].expected == 4);
	cd_results_free(&r);

	read_logs(&r, "lag", 4);
	cd_results_clear_judgement(&r);
	ck_assert_int_eq(cd_wd_judge(&r), 1);
	ck_assert_str_eq(r.findings[0].id, "HANG010");
	ck_assert_str_eq(r.findings[0].subject, "rank 1");
	ck_assert_str_eq(r.findings[0].host, "node-a");
	ck_assert(r.findings[0].measured == 5 && r.findings[0].expected == 6);
	cd_results_free(&r);

	read_logs(&r, "quiet", 4);
	cd_results_clear_judgement(&r);
	ck_assert_int_eq(cd_wd_judge(&r), 0);
	cd_results_free(&r);
}
END_TEST

/* at one SeqNum, the rank that completed less NCCL work is behind (HANG010, unit "NCCL work") */
START_TEST(test_watchdog_completed)
{
	struct cd_results r;
	const long done[3] = { 41, 39, 41 };

	cd_results_init(&r);
	for (int i = 0; i < 3; i++) {
		struct cd_wd_report *w = CD_PUSH(r.watchdog, r.n_watchdog, r.cap_watchdog);

		memset(w, 0, sizeof(*w));
		w->log = xasprintf("rank%d.log", i);
		w->group = xstrdup("GUID 5");
		w->group_label = xstrdup("PG GUID 5(dp)");
		w->timeout = 1;
		w->group_size = 3;
		w->global = 10 + i;
		w->grank = i;
		w->seq = 42;
		w->enqueued = 42;
		w->completed = done[i];
	}
	ck_assert_int_eq(cd_wd_judge(&r), 1);
	ck_assert_str_eq(r.findings[0].id, "HANG010");
	ck_assert_str_eq(r.findings[0].subject, "rank 11");
	ck_assert_str_eq(r.findings[0].unit, "NCCL work");
	ck_assert(r.findings[0].measured == 39 && r.findings[0].expected == 41);
	cd_results_free(&r);
}
END_TEST

static int has_evidence(const struct cd_finding *f, const char *s)
{
	for (size_t i = 0; i < f->evidence.n; i++)
		if (strstr(f->evidence.v[i], s))
			return 1;
	return 0;
}

START_TEST(test_sources_and_nodes)
{
	struct cd_results r, nodes[2];
	const char *files[2] = { "tests/data/hang/nodes/node-a.json", "tests/data/hang/nodes/node-b.json" };
	struct cd_fr_dump d[4];
	char name[64];

	/* the dumps and the logs name rank 2: agreement, and the dump's finding gets its host */
	read_logs(&r, "stuck", 4);
	cd_results_clear_judgement(&r);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "missing/nccl_trace_rank_%d", i);
		load(&d[i], name);
	}
	cd_fr_judge(&r, d, 4);
	for (int i = 0; i < 4; i++)
		cd_fr_dump_free(&d[i]);
	cd_wd_judge(&r);
	ck_assert_int_eq(cd_hang_cross(&r), 0);
	ck_assert_uint_eq(r.n_findings, 2);
	ck_assert_str_eq(r.findings[0].id, "HANG006");
	ck_assert_str_eq(r.findings[0].host, "node-b");
	ck_assert(has_evidence(&r.findings[0], "the watchdog logs name rank 2 too: the sources agree"));
	ck_assert(has_evidence(&r.findings[1], "the Flight Recorder dumps name rank 2 too: the sources agree"));
	/* the node documents: node-b's failures become the findings' evidence */
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(cd_results_load_file(&nodes[i], files[i]), 0);
	cd_hang_nodes(&r, nodes, files, 2);
	ck_assert(has_evidence(&r.findings[1], "node: node-b (tests/data/hang/nodes/node-b.json) failed IB001 mlx5_3/1"));
	for (int i = 0; i < 2; i++)
		cd_results_free(&nodes[i]);
	cd_results_free(&r);

	/* the logs name rank 1, the dumps rank 2: HANG013 */
	read_logs(&r, "lag", 4);
	cd_results_clear_judgement(&r);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "missing/nccl_trace_rank_%d", i);
		load(&d[i], name);
	}
	cd_fr_judge(&r, d, 4);
	for (int i = 0; i < 4; i++)
		cd_fr_dump_free(&d[i]);
	cd_wd_judge(&r);
	ck_assert_int_eq(cd_hang_cross(&r), 1);
	ck_assert_str_eq(r.findings[r.n_findings - 1].id, "HANG013");
	cd_results_free(&r);
}
END_TEST

Suite *fr_suite(void)
{
	Suite *s = suite_create("fr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_torch_pickle);
	tcase_add_test(tc, test_python_pickle_and_json);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_rank_from_name);
	tcase_add_test(tc, test_judge);
	tcase_add_test(tc, test_watchdog_reports);
	tcase_add_test(tc, test_watchdog_completed);
	tcase_add_test(tc, test_sources_and_nodes);
	suite_add_tcase(s, tc);
	tc = tcase_create("bounds");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_memo_bomb);
	tcase_add_test(tc, test_json_bound);
	suite_add_tcase(s, tc);
	return s;
}
