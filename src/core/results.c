/* SPDX-License-Identifier: BSD-3-Clause */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	[CD_ST_OK] = "ok", [CD_ST_SKIPPED] = "skipped", [CD_ST_ERROR] = "error", [CD_ST_TIMEOUT] = "timeout",
};
static const char *const part_names[] = {
	[CD_PART_SYSTEM] = "system", [CD_PART_TOPO] = "topo", [CD_PART_NET] = "net",
	[CD_PART_IB] = "ib", [CD_PART_GPU] = "gpu",
};
static const char *const severity_names[] = {
	[CD_SEV_INFO] = "info", [CD_SEV_WARN] = "warn", [CD_SEV_FAIL] = "fail",
};
static const char *const dim_names[] = {
	[CD_DIM_BANDWIDTH] = "bandwidth", [CD_DIM_LATENCY] = "latency", [CD_DIM_BALANCE] = "balance",
	[CD_DIM_STABILITY] = "stability",
};
static const char *const pci_kind_names[] = {
	[CD_PCI_OTHER] = "other", [CD_PCI_NIC] = "nic", [CD_PCI_HCA] = "hca",
	[CD_PCI_GPU] = "gpu", [CD_PCI_STORAGE] = "storage", [CD_PCI_BRIDGE] = "bridge",
};
static const char *const nic_kind_names[] = {
	[CD_NIC_PHYSICAL] = "physical", [CD_NIC_LOOPBACK] = "loopback", [CD_NIC_BRIDGE] = "bridge",
	[CD_NIC_VETH] = "veth",		[CD_NIC_BOND] = "bond",		[CD_NIC_VLAN] = "vlan",
	[CD_NIC_TUNNEL] = "tunnel",	[CD_NIC_IPOIB] = "ipoib",	[CD_NIC_VIRTUAL] = "virtual",
	[CD_NIC_OTHER] = "other",
};

static const char *name_of(const char *const *names, size_t n, int v)
{
	return v >= 0 && (size_t)v < n && names[v] ? names[v] : "unknown";
}

static int parse_of(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return (int)i;
	return -1;
}

const char *cd_status_str(enum cd_status s) { return name_of(status_names, ARRAY_SIZE(status_names), s); }
int cd_status_parse(const char *s) { return parse_of(status_names, ARRAY_SIZE(status_names), s); }
const char *cd_part_str(enum cd_part p) { return name_of(part_names, ARRAY_SIZE(part_names), p); }
const char *cd_severity_str(enum cd_severity s) { return name_of(severity_names, ARRAY_SIZE(severity_names), s); }
int cd_severity_parse(const char *s) { return parse_of(severity_names, ARRAY_SIZE(severity_names), s); }
const char *cd_dim_str(enum cd_dim d) { return name_of(dim_names, ARRAY_SIZE(dim_names), d); }
const char *cd_pci_kind_str(enum cd_pci_kind k) { return name_of(pci_kind_names, ARRAY_SIZE(pci_kind_names), k); }
int cd_pci_kind_parse(const char *s) { return parse_of(pci_kind_names, ARRAY_SIZE(pci_kind_names), s); }
const char *cd_nic_kind_str(enum cd_nic_kind k) { return name_of(nic_kind_names, ARRAY_SIZE(nic_kind_names), k); }
int cd_nic_kind_parse(const char *s) { return parse_of(nic_kind_names, ARRAY_SIZE(nic_kind_names), s); }

void cd_strv_push(struct cd_strv *sv, const char *s)
{
	char **slot = CD_PUSH(sv->v, sv->n, sv->cap);

	*slot = xstrdup(s);
}

void cd_strv_free(struct cd_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

void cd_section_set(struct cd_section *s, enum cd_status st, const char *reason_fmt, ...)
{
	va_list ap;

	free(s->reason);
	s->reason = NULL;
	s->status = st;
	if (reason_fmt) {
		va_start(ap, reason_fmt);
		s->reason = xvasprintf(reason_fmt, ap);
		va_end(ap);
	}
}

void cd_results_init(struct cd_results *r)
{
	memset(r, 0, sizeof(*r));
	r->schema = CD_SCHEMA_VERSION;
	r->run.ranks = 1;
	r->run.launcher_ranks = CD_NULL_I64;
	r->run.duration_s = NAN;
	r->run.timeout_s = NAN;
	cd_score_init(&r->score);
}

void cd_score_init(struct cd_score *s)
{
	memset(s, 0, sizeof(*s));
	s->total = CD_NULL_I64;
	s->renormalised = CD_TRI_NULL;
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		s->dim[d] = CD_NULL_I64;
		s->weight[d] = NAN;
	}
}

