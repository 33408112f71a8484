/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag merge's logic (core/merge.c) and what a merged fleet means to the judge and the
 * report: hosts, probes, reach and ranks moved with ranks renumbered, run.merged, a merged
 * document merged again, each file's job-wide probes scoped to its own hosts, the cross-host
 * rules on the fleet, the verdict per host, and the host lookup of a large fleet.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "measure.h"
#include "merge.h"
#include "report.h"
#include "results.h"
#include "rules.h"
#include "suites.h"

#define FLEET "tests/data/docs/fleet/nodes/"

static void load(struct cd_results *r, const char *path)
{
	ck_assert_msg(cd_results_load_file(r, path) == 0, "cannot load %s", path);
}

/* Merge the files into r (initialised here). */
static void merge_files(struct cd_results *r, const char *const *files, size_t n)
{
	struct cd_merge m;

	cd_merge_init(&m, r);
	for (size_t i = 0; i < n; i++) {
		struct cd_results d;

		load(&d, files[i]);
		cd_merge_add(&m, &d, files[i]);
		/* src is left empty and initialised: freeing it again is safe */
		ck_assert_uint_eq(d.n_hosts, 0);
		ck_assert_uint_eq(d.n_probes, 0);
		cd_results_free(&d);
	}
	ck_assert_uint_eq(m.files, n);
}

static const char *const nodes[] = { FLEET "node01.json", FLEET "node02.json", FLEET "node03.json" };

static size_t count_id(const struct cd_results *r, const char *id, enum cd_severity sev)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += !strcmp(r->findings[i].id, id) && r->findings[i].severity == sev;
	return n;
}

START_TEST(test_merge_moves_everything)
{
	struct cd_results r, one;
	size_t probes_each;

	load(&one, nodes[0]);
	probes_each = one.n_probes;
	cd_results_free(&one);
	merge_files(&r, nodes, 3);
	ck_assert_str_eq(r.run.mode, "merge");
	ck_assert_uint_eq(r.n_hosts, 3);
	ck_assert_uint_eq(r.n_probes, 3 * probes_each);
	ck_assert_int_eq(r.run.ranks, 3); /* the sum of the files' ranks */
	ck_assert_uint_eq(r.run.n_merged, 3);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_str_eq(r.run.merged[i].file, nodes[i]);
		ck_assert_str_eq(r.run.merged[i].mode, "check");
		ck_assert_uint_eq(r.run.merged[i].hosts.n, 1);
		ck_assert_ptr_eq(cd_merge_entry_of(&r, i), &r.run.merged[i]);
	}
	ck_assert_ptr_null(cd_merge_entry_of(&r, 3));
	ck_assert_str_eq(r.run.merged[2].hosts.v[0], "node01"); /* node03 says it is node01 */
	/* each probe still names its own host */
	ck_assert_ptr_eq(cd_probe_host(&r, &r.probes[probes_each]), &r.hosts[1]);
	cd_results_free(&r);
}
END_TEST

/* An MPI job's document merged twice: ranks renumbered after the first file's, host indexes and pair peers with them. */
START_TEST(test_merge_renumbers_ranks)
{
	static const char *const two[] = { "tests/data/docs/netns-two-hosts.json", "tests/data/docs/netns-two-hosts.json" };
	struct cd_results r;
	int pairs = 0;

	merge_files(&r, two, 2);
	ck_assert_uint_eq(r.n_hosts, 4);
	ck_assert_uint_eq(r.n_ranks, 4);
	ck_assert_uint_eq(r.n_reach, 8);
	ck_assert_int_eq(r.run.ranks, 4);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_int_eq(r.ranks[i].rank, (int64_t)i);
		ck_assert_int_eq(r.ranks[i].host_index, (int64_t)i);
	}
	for (size_t i = r.n_probes / 2; i < r.n_probes; i++) {
		const struct cd_probe_run *p = &r.probes[i];

		if (p->rank != CD_NULL_I64)
			ck_assert_int_ge(p->rank, 2);
		if (p->name && !strcmp(p->name, "mpi.bw")) {
			ck_assert_int_eq(p->rank, 2);
			ck_assert_int_eq(p->peer, 3);
			pairs++;
		}
	}
	ck_assert_int_eq(pairs, 1);
	cd_results_free(&r);
}
END_TEST

