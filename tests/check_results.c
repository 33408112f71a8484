/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ck_stderr.h"
#include "out.h"
#include "report.h"
#include "results.h"
#include "suites.h"

/* ---- document basics ---- */

START_TEST(test_init_nulls)
{
	struct cd_results r;
	struct cd_host *h;

	memset(&r, 0x5a, sizeof(r));
	cd_results_init(&r);
	ck_assert_int_eq(r.schema, CD_SCHEMA_VERSION);
	ck_assert_int_eq(r.schema, 1);
	ck_assert_ptr_null(r.tool_version);
	ck_assert_ptr_null(r.run.started);
	ck_assert_ptr_null(r.run.mode);
	ck_assert_int_eq(r.run.ranks, 1);
	ck_assert(isnan(r.run.duration_s));
	ck_assert(isnan(r.run.timeout_s));
	ck_assert_uint_eq(r.n_hosts + r.n_findings + r.n_advice, 0);
	ck_assert_int_eq(cd_results_worst(&r), -1);

	h = cd_results_add_host(&r);
	ck_assert_uint_eq(r.n_hosts, 1);
	ck_assert_ptr_eq(h, &r.hosts[0]);
	for (int i = 0; i < CD_PART_COUNT; i++) {
		ck_assert_int_eq(h->part[i].status, CD_ST_SKIPPED);
		ck_assert_ptr_null(h->part[i].reason);
	}
	ck_assert_ptr_null(h->hostname);
	ck_assert_int_eq(h->system.cpus_online, CD_NULL_I64);
	ck_assert_int_eq(h->system.mem_total_bytes, CD_NULL_I64);
	ck_assert_int_eq(h->system.shm_bytes, CD_NULL_I64);
	ck_assert_int_eq(h->system.memlock_unlimited, CD_TRI_NULL);
	ck_assert_int_eq(h->system.memlock_bytes, CD_NULL_I64);
	ck_assert_int_eq(h->system.nofile_soft, CD_NULL_I64);
	ck_assert_int_eq(h->system.nofile_hard, CD_NULL_I64);
	ck_assert_int_eq(h->system.peermem, CD_TRI_NULL);
	ck_assert_int_eq(h->system.dev_infiniband, CD_TRI_NULL);
	ck_assert_ptr_null(h->system.container);
	ck_assert_ptr_null(h->system.iommu);
	ck_assert_int_eq(h->versions.cuda_driver, CD_NULL_I64);
	ck_assert_ptr_null(h->versions.nccl);
	cd_results_free(&r);
	ck_assert_uint_eq(r.n_hosts, 0);
	ck_assert_ptr_null(r.hosts);
	cd_results_free(&r); /* twice is harmless */
	cd_results_free(NULL);
}
END_TEST

START_TEST(test_add_helpers)
{
	struct cd_results r;
	struct cd_host *h;
	struct cd_numa_node *nn;
	struct cd_pci_device *d;
	struct cd_nic *n;
	struct cd_hca *c;
	struct cd_ib_port *p;
	struct cd_gid *g;
	struct cd_gpu *gpu;
	struct cd_finding *f;
	struct cd_advice *a;
	struct cd_probe_run *pr;
	struct cd_probe_sample *sm;

	cd_results_init(&r);
	h = cd_results_add_host(&r);

	nn = cd_host_add_numa(h);
	ck_assert_int_eq(nn->index, CD_NULL_I64);
	ck_assert_int_eq(nn->memory_bytes, CD_NULL_I64);
	ck_assert_ptr_null(nn->cpus);

	d = cd_host_add_pci(h);
	ck_assert_int_eq(d->vendor_id, CD_NULL_I64);
	ck_assert_int_eq(d->device_id, CD_NULL_I64);
	ck_assert_int_eq(d->class_id, CD_NULL_I64);
	ck_assert_int_eq(d->numa, CD_NULL_I64);
	ck_assert(isnan(d->link_gbyte_s));
	ck_assert_int_eq(d->gen, CD_NULL_I64);
	ck_assert_int_eq(d->width, CD_NULL_I64);
	ck_assert_int_eq(d->max_gen, CD_NULL_I64);
	ck_assert_int_eq(d->max_width, CD_NULL_I64);
	ck_assert_int_eq(d->kind, CD_PCI_OTHER);
	ck_assert_uint_eq(d->os_devices.n, 0);

	n = cd_host_add_nic(h);
	ck_assert_int_eq(n->ifindex, CD_NULL_I64);
	ck_assert_int_eq(n->kind, CD_NIC_OTHER);
	ck_assert_int_eq(n->admin_up, CD_TRI_NULL);
	ck_assert_int_eq(n->mtu, CD_NULL_I64);
	ck_assert_int_eq(n->speed_mbit_s, CD_NULL_I64);
	ck_assert_int_eq(n->default_route, CD_TRI_NULL);
	ck_assert_int_eq(n->numa, CD_NULL_I64);
	ck_assert_ptr_null(n->master);

	c = cd_host_add_hca(h);
	ck_assert_int_eq(c->numa, CD_NULL_I64);
	p = cd_hca_add_port(c);
	ck_assert_int_eq(p->port, CD_NULL_I64);
	ck_assert_int_eq(p->active_width, CD_NULL_I64);
	ck_assert(isnan(p->lane_gbit_s));
	ck_assert(isnan(p->rate_gbit_s));
	ck_assert_int_eq(p->lid, CD_NULL_I64);
	ck_assert_int_eq(p->mtu_bytes, CD_NULL_I64);
	ck_assert_int_eq(p->roce_v2_gid_index, CD_NULL_I64);
	g = cd_port_add_gid(p);
	ck_assert_int_eq(g->index, CD_NULL_I64);
	ck_assert_int_eq(g->ipv4, CD_TRI_NULL);
	ck_assert_uint_eq(c->n_ports, 1);
	ck_assert_uint_eq(p->n_gids, 1);

	gpu = cd_host_add_gpu(h);
	ck_assert_int_eq(gpu->index, CD_NULL_I64);
	ck_assert_int_eq(gpu->numa, CD_NULL_I64);
	ck_assert_int_eq(gpu->memory_bytes, CD_NULL_I64);

	f = cd_results_add_finding(&r, "NET002", CD_SEV_WARN, "node17", NULL, "title");
	ck_assert_str_eq(f->id, "NET002");
	ck_assert_int_eq(f->severity, CD_SEV_WARN);
	ck_assert_str_eq(f->host, "node17");
	ck_assert_ptr_null(f->subject);
	ck_assert_str_eq(f->title, "title");
	ck_assert(isnan(f->measured));
	ck_assert(isnan(f->expected));
	ck_assert_ptr_null(f->unit);
	cd_finding_evidence(f, "%s has %d", "eth0", 3);
	cd_finding_evidence(f, "second");
	ck_assert_uint_eq(f->evidence.n, 2);
	ck_assert_str_eq(f->evidence.v[0], "eth0 has 3");
	ck_assert_str_eq(f->evidence.v[1], "second");

	pr = cd_results_add_probe(&r, "copy.h2d");
	ck_assert_str_eq(pr->name, "copy.h2d");
	ck_assert_int_eq(pr->status, CD_ST_OK);
	ck_assert_int_eq(pr->device, CD_NULL_I64);
	ck_assert_int_eq(pr->peer, CD_NULL_I64);
	ck_assert_int_eq(pr->nranks, CD_NULL_I64);
	sm = cd_probe_add_sample(pr);
	ck_assert_int_eq(sm->bytes, CD_NULL_I64);
	ck_assert_int_eq(sm->iters, CD_NULL_I64);
	ck_assert_int_eq(sm->errors, CD_NULL_I64);
	ck_assert(isnan(sm->time_us) && isnan(sm->min_time_us) && isnan(sm->max_time_us));
	ck_assert(isnan(sm->algbw_gbyte_s) && isnan(sm->busbw_gbyte_s));

	a = cd_results_add_advice(&r);
	ck_assert_ptr_null(a->env);
	ck_assert_uint_eq(a->findings.n, 0);
	ck_assert_uint_eq(r.n_advice, 1);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_section_set)
{
	struct cd_section s = { CD_ST_SKIPPED, NULL };

	cd_section_set(&s, CD_ST_ERROR, "%s: %d", "cuInit", 100);
	ck_assert_int_eq(s.status, CD_ST_ERROR);
	ck_assert_str_eq(s.reason, "cuInit: 100");
	cd_section_set(&s, CD_ST_SKIPPED, "no %s", "driver");
	ck_assert_int_eq(s.status, CD_ST_SKIPPED);
	ck_assert_str_eq(s.reason, "no driver");
	cd_section_set(&s, CD_ST_OK, NULL);
	ck_assert_int_eq(s.status, CD_ST_OK);
	ck_assert_ptr_null(s.reason);
	cd_section_set(&s, CD_ST_TIMEOUT, "after %.1f s", 2.5);
	ck_assert_int_eq(s.status, CD_ST_TIMEOUT);
	ck_assert_str_eq(s.reason, "after 2.5 s");
	free(s.reason);
}
END_TEST

