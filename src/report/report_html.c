/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results document as one self-contained HTML page: inline CSS, inline SVG,
 * no script and nothing fetched (a Content-Security-Policy of default-src 'none'
 * says so to the browser too, so a string that slipped through escaping could
 * still neither run nor load anything). Every string of the document goes through
 * cd_html_escape(); numbers are formatted here.
 *
 * Heatmaps are coloured table cells that carry their value as text and, beside
 * it, the same judgement the colour shows (the percentage of the best pair), so
 * nothing is said by colour alone.
 */
#include <inttypes.h>
#include <math.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "out.h"
#include "report.h"
#include "report_scale.h"

/* Buckets of the scale, worst first: light enough for black text on each. */
static const char *const bucket_color[CD_HTML_BUCKETS] = { "#f4a582", "#fdd49e", "#fee08b", "#d9ef8b", "#a6d96a" };
/* Lower bound of each bucket as a fraction of the best value of the matrix. */
static const double bucket_from[CD_HTML_BUCKETS] = { 0.0, 0.50, 0.70, 0.85, 0.95 };
#define NO_DATA_COLOR "#e8e8e8"

char *cd_html_escape(const char *s)
{
	size_t n = 0, k = 0;
	char *d;

	if (!s)
		return xstrdup("");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += *p == '&' ? 5 : *p == '<' || *p == '>' ? 4 : *p == '"' || *p == '\'' ? 5 : 3;
	d = xmalloc(n + 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *rep = NULL;

		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&#34;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			/* C0 controls and DEL are not allowed in HTML text: U+FFFD shows where one was */
			if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f)
				rep = "\xef\xbf\xbd";
		}
		if (rep) {
			memcpy(d + k, rep, strlen(rep));
			k += strlen(rep);
		} else {
			d[k++] = (char)*p;
		}
	}
	d[k] = '\0';
	return d;
}

int cd_html_bucket(double v, double best, int higher_better)
{
	double f;
	int b = 0;

	if (!isfinite(v) || !isfinite(best) || v < 0 || !(best > 0))
		return -1;
	f = higher_better ? v / best : v > 0 ? best / v : 1.0;
	for (int i = 0; i < CD_HTML_BUCKETS; i++)
		if (f >= bucket_from[i])
			b = i;
	return b;
}

const char *cd_html_bucket_color(int bucket)
{
	return bucket >= 0 && bucket < CD_HTML_BUCKETS ? bucket_color[bucket] : NO_DATA_COLOR;
}

/* ---- small writers ---- */

static void esc(struct cd_out *o, const char *s)
{
	char *e = cd_html_escape(s);

	out_raw(o, "%s", e);
	free(e);
}

/* A string of the document, or a marked "n/a" when it is null. */
static void esc_na(struct cd_out *o, const char *s)
{
	if (s)
		esc(o, s);
	else
		out_raw(o, "<span class=\"na\">n/a</span>");
}

static void i64_na(struct cd_out *o, int64_t v)
{
	if (v == CD_NULL_I64)
		out_raw(o, "<span class=\"na\">n/a</span>");
	else
		out_raw(o, "%" PRId64, v);
}

static const char *sev_upper(enum cd_severity s)
{
	return s == CD_SEV_FAIL ? "FAIL" : s == CD_SEV_WARN ? "WARN" : "INFO";
}

/* A unit of the document as people write it: "gbyte_s" is GB/s. */
static const char *unit_text(const char *unit)
{
	static const char *const map[][2] = {
		{ "gbyte_s", "GB/s" }, { "gbit_s", "Gb/s" }, { "mbit_s", "Mb/s" }, { "us", "us" }, { "s", "s" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(unit, map[i][0]))
			return map[i][1];
	return unit;
}

/* ---- matrices gathered from the probes ---- */

static ssize_t gpu_pos(const struct cd_host *h, int64_t index)
{
	for (size_t i = 0; i < h->n_gpus; i++)
		if (h->gpus[i].index == index)
			return (ssize_t)i;
	return -1;
}

size_t cd_html_gpu_matrix(const struct cd_results *r, const struct cd_host *h, const char *probe,
			  const struct cd_probe_run **cells)
{
	size_t g = h->n_gpus, n = 0;

	for (size_t i = 0; i < g * g; i++)
		cells[i] = NULL;
	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		ssize_t a, b;

		if (!p->name || strcmp(p->name, probe) || cd_probe_host(r, p) != h)
			continue;
		a = gpu_pos(h, p->device);
		b = gpu_pos(h, p->peer);
		if (a < 0 || b < 0)
			continue;
		/* one run per ordered pair; a later one (a re-run) replaces it */
		n += !cells[a * g + b];
		cells[a * g + b] = p;
	}
	return n;
}

static ssize_t host_pos(const struct cd_results *r, const char *name)
{
	for (size_t i = 0; name && i < r->n_hosts; i++)
		if (r->hosts[i].hostname && !strcmp(r->hosts[i].hostname, name))
			return (ssize_t)i;
	return -1;
}

static const char *rank_host(const struct cd_results *r, int64_t rank)
{
	for (size_t i = 0; rank != CD_NULL_I64 && i < r->n_ranks; i++)
		if (r->ranks[i].rank == rank)
			return r->ranks[i].host;
	return NULL;
}

size_t cd_html_host_matrix(const struct cd_results *r, const char *probe, const struct cd_probe_run **cells)
{
	size_t nh = r->n_hosts, n = 0;

	for (size_t i = 0; i < nh * nh; i++)
		cells[i] = NULL;
	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		const char *from = rank_host(r, p->rank);
		const struct cd_probe_run *cur;
		ssize_t a, b;

		if (!p->name || strcmp(p->name, probe))
			continue;
		a = host_pos(r, from ? from : p->host);
		b = host_pos(r, rank_host(r, p->peer));
		if (a < 0 || b < 0)
			continue;
		cur = cells[a * nh + b];
		if (!cur)
			n++;
		/* several ranks per host: the cell shows the slowest finished pair, the one that holds a job back */
		else if (!isnan(cd_probe_bw(cur)) && !(cd_probe_bw(p) < cd_probe_bw(cur)))
			continue;
		cells[a * nh + b] = p;
	}
	return n;
}

