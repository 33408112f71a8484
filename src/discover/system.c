/* SPDX-License-Identifier: BSD-3-Clause */
/* System facts: identity, container, limits, IOMMU, and the communication env snapshot. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "discover_opts.h"
#include "system.h"

extern char **environ;

static char *path_of(const struct cd_discover_opts *o, const char *path)
{
	return xasprintf("%s%s", o && o->sysfs_root ? o->sysfs_root : "", path);
}

static int exists(const struct cd_discover_opts *o, const char *path)
{
	char *p = path_of(o, path);
	struct stat st;
	int rc = stat(p, &st) == 0;

	free(p);
	return rc;
}

static int read_line(const struct cd_discover_opts *o, const char *path, char *buf, size_t len)
{
	char *p = path_of(o, path);
	int rc = cd_read_line(p, buf, len);

	free(p);
	return rc;
}

/* Whole small file (procfs reports size 0, so read until EOF); NULL when unreadable. */
static char *read_small(const struct cd_discover_opts *o, const char *path, size_t *len)
{
	char *p = path_of(o, path);
	FILE *f = fopen(p, "re");
	char *s = NULL;

	free(p);
	if (f) {
		s = cd_read_file(f, 1 << 20, len);
		fclose(f);
	}
	return s;
}

static int dir_has_entries(const struct cd_discover_opts *o, const char *path)
{
	char *p = path_of(o, path);
	DIR *d = opendir(p);
	struct dirent *e;
	int n = 0;

	free(p);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n > 0;
}

/* Does any NUL- or newline-separated record of buf contain needle? */
static int contains(const char *buf, size_t len, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; nl && i + nl <= len; i++)
		if (!memcmp(buf + i, needle, nl))
			return 1;
	return 0;
}

/*
 * Container engines leave different marks; the strongest first. Kubernetes wins
 * over the runtime that runs its pods, because the advice differs (pod spec, not
 * `docker run` flags).
 */
static void detect_container(struct cd_system *s, const struct cd_discover_opts *o)
{
	static const struct {
		const char *needle, *name;
	} cgroup_marks[] = {
		{ "kubepods", "kubernetes" }, { "libpod", "podman" }, { "docker", "docker" },
		{ "containerd", "containerd" }, { "/lxc", "lxc" },
	};
	size_t len = 0;
	char *env1, *cg;
	const char *k8s = getenv("KUBERNETES_SERVICE_HOST");
	const int fake_root = o && o->sysfs_root; /* tests: the real environment is not the fake tree's */

	if ((k8s && *k8s && !fake_root) || exists(o, "/var/run/secrets/kubernetes.io")) {
		s->container = xstrdup("kubernetes");
		s->container_evidence = xstrdup(k8s && *k8s && !fake_root ? "KUBERNETES_SERVICE_HOST is set"
									   : "/var/run/secrets/kubernetes.io exists");
		return;
	}
	if (exists(o, "/run/.containerenv")) {
		s->container = xstrdup("podman");
		s->container_evidence = xstrdup("/run/.containerenv exists");
		return;
	}
	if (exists(o, "/.dockerenv")) {
		s->container = xstrdup("docker");
		s->container_evidence = xstrdup("/.dockerenv exists");
		return;
	}
	/* systemd's convention: container managers set container=… in PID 1's environment */
	env1 = read_small(o, "/proc/1/environ", &len);
	if (env1) {
		for (size_t i = 0; i < len; i += strlen(env1 + i) + 1) {
			if (!strncmp(env1 + i, "container=", 10) && env1[i + 10]) {
				s->container = xstrdup(env1 + i + 10);
				s->container_evidence = xstrdup("PID 1 has container= in its environment");
				break;
			}
		}
		free(env1);
		if (s->container)
			return;
	}
	cg = read_small(o, "/proc/1/cgroup", &len);
	if (cg) {
		for (size_t i = 0; i < ARRAY_SIZE(cgroup_marks); i++) {
			if (contains(cg, len, cgroup_marks[i].needle)) {
				s->container = xstrdup(cgroup_marks[i].name);
				s->container_evidence = xasprintf("/proc/1/cgroup mentions '%s'", cgroup_marks[i].needle);
				break;
			}
		}
		free(cg);
		if (!s->container) {
			s->container = xstrdup("none");
			s->container_evidence = xstrdup("no container marks in /, /run, PID 1's environment or cgroups");
		}
	}
	/* no readable /proc/1/cgroup: container stays unknown (null) */
}

