/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL RAS reports (tests/data/ras, text and JSON) → snapshots; the hang judge over them;
 * --ras HOST:PORT splitting. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ras.h"
#include "ras_client.h"
#include "rules_hang.h"
#include "suites.h"
#include "util.h"

#define RAS_DATA "tests/data/ras/"

static char *slurp(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	char *t;

	snprintf(path, sizeof(path), RAS_DATA "%s", name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	t = cd_read_file(f, 1 << 20, len);
	fclose(f);
	ck_assert_ptr_nonnull(t);
	return t;
}

static void load(struct cd_ras_snapshot *s, const char *name)
{
	size_t len;
	char *t = slurp(name, &len), *err = NULL;
	int rc = cd_ras_parse(s, t, len, &err);

	ck_assert_msg(rc == 0, "%s: %s", name, err ? err : "?");
	free(t);
}

static const struct cd_ras_rank *find_rank(const struct cd_ras_snapshot *s, long rank, int missing, int dead)
{
	for (size_t i = 0; i < s->n_ranks; i++)
		if (s->ranks[i].rank == rank && s->ranks[i].missing == missing && s->ranks[i].dead == dead)
			return &s->ranks[i];
	return NULL;
}

START_TEST(test_text_mismatch)
{
	struct cd_ras_snapshot s;
	const struct cd_ras_rank *k;

	load(&s, "mismatch-1.txt");
	ck_assert_int_eq(s.json, 0);
	ck_assert_str_eq(s.version, "2.28.9");
	ck_assert_uint_eq(s.n_counts, 2);
	ck_assert_int_eq(s.counts[0].value, 6650);
	ck_assert_int_eq(s.counts[0].nranks, 3);
	ck_assert_str_eq(s.counts[0].coll, "AllReduce");
	k = find_rank(&s, 2, 0, 0);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->count, 6649);
	ck_assert_int_eq(k->pid, 4200);
	ck_assert_str_eq(k->host, "10.0.0.2");
	ck_assert_str_eq(k->gpu, "0");
	ck_assert_str_eq(k->comm, "#0-0 (27a079b828ff1a75)");
	cd_ras_snapshot_free(&s);
}
END_TEST

START_TEST(test_json_mismatch)
{
	struct cd_ras_snapshot s;
	const struct cd_ras_rank *k;

	load(&s, "mismatch-1.json");
	ck_assert_int_eq(s.json, 1);
	ck_assert_int_eq(s.ncomms, 1);
	k = find_rank(&s, 2, 0, 0);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->count, 6649);
	ck_assert_str_eq(k->coll, "AllReduce");
	ck_assert_str_eq(k->comm, "0x27a079b828ff1a75");
	cd_ras_snapshot_free(&s);
}
END_TEST

/* 2.28.7 and 2.28.9 leave a comma out of a missing rank: the report is read all the same */
START_TEST(test_json_missing_comma)
{
	struct cd_ras_snapshot s;
	const struct cd_ras_rank *k;

	load(&s, "missing.json");
	k = find_rank(&s, 3, 1, 0);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->pid, 4201);
	ck_assert_str_eq(k->host, "10.0.0.2");
	ck_assert_int_eq(s.timeouts, 2);
	cd_ras_snapshot_free(&s);
}
END_TEST

START_TEST(test_text_missing_dead_224)
{
	struct cd_ras_snapshot s;

	load(&s, "missing.txt");
	ck_assert_ptr_nonnull(find_rank(&s, 3, 1, 0));  /* the communicator's rank */
	ck_assert_ptr_nonnull(find_rank(&s, -1, 1, 0)); /* the process under Errors */
	ck_assert_int_eq(s.timeouts, 2);
	cd_ras_snapshot_free(&s);
	load(&s, "dead.txt");
	ck_assert_ptr_nonnull(find_rank(&s, -1, 0, 1));
	cd_ras_snapshot_free(&s);
	load(&s, "v224-missing.txt");
	ck_assert_ptr_nonnull(find_rank(&s, 3, 1, 0));
	ck_assert_str_eq(s.version, "2.24.3");
	cd_ras_snapshot_free(&s);
	load(&s, "v224-mismatch.txt");
	ck_assert_uint_eq(s.n_counts, 2);
	ck_assert_str_eq(s.counts[0].coll, "collective");
	cd_ras_snapshot_free(&s);
}
END_TEST

