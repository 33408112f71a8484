/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "discover.h"
#include "fault.h"
#include "gpu.h"
#include "suites.h"

static struct cd_pci_device *pci(struct cd_host *h, const char *bus, int64_t numa, const char *osdev)
{
	struct cd_pci_device *d = cd_host_add_pci(h);

	d->bus_id = xstrdup(bus);
	d->numa = numa;
	if (osdev)
		cd_strv_push(&d->os_devices, osdev);
	return d;
}

START_TEST(test_join_by_bus_id)
{
	struct cd_results r;
	struct cd_host *h;
	struct cd_nic *n;
	struct cd_gpu *g;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	pci(h, "0000:3b:00.0", 1, NULL);
	pci(h, "0000:19:00.0", 0, NULL);
	n = cd_host_add_nic(h);
	n->name = xstrdup("ens1f0");
	n->bus_id = xstrdup("0000:3B:00.0"); /* case differs between sources */
	g = cd_host_add_gpu(h);
	g->bus_id = xstrdup("0000:19:00.0");
	cd_discover_join(h);
	ck_assert_int_eq(h->nics[0].numa, 1);
	ck_assert_int_eq(h->gpus[0].numa, 0);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_join_by_os_device_name)
{
	struct cd_results r;
	struct cd_host *h;
	struct cd_nic *n;
	struct cd_hca *c;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	pci(h, "0000:00:03.0", 0, "eth0");
	pci(h, "0000:81:00.0", 1, "mlx5_0");
	n = cd_host_add_nic(h); /* virtio: sysfs gives no PCI address */
	n->name = xstrdup("eth0");
	c = cd_host_add_hca(h);
	c->name = xstrdup("mlx5_0");
	n = cd_host_add_nic(h);
	n->name = xstrdup("docker0");
	cd_discover_join(h);
	ck_assert_str_eq(h->nics[0].bus_id, "0000:00:03.0");
	ck_assert_int_eq(h->nics[0].numa, 0);
	ck_assert_str_eq(h->hcas[0].bus_id, "0000:81:00.0");
	ck_assert_int_eq(h->hcas[0].numa, 1);
	ck_assert_ptr_null(h->nics[1].bus_id);
	ck_assert_int_eq(h->nics[1].numa, CD_NULL_I64);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_join_keeps_sysfs_numa)
{
	struct cd_results r;
	struct cd_host *h;
	struct cd_nic *n;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	pci(h, "0000:3b:00.0", 1, "eth0");
	n = cd_host_add_nic(h);
	n->name = xstrdup("eth0");
	n->bus_id = xstrdup("0000:3b:00.0");
	n->numa = 0; /* what sysfs said wins */
	cd_discover_join(h);
	ck_assert_int_eq(h->nics[0].numa, 0);
	cd_results_free(&r);
}
END_TEST

static struct cd_gpu *gpu_at(struct cd_host *h, int index, const char *bus)
{
	struct cd_gpu *g = cd_host_add_gpu(h);

	g->index = index;
	g->bus_id = strdup(bus);
	return g;
}

static void nvlinks(struct cd_gpu *g, int n, const char *remote, const char *kind)
{
	for (int i = 0; i < n; i++) {
		struct cd_nvlink *l = cd_gpu_add_nvlink(g);

		l->link = (int64_t)g->n_nvlinks - 1;
		l->up = CD_TRI_TRUE;
		l->remote_bus_id = strdup(remote);
		l->remote_kind = strdup(kind);
	}
}

/* A host whose PCI tree and NVLink distances come from the POWER8 4×P100 export. */
static struct cd_host *power8_host(struct cd_results *r)
{
	struct cd_discover_opts o = { .topology_xml = CD_FIXTURES "/hwloc/xml/power8gpudistances.xml" };
	struct cd_host *h;

	cd_results_init(r);
	h = cd_results_add_host(r);
	ck_assert_int_eq(cd_topo_discover(h, &o), 0);
	return h;
}

#define GG(h, i, j) (h)->paths.gpu_gpu[(i) * (h)->paths.gpus.n + (j)]

