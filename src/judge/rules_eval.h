/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the rule table: one evaluation's state, the helpers every rule uses to add
 * findings (rules.c), and the checks of each group (rules_fabric.c: the host and its links;
 * rules_probes.c: what the probes measured), which rules.c's table names. Private to judge/.
 */
#ifndef CD_RULES_EVAL_H
#define CD_RULES_EVAL_H

#include "conf.h"
#include "measure.h"
#include "results.h"
#include "util.h"

struct cd_eval {
	struct cd_results *r;
	const struct cd_conf *c;
	unsigned char *judged; /* per probe: a rule already explained it (COPY, P2P, NCCL003), so later ones stay quiet */
	struct cd_strv required; /* groups that must be evaluated (REQ001) */
	struct cd_probe_groups groups; /* the runs of each host (measure.h), for the per-host balance rules */
};

double key(const struct cd_eval *e, enum cd_key k);
double pct(const struct cd_eval *e, enum cd_key k);
struct cd_finding *add(struct cd_eval *e, const char *id, enum cd_severity sev, const char *host,
			      const char *subject, const char *title, double measured, double expected,
			      const char *unit, enum cd_key k);
const char *probe_host_name(const struct cd_results *r, const struct cd_probe_run *p);
void probe_subject(const struct cd_probe_run *p, char *buf, size_t len);
int64_t mode_i64(const int64_t *v, size_t n);
int rule_shm(struct cd_eval *e, const struct cd_host *h);
int rule_memlock(struct cd_eval *e, const struct cd_host *h);
int rule_iommu(struct cd_eval *e, const struct cd_host *h);
int rule_no_iface_up(struct cd_eval *e, const struct cd_host *h);
int rule_up_no_address(struct cd_eval *e, const struct cd_host *h);
int rule_mtu_mismatch(struct cd_eval *e, const struct cd_host *h);
int rule_speed_mismatch(struct cd_eval *e, const struct cd_host *h);
int link_known(int64_t gen, int64_t width, int64_t max_gen, int64_t max_width);
int rule_gpu_link(struct cd_eval *e, const struct cd_host *h);
int rule_nic_link(struct cd_eval *e, const struct cd_host *h);
int rule_acs(struct cd_eval *e, const struct cd_host *h);
int rule_nvlink_down(struct cd_eval *e, const struct cd_host *h);
int rule_nvlink_count(struct cd_eval *e, const struct cd_host *h);
int rule_p2p_frac(struct cd_eval *e, const struct cd_host *unused);
int rule_p2p_floor(struct cd_eval *e, const struct cd_host *unused);
int rule_nccl_p2p_off(struct cd_eval *e, const struct cd_host *h);
int rule_port_down(struct cd_eval *e, const struct cd_host *h);
int rule_port_slow(struct cd_eval *e, const struct cd_host *h);
int rule_port_floor(struct cd_eval *e, const struct cd_host *h);
int rule_gpu_count(struct cd_eval *e, const struct cd_host *h);
int rule_gpu_mixed(struct cd_eval *e, const struct cd_host *h);
int rule_persistence(struct cd_eval *e, const struct cd_host *h);
int rule_copy_frac(struct cd_eval *e, const struct cd_host *unused);
int rule_copy_floor(struct cd_eval *e, const struct cd_host *unused);
int rule_nccl_floor(struct cd_eval *e, const struct cd_host *unused);
int rule_nccl_latency(struct cd_eval *e, const struct cd_host *unused);
int rule_nccl_straggler(struct cd_eval *e, const struct cd_host *unused);
int rule_gpu_outlier(struct cd_eval *e, const struct cd_host *h);
int rule_host_outlier(struct cd_eval *e, const struct cd_host *unused);
int rule_timeout(struct cd_eval *e, const struct cd_host *unused);
int rule_probe_error(struct cd_eval *e, const struct cd_host *unused);
int rule_data_errors(struct cd_eval *e, const struct cd_host *unused);
int rule_spread(struct cd_eval *e, const struct cd_host *unused);
int rule_gpu_driver(struct cd_eval *e, const struct cd_host *h);
int rule_port_count(struct cd_eval *e, const struct cd_host *h);
int rule_roce_v2_gid(struct cd_eval *e, const struct cd_host *h);
int rule_nic_count(struct cd_eval *e, const struct cd_host *h);
int rule_required(struct cd_eval *e, const struct cd_host *unused);
int host_discovered(const struct cd_host *h);
int rule_outliers(struct cd_eval *e, const struct cd_host *h);
/* against r->baseline (rules_baseline.c): BASE001-BASE004 */
int rule_base_bw(struct cd_eval *e, const struct cd_host *unused);
int rule_base_lat(struct cd_eval *e, const struct cd_host *unused);
int rule_base_missing(struct cd_eval *e, const struct cd_host *unused);
int rule_base_better(struct cd_eval *e, const struct cd_host *unused);
/* why the baseline group cannot be judged (no host in common, nothing finished); NULL when it can */
char *baseline_why_not(const struct cd_results *r);
/* rules.not_evaluated entries for the runs the baseline has and this run cannot be compared on */
void note_baseline(struct cd_results *r, const struct cd_conf *c);
/* rules.not_evaluated entries for what STAB004 and NCCL002 could not judge (rules_probes.c) */
void note_timings(struct cd_results *r, const struct cd_conf *c);

#endif
