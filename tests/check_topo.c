/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo.c against real hwloc exports (tests/data/topo/hwloc/xml), the
 * live machine, and a fake sysfs tree (tests/data/topo/sysfs). Every expected
 * value below was read from the XML files and checked with
 * `lstopo-no-graphics -v --input FILE.xml`.
 */
#include <check.h>
#include <hwloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ck_stderr.h"
#include "discover.h"
#include "suites.h"
#include "topo.h"

#define XML(name) CD_FIXTURES "/hwloc/xml/" name
#define FAKE_SYSFS "tests/data/topo/sysfs"

static struct cd_results res;
static struct cd_host *host;

static void setup(void)
{
	cd_results_init(&res);
	host = cd_results_add_host(&res);
}

static void teardown(void)
{
	cd_results_free(&res);
	host = NULL;
}

static int replay(const char *xml)
{
	struct cd_discover_opts o = { .topology_xml = xml };

	return cd_topo_discover(host, &o);
}

static void replay_ok(const char *xml)
{
	ck_assert_int_eq(replay(xml), 0);
	ck_assert_int_eq(host->part[CD_PART_TOPO].status, CD_ST_OK);
	ck_assert_ptr_null(host->part[CD_PART_TOPO].reason);
	ck_assert_str_eq(host->topology_source, xml);
}

/* The PCI device that owns OS device `osdev` (eth0, mlx5_0, nvml3); fails the test if none. */
static struct cd_pci_device *by_osdev(const char *osdev)
{
	for (size_t i = 0; i < host->n_pci; i++)
		for (size_t j = 0; j < host->pci[i].os_devices.n; j++)
			if (!strcmp(host->pci[i].os_devices.v[j], osdev))
				return &host->pci[i];
	ck_abort_msg("no PCI device has OS device '%s'", osdev);
	return NULL;
}

static struct cd_pci_device *by_bus(const char *bus_id)
{
	for (size_t i = 0; i < host->n_pci; i++)
		if (!strcmp(host->pci[i].bus_id, bus_id))
			return &host->pci[i];
	ck_abort_msg("no PCI device '%s'", bus_id);
	return NULL;
}

static size_t count_kind(enum cd_pci_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < host->n_pci; i++)
		n += host->pci[i].kind == k;
	return n;
}

static void assert_osdevs(const struct cd_pci_device *d, size_t n, const char *const *names)
{
	ck_assert_uint_eq(d->os_devices.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(d->os_devices.v[i], names[i]);
}

static void assert_no_sysfs_link(const struct cd_pci_device *d)
{
	ck_assert(d->gen == CD_NULL_I64 && d->width == CD_NULL_I64);
	ck_assert(d->max_gen == CD_NULL_I64 && d->max_width == CD_NULL_I64);
}

/* ---- pure helpers ---- */

START_TEST(test_gen_from_speed)
{
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("2.5 GT/s"), 1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("2.5 GT/s PCIe"), 1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("5 GT/s"), 2);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("5.0 GT/s PCIe"), 2);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("8.0 GT/s PCIe"), 3);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("16.0 GT/s PCIe"), 4);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("32.0 GT/s PCIe"), 5);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("64.0 GT/s PCIe"), 6);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("Unknown"), -1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("Unknown speed"), -1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed(""), -1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed(NULL), -1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("16.0"), -1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("10 GT/s"), -1);
	ck_assert_int_eq(cd_topo_pcie_gen_from_speed("128.0 GT/s PCIe"), -1);
}
END_TEST

START_TEST(test_sysfs_link)
{
	struct cd_pci_device *d;

	d = cd_host_add_pci(host);
	d->bus_id = xstrdup("0000:3b:00.0");
	cd_topo_read_pcie_link(d, FAKE_SYSFS);
	ck_assert_int_eq(d->gen, 1);
	ck_assert_int_eq(d->width, 8);
	ck_assert_int_eq(d->max_gen, 4);
	ck_assert_int_eq(d->max_width, 16);

	d = cd_host_add_pci(host);
	d->bus_id = xstrdup("0000:34:00.0");
	cd_topo_read_pcie_link(d, FAKE_SYSFS);
	ck_assert_int_eq(d->gen, 3);
	ck_assert_int_eq(d->width, 16);
	ck_assert_int_eq(d->max_gen, 3);
	ck_assert_int_eq(d->max_width, 16);

	/* link down: "Unknown" and x0 are not facts about the link */
	d = cd_host_add_pci(host);
	d->bus_id = xstrdup("0000:5e:00.0");
	cd_topo_read_pcie_link(d, FAKE_SYSFS);
	ck_assert(d->gen == CD_NULL_I64);
	ck_assert(d->width == CD_NULL_I64);
	ck_assert_int_eq(d->max_gen, 5);
	ck_assert_int_eq(d->max_width, 16);

	d = cd_host_add_pci(host);
	d->bus_id = xstrdup("0000:af:00.0");
	cd_topo_read_pcie_link(d, FAKE_SYSFS);
	ck_assert(d->gen == CD_NULL_I64);
	ck_assert(d->width == CD_NULL_I64);
	ck_assert_int_eq(d->max_gen, 6);
	ck_assert(d->max_width == CD_NULL_I64);

	d = cd_host_add_pci(host);
	d->bus_id = xstrdup("0000:ff:1f.7");
	cd_topo_read_pcie_link(d, FAKE_SYSFS);
	assert_no_sysfs_link(d);
}
END_TEST

