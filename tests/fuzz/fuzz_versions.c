/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's version table (rules/versions.catalog, or the file COMMDIAG_VERSIONS names): any
 * bytes. Properties: it is refused or every row has a source and fields in range, and the
 * lookups over what was accepted answer consistently.
 */
#include "fuzz.h"

#include "explain_versions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_vers_db db;

	if (cd_vers_parse(&db, (const char *)data, size, "fuzz.catalog") < 0) {
		FUZZ_CHECK(db.n == 0 && db.v == NULL, "a refused table kept %zu rows", db.n);
		return 0;
	}
	FUZZ_CHECK(db.n > 0, "an accepted table without rows");
	for (size_t i = 0; i < db.n; i++) {
		const struct cd_vers_row *r = &db.v[i];

		FUZZ_CHECK(r->source && *r->source && r->line > 0, "row %zu without a source or line", i);
		if (r->kind == CD_VERS_BUILD) {
			FUZZ_CHECK(r->first <= r->last && r->n_sm > 0 && r->n_sm <= CD_VERS_MAX_SM, "line %d: range or list", r->line);
			FUZZ_CHECK(r->cuda_below < 0 || r->cuda_below > r->cuda_from, "line %d: CUDA range", r->line);
			FUZZ_CHECK(cd_vers_build(&db, r->first, r->cuda_from) != NULL, "line %d: its own build not found", r->line);
			/* a row has machine code for its own targets, so some release is found for them */
			for (int k = 0; k < r->n_sm; k++) {
				FUZZ_CHECK(cd_vers_runs_on(r, r->sm[k]) == 2, "line %d: sm_%d not run by its own row", r->line, r->sm[k]);
				FUZZ_CHECK(cd_vers_first_for(&db, r->sm[k]) && cd_vers_last_for(&db, r->sm[k]), "line %d: no release for sm_%d", r->line, r->sm[k]);
			}
		} else if (r->kind == CD_VERS_CUDA_DRIVER) {
			FUZZ_CHECK(cd_vers_cuda_driver(&db, r->major) != NULL, "line %d: CUDA %d not found", r->line, r->major);
			FUZZ_CHECK(cd_vers_driver_cmp(r->min_driver, r->min_driver) == 0, "line %d: %s differs from itself", r->line, r->min_driver);
		}
	}
	cd_vers_free(&db);
	return 0;
}
