/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compare OLD.json NEW.json, and the --baseline FILE of check and score: the baseline
 * document is loaded here and handed to the judge inside the document it compares
 * (cd_results.baseline), so the stages still talk only through the document.
 */
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "results.h"
#include "rules.h"

#include "cmd.h"

int load_baseline(const char *file, struct cd_results **out)
{
	struct cd_results *b = xcalloc(1, sizeof(*b));

	*out = NULL;
	if (cd_results_load_file(b, file) < 0) {
		cd_results_free(b);
		free(b);
		return EXIT_USAGE;
	}
	/* a baseline is facts and measurements; what was judged of it then does not matter now */
	cd_results_clear_judgement(b);
	*out = b;
	return 0;
}

void attach_baseline(struct cd_results *r, struct cd_results *base, const char *file)
{
	if (r->baseline) {
		cd_results_free(r->baseline);
		free(r->baseline);
	}
	free(r->baseline_file);
	r->baseline = base;
	r->baseline_file = base ? xstrdup(file) : NULL;
}

/*
 * Only the baseline rules judge NEW: compare answers "did it get worse", so its exit code
 * does not depend on NEW's other findings (check --baseline gives both). No score, no advice.
 */
int cmd_compare(struct ctx *c)
{
	struct cd_results r, *base;
	struct cd_conf conf;
	int rc;

	if (c->nargs != 2)
		return cd_error("compare: two documents: use 'commdiag compare OLD.json NEW.json'"), EXIT_USAGE;
	if (!strcmp(c->args[0], "-") && !strcmp(c->args[1], "-"))
		return cd_error("compare: standard input ('-') can be one of the documents, not both"), EXIT_USAGE;
	/* a bad --rules, -D or --profile stops before reading anything */
	rc = cd_conf_load(&conf, &c->conf, NULL);
	cd_conf_free(&conf);
	if (rc < 0)
		return EXIT_USAGE;
	phase(1);
	rc = load_baseline(c->args[0], &base);
	if (rc)
		return rc;
	if (cd_results_load_file(&r, c->args[1]) < 0) {
		cd_results_free(base);
		free(base);
		return EXIT_USAGE;
	}
	cd_results_clear_judgement(&r);
	free(r.tool_version);
	r.tool_version = xstrdup(CD_VERSION);
	attach_baseline(&r, base, c->args[0]);
	phase(2);
	if (cd_conf_load(&conf, &c->conf, &r) < 0) {
		cd_conf_free(&conf);
		cd_results_free(&r);
		return EXIT_USAGE;
	}
	cd_rules_evaluate_group(&r, &conf, "baseline");
	cd_conf_free(&conf);
	if (cd_stop)
		stamp_stop(&r);
	phase(3);
	rc = emit_report(c, render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
	return rc;
}
