/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * import's nccl-tests parser (text and JSON): any bytes. Properties: it returns rows,
 * 0, or -1 with a message naming the file; every sample it makes has a size and a
 * busbw >= 0; and the document renders to JSON that the --from loader reads back.
 */
#include <math.h>

#include "fuzz.h"

#include "import_nccltests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_results r;
	char *err = NULL;
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
	fuzz_check_reloads(&r);
	cd_results_free(&r);
	return 0;
}
