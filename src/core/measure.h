/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the hardware should deliver, and what a probe measured: the helpers the
 * rules and the score card share, so both judge the same numbers.
 */
#ifndef CD_MEASURE_H
#define CD_MEASURE_H

#include <stddef.h>

#include "results.h"

/*
 * Theoretical per-direction rate of a PCIe link, GB/s: x16 is 4.0 (Gen1), 8.0 (Gen2),
 * 15.75 (Gen3), 31.5 (Gen4), 63.0 (Gen5), 121.0 (Gen6, FLIT mode), scaled by width/16.
 * NAN when gen or width is unknown or out of range.
 */
double cd_pcie_gbyte_s(int64_t gen, int64_t width);
/* NVLink per-direction rate of `links` links of generation `gen` (1: 20, 2-4: 25, 5: 50 GB/s each). */
double cd_nvlink_gbyte_s(int64_t gen, int64_t links);
/* An IB/RoCE port's rate in GB/s (the one Gb/s -> GB/s conversion, cd_gbit_to_gbyte). */
double cd_port_gbyte_s(double rate_gbit_s);

/* A GPU's PCIe link at its maximum (what the slot is built for), else at its current state. */
double cd_gpu_pcie_max_gbyte_s(const struct cd_gpu *g);
/* The GPU's NVLink rate: links up × per-link rate (NAN without NVLink facts). */
double cd_gpu_nvlink_gbyte_s(const struct cd_gpu *g);

/* Probe families by name prefix: "copy.", "p2p.", "nccl.", "mpi.", "tcp.". */
int cd_probe_is(const struct cd_probe_run *p, const char *prefix);
/*
 * A collective of the NCCL world: nccl.* but not nccl.init (a setup time, not a collective's
 * latency) nor nccl.pairs (one pair of ranks each, judged by NCCL004).
 */
int cd_probe_is_collective(const struct cd_probe_run *p);
/* A bandwidth probe (copies, p2p.bw, collectives, mpi.bw/allreduce, tcp.bw), not a latency one. */
int cd_probe_is_bw(const struct cd_probe_run *p);
/* Bandwidth of a finished probe: the largest size's algbw (copies, p2p, tcp) or busbw; NAN when none. */
double cd_probe_bw(const struct cd_probe_run *p);
/*
 * Latency is read at small sizes only: nccl-tests and osu_latency quote it at 8 bytes, and
 * by 8 KiB the time is still set by the per-message cost, not the bandwidth. A sweep that
 * starts above this (nccl-tests -b 64M) has no latency.
 */
#define CD_LAT_MAX_BYTES 8192
/*
 * Latency: the lowest median time among the sizes of at most CD_LAT_MAX_BYTES, in us (the
 * flat start of the curve, where one size's disturbance, such as nccl-tests' first row,
 * does not decide); NAN when the probe did not finish or has no such size.
 */
double cd_probe_lat_us(const struct cd_probe_run *p);
/* The sample cd_probe_lat_us() reads, or NULL. */
const struct cd_probe_sample *cd_probe_lat_sample(const struct cd_probe_run *p);
/*
 * Run-to-run spread at the largest size: the interquartile range of the per-iteration times
 * over their median, (p75 - p25) / median. Robust: a quarter of the iterations on either side
 * may be disturbed (a preemption, a page fault) without moving it, where (max - min) / median
 * is set by one. NAN when the probe did not finish, when the size has fewer than
 * CD_SPREAD_MIN_ITERS iterations (*why "few"), or when its percentiles were not recorded
 * (*why "unknown": documents written before them, imports); why may be NULL.
 */
#define CD_SPREAD_MIN_ITERS 5
double cd_probe_spread(const struct cd_probe_run *p, const char **why);
/* A sample whose timing thread waited for a CPU more than max_pct of its time (cpu_wait_pct). */
int cd_sample_contended(const struct cd_probe_sample *s, double max_pct);
/*
 * Iterations beyond Tukey's far-out fences (0 when none was counted), of a size whose slowest
 * iteration took min_excess_us or more above its median (stability.jitter_us: within
 * microseconds of the median is launch and timer jitter); over all sizes of a run.
 */