void cd_score_free(struct cd_score *s)
{
	free(s->grade);
	for (int d = 0; d < CD_DIM_COUNT; d++)
		free(s->basis[d]);
	cd_score_init(s);
}

struct cd_not_evaluated *cd_rules_run_add_not_evaluated(struct cd_rules_run *rr, const char *group,
							const char *reason)
{
	struct cd_not_evaluated *n = CD_PUSH(rr->not_evaluated, rr->n_not_evaluated, rr->cap_not_evaluated);

	n->group = xstrdup(group);
	n->reason = xstrdup(reason);
	return n;
}

void cd_rules_run_free(struct cd_rules_run *rr)
{
	free(rr->profile);
	free(rr->profile_reason);
	cd_strv_free(&rr->sources);
	cd_strv_free(&rr->evaluated);
	cd_strv_free(&rr->required);
	for (size_t i = 0; i < rr->n_not_evaluated; i++) {
		free(rr->not_evaluated[i].group);
		free(rr->not_evaluated[i].reason);
	}
	free(rr->not_evaluated);
	memset(rr, 0, sizeof(*rr));
}

void cd_host_init(struct cd_host *h)
{
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < CD_PART_COUNT; i++)
		h->part[i].status = CD_ST_SKIPPED;
	h->system.cpus_online = CD_NULL_I64;
	h->system.mem_total_bytes = CD_NULL_I64;
	h->system.shm_bytes = CD_NULL_I64;
	h->system.memlock_unlimited = CD_TRI_NULL;
	h->system.memlock_bytes = CD_NULL_I64;
	h->system.nofile_soft = CD_NULL_I64;
	h->system.nofile_hard = CD_NULL_I64;
	h->system.peermem = CD_TRI_NULL;
	h->system.dev_infiniband = CD_TRI_NULL;
	h->versions.cuda_driver = CD_NULL_I64;
}

struct cd_host *cd_results_add_host(struct cd_results *r)
{
	struct cd_host *h = CD_PUSH(r->hosts, r->n_hosts, r->cap_hosts);

	cd_host_init(h);
	return h;
}

struct cd_numa_node *cd_host_add_numa(struct cd_host *h)
{
	struct cd_numa_node *n = CD_PUSH(h->numa_nodes, h->n_numa, h->cap_numa);

	n->index = CD_NULL_I64;
	n->memory_bytes = CD_NULL_I64;
	return n;
}

struct cd_pci_device *cd_host_add_pci(struct cd_host *h)
{
	struct cd_pci_device *d = CD_PUSH(h->pci, h->n_pci, h->cap_pci);

	d->vendor_id = d->device_id = d->class_id = CD_NULL_I64;
	d->numa = CD_NULL_I64;
	d->link_gbyte_s = NAN;
	d->gen = d->width = d->max_gen = d->max_width = CD_NULL_I64;
	return d;
}

int cd_pci_nvidia_gpu(const struct cd_pci_device *d)
{
	return d->vendor_id == 0x10de && (d->class_id == 0x0300 || d->class_id == 0x0302);
}

size_t cd_host_nvidia_pci_gpus(const struct cd_host *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n_pci; i++)
		n += cd_pci_nvidia_gpu(&h->pci[i]);
	return n;
}

struct cd_nic *cd_host_add_nic(struct cd_host *h)
{
	struct cd_nic *n = CD_PUSH(h->nics, h->n_nics, h->cap_nics);

	n->ifindex = CD_NULL_I64;
	n->kind = CD_NIC_OTHER;
	n->admin_up = CD_TRI_NULL;
	n->mtu = CD_NULL_I64;
	n->speed_mbit_s = CD_NULL_I64;
	n->default_route = CD_TRI_NULL;
	n->numa = CD_NULL_I64;
	return n;
}