/* ---- heatmaps ---- */

struct heat {
	const char *caption;
	const char *unit;       /* "GB/s", "us" */
	int higher_better;
	const char *fmt;        /* of the value: "%.1f" */
	size_t rows, cols;
	const char *(*label)(const void *ctx, int col, size_t i, char *buf, size_t len);
	const void *ctx;
	const struct cd_probe_run **cells;
	int diagonal;           /* rows and columns are the same devices: the diagonal is "X" */
};

static double cell_value(const struct heat *m, const struct cd_probe_run *p)
{
	if (!p)
		return NAN;
	return m->higher_better ? cd_probe_bw(p) : cd_probe_lat_us(p);
}

static void legend(struct cd_out *o, const struct heat *m, double best)
{
	char lo[32], hi[32];

	out_raw(o, "<ul class=\"legend\" aria-label=\"colour scale of %s\">", m->caption);
	for (int b = CD_HTML_BUCKETS - 1; b >= 0; b--) {
		double f0 = bucket_from[b], f1 = b + 1 < CD_HTML_BUCKETS ? bucket_from[b + 1] : 1.0;

		/* the values each colour stands for, in the matrix's unit */
		if (m->higher_better) {
			snprintf(lo, sizeof(lo), m->fmt, best * f0);
			snprintf(hi, sizeof(hi), m->fmt, best * f1);
		} else {
			snprintf(lo, sizeof(lo), m->fmt, best / f1);
			snprintf(hi, sizeof(hi), m->fmt, f0 > 0 ? best / f0 : INFINITY);
		}
		out_raw(o, "<li><span class=\"sw\" style=\"background:%s\"></span>", bucket_color[b]);
		if (b == CD_HTML_BUCKETS - 1)
			out_raw(o, "&ge; %.0f %% of best", 100 * f0);
		else if (b == 0)
			out_raw(o, "&lt; %.0f %% of best", 100 * f1);
		else
			out_raw(o, "%.0f&ndash;%.0f %% of best", 100 * f0, 100 * f1);
		if (b == 0)
			out_raw(o, " (%s %s %s)</li>", m->higher_better ? "&lt;" : "&gt;", m->higher_better ? hi : lo,
				m->unit);
		else
			out_raw(o, " (%s&ndash;%s %s)</li>", lo, hi, m->unit);
	}
	out_raw(o, "<li><span class=\"sw\" style=\"background:%s\"></span>no result</li></ul>\n", NO_DATA_COLOR);
}

static void heat_cell(struct cd_out *o, const struct heat *m, size_t i, size_t j, double best)
{
	const struct cd_probe_run *p = m->cells[i * m->cols + j];
	double v = cell_value(m, p);
	int b = cd_html_bucket(v, best, m->higher_better);
	char rl[512], cl[512], val[32];

	m->label(m->ctx, 0, i, rl, sizeof(rl));
	m->label(m->ctx, 1, j, cl, sizeof(cl));
	if (m->diagonal && i == j) {
		out_raw(o, "<td class=\"self\" title=\"%s itself\">X</td>", rl);
		return;
	}
	out_raw(o, "<td class=\"heat\" data-bucket=\"%d\" style=\"background:%s\" title=\"%s to %s: ", b,
		cd_html_bucket_color(b), rl, cl);
	if (b < 0) {
		out_raw(o, "%s\">", p ? cd_status_str(p->status) : "not measured");
		if (p)
			out_raw(o, "<span class=\"st\">%s</span></td>", cd_status_str(p->status));
		else
			out_raw(o, "&ndash;</td>");
		return;
	}
	snprintf(val, sizeof(val), m->fmt, v);
	out_raw(o, "%s %s, %.0f %% of best\"><span class=\"v\">%s</span> <small>%.0f %%</small></td>", val, m->unit,
		100 * (m->higher_better ? v / best : best / v), val, 100 * (m->higher_better ? v / best : best / v));
}

static void heatmap(struct cd_out *o, const struct heat *m)
{
	double best = NAN;
	char l[512];

	for (size_t i = 0; i < m->rows * m->cols; i++) {
		double v = cell_value(m, m->cells[i]);

		if (isfinite(v) && v >= 0 && (isnan(best) || (m->higher_better ? v > best : v < best)))
			best = v;
	}
	out_raw(o, "<table class=\"matrix\"><caption>%s, %s; best %s ", m->caption, m->unit,
		m->higher_better ? "(highest)" : "(lowest)");
	if (isfinite(best)) {
		snprintf(l, sizeof(l), m->fmt, best);
		out_raw(o, "%s %s</caption>\n<thead><tr><th scope=\"col\">from \\ to</th>", l, m->unit);
	} else {
		out_raw(o, "n/a</caption>\n<thead><tr><th scope=\"col\">from \\ to</th>");
	}
	for (size_t j = 0; j < m->cols; j++)
		out_raw(o, "<th scope=\"col\">%s</th>", m->label(m->ctx, 1, j, l, sizeof(l)));
	out_raw(o, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < m->rows; i++) {
		out_raw(o, "<tr><th scope=\"row\">%s</th>", m->label(m->ctx, 0, i, l, sizeof(l)));
		for (size_t j = 0; j < m->cols; j++)
			heat_cell(o, m, i, j, best);
		out_raw(o, "</tr>\n");
	}
	out_raw(o, "</tbody></table>\n");
	legend(o, m, best);
}

/* Labels come back escaped: they go into text and attributes as they are. */
static const char *gpu_label(const void *ctx, int col, size_t i, char *buf, size_t len)
{
	const struct cd_host *h = ctx;

	(void)col;
	snprintf(buf, len, "GPU%" PRId64, i < h->n_gpus ? h->gpus[i].index : (int64_t)i);
	return buf;
}

static const char *host_label(const void *ctx, int col, size_t i, char *buf, size_t len)
{
	const struct cd_results *r = ctx;
	char *e = cd_html_escape(r->hosts[i].hostname ? r->hosts[i].hostname : "?");

	(void)col;
	snprintf(buf, len, "%s", e);
	free(e);
	return buf;
}

