/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "report.h"
#include "results.h"
#include "suites.h"

/* messages stay short: Check refuses long ones, and a page is long */
#define HAS(s, needle) ck_assert_msg(strstr((s), (needle)) != NULL, "missing '%s'", (needle))
#define HASNT(s, needle)                                                                               \
	do {                                                                                           \
		const char *at_ = strstr((s), (needle));                                               \
		ck_assert_msg(!at_, "unexpected '%s' at: %.300s", (needle), at_ ? at_ : "");          \
	} while (0)

static char *render(const struct cd_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o;

	ck_assert_ptr_nonnull(f);
	o = out_new(OUT_FMT_HTML, f, 0);
	cd_report(o, r);
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	return buf;
}

static struct cd_probe_run *pair(struct cd_results *r, const char *name, const char *host, int64_t dev, int64_t peer,
				 double gbyte_s)
{
	struct cd_probe_run *p = cd_results_add_probe(r, name);
	struct cd_probe_sample *s = cd_probe_add_sample(p);

	p->status = CD_ST_OK;
	p->host = xstrdup(host);
	p->device = dev;
	p->peer = peer;
	s->bytes = 256 << 20;
	s->algbw_gbyte_s = gbyte_s;
	s->busbw_gbyte_s = gbyte_s;
	s->time_us = (double)s->bytes / gbyte_s / 1e3;
	return p;
}