/* ---- replayed hwloc exports ---- */

START_TEST(test_conan_normalio)
{
	static const char *const ib[] = { "ib0", "mlx5_0" };
	static const char *const k40[] = { "cuda0", "card0" };
	const char *xml = XML("32em64t-2n8c2t-pci-normalio.xml");
	struct cd_pci_device *d;

	replay_ok(xml);
	ck_assert_str_eq(host->versions.hwloc, HWLOC_VERSION);

	ck_assert_uint_eq(host->n_numa, 2);
	ck_assert_int_eq(host->numa_nodes[0].index, 0);
	ck_assert_str_eq(host->numa_nodes[0].cpus, "0-7,16-23");
	ck_assert_int_eq(host->numa_nodes[0].memory_bytes, 34330173440LL);
	ck_assert_int_eq(host->numa_nodes[1].index, 1);
	ck_assert_str_eq(host->numa_nodes[1].cpus, "8-15,24-31");
	ck_assert_int_eq(host->numa_nodes[1].memory_bytes, 34359738368LL);

	/* 10 PCI devices; bridges are not listed */
	ck_assert_uint_eq(host->n_pci, 10);
	ck_assert_uint_eq(count_kind(CD_PCI_GPU), 4); /* 3x Tesla M2075, Radeon */
	ck_assert_uint_eq(count_kind(CD_PCI_OTHER), 1); /* the BMC's Matrox VGA is not a compute GPU */
	ck_assert_uint_eq(count_kind(CD_PCI_NIC), 2);
	ck_assert_uint_eq(count_kind(CD_PCI_HCA), 1);
	ck_assert_uint_eq(count_kind(CD_PCI_STORAGE), 2);
	ck_assert_uint_eq(count_kind(CD_PCI_BRIDGE), 0);

	d = by_osdev("mlx5_0");
	ck_assert_str_eq(d->bus_id, "0000:04:00.0");
	ck_assert_int_eq(d->kind, CD_PCI_HCA);
	ck_assert_int_eq(d->class_id, 0x0207);
	ck_assert_int_eq(d->vendor_id, 0x15b3);
	ck_assert_int_eq(d->device_id, 0x1013);
	ck_assert_str_eq(d->vendor, "Mellanox Technologies");
	ck_assert_str_eq(d->device, "MT27700 Family [ConnectX-4]");
	ck_assert_int_eq(d->numa, 1);
	assert_osdevs(d, 2, ib);
	ck_assert(isnan(d->link_gbyte_s)); /* pci_link_speed="0.000000" */
	assert_no_sysfs_link(d);

	d = by_osdev("eth0");
	ck_assert_str_eq(d->bus_id, "0000:81:00.0");
	ck_assert_int_eq(d->kind, CD_PCI_NIC);
	ck_assert_int_eq(d->class_id, 0x0200);
	ck_assert_int_eq(d->numa, 1);
	ck_assert_str_eq(d->device, "I350 Gigabit Network Connection");

	d = by_osdev("cuda0");
	ck_assert_str_eq(d->bus_id, "0000:84:00.0");
	ck_assert_int_eq(d->kind, CD_PCI_GPU);
	ck_assert_int_eq(d->class_id, 0x0302);
	ck_assert_int_eq(d->numa, 1);
	assert_osdevs(d, 2, k40);

	d = by_bus("0000:03:00.0"); /* the M2075 on the other socket */
	ck_assert_int_eq(d->kind, CD_PCI_GPU);
	ck_assert_int_eq(d->numa, 0);
	ck_assert_uint_eq(d->os_devices.n, 0);

	ck_assert_int_eq(by_osdev("sda")->kind, CD_PCI_STORAGE);
	ck_assert_str_eq(by_osdev("sda")->bus_id, "0000:00:1f.2");
}
END_TEST

/* The --whole-io export of the same machine: the import filter keeps the same 10 devices. */
START_TEST(test_conan_wholeio_filtered)
{
	replay_ok(XML("32em64t-2n8c2t-pci-wholeio.xml"));
	ck_assert_uint_eq(host->n_numa, 2);
	ck_assert_uint_eq(host->n_pci, 10);
	ck_assert_str_eq(by_osdev("mlx5_0")->bus_id, "0000:04:00.0");
	ck_assert_int_eq(by_osdev("mlx5_0")->numa, 1);
}
END_TEST

START_TEST(test_conan_noio)
{
	replay_ok(XML("32em64t-2n8c2t-pci-noio.xml"));
	ck_assert_uint_eq(host->n_numa, 2);
	ck_assert_uint_eq(host->n_pci, 0);
	ck_assert_ptr_null(host->pci);
	ck_assert_str_eq(host->numa_nodes[1].cpus, "8-15,24-31");
}
END_TEST