/* IOMMU: translation on when the kernel made IOMMU groups; passthrough when told so. */
static void detect_iommu(struct cd_system *s, const struct cd_discover_opts *o)
{
	size_t len = 0;
	char *cmdline = read_small(o, "/proc/cmdline", &len);
	int groups = dir_has_entries(o, "/sys/kernel/iommu_groups");
	int pt = cmdline && (contains(cmdline, len, "iommu=pt") || contains(cmdline, len, "iommu.passthrough=1"));

	if (groups < 0) {
		s->iommu_evidence = xstrdup("/sys/kernel/iommu_groups is not readable");
	} else if (!groups) {
		s->iommu = xstrdup("off");
		s->iommu_evidence = xstrdup("no IOMMU groups in /sys/kernel/iommu_groups");
	} else if (pt) {
		s->iommu = xstrdup("passthrough");
		s->iommu_evidence = xstrdup("IOMMU groups exist and the kernel command line sets passthrough");
	} else {
		s->iommu = xstrdup("on");
		s->iommu_evidence = xstrdup("IOMMU groups exist and the kernel command line sets no passthrough");
	}
	free(cmdline);
}

static void read_limits(struct cd_system *s)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		s->memlock_unlimited = rl.rlim_cur == RLIM_INFINITY;
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= (rlim_t)INT64_MAX)
			s->memlock_bytes = (int64_t)rl.rlim_cur;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur != RLIM_INFINITY)
			s->nofile_soft = (int64_t)rl.rlim_cur;
		if (rl.rlim_max != RLIM_INFINITY)
			s->nofile_hard = (int64_t)rl.rlim_max;
	}
}

static void read_shm(struct cd_system *s, const struct cd_discover_opts *o)
{
	char *p = path_of(o, "/dev/shm");
	struct statvfs sv;

	if (statvfs(p, &sv) == 0)
		s->shm_bytes = (int64_t)sv.f_blocks * (int64_t)sv.f_frsize;
	free(p);
}

static void read_os(struct cd_system *s, const struct cd_discover_opts *o)
{
	size_t len = 0;
	char *rel = read_small(o, "/etc/os-release", &len);
	char *line, *save = NULL;

	if (!rel)
		return;
	for (line = strtok_r(rel, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "PRETTY_NAME=", 12)) {
			char *v = line + 12;
			size_t n = strlen(v);

			if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
				s->os = xstrndup(v + 1, n - 2);
			else
				s->os = xstrdup(v);
			break;
		}
	}
	free(rel);
}

static void read_meminfo(struct cd_system *s, const struct cd_discover_opts *o)
{
	size_t len = 0;
	char *mi = read_small(o, "/proc/meminfo", &len);
	char *p;

	if (!mi)
		return;
	p = strstr(mi, "MemTotal:");
	if (p) {
		long long kib = strtoll(p + 9, NULL, 10);

		if (kib > 0)
			s->mem_total_bytes = kib * 1024;
	}
	free(mi);
}

int cd_system_is_comm_env(const char *name)
{
	static const char *const prefixes[] = { "NCCL_", "TORCH_NCCL_", "GLOO_", "OMPI_MCA_", "UCX_" };
	static const char *const exact[] = { "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
					     "NVIDIA_VISIBLE_DEVICES", "TORCH_DISTRIBUTED_DEBUG" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (!strcmp(name, exact[i]))
			return 1;
	return 0;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cd_kv *)a)->key, ((const struct cd_kv *)b)->key);
}

void cd_system_snapshot_env(struct cd_host *h, char **envp)
{
	for (char **e = envp; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		if (cd_system_is_comm_env(name))
			cd_host_set_env(h, name, eq + 1);
		free(name);
	}
	if (h->n_env > 1)
		qsort(h->env, h->n_env, sizeof(*h->env), kv_cmp);
}

int cd_system_discover(struct cd_host *h, const struct cd_discover_opts *o)
{
	struct cd_system *s = &h->system;
	struct utsname u;
	char buf[256];
	long ncpu;

	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		h->hostname = xstrdup(buf);
	}
	/* machine-id survives reboots; containers built from one image may share it, which is itself a fact */
	if (read_line(o, "/etc/machine-id", buf, sizeof(buf)) == 0 && buf[0]) {
		h->host_id = xstrdup(buf);
		h->host_id_source = xstrdup("/etc/machine-id");
	} else if (read_line(o, "/proc/sys/kernel/random/boot_id", buf, sizeof(buf)) == 0 && buf[0]) {
		h->host_id = xstrdup(buf);
		h->host_id_source = xstrdup("/proc/sys/kernel/random/boot_id");
	}
	if (uname(&u) == 0) {
		s->kernel = xstrdup(u.release);
		s->arch = xstrdup(u.machine);
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 0)
		s->cpus_online = ncpu;
	read_os(s, o);
	read_meminfo(s, o);
	detect_container(s, o);
	read_shm(s, o);
	read_limits(s);
	detect_iommu(s, o);
	s->peermem = exists(o, "/sys/module/nvidia_peermem") || exists(o, "/sys/module/nv_peer_mem");
	s->dev_infiniband = exists(o, "/dev/infiniband");
	cd_system_snapshot_env(h, environ);
	cd_section_set(&h->part[CD_PART_SYSTEM], CD_ST_OK, NULL);
	return 0;
}
