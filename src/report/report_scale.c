/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large documents (issue 18). A 4096-host document made a 2 GB HTML page and a text report
 * no one reads to the end: what a person needs first is which hosts are bad, and that the
 * rest are alike. So above CD_SCALE_HOSTS hosts the text and the HTML show the hosts with
 * a finding at warn or fail in full, worst first, and the others as groups of alike hosts
 * (their count and first names); probe runs as one row per probe (runs, failures, the
 * spread of the values, the worst run), with the runs that did not finish listed; the
 * reachability matrix as counts per interface with the failed attempts listed. The JSON
 * always keeps every value.
 */
#include "report_scale.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "report.h"
#include "util.h"

int cd_scale_big(const struct cd_results *r)
{
	return r->n_hosts > CD_SCALE_HOSTS;
}

/* A host's position by name, through core's sorted lookup (a linear search per finding was hosts x findings). */
static ssize_t host_pos(const struct cd_results *r, const char *name)
{
	struct cd_probe_run q = { .host = (char *)name };
	const struct cd_host *h;

	if (!name)
		return -1;
	h = cd_probe_host(r, &q);
	return h ? h - r->hosts : -1;
}

static int cmp_rank(const void *x, const void *y)
{
	const struct cd_scale_host *a = x, *b = y;

	if (a->fail != b->fail)
		return a->fail < b->fail ? 1 : -1;
	if (a->warn != b->warn)
		return a->warn < b->warn ? 1 : -1;
	if (a->info != b->info)
		return a->info < b->info ? 1 : -1;
	return (a->host > b->host) - (a->host < b->host);
}

struct cd_scale_host *cd_scale_rank(const struct cd_results *r, size_t *n_bad)
{
	struct cd_scale_host *v = xcalloc(r->n_hosts + 1, sizeof(*v));

	for (size_t i = 0; i < r->n_hosts; i++)
		v[i].host = i;
	for (size_t i = 0; i < r->n_findings; i++) {
		ssize_t h = host_pos(r, r->findings[i].host);

		if (h < 0)
			continue;
		if (r->findings[i].severity == CD_SEV_FAIL)
			v[h].fail++;
		else if (r->findings[i].severity == CD_SEV_WARN)
			v[h].warn++;
		else
			v[h].info++;
	}
	qsort(v, r->n_hosts, sizeof(*v), cmp_rank);
	*n_bad = 0;
	while (*n_bad < r->n_hosts && (v[*n_bad].fail || v[*n_bad].warn))
		(*n_bad)++;
	return v;
}

/* ---- hosts alike: one line for all hosts with the same hardware and versions ---- */

struct sig {
	char *s;
	size_t host;
};

static int cmp_sig(const void *x, const void *y)
{
	const struct sig *a = x, *b = y;
	int c = strcmp(a->s, b->s);

	return c ? c : (a->host > b->host) - (a->host < b->host);
}

static char *host_sig(const struct cd_host *h)
{
	char cuda[32] = "n/a";

	if (h->versions.cuda_driver != CD_NULL_I64)
		snprintf(cuda, sizeof(cuda), "%" PRId64, h->versions.cuda_driver);
	return xasprintf("%zu GPU%s%s%s, driver %s, CUDA %s, NCCL %s, %s", h->n_gpus, h->n_gpus == 1 ? "" : "s",
			 h->n_gpus ? " " : "", h->n_gpus && h->gpus[0].name ? h->gpus[0].name : "",
			 h->versions.driver ? h->versions.driver : "n/a", cuda, h->versions.nccl ? h->versions.nccl : "n/a",
			 h->system.os ? h->system.os : "n/a");
}

/* The hosts of v (positions) grouped alike, sorted by signature; groups[k] starts at starts[k]. */
static struct sig *group_hosts(const struct cd_results *r, const struct cd_scale_host *v, size_t n)
{
	struct sig *s = xcalloc(n + 1, sizeof(*s));

	for (size_t i = 0; i < n; i++) {
		s[i].s = host_sig(&r->hosts[v[i].host]);
		s[i].host = v[i].host;
	}
	qsort(s, n, sizeof(*s), cmp_sig);
	return s;
}