START_TEST(test_cut_short)
{
	size_t len;
	char *t = slurp("healthy.txt", &len), *err = NULL;
	struct cd_ras_snapshot s;

	ck_assert_int_eq(cd_ras_parse(&s, t, len / 2, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "Warnings"));
	free(err);
	free(t);
	t = slurp("healthy-1.json", &len);
	ck_assert_int_eq(cd_ras_parse(&s, t, len - 3, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "does not parse"));
	free(err);
	ck_assert_int_eq(cd_ras_parse(&s, " \n", 2, &err), -1);
	free(err);
	free(t);
}
END_TEST

/* a node that is no host name or address is not kept (the document could not hold it) */
START_TEST(test_bad_host)
{
	struct cd_ras_snapshot s;
	char *err = NULL, text[1024];

	snprintf(text, sizeof(text), "Errors\n======\n\nINCOMPLETE\n  Process 7 on node %.300s managing GPU 0\n"
		 "  Process 8 on node a\033b managing GPU 1\n  Process 9 on node 10.0.0.9 managing GPU 2\n\n"
		 "Warnings\n========\n\n",
		 "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh"
		 "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh"
		 "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh");
	ck_assert_int_eq(cd_ras_parse(&s, text, strlen(text), &err), 0);
	ck_assert_uint_eq(s.n_ranks, 3);
	ck_assert_ptr_null(s.ranks[0].host);
	ck_assert_int_eq(s.ranks[0].pid, 7);
	ck_assert_ptr_null(s.ranks[1].host);
	ck_assert_str_eq(s.ranks[2].host, "10.0.0.9");
	cd_ras_snapshot_free(&s);
}
END_TEST

static int judge(const char *a, const char *b, struct cd_results *r)
{
	struct cd_ras_snapshot s[2];
	int n;

	load(&s[0], a);
	load(&s[1], b);
	n = cd_hang_judge(r, s, 2, "127.0.0.1:28028");
	cd_ras_snapshot_free(&s[0]);
	cd_ras_snapshot_free(&s[1]);
	return n;
}

START_TEST(test_judge)
{
	struct cd_results r;

	cd_results_init(&r);
	ck_assert_int_eq(judge("mismatch-1.json", "mismatch-1.json", &r), 1);
	ck_assert_str_eq(r.findings[0].id, "HANG003");
	ck_assert_str_eq(r.findings[0].host, "10.0.0.2");
	ck_assert_int_eq(r.findings[0].severity, CD_SEV_FAIL);
	cd_results_free(&r);
	cd_results_init(&r);
	ck_assert_int_eq(judge("mismatch-1.txt", "mismatch-2.txt", &r), 1);
	ck_assert_str_eq(r.findings[0].id, "HANG004");
	ck_assert_int_eq(r.findings[0].severity, CD_SEV_INFO);
	cd_results_free(&r);
	cd_results_init(&r);
	ck_assert_int_eq(judge("healthy.txt", "healthy.txt", &r), 0);
	cd_results_free(&r);
	cd_results_init(&r);
	ck_assert_int_eq(judge("dead.txt", "dead.txt", &r), 1); /* one process, one rank: one finding */
	ck_assert_str_eq(r.findings[0].id, "HANG002");
	cd_results_free(&r);
	cd_results_init(&r);
	ck_assert_int_eq(judge("healthy-1.json", "missing.json", &r), 1);
	ck_assert_str_eq(r.findings[0].id, "HANG001");
	cd_results_free(&r);
}
END_TEST

START_TEST(test_split_addr)
{
	char *h, *p, *err = NULL;

	ck_assert_int_eq(cd_ras_split_addr("node7:1234", &h, &p, &err), 0);
	ck_assert_str_eq(h, "node7");
	ck_assert_str_eq(p, "1234");
	free(h);
	free(p);
	ck_assert_int_eq(cd_ras_split_addr("[::1]:28029", &h, &p, &err), 0);
	ck_assert_str_eq(h, "::1");
	free(h);
	free(p);
	ck_assert_int_eq(cd_ras_split_addr("localhost", &h, &p, &err), 0);
	ck_assert_str_eq(p, "28028");
	free(h);
	free(p);
	ck_assert_int_eq(cd_ras_split_addr("h:65536", &h, &p, &err), -1);
	ck_assert_ptr_null(h);
	free(err);
}
END_TEST

Suite *ras_suite(void)
{
	Suite *s = suite_create("ras");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_text_mismatch);
	tcase_add_test(tc, test_json_mismatch);
	tcase_add_test(tc, test_json_missing_comma);
	tcase_add_test(tc, test_text_missing_dead_224);
	tcase_add_test(tc, test_cut_short);
	tcase_add_test(tc, test_bad_host);
	tcase_add_test(tc, test_judge);
	tcase_add_test(tc, test_split_addr);
	suite_add_tcase(s, tc);
	return s;
}
