/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scope a probe ran in, read from the document: how many hosts its operation
 * involved (measure.c), and over what: NVLink or PCIe between the GPUs of one host,
 * shared memory between MPI ranks of one host, InfiniBand/RoCE or TCP between hosts.
 * Where the facts do not say (an import carries no NVLink or RDMA facts) the more
 * lenient target of that kind is used and the scope says "not known".
 */
#include "scope.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libdefaults.h"
#include "measure.h"

static int nvlink_up(const struct cd_gpu *g, const char *to_bus)
{
	for (size_t i = 0; i < g->n_nvlinks; i++) {
		const struct cd_nvlink *l = &g->nvlinks[i];

		if (l->up != CD_TRI_TRUE)
			continue;
		/* through NVSwitch every GPU reaches every other; else the link names its peer */
		if (!to_bus || (l->remote_kind && !strcmp(l->remote_kind, "nvswitch")) ||
		    (l->remote_bus_id && !strcasecmp(l->remote_bus_id, to_bus)))
			return 1;
	}
	return 0;
}

/* GPUs of one host: 1 NVLink, 0 PCIe (facts say so), -1 not known. */
static int gpu_nvlink(const struct cd_host *h, const struct cd_probe_run *p)
{
	const struct cd_gpu *a, *b;

	if (!h || h->part[CD_PART_GPU].status != CD_ST_OK || !h->n_gpus)
		return -1;
	if (p->name && !strcmp(p->name, "p2p.latency")) {
		if (!(a = cd_host_gpu(h, p->device)) || !(b = cd_host_gpu(h, p->peer)))
			return -1;
		return nvlink_up(a, b->bus_id) && nvlink_up(b, a->bus_id);
	}
	for (size_t i = 0; i < h->n_gpus; i++)
		if (!nvlink_up(&h->gpus[i], NULL))
			return 0;
	return 1;
}

/* Between hosts: 1 RDMA, 0 TCP (facts say so), -1 not known. */
static int hosts_rdma(const struct cd_results *r, const size_t *idx, size_t n, int nccl)
{
	int known = 1;

	for (size_t k = 0; k < n; k++) {
		const struct cd_host *h = &r->hosts[idx[k]];
		const char *v;
		int active = 0;

		if (nccl && (((v = cd_host_env(h, "NCCL_IB_DISABLE")) && !strcmp(v, "1")) ||
			     ((v = cd_host_env(h, "NCCL_NET")) && !strcasecmp(v, "Socket"))))
			return 0;
		for (size_t i = 0; i < h->n_hcas && !active; i++)
			for (size_t j = 0; j < h->hcas[i].n_ports && !active; j++)
				active = h->hcas[i].ports[j].state && !strcmp(h->hcas[i].ports[j].state, "active");
		if (active)
			continue;
		if (h->part[CD_PART_IB].status != CD_ST_OK)
			known = 0;
		else
			return 0; /* RDMA facts, and no active port on this host */
	}
	return known ? 1 : -1;
}

/*
 * A job's collectives span the same hosts, and the rules and the score ask this of every
 * rank's run: N × N at thousands of hosts (issue 18). Above 64 hosts the last answer is
 * kept in the document (r->rdma_memo) for the same hosts array and host set; facts do not
 * change while a document is judged.
 */
static int hosts_rdma_memo(const struct cd_results *r, const size_t *idx, size_t n, int nccl)
{
	/* the memo is no part of the document: the documents it is kept for are never const objects */
	struct cd_results *w = (struct cd_results *)r;
	struct cd_rdma_memo *m = w->rdma_memo;

	if (n <= 64)
		return hosts_rdma(r, idx, n, nccl);
	if (m && m->hosts == r->hosts && m->n_hosts == r->n_hosts && m->n == n && m->nccl == nccl &&
	    !memcmp(m->idx, idx, n * sizeof(*idx)))
		return m->answer;
	if (!m)
		m = w->rdma_memo = xcalloc(1, sizeof(*m));
	free(m->idx);
	m->idx = xmalloc(n * sizeof(*idx));
	memcpy(m->idx, idx, n * sizeof(*idx));
	m->hosts = r->hosts;
	m->n_hosts = r->n_hosts;
	m->n = n;
	m->nccl = nccl;
	m->answer = hosts_rdma(r, idx, n, nccl);
	return m->answer;
}