START_TEST(test_set_env)
{
	struct cd_results r;
	struct cd_host *h;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	cd_host_set_env(h, "NCCL_DEBUG", "INFO");
	cd_host_set_env(h, "NCCL_SOCKET_IFNAME", "eth0");
	cd_host_set_env(h, "NCCL_DEBUG", "WARN");
	ck_assert_uint_eq(h->n_env, 2);
	ck_assert_str_eq(h->env[0].key, "NCCL_DEBUG");
	ck_assert_str_eq(h->env[0].value, "WARN");
	ck_assert_str_eq(h->env[1].key, "NCCL_SOCKET_IFNAME");
	ck_assert_str_eq(h->env[1].value, "eth0");
	cd_host_set_env(h, "EMPTY", "");
	ck_assert_str_eq(h->env[2].value, "");
	cd_results_free(&r);
}
END_TEST

START_TEST(test_worst)
{
	struct cd_results r;

	cd_results_init(&r);
	ck_assert_int_eq(cd_results_worst(&r), -1);
	cd_results_add_finding(&r, "A001", CD_SEV_INFO, NULL, NULL, NULL);
	ck_assert_int_eq(cd_results_worst(&r), CD_SEV_INFO);
	cd_results_add_finding(&r, "A002", CD_SEV_FAIL, NULL, NULL, NULL);
	cd_results_add_finding(&r, "A003", CD_SEV_WARN, NULL, NULL, NULL);
	ck_assert_int_eq(cd_results_worst(&r), CD_SEV_FAIL);
	cd_results_free(&r);
	cd_results_init(&r);
	cd_results_add_finding(&r, "A003", CD_SEV_WARN, NULL, NULL, NULL);
	cd_results_add_finding(&r, "A001", CD_SEV_INFO, NULL, NULL, NULL);
	ck_assert_int_eq(cd_results_worst(&r), CD_SEV_WARN);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_enum_names)
{
	/* every valid value has a name that parses back to it */
	for (int i = CD_ST_OK; i <= CD_ST_TIMEOUT; i++)
		ck_assert_int_eq(cd_status_parse(cd_status_str(i)), i);
	for (int i = CD_SEV_INFO; i <= CD_SEV_FAIL; i++)
		ck_assert_int_eq(cd_severity_parse(cd_severity_str(i)), i);
	for (int i = CD_PCI_OTHER; i <= CD_PCI_BRIDGE; i++)
		ck_assert_int_eq(cd_pci_kind_parse(cd_pci_kind_str(i)), i);
	for (int i = CD_NIC_PHYSICAL; i <= CD_NIC_OTHER; i++)
		ck_assert_int_eq(cd_nic_kind_parse(cd_nic_kind_str(i)), i);
	ck_assert_str_eq(cd_status_str(CD_ST_SKIPPED), "skipped");
	ck_assert_str_eq(cd_severity_str(CD_SEV_WARN), "warn");
	ck_assert_str_eq(cd_part_str(CD_PART_GPU), "gpu");
	ck_assert_str_eq(cd_part_str(CD_PART_SYSTEM), "system");
	ck_assert_str_eq(cd_pci_kind_str(CD_PCI_HCA), "hca");
	ck_assert_str_eq(cd_nic_kind_str(CD_NIC_IPOIB), "ipoib");
	ck_assert_str_eq(cd_nic_kind_str(CD_NIC_LOOPBACK), "loopback");

	/* out of range: "unknown", never NULL */
	ck_assert_str_eq(cd_status_str((enum cd_status)99), "unknown");
	ck_assert_str_eq(cd_status_str((enum cd_status)-1), "unknown");
	ck_assert_str_eq(cd_part_str(CD_PART_COUNT), "unknown");
	ck_assert_str_eq(cd_severity_str((enum cd_severity)3), "unknown");
	ck_assert_str_eq(cd_pci_kind_str((enum cd_pci_kind)42), "unknown");
	ck_assert_str_eq(cd_nic_kind_str((enum cd_nic_kind)(CD_NIC_OTHER + 1)), "unknown");

	ck_assert_int_eq(cd_status_parse("OK"), -1);
	ck_assert_int_eq(cd_status_parse(""), -1);
	ck_assert_int_eq(cd_status_parse(NULL), -1);
	ck_assert_int_eq(cd_severity_parse("critical"), -1);
	ck_assert_int_eq(cd_severity_parse("unknown"), -1);
	ck_assert_int_eq(cd_pci_kind_parse("display"), -1);
	ck_assert_int_eq(cd_nic_kind_parse("ethernet"), -1);
}
END_TEST