static void free_groups(struct sig *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].s);
	free(s);
}

static const char *hname(const struct cd_results *r, size_t h)
{
	return r->hosts[h].hostname ? r->hosts[h].hostname : "?";
}

/* ---- probes: one row per name ---- */

struct run_name {
	const char *name;
	size_t i;
};

static int cmp_run_name(const void *x, const void *y)
{
	const struct run_name *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

struct cd_scale_probe *cd_scale_probes(const struct cd_results *r, size_t *n)
{
	struct run_name *v = xcalloc(r->n_probes + 1, sizeof(*v));
	struct cd_scale_probe *out = xcalloc(r->n_probes + 1, sizeof(*out));
	size_t nv = 0;

	*n = 0;
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].name)
			v[nv++] = (struct run_name){ r->probes[i].name, i };
	qsort(v, nv, sizeof(*v), cmp_run_name);
	for (size_t a = 0, b; a < nv; a = b) {
		struct cd_scale_probe *s = &out[(*n)++];

		for (b = a; b < nv && !strcmp(v[b].name, v[a].name); b++)
			;
		s->name = v[a].name;
		s->higher_better = cd_probe_is_bw(&r->probes[v[a].i]);
		s->vals = xcalloc(b - a + 1, sizeof(*s->vals));
		s->run = xcalloc(b - a + 1, sizeof(*s->run));
		for (size_t k = a; k < b; k++) {
			const struct cd_probe_run *p = &r->probes[v[k].i];
			double x = s->higher_better ? cd_probe_bw(p) : cd_probe_lat_us(p);

			s->runs++;
			s->ok += p->status == CD_ST_OK;
			s->failed += p->status == CD_ST_ERROR || p->status == CD_ST_TIMEOUT;
			if (p->status == CD_ST_OK && isfinite(x)) {
				s->vals[s->n_vals] = x;
				s->run[s->n_vals++] = v[k].i;
			}
		}
	}
	free(v);
	return out;
}

void cd_scale_probes_free(struct cd_scale_probe *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].vals);
		free(v[i].run);
	}
	free(v);
}

/* The worst value's position in s (lowest bandwidth, highest latency); the median through *med. */
static size_t worst_of(const struct cd_scale_probe *s, double *med)
{
	double *tmp = xcalloc(s->n_vals + 1, sizeof(*tmp));
	size_t w = 0;

	for (size_t k = 0; k < s->n_vals; k++) {
		tmp[k] = s->vals[k];
		if (s->higher_better ? s->vals[k] < s->vals[w] : s->vals[k] > s->vals[w])
			w = k;
	}
	*med = s->n_vals ? cd_median(tmp, s->n_vals) : NAN;
	free(tmp);
	return w;
}

static void run_where(const struct cd_probe_run *p, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s", p->host ? p->host : "?");

	if (p->rank != CD_NULL_I64 && o < len)
		o += (size_t)snprintf(buf + o, len - o, " rank %" PRId64, p->rank);
	if (p->device != CD_NULL_I64 && o < len)
		o += (size_t)snprintf(buf + o, len - o, " gpu %" PRId64, p->device);
	if (p->peer != CD_NULL_I64 && o < len)
		snprintf(buf + o, len - o, " peer %" PRId64, p->peer);
}

/* ---- text ---- */

static void text_pass(struct cd_out *o, const struct cd_results *r, const struct cd_scale_host *v, size_t n)
{
	struct sig *s;
	size_t info = 0;

	for (size_t i = 0; i < n; i++)
		info += v[i].info;
	out_text(o, "\n# %zu host%s pass: no finding at warn or fail", n, n == 1 ? "" : "s");
	if (info)
		out_text(o, " (%zu info finding%s among them, listed below)", info, info == 1 ? "" : "s");
	out_text(o, "\n");
	s = group_hosts(r, v, n);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a; b < n && !strcmp(s[a].s, s[b].s); b++)
			;
		out_str(o, OUT_TEXT, NULL, "  %s", s[a].s);
		out_text(o, ": %zu host%s\n    ", b - a, b - a == 1 ? "" : "s");
		for (size_t k = a; k < b && k < a + 8; k++)
			out_str(o, OUT_TEXT, NULL, k > a ? ", %s" : "%s", hname(r, s[k].host));
		if (b - a > 8)
			out_text(o, ", and %zu more", b - a - 8);
		out_text(o, "\n");
	}
	free_groups(s, n);
}