START_TEST(test_escape)
{
	char *e = cd_html_escape("<script>alert('x')</script> & \"q\"");

	ck_assert_str_eq(e, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &#34;q&#34;");
	free(e);
	/* controls other than tab and newlines are not HTML text: they become U+FFFD */
	e = cd_html_escape("a\x01" "b\x7f" "c\td\n\xc3\xa9");
	ck_assert_str_eq(e, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\td\n\xc3\xa9");
	free(e);
	e = cd_html_escape(NULL);
	ck_assert_str_eq(e, "");
	free(e);
	e = cd_html_escape("&&&&");
	ck_assert_str_eq(e, "&amp;&amp;&amp;&amp;");
	free(e);
}
END_TEST

START_TEST(test_bucket)
{
	/* higher is better: the fraction of the best value decides */
	ck_assert_int_eq(cd_html_bucket(100, 100, 1), 4);
	ck_assert_int_eq(cd_html_bucket(95, 100, 1), 4);
	ck_assert_int_eq(cd_html_bucket(94.9, 100, 1), 3);
	ck_assert_int_eq(cd_html_bucket(85, 100, 1), 3);
	ck_assert_int_eq(cd_html_bucket(84.9, 100, 1), 2);
	ck_assert_int_eq(cd_html_bucket(70, 100, 1), 2);
	ck_assert_int_eq(cd_html_bucket(69.9, 100, 1), 1);
	ck_assert_int_eq(cd_html_bucket(50, 100, 1), 1);
	ck_assert_int_eq(cd_html_bucket(49.9, 100, 1), 0);
	ck_assert_int_eq(cd_html_bucket(0, 100, 1), 0);
	/* lower is better (latency): best / v */
	ck_assert_int_eq(cd_html_bucket(2.0, 2.0, 0), 4);
	ck_assert_int_eq(cd_html_bucket(2.1, 2.0, 0), 4);
	ck_assert_int_eq(cd_html_bucket(4.0, 2.0, 0), 1);
	ck_assert_int_eq(cd_html_bucket(4.1, 2.0, 0), 0);
	ck_assert_int_eq(cd_html_bucket(0, 0, 0), -1);
	/* nothing to judge */
	ck_assert_int_eq(cd_html_bucket(NAN, 100, 1), -1);
	ck_assert_int_eq(cd_html_bucket(50, NAN, 1), -1);
	ck_assert_int_eq(cd_html_bucket(50, 0, 1), -1);
	ck_assert_int_eq(cd_html_bucket(-1, 100, 1), -1);
	ck_assert_int_eq(cd_html_bucket(INFINITY, 100, 1), -1);
	/* each bucket its own colour, no data grey */
	ck_assert_str_eq(cd_html_bucket_color(4), "#a6d96a");
	ck_assert_str_eq(cd_html_bucket_color(0), "#f4a582");
	ck_assert_str_eq(cd_html_bucket_color(-1), "#e8e8e8");
	ck_assert_str_eq(cd_html_bucket_color(CD_HTML_BUCKETS), "#e8e8e8");
	for (int i = 1; i < CD_HTML_BUCKETS; i++)
		ck_assert_str_ne(cd_html_bucket_color(i), cd_html_bucket_color(i - 1));
}
END_TEST

START_TEST(test_class_color)
{
	ck_assert_str_eq(cd_html_class_color("NV18"), cd_html_class_color("NV4"));
	ck_assert_str_eq(cd_html_class_color("NV18"), "#a6d96a");
	ck_assert_str_eq(cd_html_class_color("SYS"), "#f4a582");
	ck_assert_str_ne(cd_html_class_color("PIX"), cd_html_class_color("NODE"));
	/* not a class: grey, like a missing one */
	ck_assert_str_eq(cd_html_class_color("NVX"), "#e8e8e8");
	ck_assert_str_eq(cd_html_class_color("nonsense"), "#e8e8e8");
	ck_assert_str_eq(cd_html_class_color(NULL), "#e8e8e8");
}
END_TEST

/* Three GPUs with indices 0, 2, 5: cells are by position in h->gpus, not by index. */
static struct cd_host *three_gpus(struct cd_results *r, const char *name)
{
	struct cd_host *h = cd_results_add_host(r);
	static const int64_t idx[] = { 0, 2, 5 };

	h->hostname = xstrdup(name);
	for (size_t i = 0; i < 3; i++)
		cd_host_add_gpu(h)->index = idx[i];
	return h;
}

START_TEST(test_gpu_matrix)
{
	struct cd_results r;
	struct cd_host *h;
	const struct cd_probe_run *cells[9];

	cd_results_init(&r);
	h = three_gpus(&r, "n1");
	three_gpus(&r, "n2");
	/* the probes array grows: runs are compared by their index in it */
	pair(&r, "p2p.bw", "n1", 0, 5, 370.0);
	pair(&r, "p2p.bw", "n1", 5, 2, 148.2);
	pair(&r, "p2p.bw", "n2", 0, 2, 1.0);       /* another host */
	pair(&r, "p2p.latency", "n1", 0, 2, 1.0);  /* another probe */
	pair(&r, "p2p.bw", "n1", 0, 7, 1.0);       /* no such GPU */
	ck_assert_uint_eq(cd_html_gpu_matrix(&r, h, "p2p.bw", cells), 2);
	ck_assert_ptr_eq(cells[0 * 3 + 2], &r.probes[0]);
	ck_assert_ptr_eq(cells[2 * 3 + 1], &r.probes[1]);
	for (size_t i = 0; i < 9; i++)
		if (i != 2 && i != 7)
			ck_assert_ptr_null(cells[i]);
	/* a re-run of the same pair replaces the first */
	pair(&r, "p2p.bw", "n1", 0, 5, 371.0);
	ck_assert_uint_eq(cd_html_gpu_matrix(&r, h, "p2p.bw", cells), 2);
	ck_assert_ptr_eq(cells[2], &r.probes[r.n_probes - 1]);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_host_matrix)
{
	struct cd_results r;
	const struct cd_probe_run *cells[4];
	static const char *const hosts[] = { "hostA", "hostA", "hostB", "hostB" };

	cd_results_init(&r);
	cd_results_add_host(&r)->hostname = xstrdup("hostA");
	cd_results_add_host(&r)->hostname = xstrdup("hostB");
	/* two ranks per host: ranks 0, 1 on hostA, 2, 3 on hostB */
	for (int i = 0; i < 4; i++)
		cd_results_add_rank(&r, i)->host = xstrdup(hosts[i]);
	pair(&r, "mpi.bw", "hostA", CD_NULL_I64, 2, 20.0)->rank = 0;
	pair(&r, "mpi.bw", "hostA", CD_NULL_I64, 3, 5.0)->rank = 1;
	pair(&r, "mpi.bw", "hostA", CD_NULL_I64, 2, 30.0)->rank = 1;
	ck_assert_uint_eq(cd_html_host_matrix(&r, "mpi.bw", cells), 1);
	/* the slowest pair between the two hosts is the one shown */
	ck_assert_ptr_eq(cells[0 * 2 + 1], &r.probes[1]);
	ck_assert_ptr_null(cells[0]);
	ck_assert_ptr_null(cells[2]);
	ck_assert_ptr_null(cells[3]);
	ck_assert_uint_eq(cd_html_host_matrix(&r, "tcp.bw", cells), 0);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_page_cells)
{
	struct cd_results r;
	struct cd_host *h;
	char *s;

	cd_results_init(&r);
	r.tool_version = xstrdup("0.1.0");
	r.run.mode = xstrdup("check");
	h = three_gpus(&r, "n1");
	pair(&r, "p2p.bw", "n1", 0, 2, 370.0);
	pair(&r, "p2p.bw", "n1", 2, 0, 148.2);
	s = render(&r);
	ck_assert_msg(!strncmp(s, "<!DOCTYPE html>\n<html lang=\"en\">", 32), "start: %.60s", s);
	HAS(s, "<title>commdiag report: n1</title>");
	HAS(s, "content=\"default-src 'none'; style-src 'unsafe-inline'\"");
	/* the best pair, its value as text and its share of the best */
	HAS(s, "<td class=\"heat\" data-bucket=\"4\" style=\"background:#a6d96a\" "
	       "title=\"GPU0 to GPU2: 370.0 GB/s, 100 % "
	       "of best\"><span class=\"v\">370.0</span> <small>100 %</small></td>");
	HAS(s, "<td class=\"heat\" data-bucket=\"0\" style=\"background:#f4a582\" "
	       "title=\"GPU2 to GPU0: 148.2 GB/s, 40 % "
	       "of best\"><span class=\"v\">148.2</span> <small>40 %</small></td>");
	/* unmeasured pairs and the diagonal say so in text */
	HAS(s, "title=\"GPU0 to GPU5: not measured\">&ndash;</td>");
	HAS(s, "<td class=\"self\" title=\"GPU0 itself\">X</td>");
	HAS(s, "&lt; 50 % of best (&lt; 185.0 GB/s)");
	HAS(s, "&ge; 95 % of best (351.5&ndash;370.0 GB/s)");
	HAS(s, "No p2p.latency results for this host.");
	HAS(s, "Verdict: not judged");
	HASNT(s, "<script");
	ck_assert_msg(strstr(s, "</html>\n") && !strcmp(strstr(s, "</html>\n"), "</html>\n"), "end");
	(void)h;
	free(s);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_page_injection)
{
	struct cd_results r;
	struct cd_host *h;
	struct cd_nic *n;
	struct cd_finding *f;
	struct cd_advice *a;
	struct cd_reach *x;
	char *s;
	const char *evil = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&";

	cd_results_init(&r);
	r.tool_version = xstrdup(evil);
	r.run.mode = xstrdup(evil);
	r.run.started = xstrdup(evil);
	for (int i = 0; i < 2; i++) {
		h = cd_results_add_host(&r);
		h->hostname = xasprintf("%s%d", evil, i);
		h->system.os = xstrdup(evil);
		n = cd_host_add_nic(h);
		n->name = xstrdup(evil);
		cd_host_set_env(h, "NCCL_SOCKET_IFNAME", evil);
		cd_section_set(&h->part[CD_PART_GPU], CD_ST_SKIPPED, "%s", evil);
		cd_strv_push(&h->paths.gpus, evil);
		cd_strv_push(&h->paths.nets, evil);
		cd_paths_alloc(&h->paths);
		h->paths.gpu_gpu[0] = xstrdup(evil);
		h->paths.gpu_net[0] = xstrdup(evil);
	}
	f = cd_results_add_finding(&r, evil, CD_SEV_FAIL, evil, evil, evil);
	cd_finding_evidence(f, "%s", evil);
	f->unit = xstrdup(evil);
	f->measured = 1;
	a = cd_results_add_advice(&r);
	a->env = xstrdup("NCCL_SOCKET_IFNAME");
	a->value = xstrdup(evil);
	a->why = xstrdup(evil);
	cd_strv_push(&a->findings, evil);
	cd_strv_push(&a->path, evil);
	x = cd_results_add_reach(&r);
	x->from = xasprintf("%s0", evil);
	x->to = xasprintf("%s1", evil);
	x->iface = xstrdup(evil);
	x->address = xstrdup(evil);
	x->error = xstrdup(evil);
	x->ok = CD_TRI_FALSE;
	pair(&r, evil, evil, 0, 0, 1.0)->reason = xstrdup(evil);
	/* the grade was written raw: a <meta http-equiv=refresh> there navigated the page away */
	r.score.present = 1;
	r.score.total = 100;
	r.score.grade = xstrdup(evil);
	s = render(&r);
	HASNT(s, "<script");
	HASNT(s, "<img");
	HASNT(s, "alert(1)</");
	HAS(s, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#34;&#39;&amp;");
	/* the reach matrix mapped the escaped names back to their hosts */
	HAS(s, "<span class=\"v\">0/1</span> <small>none reach</small>");
	free(s);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_page_empty)
{
	struct cd_results r;
	char *s;

	cd_results_init(&r);
	s = render(&r);
	HAS(s, "<title>commdiag report: no host</title>");
	HAS(s, "<h2>Findings (0)</h2>\n<p>None.</p>");
	HAS(s, "</html>\n");
	free(s);
	cd_results_free(&r);
}
END_TEST

Suite *report_html_suite(void)
{
	Suite *s = suite_create("report_html");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_bucket);
	tcase_add_test(tc, test_class_color);
	tcase_add_test(tc, test_gpu_matrix);
	tcase_add_test(tc, test_host_matrix);
	tcase_add_test(tc, test_page_cells);
	tcase_add_test(tc, test_page_injection);
	tcase_add_test(tc, test_page_empty);
	suite_add_tcase(s, tc);
	return s;
}