int64_t cd_sample_outliers(const struct cd_probe_sample *s, double min_excess_us);
int64_t cd_probe_outliers(const struct cd_probe_run *p, double min_excess_us);
/*
 * The hosts a probe's operation involved, as indices into r->hosts (at most max; returns how
 * many): a copy or GPU pair its own host; a pair of ranks (peer set on a probe run by a rank)
 * the hosts of both; a collective of the job (nccl.* but nccl.pairs, mpi.allreduce) every
 * host of the document (the job's under MPI, the log's for an import).
 */
size_t cd_probe_hosts(const struct cd_results *r, const struct cd_probe_run *p, size_t *idx, size_t max);
/* How many hosts a probe's operation involved (1 when unknown). */
size_t cd_probe_n_hosts(const struct cd_results *r, const struct cd_probe_run *p);
/*
 * Ranks per host, one pass over ranks[]: a heap array of r->n_hosts counts (all 0 without
 * ranks[]) for the callers below to share.
 */
int64_t *cd_hosts_ranks(const struct cd_results *r);
/*
 * A host running more ranks than it has CPUs online: every rank polls, so each waits for a
 * CPU and iteration times measure the scheduler (Open MPI then yields in its progress loop).
 * `ranks` is cd_hosts_ranks()'s array.
 */
int cd_host_oversubscribed(const struct cd_results *r, const int64_t *ranks, size_t host);
/* The first oversubscribed host the probe involved, or NULL. */
const struct cd_host *cd_probe_oversubscribed(const struct cd_results *r, const int64_t *ranks,
					      const struct cd_probe_run *p);
/* The sample of the largest / smallest size, or NULL. */
const struct cd_probe_sample *cd_probe_largest(const struct cd_probe_run *p);
const struct cd_probe_sample *cd_probe_smallest(const struct cd_probe_run *p);
/* The largest size measured, or CD_NULL_I64. */
int64_t cd_probe_max_bytes(const struct cd_probe_run *p);
/* Wrong elements over all sizes (0 when none was checked). */
int64_t cd_probe_errors(const struct cd_probe_run *p);

/*
 * The probe runs of each host, for rules that judge a host's runs or compare hosts: the runs of
 * host h are idx[start[h]] … idx[start[h + 1] - 1], in document order (runs of no known host are
 * in none). One pass with cd_probe_host(): O(P log H), where scanning every run for every host
 * was P × H, minutes for a merged fleet of 4096 hosts.
 */
struct cd_probe_groups {
	size_t *idx;
	size_t *start; /* n_hosts + 1 offsets */
};
void cd_probe_groups_build(const struct cd_results *r, struct cd_probe_groups *g);
void cd_probe_groups_free(struct cd_probe_groups *g);
/*
 * A set of names (borrowed strings), to take each probe name once in document order where a
 * scan of the earlier runs was P²: add returns 1 when the name is new, 0 when it was there.
 */
struct cd_name_set {
	const char **v;
	size_t n, cap; /* cap: a power of two, or 0 */
};
int cd_name_set_add(struct cd_name_set *s, const char *name);
void cd_name_set_free(struct cd_name_set *s);

/* The host a probe ran on: by name, or the only host; NULL when unknown. */
const struct cd_host *cd_probe_host(const struct cd_results *r, const struct cd_probe_run *p);
const struct cd_gpu *cd_host_gpu(const struct cd_host *h, int64_t index);
/*
 * The link a bandwidth probe is measured against, GB/s: the GPU's PCIe link at its maximum
 * for copy.h2d/d2h; for p2p.bw the GPU's NVLink rate, else the slower GPU's PCIe link.
 * NAN for other probes and unknown links. The score card and the Prometheus report share it.
 */
double cd_probe_link_gbyte_s(const struct cd_results *r, const struct cd_probe_run *p);

/* Administratively up and operationally up (or "unknown", as virtual devices report). */
int cd_nic_is_up(const struct cd_nic *n);
/* An IPv4 address, or an IPv6 one that is not link-local (fe80::): one other hosts can reach. */
int cd_nic_has_address(const struct cd_nic *n);

/*
 * A pair of the bad-node hunt (check --pairs) below this fraction of the best pair is
 * bad: the hunt's schedule (dist.c) picks its suspects by it, and the straggler rules
 * (MPI003, NCCL004) name a rank by it, so both must read the same number.
 */
#define CD_HUNT_FRAC 0.5

/* Median of n values (v is reordered); NAN for n == 0. */
double cd_median(double *v, size_t n);
/* Median absolute deviation around med (v is overwritten). */
double cd_mad(double *v, size_t n, double med);

#endif