/* Cell (i, j) of a path matrix. */
#define GG(i, j) host->paths.gpu_gpu[(i) * host->paths.gpus.n + (j)]
#define GN(i, j) host->paths.gpu_net[(i) * host->paths.nets.n + (j)]
#define P2P(i, j) host->paths.nccl_p2p[(i) * host->paths.gpus.n + (j)]

START_TEST(test_paths_dgx2)
{
	replay_ok(XML("nvidiaDGX2.xml"));
	cd_paths_decide_p2p(host);
	ck_assert_str_eq(host->paths.source, "hwloc");
	/* 16 V100s, each with one NVLink into each of 6 NVSwitches: NV6 everywhere, as nvidia-smi */
	ck_assert_uint_eq(host->paths.gpus.n, 16);
	ck_assert_uint_eq(host->paths.nets.n, 0);
	for (size_t i = 0; i < 16; i++)
		for (size_t j = 0; j < 16; j++)
			ck_assert_str_eq(GG(i, j), i == j ? "X" : "NV6");
	ck_assert_int_eq(P2P(0, 15), CD_TRI_TRUE);
	ck_assert_int_eq(P2P(3, 3), CD_TRI_NULL);
	/* the NVSwitches are not GPUs */
	for (size_t i = 0; i < host->paths.gpus.n; i++)
		ck_assert_int_eq(by_bus(host->paths.gpus.v[i])->kind, CD_PCI_GPU);
}
END_TEST

/*
 * The per-link rate of hwloc's NVLinkBandwidth: 20000 (NVLink 1), 25000 (2 to 4),
 * and from hwloc 2.12.0 50000 for NVLink 5. Eight GPUs on NVSwitches, as hwloc
 * reports them: each GPU's 18 links into the switches.
 */
START_TEST(test_nvlink_unit)
{
	double bw[64] = { 0 }, h100[8], b200[8], b200_half[8], p100[2] = { 0 }, p100_bw[4] = { 0, 40000, 40000, 0 };

	for (int i = 0; i < 8; i++) {
		h100[i] = 18 * 25000.0;      /* H100 SXM: NV18 */
		b200[i] = 18 * 50000.0;      /* B200: NV18, not NV36 */
		b200_half[i] = 9 * 50000.0;  /* a B200 with half its links up: as much as an H100's 18 */
	}
	ck_assert_double_eq(cd_nvlink_unit(bw, h100, 8, "2.12.0", 0), 25000);
	ck_assert_double_eq(cd_nvlink_unit(bw, h100, 8, "2.11.2", 0), 25000);
	ck_assert_double_eq(cd_nvlink_unit(bw, b200, 8, "2.12.0", 0), 50000);
	ck_assert_double_eq(cd_nvlink_unit(bw, b200, 8, "3.0.0", 0), 50000);
	/* only the model tells 9 links of 50000 from 18 of 25000 */
	ck_assert_double_eq(cd_nvlink_unit(bw, b200_half, 8, "2.12.2", 1), 50000);
	ck_assert_double_eq(cd_nvlink_unit(bw, b200_half, 8, "2.12.2", 0), 25000);
	/* before 2.12 hwloc gave NVLink 5 no bandwidth: its numbers are 25000s whatever the model says */
	ck_assert_double_eq(cd_nvlink_unit(bw, b200, 8, "2.11.2", 1), 25000);
	/* a version that is not a release (the DGX-2 export's "PR-436-...") counts as an old one */
	ck_assert_double_eq(cd_nvlink_unit(bw, b200, 8, "PR-436-20201209.1647.gitfc946998", 1), 25000);
	ck_assert_double_eq(cd_nvlink_unit(p100_bw, p100, 2, "2.12.0", 0), 20000);
	ck_assert_int_eq(cd_nvlink_gen5_model("NVIDIA B200"), 1);
	ck_assert_int_eq(cd_nvlink_gen5_model("NVIDIA GB200"), 1);
	ck_assert_int_eq(cd_nvlink_gen5_model("NVIDIA H200"), 0);
	ck_assert_int_eq(cd_nvlink_gen5_model("Tesla V100-SXM3-32GB-H"), 0);
	ck_assert_int_eq(cd_nvlink_gen5_model(NULL), 0);
}
END_TEST

/*
 * fixture with every occurrence of from[k] replaced by to[k], in a temporary file whose
 * name goes to path (the caller unlinks it): a real export turned into another machine.
 */
static void rewrite_fixture(const char *fixture, const char *const *from, const char *const *to, size_t n,
			    char *path, size_t len)
{
	FILE *in = fopen(fixture, "rb"), *out;
	char *buf, *p;
	long size;
	int fd;

	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(fseek(in, 0, SEEK_END), 0);
	size = ftell(in);
	rewind(in);
	buf = calloc(1, (size_t)size + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, in), (size_t)size);
	fclose(in);
	snprintf(path, len, "%s/commdiag-topo-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	out = fdopen(fd, "wb");
	for (p = buf; *p;) {
		size_t k = 0;

		while (k < n && strncmp(p, from[k], strlen(from[k])))
			k++;
		if (k < n) {
			fputs(to[k], out);
			p += strlen(from[k]);
		} else {
			fputc(*p++, out);
		}
	}
	ck_assert_int_eq(fclose(out), 0);
	free(buf);
}

