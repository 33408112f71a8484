/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results document loader (--from, and the hosts MPI ranks send): any bytes
 * in, a document or a refusal out. What is loaded then goes down the rest of the
 * --from path: `report --from` renders it (text and JSON), `check --from` runs the
 * rules over it. Properties: the JSON the emitter writes loads again, and loading
 * it is a fixed point (render(load(render(doc))) == render(doc)): the round trip the
 * README promises; and so is the compact form (schema 2): render(load(compact(doc))) == render(doc).
 */
#include "fuzz.h"

#include "out.h"
#include "report.h"
#include "results.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_results r, back;
	char *json, *again, *text;
	size_t len, len2, tlen;

	if (cd_results_load_json(&r, (const char *)data, size, "fuzz") < 0) {
		/* a refused document is left empty: freeing it must be safe */
		FUZZ_CHECK(r.n_hosts == 0 && r.n_findings == 0 && r.n_probes == 0, "refused but not empty");
		cd_results_free(&r);
		return 0;
	}
	text = fuzz_render(&r, OUT_FMT_TEXT, 1, &tlen);
	free(text);
	json = fuzz_render(&r, OUT_FMT_JSON, 1, &len);
	FUZZ_CHECK(cd_results_load_json(&back, json, len, "fuzz-rendered") == 0, "rendered JSON does not load:\n%s",
		   json);
	again = fuzz_render(&back, OUT_FMT_JSON, 1, &len2);
	FUZZ_CHECK(len == len2 && !memcmp(json, again, len), "round trip differs:\n%s\n---\n%s", json, again);
	free(again);
	cd_results_free(&back);
	/* the compact form (schema 2, report_compact.c) loads back to the same document */
	{
		char *buf = NULL;
		size_t clen = 0;
		FILE *f = open_memstream(&buf, &clen);
		struct cd_out *o;

		FUZZ_CHECK(f != NULL, "open_memstream");
		o = out_new(OUT_FMT_JSON, f, 0);
		cd_report_compact(o, &r);
		FUZZ_CHECK(out_end(o) == 0, "rendering failed");
		fclose(f);
		FUZZ_CHECK(cd_results_load_json(&back, buf, clen, "fuzz-compact") == 0, "compact JSON does not load:\n%s",
			   buf);
		again = fuzz_render(&back, OUT_FMT_JSON, 1, &len2);
		FUZZ_CHECK(len == len2 && !memcmp(json, again, len), "compact round trip differs:\n%s\n---\n%s", json,
			   again);
		free(again);
		free(buf);
		cd_results_free(&back);
	}
	free(json);

	/* check --from: the judgement is made anew over the loaded facts */
	cd_results_clear_judgement(&r);
	cd_rules_evaluate(&r);
	text = fuzz_render(&r, OUT_FMT_TEXT, 1, &tlen);
	free(text);
	cd_results_free(&r);
	return 0;
}