/* ---- sections ---- */

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#1a1a1a;"
	"margin:0 auto;max-width:1200px;padding:0 16px 32px}\n"
	"h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;border-bottom:1px solid #ccc;margin-top:28px}"
	"h3{font-size:15px;margin:18px 0 6px}\n"
	"dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}dl.meta dt{color:#555}"
	"dl.meta dd{margin:0}\n"
	"table{border-collapse:collapse;margin:6px 0 10px}th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;"
	"vertical-align:top}th{background:#f2f2f2}\n"
	"caption{text-align:left;font-weight:600;padding:4px 0;white-space:nowrap}\n"
	"table.matrix td{text-align:center;min-width:44px;font-variant-numeric:tabular-nums}"
	"table.matrix td small{display:block;font-size:10px;color:#333}td.self{background:#fff;color:#888}"
	".st{font-style:italic}td.peers{white-space:nowrap}\n"
	"ul.legend{list-style:none;padding:0;margin:0 0 12px;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px}"
	".sw{display:inline-block;width:14px;height:14px;border:1px solid #888;vertical-align:middle;"
	"margin-right:4px}\n"
	".na{color:#888}.sev{font-weight:700;padding:0 4px;border-radius:3px}.sev-fail{background:#f4a582}"
	".sev-warn{background:#fee08b}.sev-info{background:#e0e0e0}\n"
	".verdict{font-size:18px;font-weight:700;padding:6px 10px;display:inline-block;border-radius:4px}"
	".v-fail{background:#f4a582}.v-warn{background:#fee08b}.v-pass{background:#a6d96a}.v-none{background:#e8e8e8}\n"
	"code,pre{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:13px}"
	"pre{background:#f6f6f6;padding:6px 8px;white-space:pre-wrap;word-break:break-all;margin:4px 0}\n"
	"ol.path{display:flex;flex-wrap:wrap;list-style:none;padding:0;margin:4px 0}"
	"ol.path li+li:before{content:'\\2192';padding:0 6px;color:#666}\n"
	".partial{background:#f4a582;padding:6px 10px;font-weight:600}\n"
	"summary{cursor:pointer;margin:4px 0}\n"
	"@media print{body{max-width:none}h2{break-after:avoid}table{break-inside:avoid}}\n";

static void head(struct cd_out *o, const struct cd_results *r)
{
	out_raw(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" "
		   "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<meta name=\"generator\" content=\"commdiag ");
	esc(o, r->tool_version);
	out_raw(o, "\">\n<title>commdiag report: ");
	for (size_t i = 0; i < r->n_hosts && i < 4; i++) {
		out_raw(o, "%s", i ? ", " : "");
		esc(o, r->hosts[i].hostname ? r->hosts[i].hostname : "?");
	}
	if (r->n_hosts > 4)
		out_raw(o, " and %zu more", r->n_hosts - 4);
	if (!r->n_hosts)
		out_raw(o, "no host");
	out_raw(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

static void header(struct cd_out *o, const struct cd_results *r)
{
	out_raw(o, "<header>\n<h1>commdiag report</h1>\n<dl class=\"meta\">\n<dt>host%s</dt><dd>",
		r->n_hosts == 1 ? "" : "s");
	if (cd_scale_big(r))
		out_raw(o, "<a href=\"#hosts\">%zu</a>", r->n_hosts); /* the Hosts section names the bad ones */
	for (size_t i = 0; i < r->n_hosts && !cd_scale_big(r); i++) {
		out_raw(o, "%s<a href=\"#host%zu\">", i ? ", " : "", i);
		esc_na(o, r->hosts[i].hostname);
		out_raw(o, "</a>");
	}
	if (!r->n_hosts)
		out_raw(o, "none");
	out_raw(o, "</dd>\n<dt>tool</dt><dd>commdiag ");
	esc_na(o, r->tool_version);
	out_raw(o, "</dd>\n<dt>mode</dt><dd>");
	esc_na(o, r->run.mode);
	out_raw(o, "</dd>\n<dt>run started</dt><dd>");
	if (r->run.started)
		esc(o, r->run.started);
	else
		out_raw(o, "<span class=\"na\">not recorded</span>");
	out_raw(o, "</dd>\n<dt>duration</dt><dd>");
	if (isfinite(r->run.duration_s))
		out_raw(o, "%.2f s", r->run.duration_s);
	else
		out_raw(o, "<span class=\"na\">n/a</span>");
	out_raw(o, "</dd>\n<dt>ranks</dt><dd>");
	i64_na(o, r->run.ranks);
	if (r->run.launcher) {
		out_raw(o, " (started by ");
		esc(o, r->run.launcher);
		out_raw(o, ")");
	}
	out_raw(o, "</dd>\n</dl>\n");
	if (r->run.stopped_by) {
		out_raw(o, "<p class=\"partial\" role=\"alert\">Partial report: the run was stopped by ");
		esc(o, r->run.stopped_by);
		out_raw(o, " during ");
		esc(o, r->run.stopped_phase ? r->run.stopped_phase : "an unknown phase");
		out_raw(o, "; what did not run is marked timeout.</p>\n");
	}
	out_raw(o, "</header>\n");
}

/* The verdict says what the worst finding is; the exit code's --fail-on is the caller's choice. */
static void verdict(struct cd_out *o, const struct cd_results *r)
{
	size_t count[3] = { 0 };
	int worst = cd_results_worst(r);

	for (size_t i = 0; i < r->n_findings; i++)
		count[r->findings[i].severity]++;
	if (worst == CD_SEV_FAIL)
		out_raw(o, "<p class=\"verdict v-fail\">Verdict: FAIL &mdash; "
			   "fix the failing findings before a job runs here");
	else if (worst == CD_SEV_WARN)
		out_raw(o, "<p class=\"verdict v-warn\">Verdict: WARN &mdash; usable, with warnings to look at");
	else if (r->rules.present || r->score.present)
		out_raw(o, "<p class=\"verdict v-pass\">Verdict: PASS &mdash; no finding above info");
	else
		out_raw(o, "<p class=\"verdict v-none\">Verdict: not judged &mdash; "
			   "the rules did not run on this document");
	out_raw(o, "</p>\n<p>%zu fail, %zu warn, %zu info</p>\n", count[CD_SEV_FAIL], count[CD_SEV_WARN],
		count[CD_SEV_INFO]);
}

/* One bar per dimension, its number written beside it: the SVG never says anything by length alone. */
static void score_svg(struct cd_out *o, const struct cd_score *s)
{
	const int w = 420, row = 26, left = 90;

	out_raw(o, "<svg class=\"dims\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\" aria-labelledby=\"dims-title\">\n"
		   "<title id=\"dims-title\">score dimensions, 0 to 100:",
		w, row * CD_DIM_COUNT + 4, w, row * CD_DIM_COUNT + 4);
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		if (s->dim[d] == CD_NULL_I64)
			out_raw(o, " %s n/a;", cd_dim_str(d));
		else
			out_raw(o, " %s %" PRId64 ";", cd_dim_str(d), s->dim[d]);
	}
	out_raw(o, "</title>\n");
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		int y = d * row + 2;
		int64_t v = s->dim[d];
		int len = v == CD_NULL_I64 ? 0 : (int)(v < 0 ? 0 : v > 100 ? 100 : v) * (w - left - 50) / 100;
		int b = v == CD_NULL_I64 ? -1 : v >= 85 ? 4 : v >= 70 ? 2 : 0;

		out_raw(o, "<text x=\"0\" y=\"%d\" font-size=\"13\">%s</text>", y + 16, cd_dim_str(d));
		out_raw(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"20\" fill=\"#f2f2f2\" stroke=\"#bbb\"/>",
			left, y, w - left - 50);
		if (len)
			out_raw(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"20\" fill=\"%s\"/>", left, y, len,
				cd_html_bucket_color(b));
		if (v == CD_NULL_I64)
			out_raw(o, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#666\">no data</text>\n", left + 6,
				y + 15);
		else
			out_raw(o, "<text x=\"%d\" y=\"%d\" font-size=\"13\">%" PRId64 "</text>\n", w - 44, y + 15, v);
	}
	out_raw(o, "</svg>\n");
}