/*
 * The DGX-2 export as hwloc 2.12 would give it with NVLink 5 GPUs: 50000 MB/s per link.
 * Each GPU's six links into the switches are 300000, no more than an H100's 18 links of
 * 25000, so only the GPU model says the links are NVLink 5: NV6, not NV12.
 */
START_TEST(test_paths_nvlink5_hwloc_2_12)
{
	static const char *const from[] = { "PR-436-20201209.1647.gitfc946998", " 25000", ">25000",
					    "Tesla V100-SXM3-32GB-H" };
	static const char *const to[] = { "2.12.0", " 50000", ">50000", "NVIDIA B200" };
	char path[256];

	/* with the model renamed (4 replacements), then without (the first 3) */
	for (int model = 1; model >= 0; model--) {
		rewrite_fixture(XML("nvidiaDGX2.xml"), from, to, model ? 4 : 3, path, sizeof(path));
		ck_assert_int_eq(replay(path), 0);
		ck_assert_uint_eq(host->paths.gpus.n, 16);
		for (size_t i = 0; i < 16; i++)
			for (size_t j = 0; j < 16; j++)
				ck_assert_str_eq(GG(i, j), i == j ? "X" : model ? "NV6" : "NV12");
		unlink(path);
		teardown();
		setup();
	}
}
END_TEST

START_TEST(test_paths_power8_nvlink_pairs)
{
	replay_ok(XML("power8gpudistances.xml"));
	/* NVLink 1: 40000 MB/s is two links of 20 GB/s; the pairs sit on different sockets */
	ck_assert_uint_eq(host->paths.gpus.n, 4);
	ck_assert_str_eq(host->paths.gpus.v[0], "0002:01:00.0");
	ck_assert_str_eq(GG(0, 1), "NV2");
	ck_assert_str_eq(GG(2, 3), "NV2");
	ck_assert_str_eq(GG(0, 2), "SYS");
	ck_assert_str_eq(GG(1, 3), "SYS");
	ck_assert_str_eq(GG(3, 3), "X");

	cd_paths_decide_p2p(host);
	ck_assert_str_eq(host->paths.p2p_level, "PXB");
	ck_assert_str_eq(host->paths.p2p_level_source, "default");
	ck_assert_int_eq(P2P(0, 1), CD_TRI_TRUE);
	ck_assert_int_eq(P2P(0, 2), CD_TRI_FALSE);

	cd_host_set_env(host, "NCCL_P2P_LEVEL", "SYS");
	cd_paths_decide_p2p(host);
	ck_assert_str_eq(host->paths.p2p_level_source, "NCCL_P2P_LEVEL");
	ck_assert_int_eq(P2P(0, 2), CD_TRI_TRUE);
	cd_host_set_env(host, "NCCL_P2P_LEVEL", "3"); /* legacy integer: PHB */
	cd_paths_decide_p2p(host);
	ck_assert_int_eq(P2P(0, 2), CD_TRI_FALSE);
	ck_assert_int_eq(P2P(2, 3), CD_TRI_TRUE);
	cd_host_set_env(host, "NCCL_P2P_LEVEL", "LOC");
	cd_paths_decide_p2p(host);
	ck_assert_int_eq(P2P(0, 1), CD_TRI_FALSE);
	cd_host_set_env(host, "NCCL_P2P_LEVEL", "bogus");
	cd_paths_decide_p2p(host);
	ck_assert_str_eq(host->paths.p2p_level_source, "default (NCCL_P2P_LEVEL not understood)");
	ck_assert_int_eq(P2P(0, 1), CD_TRI_TRUE);
	cd_host_set_env(host, "NCCL_P2P_LEVEL", "SYS");
	cd_host_set_env(host, "NCCL_P2P_DISABLE", "1"); /* wins over the level */
	cd_paths_decide_p2p(host);
	ck_assert_str_eq(host->paths.p2p_level_source, "NCCL_P2P_DISABLE");
	ck_assert_int_eq(P2P(0, 1), CD_TRI_FALSE);
	ck_assert_int_eq(P2P(0, 2), CD_TRI_FALSE);
}
END_TEST

START_TEST(test_paths_conan_pcie_classes)
{
	replay_ok(XML("32em64t-2n8c2t-pci-normalio.xml"));
	/* NVIDIA GPUs only (the Radeon is not in the matrix), NICs by verbs name first */
	ck_assert_uint_eq(host->paths.gpus.n, 3);
	ck_assert_uint_eq(host->paths.nets.n, 3);
	ck_assert_str_eq(host->paths.nets.v[2], "mlx5_0");
	ck_assert_str_eq(host->paths.nets.v[0], "eth0");
	/* the K40m and the ConnectX-4 share one PCIe switch; the socket-0 GPU is SYS from everything */
	ck_assert_str_eq(GN(2, 2), "PIX");
	ck_assert_str_eq(GN(1, 2), "PHB");
	ck_assert_str_eq(GN(0, 0), "SYS");
	ck_assert_str_eq(GG(1, 2), "PHB");
	ck_assert_str_eq(GG(0, 1), "SYS");
}
END_TEST

