/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decision tree. Questions read facts first and findings second, so the
 * advice works on a document whose rules have not run yet (or on a log, where
 * explain.c turned lines into facts and LOG### findings). Leaves compute their
 * values from the same facts; a constant is only ever a documented default.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "advise_walk.h"
#include "catalog.h"
#include "envlint.h"
#include "explain.h"
#include "measure.h"


/* ---- small helpers over the document ---- */

int str_eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

int on_host(const struct cd_finding *f, const struct cd_host *h)
{
	return !h || !f->host || str_eq(f->host, h->hostname);
}

const struct cd_finding *finding_that(const struct cd_walk *w, const char *id, int (*holds)(const struct cd_finding *))
{
	for (size_t i = 0; i < w->r->n_findings; i++)
		if (!strcmp(w->r->findings[i].id, id) && on_host(&w->r->findings[i], w->h) &&
		    (!holds || holds(&w->r->findings[i])))
			return &w->r->findings[i];
	return NULL;
}

const struct cd_finding *finding(const struct cd_walk *w, const char *id)
{
	return finding_that(w, id, NULL);
}

void note(struct cd_walk *w, const char *id)
{
	for (size_t i = 0; i < w->ids.n; i++)
		if (!strcmp(w->ids.v[i], id))
			return;
	cd_strv_push(&w->ids, id);
}

/* Is the finding present (on this host in host scope)? Noted as evidence when it is. */
int has(struct cd_walk *w, const char *id)
{
	if (!finding(w, id))
		return 0;
	note(w, id);
	return 1;
}

/* Append "; what" to the walk's cause and mark the library it concerns. */
void add_cause(struct cd_walk *w, unsigned lib, const char *fmt, ...)
{
	size_t used = strlen(w->cause);
	char one[256];
	va_list ap;

	w->libs |= lib;
	va_start(ap, fmt);
	vsnprintf(one, sizeof(one), fmt, ap);
	va_end(ap);
	/* several hosts often say the same thing: once is enough */
	if (strstr(w->cause, one) || used + 4 >= sizeof(w->cause))
		return;
	snprintf(w->cause + used, sizeof(w->cause) - used, "%s%s", used ? "; " : "", one);
}

/* The library a variable belongs to, by its name. */
static unsigned lib_of_var(const char *var)
{
	if (starts(var, "NCCL_"))
		return LIB_NCCL;
	if (starts(var, "GLOO_"))
		return LIB_GLOO;
	if (starts(var, "UCX_"))
		return LIB_UCX;
	if (starts(var, "OMPI_MCA_"))
		return LIB_OMPI;
	return 0;
}

/*
 * Socket failures a finding shows, and the libraries they concern: NCCL's bootstrap
 * (LOG003), an MPI connection (LOG010), no path at all (TCP001, NET002), a variable naming
 * an interface that does not exist (ENV006: its own library). NET001 is noted as evidence
 * only when a library uses the interface (fail); which one, the reachability data says.
 */
unsigned libs_of_failures(struct cd_walk *w)
{
	unsigned libs = 0;

	if (has(w, "TCP001") | has(w, "NET002"))
		libs |= LIB_ALL;
	if (has(w, "LOG003"))
		libs |= LIB_NCCL | LIB_GLOO;
	if (has(w, "LOG010"))
		libs |= LIB_OMPI;
	for (size_t i = 0; i < w->r->n_findings; i++) {
		const struct cd_finding *f = &w->r->findings[i];

		if (!on_host(f, w->h))
			continue;
		if (!strcmp(f->id, "ENV006") && f->subject && lib_of_var(f->subject)) {
			note(w, "ENV006");
			libs |= lib_of_var(f->subject);
		}
		if (!strcmp(f->id, "NET001") && f->severity == CD_SEV_FAIL)
			note(w, "NET001");
	}
	return libs;
}

/* Names container runtimes and virtual networks give their interfaces. */
static int virtual_name(const char *name)
{
	static const char *const pfx[] = { "docker", "virbr", "veth", "cni", "flannel", "cali", "br-", "lxc",
					   "cilium", "weave", "kube", "tun", "tap", "vxlan", "genev", "podman" };

	for (size_t i = 0; i < ARRAY_SIZE(pfx); i++)
		if (starts(name, pfx[i]))
			return 1;
	return 0;
}

int virtual_nic(const struct cd_nic *n)
{
	return n->kind == CD_NIC_LOOPBACK || n->kind == CD_NIC_BRIDGE || n->kind == CD_NIC_VETH ||
	       n->kind == CD_NIC_TUNNEL || n->kind == CD_NIC_VIRTUAL || virtual_name(n->name);
}

/* Up, addressed, and not a loopback or container/virtual network device. */
int socket_candidate(const struct cd_nic *n)
{
	return n->name && cd_nic_is_up(n) && cd_nic_has_address(n) && !virtual_nic(n) && !n->master;
}

const struct cd_nic *nic_by_name(const struct cd_host *h, const char *name)
{
	for (size_t i = 0; h && i < h->n_nics; i++)
		if (str_eq(h->nics[i].name, name))
			return &h->nics[i];
	return NULL;
}

/* ---- emitting advice ---- */

static const struct cd_advise_node tree[];

static void fill_path(const struct cd_walk *w, struct cd_strv *path)
{
	for (int i = 0; i < w->nsteps; i++) {
		const struct cd_advise_node *n = &tree[w->steps[i]];
		char *s = n->act ? xstrdup(n->text) : xasprintf("%s %s", n->text, w->answers[i] ? "yes" : "no");

		cd_strv_push(path, s);
		free(s);
	}
}

static int advice_same(const struct cd_advice *a, const char *env, const char *value, const char *host)
{
	return (a->env ? str_eq(a->env, env) : !env) && (a->value ? str_eq(a->value, value) : !value) &&
	       (a->host ? str_eq(a->host, host) : !host);
}

/* Append one item; an identical one (same setting, value and host) only gains the findings. */

void walk_emit(struct cd_walk *w, const char *env, const char *value, const char *host, const char *fmt, ...)
{
	struct cd_advice *a;
	va_list ap;

	for (size_t i = 0; i < w->r->n_advice; i++) {
		a = &w->r->advice[i];
		if (!advice_same(a, env, value, host))
			continue;
		for (size_t k = 0; k < w->ids.n; k++) {
			size_t j;

			for (j = 0; j < a->findings.n && strcmp(a->findings.v[j], w->ids.v[k]); j++)
				;
			if (j == a->findings.n)
				cd_strv_push(&a->findings, w->ids.v[k]);
		}
		return;
	}
	a = cd_results_add_advice(w->r);
	a->env = env ? xstrdup(env) : NULL;
	a->value = value ? xstrdup(value) : NULL;
	a->host = host ? xstrdup(host) : NULL;
	for (size_t k = 0; k < w->ids.n; k++)
		cd_strv_push(&a->findings, w->ids.v[k]);
	fill_path(w, &a->path);
	va_start(ap, fmt);
	a->why = xvasprintf(fmt, ap);
	va_end(ap);
	w->added++;
}

/* A real host, not explain's bucket for log lines without a host prefix. */
static int named_host(const struct cd_host *h)
{
	return h->hostname && !cd_host_from_log(h);
}

/* The host an item applies to: this host when the job has several, else every host. */
const char *scope_host(const struct cd_walk *w)
{
	size_t named = 0;

	for (size_t i = 0; i < w->r->n_hosts; i++)
		named += named_host(&w->r->hosts[i]);
	return w->h && named > 1 && named_host(w->h) ? w->h->hostname : NULL;
}

/* ---- the tree ---- */

enum {
	J_MULTI, J_DUPHOST, L_HOSTID, J_DUPGPU, J_DUPGPU_HOSTS, L_HOSTID_LOG, L_SETDEVICE,
	J_VERS, L_VERS,
	J_REACH, J_REACH_ALL, J_REACH_NEED, J_REACH_SAME, L_IFACE_JOB, L_IFACE_PREFIX, L_NOROUTE, J_RAILS, L_CROSS_NIC,
	J_TIMEOUT, L_TIMEOUT, J_HANG, L_HANG, J_FLAKY, L_IBTIMEOUT, J_ENV, L_ENVFIX, J_UNEXPLAINED, L_COLLECT,
	H_GPUVIS, L_GPUVIS, H_CNET, L_NETHOST, H_SOCK, H_SOCK_NEED, H_SOCK_USABLE, L_IFACE_HOST, H_SOCK_BADADDR, L_OMPI_EXCLUDE, L_NOIFACE,
	H_IB, H_IB_DISABLED, L_IB_ENABLE, H_IB_DOWN, H_IB_RATES, H_IB_FAR, L_IB_HCA, H_ROCE, H_ROCE_OLD, L_GID_SET,
	H_GID_SET, L_GID_UNSET, H_MEMLOCK, L_MEMLOCK, H_PEERMEM, L_PEERMEM, H_DEVIB, L_DEVIB,
	H_P2P, H_P2P_ENV, L_P2P_ENABLE, H_ACS, L_ACS, H_IOMMU, L_IOMMU, H_P2P_BROKEN, L_P2P_DISABLE, H_CUMEM, L_CUMEM,
	H_SHM, L_SHM, H_NVS, H_FM, L_FM, H_NVLS, L_NVLS, H_PCIE, L_PCIE,
	N_NODES
};

#define Q(id, nm, sc, tp, txt, fn, y, n) [id] = { nm, txt, sc, tp, fn, NULL, y, n, -1 }
#define L(id, nm, sc, txt, fn, nx) [id] = { nm, txt, sc, NULL, NULL, fn, -1, -1, nx }
#define J CD_SCOPE_JOB
#define H CD_SCOPE_HOST

static const struct cd_advise_node tree[N_NODES] = {
	Q(J_MULTI, "job.multi", J, "host identity", "several hosts in the job?", q_multi, J_DUPHOST, J_DUPGPU),
	Q(J_DUPHOST, "job.dup-host", J, NULL, "a hostname or host id repeated across hosts?", q_dup_host, L_HOSTID, J_DUPGPU),
	L(L_HOSTID, "leaf.hostid", J, "distinct hostnames; NCCL_HOSTID per host", l_hostid, J_DUPGPU),
	Q(J_DUPGPU, "job.dup-gpu", J, NULL, "two ranks on one GPU (Duplicate GPU detected)?", q_dup_gpu, J_DUPGPU_HOSTS, J_VERS),
	Q(J_DUPGPU_HOSTS, "job.dup-gpu-hosts", J, NULL, "those ranks on differently named hosts?", q_dup_gpu_hosts,
	  L_HOSTID_LOG, L_SETDEVICE),
	L(L_HOSTID_LOG, "leaf.hostid-log", J, "distinct hostnames; NCCL_HOSTID per host", l_hostid, J_VERS),
	L(L_SETDEVICE, "leaf.set-device", J, "one GPU per rank: set the device before init", l_set_device, J_VERS),
	Q(J_VERS, "job.versions", J, "versions", "NCCL, driver or CUDA versions differ between hosts?", q_versions, L_VERS, J_REACH),
	L(L_VERS, "leaf.versions", J, "install the same versions everywhere", l_versions, J_REACH),
	Q(J_REACH, "job.reach", J, "socket interface", "several hosts with TCP reachability results?", q_reach,
	  J_REACH_ALL, J_RAILS),
	Q(J_REACH_ALL, "job.reach-all", J, NULL, "every host has an interface every other host reaches?", q_reach_all,
	  J_REACH_NEED, L_NOROUTE),
	Q(J_REACH_NEED, "job.reach-need", J, NULL, "a library would use an interface another host failed to reach "
	  "(its own default, or as set)?", q_reach_need, J_REACH_SAME, J_RAILS),
	Q(J_REACH_SAME, "job.reach-same", J, NULL, "the same interface name on every host?", q_reach_same, L_IFACE_JOB,
	  L_IFACE_PREFIX),
	L(L_IFACE_JOB, "leaf.iface-job", J, "NCCL/Gloo/Open MPI/UCX on the routed interface", l_iface_job, J_RAILS),
	L(L_IFACE_PREFIX, "leaf.iface-prefix", J, "a prefix list valid on every host; per-host names for Gloo and UCX",
	  l_iface_job, J_RAILS),
	L(L_NOROUTE, "leaf.no-route", J, "fix routing or the firewall first", l_noroute, J_RAILS),
	Q(J_RAILS, "job.rails", J, "rdma rails", "every host's RDMA ports on their own subnets, the same on all hosts "
	  "(and NCCL_CROSS_NIC not 0)?", q_rails, L_CROSS_NIC, J_TIMEOUT),
	L(L_CROSS_NIC, "leaf.cross-nic", J, "NCCL_CROSS_NIC=0: keep each ring on its rail", l_cross_nic, J_TIMEOUT),
	Q(J_TIMEOUT, "job.timeout", J, "timeouts", "a collective timed out or a rank straggled?", q_timeout, L_TIMEOUT, J_HANG),
	L(L_TIMEOUT, "leaf.timeout", J, "name the rank; what to collect next; timeouts for the next run", l_timeout, J_HANG),
	Q(J_HANG, "job.hang", J, "hangs", "commdiag hang named a stuck, missing or diverging rank (RAS, Flight Recorder)?",
	  q_hang, L_HANG, J_FLAKY),
	L(L_HANG, "leaf.hang", J, "the rank's host to check; the flight recorder for the next one", l_hang, J_FLAKY),
	Q(J_FLAKY, "job.ib-flaky", J, "flaky fabric", "InfiniBand completions failing with retry exceeded?", q_flaky,
	  L_IBTIMEOUT, J_ENV),
	L(L_IBTIMEOUT, "leaf.ib-timeout", J, "a longer NCCL_IB_TIMEOUT while the link is checked", l_ib_timeout, J_ENV),
	Q(J_ENV, "job.env", J, "environment", "settings the env linter flagged?", q_envfix, L_ENVFIX, J_UNEXPLAINED),
	L(L_ENVFIX, "leaf.env", J, "rename, unset or correct each flagged setting", l_envfix, J_UNEXPLAINED),
	Q(J_UNEXPLAINED, "job.unexplained", J, "unexplained errors", "errors in a log that no branch explains?",
	  q_unexplained, L_COLLECT, -1),
	L(L_COLLECT, "leaf.collect", J, "collect the failing library's own log", l_collect, -1),

	Q(H_GPUVIS, "host.gpu-visible", H, "gpu visibility", "NVIDIA GPUs on the PCI bus, none seen by CUDA, and "
	  "CUDA_VISIBLE_DEVICES set (GPU004)?", q_gpu_hidden, L_GPUVIS, H_CNET),
	L(L_GPUVIS, "leaf.gpu-visible", H, "unset CUDA_VISIBLE_DEVICES (or name GPUs that exist)", l_gpu_hidden, H_CNET),
	Q(H_CNET, "host.container-net", H, "container network", "a container on a bridge network (only veth "
	  "interfaces) in a job of several hosts, or with failed connections?", q_container_net, L_NETHOST, H_SOCK),
	L(L_NETHOST, "leaf.net-host", H, "--network=host (Kubernetes: hostNetwork: true)", l_net_host, H_IB),
	Q(H_SOCK, "host.socket", H, "socket interface", "one host, or no reachability results?", q_single,
	  H_SOCK_NEED, H_IB),
	Q(H_SOCK_NEED, "host.socket-need", H, NULL, "connections failing, a set interface variable selecting nothing "
	  "usable, or NCCL's own pick unusable?",
	  q_sock_need, H_SOCK_USABLE, H_IB),
	Q(H_SOCK_USABLE, "host.socket-usable", H, NULL, "a usable interface (default route first)?", q_sock_usable,
	  L_IFACE_HOST, H_SOCK_BADADDR),
	L(L_IFACE_HOST, "leaf.iface-host", H, "NCCL/Gloo/Open MPI/UCX on the default-route interface", l_iface_host, H_IB),
	Q(H_SOCK_BADADDR, "host.socket-badaddr", H, NULL, "a connection failed to a known address?", q_sock_badaddr,
	  L_OMPI_EXCLUDE, L_NOIFACE),
	L(L_OMPI_EXCLUDE, "leaf.ompi-exclude", H, "exclude the unreachable address from Open MPI", l_ompi_exclude, H_IB),
	L(L_NOIFACE, "leaf.no-iface", H, "bring up a routed interface", l_noiface, H_IB),
	Q(H_IB, "host.rdma", H, "rdma", "RDMA devices on this host?", q_rdma, H_IB_DISABLED, H_DEVIB),
	Q(H_IB_DISABLED, "host.ib-disabled", H, NULL, "NCCL_IB_DISABLE=1 while a port is active?", q_ib_disabled,
	  L_IB_ENABLE, H_IB_DOWN),
	L(L_IB_ENABLE, "leaf.ib-enable", H, "unset NCCL_IB_DISABLE", l_ib_enable, H_IB_DOWN),
	Q(H_IB_DOWN, "host.ib-down", H, NULL, "a port down or not active?", q_ib_down, L_IB_HCA, H_IB_RATES),
	Q(H_IB_RATES, "host.ib-rates", H, NULL, "active ports a library takes at different rates or link layers?", q_ib_rates, L_IB_HCA, H_IB_FAR),
	Q(H_IB_FAR, "host.ib-far", H, NULL, "an HCA SYS-far from every GPU while another is near?", q_ib_far, L_IB_HCA,
	  H_ROCE),
	L(L_IB_HCA, "leaf.ib-hca", H, "NCCL_IB_HCA: active, fastest, GPU-near ports first", l_ib_hca, H_ROCE),
	Q(H_ROCE, "host.roce", H, NULL, "an active RoCE port?", q_roce, H_ROCE_OLD, H_MEMLOCK),
	Q(H_ROCE_OLD, "host.roce-old", H, NULL, "NCCL older than 2.21 (or unknown)?", q_nccl_old, L_GID_SET, H_GID_SET),
	L(L_GID_SET, "leaf.gid-set", H, "NCCL_IB_GID_INDEX: the RoCE v2 IPv4 GID", l_gid_set, H_MEMLOCK),
	Q(H_GID_SET, "host.gid-set", H, NULL, "NCCL_IB_GID_INDEX set anyway?", q_gid_set, L_GID_UNSET, H_MEMLOCK),
	L(L_GID_UNSET, "leaf.gid-unset", H, "unset NCCL_IB_GID_INDEX", l_gid_unset, H_MEMLOCK),
	Q(H_MEMLOCK, "host.memlock", H, NULL, "locked-memory limit too low for RDMA?", q_memlock, L_MEMLOCK, H_PEERMEM),
	L(L_MEMLOCK, "leaf.memlock", H, "memlock unlimited (ulimit, limits.conf, --ulimit)", l_memlock, H_PEERMEM),
	Q(H_PEERMEM, "host.peermem", H, NULL, "GPUs and RDMA but GPUDirect RDMA unavailable?", q_peermem, L_PEERMEM, H_DEVIB),
	L(L_PEERMEM, "leaf.peermem", H, "load nvidia-peermem", l_peermem, H_DEVIB),
	Q(H_DEVIB, "host.dev-infiniband", H, NULL, "a container without /dev/infiniband on an RDMA host?", q_devib,
	  L_DEVIB, H_P2P),
	L(L_DEVIB, "leaf.dev-infiniband", H, "pass /dev/infiniband into the container", l_devib, H_P2P),
	Q(H_P2P, "host.p2p", H, "gpu peer-to-peer", "two or more GPUs (or P2P errors)?", q_gpus2, H_P2P_ENV, H_SHM),
	Q(H_P2P_ENV, "host.p2p-env-off", H, NULL, "NCCL_P2P_DISABLE set while NVLink connects the GPUs (P2P003)?",
	  q_p2p_env_off, L_P2P_ENABLE, H_ACS),
	L(L_P2P_ENABLE, "leaf.p2p-enable", H, "unset NCCL_P2P_DISABLE", l_p2p_enable, H_ACS),
	Q(H_ACS, "host.acs", H, NULL, "ACS redirect on a PCIe bridge between GPUs?", q_acs, L_ACS, H_IOMMU),
	L(L_ACS, "leaf.acs", H, "setpci ACS off on the named bridges; NCCL_P2P_DISABLE=1 until then", l_acs, H_IOMMU),
	Q(H_IOMMU, "host.iommu", H, NULL, "the IOMMU translating DMA (on, not passthrough)?", q_iommu, L_IOMMU, H_P2P_BROKEN),
	L(L_IOMMU, "leaf.iommu", H, "iommu=pt; NCCL_P2P_DISABLE=1 until then", l_iommu, H_P2P_BROKEN),
	Q(H_P2P_BROKEN, "host.p2p-broken", H, NULL, "P2P reported unsupported or failing between GPUs?", q_p2p_broken,
	  L_P2P_DISABLE, H_CUMEM),
	L(L_P2P_DISABLE, "leaf.p2p-disable", H, "NCCL_P2P_DISABLE=1", l_p2p_disable, H_CUMEM),
	Q(H_CUMEM, "host.cumem", H, NULL, "P2P failing on cuMem host allocations?", q_cumem, L_CUMEM, H_SHM),
	L(L_CUMEM, "leaf.cumem", H, "NCCL_CUMEM_HOST_ENABLE=0", l_cumem, H_SHM),
	Q(H_SHM, "host.shm", H, "shared memory", "/dev/shm too small in a container (or shm failures)?", q_shm, L_SHM, H_NVS),
	L(L_SHM, "leaf.shm", H, "--ipc=host or --shm-size (NCCL_SHM_DISABLE=1 is the slow fallback)", l_shm, H_NVS),
	Q(H_NVS, "host.nvswitch", H, "nvswitch", "GPUs on NVSwitches (or NVSwitch errors)?", q_nvswitch, H_FM, H_PCIE),
	Q(H_FM, "host.fabric-manager", H, NULL, "fabric manager not running?", q_fm_down, L_FM, H_NVLS),
	L(L_FM, "leaf.fabric-manager", H, "systemctl enable --now nvidia-fabricmanager", l_fm, H_NVLS),
	Q(H_NVLS, "host.nvls", H, NULL, "NVLS setup failing?", q_nvls, L_NVLS, H_PCIE),
	L(L_NVLS, "leaf.nvls", H, "NCCL_NVLS_ENABLE=0 until the fabric is reset", l_nvls, H_PCIE),
	Q(H_PCIE, "host.pcie", H, "pcie", "a GPU's PCIe link below its maximum?", q_pcie, L_PCIE, -1),
	L(L_PCIE, "leaf.pcie", H, "reseat or move the GPU (measured vs expected)", l_pcie, -1),
};

const struct cd_advise_node *cd_advise_tree(size_t *n)
{
	*n = N_NODES;
	return tree;
}

static void walk(struct cd_walk *w, int start)
{
	int guard = 0;

	for (int i = start; i >= 0 && guard++ < N_NODES * 2;) {
		const struct cd_advise_node *n = &tree[i];

		if (n->topic) {
			w->nsteps = 0;
			cd_strv_free(&w->ids);
		}
		if (w->nsteps < MAX_STEPS)
			w->steps[w->nsteps] = i;
		if (n->act) {
			w->answers[w->nsteps < MAX_STEPS ? w->nsteps : MAX_STEPS - 1] = 1;
			w->nsteps += w->nsteps < MAX_STEPS;
			n->act(w);
			w->nsteps--;
			cd_strv_free(&w->ids);
			i = n->next;
			continue;
		}
		{
			int yes = n->test(w);

			if (w->nsteps < MAX_STEPS)
				w->answers[w->nsteps++] = yes;
			i = yes ? n->yes : n->no;
		}
	}
}

int cd_advise(struct cd_results *r)
{
	struct cd_walk w = { .r = r, .reach = cd_reach_index_new(r) };

	walk(&w, J_MULTI);
	for (size_t i = 0; i < r->n_hosts; i++) {
		w.h = &r->hosts[i];
		walk(&w, H_GPUVIS);
	}
	cd_strv_free(&w.ids);
	cd_reach_index_free(w.reach);
	return w.added;
}

void cd_advise_catalog(struct cd_catalog *cat)
{
	size_t n;
	const struct cd_advise_node *t = cd_advise_tree(&n);

	for (size_t i = 0; i < n; i++) {
		struct cd_cat_node *x = cd_catalog_add_node(cat);

		x->name = cd_catalog_str(t[i].name);
		x->text = cd_catalog_str(t[i].text);
		x->topic = cd_catalog_str(t[i].topic);
		x->job = t[i].scope == CD_SCOPE_JOB;
		x->leaf = t[i].act != NULL;
		if (x->leaf) {
			x->next = cd_catalog_str(t[i].next >= 0 ? t[t[i].next].name : NULL);
		} else {
			x->yes = cd_catalog_str(t[i].yes >= 0 ? t[t[i].yes].name : NULL);
			x->no = cd_catalog_str(t[i].no >= 0 ? t[t[i].no].name : NULL);
		}
	}
}