static void score_card(struct cd_out *o, const struct cd_results *r)
{
	const struct cd_score *s = &r->score;
	const struct cd_rules_run *rr = &r->rules;

	out_raw(o, "<section id=\"score\">\n<h2>Score card</h2>\n");
	verdict(o, r);
	if (!s->present) {
		out_raw(o, "<p class=\"na\">Not scored: this document was saved before the rules ran "
			   "(<code>commdiag check --from FILE --format html</code> scores it).</p>\n</section>\n");
		return;
	}
	if (s->total == CD_NULL_I64) {
		out_raw(o, "<p><strong>Score n/a</strong>: no dimension has data.</p>\n");
	} else {
		/* the grade comes from the document: escaped like every string of it */
		out_raw(o, "<p><strong class=\"total\">Score %" PRId64 "/100</strong> &middot; ", s->total);
		esc_na(o, s->grade);
		out_raw(o, "</p>\n");
	}
	score_svg(o, s);
	out_raw(o, "<table><thead><tr><th scope=\"col\">dimension</th><th scope=\"col\">value</th>"
		   "<th scope=\"col\">weight</th><th scope=\"col\">basis</th></tr></thead><tbody>\n");
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		out_raw(o, "<tr><th scope=\"row\">%s</th><td>", cd_dim_str(d));
		i64_na(o, s->dim[d]);
		if (isnan(s->weight[d]))
			out_raw(o, "</td><td><span class=\"na\">&ndash;</span></td><td>");
		else
			out_raw(o, "</td><td>%.0f %%</td><td>", 100.0 * s->weight[d]);
		esc_na(o, s->basis[d]);
		out_raw(o, "</td></tr>\n");
	}
	out_raw(o, "</tbody></table>\n<p>Grades: excellent &ge; 85, good 70&ndash;84, needs work &lt; 70.%s</p>\n",
		s->renormalised == CD_TRI_TRUE ? " Weights renormalised over the dimensions with data." : "");
	if (rr->present) {
		out_raw(o, "<p>Thresholds: profile ");
		esc(o, rr->profile ? rr->profile : "none");
		if (rr->profile_reason) {
			out_raw(o, " (");
			esc(o, rr->profile_reason);
			out_raw(o, ")");
		}
		out_raw(o, ".</p>\n");
		if (rr->n_not_evaluated)
			out_raw(o, "<p>Not evaluated (no data: these rules said nothing, which is not a pass):</p>\n"
				   "<ul>\n");
		for (size_t i = 0; i < rr->n_not_evaluated; i++) {
			out_raw(o, "<li><strong>");
			esc(o, rr->not_evaluated[i].group);
			out_raw(o, "</strong>: ");
			esc_na(o, rr->not_evaluated[i].reason);
			out_raw(o, "</li>\n");
		}
		if (rr->n_not_evaluated)
			out_raw(o, "</ul>\n");
	}
	out_raw(o, "</section>\n");
}