/* The driver numbers GPUs its own way: the matrix follows it, and NVML's NVLinks refine it. */
START_TEST(test_join_paths_follow_driver_order)
{
	struct cd_results r;
	struct cd_host *h = power8_host(&r);

	/* hwloc's order: 0002, 0003, 000a, 000b; the driver's: 0003 first, NVML-style 8-digit domains */
	gpu_at(h, 0, "00000003:01:00.0");
	gpu_at(h, 1, "00000002:01:00.0");
	gpu_at(h, 2, "0000000a:01:00.0");
	gpu_at(h, 3, "0000000b:01:00.0");
	nvlinks(&h->gpus[2], 3, "0000000b:01:00.0", "gpu");
	cd_discover_join(h);
	ck_assert_str_eq(h->paths.gpus.v[0], "0003:01:00.0");
	ck_assert_str_eq(h->paths.gpus.v[1], "0002:01:00.0");
	ck_assert_str_eq(GG(h, 0, 1), "NV2");
	ck_assert_str_eq(GG(h, 0, 2), "SYS");
	ck_assert_str_eq(GG(h, 1, 1), "X");
	/* NVML counted three links from GPU2 to GPU3 where hwloc's export said two */
	ck_assert_str_eq(GG(h, 2, 3), "NV3");
	ck_assert_str_eq(h->paths.source, "hwloc+nvml");
	cd_results_free(&r);
}
END_TEST

START_TEST(test_join_paths_nvswitch)
{
	struct cd_results r;
	struct cd_host *h = power8_host(&r);

	nvlinks(gpu_at(h, 0, "0002:01:00.0"), 4, "0000:c3:00.0", "nvswitch");
	gpu_at(h, 1, "0003:01:00.0");
	nvlinks(gpu_at(h, 2, "000a:01:00.0"), 6, "0000:c4:00.0", "nvswitch");
	gpu_at(h, 3, "000b:01:00.0");
	cd_discover_join(h);
	/* through the switches, as many links as the weaker side has */
	ck_assert_str_eq(GG(h, 0, 2), "NV4");
	ck_assert_str_eq(GG(h, 2, 0), "NV4");
	ck_assert_str_eq(GG(h, 0, 3), "SYS"); /* GPU3 has no switch links */
	cd_results_free(&r);
}
END_TEST

START_TEST(test_join_paths_unknown_gpu_keeps_hwloc_order)
{
	struct cd_results r;
	struct cd_host *h = power8_host(&r);

	gpu_at(h, 0, "0003:01:00.0");
	gpu_at(h, 1, "0002:01:00.0");
	gpu_at(h, 2, "000a:01:00.0");
	gpu_at(h, 3, "0042:01:00.0");
	cd_discover_join(h);
	ck_assert_str_eq(h->paths.gpus.v[0], "0002:01:00.0");
	ck_assert_str_eq(h->paths.source, "hwloc");
	cd_results_free(&r);
}
END_TEST

/*
 * CUDA_VISIBLE_DEVICES=3,1: CUDA sees two GPUs, numbered 0 and 1. The matrix has
 * their two rows, in CUDA's numbering; the GPUs CUDA does not see are left out.
 */
START_TEST(test_join_paths_visible_subset)
{
	struct cd_results r;
	struct cd_host *h = power8_host(&r);

	gpu_at(h, 0, "0000000b:01:00.0");
	gpu_at(h, 1, "00000003:01:00.0");
	cd_discover_join(h);
	ck_assert_uint_eq(h->paths.gpus.n, 2);
	ck_assert_str_eq(h->paths.gpus.v[0], "000b:01:00.0");
	ck_assert_str_eq(h->paths.gpus.v[1], "0003:01:00.0");
	ck_assert_str_eq(GG(h, 0, 0), "X");
	ck_assert_str_eq(GG(h, 0, 1), "SYS"); /* the two pairs sit on different sockets */
	ck_assert_int_ne(h->paths.nccl_p2p[0 * 2 + 1], CD_TRI_TRUE);
	cd_results_free(&r);
}
END_TEST

/* Two MIG instances of GPU 0002 and the whole GPU 0003: a row each, the instances share their GPU's classes. */
START_TEST(test_join_paths_mig)
{
	struct cd_results r;
	struct cd_host *h = power8_host(&r);

	gpu_at(h, 0, "0002:01:00.0");
	gpu_at(h, 1, "0002:01:00.0");
	gpu_at(h, 2, "0003:01:00.0");
	cd_discover_join(h);
	ck_assert_uint_eq(h->paths.gpus.n, 3);
	ck_assert_str_eq(h->paths.gpus.v[1], "0002:01:00.0");
	ck_assert_str_eq(GG(h, 0, 1), "X");
	ck_assert_str_eq(GG(h, 0, 2), "NV2");
	ck_assert_str_eq(GG(h, 1, 2), "NV2");
	cd_results_free(&r);
}
END_TEST

