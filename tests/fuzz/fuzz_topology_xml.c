/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --topology FILE.xml: hwloc parses the XML; what we fuzz is our side of it: the
 * reading and sniffing of the file (an NCCL topology file is named as such), and
 * the walk over whatever objects hwloc accepts (NUMA nodes, PCI devices, OS devices,
 * link speeds, locality), then the report of them. Property: the host is either
 * loaded (topo ok) or refused with the section in error and a reason.
 */
#include "fuzz.h"

#include <unistd.h>

#include "discover.h"
#include "out.h"
#include "report.h"
#include "results.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s", "/tmp/commdiag-fuzz-topo.XXXXXX");
	fd = mkstemp(path);
	FUZZ_CHECK(fd >= 0, "mkstemp");
	close(fd);
	return 0;
}

static void render(const struct cd_results *r, enum out_format fmt)
{
	FILE *f = fopen("/dev/null", "w");
	struct cd_out *o;

	FUZZ_CHECK(f != NULL, "/dev/null");
	o = out_new(fmt, f, 0);
	cd_report(o, r);
	out_end(o);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_discover_opts opt = { .topology_xml = path };
	struct cd_results r;
	struct cd_host *h;
	FILE *f = fopen(path, "w");
	int rc;

	FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write %s", path);
	cd_results_init(&r);
	h = cd_results_add_host(&r);
	rc = cd_topo_discover(h, &opt);
	if (rc < 0) {
		FUZZ_CHECK(h->part[CD_PART_TOPO].status == CD_ST_ERROR && h->part[CD_PART_TOPO].reason,
			   "refused without an error section");
	} else {
		FUZZ_CHECK(h->part[CD_PART_TOPO].status == CD_ST_OK, "loaded but topo is %s",
			   cd_status_str(h->part[CD_PART_TOPO].status));
		render(&r, OUT_FMT_TEXT);
		render(&r, OUT_FMT_JSON);
	}
	cd_results_free(&r);
	return 0;
}
