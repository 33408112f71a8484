/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the decision tree: the state of one walk, the helpers its questions and leaves
 * share (advise.c), and the questions and leaves of each topic (advise_job.c: the job as a
 * whole; advise_host.c: each host), which advise.c's node table names. Private to advise/.
 */
#ifndef CD_ADVISE_WALK_H
#define CD_ADVISE_WALK_H

#include "envlint.h"
#include "explain.h"
#include "libdefaults.h"
#include "measure.h"
#include "reach.h"
#include "results.h"
#include "util.h"

#define MAX_STEPS 64

struct cd_walk {
	struct cd_results *r;
	struct cd_host *h;              /* NULL in job scope */
	int steps[MAX_STEPS], answers[MAX_STEPS];
	int nsteps;
	struct cd_strv ids;             /* findings the questions relied on */
	int added;
	unsigned libs;                  /* LIB_*: whose socket setting the evidence asks for */
	char cause[768];                /* that evidence, for the advice's why */
	struct cd_reach_index *reach;   /* tcp.reach's data by host and interface (reach.h) */
};

/* The libraries a socket setting is for: only those whose own choice was shown not to work. */
enum { LIB_NCCL = CD_LIB_NCCL, LIB_GLOO = CD_LIB_GLOO, LIB_UCX = CD_LIB_UCX, LIB_OMPI = CD_LIB_OMPI, LIB_ALL = CD_LIB_ALL };

struct hostset {
	const struct cd_host *h;
	size_t n;
	const char *scope;      /* host the advice is for; NULL: the whole job */
	unsigned libs;          /* LIB_*: which settings to print */
};

int str_eq(const char *a, const char *b);
int starts(const char *s, const char *prefix);
int on_host(const struct cd_finding *f, const struct cd_host *h);
const struct cd_finding *finding(const struct cd_walk *w, const char *id);
/* the first such finding for which holds() is true (holds NULL: any) */
const struct cd_finding *finding_that(const struct cd_walk *w, const char *id, int (*holds)(const struct cd_finding *));
void note(struct cd_walk *w, const char *id);
int has(struct cd_walk *w, const char *id);
int virtual_nic(const struct cd_nic *n);
int socket_candidate(const struct cd_nic *n);
const struct cd_nic *nic_by_name(const struct cd_host *h, const char *name);
void walk_emit(struct cd_walk *w, const char *env, const char *value, const char *host, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
const char *scope_host(const struct cd_walk *w);
int q_multi(struct cd_walk *w);
int q_dup_host(struct cd_walk *w);
void l_hostid(struct cd_walk *w);
int q_dup_gpu(struct cd_walk *w);
int q_dup_gpu_hosts(struct cd_walk *w);
void l_set_device(struct cd_walk *w);
int q_versions(struct cd_walk *w);
void l_versions(struct cd_walk *w);
int q_reach(struct cd_walk *w);
int q_reach_all(struct cd_walk *w);
int q_reach_same(struct cd_walk *w);
int q_reach_need(struct cd_walk *w);
void add_cause(struct cd_walk *w, unsigned lib, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
unsigned libs_of_failures(struct cd_walk *w);
void join(struct cd_strv *sv, char *buf, size_t len, const char *lead);
void push_unique(struct cd_strv *sv, const char *s);
void socket_advice(struct cd_walk *w, const struct hostset *hs, struct cd_strv *per_host, const char *why);
void l_iface_job(struct cd_walk *w);
void l_noroute(struct cd_walk *w);
int q_timeout(struct cd_walk *w);
void l_timeout(struct cd_walk *w);
int q_hang(struct cd_walk *w);
void l_hang(struct cd_walk *w);
int port_active(const struct cd_ib_port *p);
int q_rails(struct cd_walk *w);
void l_cross_nic(struct cd_walk *w);
int q_flaky(struct cd_walk *w);
void l_ib_timeout(struct cd_walk *w);
int q_envfix(struct cd_walk *w);
const char *env_any_host(const struct cd_results *r, const char *name);
void l_envfix(struct cd_walk *w);
int q_unexplained(struct cd_walk *w);
void l_collect(struct cd_walk *w);
int q_single(struct cd_walk *w);
int q_sock_need(struct cd_walk *w);
int q_sock_usable(struct cd_walk *w);
void l_iface_host(struct cd_walk *w);
void l_noiface(struct cd_walk *w);
int q_sock_badaddr(struct cd_walk *w);
void l_ompi_exclude(struct cd_walk *w);
int q_rdma(struct cd_walk *w);
int q_ib_disabled(struct cd_walk *w);
void l_ib_enable(struct cd_walk *w);
int q_ib_down(struct cd_walk *w);
int q_ib_rates(struct cd_walk *w);
int q_ib_far(struct cd_walk *w);
void l_ib_hca(struct cd_walk *w);
int q_roce(struct cd_walk *w);
int q_nccl_old(struct cd_walk *w);
int q_gid_set(struct cd_walk *w);
void l_gid_set(struct cd_walk *w);
void l_gid_unset(struct cd_walk *w);
int q_memlock(struct cd_walk *w);
void l_memlock(struct cd_walk *w);
int q_peermem(struct cd_walk *w);
void l_peermem(struct cd_walk *w);
int q_devib(struct cd_walk *w);
void l_devib(struct cd_walk *w);
int q_gpu_hidden(struct cd_walk *w);
void l_gpu_hidden(struct cd_walk *w);
int q_gpus2(struct cd_walk *w);
int q_p2p_env_off(struct cd_walk *w);
void l_p2p_enable(struct cd_walk *w);
int q_acs(struct cd_walk *w);
void l_acs(struct cd_walk *w);
int q_iommu(struct cd_walk *w);
void l_iommu(struct cd_walk *w);
int q_p2p_broken(struct cd_walk *w);
void l_p2p_disable(struct cd_walk *w);
int q_cumem(struct cd_walk *w);
void l_cumem(struct cd_walk *w);
int q_shm(struct cd_walk *w);
void l_shm(struct cd_walk *w);
int q_nvswitch(struct cd_walk *w);
int q_fm_down(struct cd_walk *w);
void l_fm(struct cd_walk *w);
int q_nvls(struct cd_walk *w);
void l_nvls(struct cd_walk *w);
int q_pcie(struct cd_walk *w);
void l_pcie(struct cd_walk *w);
int q_container_net(struct cd_walk *w);
void l_net_host(struct cd_walk *w);

#endif
