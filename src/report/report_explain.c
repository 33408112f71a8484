/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `explain`'s view: what the logs showed, the causes found (or an honest none: errors no entry
 * explains, or help texts that list several causes), the advice. Moved out of report.c in
 * session 19 to keep it under the layout limit; the sections are report.c's.
 */
#include <string.h>

#include "out.h"
#include "report.h"
#include "report_render.h"

/* LOG000 and LOG002 (facts), LOG096 (a cause the log states, no entry for it), LOG097 to LOG099
 * (no cause named) */
static int is_cause(const struct cd_finding *f)
{
	return strcmp(f->id, "LOG000") && strcmp(f->id, "LOG002") && strcmp(f->id, "LOG096") && strcmp(f->id, "LOG097") &&
	       strcmp(f->id, "LOG098") && strcmp(f->id, "LOG099");
}

/* A consequence: a finding of that ID that explain marked so (its log's LOG097 lists it). */
static int consequence(const struct cd_results *r, const char *id)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->findings[i].consequence && !strcmp(r->findings[i].id, id))
			return 1;
	return 0;
}

/* Advice that names a cause: not only what to collect (LOG099), a help text's checks (LOG098), the
 * general check for what a line states (LOG096) or where a consequence's cause may be (LOG097's
 * findings). */
static int advice_names_cause(const struct cd_results *r, const struct cd_advice *a)
{
	for (size_t k = 0; k < a->findings.n; k++)
		if (strcmp(a->findings.v[k], "LOG096") && strcmp(a->findings.v[k], "LOG098") &&
		    strcmp(a->findings.v[k], "LOG099") &&
		    !consequence(r, a->findings.v[k]))
			return 1;
	return 0;
}

/* `explain`: what the logs showed, the causes found (or an honest none), the advice. */
void cd_report_explain(struct cd_out *o, const struct cd_results *r)
{
	size_t causes = 0;
	int errors_seen = 0; /* LOG099: errors (or NCCL WARN lines) no entry explains */
	int several = 0;     /* LOG098: a help text that lists several causes */
	int elsewhere = 0;   /* LOG097: only consequences of a failure that began elsewhere */
	int stated = 0;      /* LOG096: a line states its cause, no entry reads it */

	for (size_t i = 0; i < r->n_findings; i++) {
		const struct cd_finding *f = &r->findings[i];

		causes += is_cause(f) && !f->consequence;
		errors_seen |= !strcmp(r->findings[i].id, "LOG099");
		several |= !strcmp(r->findings[i].id, "LOG098");
		elsewhere |= !strcmp(r->findings[i].id, "LOG097");
		stated |= !strcmp(r->findings[i].id, "LOG096");
	}
	/* facts alone (the interfaces NCCL listed) can explain a log too */
	for (size_t i = 0; i < r->n_advice; i++)
		causes += advice_names_cause(r, &r->advice[i]);
	cd_render_tool_run(o, r);
	out_str(o, OUT_JSON, "verdict", NULL,
		causes ? "explained" : elsewhere ? "consequences only" : several ? "several causes" :
		stated ? "cause stated" : errors_seen ? "unexplained" : "no error");
	out_arr_open(o, "hosts");
	out_text(o, "\n## extracted from the log%s\n", r->n_hosts == 1 ? "" : "s");
	for (size_t i = 0; i < r->n_hosts; i++) {
		const struct cd_host *h = &r->hosts[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "hostname", "  %s:", h->hostname);
		out_str(o, OUT_JSON, "nccl", NULL, h->versions.nccl);
		if (h->versions.nccl)
			out_str(o, OUT_TEXT, NULL, " nccl %s", h->versions.nccl);
		out_str(o, OUT_JSON, "nccl_net_plugin", NULL, h->versions.nccl_net_plugin);
		if (h->versions.nccl_net_plugin)
			out_str(o, OUT_TEXT, NULL, " net plugin %s", h->versions.nccl_net_plugin);
		out_arr_open(o, "interfaces");
		for (size_t k = 0; k < h->n_nics; k++) {
			out_str(o, OUT_ANY, NULL, k ? ",%s" : " interfaces %s", h->nics[k].name);
		}
		out_arr_close(o);
		out_arr_open(o, "hcas");
		for (size_t k = 0; k < h->n_hcas; k++)
			out_str(o, OUT_ANY, NULL, k ? ",%s" : " hcas %s", h->hcas[k].name);
		out_arr_close(o);
		out_obj_open(o, "env");
		for (size_t k = 0; k < h->n_env; k++) {
			out_str(o, OUT_JSON, h->env[k].key, NULL, h->env[k].value);
			out_text(o, "%s%s=%s", k ? " " : " env ", h->env[k].key, h->env[k].value);
		}
		out_obj_close(o);
		out_nl(o);
		out_obj_close(o);
	}
	out_arr_close(o);
	cd_render_findings(o, r);
	if (!causes && elsewhere)
		out_text(o, "\ncommdiag cannot explain this log: its lines show only consequences of a failure that began "
			    "elsewhere (LOG097 above): in another process or library, on another host, or earlier than the log starts. "
			    "The advice below says where to look for the first error.\n");
	else if (!causes && several)
		out_text(o, "\ncommdiag cannot explain this log: the lines that point at a cause are help texts that list "
			    "several (LOG098 above), and no line says which one it is. The advice below gives their checks "
			    "in turn; none of them is a setting to paste.\n");
	else if (!causes && stated)
		out_text(o, "\ncommdiag has no entry for this failure, but a line of the log states its cause in the "
			    "system's words (LOG096 above): start there. The advice below is the general check for what "
			    "that line says, not a setting.%s\n",
			 errors_seen ? " The errors LOG099 lists, from another log given, name no cause: commdiag cannot "
				       "explain those." : "");
	else if (!causes && errors_seen)
		out_text(o, "\ncommdiag cannot explain this log: no line it knows names a cause. It extracted "
			    "what LOG000 lists above; the advice below only says what to collect next.\n");
	else if (!causes)
		/* no LOG099: no error line, or only errors a finished run handled; a job that worked reads so */
		out_text(o, "\ncommdiag found no failure it recognises in this log, so it cannot explain one from it: "
			    "no line it knows reports one or names a cause. It extracted what LOG000 lists above (with the "
			    "first line that looks like an error, if there is one).\n");
	cd_render_advice(o, r);
	cd_render_shell_block(o, r);
}