START_TEST(test_free_half_filled)
{
	struct cd_results r;
	struct cd_host *h;
	struct cd_hca *c;
	struct cd_finding *f;

	cd_results_init(&r);
	r.tool_version = xstrdup("0.1.0");
	h = cd_results_add_host(&r);
	h->hostname = xstrdup("half");
	cd_section_set(&h->part[CD_PART_GPU], CD_ST_SKIPPED, "reason %d", 1);
	cd_host_add_nic(h)->name = xstrdup("eth0"); /* other fields null */
	cd_strv_push(&h->nics[0].ipv4, "10.0.0.1/24");
	c = cd_host_add_hca(h);
	cd_port_add_gid(cd_hca_add_port(c))->gid = xstrdup("fe80::");
	cd_hca_add_port(c); /* empty port */
	cd_host_add_pci(h);
	cd_host_add_numa(h);
	cd_host_add_gpu(h);
	cd_host_set_env(h, "NCCL_DEBUG", "INFO");
	cd_results_add_host(&r); /* an empty second host */
	f = cd_results_add_finding(&r, "X001", CD_SEV_INFO, NULL, NULL, NULL);
	cd_finding_evidence(f, "e");
	cd_strv_push(&cd_results_add_advice(&r)->path, "p");
	cd_probe_add_sample(cd_results_add_probe(&r, "copy.d2h"));
	cd_results_add_probe(&r, "tcp.latency");
	cd_results_free(&r);
	ck_assert_uint_eq(r.n_hosts, 0);
	ck_assert_uint_eq(r.n_findings, 0);
	ck_assert_ptr_null(r.tool_version);
}
END_TEST

START_TEST(test_strv)
{
	struct cd_strv sv = { 0 };

	for (int i = 0; i < 9; i++) {
		char b[16];

		snprintf(b, sizeof(b), "s%d", i);
		cd_strv_push(&sv, b);
	}
	ck_assert_uint_eq(sv.n, 9);
	ck_assert_str_eq(sv.v[0], "s0");
	ck_assert_str_eq(sv.v[8], "s8");
	cd_strv_free(&sv);
	ck_assert_uint_eq(sv.n, 0);
	ck_assert_ptr_null(sv.v);
	cd_strv_free(&sv);
}
END_TEST

/* ---- JSON: a rich document survives report → load → report byte for byte ---- */

static char *render(const struct cd_results *r, enum out_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cd_out *o;

	ck_assert_ptr_nonnull(f);
	o = out_new(fmt, f, 0);
	cd_report(o, r);
	ck_assert_int_eq(out_end(o), 0);
	fclose(f);
	return buf;
}

