/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang: ask a running NCCL job's RAS service (NCCL 2.24 and later) for its status
 * twice or more, --interval seconds apart, under the one --timeout deadline; judge the
 * snapshots (src/judge/rules_hang.c: missing, dead, erroring and stuck ranks) and report
 * like every command. The RAS client is src/probe/ras_client.c, the report parser
 * src/core/ras.c. Flight Recorder dumps and advice are not read or given yet (issue 20).
 */
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ras.h"
#include "ras_client.h"
#include "rules_hang.h"
#include "util.h"

#define HANG_QUERIES 2
#define RAS_LEG_TIMEOUT_MAX_S 5 /* RAS_COLLECTIVE_LEG_TIMEOUT_SEC, src/ras/ras_internal.h: ncclras's default */

static void ras_step(int s)
{
	phase(PHASE_RAS + s);
}

/* Sleep up to `s` seconds; 0, or -1 when stopped. */
static int pause_s(double s)
{
	double end = cd_now_s() + s;

	phase(PHASE_RAS + CD_RAS_STATUS + 1);
	while (!cd_stop) {
		double left = end - cd_now_s();

		if (left <= 0)
			return 0;
		poll(NULL, 0, left > 0.1 ? 100 : (int)(left * 1000) + 1);
	}
	return -1;
}

int cmd_hang(struct ctx *c)
{
	const char *env = getenv("NCCL_RAS_ADDR");
	const char *addr = c->ras ? c->ras : env && *env ? env : "localhost:28028";
	const char *from = c->ras ? "option '--ras'" : env && *env ? "NCCL_RAS_ADDR" : "the default";
	struct cd_ras_snapshot snaps[HANG_QUERIES];
	char *host = NULL, *port = NULL, *err = NULL, *where, *fmt_note = NULL, *proto = NULL;
	struct cd_results r;
	size_t n = 0;
	int try_json = 1, rc = 0, ras_timeout = (int)(c->timeout_s / 4);

	if (cd_ras_split_addr(addr, &host, &port, &err) < 0) {
		cd_error("%s: %s", from, err);
		free(err);
		return EXIT_USAGE;
	}
	if (ras_timeout < 1)
		ras_timeout = 1;
	if (ras_timeout > RAS_LEG_TIMEOUT_MAX_S)
		ras_timeout = RAS_LEG_TIMEOUT_MAX_S;
	where = xasprintf("%s:%s", host, port);
	cd_results_init(&r);
	stamp(&r, "hang", c);
	r.run.ranks = CD_NULL_I64; /* no commdiag ranks ran: the ranks are the job's */
	while (n < HANG_QUERIES && !cd_stop) {
		struct cd_ras_reply rep;

		if (n && pause_s(c->interval_s) < 0)
			break;
		rc = cd_ras_query(host, port, try_json, ras_timeout, ras_step, &rep, &err);
		if (rc == -2)
			break;
		if (rc == -1) {
			cd_error("hang: ras %s (query %zu): %s", where, n + 1, err);
			rc = EXIT_RUNTIME;
			goto out;
		}
		if (!rep.json && try_json) {
			try_json = 0; /* an older server: text from now on */
			fmt_note = xasprintf("the server answered '%s' to SET FORMAT json (before NCCL 2.28.7): the text "
					     "report was read",
					     rep.format_reply ? rep.format_reply : "");
		}
		if (!proto)
			proto = xstrdup(rep.protocol);
		if (cd_ras_parse(&snaps[n], rep.text, rep.len, &err) < 0) {
			cd_error("hang: ras %s (query %zu): the answer to VERBOSE STATUS: %s", where, n + 1, err);
			cd_ras_reply_free(&rep);
			rc = EXIT_RUNTIME;
			goto out;
		}
		cd_ras_reply_free(&rep);
		n++;
	}
	rc = 0;
	if (cd_stop) {
		stamp_stop(&r); /* a partial run makes no findings */
	} else {
		size_t f0 = r.n_findings;

		phase(2);
		cd_hang_judge(&r, snaps, n, where);
		for (size_t i = f0; i < r.n_findings; i++) {
			cd_finding_evidence(&r.findings[i], "RAS server %s (%s), NCCL %s, %s report, %zu queries %g s apart",
					    where, proto ? proto : "?", snaps[n - 1].version ? snaps[n - 1].version : "?",
					    snaps[n - 1].json ? "JSON" : "text", n, c->interval_s);
			if (fmt_note)
				cd_finding_evidence(&r.findings[i], "%s", fmt_note);
		}
	}
	if (!deterministic())
		r.run.duration_s = cd_now_s() - c->t_start;
	phase(3);
	rc = emit_report(c, render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
out:
	for (size_t i = 0; i < n; i++)
		cd_ras_snapshot_free(&snaps[i]);
	cd_results_free(&r);
	free(host);
	free(port);
	free(err);
	free(where);
	free(fmt_note);
	free(proto);
	return rc;
}
