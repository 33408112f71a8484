/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every output path over any document (issue 19): load it, render the advice it carries as
 * the shell block, then judge it anew as check --from does (rules, cross-host rules, score,
 * env lint, the decision tree) and render text, JSON, Prometheus, HTML and the shell block.
 * Properties: nothing crashes or leaks (ASan, UBSan, LSan); every shell line is
 * `export NAME='value'` or `unset NAME` (each may stand behind a [ "$(hostname)" = '…' ] &&
 * guard) or a comment, with no control character; text without colour has no control
 * character but newlines; JSON, Prometheus and HTML are valid UTF-8.
 */
#include "fuzz.h"

#include <ctype.h>

#include "advise.h"
#include "conf.h"
#include "envlint.h"
#include "out.h"
#include "report.h"
#include "results.h"
#include "rules.h"
#include "score.h"

/* 'text', with '\'' for a quote inside; the position after it, or NULL */
static const char *quoted(const char *p)
{
	if (*p++ != '\'')
		return NULL;
	for (;;) {
		if (!*p || *p == '\n')
			return NULL;
		if (*p != '\'') {
			p++;
		} else if (!strncmp(p, "'\\''", 4)) {
			p += 4;
		} else {
			return p + 1;
		}
	}
}

static const char *name(const char *p)
{
	if (!(isalpha((unsigned char)*p) || *p == '_'))
		return NULL;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	return p;
}

static int no_controls(const char *p, const char *end)
{
	for (; p < end; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* one line of the shell block, [p, end) */
static int shell_line_ok(const char *p, const char *end)
{
	static const char guard[] = "[ \"$(hostname)\" = ";

	if (!no_controls(p, end))
		return 0;
	if (*p == '#')
		return 1;
	if (!strncmp(p, guard, sizeof(guard) - 1)) {
		if (!(p = quoted(p + sizeof(guard) - 1)) || strncmp(p, " ] && ", 6))
			return 0;
		p += 6;
	}
	if (!strncmp(p, "export ", 7)) {
		if (!(p = name(p + 7)) || *p++ != '=' || !(p = quoted(p)))
			return 0;
	} else if (!strncmp(p, "unset ", 6)) {
		if (!(p = name(p + 6)))
			return 0;
	} else {
		return 0;
	}
	while (p < end && *p == ' ')
		p++;
	return p == end || *p == '#';
}

static void check_shell(const struct cd_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o;

	FUZZ_CHECK(f != NULL, "open_memstream");
	o = out_new(OUT_FMT_TEXT, f, 0);
	cd_report_shell(o, r);
	FUZZ_CHECK(out_end(o) == 0, "rendering the shell block failed");
	fclose(f);
	for (char *p = buf, *nl; p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		FUZZ_CHECK(nl != NULL, "the shell block does not end its last line");
		FUZZ_CHECK(shell_line_ok(p, nl), "a shell line of another form: %.*s", (int)(nl - p), p);
	}
	free(buf);
}

static void check_utf8(const char *what, const char *s, size_t len)
{
	char *c;

	FUZZ_CHECK(strlen(s) == len, "%s has a NUL byte", what);
	c = cd_clean_text(s, CD_CLEAN_UTF8);
	FUZZ_CHECK(c == NULL, "%s is not valid UTF-8", what);
}

static void render_all(const struct cd_results *r)
{
	static const enum out_format fmts[] = { OUT_FMT_JSON, OUT_FMT_PROM, OUT_FMT_HTML };
	size_t len;
	char *s, *c;

	s = fuzz_render(r, OUT_FMT_TEXT, 0, &len);
	c = cd_clean_text(s, CD_CLEAN_KEEP_LINES);
	FUZZ_CHECK(c == NULL, "the text report has a control character: %.300s", s);
	free(s);
	s = fuzz_render(r, OUT_FMT_TEXT, 1, &len);
	free(s);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		s = fuzz_render(r, fmts[i], 0, &len);
		check_utf8(fmts[i] == OUT_FMT_JSON ? "JSON" : fmts[i] == OUT_FMT_PROM ? "Prometheus" : "HTML", s, len);
		free(s);
	}
	check_shell(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_results r;
	struct cd_conf conf;
	struct cd_conf_opts none = { 0 };
	struct cd_envcat cat = { 0 };

	if (cd_results_load_json(&r, (const char *)data, size, "fuzz") < 0) {
		cd_results_free(&r);
		return 0;
	}
	/* report --from: the advice as saved, whoever wrote it */
	render_all(&r);
	/* check --from: judged anew */
	cd_results_clear_judgement(&r);
	if (cd_conf_load(&conf, &none, &r) == 0) {
		cd_rules_evaluate_conf(&r, &conf);
		cd_score_compute(&r, &conf);
	}
	cd_conf_free(&conf);
	FUZZ_CHECK(cd_envcat_load_default(&cat) == 0, "the embedded env catalogue does not load");
	cd_envlint(&r, &cat, NULL);
	cd_envcat_free(&cat);
	cd_advise(&r);
	render_all(&r);
	cd_results_free(&r);
	return 0;
}