int cd_latency_ref(const struct cd_results *r, const struct cd_conf *c, const int64_t *ranks,
		   const struct cd_probe_run *p, struct cd_lat_ref *x)
{
	size_t *idx;
	int coll = cd_probe_is_collective(p), mpi = p->name && !strcmp(p->name, "mpi.latency"), t;
	const struct cd_probe_sample *s = cd_probe_lat_sample(p);

	memset(x, 0, sizeof(*x));
	if (!(coll || mpi || (p->name && !strcmp(p->name, "p2p.latency"))) || !s)
		return -1;
	x->bytes = s->bytes;
	x->hops = 1;
	x->warn = CD_K_NONE;
	x->busy = cd_probe_oversubscribed(r, ranks, p);
	x->contended = cd_sample_contended(s, cd_conf_get(c, CD_K_STAB_CPU_WAIT_MAX));
	idx = xcalloc(r->n_hosts + 1, sizeof(*idx));
	x->hosts = cd_probe_hosts(r, p, idx, r->n_hosts);
	if (!x->hosts)
		x->hosts = 1;
	if (x->hosts == 1 && mpi) {
		x->scope = CD_SCOPE_SHM;
		x->known = 1;
		x->target = CD_K_MPI_SHM_LAT_TARGET;
	} else if (x->hosts == 1) {
		t = gpu_nvlink(cd_probe_host(r, p), p);
		x->scope = t == 1 ? CD_SCOPE_NVLINK : CD_SCOPE_PCIE;
		x->known = t >= 0;
		if (coll) {
			x->target = t == 1 ? CD_K_NCCL_LAT_TARGET : CD_K_NCCL_PCIE_LAT_TARGET;
			x->warn = CD_K_NCCL_LAT_WARN;
		} else {
			x->target = t == 1 ? CD_K_P2P_LAT_TARGET : CD_K_P2P_PCIE_LAT_TARGET;
		}
	} else {
		t = hosts_rdma_memo(r, idx, x->hosts, coll);
		x->scope = t == 1 ? CD_SCOPE_RDMA : CD_SCOPE_TCP;
		x->known = t >= 0;
		if (coll) {
			x->target = t == 1 ? CD_K_NCCL_RDMA_LAT_TARGET : CD_K_NCCL_TCP_LAT_TARGET;
			x->warn = CD_K_NCCL_NET_LAT_WARN;
			/* NCCL's small messages between nodes go up and down a tree (double binary
			 * trees since NCCL 2.4): the latency grows with its depth, log2 of the nodes */
			x->hops = fmax(1.0, log2((double)x->hosts));
		} else {
			x->target = t == 1 ? CD_K_MPI_LAT_TARGET : CD_K_MPI_TCP_LAT_TARGET;
		}
	}
	free(idx);
	x->target_us = cd_conf_get(c, x->target) * x->hops;
	x->warn_us = x->warn != CD_K_NONE ? cd_conf_get(c, x->warn) * x->hops : 0;
	return 0;
}

const char *cd_lat_ref_str(const struct cd_lat_ref *x, char *buf, size_t len)
{
	static const char *const over[] = {
		[CD_SCOPE_NVLINK] = "over NVLink",
		[CD_SCOPE_PCIE] = "over PCIe",
		[CD_SCOPE_SHM] = "through shared memory",
		[CD_SCOPE_RDMA] = "over InfiniBand/RoCE",
		[CD_SCOPE_TCP] = "over TCP",
	};
	char hosts[32];

	if (x->hosts == 1)
		snprintf(hosts, sizeof(hosts), "one host");
	else
		snprintf(hosts, sizeof(hosts), "%zu hosts", x->hosts);
	if (x->known)
		snprintf(buf, len, "%s %s", hosts, over[x->scope]);
	else
		snprintf(buf, len, "%s, transport not known: %s assumed", hosts,
			 x->scope == CD_SCOPE_TCP ? "TCP" : "PCIe");
	return buf;
}

void cd_allreduce_floor(const struct cd_results *r, const struct cd_conf *c, const struct cd_probe_run *p,
			struct cd_floor_ref *x)
{
	double s_bytes, n;

	memset(x, 0, sizeof(*x));
	x->state = CD_FLOOR_NONE;
	x->key = CD_K_NCCL_AR_MIN;
	if (!p->name || strcmp(p->name, "nccl.all_reduce") || isnan(cd_probe_bw(p)))
		return;
	x->s = cd_probe_largest(p);
	x->hosts = cd_probe_n_hosts(r, p);
	x->ref_bytes = cd_conf_get(c, CD_K_NCCL_FLOOR_REF_BYTES);
	x->half_bytes = cd_conf_get(c, CD_K_NCCL_FLOOR_HALF_BYTES);
	x->min_bytes = cd_conf_get(c, CD_K_NCCL_FLOOR_BYTES);
	if (x->hosts > 1) {
		x->key = CD_K_NCCL_NET_AR_MIN;
		if (!(cd_conf_get(c, x->key) > 0)) {
			/* a single-host figure (NVSwitch) says nothing about a ring through the NICs */
			x->state = cd_conf_get(c, CD_K_NCCL_AR_MIN) > 0 ? CD_FLOOR_NO_NET : CD_FLOOR_NONE;
			return;
		}
	}
	x->quoted = cd_conf_get(c, x->key);
	if (!(x->quoted > 0))
		return;
	s_bytes = (double)x->s->bytes;
	if (s_bytes < x->min_bytes) {
		x->state = CD_FLOOR_SHORT;
		return;
	}
	x->state = CD_FLOOR_JUDGED;
	x->floor = x->quoted;
	n = x->half_bytes > 0 ? x->half_bytes : 0;
	if (x->ref_bytes > 0 && s_bytes < x->ref_bytes)
		x->floor = x->quoted * (s_bytes / (n + s_bytes)) * ((n + x->ref_bytes) / x->ref_bytes);
}
