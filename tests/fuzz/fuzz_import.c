/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * import's nccl-tests parser (text and JSON): any bytes. Properties: it returns rows,
 * 0, or -1 with a message naming the file; every sample it makes has a size and a
 * busbw >= 0; and the document renders to JSON that the --from loader reads back.
 */
#include <math.h>

#include "fuzz.h"

#include "import_nccltests.h"
#include "out.h"
#include "report.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_results r, back;
	char *json = NULL, *err = NULL;
	size_t len = 0;
	FILE *f;
	struct cd_out *o;
	int n;

	cd_results_init(&r);
	n = cd_import_nccltests(&r, (const char *)data, size, "fuzz.log", size % 2 ? "all_reduce" : NULL, &err);
	FUZZ_CHECK(n >= -1, "returned %d", n);
	FUZZ_CHECK((n == -1) == (err != NULL), "returned %d with message %s", n, err ? err : "(none)");
	FUZZ_CHECK(!err || !strncmp(err, "fuzz.log", 8), "message does not name the file: %s", err);
	for (size_t i = 0; i < r.n_probes; i++)
		for (size_t k = 0; k < r.probes[i].n_samples; k++) {
			const struct cd_probe_sample *s = &r.probes[i].samples[k];

			FUZZ_CHECK(s->bytes >= 0 && s->busbw_gbyte_s >= 0 && !isnan(s->busbw_gbyte_s),
				   "sample %zu of probe %zu: bytes %lld busbw %g", k, i, (long long)s->bytes,
				   s->busbw_gbyte_s);
		}
	free(err);
	f = open_memstream(&json, &len);
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
