/* SPDX-License-Identifier: BSD-3-Clause */
/* System facts against fake /, /proc and /sys trees built at test time under a temp dir. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover.h"
#include "suites.h"
#include "system.h"

static char root[64];
static struct cd_results res;
static struct cd_host *host;

static void setup(void)
{
	strcpy(root, "/tmp/check_system.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	cd_results_init(&res);
	host = cd_results_add_host(&res);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	cd_results_free(&res);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p root/rel */
static void mkdirs(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);

	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
			*s = '/';
		}
	}
	ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
	free(p);
}

/* root/rel with len bytes of content, parents created */
static void put_len(const char *rel, const char *content, size_t len)
{
	char *dir = xstrdup(rel), *slash = strrchr(dir, '/'), *p;
	FILE *f;

	if (slash && slash != dir) {
		*slash = '\0';
		mkdirs(dir);
	}
	free(dir);
	p = xasprintf("%s/%s", root, rel);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(content, 1, len, f), len);
	fclose(f);
	free(p);
}

static void put(const char *rel, const char *content)
{
	put_len(rel, content, strlen(content));
}

static void discover(void)
{
	struct cd_discover_opts o = { .sysfs_root = root };

	ck_assert_int_eq(cd_system_discover(host, &o), 0);
	ck_assert_int_eq(host->part[CD_PART_SYSTEM].status, CD_ST_OK);
	ck_assert_ptr_null(host->part[CD_PART_SYSTEM].reason);
}

static void assert_container(const char *name, const char *evidence)
{
	discover();
	ck_assert_pstr_eq(host->system.container, name);
	ck_assert_pstr_eq(host->system.container_evidence, evidence);
}

/* ---- container: the strongest mark wins ---- */

START_TEST(test_container_k8s_secrets)
{
	mkdirs("var/run/secrets/kubernetes.io/serviceaccount");
	put("run/.containerenv", "");
	put(".dockerenv", "");
	put("proc/1/cgroup", "0::/\n");
	assert_container("kubernetes", "/var/run/secrets/kubernetes.io exists");
}
END_TEST

START_TEST(test_container_podman)
{
	put("run/.containerenv", "engine=\"podman-4.3.1\"\n");
	put(".dockerenv", "");
	put_len("proc/1/environ", "container=lxc", 14);
	assert_container("podman", "/run/.containerenv exists");
}
END_TEST

START_TEST(test_container_docker)
{
	put(".dockerenv", "");
	put_len("proc/1/environ", "container=lxc", 14);
	put("proc/1/cgroup", "0::/kubepods/besteffort/pod1\n");
	assert_container("docker", "/.dockerenv exists");
}
END_TEST

START_TEST(test_container_pid1_env)
{
	static const char env[] = "PATH=/usr/bin:/bin\0HOME=/\0container=lxc\0TERM=linux";

	put_len("proc/1/environ", env, sizeof(env)); /* NUL-separated, final NUL included */
	put("proc/1/cgroup", "0::/kubepods/burstable/pod42\n");
	assert_container("lxc", "PID 1 has container= in its environment");
}
END_TEST

START_TEST(test_container_pid1_env_not_a_prefix)
{
	static const char env[] = "NOTcontainer=lxc\0container=\0X=container=podman";

	put_len("proc/1/environ", env, sizeof(env) - 1);
	put("proc/1/cgroup", "0::/\n");
	assert_container("none", "no container marks in /, /run, PID 1's environment or cgroups");
}
END_TEST

START_TEST(test_container_cgroup_kubepods)
{
	put_len("proc/1/environ", "PATH=/bin", 10);
	put("proc/1/cgroup", "12:memory:/kubepods/besteffort/pod123/abc\n11:cpu:/kubepods/besteffort/pod123/abc\n");
	assert_container("kubernetes", "/proc/1/cgroup mentions 'kubepods'");
}
END_TEST

START_TEST(test_container_cgroup_docker)
{
	put("proc/1/cgroup", "0::/system.slice/docker-0123abcd.scope\n");
	assert_container("docker", "/proc/1/cgroup mentions 'docker'");
}
END_TEST