struct cd_hca *cd_host_add_hca(struct cd_host *h)
{
	struct cd_hca *c = CD_PUSH(h->hcas, h->n_hcas, h->cap_hcas);

	c->numa = CD_NULL_I64;
	return c;
}

struct cd_ib_port *cd_hca_add_port(struct cd_hca *hca)
{
	struct cd_ib_port *p = CD_PUSH(hca->ports, hca->n_ports, hca->cap_ports);

	p->port = CD_NULL_I64;
	p->active_width = CD_NULL_I64;
	p->lane_gbit_s = NAN;
	p->rate_gbit_s = NAN;
	p->lid = CD_NULL_I64;
	p->mtu_bytes = CD_NULL_I64;
	p->roce_v2_gid_index = CD_NULL_I64;
	return p;
}

struct cd_gid *cd_port_add_gid(struct cd_ib_port *p)
{
	struct cd_gid *g = CD_PUSH(p->gids, p->n_gids, p->cap_gids);

	g->index = CD_NULL_I64;
	g->ipv4 = CD_TRI_NULL;
	return g;
}

struct cd_gpu *cd_host_add_gpu(struct cd_host *h)
{
	struct cd_gpu *g = CD_PUSH(h->gpus, h->n_gpus, h->cap_gpus);

	g->index = CD_NULL_I64;
	g->numa = CD_NULL_I64;
	g->memory_bytes = CD_NULL_I64;
	g->persistence = CD_TRI_NULL;
	g->pcie_gen = g->pcie_width = g->pcie_max_gen = g->pcie_max_width = CD_NULL_I64;
	g->pcie_link_gbyte_s = NAN;
	return g;
}

struct cd_nvlink *cd_gpu_add_nvlink(struct cd_gpu *g)
{
	struct cd_nvlink *l = CD_PUSH(g->nvlinks, g->n_nvlinks, g->cap_nvlinks);

	l->link = CD_NULL_I64;
	l->up = CD_TRI_NULL;
	l->version = CD_NULL_I64;
	return l;
}

struct cd_acs *cd_host_add_acs(struct cd_host *h)
{
	struct cd_acs *a = CD_PUSH(h->acs, h->n_acs, h->cap_acs);

	a->redirect = CD_TRI_NULL;
	a->ctrl = CD_NULL_I64;
	return a;
}

struct cd_reach *cd_results_add_reach(struct cd_results *r)
{
	struct cd_reach *x = CD_PUSH(r->reach, r->n_reach, r->cap_reach);

	x->ok = CD_TRI_NULL;
	x->connect_us = NAN;
	return x;
}

struct cd_rank *cd_results_add_rank(struct cd_results *r, int64_t rank)
{
	struct cd_rank *k = CD_PUSH(r->ranks, r->n_ranks, r->cap_ranks);

	k->rank = rank;
	k->host_index = CD_NULL_I64;
	k->local_rank = CD_NULL_I64;
	k->answered = CD_TRI_NULL;
	return k;
}