static void text_probes(struct cd_out *o, const struct cd_results *r)
{
	size_t n, listed = 0, bad = 0;
	struct cd_scale_probe *v = cd_scale_probes(r, &n);
	char where[256];

	out_text(o, "\n# probes (%zu runs, one line per probe; every run is in the JSON)\n", r->n_probes);
	for (size_t i = 0; i < n; i++) {
		double med;
		size_t w = worst_of(&v[i], &med);

		out_str(o, OUT_TEXT, NULL, "  %-20s", v[i].name);
		out_text(o, " %zu runs, %zu ok, %zu failed", v[i].runs, v[i].ok, v[i].failed);
		if (v[i].n_vals) {
			run_where(&r->probes[v[i].run[w]], where, sizeof(where));
			out_text(o, "; %s median %.4g %s, worst %.4g", v[i].higher_better ? "bandwidth" : "latency", med,
				 v[i].higher_better ? "GB/s" : "us", v[i].vals[w]);
			out_str(o, OUT_TEXT, NULL, " (%s)", where);
		}
		out_text(o, "\n");
	}
	cd_scale_probes_free(v, n);
	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];

		if (p->status != CD_ST_ERROR && p->status != CD_ST_TIMEOUT)
			continue;
		if (bad++ == 0)
			out_text(o, "  runs that did not finish:\n");
		if (listed++ >= CD_SCALE_LIST)
			continue;
		run_where(p, where, sizeof(where));
		out_str(o, OUT_TEXT, NULL, "    %s", p->name);
		out_str(o, OUT_TEXT, NULL, " %s", where);
		out_str(o, OUT_TEXT, NULL, " %s", cd_status_str(p->status));
		if (p->reason)
			out_str(o, OUT_TEXT, NULL, ": %s", p->reason);
		out_text(o, "\n");
	}
	if (bad > CD_SCALE_LIST)
		out_text(o, "    and %zu more\n", bad - CD_SCALE_LIST);
}

static const char *iface_of(const struct cd_reach *x)
{
	return x->iface ? x->iface : "?";
}

static const struct cd_reach *reach_base;

static int cmp_reach_iface(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(iface_of(&reach_base[a]), iface_of(&reach_base[b]));

	return c ? c : (a > b) - (a < b);
}

static void text_reach(struct cd_out *o, const struct cd_results *r)
{
	size_t *ifaces = xcalloc(r->n_reach + 1, sizeof(*ifaces));
	size_t failed = 0;

	if (!r->n_reach) {
		free(ifaces);
		return;
	}
	out_text(o, "\n# tcp reachability (%zu attempts, per interface; every attempt is in the JSON)\n", r->n_reach);
	for (size_t i = 0; i < r->n_reach; i++)
		ifaces[i] = i;
	reach_base = r->reach;
	qsort(ifaces, r->n_reach, sizeof(*ifaces), cmp_reach_iface);
	for (size_t a = 0, b; a < r->n_reach; a = b) {
		size_t ok = 0;
		const char *name = iface_of(&r->reach[ifaces[a]]);

		for (b = a; b < r->n_reach && !strcmp(name, iface_of(&r->reach[ifaces[b]])); b++)
			ok += r->reach[ifaces[b]].ok == CD_TRI_TRUE;
		out_str(o, OUT_TEXT, NULL, "  %-12s", name);
		out_text(o, " %zu attempts, %zu ok, %zu not ok\n", b - a, ok, b - a - ok);
	}
	free(ifaces);
	for (size_t i = 0; i < r->n_reach; i++) {
		const struct cd_reach *x = &r->reach[i];

		if (x->ok == CD_TRI_TRUE)
			continue;
		if (failed++ >= CD_SCALE_LIST)
			continue;
		out_str(o, OUT_TEXT, NULL, "    %s", x->from);
		out_str(o, OUT_TEXT, NULL, " -> %s", x->to);
		out_str(o, OUT_TEXT, NULL, " %s", x->iface);
		out_str(o, OUT_TEXT, NULL, " %s: FAILED", x->address);
		if (x->error)
			out_str(o, OUT_TEXT, NULL, " (%s)", x->error);
		out_text(o, "\n");
	}
	if (failed > CD_SCALE_LIST)
		out_text(o, "    and %zu more failed attempts\n", failed - CD_SCALE_LIST);
}

