/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fleet document (commdiag merge): the files it was made of (run.merged) and a verdict
 * per host, pass, warn or fail, from the findings that name that host. Written only for a
 * merged document, so every other document is written as before; the verdicts are derived
 * from the findings, so the loader does not read them back and `report --from` writes them
 * again, byte for byte.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "report.h"

struct name_idx {
	const char *name;
	size_t host;
};

static int cmp_name(const void *a, const void *b)
{
	const struct name_idx *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->host < y->host ? -1 : x->host > y->host;
}

/* bsearch's: by the name alone (any of equal names; the caller walks back to the first) */
static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct name_idx *)a)->name, ((const struct name_idx *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Add a finding to one verdict: its severity, and its id once (ids sorted later). */
static void note(struct cd_verdict *v, const struct cd_finding *f)
{
	if (f->severity < CD_SEV_WARN)
		return;
	if ((int)f->severity > v->worst)
		v->worst = (int)f->severity;
	for (size_t k = 0; k < v->rules.n; k++)
		if (!strcmp(v->rules.v[k], f->id))
			return;
	cd_strv_push(&v->rules, f->id);
}

/*
 * Sorting the host names once makes each finding one binary search: O((H + F) log H) for
 * 4096 hosts, where a scan per finding would be H × F.
 */
struct cd_verdict *cd_fleet_verdicts(const struct cd_results *r, struct cd_verdict *fleet)
{
	struct cd_verdict *v = xcalloc(r->n_hosts + 1, sizeof(*v));
	struct name_idx *byname = xcalloc(r->n_hosts + 1, sizeof(*byname));
	size_t n = 0;

	memset(fleet, 0, sizeof(*fleet));
	fleet->worst = -1;
	for (size_t i = 0; i < r->n_hosts; i++) {
		v[i].worst = -1;
		if (r->hosts[i].hostname)
			byname[n++] = (struct name_idx){ r->hosts[i].hostname, i };
	}
	if (n > 1)
		qsort(byname, n, sizeof(*byname), cmp_name);
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct cd_finding *f = &r->findings[i];
		struct name_idx key = { f->host, 0 }, *hit;
		size_t lo;

		hit = f->host && n ? bsearch(&key, byname, n, sizeof(*byname), cmp_key) : NULL;
		if (!hit) {
			/* no host, or a host the document does not list: the fleet's as a whole */
			note(fleet, f);
			continue;
		}
		/* bsearch found one of the equal names: a duplicated hostname's findings are each host's */
		lo = (size_t)(hit - byname);
		while (lo > 0 && !strcmp(byname[lo - 1].name, f->host))
			lo--;
		for (; lo < n && !strcmp(byname[lo].name, f->host); lo++)
			note(&v[byname[lo].host], f);
	}
	free(byname);
	for (size_t i = 0; i <= r->n_hosts; i++) {
		struct cd_verdict *x = i < r->n_hosts ? &v[i] : fleet;

		if (x->rules.n > 1)
			qsort(x->rules.v, x->rules.n, sizeof(*x->rules.v), cmp_str);
	}
	return v;
}

void cd_fleet_verdicts_free(struct cd_verdict *v, size_t n, struct cd_verdict *fleet)
{
	for (size_t i = 0; v && i < n; i++)
		cd_strv_free(&v[i].rules);
	free(v);
	if (fleet)
		cd_strv_free(&fleet->rules);
}

const char *cd_verdict_str(int worst)
{
	return worst >= CD_SEV_FAIL ? "fail" : worst == CD_SEV_WARN ? "warn" : "pass";
}

static enum out_color verdict_color(int worst)
{
	return worst >= CD_SEV_FAIL ? OUT_COLOR_RED : worst == CD_SEV_WARN ? OUT_COLOR_YELLOW : OUT_COLOR_GREEN;
}

void cd_report_fleet_run(struct cd_out *o, const struct cd_results *r)
{
	if (!r->run.n_merged)
		return;
	out_arr_open(o, "merged");
	for (size_t i = 0; i < r->run.n_merged; i++) {
		const struct cd_merged *m = &r->run.merged[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_JSON, "file", NULL, m->file);
		out_str(o, OUT_JSON, "mode", NULL, m->mode);
		out_arr_open(o, "hosts");
		for (size_t k = 0; k < m->hosts.n; k++)
			out_str(o, OUT_JSON, NULL, NULL, m->hosts.v[k]);
		out_arr_close(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void verdict_line(struct cd_out *o, const char *who, const struct cd_verdict *v, const char *file)
{
	char ids[256] = "";
	size_t used = 0;

	for (size_t k = 0; k < v->rules.n && used < sizeof(ids); k++)
		used += (size_t)snprintf(ids + used, sizeof(ids) - used, "%s%s", k ? "," : "", v->rules.v[k]);
	out_str(o, OUT_TEXT, NULL, "  %-24s ", who);
	out_color(o, verdict_color(v->worst));
	out_str(o, OUT_TEXT, NULL, "%-4s", cd_verdict_str(v->worst));
	out_color(o, OUT_COLOR_NONE);
	out_str(o, OUT_TEXT, NULL, "  %s", v->rules.n ? ids : "-");
	out_str(o, OUT_TEXT, NULL, "  (%s)", file);
	out_nl(o);
}

static void rule_list(struct cd_out *o, const struct cd_strv *sv)
{
	out_arr_open(o, "rules");
	for (size_t k = 0; k < sv->n; k++)
		out_str(o, OUT_JSON, NULL, NULL, sv->v[k]);
	out_arr_close(o);
}

void cd_report_fleet_verdicts(struct cd_out *o, const struct cd_results *r)
{
	struct cd_verdict fleet, *v;
	int64_t count[3] = { 0 };
	size_t base = 0, entry = 0;

	if (!r->run.n_merged)
		return;
	v = cd_fleet_verdicts(r, &fleet);
	for (size_t i = 0; i < r->n_hosts; i++)
		count[v[i].worst < 0 ? 0 : v[i].worst]++;
	out_text(o, "\n# verdicts (%zu host%s of %zu merged document%s: %" PRId64 " pass, %" PRId64 " warn, %" PRId64
		 " fail)\n", r->n_hosts, r->n_hosts == 1 ? "" : "s", r->run.n_merged, r->run.n_merged == 1 ? "" : "s",
		 count[0], count[CD_SEV_WARN], count[CD_SEV_FAIL]);
	out_obj_open(o, "verdicts");
	out_i64(o, OUT_JSON, "pass", NULL, count[0]);
	out_i64(o, OUT_JSON, "warn", NULL, count[CD_SEV_WARN]);
	out_i64(o, OUT_JSON, "fail", NULL, count[CD_SEV_FAIL]);
	out_obj_open(o, "fleet");
	out_str(o, OUT_JSON, "verdict", NULL, cd_verdict_str(fleet.worst));
	rule_list(o, &fleet.rules);
	out_obj_close(o);
	verdict_line(o, "(fleet: no one host)", &fleet, "findings about the hosts together");
	out_arr_open(o, "hosts");
	for (size_t i = 0; i < r->n_hosts; i++) {
		const char *file = NULL;

		/* hosts were added in the order of run.merged: walk both together, O(H) */
		while (entry < r->run.n_merged && i >= base + r->run.merged[entry].hosts.n)
			base += r->run.merged[entry++].hosts.n;
		if (entry < r->run.n_merged)
			file = r->run.merged[entry].file;
		out_obj_open(o, NULL);
		out_str(o, OUT_JSON, "host", NULL, r->hosts[i].hostname);
		out_str(o, OUT_JSON, "file", NULL, file);
		out_str(o, OUT_JSON, "verdict", NULL, cd_verdict_str(v[i].worst));
		rule_list(o, &v[i].rules);
		out_obj_close(o);
		verdict_line(o, r->hosts[i].hostname ? r->hosts[i].hostname : "?", &v[i], file ? file : "?");
	}
	out_arr_close(o);
	out_obj_close(o);
	cd_fleet_verdicts_free(v, r->n_hosts, &fleet);
}