static void build_rich(struct cd_results *r)
{
	struct cd_host *h;
	struct cd_numa_node *nn;
	struct cd_pci_device *d;
	struct cd_nic *n;
	struct cd_hca *c;
	struct cd_ib_port *p;
	struct cd_gid *g;
	struct cd_gpu *gpu;
	struct cd_finding *f;
	struct cd_advice *a;
	struct cd_probe_run *pr;
	struct cd_probe_sample *sm;

	cd_results_init(r);
	r->tool_version = xstrdup("0.1.0");
	r->run.started = xstrdup("2026-11-21T10:00:00Z");
	r->run.mode = xstrdup("check");
	r->run.ranks = 2;
	r->run.duration_s = 4.25;
	r->run.timeout_s = 30;

	h = cd_results_add_host(r);
	h->hostname = xstrdup("node17");
	h->host_id = xstrdup("0123456789abcdef0123456789abcdef");
	h->host_id_source = xstrdup("/etc/machine-id");
	h->topology_source = xstrdup("live");
	cd_section_set(&h->part[CD_PART_SYSTEM], CD_ST_OK, NULL);
	cd_section_set(&h->part[CD_PART_TOPO], CD_ST_OK, NULL);
	cd_section_set(&h->part[CD_PART_NET], CD_ST_OK, NULL);
	cd_section_set(&h->part[CD_PART_IB], CD_ST_ERROR, "ibv_open_device: Permission denied");
	cd_section_set(&h->part[CD_PART_GPU], CD_ST_SKIPPED, "libcuda.so.1: cannot open shared object file");
	h->system.kernel = xstrdup("6.1.0-18-amd64");
	h->system.os = xstrdup("Debian GNU/Linux 12 (bookworm)");
	h->system.arch = xstrdup("x86_64");
	h->system.cpus_online = 112;
	h->system.mem_total_bytes = 2164185661440LL;
	h->system.container = xstrdup("docker");
	h->system.container_evidence = xstrdup("/.dockerenv exists");
	h->system.shm_bytes = 64LL << 20;
	h->system.memlock_unlimited = CD_TRI_FALSE;
	h->system.memlock_bytes = 65536;
	h->system.nofile_soft = 1048576;
	h->system.nofile_hard = 1048576;
	h->system.iommu = xstrdup("passthrough");
	h->system.iommu_evidence = xstrdup("IOMMU groups exist and the kernel command line sets passthrough");
	h->system.peermem = CD_TRI_FALSE;
	h->system.dev_infiniband = CD_TRI_TRUE;
	h->versions.driver = xstrdup("580.159.03");
	h->versions.cuda_driver = 13000;
	h->versions.nccl = xstrdup("2.28.9");
	h->versions.hwloc = xstrdup("2.9.0");
	h->versions.libnl = xstrdup("3.7.0");
	h->versions.libibverbs = xstrdup("44.0");
	h->versions.cjson = xstrdup("1.7.15");

	nn = cd_host_add_numa(h);
	nn->index = 0;
	nn->cpus = xstrdup("0-27,56-83");
	nn->memory_bytes = 1082092830720LL;
	nn = cd_host_add_numa(h);
	nn->index = 1;
	nn->cpus = xstrdup("28-55,84-111");

	d = cd_host_add_pci(h);
	d->bus_id = xstrdup("0000:3b:00.0");
	d->vendor_id = 0x15b3;
	d->device_id = 0x1021;
	d->class_id = 0x0207;
	d->kind = CD_PCI_HCA;
	d->vendor = xstrdup("Mellanox Technologies");
	d->device = xstrdup("MT2910 Family [ConnectX-7]");
	d->numa = 0;
	d->link_gbyte_s = 63.015;
	d->gen = 5;
	d->width = 16;
	d->max_gen = 5;
	d->max_width = 16;
	cd_strv_push(&d->os_devices, "ib0");
	cd_strv_push(&d->os_devices, "mlx5_0");
	d = cd_host_add_pci(h);
	d->bus_id = xstrdup("0000:19:00.0");
	d->vendor_id = 0x10de;
	d->device_id = 0x2335;
	d->class_id = 0x0302;
	d->kind = CD_PCI_GPU;
	d->numa = 0;

	gpu = cd_host_add_gpu(h);
	gpu->index = 0;
	gpu->name = xstrdup("NVIDIA H200");
	gpu->uuid = xstrdup("GPU-01234567-89ab-cdef-0123-456789abcdef");
	gpu->bus_id = xstrdup("0000:19:00.0");
	gpu->numa = 0;
	gpu->memory_bytes = 150754820096LL;
	gpu->compute_capability = xstrdup("9.0");
	gpu->persistence = CD_TRI_TRUE;
	gpu->pcie_gen = 4;
	gpu->pcie_width = 16;
	gpu->pcie_max_gen = 5;
	gpu->pcie_max_width = 16;
	gpu->pcie_link_gbyte_s = 31.5;
	{
		struct cd_nvlink *l = cd_gpu_add_nvlink(gpu);
		struct cd_acs *acs;
		struct cd_reach *x;

		l->link = 0;
		l->up = CD_TRI_TRUE;
		l->version = 4;
		l->remote_bus_id = xstrdup("0000:c3:00.0");
		l->remote_kind = xstrdup("nvswitch");
		cd_gpu_add_nvlink(gpu)->link = 1; /* state unknown */

		/* a second GPU, so the matrices are 2 × 2 */
		gpu = cd_host_add_gpu(h);
		gpu->index = 1;
		gpu->bus_id = xstrdup("0000:3b:00.0");
		cd_strv_push(&h->paths.gpus, "0000:19:00.0");
		cd_strv_push(&h->paths.gpus, "0000:3b:00.0");
		cd_strv_push(&h->paths.nets, "mlx5_0");
		cd_paths_alloc(&h->paths);
		h->paths.source = xstrdup("hwloc");
		h->paths.p2p_level = xstrdup("PXB");
		h->paths.p2p_level_source = xstrdup("default");
		h->paths.gpu_gpu[0] = xstrdup("X");
		h->paths.gpu_gpu[1] = xstrdup("NV18");
		h->paths.gpu_gpu[2] = xstrdup("NV18");
		h->paths.gpu_gpu[3] = xstrdup("X");
		h->paths.gpu_net[0] = xstrdup("PIX");
		h->paths.gpu_net[1] = xstrdup("SYS");
		h->paths.nccl_p2p[1] = h->paths.nccl_p2p[2] = CD_TRI_TRUE;
		h->paths.nvml_p2p[1] = xstrdup("ok");

		acs = cd_host_add_acs(h);
		acs->bus_id = xstrdup("0000:16:02.0");
		acs->redirect = CD_TRI_TRUE;
		acs->ctrl = 0x1d;
		acs = cd_host_add_acs(h);
		acs->bus_id = xstrdup("0000:16:03.0");
		acs->reason = xstrdup("needs root to read PCI config space beyond 64 bytes");

		x = cd_results_add_reach(r);
		x->from = xstrdup("node17");
		x->to = xstrdup("node18");
		x->iface = xstrdup("docker0");
		x->address = xstrdup("172.17.0.1");
		x->ok = CD_TRI_FALSE;
		x->error = xstrdup("connection timed out after 2.0 s");
		x = cd_results_add_reach(r);
		x->from = xstrdup("node17");
		x->to = xstrdup("node18");
		x->iface = xstrdup("eth0");
		x->address = xstrdup("10.0.0.18");
		x->ok = CD_TRI_TRUE;
		x->connect_us = 112.5;
	}
	{
		/* a rank of an MPI job, with a setting unlike its host's, and one that never answered */
		struct cd_rank *k = cd_results_add_rank(r, 0);

		k->host = xstrdup("node17");
		k->host_index = 0;
		k->local_rank = 0;
		k->answered = CD_TRI_TRUE;
		cd_rank_set_env(k, "NCCL_IB_HCA", "mlx5_1");
		cd_rank_set_env(k, "NCCL_DEBUG", NULL);
		k = cd_results_add_rank(r, 1);
		k->host = xstrdup("node18");
		k->answered = CD_TRI_FALSE;
		k->error = xstrdup("no answer within 9.0 s of the gather");
		r->run.launcher = xstrdup("mpirun");
		r->run.launcher_ranks = 2;
		h->versions.commdiag = xstrdup("0.1.0");
	}

	n = cd_host_add_nic(h);
	n->name = xstrdup("lo");
	n->ifindex = 1;
	n->kind = CD_NIC_LOOPBACK;
	n->state = xstrdup("unknown");
	n->admin_up = CD_TRI_TRUE;
	n->mtu = 65536;
	cd_strv_push(&n->ipv4, "127.0.0.1/8");
	cd_strv_push(&n->ipv6, "::1/128");
	n->default_route = CD_TRI_FALSE;
	n = cd_host_add_nic(h);
	n->name = xstrdup("eth0");
	n->ifindex = 2;
	n->kind = CD_NIC_PHYSICAL;
	n->state = xstrdup("up");
	n->admin_up = CD_TRI_TRUE;
	n->mtu = 9000;
	n->speed_mbit_s = 100000;
	n->mac = xstrdup("52:54:00:12:34:56");
	cd_strv_push(&n->ipv4, "10.0.0.17/24");
	cd_strv_push(&n->ipv6, "2001:db8::17/64");
	cd_strv_push(&n->ipv6, "fe80::5054:ff:fe12:3456/64");
	n->default_route = CD_TRI_TRUE;
	n->driver = xstrdup("mlx5_core");
	n->bus_id = xstrdup("0000:3b:00.1");
	n->numa = 0;
	n = cd_host_add_nic(h);
	n->name = xstrdup("eth1");
	n->ifindex = 3;
	n->kind = CD_NIC_PHYSICAL;
	n->state = xstrdup("up");
	n->admin_up = CD_TRI_TRUE;
	n->master = xstrdup("bond0");
	n = cd_host_add_nic(h);
	n->name = xstrdup("bond0");
	n->kind = CD_NIC_BOND;
	n->link_type = xstrdup("bond");
	n->state = xstrdup("down");
	n->admin_up = CD_TRI_FALSE;

	c = cd_host_add_hca(h);
	c->name = xstrdup("mlx5_0");
	c->node_guid = xstrdup("0xb83fd20300a1b2c3");
	c->fw_ver = xstrdup("28.39.1002");
	c->board_id = xstrdup("MT_0000000838");
	c->bus_id = xstrdup("0000:3b:00.0");
	c->numa = 0;
	c->netdev = xstrdup("ib0");
	p = cd_hca_add_port(c);
	p->port = 1;
	p->state = xstrdup("active");
	p->phys_state = xstrdup("link_up");
	p->link_layer = xstrdup("infiniband");
	p->active_width = 4;
	p->lane_gbit_s = 100;
	p->rate_gbit_s = 400;
	p->lid = 17;
	p->mtu_bytes = 4096;
	p->netdev = xstrdup("ib0");
	g = cd_port_add_gid(p);
	g->index = 0;
	g->gid = xstrdup("fe80:0000:0000:0000:b83f:d203:00a1:b2c3");
	g->type = xstrdup("IB/RoCE v1");
	g->ipv4 = CD_TRI_FALSE;
	p = cd_hca_add_port(c);
	p->port = 2;
	p->state = xstrdup("active");
	p->phys_state = xstrdup("link_up");
	p->link_layer = xstrdup("ethernet");
	p->active_width = 2;
	p->lane_gbit_s = 53.125;
	p->rate_gbit_s = 106.25;
	p->mtu_bytes = 1024;
	p->netdev = xstrdup("eth2");
	p->roce_v2_gid_index = 3;
	g = cd_port_add_gid(p);
	g->index = 2;
	g->gid = xstrdup("0000:0000:0000:0000:0000:ffff:0a00:0111");
	g->type = xstrdup("IB/RoCE v1");
	g->netdev = xstrdup("eth2");
	g->ipv4 = CD_TRI_TRUE;
	g = cd_port_add_gid(p);
	g->index = 3;
	g->gid = xstrdup("0000:0000:0000:0000:0000:ffff:0a00:0111");
	g->type = xstrdup("RoCE v2");
	g->netdev = xstrdup("eth2");
	g->ipv4 = CD_TRI_TRUE;

	cd_host_set_env(h, "CUDA_VISIBLE_DEVICES", "0,1");
	cd_host_set_env(h, "NCCL_SOCKET_IFNAME", "eth0");

	f = cd_results_add_finding(r, "SYS001", CD_SEV_WARN, "node17", "/dev/shm",
				   "/dev/shm is too small for NCCL's shared-memory transport");
	f->measured = 67108864;
	f->expected = 1073741824;
	f->unit = xstrdup("bytes");
	cd_finding_evidence(f, "/dev/shm is 64.0 MiB inside a docker container, below 1.0 GiB");
	f->threshold = xstrdup("system.shm_min_bytes");
	cd_finding_evidence(f, "quote \" and backslash \\ and tab \t survive");
	f = cd_results_add_finding(r, "NET001", CD_SEV_FAIL, "node17", "docker0", "interface does not reach other hosts");

	pr = cd_results_add_probe(r, "copy.h2d");
	pr->host = xstrdup("node17");
	pr->device = 0;
	pr->nranks = 1;
	pr->rank = 0;
	sm = cd_probe_add_sample(pr);
	sm->bytes = 1 << 20;
	sm->iters = 20;
	sm->time_us = 21.5;
	sm->min_time_us = 21.25;
	sm->max_time_us = 23.0;
	sm->p10_time_us = 21.3;
	sm->p25_time_us = 21.4;
	sm->p75_time_us = 21.75;
	sm->p90_time_us = 22.5;
	sm->outliers = 2;
	sm->cpu_wait_pct = 0.25;
	sm->algbw_gbyte_s = 48.77;
	sm->busbw_gbyte_s = 48.77;
	sm->errors = 0;
	sm = cd_probe_add_sample(pr);
	sm->bytes = 268435456;
	sm->iters = 5;
	sm->time_us = 4870.1;
	sm->algbw_gbyte_s = 55.1;
	pr = cd_results_add_probe(r, "nccl.all_reduce");
	pr->status = CD_ST_TIMEOUT;
	pr->phase = xstrdup("connect");
	pr->reason = xstrdup("no progress for 30 s");
	pr->device = 1;
	pr->peer = 0;

	a = cd_results_add_advice(r);
	a->env = xstrdup("NCCL_SOCKET_IFNAME");
	a->value = xstrdup("eth0");
	cd_strv_push(&a->findings, "NET001");
	cd_strv_push(&a->path, "multi-host?");
	cd_strv_push(&a->path, "socket iface reachable from all hosts?");
	a->why = xstrdup("eth0 reaches all 4 hosts; docker0 reaches none");

	/* the rules run and the score card, one dimension without data */
	r->rules.present = 1;
	r->rules.profile = xstrdup("h100-sxm");
	r->rules.profile_reason = xstrdup("auto: 8\u00d7 NVIDIA H100 80GB HBM3 with NVLink");
	cd_strv_push(&r->rules.sources, "embedded default.conf");
	cd_strv_push(&r->rules.sources, "-D copy.warn_pct=70");
	cd_strv_push(&r->rules.evaluated, "system");
	cd_rules_run_add_not_evaluated(&r->rules, "nccl", "no finished nccl.* probe");
	cd_rules_run_add_not_evaluated(&r->rules, "ib", NULL);
	r->score.present = 1;
	r->score.total = 64;
	r->score.grade = xstrdup("needs work");
	r->score.dim[CD_DIM_BANDWIDTH] = 40;
	r->score.dim[CD_DIM_BALANCE] = 88;
	r->score.dim[CD_DIM_STABILITY] = 70;
	r->score.weight[CD_DIM_BANDWIDTH] = 0.4;
	r->score.weight[CD_DIM_BALANCE] = 0.3333;
	r->score.weight[CD_DIM_STABILITY] = 0.2667;
	r->score.renormalised = CD_TRI_TRUE;
	for (int dim = 0; dim < CD_DIM_COUNT; dim++)
		r->score.basis[dim] = xasprintf("basis of %s", cd_dim_str(dim));
}