START_TEST(test_container_none)
{
	put("proc/1/cgroup", "0::/\n");
	assert_container("none", "no container marks in /, /run, PID 1's environment or cgroups");
}
END_TEST

START_TEST(test_container_unknown)
{
	/* no /proc/1/cgroup to read: not known, not "none" */
	assert_container(NULL, NULL);
}
END_TEST

START_TEST(test_container_ignores_real_env)
{
	/* KUBERNETES_SERVICE_HOST of the process running the tests is not the fake tree's */
	ck_assert_int_eq(setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1), 0);
	put("proc/1/cgroup", "0::/\n");
	discover();
	unsetenv("KUBERNETES_SERVICE_HOST");
	ck_assert_str_eq(host->system.container, "none");
}
END_TEST

/* ---- IOMMU ---- */

START_TEST(test_iommu_unreadable)
{
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz iommu=pt\n");
	discover();
	ck_assert_ptr_null(host->system.iommu);
	ck_assert_str_eq(host->system.iommu_evidence, "/sys/kernel/iommu_groups is not readable");
}
END_TEST

START_TEST(test_iommu_off)
{
	mkdirs("sys/kernel/iommu_groups");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz iommu=pt\n");
	discover();
	ck_assert_str_eq(host->system.iommu, "off");
	ck_assert_str_eq(host->system.iommu_evidence, "no IOMMU groups in /sys/kernel/iommu_groups");
}
END_TEST

START_TEST(test_iommu_passthrough)
{
	mkdirs("sys/kernel/iommu_groups/0/devices");
	mkdirs("sys/kernel/iommu_groups/17/devices");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.1.0 root=UUID=1 ro intel_iommu=on iommu=pt quiet\n");
	discover();
	ck_assert_str_eq(host->system.iommu, "passthrough");
	ck_assert_str_eq(host->system.iommu_evidence, "IOMMU groups exist and the kernel command line sets passthrough");
}
END_TEST

START_TEST(test_iommu_passthrough_arm)
{
	mkdirs("sys/kernel/iommu_groups/3");
	put("proc/cmdline", "root=/dev/nvme0n1p2 iommu.passthrough=1\n");
	discover();
	ck_assert_str_eq(host->system.iommu, "passthrough");
}
END_TEST

START_TEST(test_iommu_on)
{
	mkdirs("sys/kernel/iommu_groups/0");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on quiet\n");
	discover();
	ck_assert_str_eq(host->system.iommu, "on");
	ck_assert_str_eq(host->system.iommu_evidence,
			 "IOMMU groups exist and the kernel command line sets no passthrough");
}
END_TEST

START_TEST(test_iommu_on_without_cmdline)
{
	mkdirs("sys/kernel/iommu_groups/0");
	discover();
	ck_assert_str_eq(host->system.iommu, "on");
}
END_TEST

/* ---- identity and small facts ---- */

START_TEST(test_machine_id)
{
	put("etc/machine-id", "0123456789abcdef0123456789abcdef\n");
	put("proc/sys/kernel/random/boot_id", "11111111-2222-3333-4444-555555555555\n");
	discover();
	ck_assert_str_eq(host->host_id, "0123456789abcdef0123456789abcdef");
	ck_assert_str_eq(host->host_id_source, "/etc/machine-id");
	ck_assert_ptr_nonnull(host->hostname);
	ck_assert_ptr_nonnull(host->system.kernel);
	ck_assert_ptr_nonnull(host->system.arch);
	ck_assert_int_gt(host->system.cpus_online, 0);
}
END_TEST

START_TEST(test_boot_id_fallback)
{
	put("etc/machine-id", "\n"); /* empty, as in freshly built images */
	put("proc/sys/kernel/random/boot_id", "11111111-2222-3333-4444-555555555555\n");
	discover();
	ck_assert_str_eq(host->host_id, "11111111-2222-3333-4444-555555555555");
	ck_assert_str_eq(host->host_id_source, "/proc/sys/kernel/random/boot_id");
}
END_TEST