/* cuDeviceGetUuid_v2 gives a MIG instance its own UUID: nvidia-smi writes it "MIG-..." */
START_TEST(test_mig_uuids)
{
	static const unsigned char b[16] = { 0x1b, 0x5e, 0x6f, 0x5e, 0x0a, 0x01, 0xb2, 0x23,
					     0x9c, 0x44, 0x00, 0x11, 0x22, 0x33, 0x44, 0xff };
	struct cd_results r;
	struct cd_host *h;
	char *u = cd_gpu_uuid_str(b, 0);
	int mig_on[3] = { 0, 0, 1 };

	ck_assert_str_eq(u, "GPU-1b5e6f5e-0a01-b223-9c44-0011223344ff");
	free(u);
	u = cd_gpu_uuid_str(b, 1);
	ck_assert_str_eq(u, "MIG-1b5e6f5e-0a01-b223-9c44-0011223344ff");
	free(u);
	for (int k = 0; k < 2; k++) {
		cd_results_init(&r);
		h = cd_results_add_host(&r);
		gpu_at(h, 0, "0000:17:00.0")->uuid = cd_gpu_uuid_str(b, 0);
		gpu_at(h, 1, "0000:17:00.0")->uuid = cd_gpu_uuid_str(b, 0);
		gpu_at(h, 2, "0000:65:00.0")->uuid = cd_gpu_uuid_str(b, 0);
		/* without NVML, sharing a bus id is the sign; with it, MIG mode on a GPU with one instance */
		cd_gpu_mark_mig(h, k ? mig_on : NULL);
		ck_assert_str_eq(h->gpus[0].uuid, "MIG-1b5e6f5e-0a01-b223-9c44-0011223344ff");
		ck_assert_str_eq(h->gpus[1].uuid, "MIG-1b5e6f5e-0a01-b223-9c44-0011223344ff");
		ck_assert_str_eq(h->gpus[2].uuid, k ? "MIG-1b5e6f5e-0a01-b223-9c44-0011223344ff"
						    : "GPU-1b5e6f5e-0a01-b223-9c44-0011223344ff");
		cd_results_free(&r);
	}
}
END_TEST

/* nvmlDeviceGetNvLinkVersion answers nvmlNvlinkVersion_t (nvml.h, NVML API 13): 4 is NVLink 3.0 */
START_TEST(test_nvml_nvlink_generation)
{
	static const int want[] = { 0, 1, 2, 2, 3, 3, 4, 5, 6, 0 };

	for (unsigned v = 0; v < 10; v++)
		ck_assert_int_eq(cd_nvml_nvlink_gen(v), want[v]);
	ck_assert_int_eq(cd_nvml_nvlink_gen(0xffffffffu), 0);
}
END_TEST

/* NVSwitches need the fabric manager running; a fake /proc says whether it is. */
START_TEST(test_fabric_manager)
{
	static const char *const roots[] = { "tests/data/fm/running", "tests/data/fm/stopped" };
	static const char *const want[] = { "running", "not running" };

	for (int k = 0; k < 3; k++) {
		struct cd_results r;
		struct cd_host *h;
		struct cd_discover_opts o = { .sysfs_root = roots[k % 2] };
		struct cd_pci_device *d;

		cd_results_init(&r);
		h = cd_results_add_host(&r);
		d = pci(h, "0000:c3:00.0", 0, NULL);
		d->vendor_id = 0x10de;
		d->class_id = k < 2 ? 0x0680 : 0x0302; /* the third host has no NVSwitch */
		ck_assert_int_eq(cd_gpu_discover(h, &o), 0);
		if (k < 2)
			ck_assert_str_eq(h->system.fabric_manager, want[k]);
		else
			ck_assert_ptr_null(h->system.fabric_manager);
		cd_results_free(&r);
	}
}
END_TEST

START_TEST(test_topology_replay_skips_live_sections)
{
	struct cd_discover_opts o = { .topology_xml = CD_FIXTURES "/hwloc/xml/32em64t-2n8c2t-pci-normalio.xml" };
	struct cd_results r;
	struct cd_host *h;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	ck_assert_int_eq(cd_discover_host(h, &o), 0);
	ck_assert_int_eq(h->part[CD_PART_TOPO].status, CD_ST_OK);
	ck_assert_int_eq(h->part[CD_PART_NET].status, CD_ST_SKIPPED);
	ck_assert_int_eq(h->part[CD_PART_IB].status, CD_ST_SKIPPED);
	ck_assert_int_eq(h->part[CD_PART_GPU].status, CD_ST_SKIPPED);
	ck_assert_ptr_nonnull(strstr(h->part[CD_PART_NET].reason, "--topology replays"));
	ck_assert_uint_eq(h->n_nics, 0);
	ck_assert_uint_eq(h->n_numa, 2);
	cd_results_free(&r);
}
END_TEST