/* A fleet document merged with another file lists the original files, not itself. */
START_TEST(test_merge_merged_again)
{
	struct cd_results fleet, r, more;
	struct cd_merge m;

	load(&fleet, "tests/data/docs/fleet/merged.json");
	ck_assert_uint_eq(fleet.run.n_merged, 3);
	cd_merge_init(&m, &r);
	cd_merge_add(&m, &fleet, "tests/data/docs/fleet/merged.json");
	load(&more, "tests/data/docs/h100-clean.json");
	cd_merge_add(&m, &more, "tests/data/docs/h100-clean.json");
	ck_assert_uint_eq(r.n_hosts, 4);
	ck_assert_uint_eq(r.run.n_merged, 4);
	ck_assert_str_eq(r.run.merged[0].file, nodes[0]);
	ck_assert_str_eq(r.run.merged[3].file, "tests/data/docs/h100-clean.json");
	ck_assert_str_eq(r.run.merged[3].hosts.v[0], "gpu-node07");
	cd_results_free(&fleet);
	cd_results_free(&more);
	cd_results_free(&r);
}
END_TEST

/* One node's nccl.all_reduce ran on that node: in the fleet it involves its own host, not all of them. */
START_TEST(test_merge_scopes_job_probes)
{
	struct cd_results r;
	size_t idx[8], n = 0;

	merge_files(&r, nodes, 3);
	for (size_t i = 0; i < r.n_probes; i++) {
		const struct cd_probe_run *p = &r.probes[i];

		if (!p->name || strcmp(p->name, "nccl.all_reduce"))
			continue;
		/* node03's says node01 too: still one host, not both hosts of that name */
		ck_assert_uint_eq(cd_probe_n_hosts(&r, p), 1);
		ck_assert_uint_eq(cd_probe_hosts(&r, p, idx, 8), 1);
		ck_assert_uint_eq(idx[0], strcmp(p->host, "node02") ? 0 : 1);
		n++;
	}
	ck_assert_uint_eq(n, 3);
	/* without run.merged the same runs would be one job over the three hosts */
	for (size_t i = 0; i < r.run.n_merged; i++)
		cd_strv_free(&r.run.merged[i].hosts);
	r.run.n_merged = 0;
	for (size_t i = 0; i < r.n_probes; i++)
		if (r.probes[i].name && !strcmp(r.probes[i].name, "nccl.all_reduce") && !strcmp(r.probes[i].host, "node02"))
			ck_assert_uint_eq(cd_probe_n_hosts(&r, &r.probes[i]), 3);
	r.run.n_merged = 3; /* the entries' files and modes are still there to free */
	for (size_t i = 0; i < 3; i++)
		memset(&r.run.merged[i].hosts, 0, sizeof(r.run.merged[i].hosts));
	cd_results_free(&r);
}
END_TEST

/* Done means: three nodes, two claiming one hostname (and machine-id): HOST001 fail, on both hosts' verdicts. */
START_TEST(test_merge_duplicate_hostname)
{
	struct cd_results r;
	struct cd_verdict fleet, *v;

	merge_files(&r, nodes, 3);
	ck_assert_int_ge(cd_rules_evaluate(&r), 1);
	ck_assert_uint_eq(count_id(&r, "HOST001", CD_SEV_FAIL), 1);
	ck_assert_int_eq(cd_results_worst(&r), CD_SEV_FAIL);
	v = cd_fleet_verdicts(&r, &fleet);
	ck_assert_str_eq(cd_verdict_str(v[0].worst), "fail");
	ck_assert_str_eq(cd_verdict_str(v[1].worst), "pass");
	ck_assert_str_eq(cd_verdict_str(v[2].worst), "fail");
	ck_assert_uint_eq(v[0].rules.n, 1);
	ck_assert_str_eq(v[0].rules.v[0], "HOST001");
	ck_assert_uint_eq(v[1].rules.n, 0);
	ck_assert_str_eq(cd_verdict_str(fleet.worst), "pass");
	cd_fleet_verdicts_free(v, r.n_hosts, &fleet);
	cd_results_free(&r);
}
END_TEST