static void text_ranks(struct cd_out *o, const struct cd_results *r)
{
	size_t missing = 0;

	if (!r->n_ranks)
		return;
	for (size_t i = 0; i < r->n_ranks; i++)
		missing += r->ranks[i].answered == CD_TRI_FALSE;
	out_text(o, "\n# ranks (%zu): %zu did not answer\n", r->n_ranks, missing);
	for (size_t i = 0, listed = 0; i < r->n_ranks && listed < CD_SCALE_LIST; i++) {
		const struct cd_rank *k = &r->ranks[i];

		if (k->answered != CD_TRI_FALSE)
			continue;
		listed++;
		out_i64(o, OUT_TEXT, NULL, "  rank %" PRId64, k->rank);
		out_str(o, OUT_TEXT, NULL, " on %s", k->host);
		out_str(o, OUT_TEXT, NULL, ": %s", k->error);
		out_text(o, "\n");
	}
}

void cd_scale_text(struct cd_out *o, const struct cd_results *r,
		   void (*render_host)(struct cd_out *o, const struct cd_host *h))
{
	size_t bad;
	struct cd_scale_host *v = cd_scale_rank(r, &bad);

	out_text(o, "\n# hosts (%zu): %zu with a finding at warn or fail, in full, worst first; %zu pass, "
		    "summarised after them (above %d hosts; the JSON has every host)\n",
		 r->n_hosts, bad, r->n_hosts - bad, CD_SCALE_HOSTS);
	for (size_t i = 0; i < bad; i++)
		render_host(o, &r->hosts[v[i].host]);
	text_pass(o, r, v + bad, r->n_hosts - bad);
	free(v);
	text_ranks(o, r);
	text_probes(o, r);
	text_reach(o, r);
}

/* ---- HTML ---- */

static void h_esc(struct cd_out *o, const char *s)
{
	char *e = cd_html_escape(s);

	out_raw(o, "%s", e);
	free(e);
}

void cd_scale_html_hosts(struct cd_out *o, const struct cd_results *r)
{
	size_t bad, shown = 0;
	struct cd_scale_host *v = cd_scale_rank(r, &bad);
	struct sig *s;

	out_raw(o, "<section id=\"hosts\">\n<h2>Hosts (%zu)</h2>\n<p>%zu with a finding at warn or fail, worst first; "
		   "%zu pass. Above %d hosts the page lists the hosts with findings and groups the others; the JSON "
		   "document has every host.</p>\n", r->n_hosts, bad, r->n_hosts - bad, CD_SCALE_HOSTS);
	if (bad) {
		out_raw(o, "<table class=\"worst\"><thead><tr><th scope=\"col\">host</th><th scope=\"col\">fail</th>"
			   "<th scope=\"col\">warn</th><th scope=\"col\">info</th><th scope=\"col\">hardware and versions"
			   "</th></tr></thead><tbody>\n");
		for (; shown < bad && shown < 10 * CD_SCALE_LIST; shown++) {
			char *sig = host_sig(&r->hosts[v[shown].host]);

			out_raw(o, "<tr id=\"host%zu\"><th scope=\"row\">", v[shown].host);
			h_esc(o, hname(r, v[shown].host));
			out_raw(o, "</th><td>%zu</td><td>%zu</td><td>%zu</td><td>", v[shown].fail, v[shown].warn,
				v[shown].info);
			h_esc(o, sig);
			out_raw(o, "</td></tr>\n");
			free(sig);
		}
		out_raw(o, "</tbody></table>\n");
		if (bad > shown)
			out_raw(o, "<p>and %zu more hosts with findings (see the findings above).</p>\n", bad - shown);
	}
	s = group_hosts(r, v + bad, r->n_hosts - bad);
	out_raw(o, "<table class=\"pass\"><caption>Hosts that pass, grouped by hardware and versions</caption><thead><tr>"
		   "<th scope=\"col\">hosts</th><th scope=\"col\">hardware and versions</th><th scope=\"col\">first "
		   "of them</th></tr></thead><tbody>\n");
	for (size_t a = 0, b, n = r->n_hosts - bad; a < n; a = b) {
		for (b = a; b < n && !strcmp(s[a].s, s[b].s); b++)
			;
		out_raw(o, "<tr><td>%zu</td><td>", b - a);
		h_esc(o, s[a].s);
		out_raw(o, "</td><td>");
		for (size_t k = a; k < b && k < a + 8; k++) {
			out_raw(o, "%s", k > a ? ", " : "");
			h_esc(o, hname(r, s[k].host));
		}
		if (b - a > 8)
			out_raw(o, ", and %zu more", b - a - 8);
		out_raw(o, "</td></tr>\n");
	}
	out_raw(o, "</tbody></table>\n</section>\n");
	free_groups(s, r->n_hosts - bad);
	free(v);
}

