/* SPDX-License-Identifier: BSD-3-Clause */
/* Many nodes without MPI: launcher detection, pair schedules, merging ranks' parts, and the cross-host rules. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "out.h"
#include "reach.h"
#include "report.h"
#include "fault.h"
#include "results.h"
#include "rules.h"
#include "rules_hosts.h"
#include "suites.h"

START_TEST(test_detect)
{
	char *none[] = { "PATH=/bin", NULL };
	char *ompi[] = { "OMPI_COMM_WORLD_SIZE=4", NULL };
	char *hydra[] = { "PMI_SIZE=8", "PMI_RANK=1", NULL };
	char *batch[] = { "SLURM_NTASKS=4", "SLURM_JOB_ID=7", NULL };
	char *srun[] = { "SLURM_NTASKS=4", "SLURM_STEP_ID=0", "SLURM_PROCID=2", "SLURM_STEP_NUM_TASKS=16", NULL };
	char *srun_pmix[] = { "SLURM_NTASKS=2", "SLURM_STEP_ID=0", "SLURM_PROCID=1", "SLURM_STEP_NUM_TASKS=2",
			      "PMIX_RANK=1", NULL };
	char *srun_pmi2[] = { "SLURM_NTASKS=2", "SLURM_STEP_ID=0", "SLURM_PROCID=1", "SLURM_STEP_NUM_TASKS=2",
			      "PMI_RANK=1", "PMI_SIZE=2", NULL };
	char *hydra_in_slurm[] = { "SLURM_NTASKS=2", "SLURM_STEP_ID=0", "SLURM_PROCID=1", "SLURM_STEP_NUM_TASKS=2",
				   "PMI_RANK=5", "PMI_SIZE=8", NULL };
	int64_t n;

	ck_assert_ptr_null(cd_dist_detect(none, &n));
	ck_assert(n == CD_NULL_I64);
	ck_assert_str_eq(cd_dist_detect(ompi, &n), "mpirun");
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(cd_dist_detect(hydra, &n), "pmi");
	ck_assert_int_eq(n, 8);
	/* a batch script is not a task: no MPI there */
	ck_assert_ptr_null(cd_dist_detect(batch, &n));
	ck_assert_str_eq(cd_dist_detect(srun, &n), "srun");
	ck_assert_int_eq(n, 16);
	/* srun --mpi=pmix and --mpi=pmi2, as Slurm 22.05 sets them: still srun, with its count */
	ck_assert_str_eq(cd_dist_detect(srun_pmix, &n), "srun");
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(cd_dist_detect(srun_pmi2, &n), "srun");
	ck_assert_int_eq(n, 2);
	/* hydra's proxies started by srun in an allocation: the ranks are hydra's, not srun's */
	ck_assert_str_eq(cd_dist_detect(hydra_in_slurm, &n), "pmi");
	ck_assert_int_eq(n, 8);
}
END_TEST

/* Every round is a set of disjoint, symmetric pairs; over all rounds each pair meets once. */
START_TEST(test_round_robin)
{
	for (int n = 2; n <= 9; n++) {
		int met[9][9] = { { 0 } };

		ck_assert_int_eq(cd_pair_rounds(n), n % 2 ? n : n - 1);
		for (int r = 0; r < cd_pair_rounds(n); r++)
			for (int u = 0; u < n; u++) {
				int p = cd_pair_partner(n, r, u);

				if (p < 0)
					continue;
				ck_assert_int_ne(p, u);
				ck_assert_int_eq(cd_pair_partner(n, r, p), u);
				met[u][p]++;
			}
		for (int u = 0; u < n; u++)
			for (int v = 0; v < n; v++)
				ck_assert_int_eq(met[u][v], u != v);
	}
	ck_assert_int_eq(cd_pair_rounds(1), 0);
	ck_assert_int_eq(cd_pair_partner(1, 0, 0), -1);
}
END_TEST

START_TEST(test_ring)
{
	for (int n = 2; n <= 9; n++) {
		int edges = 0;

		for (int r = 0; r < CD_RING_ROUNDS; r++)
			for (int u = 0; u < n; u++) {
				int init = -1, p = cd_ring_partner(n, r, u, &init), back_init = -1;

				if (p < 0)
					continue;
				ck_assert_int_eq(cd_ring_partner(n, r, p, &back_init), u);
				ck_assert_int_ne(init, back_init);
				if (init) {
					ck_assert_int_eq(p, (u + 1) % n);
					edges++;
				}
			}
		ck_assert_int_eq(edges, n == 2 ? 1 : n);
	}
}
END_TEST

/* Labels of a job of n hosts: eth0 on 10.0.0.0/16 everywhere, ib0 on two hosts, odd naming on one. */
#define PEER_HOSTS 300
static const char *const common_keys[] = { "if:eth0", "net:10.0.0.0/16", "names:eth0" };
static const char *const ib_keys[] = { "if:eth0", "net:10.0.0.0/16", "if:ib0", "net:192.168.5.0/24", "names:eth0,ib0" };
static const char *const odd_keys[] = { "if:enp1s0", "net:10.0.0.0/16", "names:enp1s0" };

static void peer_labels(int n, const char *const **keys, size_t *n_keys)
{
	for (int h = 0; h < n; h++) {
		keys[h] = common_keys;
		n_keys[h] = 3;
	}
	keys[37] = keys[281] = ib_keys;
	n_keys[37] = n_keys[281] = 5;
	keys[155] = odd_keys;
	n_keys[155] = 3;
}