START_TEST(test_no_host_id)
{
	discover();
	ck_assert_ptr_null(host->host_id);
	ck_assert_ptr_null(host->host_id_source);
	ck_assert_ptr_null(host->system.os);
	ck_assert_int_eq(host->system.mem_total_bytes, CD_NULL_I64);
	ck_assert_int_eq(host->system.shm_bytes, CD_NULL_I64); /* no <root>/dev/shm */
	ck_assert_int_eq(host->system.peermem, CD_TRI_FALSE);
	ck_assert_int_eq(host->system.dev_infiniband, CD_TRI_FALSE);
}
END_TEST

START_TEST(test_os_release)
{
	put("etc/os-release", "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
			      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n");
	discover();
	ck_assert_str_eq(host->system.os, "Debian GNU/Linux 12 (bookworm)");
}
END_TEST

START_TEST(test_os_release_single_quotes)
{
	put("etc/os-release", "PRETTY_NAME='Rocky Linux 9.3 (Blue Onyx)'\n");
	discover();
	ck_assert_str_eq(host->system.os, "Rocky Linux 9.3 (Blue Onyx)");
}
END_TEST

START_TEST(test_os_release_unquoted)
{
	put("etc/os-release", "ID=alpine\nPRETTY_NAME=Alpine\n");
	discover();
	ck_assert_str_eq(host->system.os, "Alpine");
}
END_TEST

START_TEST(test_meminfo)
{
	put("proc/meminfo", "MemTotal:       2113462564 kB\nMemFree:        2000000000 kB\n");
	discover();
	ck_assert_int_eq(host->system.mem_total_bytes, 2113462564LL * 1024);
}
END_TEST

START_TEST(test_shm)
{
	mkdirs("dev/shm");
	discover();
	ck_assert_int_gt(host->system.shm_bytes, 0);
}
END_TEST

START_TEST(test_peermem)
{
	mkdirs("sys/module/nvidia_peermem");
	discover();
	ck_assert_int_eq(host->system.peermem, CD_TRI_TRUE);
	ck_assert_int_eq(host->system.dev_infiniband, CD_TRI_FALSE);
}
END_TEST

START_TEST(test_nv_peer_mem)
{
	mkdirs("sys/module/nv_peer_mem");
	mkdirs("dev/infiniband");
	put("dev/infiniband/uverbs0", "");
	discover();
	ck_assert_int_eq(host->system.peermem, CD_TRI_TRUE);
	ck_assert_int_eq(host->system.dev_infiniband, CD_TRI_TRUE);
}
END_TEST

/* ---- the communication environment ---- */

START_TEST(test_is_comm_env)
{
	ck_assert(cd_system_is_comm_env("NCCL_DEBUG"));
	ck_assert(cd_system_is_comm_env("TORCH_NCCL_ASYNC_ERROR_HANDLING"));
	ck_assert(cd_system_is_comm_env("GLOO_SOCKET_IFNAME"));
	ck_assert(cd_system_is_comm_env("OMPI_MCA_btl"));
	ck_assert(cd_system_is_comm_env("UCX_TLS"));
	ck_assert(cd_system_is_comm_env("CUDA_VISIBLE_DEVICES"));
	ck_assert(cd_system_is_comm_env("CUDA_DEVICE_ORDER"));
	ck_assert(!cd_system_is_comm_env("NCCLX"));
	ck_assert(!cd_system_is_comm_env("nccl_debug"));
	ck_assert(!cd_system_is_comm_env("PATH"));
	ck_assert(!cd_system_is_comm_env("HOME"));
	ck_assert(!cd_system_is_comm_env("CUDA_VISIBLE_DEVICES_X"));
	ck_assert(!cd_system_is_comm_env("TORCH_NCCL"));
	ck_assert(!cd_system_is_comm_env(""));
}
END_TEST

START_TEST(test_snapshot_env)
{
	char *envp[] = {
		"PATH=/usr/bin:/bin",
		"UCX_TLS=rc,cuda_copy",
		"NCCL_SOCKET_IFNAME=eth0",
		"HOME=/root",
		"NCCLX=1",
		"TORCH_NCCL_BLOCKING_WAIT=1",
		"CUDA_VISIBLE_DEVICES=0,1,2,3",
		"OMPI_MCA_pml=ucx",
		"GLOO_SOCKET_IFNAME=eth0",
		"NCCL_DEBUG=INFO",
		"CUDA_DEVICE_ORDER=PCI_BUS_ID",
		"NCCL_IB_HCA=",
		"NOEQUALS",
		"NCCL_DEBUG=WARN", /* a later duplicate wins */
		NULL,
	};
	static const char *const want[][2] = {
		{ "CUDA_DEVICE_ORDER", "PCI_BUS_ID" },
		{ "CUDA_VISIBLE_DEVICES", "0,1,2,3" },
		{ "GLOO_SOCKET_IFNAME", "eth0" },
		{ "NCCL_DEBUG", "WARN" },
		{ "NCCL_IB_HCA", "" },
		{ "NCCL_SOCKET_IFNAME", "eth0" },
		{ "OMPI_MCA_pml", "ucx" },
		{ "TORCH_NCCL_BLOCKING_WAIT", "1" },
		{ "UCX_TLS", "rc,cuda_copy" },
	};

	cd_system_snapshot_env(host, envp);
	ck_assert_uint_eq(host->n_env, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < host->n_env; i++) {
		ck_assert_str_eq(host->env[i].key, want[i][0]);
		ck_assert_str_eq(host->env[i].value, want[i][1]);
	}
}
END_TEST

START_TEST(test_snapshot_env_empty)
{
	char *envp[] = { "PATH=/bin", NULL };

	cd_system_snapshot_env(host, envp);
	ck_assert_uint_eq(host->n_env, 0);
	cd_system_snapshot_env(host, NULL);
	ck_assert_uint_eq(host->n_env, 0);
}
END_TEST

Suite *system_suite(void)
{
	Suite *s = suite_create("system");
	TCase *tc = tcase_create("container");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_container_k8s_secrets);
	tcase_add_test(tc, test_container_podman);
	tcase_add_test(tc, test_container_docker);
	tcase_add_test(tc, test_container_pid1_env);
	tcase_add_test(tc, test_container_pid1_env_not_a_prefix);
	tcase_add_test(tc, test_container_cgroup_kubepods);
	tcase_add_test(tc, test_container_cgroup_docker);
	tcase_add_test(tc, test_container_none);
	tcase_add_test(tc, test_container_unknown);
	tcase_add_test(tc, test_container_ignores_real_env);
	suite_add_tcase(s, tc);

	tc = tcase_create("iommu");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_iommu_unreadable);
	tcase_add_test(tc, test_iommu_off);
	tcase_add_test(tc, test_iommu_passthrough);
	tcase_add_test(tc, test_iommu_passthrough_arm);
	tcase_add_test(tc, test_iommu_on);
	tcase_add_test(tc, test_iommu_on_without_cmdline);
	suite_add_tcase(s, tc);

	tc = tcase_create("facts");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_machine_id);
	tcase_add_test(tc, test_boot_id_fallback);
	tcase_add_test(tc, test_no_host_id);
	tcase_add_test(tc, test_os_release);
	tcase_add_test(tc, test_os_release_single_quotes);
	tcase_add_test(tc, test_os_release_unquoted);
	tcase_add_test(tc, test_meminfo);
	tcase_add_test(tc, test_shm);
	tcase_add_test(tc, test_peermem);
	tcase_add_test(tc, test_nv_peer_mem);
	suite_add_tcase(s, tc);

	tc = tcase_create("env");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_is_comm_env);
	tcase_add_test(tc, test_snapshot_env);
	tcase_add_test(tc, test_snapshot_env_empty);
	suite_add_tcase(s, tc);
	return s;
}