/* Findings naming no host are the fleet's; ids sorted and once; info does not change a verdict. */
START_TEST(test_verdicts_from_findings)
{
	struct cd_results r;
	struct cd_verdict fleet, *v;

	cd_results_init(&r);
	for (int i = 0; i < 12; i++)
		cd_results_add_host(&r)->hostname = xasprintf("h%02d", i);
	cd_results_add_finding(&r, "NET002", CD_SEV_FAIL, "h07", "net", "t");
	cd_results_add_finding(&r, "IB002", CD_SEV_WARN, "h07", "mlx5_0/1", "t");
	cd_results_add_finding(&r, "IB002", CD_SEV_WARN, "h07", "mlx5_1/1", "t");
	cd_results_add_finding(&r, "GPU003", CD_SEV_INFO, "h03", "gpu0", "t");
	cd_results_add_finding(&r, "BAL002", CD_SEV_WARN, "h11", "h11", "t");
	cd_results_add_finding(&r, "HOST002", CD_SEV_WARN, NULL, "nccl", "t");
	cd_results_add_finding(&r, "MPI002", CD_SEV_FAIL, "gone", "rank 9", "t");
	v = cd_fleet_verdicts(&r, &fleet);
	ck_assert_int_eq(v[7].worst, CD_SEV_FAIL);
	ck_assert_uint_eq(v[7].rules.n, 2);
	ck_assert_str_eq(v[7].rules.v[0], "IB002");
	ck_assert_str_eq(v[7].rules.v[1], "NET002");
	ck_assert_str_eq(cd_verdict_str(v[3].worst), "pass");
	ck_assert_uint_eq(v[3].rules.n, 0);
	ck_assert_str_eq(cd_verdict_str(v[11].worst), "warn");
	ck_assert_str_eq(cd_verdict_str(v[0].worst), "pass");
	/* no host, or a host the document does not list */
	ck_assert_int_eq(fleet.worst, CD_SEV_FAIL);
	ck_assert_uint_eq(fleet.rules.n, 2);
	ck_assert_str_eq(fleet.rules.v[0], "HOST002");
	ck_assert_str_eq(fleet.rules.v[1], "MPI002");
	cd_fleet_verdicts_free(v, r.n_hosts, &fleet);
	cd_results_free(&r);
}
END_TEST

/* The lookup of a large fleet finds the first host of a name, as the scan in host order did, and follows renames. */
START_TEST(test_host_lookup)
{
	struct cd_results r;
	struct cd_probe_run p = { 0 };
	struct cd_probe_groups g;

	cd_results_init(&r);
	for (int i = 0; i < 40; i++)
		cd_results_add_host(&r)->hostname = xasprintf("n%02d", 39 - i);
	free(r.hosts[30].hostname);
	r.hosts[30].hostname = xstrdup("n20"); /* hosts[19] is n20 too */
	p.host = (char *)"n20";
	ck_assert_ptr_eq(cd_probe_host(&r, &p), &r.hosts[19]);
	p.host = (char *)"n39";
	ck_assert_ptr_eq(cd_probe_host(&r, &p), &r.hosts[0]);
	p.host = (char *)"none";
	ck_assert_ptr_null(cd_probe_host(&r, &p));
	/* renamed after the lookup was built */
	free(r.hosts[0].hostname);
	r.hosts[0].hostname = xstrdup("renamed");
	p.host = (char *)"n39";
	ck_assert_ptr_null(cd_probe_host(&r, &p));
	/* a host added moves or grows hosts[]: the lookup is built again */
	cd_results_add_host(&r)->hostname = xstrdup("late");
	p.host = (char *)"late";
	ck_assert_ptr_eq(cd_probe_host(&r, &p), &r.hosts[40]);
	/* groups: each host's runs in document order; a run of no known host in none */
	cd_results_add_probe(&r, "copy.h2d")->host = xstrdup("n05");
	cd_results_add_probe(&r, "copy.h2d")->host = xstrdup("nowhere");
	cd_results_add_probe(&r, "copy.d2h")->host = xstrdup("n05");
	cd_results_add_probe(&r, "copy.h2d")->host = xstrdup("late");
	cd_probe_groups_build(&r, &g);
	ck_assert_uint_eq(g.start[41], 3);
	ck_assert_uint_eq(g.start[35] - g.start[34], 2); /* n05 is hosts[34] */
	ck_assert_uint_eq(g.idx[g.start[34]], 0);
	ck_assert_uint_eq(g.idx[g.start[34] + 1], 2);
	ck_assert_uint_eq(g.idx[g.start[40]], 3);
	cd_probe_groups_free(&g);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_name_set)
{
	struct cd_name_set s = { 0 };
	char names[100][16];

	for (int i = 0; i < 100; i++) {
		snprintf(names[i], sizeof(names[i]), "p%d", i);
		ck_assert_int_eq(cd_name_set_add(&s, names[i]), 1);
	}
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(cd_name_set_add(&s, names[i]), 0);
	ck_assert_uint_eq(s.n, 100);
	cd_name_set_free(&s);
}
END_TEST

Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("merge");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_merge_moves_everything);
	tcase_add_test(tc, test_merge_renumbers_ranks);
	tcase_add_test(tc, test_merge_merged_again);
	tcase_add_test(tc, test_merge_scopes_job_probes);
	tcase_add_test(tc, test_merge_duplicate_hostname);
	tcase_add_test(tc, test_verdicts_from_findings);
	tcase_add_test(tc, test_host_lookup);
	tcase_add_test(tc, test_name_set);
	suite_add_tcase(s, tc);
	return s;
}