static int peer_has(const int *p, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (p[i] == x)
			return 1;
	return 0;
}

START_TEST(test_reach_peers)
{
	const char *const *keys[PEER_HOSTS];
	size_t n_keys[PEER_HOSTS];
	int peers[CD_REACH_CAP], again[CD_REACH_CAP], differ = 0;

	peer_labels(PEER_HOSTS, keys, n_keys);
	for (int self = 0; self < PEER_HOSTS; self++) {
		int n = cd_reach_peers(PEER_HOSTS, self, CD_REACH_SEED, CD_REACH_K, keys, n_keys, peers, CD_REACH_CAP);
		int m = cd_reach_peers(PEER_HOSTS, self, CD_REACH_SEED, CD_REACH_K, keys, n_keys, again, CD_REACH_CAP);

		/* bounded: the ring, k hashed, and at most one host per label no peer had */
		ck_assert_int_ge(n, 2 + CD_REACH_K);
		ck_assert_int_le(n, 2 + CD_REACH_K + 5);
		/* deterministic by seed */
		ck_assert_int_eq(n, m);
		ck_assert_mem_eq(peers, again, (size_t)n * sizeof(int));
		m = cd_reach_peers(PEER_HOSTS, self, CD_REACH_SEED + 1, CD_REACH_K, keys, n_keys, again, CD_REACH_CAP);
		differ += m != n || memcmp(peers, again, (size_t)n * sizeof(int)) != 0;
		/* the ring neighbours first, never self, no host twice */
		ck_assert_int_eq(peers[0], (self + 1) % PEER_HOSTS);
		ck_assert_int_eq(peers[1], (self - 1 + PEER_HOSTS) % PEER_HOSTS);
		for (int i = 0; i < n; i++) {
			ck_assert_int_ne(peers[i], self);
			ck_assert(!peer_has(peers, i, peers[i]));
		}
		/* every interface name, subnet and naming of another host is tested by this one */
		for (int h = 0; h < PEER_HOSTS; h++) {
			if (h == self)
				continue;
			for (size_t q = 0; q < n_keys[h]; q++) {
				int found = 0;

				for (int i = 0; i < n && !found; i++)
					for (size_t r = 0; r < n_keys[peers[i]]; r++)
						found |= !strcmp(keys[peers[i]][r], keys[h][q]);
				ck_assert_msg(found, "host %d: label %s of host %d untested", self, keys[h][q], h);
			}
		}
	}
	ck_assert_int_gt(differ, PEER_HOSTS / 2);
	/* a small job: every other host, once */
	ck_assert_int_eq(cd_reach_peers(2, 0, CD_REACH_SEED, CD_REACH_K, keys, n_keys, peers, CD_REACH_CAP), 1);
	ck_assert_int_eq(peers[0], 1);
	ck_assert_int_eq(cd_reach_peers(5, 3, CD_REACH_SEED, CD_REACH_K, keys, n_keys, peers, CD_REACH_CAP), 4);
	ck_assert_int_eq(cd_reach_peers(1, 0, CD_REACH_SEED, CD_REACH_K, keys, n_keys, peers, CD_REACH_CAP), 0);
	/* the cap holds */
	ck_assert_int_eq(cd_reach_peers(PEER_HOSTS, 9, CD_REACH_SEED, CD_REACH_K, keys, n_keys, peers, 3), 3);
	/* without labels: the ring and k hashed peers, at 4096 hosts as at 300 */
	ck_assert_int_eq(cd_reach_peers(4096, 4000, CD_REACH_SEED, CD_REACH_K, NULL, NULL, peers, CD_REACH_CAP),
			 2 + CD_REACH_K);
}
END_TEST

START_TEST(test_reach_second)
{
	const char *const *keys[PEER_HOSTS];
	size_t n_keys[PEER_HOSTS];
	int out[8], tried[] = { 37 }, m;

	peer_labels(PEER_HOSTS, keys, n_keys);
	/* ib0 failed on host 37: the second sample is the other host with ib0, and only it */
	m = cd_reach_second(PEER_HOSTS, 5, CD_REACH_SEED, "if:ib0", keys, n_keys, tried, 1, CD_REACH_K2, out);
	ck_assert_int_eq(m, 1);
	ck_assert_int_eq(out[0], 281);
	/* the host asking is never its own second sample */
	m = cd_reach_second(PEER_HOSTS, 281, CD_REACH_SEED, "if:ib0", keys, n_keys, tried, 1, CD_REACH_K2, out);
	ck_assert_int_eq(m, 0);
	/* eth0: k fresh hosts with eth0, none tried before, the same for the same seed */
	{
		int t2[] = { 1, 2, 3 }, again[8];

		m = cd_reach_second(PEER_HOSTS, 0, CD_REACH_SEED, "if:eth0", keys, n_keys, t2, 3, CD_REACH_K2, out);
		ck_assert_int_eq(m, CD_REACH_K2);
		ck_assert_int_eq(cd_reach_second(PEER_HOSTS, 0, CD_REACH_SEED, "if:eth0", keys, n_keys, t2, 3, CD_REACH_K2,
						 again), m);
		ck_assert_mem_eq(out, again, (size_t)m * sizeof(int));
		for (int i = 0; i < m; i++) {
			ck_assert(!peer_has(t2, 3, out[i]) && out[i] != 0 && out[i] != 155);
			ck_assert_int_lt(out[i], PEER_HOSTS);
		}
	}
}
END_TEST