void cd_rank_set_env(struct cd_rank *k, const char *key, const char *value)
{
	struct cd_kv *kv = CD_PUSH(k->env_diff, k->n_env_diff, k->cap_env_diff);

	kv->key = xstrdup(key);
	kv->value = value ? xstrdup(value) : NULL;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void paths_free_matrices(struct cd_paths *p)
{
	size_t g = p->gpus.n;

	free_strs(p->gpu_gpu, g * g);
	free_strs(p->gpu_net, g * p->nets.n);
	free_strs(p->nvml_p2p, g * g);
	free(p->nccl_p2p);
	free(p->cuda_p2p);
	p->gpu_gpu = p->gpu_net = p->nvml_p2p = NULL;
	p->nccl_p2p = p->cuda_p2p = NULL;
}

void cd_paths_alloc(struct cd_paths *p)
{
	size_t g = p->gpus.n;

	paths_free_matrices(p);
	p->gpu_gpu = xcalloc(g * g + 1, sizeof(*p->gpu_gpu));
	p->gpu_net = xcalloc(g * p->nets.n + 1, sizeof(*p->gpu_net));
	p->nvml_p2p = xcalloc(g * g + 1, sizeof(*p->nvml_p2p));
	p->nccl_p2p = xcalloc(g * g + 1, sizeof(*p->nccl_p2p));
	for (size_t i = 0; i < g * g; i++)
		p->nccl_p2p[i] = CD_TRI_NULL;
}

void cd_paths_free(struct cd_paths *p)
{
	paths_free_matrices(p);
	cd_strv_free(&p->gpus);
	cd_strv_free(&p->nets);
	free(p->source);
	free(p->p2p_level);
	free(p->p2p_level_source);
	memset(p, 0, sizeof(*p));
}

void cd_host_set_env(struct cd_host *h, const char *key, const char *value)
{
	struct cd_kv *kv;

	for (size_t i = 0; i < h->n_env; i++) {
		if (!strcmp(h->env[i].key, key)) {
			free(h->env[i].value);
			h->env[i].value = xstrdup(value);
			return;
		}
	}
	kv = CD_PUSH(h->env, h->n_env, h->cap_env);
	kv->key = xstrdup(key);
	kv->value = xstrdup(value);
}

struct cd_finding *cd_results_add_finding(struct cd_results *r, const char *id, enum cd_severity sev,
					  const char *host, const char *subject, const char *title)
{
	struct cd_finding *f = CD_PUSH(r->findings, r->n_findings, r->cap_findings);

	f->id = xstrdup(id);
	f->severity = sev;
	f->host = xstrdup(host);
	f->subject = xstrdup(subject);
	f->title = xstrdup(title);
	f->measured = NAN;
	f->expected = NAN;
	return f;
}

void cd_finding_evidence(struct cd_finding *f, const char *fmt, ...)
{
	va_list ap;
	char *e;

	va_start(ap, fmt);
	e = xvasprintf(fmt, ap);
	va_end(ap);
	*CD_PUSH(f->evidence.v, f->evidence.n, f->evidence.cap) = e;
}

struct cd_probe_run *cd_results_add_probe(struct cd_results *r, const char *name)
{
	struct cd_probe_run *p = CD_PUSH(r->probes, r->n_probes, r->cap_probes);

	p->name = xstrdup(name);
	p->status = CD_ST_OK;
	p->device = CD_NULL_I64;
	p->peer = CD_NULL_I64;
	p->nranks = CD_NULL_I64;
	p->rank = CD_NULL_I64;
	return p;
}

struct cd_probe_sample *cd_probe_add_sample(struct cd_probe_run *p)
{
	struct cd_probe_sample *s = CD_PUSH(p->samples, p->n_samples, p->cap_samples);

	s->bytes = CD_NULL_I64;
	s->iters = CD_NULL_I64;
	s->time_us = s->min_time_us = s->max_time_us = NAN;
	s->p10_time_us = s->p25_time_us = s->p75_time_us = s->p90_time_us = NAN;
	s->outliers = CD_NULL_I64;
	s->cpu_wait_pct = NAN;
	s->algbw_gbyte_s = s->busbw_gbyte_s = NAN;
	s->errors = CD_NULL_I64;
	return s;
}

struct cd_import *cd_results_add_import(struct cd_results *r, const char *file, const char *format)
{
	struct cd_import *im = CD_PUSH(r->run.imports, r->run.n_imports, r->run.cap_imports);

	im->file = file ? xstrdup(file) : NULL;
	im->format = format ? xstrdup(format) : NULL;
	im->tests = im->rows = im->skipped_lines = im->other_lines = 0;
	im->out_of_bounds = CD_NULL_I64;
	im->complete = CD_TRI_NULL;
	return im;
}

struct cd_merged *cd_results_add_merged(struct cd_results *r, const char *file, const char *mode)
{
	struct cd_merged *m = CD_PUSH(r->run.merged, r->run.n_merged, r->run.cap_merged);

	m->file = file ? xstrdup(file) : NULL;
	m->mode = mode ? xstrdup(mode) : NULL;
	return m;
}

struct cd_advice *cd_results_add_advice(struct cd_results *r)
{
	return CD_PUSH(r->advice, r->n_advice, r->cap_advice);
}

void cd_advice_free(struct cd_advice *a)
{
	free(a->env);
	free(a->value);
	free(a->host);
	free(a->why);
	cd_strv_free(&a->findings);
	cd_strv_free(&a->path);
}

/* Remove advice item i, keeping the order of the others (the order is the advice's rank). */
void cd_results_drop_advice(struct cd_results *r, size_t i)
{
	cd_advice_free(&r->advice[i]);
	memmove(&r->advice[i], &r->advice[i + 1], (r->n_advice - i - 1) * sizeof(r->advice[i]));
	r->n_advice--;
}

int cd_results_worst(const struct cd_results *r)
{
	int worst = -1;

	for (size_t i = 0; i < r->n_findings; i++)
		if ((int)r->findings[i].severity > worst)
			worst = (int)r->findings[i].severity;
	return worst;
}

int cd_host_from_log(const struct cd_host *h)
{
	return h->host_id_source && !strcmp(h->host_id_source, CD_HOST_FROM_LOG);
}

size_t cd_results_machines(const struct cd_results *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_hosts; i++)
		n += !cd_host_from_log(&r->hosts[i]);
	return n ? n : r->n_hosts;
}