static void findings(struct cd_out *o, const struct cd_results *r)
{
	out_raw(o, "<section id=\"findings\">\n<h2>Findings (%zu)</h2>\n", r->n_findings);
	if (!r->n_findings) {
		out_raw(o, "<p>None.</p>\n</section>\n");
		return;
	}
	out_raw(o, "<table class=\"findings\"><thead><tr><th scope=\"col\">severity</th><th scope=\"col\">id</th>"
		   "<th scope=\"col\">host</th><th scope=\"col\">subject</th>"
		   "<th scope=\"col\">finding and evidence</th>"
		   "</tr></thead><tbody>\n");
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct cd_finding *f = &r->findings[i];

		if (cd_scale_big(r) && i == 25 * CD_SCALE_LIST) {
			out_raw(o, "<tr><td colspan=\"5\">and %zu more findings: every one is in the JSON document</td></tr>\n",
				r->n_findings - i);
			break;
		}
		out_raw(o, "<tr id=\"f%zu\"><td><span class=\"sev sev-%s\">%s</span></td><td><code>", i,
			cd_severity_str(f->severity), sev_upper(f->severity));
		esc_na(o, f->id);
		out_raw(o, "</code></td><td>");
		esc_na(o, f->host);
		out_raw(o, "</td><td>");
		esc_na(o, f->subject);
		out_raw(o, "</td><td>");
		esc_na(o, f->title);
		if (isfinite(f->measured) || isfinite(f->expected)) {
			out_raw(o, "<br>measured ");
			if (isfinite(f->measured))
				out_raw(o, "%.4g", f->measured);
			else
				out_raw(o, "<span class=\"na\">n/a</span>");
			out_raw(o, ", expected ");
			if (isfinite(f->expected))
				out_raw(o, "%.4g", f->expected);
			else
				out_raw(o, "<span class=\"na\">n/a</span>");
			if (f->unit) {
				out_raw(o, " ");
				esc(o, unit_text(f->unit));
			}
			if (f->threshold) {
				out_raw(o, " (threshold <code>");
				esc(o, f->threshold);
				out_raw(o, "</code>)");
			}
		}
		if (f->evidence.n)
			out_raw(o, "<ul class=\"evidence\">");
		for (size_t k = 0; k < f->evidence.n; k++) {
			if (cd_scale_big(r) && k == CD_SCALE_LIST) { /* a line per host, say: the JSON has them */
				out_raw(o, "<li>and %zu more lines</li>", f->evidence.n - k);
				break;
			}
			out_raw(o, "<li>");
			esc(o, f->evidence.v[k]);
			out_raw(o, "</li>");
		}
		out_raw(o, "%s</td></tr>\n", f->evidence.n ? "</ul>" : "");
	}
	out_raw(o, "</tbody></table>\n</section>\n");
}

static ssize_t finding_row(const struct cd_results *r, const char *id)
{
	for (size_t i = 0; id && i < r->n_findings; i++)
		if (r->findings[i].id && !strcmp(r->findings[i].id, id))
			return (ssize_t)i;
	return -1;
}

static void advice(struct cd_out *o, const struct cd_results *r)
{
	out_raw(o, "<section id=\"advice\">\n<h2>Advice (%zu)</h2>\n", r->n_advice);
	if (!r->n_advice) {
		size_t serious = 0;

		for (size_t i = 0; i < r->n_findings; i++)
			serious += r->findings[i].severity >= CD_SEV_WARN;
		out_raw(o, "<p>%s</p>\n</section>\n",
			serious ? "No setting to change: the findings above need the hardware, driver or host fixed."
				: "None: no change needed. Nothing in the facts or findings calls for a setting.");
		return;
	}
	out_raw(o, "<p>Settings are lines to export in the job's environment; commands and physical actions "
		   "are comments for you to carry out.</p>\n<ol class=\"advice\">\n");
	for (size_t i = 0; i < r->n_advice; i++) {
		const struct cd_advice *a = &r->advice[i];
		char line[CD_SHELL_LINE_MAX];

		cd_report_shell_line(line, sizeof(line), a);
		out_raw(o, "<li><pre>");
		esc(o, line);
		out_raw(o, "</pre>");
		if (a->findings.n)
			out_raw(o, "<div>for ");
		for (size_t k = 0; k < a->findings.n; k++) {
			ssize_t row = finding_row(r, a->findings.v[k]);

			out_raw(o, "%s", k ? ", " : "");
			if (row >= 0)
				out_raw(o, "<a href=\"#f%zd\">", row);
			esc(o, a->findings.v[k]);
			out_raw(o, "%s", row >= 0 ? "</a>" : "");
		}
		out_raw(o, "%s<div>why: ", a->findings.n ? "</div>" : "");
		esc_na(o, a->why);
		out_raw(o, "</div>");
		if (a->path.n)
			out_raw(o, "<div>decision path:</div><ol class=\"path\">");
		for (size_t k = 0; k < a->path.n; k++) {
			out_raw(o, "<li>");
			esc(o, a->path.v[k]);
			out_raw(o, "</li>");
		}
		out_raw(o, "%s</li>\n", a->path.n ? "</ol>" : "");
	}
	out_raw(o, "</ol>\n</section>\n");
}

static void hosts_table(struct cd_out *o, const struct cd_results *r)
{
	if (cd_scale_big(r)) {
		cd_scale_html_hosts(o, r); /* the bad hosts, the others grouped (report_scale.c) */
		return;
	}
	out_raw(o, "<section id=\"hosts\">\n<h2>Hosts (%zu)</h2>\n", r->n_hosts);
	if (!r->n_hosts) {
		out_raw(o, "<p>None.</p>\n</section>\n");
		return;
	}
	out_raw(o, "<table><thead><tr><th scope=\"col\">host</th><th scope=\"col\">os, kernel</th>"
		   "<th scope=\"col\">gpus</th><th scope=\"col\">driver</th><th scope=\"col\">cuda driver</th>"
		   "<th scope=\"col\">nccl</th><th scope=\"col\">sections not ok</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->n_hosts; i++) {
		const struct cd_host *h = &r->hosts[i];
		int bad = 0;

		out_raw(o, "<tr id=\"host%zu\"><th scope=\"row\">", i);
		esc_na(o, h->hostname);
		out_raw(o, "</th><td>");
		esc_na(o, h->system.os);
		out_raw(o, ", ");
		esc_na(o, h->system.kernel);
		out_raw(o, "</td><td>%zu", h->n_gpus);
		if (h->n_gpus) {
			out_raw(o, " &times; ");
			esc_na(o, h->gpus[0].name);
		}
		out_raw(o, "</td><td>");
		esc_na(o, h->versions.driver);
		out_raw(o, "</td><td>");
		i64_na(o, h->versions.cuda_driver);
		out_raw(o, "</td><td>");
		esc_na(o, h->versions.nccl);
		out_raw(o, "</td><td>");
		for (int p = 0; p < CD_PART_COUNT; p++) {
			if (h->part[p].status == CD_ST_OK)
				continue;
			out_raw(o, "%s<strong>%s %s</strong>", bad++ ? "<br>" : "", cd_part_str(p),
				cd_status_str(h->part[p].status));
			if (h->part[p].reason) {
				out_raw(o, ": ");
				esc(o, h->part[p].reason);
			}
		}
		out_raw(o, "%s</td></tr>\n", bad ? "" : "none");
	}
	out_raw(o, "</tbody></table>\n</section>\n");
}