START_TEST(test_fault_knob)
{
	/* the knobs live in src/core/fault.c, on only through cd_fault_init's COMMDIAG_TESTING gate */
	ck_assert_int_eq(cd_fault_set(""), 0);
	ck_assert_int_eq(cd_fault_rank("slow_rank"), -1);
	ck_assert_int_eq(cd_fault_set("slow_rank=2"), 0);
	ck_assert_int_eq(cd_fault_rank("slow_rank"), 2);
	ck_assert_int_eq(cd_fault_set("hang_rank=3,slow_rank=12"), 0);
	ck_assert_int_eq(cd_fault_rank("slow_rank"), 12);
	ck_assert_int_eq(cd_fault_rank("hang_rank"), 3);
	ck_assert_int_eq(cd_fault_rank("mute_rank"), -1);
	ck_assert_int_eq(cd_fault_set("slow_rank=x"), -1);
	ck_assert_int_eq(cd_fault_rank("slow_rank"), -1);
	ck_assert_int_eq(cd_fault_set("slow_rank"), -1);
	ck_assert_int_eq(cd_fault_set(""), 0);
}
END_TEST

static void part_of(struct cd_results *p, int rank, int host_index, int with_host, const char *hostname)
{
	struct cd_rank *k;

	cd_results_init(p);
	if (with_host) {
		struct cd_host *h = cd_results_add_host(p);

		h->hostname = xstrdup(hostname);
		cd_host_set_env(h, "NCCL_DEBUG", "WARN");
		cd_host_set_env(h, "OMPI_MCA_orte_ess_node_rank", "0");
	}
	k = cd_results_add_rank(p, rank);
	k->host = xstrdup(hostname);
	k->host_index = host_index;
	k->local_rank = with_host ? 0 : 1;
	k->answered = CD_TRI_TRUE;
	cd_rank_set_env(k, "NCCL_DEBUG", "WARN");
	cd_rank_set_env(k, "OMPI_MCA_orte_ess_node_rank", with_host ? "0" : "1");
	cd_results_add_probe(p, "mpi.latency")->rank = rank;
}

/* Parts travel as JSON (report.c) and come back through the --from loader, then merge. */
START_TEST(test_merge)
{
	struct cd_results dst, p, back;
	int64_t map[2] = { -1, -1 };
	size_t len;
	char *text;

	cd_results_init(&dst);
	cd_dist_set_render(cd_report); /* main's choice: the report's JSON */
	/* rank 2 leads host 1 and arrives first; rank 3 is on host 1 and unsets NCCL_DEBUG */
	part_of(&p, 2, 1, 1, "nodeB");
	text = cd_dist_render(&p, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(cd_results_load_json(&back, text, len, "rank 2"), 0);
	cd_dist_merge(&dst, &back, map, 2);
	ck_assert_int_eq(back.n_hosts, 0);
	cd_results_free(&back);
	cd_results_free(&p);
	free(text);
	part_of(&p, 3, 1, 0, "nodeB");
	free(p.ranks[0].env_diff[0].value);
	p.ranks[0].env_diff[0].value = xstrdup("INFO");
	cd_dist_merge(&dst, &p, map, 2);
	cd_results_free(&p);

	ck_assert_int_eq(map[1], 0);
	cd_dist_finish_ranks(&dst, map, 2);
	ck_assert_int_eq(dst.n_hosts, 1);
	ck_assert_int_eq(dst.n_ranks, 2);
	ck_assert_int_eq(dst.n_probes, 2);
	ck_assert_int_eq(dst.ranks[0].host_index, 0);
	/* the leader is its host: nothing differs; the launcher's own variable never does */
	ck_assert_uint_eq(dst.ranks[0].n_env_diff, 0);
	ck_assert_uint_eq(dst.ranks[1].n_env_diff, 1);
	ck_assert_str_eq(dst.ranks[1].env_diff[0].key, "NCCL_DEBUG");
	ck_assert_str_eq(dst.ranks[1].env_diff[0].value, "INFO");
	cd_results_free(&dst);
}
END_TEST

/* ---- cross-host rules ---- */

static struct cd_host *host_named(struct cd_results *r, const char *name, const char *id)
{
	struct cd_host *h = cd_results_add_host(r);
	struct cd_nic *n;

	h->hostname = xstrdup(name);
	h->host_id = xstrdup(id);
	for (int i = 0; i < CD_PART_COUNT; i++)
		cd_section_set(&h->part[i], CD_ST_OK, NULL);
	n = cd_host_add_nic(h);
	n->name = xstrdup("eth0");
	n->kind = CD_NIC_PHYSICAL;
	n->state = xstrdup("up");
	n->admin_up = CD_TRI_TRUE;
	n->default_route = CD_TRI_TRUE;
	cd_strv_push(&n->ipv4, "10.0.0.1/24");
	return h;
}

static const struct cd_finding *find(const struct cd_results *r, const char *id, int nth)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (!strcmp(r->findings[i].id, id) && nth-- == 0)
			return &r->findings[i];
	return NULL;
}

static int count(const struct cd_results *r, const char *id)
{
	int n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += !strcmp(r->findings[i].id, id);
	return n;
}