static void port_free(struct cd_ib_port *p)
{
	free(p->state);
	free(p->phys_state);
	free(p->link_layer);
	free(p->netdev);
	for (size_t i = 0; i < p->n_gids; i++) {
		free(p->gids[i].gid);
		free(p->gids[i].type);
		free(p->gids[i].netdev);
	}
	free(p->gids);
}

static void host_free(struct cd_host *h)
{
	struct cd_system *s = &h->system;
	struct cd_versions *v = &h->versions;

	free(h->hostname);
	free(h->host_id);
	free(h->host_id_source);
	free(h->topology_source);
	for (int i = 0; i < CD_PART_COUNT; i++)
		free(h->part[i].reason);
	free(s->kernel);
	free(s->os);
	free(s->arch);
	free(s->container);
	free(s->container_evidence);
	free(s->iommu);
	free(s->iommu_evidence);
	free(s->fabric_manager);
	free(v->driver);
	free(v->nccl);
	free(v->nccl_net_plugin);
	free(v->hwloc);
	free(v->libnl);
	free(v->libibverbs);
	free(v->cjson);
	free(v->commdiag);
	for (size_t i = 0; i < h->n_numa; i++)
		free(h->numa_nodes[i].cpus);
	free(h->numa_nodes);
	for (size_t i = 0; i < h->n_pci; i++) {
		struct cd_pci_device *d = &h->pci[i];

		free(d->bus_id);
		free(d->vendor);
		free(d->device);
		cd_strv_free(&d->os_devices);
	}
	free(h->pci);
	for (size_t i = 0; i < h->n_gpus; i++) {
		struct cd_gpu *g = &h->gpus[i];

		free(g->name);
		free(g->uuid);
		free(g->bus_id);
		free(g->compute_capability);
		for (size_t j = 0; j < g->n_nvlinks; j++) {
			free(g->nvlinks[j].remote_bus_id);
			free(g->nvlinks[j].remote_kind);
		}
		free(g->nvlinks);
	}
	free(h->gpus);
	cd_paths_free(&h->paths);
	for (size_t i = 0; i < h->n_acs; i++) {
		free(h->acs[i].bus_id);
		free(h->acs[i].reason);
	}
	free(h->acs);
	for (size_t i = 0; i < h->n_nics; i++) {
		struct cd_nic *n = &h->nics[i];

		free(n->name);
		free(n->link_type);
		free(n->state);
		free(n->mac);
		free(n->master);
		free(n->driver);
		free(n->bus_id);
		cd_strv_free(&n->ipv4);
		cd_strv_free(&n->ipv6);
	}
	free(h->nics);
	for (size_t i = 0; i < h->n_hcas; i++) {
		struct cd_hca *c = &h->hcas[i];

		free(c->name);
		free(c->node_guid);
		free(c->fw_ver);
		free(c->board_id);
		free(c->bus_id);
		free(c->netdev);
		for (size_t j = 0; j < c->n_ports; j++)
			port_free(&c->ports[j]);
		free(c->ports);
	}
	free(h->hcas);
	for (size_t i = 0; i < h->n_env; i++) {
		free(h->env[i].key);
		free(h->env[i].value);
	}
	free(h->env);
}

void cd_finding_free(struct cd_finding *f)
{
	free(f->id);
	free(f->host);
	free(f->subject);
	free(f->title);
	free(f->unit);
	free(f->threshold);
	cd_strv_free(&f->evidence);
}