START_TEST(test_paths_none)
{
	replay_ok(XML("32em64t-2n8c2t-pci-noio.xml"));
	cd_paths_decide_p2p(host);
	ck_assert_uint_eq(host->paths.gpus.n, 0);
	ck_assert_ptr_null(host->paths.gpu_gpu);
	ck_assert_ptr_null(host->paths.p2p_level);
}
END_TEST

START_TEST(test_path_class_rank)
{
	ck_assert_int_eq(cd_path_class_rank("X"), 0);
	ck_assert_int_eq(cd_path_class_rank("NV18"), 1);
	ck_assert_int_eq(cd_path_class_rank("PIX"), 2);
	ck_assert_int_eq(cd_path_class_rank("PXB"), 3);
	ck_assert_int_eq(cd_path_class_rank("PHB"), 4);
	ck_assert_int_eq(cd_path_class_rank("NODE"), 4);
	ck_assert_int_eq(cd_path_class_rank("SYS"), 5);
	ck_assert_int_eq(cd_path_class_rank("NV"), -1);
	ck_assert_int_eq(cd_path_class_rank("NVX"), -1);
	ck_assert_int_eq(cd_path_class_rank(NULL), -1);
	ck_assert_int_eq(cd_path_class_rank("weird"), -1);
}
END_TEST

START_TEST(test_acs)
{
	static const char *const bus[] = { "0000:16:02.0", "0000:16:04.0", "0000:16:05.0", "0000:16:03.0",
					   "0000:16:09.0" };
	unsigned char cfg[300] = { 0 };
	unsigned ctrl = 0;

	for (size_t i = 0; i < 5; i++)
		cd_topo_read_acs(host, bus[i], FAKE_SYSFS);
	ck_assert_uint_eq(host->n_acs, 5);
	ck_assert_int_eq(host->acs[0].ctrl, 0x001d);
	ck_assert_int_eq(host->acs[0].redirect, CD_TRI_TRUE);
	ck_assert_ptr_null(host->acs[0].reason);
	ck_assert_int_eq(host->acs[1].ctrl, 0x0001);
	ck_assert_int_eq(host->acs[1].redirect, CD_TRI_FALSE);
	ck_assert_int_eq(host->acs[2].redirect, CD_TRI_FALSE);
	ck_assert_str_eq(host->acs[2].reason, "no ACS capability");
	/* unreadable is null with the reason, never a guess */
	ck_assert_int_eq(host->acs[3].redirect, CD_TRI_NULL);
	ck_assert_int_eq(host->acs[3].ctrl, CD_NULL_I64);
	ck_assert_str_eq(host->acs[3].reason, "only 64 bytes of PCI config space readable: run as root to read ACS");
	ck_assert_int_eq(host->acs[4].redirect, CD_TRI_NULL);
	ck_assert_msg(strstr(host->acs[4].reason, "No such file") != NULL, "%s", host->acs[4].reason);

	/* a capability list that loops or points backwards ends */
	cfg[0x100] = 0x01;
	cfg[0x103] = 0x10; /* next = 0x100: itself */
	ck_assert_int_eq(cd_pci_acs_ctrl(cfg, sizeof(cfg), &ctrl), 0);
	cfg[0x103] = 0x00;
	cfg[0x102] = 0x80; /* next = 0x008, inside the legacy space */
	ck_assert_int_eq(cd_pci_acs_ctrl(cfg, sizeof(cfg), &ctrl), 0);
	ck_assert_int_eq(cd_pci_acs_ctrl(cfg, 100, &ctrl), -1);
}
END_TEST