static int has_evidence(const struct cd_finding *f, const char *text)
{
	for (size_t i = 0; f && i < f->evidence.n; i++)
		if (strstr(f->evidence.v[i], text))
			return 1;
	return 0;
}

START_TEST(test_quiet_job)
{
	struct cd_results r;

	cd_results_init(&r);
	host_named(&r, "a", "1");
	host_named(&r, "b", "2");
	ck_assert_int_eq(cd_rules_hosts_evaluate(&r), 0);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_same_identity)
{
	struct cd_results r;

	cd_results_init(&r);
	host_named(&r, "node", "1");
	host_named(&r, "node", "1");
	host_named(&r, "other", "3");
	host_named(&r, "fourth", "3");
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "HOST001"), 2);
	ck_assert_int_eq(find(&r, "HOST001", 0)->severity, CD_SEV_FAIL);
	ck_assert(has_evidence(find(&r, "HOST001", 0), "hostname 'node'"));
	ck_assert_int_eq(find(&r, "HOST001", 1)->severity, CD_SEV_WARN); /* same id only */
	cd_results_free(&r);
}
END_TEST

START_TEST(test_versions_ifaces_env)
{
	struct cd_results r;
	struct cd_host *a, *b;
	struct cd_rank *k;
	const struct cd_finding *f;

	cd_results_init(&r);
	a = host_named(&r, "a", "1");
	b = host_named(&r, "b", "2");
	a->versions.nccl = xstrdup("2.28.9");
	b->versions.nccl = xstrdup("2.27.3");
	free(b->nics[0].name);
	b->nics[0].name = xstrdup("ens5");
	cd_host_set_env(a, "NCCL_IB_HCA", "mlx5_0");
	cd_host_set_env(a, "OMPI_MCA_orte_local_daemon_uri", "x"); /* the launcher's: never compared */
	cd_host_set_env(b, "OMPI_MCA_orte_local_daemon_uri", "y");
	k = cd_results_add_rank(&r, 1);
	k->host_index = 1;
	k->answered = CD_TRI_TRUE;
	cd_rank_set_env(k, "NCCL_ALGO", "Tree");
	cd_rules_hosts_evaluate(&r);

	f = find(&r, "HOST002", 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->subject, "nccl");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert(has_evidence(f, "nccl 2.27.3 on b"));
	f = find(&r, "HOST003", 0);
	ck_assert_ptr_nonnull(f);
	ck_assert(has_evidence(f, "NCCL_SOCKET_IFNAME=eth0,ens5"));
	ck_assert(has_evidence(f, "NCCL_SOCKET_IFNAME=e (a prefix)") || has_evidence(f, "matches on all"));
	ck_assert_int_eq(count(&r, "HOST005"), 2);
	ck_assert_str_eq(find(&r, "HOST005", 0)->subject, "NCCL_IB_HCA");
	ck_assert(has_evidence(find(&r, "HOST005", 0), "b rank 1: unset"));
	ck_assert_str_eq(find(&r, "HOST005", 1)->subject, "NCCL_ALGO");
	ck_assert(has_evidence(find(&r, "HOST005", 1), "rank 1 on ?: NCCL_ALGO=Tree"));
	cd_results_free(&r);
}
END_TEST

START_TEST(test_hcas_gpus_ranks)
{
	struct cd_results r;
	struct cd_host *a, *b;
	struct cd_hca *c;
	struct cd_ib_port *p;

	cd_results_init(&r);
	a = host_named(&r, "a", "1");
	b = host_named(&r, "b", "2");
	for (int i = 0; i < 2; i++) {
		c = cd_host_add_hca(i ? b : a);
		c->name = xstrdup("mlx5_0");
		p = cd_hca_add_port(c);
		p->port = 1;
		p->rate_gbit_s = i ? 200 : 400;
		p->mtu_bytes = 4096;
	}
	cd_host_add_gpu(a)->index = 0;
	for (int k = 0; k < 3; k++) {
		struct cd_rank *x = cd_results_add_rank(&r, k);

		x->host_index = k < 2 ? 0 : 1;
		x->answered = k == 2 ? CD_TRI_FALSE : CD_TRI_TRUE;
		x->host = xstrdup(k < 2 ? "a" : "b");
	}
	r.run.ranks = 3;
	r.run.launcher = xstrdup("srun");
	r.run.launcher_ranks = 4;
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "HOST004"), 1);
	ck_assert_str_eq(find(&r, "HOST004", 0)->subject, "RDMA link rates");
	ck_assert_int_eq(count(&r, "HOST006"), 1);
	ck_assert_str_eq(find(&r, "HOST006", 0)->host, "a");
	ck_assert_int_eq(count(&r, "MPI001"), 1);
	ck_assert(find(&r, "MPI001", 0)->measured == 3 && find(&r, "MPI001", 0)->expected == 4);
	ck_assert_int_eq(count(&r, "MPI002"), 1);
	ck_assert_str_eq(find(&r, "MPI002", 0)->subject, "rank 2");
	cd_results_free(&r);
}
END_TEST

/*
 * The odd one out of HOST002-HOST004 gets the finding in its own verdict: of four hosts,
 * d has another NCCL, an interface named otherwise and no HCA; the fleet's findings stay.
 * Two hosts that differ (no majority) name no host: test_versions_ifaces_env.
 */
