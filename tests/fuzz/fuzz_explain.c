/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's log parser (NCCL, PyTorch, Open MPI lines): any bytes. Properties: the
 * document it builds renders to JSON that the --from loader reads back.
 */
#include "fuzz.h"

#include "explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_results r;

	cd_results_init(&r);
	cd_explain_parse(&r, (const char *)data, size, "fuzz.log");
	fuzz_check_reloads(&r);
	cd_results_free(&r);
	return 0;
}