static int load(struct cd_results *r, const char *text)
{
	return cd_results_load_json(r, text, strlen(text), "test.json");
}

START_TEST(test_json_round_trip)
{
	struct cd_results r, back;
	char *s1, *s2;
	const struct cd_host *h;

	build_rich(&r);
	s1 = render(&r, OUT_FMT_JSON);
	ck_assert_int_eq(load(&back, s1), 0);
	s2 = render(&back, OUT_FMT_JSON);
	ck_assert_str_eq(s2, s1);

	/* spot checks on the loaded document itself */
	ck_assert_str_eq(back.tool_version, "0.1.0");
	ck_assert_str_eq(back.run.mode, "check");
	ck_assert_int_eq(back.run.ranks, 2);
	ck_assert_double_eq(back.run.duration_s, 4.25);
	ck_assert_uint_eq(back.n_hosts, 1);
	h = &back.hosts[0];
	ck_assert_str_eq(h->hostname, "node17");
	ck_assert_int_eq(h->part[CD_PART_IB].status, CD_ST_ERROR);
	ck_assert_str_eq(h->part[CD_PART_IB].reason, "ibv_open_device: Permission denied");
	ck_assert_int_eq(h->part[CD_PART_NET].status, CD_ST_OK);
	ck_assert_ptr_null(h->part[CD_PART_NET].reason);
	ck_assert_int_eq(h->system.shm_bytes, 67108864);
	ck_assert_int_eq(h->system.memlock_unlimited, CD_TRI_FALSE);
	ck_assert_int_eq(h->system.peermem, CD_TRI_FALSE);
	ck_assert_int_eq(h->system.dev_infiniband, CD_TRI_TRUE);
	ck_assert_ptr_null(h->system.fabric_manager);
	ck_assert_int_eq(h->system.mem_total_bytes, 2164185661440LL);
	ck_assert_uint_eq(h->n_numa, 2);
	ck_assert_int_eq(h->numa_nodes[1].memory_bytes, CD_NULL_I64);
	ck_assert_uint_eq(h->n_pci, 2);
	ck_assert_int_eq(h->pci[0].vendor_id, 0x15b3);
	ck_assert_int_eq(h->pci[0].class_id, 0x0207);
	ck_assert_int_eq(h->pci[0].kind, CD_PCI_HCA);
	ck_assert_int_eq(h->pci[0].gen, 5);
	ck_assert_int_eq(h->pci[1].gen, CD_NULL_I64);
	ck_assert(isnan(h->pci[1].link_gbyte_s));
	ck_assert_uint_eq(h->pci[0].os_devices.n, 2);
	ck_assert_str_eq(h->pci[0].os_devices.v[1], "mlx5_0");
	ck_assert_uint_eq(h->n_nics, 4);
	ck_assert_str_eq(h->nics[2].master, "bond0");
	ck_assert_int_eq(h->nics[1].default_route, CD_TRI_TRUE);
	ck_assert_int_eq(h->nics[3].kind, CD_NIC_BOND);
	ck_assert_uint_eq(h->nics[1].ipv6.n, 2);
	ck_assert_uint_eq(h->n_hcas, 1);
	ck_assert_uint_eq(h->hcas[0].n_ports, 2);
	ck_assert_double_eq(h->hcas[0].ports[0].rate_gbit_s, 400);
	ck_assert_double_eq(h->hcas[0].ports[1].rate_gbit_s, 106.25);
	ck_assert_int_eq(h->hcas[0].ports[0].roce_v2_gid_index, CD_NULL_I64);
	ck_assert_int_eq(h->hcas[0].ports[1].roce_v2_gid_index, 3);
	ck_assert_uint_eq(h->hcas[0].ports[1].n_gids, 2);
	ck_assert_str_eq(h->hcas[0].ports[1].gids[1].type, "RoCE v2");
	ck_assert_int_eq(h->hcas[0].ports[1].gids[1].ipv4, CD_TRI_TRUE);
	ck_assert_uint_eq(h->n_gpus, 2);
	ck_assert_int_eq(h->gpus[0].memory_bytes, 150754820096LL);
	ck_assert_int_eq(h->gpus[0].pcie_max_gen, 5);
	ck_assert_double_eq(h->gpus[0].pcie_link_gbyte_s, 31.5);
	ck_assert_uint_eq(h->gpus[0].n_nvlinks, 2);
	ck_assert_str_eq(h->gpus[0].nvlinks[0].remote_kind, "nvswitch");
	ck_assert_int_eq(h->gpus[0].nvlinks[1].up, CD_TRI_NULL);
	ck_assert_str_eq(h->paths.gpu_gpu[1], "NV18");
	ck_assert_str_eq(h->paths.gpu_net[1], "SYS");
	ck_assert_int_eq(h->paths.nccl_p2p[2], CD_TRI_TRUE);
	ck_assert_int_eq(h->paths.nccl_p2p[0], CD_TRI_NULL);
	ck_assert_ptr_null(h->paths.cuda_p2p);
	ck_assert_ptr_null(h->paths.nvml_p2p[0]);
	ck_assert_uint_eq(h->n_acs, 2);
	ck_assert_int_eq(h->acs[0].ctrl, 0x1d);
	ck_assert_int_eq(h->acs[1].redirect, CD_TRI_NULL);
	ck_assert_uint_eq(back.n_reach, 2);
	ck_assert_int_eq(back.reach[0].ok, CD_TRI_FALSE);
	ck_assert_double_eq(back.reach[1].connect_us, 112.5);
	ck_assert_uint_eq(h->n_env, 2);
	ck_assert_str_eq(h->env[1].key, "NCCL_SOCKET_IFNAME");
	ck_assert_uint_eq(back.n_findings, 2);
	ck_assert_int_eq(back.findings[0].severity, CD_SEV_WARN);
	ck_assert_double_eq(back.findings[0].expected, 1073741824.0);
	ck_assert_str_eq(back.findings[0].evidence.v[1], "quote \" and backslash \\ and tab \t survive");
	ck_assert_int_eq(back.findings[1].severity, CD_SEV_FAIL);
	ck_assert(isnan(back.findings[1].measured));
	ck_assert_int_eq(cd_results_worst(&back), CD_SEV_FAIL);
	ck_assert_uint_eq(back.n_probes, 2);
	ck_assert_str_eq(back.probes[0].name, "copy.h2d");
	ck_assert_int_eq(back.probes[0].status, CD_ST_OK);
	ck_assert_int_eq(back.probes[0].peer, CD_NULL_I64);
	ck_assert_uint_eq(back.probes[0].n_samples, 2);
	ck_assert_int_eq(back.probes[0].samples[0].errors, 0);
	ck_assert_int_eq(back.probes[0].samples[1].errors, CD_NULL_I64);
	ck_assert_double_eq(back.probes[0].samples[1].time_us, 4870.1);
	ck_assert_double_eq(back.probes[0].samples[0].p10_time_us, 21.3);
	ck_assert_double_eq(back.probes[0].samples[0].p25_time_us, 21.4);
	ck_assert_double_eq(back.probes[0].samples[0].p75_time_us, 21.75);
	ck_assert_double_eq(back.probes[0].samples[0].p90_time_us, 22.5);
	ck_assert_int_eq(back.probes[0].samples[0].outliers, 2);
	ck_assert_double_eq(back.probes[0].samples[0].cpu_wait_pct, 0.25);
	ck_assert(isnan(back.probes[0].samples[1].cpu_wait_pct));
	/* written before the percentiles: null, never guessed from min and max */
	ck_assert(isnan(back.probes[0].samples[1].p25_time_us));
	ck_assert_int_eq(back.probes[0].samples[1].outliers, CD_NULL_I64);
	ck_assert(isnan(back.probes[0].samples[1].busbw_gbyte_s));
	ck_assert_int_eq(back.probes[1].status, CD_ST_TIMEOUT);
	ck_assert_str_eq(back.probes[1].phase, "connect");
	ck_assert_uint_eq(back.probes[1].n_samples, 0);
	ck_assert_uint_eq(back.n_advice, 1);
	ck_assert_uint_eq(back.advice[0].path.n, 2);
	ck_assert_str_eq(back.advice[0].why, "eth0 reaches all 4 hosts; docker0 reaches none");
	ck_assert_int_eq(back.rules.present, 1);
	ck_assert_str_eq(back.rules.profile, "h100-sxm");
	ck_assert_uint_eq(back.rules.sources.n, 2);
	ck_assert_uint_eq(back.rules.n_not_evaluated, 2);
	ck_assert_str_eq(back.rules.not_evaluated[0].reason, "no finished nccl.* probe");
	ck_assert_ptr_null(back.rules.not_evaluated[1].reason);
	ck_assert_int_eq(back.score.present, 1);
	ck_assert_int_eq(back.score.total, 64);
	ck_assert_str_eq(back.score.grade, "needs work");
	ck_assert_int_eq(back.score.dim[CD_DIM_LATENCY], CD_NULL_I64);
	ck_assert(isnan(back.score.weight[CD_DIM_LATENCY]));
	ck_assert_double_eq(back.score.weight[CD_DIM_BALANCE], 0.3333);
	ck_assert_int_eq(back.score.renormalised, CD_TRI_TRUE);
	ck_assert_str_eq(back.score.basis[CD_DIM_STABILITY], "basis of stability");
	ck_assert_str_eq(back.findings[0].threshold, "system.shm_min_bytes");

	/* the text renderings agree too */
	free(s1);
	free(s2);
	s1 = render(&r, OUT_FMT_TEXT);
	s2 = render(&back, OUT_FMT_TEXT);
	ck_assert_str_eq(s2, s1);
	free(s1);
	free(s2);
	cd_results_free(&r);
	cd_results_free(&back);
}
END_TEST