START_TEST(test_odd_host)
{
	struct cd_results r;
	const char *names[] = { "a", "b", "c", "d" }, *ids[] = { "1", "2", "3", "4" };
	const struct cd_finding *f;

	cd_results_init(&r);
	for (int i = 0; i < 4; i++) {
		struct cd_host *h = host_named(&r, names[i], ids[i]);

		h->versions.nccl = xstrdup(i == 3 ? "2.19.3" : "2.28.9");
		h->versions.driver = xstrdup("580.95.05");
		if (i == 3) {
			free(h->nics[0].name);
			h->nics[0].name = xstrdup("ens5");
		} else {
			struct cd_hca *c = cd_host_add_hca(h);
			struct cd_ib_port *p = cd_hca_add_port(c);

			c->name = xstrdup("mlx5_0");
			p->port = 1;
			p->rate_gbit_s = 400;
			p->mtu_bytes = 4096;
		}
	}
	cd_rules_hosts_evaluate(&r);
	/* HOST002: the fleet's finding, then d's own; the driver, alike everywhere, none */
	ck_assert_int_eq(count(&r, "HOST002"), 2);
	ck_assert_ptr_null(find(&r, "HOST002", 0)->host);
	f = find(&r, "HOST002", 1);
	ck_assert_str_eq(f->host, "d");
	ck_assert_str_eq(f->subject, "nccl");
	ck_assert_int_eq(f->severity, CD_SEV_FAIL);
	ck_assert(has_evidence(f, "d: 2.19.3"));
	ck_assert(has_evidence(f, "3 of 4 hosts: 2.28.9"));
	/* HOST003 */
	ck_assert_int_eq(count(&r, "HOST003"), 2);
	ck_assert_ptr_null(find(&r, "HOST003", 0)->host);
	ck_assert_str_eq(find(&r, "HOST003", 1)->host, "d");
	ck_assert(has_evidence(find(&r, "HOST003", 1), "d: ens5"));
	/* HOST004: devices, rates and MTUs each differ on d alone */
	for (int k = 0; k < 3; k++) {
		ck_assert_ptr_null(find(&r, "HOST004", 2 * k)->host);
		ck_assert_str_eq(find(&r, "HOST004", 2 * k + 1)->host, "d");
	}
	ck_assert_int_eq(count(&r, "HOST004"), 6);
	ck_assert(has_evidence(find(&r, "HOST004", 1), "d: none"));
	for (size_t i = 0; i < r.n_findings; i++)
		ck_assert_msg(!r.findings[i].host || strcmp(r.findings[i].host, "a"), "a finding names a: %s",
			      r.findings[i].id);
	cd_results_free(&r);
	/* a fleet split in halves: no host is the odd one */
	cd_results_init(&r);
	for (int i = 0; i < 4; i++)
		host_named(&r, names[i], ids[i])->versions.nccl = xstrdup(i < 2 ? "2.19.3" : "2.28.9");
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "HOST002"), 1);
	cd_results_free(&r);
}
END_TEST

static void bw_run(struct cd_results *r, int rank, int peer, double gbyte_s)
{
	struct cd_probe_run *p = cd_results_add_probe(r, "mpi.bw");
	struct cd_probe_sample *s = cd_probe_add_sample(p);

	p->rank = rank;
	p->peer = peer;
	s->bytes = 1 << 20;
	s->algbw_gbyte_s = gbyte_s;
	if (isnan(gbyte_s))
		p->status = CD_ST_TIMEOUT;
}

/* The shape of check --pairs with rank 2 slow: only rank 2 is slow with every partner. */
/* Above 16 hosts a fleet-wide finding's evidence is one line per distinct value, not per host (issue 18). */
START_TEST(test_fleet_evidence_grouped)
{
	struct cd_results r;
	const struct cd_finding *f;
	char name[16], id[16];

	cd_results_init(&r);
	for (int i = 0; i < 40; i++) {
		struct cd_host *h;
		struct cd_hca *c;
		struct cd_ib_port *p;

		snprintf(name, sizeof(name), "n%02d", i);
		snprintf(id, sizeof(id), "%d", i + 1);
		h = host_named(&r, name, id);
		c = cd_host_add_hca(h);
		p = cd_hca_add_port(c);
		c->name = xstrdup("mlx5_0");
		p->port = 1;
		p->rate_gbit_s = i == 7 || i == 30 ? NAN : i == 12 ? 200 : 400;
		p->mtu_bytes = 4096;
	}
	cd_rules_hosts_evaluate(&r);
	f = find(&r, "HOST004", 0);
	ck_assert_ptr_null(f->host);
	ck_assert_str_eq(f->subject, "RDMA link rates");
	ck_assert_uint_eq(f->evidence.n, 3);
	ck_assert(has_evidence(f, "37 hosts (n00, n01, n02 and 34 more): mlx5_0/1 400 Gb/s"));
	ck_assert(has_evidence(f, "2 hosts (n07, n30): mlx5_0/1 rate n/a"));
	ck_assert(has_evidence(f, "1 host (n12): mlx5_0/1 200 Gb/s"));
	/* each odd host still has its own finding */
	ck_assert_int_eq(count(&r, "HOST004"), 4);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_straggler)
{
	struct cd_results r;

	cd_results_init(&r);
	bw_run(&r, 0, 1, 11.7);
	bw_run(&r, 2, 3, 0.8);
	bw_run(&r, 2, 0, 0.9);
	bw_run(&r, 3, 1, 3.0); /* noisy, but over twice what rank 3 got with rank 2 */
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "MPI003"), 1);
	ck_assert_str_eq(find(&r, "MPI003", 0)->subject, "rank 2");
	cd_results_free(&r);

	/* a failed pair counts as slow; a uniform job names nobody */
	cd_results_init(&r);
	bw_run(&r, 0, 1, 10);
	bw_run(&r, 2, 3, NAN);
	bw_run(&r, 3, 1, 9);
	bw_run(&r, 2, 0, NAN);
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "MPI003"), 1);
	ck_assert_str_eq(find(&r, "MPI003", 0)->subject, "rank 2");
	cd_results_free(&r);
	cd_results_init(&r);
	bw_run(&r, 0, 1, 10);
	bw_run(&r, 2, 3, 8);
	bw_run(&r, 2, 0, 9);
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "MPI003"), 0);
	cd_results_free(&r);
}
END_TEST