START_TEST(test_dgx2)
{
	static const struct { const char *osdev, *bus_id; int numa; } gpus[] = {
		{ "nvml0", "0000:34:00.0", 0 },
		{ "nvml3", "0000:3b:00.0", 0 },
		{ "nvml7", "0000:5e:00.0", 0 },
		{ "nvml8", "0000:b7:00.0", 1 },
		{ "nvml15", "0000:e7:00.0", 1 },
	};
	/* replay never reads sysfs, even where a sysfs_root holds this very bus id */
	struct cd_discover_opts o = { .topology_xml = XML("nvidiaDGX2.xml"), .sysfs_root = FAKE_SYSFS };
	size_t n0 = 0, n1 = 0;

	ck_assert_int_eq(cd_topo_discover(host, &o), 0);
	ck_assert_int_eq(host->part[CD_PART_TOPO].status, CD_ST_OK);

	ck_assert_uint_eq(host->n_numa, 2);
	ck_assert_str_eq(host->numa_nodes[0].cpus, "0-1");
	ck_assert_str_eq(host->numa_nodes[1].cpus, "24-25");
	ck_assert_int_eq(host->numa_nodes[0].memory_bytes, 810234351616LL);

	ck_assert_uint_eq(host->n_pci, 28);
	ck_assert_uint_eq(count_kind(CD_PCI_GPU), 16);
	ck_assert_uint_eq(count_kind(CD_PCI_OTHER), 12); /* NVSwitches */
	ck_assert_uint_eq(count_kind(CD_PCI_NIC) + count_kind(CD_PCI_HCA), 0);
	for (size_t i = 0; i < host->n_pci; i++) {
		const struct cd_pci_device *d = &host->pci[i];

		if (d->kind != CD_PCI_GPU)
			continue;
		ck_assert_int_eq(d->vendor_id, 0x10de);
		ck_assert_int_eq(d->device_id, 0x1db8); /* V100-SXM3-32GB-H */
		ck_assert_int_eq(d->class_id, 0x0302);
		ck_assert_double_eq_tol(d->link_gbyte_s, 15.753846, 1e-5); /* gen3 x16 */
		ck_assert_ptr_null(d->vendor); /* the export has no PCIVendor infos */
		ck_assert_ptr_null(d->device);
		ck_assert_uint_eq(d->os_devices.n, 1);
		assert_no_sysfs_link(d);
		n0 += d->numa == 0;
		n1 += d->numa == 1;
	}
	ck_assert_uint_eq(n0, 8);
	ck_assert_uint_eq(n1, 8);
	for (size_t i = 0; i < ARRAY_SIZE(gpus); i++) {
		struct cd_pci_device *d = by_osdev(gpus[i].osdev);

		ck_assert_str_eq(d->bus_id, gpus[i].bus_id);
		ck_assert_int_eq(d->numa, gpus[i].numa);
		ck_assert_str_eq(d->os_devices.v[0], gpus[i].osdev);
	}
	ck_assert_int_eq(by_bus("0000:61:00.0")->class_id, 0x0680);
	ck_assert_int_eq(by_bus("0000:c7:00.0")->numa, 1);
}
END_TEST

START_TEST(test_mirage_mlx4)
{
	static const char *const hca[] = { "eth2", "ib0", "mlx4_0" };
	struct cd_pci_device *d;

	replay_ok(XML("24em64t-2n6c2t-pci.xml"));
	ck_assert_uint_eq(host->n_numa, 2);
	ck_assert_str_eq(host->numa_nodes[0].cpus, "0,2,4,6,8,10,12,14,16,18,20,22");
	ck_assert_str_eq(host->numa_nodes[1].cpus, "1,3,5,7,9,11,13,15,17,19,21,23");
	ck_assert_uint_eq(host->n_pci, 9);

	d = by_osdev("mlx4_0");
	ck_assert_str_eq(d->bus_id, "0000:05:00.0");
	ck_assert_int_eq(d->class_id, 0x0c06); /* serial bus controller: InfiniBand */
	ck_assert_int_eq(d->kind, CD_PCI_HCA);
	ck_assert_int_eq(d->device_id, 0x6746);
	ck_assert_int_eq(d->numa, 0);
	ck_assert_str_eq(d->vendor, "Mellanox Technologies");
	ck_assert_ptr_null(d->device);
	ck_assert_double_eq_tol(d->link_gbyte_s, 2.0, 1e-6);
	assert_osdevs(d, 3, hca);

	/* the Fermi GPUs: PCI only, no CUDA/NVML OS devices; two on the second node */
	ck_assert_uint_eq(count_kind(CD_PCI_GPU), 4); /* 3x 10de:06d2 + the ES1000 VGA */
	ck_assert_int_eq(by_bus("0000:06:00.0")->numa, 0);
	ck_assert_int_eq(by_bus("0000:14:00.0")->numa, 1);
	ck_assert_int_eq(by_bus("0000:11:00.0")->numa, 1);
	ck_assert_int_eq(by_bus("0000:11:00.0")->device_id, 0x06d2);
}
END_TEST

START_TEST(test_uv2000_24_nodes)
{
	static const char *const hca[] = { "ib0", "mlx4_0" };
	struct cd_pci_device *d;

	replay_ok(XML("192em64t-12gr2n8c2t.xml"));
	ck_assert_uint_eq(host->n_numa, 24);
	for (size_t i = 0; i < host->n_numa; i++)
		ck_assert_int_eq(host->numa_nodes[i].index, (int64_t)i);
	ck_assert_str_eq(host->numa_nodes[0].cpus, "0-7,192-199");
	ck_assert_str_eq(host->numa_nodes[23].cpus, "184-191,376-383");
	ck_assert_int_eq(host->numa_nodes[23].memory_bytes, 33269219328LL);
	ck_assert_uint_eq(host->n_pci, 12);

	/* ConnectX-3 reports class 0x0280 (network, other): an HCA by its verbs device */
	d = by_osdev("mlx4_0");
	ck_assert_str_eq(d->bus_id, "0003:01:00.0");
	ck_assert_int_eq(d->class_id, 0x0280);
	ck_assert_int_eq(d->kind, CD_PCI_HCA);
	ck_assert_int_eq(d->numa, 6);
	assert_osdevs(d, 2, hca);

	ck_assert_str_eq(by_osdev("eth2")->bus_id, "0002:03:00.0");
	ck_assert_int_eq(by_osdev("eth2")->numa, 4);
	ck_assert_int_eq(by_osdev("eth0")->numa, 0);
	ck_assert_int_eq(by_osdev("sdb")->numa, 1);
	ck_assert_int_eq(by_bus("0004:01:00.0")->numa, 8);
}
END_TEST