START_TEST(test_json_round_trip_empty)
{
	struct cd_results r, back;
	char *s1, *s2;

	cd_results_init(&r);
	s1 = render(&r, OUT_FMT_JSON);
	ck_assert_int_eq(load(&back, s1), 0);
	s2 = render(&back, OUT_FMT_JSON);
	ck_assert_str_eq(s2, s1);
	ck_assert_int_eq(back.run.ranks, 1);
	ck_assert(isnan(back.run.duration_s));
	ck_assert_int_eq(back.rules.present, 0); /* "rules": null */
	ck_assert_int_eq(back.score.present, 0); /* "score": null */
	free(s1);
	free(s2);
	cd_results_free(&r);
	cd_results_free(&back);
}
END_TEST

START_TEST(test_json_minimal)
{
	struct cd_results r;

	/* absent keys read as null; a host needs nothing */
	ck_assert_int_eq(load(&r, "{\"schema\": 1, \"hosts\": [{}], \"findings\": [{\"id\": \"X001\"}]}"), 0);
	ck_assert_uint_eq(r.n_hosts, 1);
	ck_assert_ptr_null(r.hosts[0].hostname);
	ck_assert_int_eq(r.hosts[0].part[CD_PART_NET].status, CD_ST_SKIPPED);
	ck_assert_int_eq(r.hosts[0].system.shm_bytes, CD_NULL_I64);
	ck_assert_int_eq(r.hosts[0].system.peermem, CD_TRI_NULL);
	ck_assert_int_eq(r.run.ranks, 1); /* no "run" object: the defaults stay */
	ck_assert_uint_eq(r.n_findings, 1);
	ck_assert_int_eq(r.findings[0].severity, CD_SEV_INFO);
	cd_results_free(&r);
	/* surrounding white space is fine */
	ck_assert_int_eq(load(&r, "\n  {\"schema\": 1}\n\n"), 0);
	cd_results_free(&r);
}
END_TEST