/* Path classes, closest first, and the colour of each (NVLink green to SYS red). */
static const struct {
	const char *cls, *color, *meaning;
} classes[] = {
	{ "X", "#ffffff", "itself" },
	{ "NV", "#a6d96a", "NVLink (NV# = number of links)" },
	{ "PIX", "#d9ef8b", "at most one PCIe switch" },
	{ "PXB", "#fee08b", "several PCIe switches, no host bridge" },
	{ "PHB", "#fdd49e", "through a PCIe host bridge" },
	{ "NODE", "#fdbb84", "across host bridges within a NUMA node" },
	{ "SYS", "#f4a582", "across the inter-socket link" },
};

const char *cd_html_class_color(const char *cls)
{
	if (!cls)
		return NO_DATA_COLOR;
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		if (!strcmp(cls, classes[i].cls) ||
		    (!strcmp(classes[i].cls, "NV") && !strncmp(cls, "NV", 2) && cls[2] >= '0' && cls[2] <= '9'))
			return classes[i].color;
	return NO_DATA_COLOR;
}

static void class_cell(struct cd_out *o, const char *cls, const char *from, const char *to)
{
	out_raw(o, "<td style=\"background:%s\" title=\"%s to ", cd_html_class_color(cls), from);
	esc(o, to);
	out_raw(o, ": ");
	esc(o, cls ? cls : "unknown");
	out_raw(o, "\">");
	esc_na(o, cls);
	out_raw(o, "</td>");
}

static void path_matrix(struct cd_out *o, const struct cd_host *h)
{
	const struct cd_paths *p = &h->paths;
	size_t g = p->gpus.n, n = p->nets.n;

	out_raw(o, "<h3>Path matrix</h3>\n");
	if (!g || !p->gpu_gpu) {
		out_raw(o, "<p class=\"na\">No path matrix in this document");
		if (h->part[CD_PART_TOPO].reason) {
			out_raw(o, " (topology: ");
			esc(o, h->part[CD_PART_TOPO].reason);
			out_raw(o, ")");
		}
		out_raw(o, ".</p>\n");
		return;
	}
	out_raw(o, "<table class=\"matrix paths\"><caption>GPU to GPU and GPU to network device, as "
		   "<code>nvidia-smi topo -m</code> (source ");
	esc_na(o, p->source);
	out_raw(o, "; NCCL P2P up to ");
	esc_na(o, p->p2p_level);
	out_raw(o, ", ");
	esc_na(o, p->p2p_level_source);
	out_raw(o, ")</caption>\n<thead><tr><th scope=\"col\"></th>");
	for (size_t j = 0; j < g; j++) {
		out_raw(o, "<th scope=\"col\" title=\"");
		esc(o, p->gpus.v[j]);
		out_raw(o, "\">GPU%zu</th>", j);
	}
	for (size_t j = 0; j < n; j++) {
		out_raw(o, "<th scope=\"col\" class=\"net\">");
		esc(o, p->nets.v[j]);
		out_raw(o, "</th>");
	}
	out_raw(o, "<th scope=\"col\">NCCL P2P with</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < g; i++) {
		char from[32];
		size_t peers = 0;

		snprintf(from, sizeof(from), "GPU%zu", i);
		out_raw(o, "<tr><th scope=\"row\" title=\"");
		esc(o, p->gpus.v[i]);
		out_raw(o, "\">GPU%zu</th>", i);
		for (size_t j = 0; j < g; j++) {
			char to[32];

			snprintf(to, sizeof(to), "GPU%zu", j);
			class_cell(o, p->gpu_gpu[i * g + j], from, to);
		}
		for (size_t j = 0; j < n; j++)
			class_cell(o, p->gpu_net[i * n + j], from, p->nets.v[j]);
		for (size_t j = 0; j < g; j++)
			peers += j != i && p->nccl_p2p && p->nccl_p2p[i * g + j] == CD_TRI_TRUE;
		out_raw(o, "<td class=\"peers\">%s", peers == g - 1 ? "all others" : peers ? "GPU" : "none");
		for (size_t j = 0, k = 0; j < g && peers && peers < g - 1; j++)
			if (j != i && p->nccl_p2p[i * g + j] == CD_TRI_TRUE)
				out_raw(o, "%s%zu", k++ ? "," : "", j);
		out_raw(o, "</td></tr>\n");
	}
	out_raw(o, "</tbody></table>\n<ul class=\"legend\" aria-label=\"path classes\">");
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		out_raw(o, "<li><span class=\"sw\" style=\"background:%s\"></span><strong>%s%s</strong> %s</li>",
			classes[i].color, classes[i].cls, strcmp(classes[i].cls, "NV") ? "" : "#", classes[i].meaning);
	out_raw(o, "</ul>\n");
}

static void gpu_heatmaps(struct cd_out *o, const struct cd_results *r, size_t hi)
{
	const struct cd_host *h = &r->hosts[hi];
	size_t g = h->n_gpus;
	const struct cd_probe_run **cells;
	static const struct {
		const char *probe, *caption, *unit, *fmt;
		int higher_better;
	} kinds[] = {
		{ "p2p.bw", "GPU to GPU copy bandwidth (p2p.bw, largest size)", "GB/s", "%.1f", 1 },
		{ "p2p.latency", "GPU to GPU copy latency (p2p.latency, smallest size)", "us", "%.2f", 0 },
	};

	if (g < 2)
		return;
	cells = xcalloc(g * g, sizeof(*cells));
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct heat m = { .caption = kinds[k].caption, .unit = kinds[k].unit, .fmt = kinds[k].fmt,
				  .higher_better = kinds[k].higher_better, .rows = g, .cols = g, .label = gpu_label,
				  .ctx = h, .cells = cells, .diagonal = 1 };

		out_raw(o, "<h3 id=\"h%zu-%s\">%s</h3>\n", hi, kinds[k].probe, kinds[k].probe);
		if (!cd_html_gpu_matrix(r, h, kinds[k].probe, cells)) {
			out_raw(o, "<p class=\"na\">No %s results for this host.</p>\n", kinds[k].probe);
			continue;
		}
		heatmap(o, &m);
	}
	free(cells);
}