START_TEST(test_bertha_eth_placement)
{
	static const struct { const char *eth, *bus_id; int numa; } eths[] = {
		{ "eth0", "0000:02:00.0", 0 }, { "eth1", "0000:02:00.1", 0 },
		{ "eth2", "0000:32:00.0", 1 }, { "eth3", "0000:32:00.1", 1 },
		{ "eth4", "0000:62:00.0", 2 }, { "eth5", "0000:62:00.1", 2 },
		{ "eth6", "0000:92:00.0", 3 }, { "eth7", "0000:92:00.1", 3 },
	};

	replay_ok(XML("96em64t-4n4d3ca2co-pci.xml"));
	ck_assert_uint_eq(host->n_numa, 4);
	ck_assert_str_eq(host->numa_nodes[3].cpus, "72-95");
	ck_assert_uint_eq(host->n_pci, 14);
	ck_assert_uint_eq(count_kind(CD_PCI_NIC), 8);
	ck_assert_uint_eq(count_kind(CD_PCI_HCA), 0);
	for (size_t i = 0; i < ARRAY_SIZE(eths); i++) {
		struct cd_pci_device *d = by_osdev(eths[i].eth);

		ck_assert_str_eq(d->bus_id, eths[i].bus_id);
		ck_assert_int_eq(d->numa, eths[i].numa);
		ck_assert_int_eq(d->kind, CD_PCI_NIC);
		ck_assert_int_eq(d->vendor_id, 0x14e4);
		ck_assert_int_eq(d->device_id, 0x1639);
	}
}
END_TEST

START_TEST(test_usnic_vfs)
{
	replay_ok(XML("16intel64-manyVFs.xml"));
	ck_assert_uint_eq(host->n_pci, 18);
	/* a VIC Ethernet function with a usNIC verbs device counts as an HCA */
	ck_assert_str_eq(by_osdev("usnic_0")->bus_id, "0000:0b:00.0");
	ck_assert_int_eq(by_osdev("usnic_0")->kind, CD_PCI_HCA);
	ck_assert_int_eq(by_osdev("usnic_2")->numa, 1);
	ck_assert_uint_eq(count_kind(CD_PCI_HCA), 3);
	ck_assert_int_eq(by_osdev("eth7")->kind, CD_PCI_NIC);
	ck_assert_str_eq(by_osdev("eth7")->bus_id, "0000:89:00.0");
	ck_assert_int_eq(by_osdev("eth7")->numa, 1);
	ck_assert_uint_eq(by_bus("0000:0c:00.4")->os_devices.n, 0);
}
END_TEST

START_TEST(test_power8_domains)
{
	static const char *const g2[] = { "cuda2", "opencl0d2", "nvml2" };
	struct cd_pci_device *d;

	replay_ok(XML("power8gpudistances.xml"));
	ck_assert_uint_eq(host->n_numa, 2);
	ck_assert_int_eq(host->numa_nodes[1].index, 1);
	ck_assert_str_eq(host->numa_nodes[1].cpus, "80-81,88-89,96-97,104-105");
	ck_assert_uint_eq(host->n_pci, 4);
	d = by_osdev("nvml2");
	ck_assert_str_eq(d->bus_id, "000a:01:00.0");
	ck_assert_int_eq(d->numa, 1);
	ck_assert_int_eq(d->device_id, 0x15f9);
	assert_osdevs(d, 3, g2);
	ck_assert_int_eq(by_osdev("cuda1")->numa, 0);
}
END_TEST

/* ---- input errors: -1, one message, the section says why ---- */

static int replay_path(const void *xml)
{
	return replay(xml);
}

static char *capture_stderr_of(const char *xml, int *rc)
{
	return ck_stderr_of(replay_path, xml, rc);
}

START_TEST(test_missing_file)
{
	const char *xml = "tests/data/topo/no-such-file.xml";
	int rc;
	char *msg = capture_stderr_of(xml, &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(msg, "commdiag: topo: cannot load topology "
		"'tests/data/topo/no-such-file.xml': No such file or directory\n");
	free(msg);
	ck_assert_int_eq(host->part[CD_PART_TOPO].status, CD_ST_ERROR);
	ck_assert_ptr_nonnull(strstr(host->part[CD_PART_TOPO].reason, "No such file or directory"));
	ck_assert_ptr_null(host->topology_source);
	ck_assert_uint_eq(host->n_numa + host->n_pci, 0);
}
END_TEST

static void reject_text(const char *text, const char *expect)
{
	char path[] = "/tmp/check_topo_xml.XXXXXX";
	int fd = mkstemp(path), rc;
	char *msg;

	ck_assert(fd >= 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	msg = capture_stderr_of(path, &rc);
	unlink(path);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(msg, expect), "message '%s' lacks '%s'", msg, expect);
	ck_assert_msg(!strncmp(msg, "commdiag: topo: cannot load topology '/tmp/check_topo_xml.", 58),
		      "message '%s'", msg);
	/* one line: hwloc printed nothing of its own */
	ck_assert_ptr_eq(strchr(msg, '\n'), msg + strlen(msg) - 1);
	free(msg);
	ck_assert_int_eq(host->part[CD_PART_TOPO].status, CD_ST_ERROR);
	ck_assert_uint_eq(host->n_numa + host->n_pci, 0);
}

START_TEST(test_not_xml)
{
	reject_text("this is not XML\n\x01\x02\xff", "not a valid hwloc XML topology");
}
END_TEST

START_TEST(test_empty_file)
{
	reject_text("", "empty file");
}
END_TEST

START_TEST(test_truncated_xml)
{
	reject_text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<topology version=\"2.0\">\n"
		    "  <object type=\"Machine\" os_index=\"0\"", "not a valid hwloc XML topology");
}
END_TEST

