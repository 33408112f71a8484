/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A generic reading of "this line reports an error", for the log no catalogue entry and no
 * reader explains (issue 17: "cannot explain" must still point at the line that matters).
 * The markers are the forms the libraries print their own errors in, not words of prose:
 * NCCL's "NCCL WARN", UCX's "UCX  ERROR", libfabric's "<error>" (its "<warn>" lines are
 * routine), MPICH's and Cray MPICH's "Fatal error in" and "MPICH ERROR", Open MPI's "*** An
 * error occurred in" and "OPAL ERROR", PMIx's "PMIX ERROR", Slurm's "srun: error:", the
 * loader's "error while loading shared libraries" and "undefined symbol", a signal
 * ("Segmentation fault", "Caught signal", "Bus error"), a C++ exception escaping, an
 * assertion, and a Python exception line ("ValueError: …" at the start of the line).
 */
#include <ctype.h>
#include <string.h>

#include "explain_errline.h"

static const char *const markers[] = {
	"NCCL WARN",       "UCX  ERROR",     "UCX ERROR",       "<error>",       "Fatal error in",
	"MPICH ERROR",     "OPAL ERROR",     "PMIX ERROR",      "ORTE_ERROR",    "*** An error occurred in",
	"srun: error:",    "srun: fatal:",   "slurmstepd: error:", "error while loading shared libraries",
	"undefined symbol", "Segmentation fault", "Caught signal", "Bus error", "Aborted (core dumped)",
	"terminate called after throwing", "ASSERT", "Assertion failed", "Abort(",
};

/* "ValueError: host not found", "torch.distributed.DistNetworkError: …" at the line's start */
static int python_exception(const char *line)
{
	const char *p = line, *colon;

	while (*p == ' ' || *p == '\t')
		p++;
	colon = strstr(p, ": ");
	if (!colon || colon == p)
		return 0;
	for (const char *q = p; q < colon; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && *q != '.')
			return 0;
	return (colon - p >= 5 && !strncmp(colon - 5, "Error", 5)) ||
	       (colon - p >= 9 && !strncmp(colon - 9, "Exception", 9));
}

int cd_error_line(const char *line)
{
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (strstr(line, markers[i]))
			return 1;
	return python_exception(line);
}

/*
 * The forms each library's own lines take (its log prefix, its function and component name
 * prefixes, its result names), most specific first: PyTorch's "NCCL error in:" is the NCCL
 * backend's, so NCCL comes before PyTorch; aws-ofi-nccl's "NET/OFI" lines are libfabric's
 * errors relayed through NCCL; libcxi's "cxil_" calls (HPE Slingshot) are the CXI provider's.
 */
static const struct {
	const char *key;
	const char *marks[12];
} libraries[] = {
	{ "ofi", { "libfabric", "NET/OFI", "fi_getinfo", "fi_av_", "fi_mr_reg", "fi_cq_", "FI_PROVIDER", "cxil_" } },
	{ "nccl", { "NCCL", "nccl" } },
	{ "torch", { "torch", "c10d", "ProcessGroup", "TCPStore", "DistBackendError", "DistNetworkError", "DistStoreError",
		     "Gloo", "gloo" } },
	{ "ucx", { "UCX ", "UCX_", "ucp_", "uct_", "ucs_" } },
	{ "ompi", { "Open MPI", "OPAL ERROR", "ORTE", "PRTE", "OMPI", "ompi_", "opal_", "mca_", "orted", "btl_", "pml_" } },
	{ "mpich", { "Fatal error in", "MPICH", "MPIR_", "MPID_", "MPIDI_", "HYD_", "HYDU_", "hydra" } },
	{ "slurm", { "srun:", "slurmstepd:", "sbatch:", "salloc:" } },
};

const char *cd_error_library(const char *line)
{
	for (size_t i = 0; i < sizeof(libraries) / sizeof(libraries[0]); i++)
		for (size_t k = 0; k < sizeof(libraries[i].marks) / sizeof(libraries[i].marks[0]) && libraries[i].marks[k]; k++)
			if (strstr(line, libraries[i].marks[k]))
				return libraries[i].key;
	return NULL;
}
