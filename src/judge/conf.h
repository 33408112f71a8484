/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Thresholds as data: rules/default.conf, then a hardware profile (rules/<name>.conf,
 * chosen from the GPUs found or named with --profile), then --rules FILE, then
 * -D key=value. Every value remembers where it came from, for `commdiag rules`.
 *
 * Format: `key = value` lines, `#` comments (also after a value), optional
 * `[section]` headers (a key inside one is "section.key"). Values carry the key's
 * unit or none (then the key's own unit is meant):
 *   bytes   512, 64K, 16M, 1G, 1GiB (binary multiples, as nccl-tests' -b/-e)
 *   gbyte_s GB/s (10^9 bytes/s) or Gb/s (converted by cd_gbit_to_gbyte)
 *   gbit_s  Gb/s or GB/s (converted by cd_gbyte_to_gbit)
 *   mbit_s  Mb/s or Gb/s
 *   pct     a percentage 0-100, with or without "%"
 *   us      us, ms or s
 *   number  a plain non-negative number
 */
#ifndef CD_CONF_H
#define CD_CONF_H

#include <stddef.h>

#include "results.h"

enum cd_unit { CD_U_BYTES, CD_U_GBYTE_S, CD_U_GBIT_S, CD_U_MBIT_S, CD_U_PCT, CD_U_US, CD_U_NUMBER, CD_U_TEXT };
const char *cd_unit_str(enum cd_unit u); /* "bytes", "gbyte_s", … as in finding.unit */

/*
 * Every key, its unit and what it means. Keys are never renamed (saved findings name
 * them); a zero floor or count means "not checked" where the text says so.
 */
#define CD_CONF_KEYS                                                                                             \
	X(SHM_MIN_BYTES, "system.shm_min_bytes", CD_U_BYTES,                                                     \
	  "smallest /dev/shm inside a container (SYS001)")                                                       \
	X(NET_FABRIC_MIN, "net.fabric_min_mbit_s", CD_U_MBIT_S,                                                  \
	  "an interface this fast or faster is a fabric port (NET004, NET005)")                                  \
	X(COPY_WARN_PCT, "copy.warn_pct", CD_U_PCT,                                                              \
	  "host<->device copy below this share of the GPU's PCIe link warns (COPY001)")                          \
	X(COPY_FAIL_PCT, "copy.fail_pct", CD_U_PCT,                                                              \
	  "host<->device copy below this share of the GPU's PCIe link fails (COPY001)")                          \
	X(COPY_H2D_MIN, "copy.h2d_min_gbyte_s", CD_U_GBYTE_S, "absolute floor of copy.h2d, 0 = none (COPY002)")  \
	X(COPY_D2H_MIN, "copy.d2h_min_gbyte_s", CD_U_GBYTE_S, "absolute floor of copy.d2h, 0 = none (COPY002)")  \
	X(P2P_WARN_PCT, "p2p.warn_pct", CD_U_PCT, "p2p.bw below this share of the pair's link warns (P2P001)")   \
	X(P2P_FAIL_PCT, "p2p.fail_pct", CD_U_PCT, "p2p.bw below this share of the pair's link fails (P2P001)")   \
	X(P2P_MIN, "p2p.min_gbyte_s", CD_U_GBYTE_S, "absolute floor of p2p.bw, 0 = none (P2P002)")              \
	X(P2P_LAT_TARGET, "p2p.latency_target_us", CD_U_US,                                                      \
	  "p2p.latency of a GPU pair over NVLink at or below this scores 100 (score)")                           \
	X(P2P_PCIE_LAT_TARGET, "p2p.pcie_latency_target_us", CD_U_US,                                           \
	  "p2p.latency of a GPU pair over PCIe (or not known) at or below this scores 100 (score)")              \
	X(NVL_LINKS, "nvlink.links_expected", CD_U_NUMBER, "NVLinks every GPU should have, 0 = not checked (NVL002)") \
	X(GPU_COUNT, "gpu.count_expected", CD_U_NUMBER,                                                          \
	  "GPUs a host should have, 0 = not checked; none found (driver not loaded) counts as 0 (GPU001)")       \
	X(IB_PORTS, "ib.ports_expected", CD_U_NUMBER,                                                            \
	  "RDMA ports a host should have, 0 = not checked; none found (no verbs) counts as 0 (IB004)")           \
	X(NET_NICS, "net.nics_expected", CD_U_NUMBER,                                                            \
	  "interfaces up with an address, not loopback or virtual, a host should have, 0 = not checked (NET006)") \
	X(IB_MIN_RATE, "ib.min_rate_gbit_s", CD_U_GBIT_S, "slowest acceptable active port rate, 0 = none (IB003)") \
	X(NCCL_AR_MIN, "nccl.all_reduce_min_busbw_gbyte_s", CD_U_GBYTE_S,                                        \
	  "floor of nccl.all_reduce busbw on one host, quoted at nccl.floor_ref_bytes, 0 = none (NCCL001)")      \
	X(NCCL_FLOOR_BYTES, "nccl.floor_min_bytes", CD_U_BYTES,                                                  \
	  "the busbw floor is judged when the largest size is at least this (NCCL001)")                          \
	X(NCCL_FLOOR_REF_BYTES, "nccl.floor_ref_bytes", CD_U_BYTES,                                              \
	  "the size the all_reduce floors are quoted at; smaller sizes get the floor scaled down (NCCL001)")     \
	X(NCCL_FLOOR_HALF_BYTES, "nccl.floor_half_bytes", CD_U_BYTES,                                            \
	  "Hockney's n-half: the size at half the asymptotic busbw, which scales the floor (NCCL001)")           \
	X(NCCL_NET_AR_MIN, "nccl.net_all_reduce_min_busbw_gbyte_s", CD_U_GBYTE_S,                                \
	  "floor of nccl.all_reduce busbw across hosts, quoted at nccl.floor_ref_bytes, 0 = none (NCCL001)")     \
	X(NCCL_LAT_WARN, "nccl.latency_warn_us", CD_U_US,                                                        \
	  "one host: a collective's time at 8 KiB or less above this warns, 0 = not checked (NCCL002)")          \
	X(NCCL_NET_LAT_WARN, "nccl.net_latency_warn_us", CD_U_US,                                                \
	  "across hosts: the same, times log2 of the hosts, 0 = not checked (NCCL002)")                          \
	X(NCCL_LAT_TARGET, "nccl.latency_target_us", CD_U_US,                                                    \
	  "GPUs of one host over NVLink: nccl.* time at 8 KiB or less at or below this scores 100")              \
	X(NCCL_PCIE_LAT_TARGET, "nccl.pcie_latency_target_us", CD_U_US,                                          \
	  "GPUs of one host over PCIe (or not known): nccl.* small-size time at or below this scores 100")       \
	X(NCCL_RDMA_LAT_TARGET, "nccl.rdma_latency_target_us", CD_U_US,                                          \
	  "across hosts over InfiniBand/RoCE: the same, times log2 of the hosts")                               \
	X(NCCL_TCP_LAT_TARGET, "nccl.tcp_latency_target_us", CD_U_US,                                            \
	  "across hosts over TCP (or not known): the same, times log2 of the hosts")                            \
	X(NCCL_LATE_MIN_US, "nccl.straggler_min_wait_us", CD_U_US,                                               \
	  "the other ranks wait at least this long per collective for one rank, 0 = not checked (NCCL003)")       \
	X(NCCL_LATE_WARN_PCT, "nccl.straggler_warn_pct", CD_U_PCT,                                               \
	  "and the wait is at least this share of their collective's time: warn (NCCL003)")                      \
	X(NCCL_LATE_FAIL_PCT, "nccl.straggler_fail_pct", CD_U_PCT,                                               \
	  "a median wait of at least this share of their time fails (NCCL003)")                                  \
	X(MPI_LAT_TARGET, "mpi.latency_target_us", CD_U_US,                                                      \
	  "mpi.latency between hosts over InfiniBand/RoCE at or below this scores 100 (score)")                  \
	X(MPI_SHM_LAT_TARGET, "mpi.shm_latency_target_us", CD_U_US,                                              \
	  "mpi.latency between ranks of one host (shared memory) at or below this scores 100 (score)")           \
	X(MPI_TCP_LAT_TARGET, "mpi.tcp_latency_target_us", CD_U_US,                                              \
	  "mpi.latency between hosts over TCP (or not known) at or below this scores 100 (score)")               \
	X(BAL_MAD_K, "balance.mad_k", CD_U_NUMBER,                                                               \
	  "an outlier's robust z-score (|x - median| / (1.4826 MAD)) exceeds this (BAL001, BAL002)")             \
	X(BAL_MIN_DEV, "balance.min_dev_pct", CD_U_PCT, "and it is at least this far below the median (BAL001, BAL002)") \
	X(BAL_MIN_PEERS, "balance.min_peers", CD_U_NUMBER, "members a comparison needs (BAL001, BAL002)")        \
	X(STAB_SPREAD_WARN, "stability.spread_warn_pct", CD_U_PCT,                                               \
	  "interquartile range / median of the iteration times at the largest size above this warns (STAB004)") \
	X(STAB_HOST_SPREAD_WARN, "stability.host_spread_warn_pct", CD_U_PCT,                                     \
	  "the same for probes the host's CPUs drive (mpi.*, tcp.*) (STAB004)")                                 \
	X(STAB_JITTER, "stability.jitter_us", CD_U_US,                                                           \
	  "a spread (STAB004) or an outlier's excess over the median (STAB005) below this is not judged")       \
	X(STAB_CPU_WAIT_MAX, "stability.cpu_wait_max_pct", CD_U_PCT,                                             \
	  "a size whose timing thread waited for a CPU longer than this share of its time is not judged")       \
	X(BASE_NOISE_K, "baseline.noise_k", CD_U_NUMBER,                                                         \
	  "a change counts when above this many combined interquartile ranges of both runs (BASE001-BASE004)")   \
	X(BASE_WARN_PCT, "baseline.warn_pct", CD_U_PCT,                                                          \
	  "and above this share of the baseline: warn (BASE001, BASE002), info when faster (BASE004)")           \
	X(BASE_FAIL_PCT, "baseline.fail_pct", CD_U_PCT,                                                          \
	  "a change beyond the noise and above this share of the baseline fails (BASE001, BASE002)")             \
	X(SCORE_BW_FULL, "score.bw_full_pct", CD_U_PCT,                                                          \
	  "a measurement at this share of its link's theoretical rate scores 100 (score)")                       \
	X(SCORE_SPREAD_ZERO, "score.spread_zero_pct", CD_U_PCT,                                                  \
	  "a probe whose interquartile range is this share of its median scores 0 stability")                    \
	X(PROFILE_DESC, "profile.description", CD_U_TEXT, "what the profile is for (profiles only)")            \
	X(PROFILE_GPUS, "profile.gpu_names", CD_U_TEXT,                                                          \
	  "comma-separated patterns (fnmatch, any case) every GPU name must match (profiles only)")             \
	X(PROFILE_IC, "profile.interconnect", CD_U_TEXT, "nvlink, pcie, any or none (no GPU) (profiles only)")   \
	X(PROFILE_REQUIRE, "profile.require", CD_U_TEXT,                                                         \
	  "rule groups that must be evaluated on a discovered host, comma-separated; not evaluated fails (REQ001)")

/*
 * The rule groups, in evaluation order: rules.c's table names them, --require and
 * profile.require list them (conf.c validates those lists against this one).
 */
#define CD_RULE_GROUPS                                                                   \
	G("system", "container, limits and IOMMU of each host")                          \
	G("net", "interfaces: state, addresses, fabric MTU and speed; expected count")   \
	G("pcie", "PCIe link state of GPUs, NICs and HCAs; ACS")                         \
	G("nvlink", "NVLink state and count per GPU")                                    \
	G("p2p", "GPU peer-to-peer bandwidth and NCCL's P2P decision")                   \
	G("ib", "RDMA port state, rate and expected count")                              \
	G("gpu", "GPU inventory: expected count, GPUs on the PCI bus without a driver")  \
	G("copy", "host<->device copy bandwidth against the PCIe link")                  \
	G("nccl", "collective bandwidth and latency")                                    \
	G("balance", "outliers among GPUs and among hosts")                              \
	G("stability", "probe timeouts, failures, data errors and spread")               \
	G("baseline", "regressions against a baseline document (compare, --baseline)")

enum cd_key {
	CD_K_NONE, /* 0: "no key", so zero-filled key lists end by themselves */
#define X(id, name, unit, help) CD_K_##id,
	CD_CONF_KEYS
#undef X
	CD_K_COUNT
};

struct cd_conf_key {
	const char *name;
	enum cd_unit unit;
	const char *help;
};
const struct cd_conf_key *cd_conf_key(enum cd_key k);
int cd_conf_key_find(const char *name); /* enum cd_key, or -1 */

struct cd_conf {
	double val[CD_K_COUNT];
	char *text[CD_K_COUNT];   /* CD_U_TEXT values */
	char *origin[CD_K_COUNT]; /* "default.conf:7", "h100-sxm.conf:12", "site.conf:3 (--rules)", "-D" */
	char *profile;            /* chosen profile name, NULL for none */
	char *profile_reason;
	struct cd_strv sources;   /* what was read, in order */
	struct cd_strv require;   /* --require's groups (the user's, so they hold for any document) */
};

/* What the command line asks for; every field may be empty. */
struct cd_conf_opts {
	const char *profile;      /* --profile NAME ("none": default.conf only) */
	const char *const *files; /* --rules FILE, in order */
	size_t n_files;
	const char *const *defs;  /* -D key=value, in order */
	size_t n_defs;
	const char *require;      /* --require GROUP[,GROUP…]: added to profile.require */
};

void cd_conf_init(struct cd_conf *c);
void cd_conf_free(struct cd_conf *c);

/*
 * Parse text (one file) into c. `name` is the file as messages show it, `tag` is
 * appended to each origin (" (--rules)"). Errors: "rules: NAME:LINE: what was
 * expected", printed once; returns -1 and c may hold the keys before the error.
 */
int cd_conf_parse(struct cd_conf *c, const char *text, size_t len, const char *name, const char *tag);
/* One -D key=value. */
int cd_conf_define(struct cd_conf *c, const char *def);
/* "gpu,nccl": rule groups (or "none"); appended to out when not NULL; -1 with the reason in err. */
int cd_conf_parse_groups(const char *list, struct cd_strv *out, char *err, size_t elen);
/* Validate a file alone (`commdiag rules check`); returns the number of keys, or -1. */
int cd_conf_check_file(const char *path);

/*
 * The thresholds in force for document r: embedded default.conf, the profile
 * (o->profile, else chosen from r's GPUs; r may be NULL), --rules files, -D.
 * Returns 0, or -1 after printing why (exit 2: input error).
 */
int cd_conf_load(struct cd_conf *c, const struct cd_conf_opts *o, const struct cd_results *r);

/* Parse one embedded file (e.g. "h100-sxm.conf") into c; returns the number of keys or -1. */
int cd_conf_load_embedded(struct cd_conf *c, const char *file);
/* The embedded profiles: names without ".conf", in name order; NULL-terminated, static. */
const char *const *cd_conf_profiles(void);
/* The profile chosen for r (a static name, or NULL) and why (heap string). */
const char *cd_conf_pick_profile(const struct cd_results *r, char **why);

static inline double cd_conf_get(const struct cd_conf *c, enum cd_key k)
{
	return c->val[k];
}
/* "80 %", "48 GB/s", "1.0 GiB", "400 Gb/s", "25 us", "3.5"; returns buf. */
const char *cd_conf_fmt(const struct cd_conf *c, enum cd_key k, char *buf, size_t len);

#endif