#define HIST_BINS 24

/* One probe's values across the document as a histogram: bars coloured by their fraction of the best. */
static void histogram(struct cd_out *o, const struct cd_results *r, const struct cd_scale_probe *s)
{
	size_t bins[HIST_BINS] = { 0 }, top = 0;
	double lo = INFINITY, hi = -INFINITY, best, med, width;
	size_t w = worst_of(s, &med);
	const char *unit = s->higher_better ? "GB/s" : "us";
	char where[256];

	for (size_t k = 0; k < s->n_vals; k++) {
		lo = fmin(lo, s->vals[k]);
		hi = fmax(hi, s->vals[k]);
	}
	best = s->higher_better ? hi : lo;
	width = hi > lo ? (hi - lo) / HIST_BINS : 1;
	for (size_t k = 0; k < s->n_vals; k++) {
		size_t b = (size_t)((s->vals[k] - lo) / width);

		b = b >= HIST_BINS ? HIST_BINS - 1 : b;
		if (++bins[b] > top)
			top = bins[b];
	}
	run_where(&r->probes[s->run[w]], where, sizeof(where));
	out_raw(o, "<figure class=\"hist\"><figcaption><code>");
	h_esc(o, s->name);
	out_raw(o, "</code>: %zu finished runs of %zu; median %.4g %s, %s %.4g %s, worst %.4g %s (", s->n_vals, s->runs,
		med, unit, s->higher_better ? "best" : "lowest", best, unit, s->vals[w], unit);
	h_esc(o, where);
	out_raw(o, ")</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"130\" role=\"img\" "
		   "aria-label=\"histogram of %s\">", 20 * HIST_BINS + 20, unit);
	for (int b = 0; b < HIST_BINS; b++) {
		double from = lo + b * width, h = top ? 100.0 * (double)bins[b] / (double)top : 0;
		int bucket = cd_html_bucket(from + width / 2, best, s->higher_better);

		out_raw(o, "<rect x=\"%d\" y=\"%.1f\" width=\"18\" height=\"%.1f\" fill=\"%s\"><title>%.4g to %.4g %s: "
			   "%zu runs</title></rect>", 10 + 20 * b, 105 - h, h, cd_html_bucket_color(bucket), from,
			from + width, unit, bins[b]);
	}
	out_raw(o, "<text x=\"10\" y=\"122\" font-size=\"11\">%.4g</text><text x=\"%d\" y=\"122\" font-size=\"11\" "
		   "text-anchor=\"end\">%.4g %s</text></svg></figure>\n", lo, 10 + 20 * HIST_BINS, hi, unit);
}