void cd_results_clear_judgement(struct cd_results *r)
{
	for (size_t i = 0; i < r->n_findings; i++)
		cd_finding_free(&r->findings[i]);
	r->n_findings = 0;
	for (size_t i = 0; i < r->n_advice; i++)
		cd_advice_free(&r->advice[i]);
	r->n_advice = 0;
	cd_rules_run_free(&r->rules);
	cd_score_free(&r->score);
}

void cd_rdma_memo_free(struct cd_rdma_memo *m)
{
	if (m)
		free(m->idx);
	free(m);
}

void cd_results_free(struct cd_results *r)
{
	if (!r)
		return;
	free(r->tool_version);
	free(r->run.started);
	free(r->run.mode);
	free(r->run.stopped_by);
	free(r->run.stopped_phase);
	for (size_t i = 0; i < r->run.n_imports; i++) {
		free(r->run.imports[i].file);
		free(r->run.imports[i].format);
		cd_strv_free(&r->run.imports[i].collectives);
		cd_strv_free(&r->run.imports[i].collective_from);
		cd_strv_free(&r->run.imports[i].hosts);
		free(r->run.imports[i].avg_busbw);
	}
	free(r->run.imports);
	for (size_t i = 0; i < r->run.n_merged; i++) {
		free(r->run.merged[i].file);
		free(r->run.merged[i].mode);
		cd_strv_free(&r->run.merged[i].hosts);
	}
	free(r->run.merged);
	cd_host_lookup_free(r->lookup);
	r->lookup = NULL;
	cd_rdma_memo_free(r->rdma_memo);
	r->rdma_memo = NULL;
	for (size_t i = 0; i < r->n_hosts; i++)
		host_free(&r->hosts[i]);
	free(r->hosts);
	for (size_t i = 0; i < r->n_probes; i++) {
		free(r->probes[i].name);
		free(r->probes[i].reason);
		free(r->probes[i].phase);
		free(r->probes[i].variant);
		free(r->probes[i].host);
		free(r->probes[i].samples);
	}
	free(r->probes);
	for (size_t i = 0; i < r->n_reach; i++) {
		struct cd_reach *x = &r->reach[i];

		free(x->from);
		free(x->to);
		free(x->iface);
		free(x->address);
		free(x->error);
	}
	free(r->reach);
	for (size_t i = 0; i < r->n_reach_counts; i++) {
		free(r->reach_counts[i].host);
		free(r->reach_counts[i].iface);
	}
	free(r->reach_counts);
	for (size_t i = 0; i < r->n_ranks; i++) {
		struct cd_rank *k = &r->ranks[i];

		free(k->host);
		free(k->error);
		for (size_t j = 0; j < k->n_env_diff; j++) {
			free(k->env_diff[j].key);
			free(k->env_diff[j].value);
		}
		free(k->env_diff);
	}
	free(r->ranks);
	free(r->run.launcher);
	if (r->baseline) {
		cd_results_free(r->baseline);
		free(r->baseline);
	}
	free(r->baseline_file);
	cd_wd_reports_free(r->watchdog, r->n_watchdog);
	cd_results_clear_judgement(r);
	free(r->findings);
	free(r->advice);
	memset(r, 0, sizeof(*r));
}

void cd_wd_reports_free(struct cd_wd_report *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].log);
		free(v[i].host);
		free(v[i].group);
		free(v[i].group_label);
		free(v[i].op);
	}
	free(v);
}

int cd_env_from_launcher(const char *name)
{
	static const char *const prefixes[] = { "OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix",
						"OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_RUNTIME_QUERY_hint",
						"OMPI_MCA_mpi_oversubscribe", "OMPI_MCA_rmaps_base_oversubscribe" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

char *cd_hostname_from_text(const char *s)
{
	char *c = cd_clean_text(s, CD_CLEAN_CONTROLS), *h = c ? c : xstrdup(s);
	size_t n = strlen(h);

	if (n > CD_HOSTNAME_MAX) {
		n = CD_HOSTNAME_MAX;
		while (n > 0 && ((unsigned char)h[n] & 0xc0) == 0x80)
			n--; /* h[n] continues a character: cut before that character */
		h[n] = '\0';
	}
	return h;
}