struct load_args {
	struct cd_results *r;
	const char *text;
	size_t len;
	const char *name;
};

static int load_json(const void *arg)
{
	const struct load_args *a = arg;

	return cd_results_load_json(a->r, a->text, a->len, a->name);
}

/* Load text with stderr captured; returns the message (heap) and sets *rc. */
static char *load_capture(struct cd_results *r, const char *text, size_t len, int *rc)
{
	struct load_args a = {r, text, len, "test.json"};

	return ck_stderr_of(load_json, &a, rc);
}

/* The load fails with exactly one message, and the document is left empty. */
static void reject_len(const char *text, size_t len, const char *expect)
{
	struct cd_results r;
	int rc;
	char *msg = load_capture(&r, text, len, &rc);

	ck_assert_msg(rc == -1, "accepted: %s", text);
	ck_assert_str_eq(msg, expect);
	ck_assert_uint_eq(r.n_hosts, 0);
	ck_assert_uint_eq(r.n_findings, 0);
	ck_assert_uint_eq(r.n_advice, 0);
	ck_assert_ptr_null(r.hosts);
	ck_assert_ptr_null(r.tool_version);
	ck_assert_int_eq(r.schema, CD_SCHEMA_VERSION);
	free(msg);
	cd_results_free(&r);
}

static void reject(const char *text, const char *expect)
{
	reject_len(text, strlen(text), expect);
}

#define MSG(m) "commdiag: results: 'test.json': " m "\n"

START_TEST(test_json_errors_input)
{
	reject("", MSG("empty input: expected a JSON document from 'commdiag --json'"));
	reject_len("{}\0{}", 5, MSG("binary data (NUL byte at offset 2): expected JSON text"));
	reject("{\"schema\": 1,", MSG("line 1: not valid JSON (byte 12)"));
	reject("{\n\"schema\": 1,\n\"hosts\": [}\n", MSG("line 3: not valid JSON (byte 25)"));
	reject("not json", MSG("line 1: not valid JSON (byte 0)"));
	reject("[{\"schema\": 1}]", MSG("expected a JSON object at the top level"));
	reject("\"schema\"", MSG("expected a JSON object at the top level"));
	reject("{\"schema\": 1}\n{\"schema\": 1}\n", MSG("line 2: unexpected data after the JSON document (byte 14)"));
	reject("{\"schema\": 1} x", MSG("line 1: unexpected data after the JSON document (byte 14)"));
	reject("{}", MSG("schema: missing: not a commdiag results document"));
	reject("{\"schema\": null}", MSG("schema: missing: not a commdiag results document"));
	reject("{\"schema\": 3}", MSG("schema: this commdiag reads schema 1 and 2, the document has schema 3"));
	reject("{\"schema\": \"1\"}", MSG("schema: expected a number or null"));
	reject("{\"schema\": 1.5}", MSG("schema: expected an integer"));
}
END_TEST

/* Bounds checked before cJSON builds a tree: depth, number of values, white space only. */
START_TEST(test_json_errors_bounds)
{
	struct cd_results r;
	size_t n = (32u << 20) + 1, i, k;
	char deep[200], *many;

	reject(" \n\t\r\n", MSG("empty input (white space only): expected a JSON document from 'commdiag --json'"));
	memset(deep, '[', 65);
	deep[65] = '\0';
	reject(deep, MSG("line 1: nested deeper than 64 levels (byte 64): not a results document"));
	/* 64 levels load; brackets inside strings do not count */
	i = (size_t)snprintf(deep, sizeof(deep), "{\"schema\": 1, \"x\": \"[[[[{{{{\\\"[[[[\", \"y\": ");
	memset(deep + i, '[', 63);
	memset(deep + i + 63, ']', 63);
	strcpy(deep + i + 126, "}");
	ck_assert_int_eq(load(&r, deep), 0);
	cd_results_free(&r);

	/* "[0,0,…": 32 Mi + 1 values is refused at the comma that passes the bound; the text is
	 * filled by doubling copies, not 32 Mi small ones (the suite also runs under valgrind) */
	many = malloc(2 * n + 2);
	ck_assert_ptr_nonnull(many);
	many[0] = '[';
	memcpy(many + 1, "0,", 2);
	for (k = 2; k < 2 * n; k *= 2)
		memcpy(many + 1 + k, many + 1, k < 2 * n - k ? k : 2 * n - k);
	many[2 * n] = ']';
	many[2 * n + 1] = '\0';
	reject(many, MSG("line 1: more than 33554432 values (byte 67108862): not a results document"));
	free(many);
}
END_TEST

