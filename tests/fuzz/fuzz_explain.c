/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's log parser (NCCL, PyTorch, Open MPI lines): any bytes. Properties: the
 * document it builds renders to JSON that the --from loader reads back.
 */
#include "fuzz.h"

#include "explain.h"
#include "out.h"
#include "report.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_results r, back;
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	struct cd_out *o;

	cd_results_init(&r);
	cd_explain_parse(&r, (const char *)data, size, "fuzz.log");
	o = out_new(OUT_FMT_JSON, f, 0);
	cd_report(o, &r);
	FUZZ_CHECK(out_end(o) == 0, "rendering failed");
	fclose(f);
	FUZZ_CHECK(cd_results_load_json(&back, json, len, "rendered") == 0, "its own JSON does not load: %.200s", json);
	cd_results_free(&back);
	cd_results_free(&r);
	free(json);
	return 0;
}
