/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commdiag hang's reader of PyTorch Flight Recorder dumps (src/core/fr.c: torch's pickle,
 * Python's, and JSON) and the judge over them (src/judge/rules_fr.c): any bytes, cut at each
 * "\nFRSPLIT\n" into up to four dumps, ranks 0 to 3, as four files of a job. Properties: a
 * dump is read (0) or refused (-1 with a message, nothing kept); every entry names its
 * process group and has a sequence id; every group's ranks are bounded; the judge makes only
 * HANG006–HANG009 findings, and the document renders to JSON the --from loader reads back.
 */
#include "fuzz.h"

#include "fr.h"
#include "rules_hang.h"

#define SPLIT "\nFRSPLIT\n"
#define MAX_DUMPS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_fr_dump d[MAX_DUMPS];
	struct cd_results r;
	size_t n = 0, at = 0;

	while (n < MAX_DUMPS && at <= size) {
		const uint8_t *end = n + 1 < MAX_DUMPS ? memmem(data + at, size - at, SPLIT, strlen(SPLIT)) : NULL;
		size_t len = end ? (size_t)(end - (data + at)) : size - at;
		char name[32], *err = NULL;
		int rc;

		snprintf(name, sizeof(name), "fuzz/nccl_trace_rank_%zu", n);
		rc = cd_fr_parse(&d[n], name, data + at, len, &err);
		FUZZ_CHECK(rc == 0 || rc == -1, "returned %d", rc);
		FUZZ_CHECK((rc == -1) == (err != NULL), "returned %d with message %s", rc, err ? err : "(none)");
		if (rc == 0) {
			FUZZ_CHECK(d[n].rank == (long)n && d[n].version, "dump %zu: rank %ld", n, d[n].rank);
			for (size_t i = 0; i < d[n].n_entries; i++)
				FUZZ_CHECK(d[n].entries[i].pg_name && d[n].entries[i].coll_seq >= 0, "entry %zu", i);
			for (size_t i = 0; i < d[n].n_pgs; i++)
				FUZZ_CHECK(d[n].pgs[i].name && d[n].pgs[i].n_ranks <= CD_FR_MAX_RANKS, "group %zu", i);
			n++;
		} else {
			FUZZ_CHECK(!d[n].entries && !d[n].pgs && !d[n].version, "a refused dump kept its data");
			free(err);
		}
		if (!end)
			break;
		at += len + strlen(SPLIT);
	}
	cd_results_init(&r);
	cd_fr_judge(&r, d, n);
	for (size_t i = 0; i < r.n_findings; i++)
		FUZZ_CHECK(!strncmp(r.findings[i].id, "HANG00", 6) && r.findings[i].id[6] >= '6', "finding %s",
			   r.findings[i].id);
	fuzz_check_reloads(&r);
	cd_results_free(&r);
	for (size_t i = 0; i < n; i++)
		cd_fr_dump_free(&d[i]);
	return 0;
}