static void pair_run(struct cd_results *r, const char *probe, int rank, int peer, double busbw)
{
	struct cd_probe_run *p = cd_results_add_probe(r, probe);
	struct cd_probe_sample *s = cd_probe_add_sample(p);

	p->rank = rank;
	p->peer = peer;
	p->nranks = 16;
	s->bytes = 16 << 20;
	s->busbw_gbyte_s = busbw;
	s->algbw_gbyte_s = busbw * 16 / 30; /* all_reduce over 16 GPUs: busbw = 2(n-1)/n algbw */
}

/*
 * nccl.pairs (two hosts of 8 GPUs per pair): rank 2's GPU fabric is slow while MPI between
 * the same pairs is not. NCCL004 names it from busbw; MPI003 and the NCCL world's rules do not.
 */
START_TEST(test_nccl_pair_straggler)
{
	struct cd_results r;
	const struct cd_finding *f;

	cd_results_init(&r);
	pair_run(&r, "nccl.pairs", 0, 1, 180);
	pair_run(&r, "nccl.pairs", 2, 3, 40);
	pair_run(&r, "nccl.pairs", 2, 0, 41);
	pair_run(&r, "nccl.pairs", 3, 1, 175);
	bw_run(&r, 0, 1, 11.7);
	bw_run(&r, 2, 3, 11.5);
	bw_run(&r, 3, 1, 11.6);
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "MPI003"), 0);
	ck_assert_int_eq(count(&r, "NCCL004"), 1);
	f = find(&r, "NCCL004", 0);
	ck_assert_str_eq(f->subject, "rank 2");
	ck_assert(f->expected == 180 && f->measured == 41);
	ck_assert(has_evidence(f, "nccl.pairs: rank 2 (?) with rank 3 (?): 40.00 GB/s busbw at 16777216 bytes"));
	cd_results_free(&r);

	/* healthy pairs within a factor of two of the best: nobody */
	cd_results_init(&r);
	pair_run(&r, "nccl.pairs", 0, 1, 180);
	pair_run(&r, "nccl.pairs", 2, 3, 100);
	pair_run(&r, "nccl.pairs", 4, 5, 170);
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "NCCL004"), 0);
	cd_results_free(&r);
}
END_TEST

static void reach_try(struct cd_results *r, const char *from, const char *to, const char *iface, int ok)
{
	struct cd_reach *x = cd_results_add_reach(r);

	x->from = xstrdup(from);
	x->to = xstrdup(to);
	x->iface = xstrdup(iface);
	x->address = xstrdup("10.0.0.9");
	x->ok = ok ? CD_TRI_TRUE : CD_TRI_FALSE;
	x->connect_us = ok ? 50.0 : NAN;
	x->error = ok ? NULL : xstrdup("no connection within 2.0 s");
}

/*
 * NET001 counts a failure only when it is confirmed: h0 reaches no host on eth0 (its own
 * side: TCP001 names it, the others' eth0 is not condemned), h2's ib0 fails from two
 * testers that reach ib0 elsewhere (its side: NET001), docker0 fails everywhere (NET001 on
 * every host).
 */
START_TEST(test_reach_confirmed)
{
	static const char *const h[] = { "h0", "h1", "h2", "h3" };
	struct cd_results r;
	const struct cd_finding *f;

	cd_results_init(&r);
	for (int i = 0; i < 4; i++) {
		host_named(&r, h[i], h[i]);
		for (int j = 0; j < 4; j++) {
			if (i == j)
				continue;
			reach_try(&r, h[i], h[j], "eth0", i != 0);
			reach_try(&r, h[i], h[j], "docker0", 0);
			if (i != 0 && j != 0)
				reach_try(&r, h[i], h[j], "ib0", j != 2);
		}
	}
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "NET001"), 5);
	for (int i = 0; i < 5; i++) {
		f = find(&r, "NET001", i);
		ck_assert(!strcmp(f->subject, "docker0") || (!strcmp(f->subject, "ib0") && !strcmp(f->host, "h2")));
	}
	{
		int docker = 0, ib = 0, hosts = 0;

		for (int i = 0; i < 5; i++) {
			f = find(&r, "NET001", i);
			docker += !strcmp(f->subject, "docker0");
			ib += !strcmp(f->subject, "ib0");
			if (!strcmp(f->subject, "docker0"))
				hosts |= 1 << (f->host[1] - '0');
		}
		ck_assert_int_eq(docker, 4);
		ck_assert_int_eq(ib, 1);
		ck_assert_int_eq(hosts, 15);
	}
	/* h1's eth0: h0's failure is h0's own, and said so nowhere else */
	ck_assert_int_eq(count(&r, "TCP001"), 3);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(find(&r, "TCP001", i)->host, "h0");
	cd_results_free(&r);

	/* the same failures with nobody else trying: nothing contradicts them, they stand */
	cd_results_init(&r);
	host_named(&r, "h0", "1");
	host_named(&r, "h1", "2");
	reach_try(&r, "h0", "h1", "eth0", 0);
	reach_try(&r, "h1", "h0", "eth0", 1);
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "NET001"), 1);
	ck_assert_str_eq(find(&r, "NET001", 0)->host, "h1");
	cd_results_free(&r);
}
END_TEST