START_TEST(test_json_errors_paths)
{
	reject("{\"schema\": 1, \"hosts\": [{\"hcas\": [{\"name\": \"mlx5_0\", \"ports\": [{\"rate_gbit_s\": \"400\"}]}]}]}",
	       MSG("hosts[0].hcas[0].ports[0].rate_gbit_s: expected a number or null"));
	reject("{\"schema\": 1, \"hosts\": [{}, {\"nics\": [{\"name\": \"eth0\"}, {\"name\": \"eth1\", \"mtu\": 1500.5}]}]}",
	       MSG("hosts[1].nics[1].mtu: expected an integer"));
	/* the names that key nics[] and hcas[] are required: a null one crashed the cross-host rules */
	reject("{\"schema\": 1, \"hosts\": [{\"nics\": [{\"name\": null}]}]}",
	       MSG("hosts[0].nics[0].name: expected the interface's name (a string)"));
	reject("{\"schema\": 1, \"hosts\": [{\"hcas\": [{\"name\": \"\"}]}]}",
	       MSG("hosts[0].hcas[0].name: expected the RDMA device's name (a string)"));
	reject("{\"schema\": 1, \"findings\": [{\"id\": \"X001\", \"severity\": \"critical\"}]}",
	       MSG("findings[0].severity: unknown value 'critical'"));
	reject("{\"schema\": 1, \"hosts\": [{\"env\": {\"NCCL_DEBUG\": \"INFO\", \"NCCL_IB_HCA\": 5}}]}",
	       MSG("hosts[0].env.NCCL_IB_HCA: expected a string"));
	reject("{\"schema\": 1, \"hosts\": [{\"paths\": {\"gpus\": [\"a\", \"b\"], \"gpu_gpu\": [[\"X\"]]}}]}",
	       MSG("hosts[0].paths.gpu_gpu: expected 2 rows, one per GPU"));
	reject("{\"schema\": 1, \"hosts\": [{\"paths\": {\"gpus\": [\"a\"], \"gpu_gpu\": [[\"X\", \"PIX\"]]}}]}",
	       MSG("hosts[0].paths.gpu_gpu[0]: expected an array of 1 cells"));
	reject("{\"schema\": 1, \"hosts\": [{\"paths\": {\"gpus\": [\"a\"], \"gpu_gpu\": [[\"X\"]], \"nccl_p2p\": [[\"yes\"]]}}]}",
	       MSG("hosts[0].paths.nccl_p2p[0]: cell 0: expected true, false or null"));
	reject("{\"schema\": 1, \"hosts\": [{\"pci_devices\": [{\"vendor_id\": \"zz\"}]}]}",
	       MSG("hosts[0].pci_devices[0].vendor_id: expected a hexadecimal id like \"0x15b3\""));
	reject("{\"schema\": 1, \"hosts\": [{\"pci_devices\": [{\"pcie\": {\"gen\": true}}]}]}",
	       MSG("hosts[0].pci_devices[0].pcie.gen: expected a number or null"));
	reject("{\"schema\": 1, \"hosts\": [{\"hcas\": [{\"name\": \"mlx5_0\", \"ports\": [{}, {\"gids\": [{\"ipv4\": 1}]}]}]}]}",
	       MSG("hosts[0].hcas[0].ports[1].gids[0].ipv4: expected true, false or null"));
	reject("{\"schema\": 1, \"hosts\": [{\"status\": {\"gpu\": \"fine\"}}]}",
	       MSG("hosts[0].status.gpu: unknown value 'fine'"));
	reject("{\"schema\": 1, \"hosts\": [{\"system\": {\"container\": 3}}]}",
	       MSG("hosts[0].system.container: expected a string or null"));
	reject("{\"schema\": 1, \"hosts\": [{\"nics\": [{\"name\": \"eth0\", \"ipv4\": [\"10.0.0.1/24\", 7]}]}]}",
	       MSG("hosts[0].nics[0].ipv4: element 1: expected a string"));
	reject("{\"schema\": 1, \"hosts\": [{\"nics\": {}}]}", MSG("hosts[0].nics: expected an array"));
	reject("{\"schema\": 1, \"hosts\": [{\"gpus\": [1]}]}", MSG("hosts[0].gpus[0]: expected an object"));
	reject("{\"schema\": 1, \"hosts\": {}}", MSG("hosts: expected an array"));
	reject("{\"schema\": 1, \"hosts\": [[]]}", MSG("hosts[0]: expected an object"));
	reject("{\"schema\": 1, \"run\": []}", MSG("run: expected an object"));
	reject("{\"schema\": 1, \"run\": {\"ranks\": \"2\"}}", MSG("run.ranks: expected a number or null"));
	reject("{\"schema\": 1, \"findings\": [{\"severity\": \"warn\"}]}", MSG("findings[0].id: a finding needs an id"));
	reject("{\"schema\": 1, \"advice\": [{\"path\": \"a\"}]}", MSG("advice[0].path: expected an array"));
	reject("{\"schema\": 1, \"probes\": [{\"name\": \"copy.h2d\", \"results\": [{}, {\"time_us\": \"4.2\"}]}]}",
	       MSG("probes[0].results[1].time_us: expected a number or null"));
	reject("{\"schema\": 1, \"probes\": [{\"status\": \"ok\"}]}", MSG("probes[0].name: a probe needs a name"));
	reject("{\"schema\": 1, \"probes\": [{\"name\": \"copy.h2d\", \"results\": [{\"p25_time_us\": -1}]}]}",
	       MSG("probes[0].results[0].p25_time_us: expected a number of at least 0 or null"));
	reject("{\"schema\": 1, \"probes\": [{\"name\": \"copy.h2d\", \"results\": [{\"iters\": 5, \"outliers\": 6}]}]}",
	       MSG("probes[0].results[0].outliers: expected a count between 0 and iters or null"));
	/* a late error still discards what was loaded before it */
	reject("{\"schema\": 1, \"tool\": {\"version\": \"0.1.0\"}, \"hosts\": [{\"hostname\": \"a\", "
	       "\"nics\": [{\"name\": \"eth0\", \"ipv4\": [\"10.0.0.1/24\"]}]}], "
	       "\"findings\": [{\"id\": \"X001\", \"evidence\": [\"e\"]}, {\"id\": 7}]}",
	       MSG("findings[1].id: expected a string or null"));
}
END_TEST

/* The message names the full path; checked in a forked child with stderr in a file. */
START_TEST(test_json_error_message_path)
{
	static const char doc[] = "{\"schema\": 1, \"hosts\": [{\"nics\": [{\"name\": \"eth0\", \"mtu\": \"9000\"}]}]}";
	struct cd_results r;
	struct load_args a = {&r, doc, sizeof(doc) - 1, "node17.json"};
	int rc;
	char *msg = ck_stderr_of(load_json, &a, &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_nonnull(strstr(msg, "hosts[0].nics[0].mtu"));
	ck_assert_ptr_nonnull(strstr(msg, "'node17.json'"));
	ck_assert_ptr_null(strchr(strchr(msg, '\n') + 1, '\n')); /* exactly one line */
	ck_assert_uint_eq(r.n_hosts, 0);
	free(msg);
}
END_TEST

START_TEST(test_load_file)
{
	struct cd_results r, back;
	char path[] = "/tmp/check_results_doc.XXXXXX";
	int fd = mkstemp(path);
	char *s1, *s2;
	FILE *f;

	ck_assert_int_ge(fd, 0);
	build_rich(&r);
	s1 = render(&r, OUT_FMT_JSON);
	f = fdopen(fd, "w");
	fputs(s1, f);
	fclose(f);
	ck_assert_int_eq(cd_results_load_file(&back, path), 0);
	s2 = render(&back, OUT_FMT_JSON);
	ck_assert_str_eq(s2, s1);
	unlink(path);
	free(s1);
	free(s2);
	cd_results_free(&r);
	cd_results_free(&back);
}
END_TEST

Suite *results_suite(void)
{
	Suite *s = suite_create("results");
	TCase *tc = tcase_create("document");

	tcase_add_test(tc, test_init_nulls);
	tcase_add_test(tc, test_add_helpers);
	tcase_add_test(tc, test_section_set);
	tcase_add_test(tc, test_set_env);
	tcase_add_test(tc, test_worst);
	tcase_add_test(tc, test_enum_names);
	tcase_add_test(tc, test_free_half_filled);
	tcase_add_test(tc, test_strv);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_test(tc, test_json_round_trip);
	tcase_add_test(tc, test_json_round_trip_empty);
	tcase_add_test(tc, test_json_minimal);
	tcase_add_test(tc, test_json_errors_input);
	tcase_add_test(tc, test_json_errors_bounds);
	tcase_add_test(tc, test_json_errors_paths);
	tcase_add_test(tc, test_json_error_message_path);
	tcase_add_test(tc, test_load_file);
	suite_add_tcase(s, tc);
	return s;
}