/* A run told to stop before discovery: every section is marked, nothing runs. */
START_TEST(test_stopped_before_discovery)
{
	struct cd_discover_opts o = { .topology_xml = CD_FIXTURES "/hwloc/xml/32em64t-2n8c2t-pci-normalio.xml" };
	struct cd_results r;
	struct cd_host *h;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	cd_stop = SIGTERM;
	ck_assert_int_eq(cd_discover_host(h, &o), 0);
	cd_stop = 0;
	for (int p = 0; p < CD_PART_COUNT; p++) {
		ck_assert_int_eq(h->part[p].status, CD_ST_TIMEOUT);
		ck_assert_str_eq(h->part[p].reason, "not run: stopped by SIGTERM during discovery");
	}
	ck_assert_ptr_null(h->hostname);
	ck_assert_uint_eq(h->n_numa, 0);
	cd_results_free(&r);
}
END_TEST

static void on_alarm(int sig)
{
	cd_stop = sig; /* as main's handler does on the --timeout deadline */
}

/*
 * discover.stall=topo: system runs, topo stalls until the deadline, the rest is
 * marked not run; discovery returns soon after the deadline with what it had.
 */
START_TEST(test_stall_until_deadline)
{
	struct cd_discover_opts o = { .topology_xml = CD_FIXTURES "/hwloc/xml/32em64t-2n8c2t-pci-normalio.xml" };
	struct sigaction sa = { 0 }, old;
	struct itimerval it = { .it_value = { 0, 200000 } }, off = { 0 };
	struct cd_results r;
	struct cd_host *h;
	double t0;

	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	ck_assert_int_eq(cd_fault_set("discover.stall=topo"), 0);
	cd_results_init(&r);
	h = cd_results_add_host(&r);
	t0 = cd_now_s();
	setitimer(ITIMER_REAL, &it, NULL);
	ck_assert_int_eq(cd_discover_host(h, &o), 0);
	ck_assert(cd_now_s() - t0 < 0.2 + 1.0);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	ck_assert_int_eq(cd_fault_set(NULL), 0);
	ck_assert_int_eq(cd_stop, SIGALRM);
	cd_stop = 0;
	ck_assert_int_eq(h->part[CD_PART_SYSTEM].status, CD_ST_OK);
	ck_assert_ptr_nonnull(h->hostname);
	ck_assert_int_eq(h->part[CD_PART_TOPO].status, CD_ST_TIMEOUT);
	ck_assert_str_eq(h->part[CD_PART_TOPO].reason,
			 "did not finish: stopped by the --timeout deadline (test fault discover.stall)");
	ck_assert_uint_eq(h->n_numa, 0);
	for (int p = CD_PART_NET; p < CD_PART_COUNT; p++) {
		ck_assert_int_eq(h->part[p].status, CD_ST_TIMEOUT);
		ck_assert_str_eq(h->part[p].reason, "not run: stopped by the --timeout deadline during discovery");
	}
	cd_results_free(&r);
}
END_TEST

Suite *discover_suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("join");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_join_by_bus_id);
	tcase_add_test(tc, test_join_by_os_device_name);
	tcase_add_test(tc, test_join_keeps_sysfs_numa);
	tcase_add_test(tc, test_topology_replay_skips_live_sections);
	tcase_add_test(tc, test_join_paths_follow_driver_order);
	tcase_add_test(tc, test_fabric_manager);
	tcase_add_test(tc, test_join_paths_nvswitch);
	tcase_add_test(tc, test_join_paths_unknown_gpu_keeps_hwloc_order);
	tcase_add_test(tc, test_join_paths_visible_subset);
	tcase_add_test(tc, test_join_paths_mig);
	tcase_add_test(tc, test_mig_uuids);
	tcase_add_test(tc, test_nvml_nvlink_generation);
	tcase_add_test(tc, test_stopped_before_discovery);
	tcase_add_test(tc, test_stall_until_deadline);
	suite_add_tcase(s, tc);
	return s;
}