/* A job of a thousand hosts whose docker0 fails everywhere: one finding per host, a bounded evidence list. */
START_TEST(test_reach_many)
{
	struct cd_results r;
	char a[16], b[16];
	const int n = 1000;

	cd_results_init(&r);
	for (int i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "n%d", i);
		host_named(&r, a, a);
	}
	for (int i = 0; i < n; i++)
		for (int d = 1; d <= 8; d++) {
			snprintf(a, sizeof(a), "n%d", i);
			snprintf(b, sizeof(b), "n%d", (i + d * 37) % n);
			reach_try(&r, a, b, "eth0", 1);
			reach_try(&r, a, b, "docker0", 0);
		}
	cd_rules_hosts_evaluate(&r);
	ck_assert_int_eq(count(&r, "NET001"), n);
	ck_assert_int_eq(count(&r, "TCP001"), 0);
	ck_assert(has_evidence(find(&r, "NET001", 0), "more attempts") || find(&r, "NET001", 0)->evidence.n <= 14);
	for (int i = 0; i < n; i++)
		ck_assert_uint_le(find(&r, "NET001", i)->evidence.n, 14);
	cd_results_free(&r);
}
END_TEST

/*
 * A sampled job of 100 hosts: each tests 8 peers on eth0 (two addresses) and docker0; docker0 fails
 * everywhere, n5's eth0 fails from everyone (its side), n7 reaches nobody on eth0 (its own
 * side), n9 never reaches n10 at all.
 */
static void sampled_job(struct cd_results *r)
{
	char a[16], b[16];

	cd_results_init(r);
	for (int i = 0; i < 100; i++) {
		snprintf(a, sizeof(a), "n%d", i);
		host_named(r, a, a);
	}
	for (int i = 0; i < 100; i++)
		for (int d = 1; d <= 8; d++) {
			int j = (i + d * d) % 100;

			snprintf(a, sizeof(a), "n%d", i);
			snprintf(b, sizeof(b), "n%d", j);
			/* IPv4 and IPv6 on eth0 */
			reach_try(r, a, b, "eth0", i != 7 && j != 5 && !(i == 9 && j == 10));
			reach_try(r, a, b, "eth0", i != 7 && j != 5 && !(i == 9 && j == 10));
			reach_try(r, a, b, "docker0", 0);
		}
}

/* "NET001 n5 eth0 fail 0/8; …": what the judge said, to compare two forms of one job */
static char *verdicts(struct cd_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cd_results_clear_judgement(r);
	cd_rules_hosts_evaluate(r);
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct cd_finding *x = &r->findings[i];

		if (!strcmp(x->id, "NET001") || !strcmp(x->id, "TCP001"))
			fprintf(f, "%s %s %s %d %g/%g; ", x->id, x->host, x->subject, (int)x->severity, x->measured, x->expected);
	}
	fclose(f);
	return buf;
}

/* not inlined: gcc 12 then takes open_memstream's buffer for a dangling pointer (-Wdangling-pointer) */
__attribute__((noinline)) static char *render_doc(const struct cd_results *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct cd_out *o = out_new(OUT_FMT_JSON, f, 0);

	cd_report(o, r);
	out_end(o);
	fclose(f);
	return buf;
}

START_TEST(test_reach_compact)
{
	struct cd_results full, small, back;
	char *v_full, *v_small, *v_back, *j1, *j2;
	size_t n_full, l1, l2;

	sampled_job(&full);
	sampled_job(&small);
	n_full = small.n_reach;
	ck_assert_uint_eq(cd_reach_compact(&small), n_full - small.n_reach);
	/* the failures and one path per pair stay: of 2400 attempts, 800 docker0 and 2 × (8 + 8 + 1) eth0
	 * failures, and a path for each of the 800 - 17 pairs that have one */
	ck_assert_uint_eq(n_full, 2400);
	ck_assert_uint_eq(small.n_reach, 800 + 34 + 783);
	ck_assert_uint_gt(small.n_reach_counts, 0);
	ck_assert_uint_eq(cd_reach_compact(&small), 0); /* once is enough */
	v_full = verdicts(&full);
	v_small = verdicts(&small);
	ck_assert_str_eq(v_small, v_full);
	ck_assert_ptr_nonnull(strstr(v_full, "NET001 n5 eth0"));
	ck_assert_ptr_null(strstr(v_full, "NET001 n6 eth0")); /* n7's failure is its own */
	ck_assert_ptr_nonnull(strstr(v_full, "TCP001 n9 n10"));
	ck_assert_ptr_nonnull(strstr(v_full, "TCP001 n7 n8"));
	ck_assert_ptr_nonnull(strstr(v_full, "NET001 n99 docker0"));
	/* the writer and the loader: the compact document round-trips byte for byte */
	j1 = render_doc(&small, &l1);
	ck_assert_ptr_nonnull(strstr(j1, "\"reach_counts\""));
	ck_assert_int_eq(cd_results_load_json(&back, j1, l1, "compact"), 0);
	ck_assert_uint_eq(back.n_reach_counts, small.n_reach_counts);
	j2 = render_doc(&back, &l2);
	ck_assert_str_eq(j1, j2);
	v_back = verdicts(&back);
	ck_assert_str_eq(v_back, v_full);
	/* a small job is never compacted */
	free(j1);
	free(j2);
	free(v_full);
	free(v_small);
	free(v_back);
	cd_results_free(&full);
	cd_results_free(&small);
	cd_results_free(&back);
	cd_results_init(&full);
	host_named(&full, "a", "1");
	host_named(&full, "b", "2");
	reach_try(&full, "a", "b", "eth0", 1);
	ck_assert_uint_eq(cd_reach_compact(&full), 0);
	ck_assert_uint_eq(full.n_reach, 1);
	cd_results_free(&full);
}
END_TEST