void cd_scale_html_histograms(struct cd_out *o, const struct cd_results *r)
{
	size_t n;
	struct cd_scale_probe *v = cd_scale_probes(r, &n);

	out_raw(o, "<h3 id=\"histograms\">Every host at once: histograms</h3>\n<p>Each probe's finished runs across "
		   "the %zu hosts, by value (colours as in the heatmaps: fraction of the best run).</p>\n", r->n_hosts);
	for (size_t i = 0; i < n; i++)
		if (v[i].n_vals >= 2)
			histogram(o, r, &v[i]);
	cd_scale_probes_free(v, n);
}

void cd_scale_html_probes(struct cd_out *o, const struct cd_results *r)
{
	size_t n, bad = 0;
	struct cd_scale_probe *v = cd_scale_probes(r, &n);

	out_raw(o, "<section id=\"probes\">\n<h2>Probes (%zu runs)</h2>\n<p>One row per probe; the runs that did not "
		   "finish are listed below; every run is in the JSON document.</p>\n<table class=\"probes\"><thead><tr>"
		   "<th scope=\"col\">probe</th><th scope=\"col\">runs</th><th scope=\"col\">ok</th><th scope=\"col\">"
		   "error or timeout</th><th scope=\"col\">median</th><th scope=\"col\">worst run</th></tr></thead>"
		   "<tbody>\n", r->n_probes);
	for (size_t i = 0; i < n; i++) {
		double med;
		size_t w = worst_of(&v[i], &med);
		char where[256];

		out_raw(o, "<tr><td><code>");
		h_esc(o, v[i].name);
		out_raw(o, "</code></td><td>%zu</td><td>%zu</td><td>%zu</td><td>", v[i].runs, v[i].ok, v[i].failed);
		if (v[i].n_vals) {
			run_where(&r->probes[v[i].run[w]], where, sizeof(where));
			out_raw(o, "%.4g %s</td><td>%.4g %s, ", med, v[i].higher_better ? "GB/s" : "us", v[i].vals[w],
				v[i].higher_better ? "GB/s" : "us");
			h_esc(o, where);
		} else {
			out_raw(o, "</td><td>");
		}
		out_raw(o, "</td></tr>\n");
	}
	out_raw(o, "</tbody></table>\n");
	cd_scale_probes_free(v, n);
	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		char where[256];

		if (p->status != CD_ST_ERROR && p->status != CD_ST_TIMEOUT)
			continue;
		if (bad++ == 0)
			out_raw(o, "<ul class=\"failed-runs\">\n");
		if (bad > 10 * CD_SCALE_LIST)
			continue;
		run_where(p, where, sizeof(where));
		out_raw(o, "<li><code>");
		h_esc(o, p->name);
		out_raw(o, "</code> ");
		h_esc(o, where);
		out_raw(o, " %s", cd_status_str(p->status));
		if (p->reason) {
			out_raw(o, ": ");
			h_esc(o, p->reason);
		}
		out_raw(o, "</li>\n");
	}
	if (bad)
		out_raw(o, "</ul>\n");
	if (bad > 10 * CD_SCALE_LIST)
		out_raw(o, "<p>and %zu more runs that did not finish.</p>\n", bad - 10 * CD_SCALE_LIST);
	out_raw(o, "</section>\n");
}

/*
 * reach_counts, written after reach[] by the report's JSON renderer, which writes the rest
 * of the document (the key is left out while there are none, so a document without
 * compact reach data is unchanged). Only a job of over 64 hosts has it.
 */
void cd_scale_reach_counts(struct cd_out *o, const struct cd_results *r)
{
	if (!r->n_reach_counts || out_format(o) != OUT_FMT_JSON)
		return;
	out_arr_open(o, "reach_counts");
	for (size_t i = 0; i < r->n_reach_counts; i++) {
		const struct cd_reach_count *c = &r->reach_counts[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_JSON, "host", NULL, c->host);
		out_str(o, OUT_JSON, "iface", NULL, c->iface);
		out_i64(o, OUT_JSON, "in_tested", NULL, c->in_tested);
		out_i64(o, OUT_JSON, "in_failed", NULL, c->in_failed);
		out_i64(o, OUT_JSON, "out_tested", NULL, c->out_tested);
		out_i64(o, OUT_JSON, "out_failed", NULL, c->out_failed);
		out_obj_close(o);
	}
	out_arr_close(o);
}