static void host_sections(struct cd_out *o, const struct cd_results *r)
{
	/* many hosts: the worst few drawn (n x 45 KB made a 4096-host page 2 GB), histograms for all */
	size_t bad = 0, n = cd_scale_big(r) ? CD_SCALE_WORST : r->n_hosts;
	struct cd_scale_host *rank = cd_scale_big(r) ? cd_scale_rank(r, &bad) : NULL;

	out_raw(o, "<section id=\"topology\">\n<h2>Topology and GPU pairs</h2>\n");
	if (rank) {
		/* the hosts with findings at warn or fail, worst first; none: the first host, as the others' example */
		n = bad < CD_SCALE_WORST ? (bad ? bad : 1) : CD_SCALE_WORST;
		out_raw(o, "<p>%zu hosts: the path matrices and GPU heatmaps are drawn for %s%zu host%s with a finding at "
			   "warn or fail (the worst %d at most, worst first)%s; the histograms show every host.</p>\n",
			r->n_hosts, bad > n ? "the worst " : "", bad ? n : 0, bad == 1 ? "" : "s", CD_SCALE_WORST,
			bad ? "" : ", and for the first host as an example");
		cd_scale_html_histograms(o, r);
	}
	for (size_t k = 0; k < n && k < r->n_hosts; k++) {
		size_t i = rank ? rank[k].host : k;
		const struct cd_host *h = &r->hosts[i];

		out_raw(o, "<h3 class=\"host\" id=\"h%zu-paths\">Host ", i);
		esc_na(o, h->hostname);
		out_raw(o, " &middot; %zu GPU%s</h3>\n", h->n_gpus, h->n_gpus == 1 ? "" : "s");
		path_matrix(o, h);
		gpu_heatmaps(o, r, i);
	}
	free(rank);
	out_raw(o, "</section>\n");
}

/* Hosts-to-hosts matrices up to this many hosts (the page's own limit, not the data's). */
#define HTML_MAX_MATRIX_HOSTS CD_SCALE_HOSTS

/* Reachability of each host from each other: attempts that connected, of all. */
static void reach_matrix(struct cd_out *o, const struct cd_results *r)
{
	size_t nh = r->n_hosts;

	out_raw(o, "<table class=\"matrix reach\"><caption>TCP reachability (reach[]): attempts that connected, "
		   "of all the listener's addresses</caption>\n<thead><tr><th scope=\"col\">from \\ to</th>");
	for (size_t j = 0; j < nh; j++) {
		out_raw(o, "<th scope=\"col\">");
		esc_na(o, r->hosts[j].hostname);
		out_raw(o, "</th>");
	}
	out_raw(o, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < nh; i++) {
		out_raw(o, "<tr><th scope=\"row\">");
		esc_na(o, r->hosts[i].hostname);
		out_raw(o, "</th>");
		for (size_t j = 0; j < nh; j++) {
			size_t ok = 0, all = 0;
			char rl[512], cl[512];
			int b;

			for (size_t k = 0; k < r->n_reach; k++) {
				const struct cd_reach *x = &r->reach[k];

				if (host_pos(r, x->from) == (ssize_t)i && host_pos(r, x->to) == (ssize_t)j) {
					all++;
					ok += x->ok == CD_TRI_TRUE;
				}
			}
			if (i == j) {
				out_raw(o, "<td class=\"self\">X</td>");
				continue;
			}
			host_label(r, 0, i, rl, sizeof(rl));
			host_label(r, 1, j, cl, sizeof(cl));
			if (!all) {
				out_raw(o, "<td class=\"heat\" data-bucket=\"-1\" style=\"background:%s\" "
					   "title=\"%s to %s: not tried\">&ndash;</td>", NO_DATA_COLOR, rl, cl);
				continue;
			}
			b = ok == all ? CD_HTML_BUCKETS - 1 : ok ? 2 : 0;
			out_raw(o, "<td class=\"heat\" data-bucket=\"%d\" style=\"background:%s\" "
				   "title=\"%s to %s: %zu of %zu addresses reached\">"
				   "<span class=\"v\">%zu/%zu</span> <small>%s</small></td>",
				b, cd_html_bucket_color(b), rl, cl, ok, all, ok, all,
				ok == all ? "all reach" : ok ? "some fail" : "none reach");
		}
		out_raw(o, "</tr>\n");
	}
	out_raw(o, "</tbody></table>\n<ul class=\"legend\" aria-label=\"reachability colours\">"
		   "<li><span class=\"sw\" style=\"background:%s\"></span>every address reached</li>"
		   "<li><span class=\"sw\" style=\"background:%s\"></span>some addresses failed</li>"
		   "<li><span class=\"sw\" style=\"background:%s\"></span>no address reached</li>"
		   "<li><span class=\"sw\" style=\"background:%s\"></span>not tried</li></ul>\n",
		cd_html_bucket_color(CD_HTML_BUCKETS - 1), cd_html_bucket_color(2), cd_html_bucket_color(0),
		NO_DATA_COLOR);

	out_raw(o, "<table class=\"attempts\"><caption>Connection attempts (%zu)</caption><thead><tr>"
		   "<th scope=\"col\">from</th><th scope=\"col\">to</th><th scope=\"col\">interface</th>"
		   "<th scope=\"col\">address</th><th scope=\"col\">result</th><th scope=\"col\">connect</th>"
		   "</tr></thead><tbody>\n", r->n_reach);
	for (size_t k = 0; k < r->n_reach; k++) {
		const struct cd_reach *x = &r->reach[k];

		out_raw(o, "<tr><td>");
		esc_na(o, x->from);
		out_raw(o, "</td><td>");
		esc_na(o, x->to);
		out_raw(o, "</td><td>");
		esc_na(o, x->iface);
		out_raw(o, "</td><td>");
		esc_na(o, x->address);
		if (x->ok == CD_TRI_NULL)
			out_raw(o, "</td><td><span class=\"na\">n/a</span>");
		else
			out_raw(o, "</td><td>%s", x->ok == CD_TRI_TRUE ? "ok" : "<strong>FAILED</strong>");
		if (x->error) {
			out_raw(o, ": ");
			esc(o, x->error);
		}
		out_raw(o, "</td><td>");
		if (isfinite(x->connect_us))
			out_raw(o, "%.0f us", x->connect_us);
		else
			out_raw(o, "<span class=\"na\">n/a</span>");
		out_raw(o, "</td></tr>\n");
	}
	out_raw(o, "</tbody></table>\n");
}