START_TEST(test_nccl_topo_file)
{
	int rc;
	char *msg = capture_stderr_of(CD_FIXTURES "/nccl-topo/azhpc-images-ndv2-topo.xml", &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_ptr_nonnull(strstr(msg, "an NCCL topology file (NCCL_TOPO_FILE)"));
	free(msg);
}
END_TEST

/*
 * Found by tests/fuzz/fuzz_topology_xml: hwloc 2.9 dereferences NULL on an object with
 * a cpuset but no complete_cpuset (hwloc#783). The file is tried in a child first, so
 * we refuse it instead of crashing, and this process is still here to say so.
 */
START_TEST(test_xml_that_crashes_hwloc)
{
	int rc;
	char *msg = capture_stderr_of("tests/bad_inputs/hwloc-crash.xml", &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(msg, "commdiag: topo: cannot load topology 'tests/bad_inputs/hwloc-crash.xml': "
			      "hwloc crashed reading it (Segmentation fault): not a valid hwloc XML topology\n");
	free(msg);
}
END_TEST

START_TEST(test_directory)
{
	int rc;
	char *msg = capture_stderr_of("tests/data/topo", &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(msg, "commdiag: topo: cannot load topology 'tests/data/topo': Is a directory\n");
	free(msg);
}
END_TEST

/* ---- this machine ---- */

START_TEST(test_live)
{
	struct cd_discover_opts o = { 0 };
	size_t with_cpus = 0;

	ck_assert_int_eq(cd_topo_discover(host, &o), 0);
	ck_assert_int_eq(host->part[CD_PART_TOPO].status, CD_ST_OK);
	ck_assert_str_eq(host->topology_source, "live");
	ck_assert_str_eq(host->versions.hwloc, HWLOC_VERSION);
	ck_assert_uint_ge(host->n_numa, 1);
	for (size_t i = 0; i < host->n_numa; i++) {
		ck_assert_ptr_nonnull(host->numa_nodes[i].cpus);
		with_cpus += host->numa_nodes[i].cpus[0] != '\0';
		if (i)
			ck_assert_int_gt(host->numa_nodes[i].index, host->numa_nodes[i - 1].index);
	}
	ck_assert_uint_ge(with_cpus, 1);
	if (access("/sys/devices/system/node/node1", F_OK) != 0)
		ck_assert_uint_eq(host->n_numa, 1);
	for (size_t i = 0; i < host->n_pci; i++) {
		const struct cd_pci_device *d = &host->pci[i];
		char dir[128];

		ck_assert_uint_eq(strlen(d->bus_id), 12);
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", d->bus_id);
		ck_assert_msg(access(dir, F_OK) == 0, "'%s' not in sysfs", d->bus_id);
		ck_assert(d->class_id != CD_NULL_I64 && d->vendor_id != CD_NULL_I64);
	}
}
END_TEST

Suite *topo_suite(void); /* suites.h declares none; check_main.c finds it by name */

Suite *topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc;

	tc = tcase_create("helpers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_gen_from_speed);
	tcase_add_test(tc, test_sysfs_link);
	suite_add_tcase(s, tc);

	tc = tcase_create("replay");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_conan_normalio);
	tcase_add_test(tc, test_conan_wholeio_filtered);
	tcase_add_test(tc, test_conan_noio);
	tcase_add_test(tc, test_dgx2);
	tcase_add_test(tc, test_mirage_mlx4);
	tcase_add_test(tc, test_uv2000_24_nodes);
	tcase_add_test(tc, test_bertha_eth_placement);
	tcase_add_test(tc, test_usnic_vfs);
	tcase_add_test(tc, test_power8_domains);
	tcase_add_test(tc, test_paths_dgx2);
	tcase_add_test(tc, test_paths_power8_nvlink_pairs);
	tcase_add_test(tc, test_nvlink_unit);
	tcase_add_test(tc, test_paths_nvlink5_hwloc_2_12);
	tcase_add_test(tc, test_paths_conan_pcie_classes);
	tcase_add_test(tc, test_paths_none);
	tcase_add_test(tc, test_path_class_rank);
	tcase_add_test(tc, test_acs);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_not_xml);
	tcase_add_test(tc, test_empty_file);
	tcase_add_test(tc, test_truncated_xml);
	tcase_add_test(tc, test_nccl_topo_file);
	tcase_add_test(tc, test_directory);
	tcase_add_test(tc, test_xml_that_crashes_hwloc);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_live);
	suite_add_tcase(s, tc);
	return s;
}