/* reach_counts that cannot be: the loader refuses them, naming the key */
START_TEST(test_reach_counts_bad)
{
	static const char *const bad[] = {
		"{\"host\":\"a\",\"iface\":\"eth0\",\"in_tested\":1,\"in_failed\":2,\"out_tested\":0,\"out_failed\":0}",
		"{\"host\":\"a\",\"iface\":\"eth0\",\"in_tested\":-1,\"in_failed\":0,\"out_tested\":0,\"out_failed\":0}",
		"{\"host\":\"a\",\"iface\":\"eth0\",\"in_tested\":1.5,\"in_failed\":0,\"out_tested\":0,\"out_failed\":0}",
		"{\"iface\":\"eth0\",\"in_tested\":1,\"in_failed\":0,\"out_tested\":0,\"out_failed\":0}",
		"{\"host\":\"a\",\"iface\":\"eth0\",\"in_tested\":1,\"in_failed\":0,\"out_tested\":0}",
	};
	struct cd_results r;
	size_t len;
	char *ok;

	cd_results_init(&r);
	ok = render_doc(&r, &len);
	cd_results_free(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* the empty document with one reach_counts entry spliced in before its last brace */
		char *doc = xasprintf("%.*s,\"reach_counts\":[%s]}", (int)(strrchr(ok, '}') - ok), ok, bad[i]);

		ck_assert_int_eq(cd_results_load_json(&r, doc, strlen(doc), "bad"), -1);
		cd_results_free(&r);
		free(doc);
	}
	free(ok);
}
END_TEST

/* The document of tests/netns/run.sh: docker0 (172.17.0.1 on both hosts) reaches nothing. */
START_TEST(test_netns_fixture)
{
	struct cd_results r;
	const struct cd_finding *f;

	ck_assert_int_eq(cd_results_load_file(&r, "tests/data/docs/netns-two-hosts.json"), 0);
	cd_results_clear_judgement(&r);
	cd_rules_evaluate(&r);
	ck_assert_int_eq(count(&r, "NET001"), 2);
	f = find(&r, "NET001", 0);
	ck_assert_str_eq(f->subject, "docker0");
	ck_assert(has_evidence(f, "is also an address of this host"));
	ck_assert(has_evidence(f, "eth0 of"));
	ck_assert_int_eq(count(&r, "TCP001"), 0);
	ck_assert_int_eq(count(&r, "HOST001"), 0);
	ck_assert_int_eq(count(&r, "HOST003"), 0);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_table)
{
	size_t n;
	const struct cd_xrule *t = cd_rules_hosts_table(&n);

	ck_assert_uint_ge(n, 11);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(t[i].check);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(t[i].id, t[j].id);
	}
}
END_TEST

Suite *dist_suite(void)
{
	Suite *s = suite_create("dist");
	TCase *tc = tcase_create("dist");

	tcase_add_test(tc, test_detect);
	tcase_add_test(tc, test_round_robin);
	tcase_add_test(tc, test_ring);
	tcase_add_test(tc, test_reach_peers);
	tcase_add_test(tc, test_reach_second);
	tcase_add_test(tc, test_fault_knob);
	tcase_add_test(tc, test_merge);
	suite_add_tcase(s, tc);
	tc = tcase_create("rules");
	tcase_add_test(tc, test_quiet_job);
	tcase_add_test(tc, test_same_identity);
	tcase_add_test(tc, test_versions_ifaces_env);
	tcase_add_test(tc, test_hcas_gpus_ranks);
	tcase_add_test(tc, test_odd_host);
	tcase_add_test(tc, test_fleet_evidence_grouped);
	tcase_add_test(tc, test_straggler);
	tcase_add_test(tc, test_nccl_pair_straggler);
	tcase_add_test(tc, test_netns_fixture);
	tcase_add_test(tc, test_reach_confirmed);
	tcase_add_test(tc, test_reach_many);
	tcase_add_test(tc, test_reach_compact);
	tcase_add_test(tc, test_reach_counts_bad);
	tcase_add_test(tc, test_table);
	suite_add_tcase(s, tc);
	return s;
}