static void network(struct cd_out *o, const struct cd_results *r)
{
	size_t nh = r->n_hosts;
	const struct cd_probe_run **cells;
	static const struct {
		const char *probe, *caption;
	} kinds[] = {
		{ "tcp.bw", "Host to host TCP bandwidth (tcp.bw, largest size)" },
		{ "mpi.bw", "Host to host MPI bandwidth (mpi.bw, largest size)" },
	};

	if (nh < 2 && !r->n_reach)
		return;
	out_raw(o, "<section id=\"network\">\n<h2>Hosts to hosts</h2>\n");
	/*
	 * A matrix has n^2 cells: 20k hosts made 400M of them (3 GB, and a page no browser
	 * opens). Past a size a person can read, the findings name the bad pairs instead.
	 */
	if (nh > HTML_MAX_MATRIX_HOSTS) {
		out_raw(o, "<p class=\"na\">%zu hosts: the host-to-host matrices (reachability, tcp.bw, mpi.bw) are drawn "
			   "for at most %d; the findings above name the pairs that fail.</p>\n</section>\n", nh,
			HTML_MAX_MATRIX_HOSTS);
		return;
	}
	if (r->n_reach)
		reach_matrix(o, r);
	else
		out_raw(o, "<p class=\"na\">No reachability attempts (reach[] is empty).</p>\n");
	cells = xcalloc(nh * nh + 1, sizeof(*cells));
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct heat m = { .caption = kinds[k].caption, .unit = "GB/s", .fmt = "%.3g", .higher_better = 1,
				  .rows = nh, .cols = nh, .label = host_label, .ctx = r, .cells = cells,
				  .diagonal = 1 };

		out_raw(o, "<h3 id=\"%s\">%s</h3>\n", kinds[k].probe, kinds[k].probe);
		if (!cd_html_host_matrix(r, kinds[k].probe, cells)) {
			out_raw(o, "<p class=\"na\">No %s results between hosts.</p>\n", kinds[k].probe);
			continue;
		}
		heatmap(o, &m);
	}
	free(cells);
	out_raw(o, "</section>\n");
}

/* Every probe run in one table: what ran where, and how far it got. */
static void probes(struct cd_out *o, const struct cd_results *r)
{
	if (cd_scale_big(r)) {
		cd_scale_html_probes(o, r); /* one row per probe, the unfinished runs listed */
		return;
	}
	out_raw(o, "<section id=\"probes\">\n<h2>Probes (%zu runs)</h2>\n", r->n_probes);
	if (!r->n_probes) {
		out_raw(o, "<p>None ran.</p>\n</section>\n");
		return;
	}
	/* a long list (every GPU pair) starts folded: details opens without a script */
	out_raw(o, "<details%s><summary>every probe run: status, bandwidth at the largest size, latency at the "
		   "smallest</summary>\n", r->n_probes <= 24 ? " open" : "");
	out_raw(o, "<table class=\"probes\"><thead><tr><th scope=\"col\">probe</th><th scope=\"col\">host</th>"
		   "<th scope=\"col\">gpu</th><th scope=\"col\">peer</th><th scope=\"col\">status</th>"
		   "<th scope=\"col\">bandwidth GB/s</th><th scope=\"col\">latency us</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		double bw = cd_probe_is_bw(p) ? cd_probe_bw(p) : NAN, lat = cd_probe_lat_us(p);

		out_raw(o, "<tr><td><code>");
		esc_na(o, p->name);
		if (p->variant) {
			out_raw(o, " ");
			esc(o, p->variant);
		}
		out_raw(o, "</code></td><td>");
		esc_na(o, p->host);
		out_raw(o, "</td><td>");
		if (p->device != CD_NULL_I64)
			out_raw(o, "%" PRId64, p->device);
		out_raw(o, "</td><td>");
		if (p->peer != CD_NULL_I64)
			out_raw(o, "%" PRId64, p->peer);
		out_raw(o, "</td><td>%s", cd_status_str(p->status));
		if (p->phase) {
			out_raw(o, " in ");
			esc(o, p->phase);
		}
		if (p->reason) {
			out_raw(o, ": ");
			esc(o, p->reason);
		}
		out_raw(o, "</td><td>");
		if (isfinite(bw))
			out_raw(o, "%.4g", bw);
		out_raw(o, "</td><td>");
		if (isfinite(lat) && !cd_probe_is_bw(p))
			out_raw(o, "%.4g", lat);
		out_raw(o, "</td></tr>\n");
	}
	out_raw(o, "</tbody></table>\n</details>\n</section>\n");
}

void cd_report_html(struct cd_out *o, const struct cd_results *r)
{
	head(o, r);
	header(o, r);
	out_raw(o, "<main>\n");
	score_card(o, r);
	findings(o, r);
	advice(o, r);
	hosts_table(o, r);
	host_sections(o, r);
	network(o, r);
	probes(o, r);
	out_raw(o, "</main>\n<footer><p>Written by commdiag ");
	esc(o, r->tool_version);
	out_raw(o, " from the results document (schema %d). Self-contained: no script, nothing fetched.</p></footer>\n"
		   "</body>\n</html>\n", r->schema);
}
