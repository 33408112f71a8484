/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang's reader of NCCL RAS status reports (text and JSON, src/core/ras.c): any
 * bytes, as a server might send them. Properties: it returns 0, or -1 with a message and an
 * empty snapshot; every rank and count it keeps names its communicator, a count group has at
 * least one rank; and the hang judge takes the snapshot, twice over, without fault.
 */
#include "fuzz.h"

#include "ras.h"
#include "rules_hang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_ras_snapshot s[2];
	struct cd_results r;
	char *err = NULL;
	int rc = cd_ras_parse(&s[0], (const char *)data, size, &err);

	FUZZ_CHECK(rc == 0 || rc == -1, "returned %d", rc);
	FUZZ_CHECK((rc == -1) == (err != NULL), "returned %d with message %s", rc, err ? err : "(none)");
	free(err);
	if (rc < 0) {
		FUZZ_CHECK(!s[0].n_ranks && !s[0].n_counts, "a refused report kept %zu ranks", s[0].n_ranks);
		return 0;
	}
	for (size_t i = 0; i < s[0].n_counts; i++)
		FUZZ_CHECK(s[0].counts[i].comm && s[0].counts[i].coll && s[0].counts[i].nranks >= 0,
			   "count %zu without its communicator", i);
	s[1] = s[0];
	cd_results_init(&r);
	cd_hang_judge(&r, s, 2, "fuzz:28028");
	for (size_t i = 0; i < r.n_findings; i++)
		FUZZ_CHECK(r.findings[i].id && !strncmp(r.findings[i].id, "HANG", 4), "finding %zu", i);
	fuzz_check_reloads(&r);
	cd_results_free(&r);
	cd_ras_snapshot_free(&s[0]);
	return 0;
}
