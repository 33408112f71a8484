/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results document: every stage reads it and writes only its own part.
 * It owns everything reachable from it (strings are heap copies), starts zeroed,
 * and cd_results_free() is safe on a half-filled document.
 *
 * "Not known" is explicit: CD_NULL_I64 for integers, NAN for doubles,
 * CD_TRI_NULL for booleans, NULL for strings. The JSON renders them as null.
 */
#ifndef CD_RESULTS_H
#define CD_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define CD_SCHEMA_VERSION 1
/* The compact form of the same document (report_compact.c): the loader reads both. */
#define CD_SCHEMA_COMPACT 2

enum cd_tri { CD_TRI_NULL = -1, CD_TRI_FALSE = 0, CD_TRI_TRUE = 1 };

enum cd_status { CD_ST_OK, CD_ST_SKIPPED, CD_ST_ERROR, CD_ST_TIMEOUT };
const char *cd_status_str(enum cd_status s);
int cd_status_parse(const char *s); /* -1 when unknown */

/* The discovery sections of a host; each has a status and, unless ok, a reason. */
enum cd_part { CD_PART_SYSTEM, CD_PART_TOPO, CD_PART_NET, CD_PART_IB, CD_PART_GPU, CD_PART_COUNT };
const char *cd_part_str(enum cd_part p);

struct cd_section {
	enum cd_status status;
	char *reason; /* owned; NULL when ok */
};

enum cd_severity { CD_SEV_INFO, CD_SEV_WARN, CD_SEV_FAIL };
const char *cd_severity_str(enum cd_severity s);
int cd_severity_parse(const char *s);

struct cd_kv {
	char *key;
	char *value;
};

struct cd_strv { /* a list of owned strings */
	char **v;
	size_t n, cap;
};
void cd_strv_push(struct cd_strv *sv, const char *s);
void cd_strv_free(struct cd_strv *sv);

struct cd_system {
	char *kernel;           /* uname -r */
	char *os;               /* /etc/os-release PRETTY_NAME */
	char *arch;             /* uname -m */
	int64_t cpus_online;
	int64_t mem_total_bytes;
	char *container;        /* "docker", "podman", "kubernetes", "lxc", "none"; NULL when unknown */
	char *container_evidence; /* what the detection saw, e.g. "/.dockerenv exists" */
	int64_t shm_bytes;      /* size of the /dev/shm file system */
	int memlock_unlimited;  /* enum cd_tri */
	int64_t memlock_bytes;  /* soft RLIMIT_MEMLOCK; null when unlimited */
	int64_t nofile_soft;
	int64_t nofile_hard;
	char *iommu;            /* "off", "on", "passthrough"; NULL when unknown */
	char *iommu_evidence;
	int peermem;            /* nvidia_peermem or nv_peer_mem loaded; enum cd_tri */
	int dev_infiniband;     /* /dev/infiniband present; enum cd_tri */
	char *fabric_manager;   /* GPU issue; NULL until a GPU discovery fills it */
};

struct cd_versions {
	char *driver;       /* NVIDIA kernel driver */
	int64_t cuda_driver; /* cuDriverGetVersion(): 13000 = 13.0 */
	char *nccl;         /* "2.28.9" */
	char *nccl_net_plugin; /* "Libfabric (v10)" as NCCL logs it; "internal" without one */
	char *hwloc;
	char *libnl;
	char *libibverbs;
	char *cjson;
	char *commdiag;     /* the commdiag that discovered this host: ranks of one job may run different builds */
};

struct cd_numa_node {
	int64_t index;      /* OS index */
	char *cpus;         /* list form "0-27,56-83" */
	int64_t memory_bytes;
};

enum cd_pci_kind { CD_PCI_OTHER, CD_PCI_NIC, CD_PCI_HCA, CD_PCI_GPU, CD_PCI_STORAGE, CD_PCI_BRIDGE };
const char *cd_pci_kind_str(enum cd_pci_kind k);
int cd_pci_kind_parse(const char *s);

struct cd_pci_device {
	char *bus_id;       /* "0000:3b:00.0" */
	int64_t vendor_id;  /* 0x15b3 */
	int64_t device_id;
	int64_t class_id;   /* 0x0207 */
	enum cd_pci_kind kind;
	char *vendor;       /* PCI database names, NULL when hwloc has none */
	char *device;
	int64_t numa;       /* OS index of the nearest NUMA node; null when none */
	double link_gbyte_s; /* hwloc's per-direction link speed; NAN when unknown */
	int64_t gen, width, max_gen, max_width; /* from sysfs on a live host; null otherwise */
	struct cd_strv os_devices; /* "eth0", "mlx5_0", "nvml0" */
};

enum cd_nic_kind {
	CD_NIC_PHYSICAL, CD_NIC_LOOPBACK, CD_NIC_BRIDGE, CD_NIC_VETH, CD_NIC_BOND, CD_NIC_VLAN,
	CD_NIC_TUNNEL, CD_NIC_IPOIB, CD_NIC_VIRTUAL, CD_NIC_OTHER
};
const char *cd_nic_kind_str(enum cd_nic_kind k);
int cd_nic_kind_parse(const char *s);

struct cd_nic {
	char *name;
	int64_t ifindex;
	enum cd_nic_kind kind;
	char *link_type;    /* rtnl link type as the kernel names it ("veth", "bond"); NULL for plain devices */
	char *state;        /* operstate: "up", "down", "unknown", "dormant", "lowerlayerdown", … */
	int admin_up;       /* IFF_UP; enum cd_tri */
	int64_t mtu;
	int64_t speed_mbit_s; /* sysfs; null when unknown (virtual devices, link down) */
	char *mac;
	char *master;       /* bond or bridge this port belongs to */
	struct cd_strv ipv4; /* "10.0.0.17/24" */
	struct cd_strv ipv6;
	int default_route;  /* carries an IPv4 or IPv6 default route; enum cd_tri */
	char *driver;
	char *bus_id;
	int64_t numa;
};

struct cd_gid {
	int64_t index;
	char *gid;          /* "fe80:0000:…" */
	char *type;         /* "IB/RoCE v1", "RoCE v2" */
	char *netdev;
	int ipv4;           /* IPv4-mapped (::ffff:a.b.c.d); enum cd_tri */
};

struct cd_ib_port {
	int64_t port;
	char *state;        /* "active", "down", "init", "armed" */
	char *phys_state;   /* "link_up", "polling", "disabled", … */
	char *link_layer;   /* "infiniband", "ethernet" */
	int64_t active_width; /* lanes: 1, 2, 4, 8, 12 */
	double lane_gbit_s; /* per-lane signalling rate, e.g. 100 for NDR */
	double rate_gbit_s; /* width × lane rate */
	int64_t lid;
	int64_t mtu_bytes;  /* active MTU */
	char *netdev;
	int64_t roce_v2_gid_index; /* first RoCE v2 GID with an IPv4 address; null on IB or none */
	struct cd_gid *gids;
	size_t n_gids, cap_gids;
};

struct cd_hca {
	char *name;
	char *node_guid;    /* "0x…" string: 64-bit ids are never JSON numbers */
	char *fw_ver;
	char *board_id;
	char *bus_id;
	int64_t numa;
	char *netdev;       /* first port's netdev, for convenience */
	struct cd_ib_port *ports;
	size_t n_ports, cap_ports;
};

struct cd_nvlink {
	int64_t link;
	int up;             /* enum cd_tri */
	int64_t version;    /* NVLink generation, as NVML reports it */
	char *remote_bus_id;
	char *remote_kind;  /* "gpu", "nvswitch", "cpu", "unknown" */
};

struct cd_gpu {
	int64_t index;
	char *name;
	char *uuid;
	char *bus_id;
	int64_t numa;
	int64_t memory_bytes;
	char *compute_capability; /* "9.0" */
	int persistence;    /* persistence mode; enum cd_tri */
	/* the GPU's own PCIe link: current and maximum; per-direction GB/s at the current one */
	int64_t pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
	double pcie_link_gbyte_s;
	struct cd_nvlink *nvlinks;
	size_t n_nvlinks, cap_nvlinks;
};

/*
 * The path matrix of `nvidia-smi topo -m`: how traffic between two GPUs, or a GPU and
 * a network device, travels. Classes: X (itself), NV# (# NVLinks), PIX (one PCIe
 * switch), PXB (several switches, no host bridge), PHB (through a host bridge), NODE
 * (across host bridges within a NUMA node), SYS (across the inter-socket link).
 * Matrices are flat, row-major: gpu_gpu[i * n_gpus + j].
 */
struct cd_paths {
	char *source;           /* what the classes came from: "hwloc", "hwloc+nvml" */
	struct cd_strv gpus;    /* row labels: bus ids, in GPU index order */
	struct cd_strv nets;    /* column labels of gpu_net: "mlx5_0", "eth0" */
	char **gpu_gpu;         /* gpus.n × gpus.n classes */
	char **gpu_net;         /* gpus.n × nets.n classes */
	/* NCCL's P2P decision per pair: the class at or below the cutoff (and not disabled) */
	char *p2p_level;        /* the cutoff in force: "PXB" is NCCL's default */
	char *p2p_level_source; /* "default", "NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE" */
	int *nccl_p2p;          /* gpus.n × gpus.n; enum cd_tri */
	/* what the driver says: cuDeviceCanAccessPeer, NVML's P2P read status */
	int *cuda_p2p;          /* gpus.n × gpus.n; enum cd_tri; NULL until the GPU probe ran */
	char **nvml_p2p;        /* "ok", "chipset_not_supported", "disabled_by_regkey", … */
};

/* The ACS redirect bits of a PCIe bridge on a path between GPUs: set, P2P goes up to the root. */
struct cd_acs {
	char *bus_id;
	int redirect;       /* any of source validation / request or completion redirect / upstream forwarding; enum cd_tri */
	int64_t ctrl;       /* the ACS control register; null when unreadable */
	char *reason;       /* why unreadable: "needs root to read PCI config space beyond 64 bytes" */
};

/*
 * One TCP connection attempt of the reachability probe: `from` connected to `to` on the
 * address `address` of its interface `iface`.
 */
struct cd_reach {
	char *from;         /* hostname that connected */
	char *to;           /* hostname that listened */
	char *iface;        /* the listener's interface */
	char *address;      /* "10.0.0.18" */
	int ok;             /* enum cd_tri */
	double connect_us;
	char *error;        /* "connection timed out after 2.0 s", "no route to host" */
};

/*
 * tcp.reach above CD_REACH_COMPACT_HOSTS hosts: per host and interface name, the attempts
 * on it (in: the host listened) and from it (out: the host connected), and how many of each
 * failed. reach[] then keeps the failed attempts and one successful attempt per pair
 * (reach.h), not every attempt.
 */
struct cd_reach_count {
	char *host;
	char *iface;
	int64_t in_tested, in_failed, out_tested, out_failed;
};

/* host_id_source of explain's host for log lines without a host prefix: not a machine */
#define CD_HOST_FROM_LOG "none: log lines without a host prefix"

struct cd_host {
	char *hostname;
	char *host_id;      /* /etc/machine-id, else boot_id */
	char *host_id_source;
	struct cd_section part[CD_PART_COUNT];
	char *topology_source; /* "live" or the replayed XML path */
	struct cd_system system;
	struct cd_versions versions;
	struct cd_numa_node *numa_nodes;
	size_t n_numa, cap_numa;
	struct cd_pci_device *pci;
	size_t n_pci, cap_pci;
	struct cd_gpu *gpus;
	size_t n_gpus, cap_gpus;
	struct cd_nic *nics;
	size_t n_nics, cap_nics;
	struct cd_hca *hcas;
	size_t n_hcas, cap_hcas;
	struct cd_paths paths;
	struct cd_acs *acs;
	size_t n_acs, cap_acs;
	struct cd_kv *env;
	size_t n_env, cap_env;
};

struct cd_finding {
	char *id;           /* stable rule id, e.g. "NET002" */
	enum cd_severity severity;
	char *host;
	char *subject;      /* "eth1", "mlx5_0/1", "/dev/shm" */
	char *title;
	double measured;    /* NAN when the finding is not about a number */
	double expected;
	char *unit;         /* of measured/expected: "bytes", "gbyte_s" */
	char *threshold;    /* the rules/ key that set `expected` ("copy.warn_pct"); NULL when none */
	struct cd_strv evidence;
	int consequence;    /* explain: only a consequence of a failure that began elsewhere (LOG097 lists it) */
};

/*
 * One setting or action. env set, value set: export env=value. env set, value NULL:
 * unset env. env NULL: value is a command or physical action, shown as a comment.
 */
struct cd_advice {
	char *env;          /* variable name; NULL for a command or action */
	char *value;
	char *host;         /* the host it applies to; NULL: every host of the job */
	struct cd_strv findings;
	struct cd_strv path;
	char *why;
};

/* One size of a probe's sweep: the harness's statistics over the timed iterations. */
struct cd_probe_sample {
	int64_t bytes;
	int64_t iters;          /* timed iterations (warm-up excluded) */
	double time_us;         /* median per-operation time */
	double min_time_us;
	double max_time_us;
	/*
	 * Per-iteration percentiles (linear interpolation between order statistics, as R's
	 * type 7 and NumPy's default) and the iterations beyond Tukey's far-out fences, below
	 * Q1 - 3 IQR or above Q3 + 3 IQR. The judge reads its spread from these, never from
	 * min and max: one preempted iteration sets max. Null when not recorded (documents
	 * written before them, imports of nccl-tests, which prints one mean time per size).
	 */
	double p10_time_us, p25_time_us, p75_time_us, p90_time_us;
	int64_t outliers;
	/*
	 * Share of the timed iterations' time the timing thread spent runnable but waiting for
	 * a CPU (the run-queue wait of /proc/thread-self/schedstat), in percent: the CPU was
	 * contended, so the times are partly the scheduler's. Null when not measured.
	 */
	double cpu_wait_pct;
	double algbw_gbyte_s;   /* bytes / median time, decimal GB/s */
	double busbw_gbyte_s;   /* algbw × the probe's bus factor (nccl-tests) */
	int64_t errors;         /* data check: wrong elements, checked outside the timed loop; null when not checked */
};

/* One probe over one device (or pair): status, and when it did not finish, where it stopped. */
struct cd_probe_run {
	char *name;             /* "copy.h2d", "nccl.all_reduce" */
	enum cd_status status;
	char *reason;           /* why skipped, failed or timed out; ok nccl.init: why not timed as nccl-tests */
	char *phase;            /* "init", "connect", "collective", "copy": where a timeout happened */
	char *variant;          /* "out_of_place", "in_place" for collectives; NULL otherwise */
	char *host;
	int64_t device;         /* GPU index; null for host-only probes */
	int64_t peer;           /* peer GPU or rank; null when none */
	int64_t nranks;
	int64_t rank;           /* MPI rank that measured (and recorded) it; null without MPI */
	struct cd_probe_sample *samples;
	size_t n_samples, cap_samples;
};

/* A rule group that could not be evaluated, and why (its data is absent, not passing). */
struct cd_not_evaluated {
	char *group;        /* "nccl", "ib", … */
	char *reason;
};

/* How the rules ran: which thresholds, from where, and what they could not judge. */
struct cd_rules_run {
	int present;        /* 0 until the rules ran (JSON null) */
	char *profile;      /* "h100-sxm"; NULL when only default.conf applied */
	char *profile_reason; /* "auto: 8× NVIDIA H100 80GB HBM3 with NVLink", "--profile" */
	struct cd_strv sources; /* "default.conf (embedded)", "site.conf (--rules)", "-D copy.warn_pct=70" */
	struct cd_strv evaluated; /* rule groups that had data */
	struct cd_strv required;  /* groups that had to be evaluated (--require, profile.require) */
	struct cd_not_evaluated *not_evaluated;
	size_t n_not_evaluated, cap_not_evaluated;
};

/* The score card's four dimensions, in this order everywhere. */
enum cd_dim { CD_DIM_BANDWIDTH, CD_DIM_LATENCY, CD_DIM_BALANCE, CD_DIM_STABILITY, CD_DIM_COUNT };
const char *cd_dim_str(enum cd_dim d);

struct cd_score {
	int present;        /* 0 until scored (JSON null) */
	int64_t total;      /* 0–100; null when no dimension has data */
	char *grade;        /* "excellent", "good", "needs work"; NULL with total */
	int64_t dim[CD_DIM_COUNT];   /* 0–100; null when the dimension has no data */
	double weight[CD_DIM_COUNT]; /* weight used (after renormalisation); NAN when no data */
	char *basis[CD_DIM_COUNT];   /* what decided the value, or why there is no data */
	int renormalised;   /* enum cd_tri: a dimension had no data, the others' weights were scaled up */
};

/*
 * One MPI rank of the job (src/dist.c): where it ran and whether it answered rank 0's
 * gather. env_diff holds the communication variables (NCCL_*, OMPI_MCA_*, …) whose value
 * on this rank differs from its host's env (a NULL value: unset on this rank).
 */
struct cd_rank {
	int64_t rank;
	char *host;         /* hostname its host reports */
	int64_t host_index; /* index into hosts[]; null when its host's leader did not answer */
	int64_t local_rank; /* among the ranks of its host (MPI_COMM_TYPE_SHARED) */
	int answered;       /* enum cd_tri: false when it did not answer before the deadline */
	char *error;        /* why it did not answer */
	struct cd_kv *env_diff;
	size_t n_env_diff, cap_env_diff;
};

/*
 * One file `commdiag import` read (run.mode "import"): where the results came from,
 * and what of it could not be used, so a partial import says so.
 */
#define CD_IMPORT_FIRST_SKIPPED 5
struct cd_import {
	char *file;             /* as named on the command line; "stdin" for "-" */
	char *format;           /* "nccl-tests text", "nccl-tests json" */
	struct cd_strv collectives; /* "all_reduce", … in the order the tests appear; "a|b": the candidates */
	struct cd_strv collective_from; /* per test: how its collective is known (named, --collective, inferred) */
	struct cd_strv hosts;   /* the hosts the file's rank lines name, in order: its node count */
	int64_t tests;          /* test runs in the file (a log may hold several) */
	int64_t rows;           /* size rows imported */
	int64_t skipped_lines;  /* lines that looked like nccl-tests output but were unusable (cut, mangled) */
	int64_t first_skipped[CD_IMPORT_FIRST_SKIPPED]; /* their line numbers, the first few */
	size_t n_first_skipped;
	int64_t other_lines;    /* lines of other programs (NCCL INFO, launchers), ignored */
	int64_t out_of_bounds;  /* the footers' "Out of bounds values", summed; null without a footer */
	int complete;           /* every test ended with its footer; enum cd_tri */
	double *avg_busbw;      /* each footer's "Avg bus bandwidth" (GB/s), in order: all a pasted footer may hold */
	size_t n_avg_busbw, cap_avg_busbw;
};

/*
 * One document `commdiag merge` read (run.mode "merge"): a fleet document is the hosts of
 * separate runs, one file each (a prolog's per-node check), so each probe is judged over the
 * hosts of its own file, never over the whole fleet.
 */
struct cd_merged {
	char *file;             /* as named on the command line or found in the directory */
	char *mode;             /* the input's run.mode: "check", "probe", "topo" */
	struct cd_strv hosts;   /* its hosts' names, in order */
};

struct cd_run {
	char *started;      /* ISO 8601 UTC; NULL under COMMDIAG_DETERMINISTIC */
	char *mode;         /* "check", "topo" */
	char *launcher;     /* what started the ranks: "mpirun", "srun", "pmi"; NULL when run directly */
	int64_t launcher_ranks; /* how many ranks the launcher said it started (env); null when none */
	int64_t ranks;
	double duration_s;
	double timeout_s;
	char *stopped_by;   /* "timeout", "SIGINT", "SIGTERM": the run was stopped early; NULL when it ran to the end */
	char *stopped_phase; /* where: "discovery", "rules", "report" */
	struct cd_import *imports; /* what `commdiag import` read; empty otherwise */
	size_t n_imports, cap_imports;
	struct cd_merged *merged;  /* what `commdiag merge` read; empty otherwise */
	size_t n_merged, cap_merged;
};

/*
 * One PyTorch ProcessGroupNCCL watchdog report a log showed (explain's reader,
 * explain_torch.c), for `hang` to judge across logs: a rank's timed-out collective in
 * one process group, with PyTorch 2.2+'s last enqueued and completed work; or, with seq
 * null, a rank whose log shows it alive and reporting no timeout. Not part of the saved
 * document: the HANG findings quote what they were drawn from.
 */
struct cd_wd_report {
	char *log;          /* the log it was read from */
	char *host;         /* NCCL's host:pid:tid prefix on its line or the line before; NULL when none */
	char *group;        /* what names the process group on every rank ("GUID 119", "PG 1"); NULL: not named */
	char *group_label;  /* as the log writes it: "PG GUID 119(default_pg)" */
	int is_default;     /* the default group: its ranks are the global ranks */
	int timeout;        /* the watchdog said timeout (not an error) */
	int64_t group_size; /* "initialization options: size: N" (or NCCL's nranks for an unnamed group); null */
	int64_t global;     /* global rank: c10's [rankN] prefix, a group's "global rank:", the default group; null */
	int64_t grank;      /* the rank in the group (the tag's Rank, or WorkNCCL's [Rank N]); null */
	int64_t seq, enqueued, completed; /* SeqNum; last enqueued and completed NCCL work (2.2+); null */
	char *op;           /* OpType: "ALLREDUCE" */
};
void cd_wd_reports_free(struct cd_wd_report *v, size_t n);

struct cd_results {
	int schema;
	char *tool_version;
	struct cd_run run;
	struct cd_host *hosts;
	size_t n_hosts, cap_hosts;
	struct cd_probe_run *probes;
	size_t n_probes, cap_probes;
	struct cd_reach *reach;
	size_t n_reach, cap_reach;
	struct cd_reach_count *reach_counts; /* empty unless reach[] is compact (reach.h) */
	size_t n_reach_counts, cap_reach_counts;
	struct cd_rank *ranks;          /* one per rank of the job; empty for a saved single-rank document */
	size_t n_ranks, cap_ranks;
	struct cd_finding *findings;
	size_t n_findings, cap_findings;
	struct cd_advice *advice;
	size_t n_advice, cap_advice;
	struct cd_rules_run rules;  /* written by rules.c only */
	struct cd_score score;      /* written by score.c only */
	/*
	 * The document this one is compared with (`compare OLD NEW`, `--baseline FILE`), owned;
	 * NULL without one. Not part of the saved document: the BASE findings quote the
	 * baseline's numbers, and a copy of a whole second document in every saved one would
	 * make `--baseline` a chain (docs/ARCHITECTURE.md, Baselines).
	 */
	struct cd_results *baseline;
	char *baseline_file;        /* as named on the command line */
	/*
	 * Not part of the document: the hosts sorted by name, built by cd_probe_host() (measure.c)
	 * on first use and rebuilt when hosts[] moves or grows, so a fleet of 4096 hosts looks a
	 * probe's host up in O(log N). Freed with the document.
	 */
	struct cd_host_lookup *lookup;
	/* Not part of the saved document: PyTorch watchdog reports from logs (explain), for hang's judge. */
	struct cd_wd_report *watchdog;
	size_t n_watchdog, cap_watchdog;
	/*
	 * Not part of the document either: the judge's last answer to "do these hosts talk over
	 * RDMA?" (scope.c), which the rules and the score ask of every rank's run of a job, for
	 * the same hosts (issue 18). Kept here, not in a static, so that two documents judged in
	 * one process (compare, merge, a document loaded where a freed one was) never get each
	 * other's answer. Freed with the document.
	 */
	struct cd_rdma_memo *rdma_memo;
};

void cd_host_lookup_free(struct cd_host_lookup *l);

struct cd_rdma_memo {
	const struct cd_host *hosts; /* r->hosts and r->n_hosts when kept */
	size_t n_hosts;
	size_t n, *idx;              /* the hosts asked about, as indices (owned) */
	int nccl;                    /* asked for NCCL (its settings can turn RDMA off) */
	int answer;                  /* 1 RDMA, 0 TCP, -1 not known */
};
void cd_rdma_memo_free(struct cd_rdma_memo *m);

/* A document with the defaults every field needs (nulls, not zeros). */
void cd_results_init(struct cd_results *r);
void cd_results_free(struct cd_results *r);
struct cd_host *cd_results_add_host(struct cd_results *r);
void cd_host_init(struct cd_host *h);

/* Setters that keep the "reason unless ok" rule in one place. */
void cd_section_set(struct cd_section *s, enum cd_status st, const char *reason_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Initialised elements: every nullable field starts null. */
struct cd_numa_node *cd_host_add_numa(struct cd_host *h);
struct cd_pci_device *cd_host_add_pci(struct cd_host *h);
/* An NVIDIA display or 3D controller (hwloc: vendor 0x10de, class 0x0300 or 0x0302), and how many
   the host's PCI bus shows: what the driver should give, whether or not it did (GPU004). */
int cd_pci_nvidia_gpu(const struct cd_pci_device *d);
size_t cd_host_nvidia_pci_gpus(const struct cd_host *h);
struct cd_nic *cd_host_add_nic(struct cd_host *h);
struct cd_hca *cd_host_add_hca(struct cd_host *h);
struct cd_ib_port *cd_hca_add_port(struct cd_hca *hca);
struct cd_gid *cd_port_add_gid(struct cd_ib_port *p);
struct cd_gpu *cd_host_add_gpu(struct cd_host *h);
struct cd_nvlink *cd_gpu_add_nvlink(struct cd_gpu *g);
struct cd_acs *cd_host_add_acs(struct cd_host *h);
struct cd_reach *cd_results_add_reach(struct cd_results *r);
struct cd_rank *cd_results_add_rank(struct cd_results *r, int64_t rank);
void cd_rank_set_env(struct cd_rank *k, const char *key, const char *value); /* value may be NULL */
/*
 * Variables the launcher sets itself, different on every rank or host by design
 * (OMPI_MCA_orte_*, OMPI_MCA_ess*, …): never compared between ranks.
 */
int cd_env_from_launcher(const char *name);
/*
 * Size the path matrices for the labels already in p->gpus and p->nets: classes
 * NULL, tri-states null (cuda_p2p stays NULL). Frees earlier matrices.
 */
void cd_paths_alloc(struct cd_paths *p);
void cd_paths_free(struct cd_paths *p);
void cd_host_set_env(struct cd_host *h, const char *key, const char *value);
struct cd_finding *cd_results_add_finding(struct cd_results *r, const char *id, enum cd_severity sev,
					  const char *host, const char *subject, const char *title);
void cd_finding_evidence(struct cd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct cd_advice *cd_results_add_advice(struct cd_results *r);
void cd_advice_free(struct cd_advice *a);
void cd_results_drop_advice(struct cd_results *r, size_t i);
struct cd_probe_run *cd_results_add_probe(struct cd_results *r, const char *name);
struct cd_probe_sample *cd_probe_add_sample(struct cd_probe_run *p);
struct cd_import *cd_results_add_import(struct cd_results *r, const char *file, const char *format);
struct cd_merged *cd_results_add_merged(struct cd_results *r, const char *file, const char *mode);

struct cd_not_evaluated *cd_rules_run_add_not_evaluated(struct cd_rules_run *rr, const char *group,
							const char *reason);
void cd_rules_run_free(struct cd_rules_run *rr);
void cd_score_init(struct cd_score *s);
void cd_score_free(struct cd_score *s);

/* Free what one finding owns (not the finding itself: it lives in an array). */
void cd_finding_free(struct cd_finding *f);
/* Drop the findings, advice, rules run and score (keeping arrays), so rules and advice can run again. */
void cd_results_clear_judgement(struct cd_results *r);

/* Highest severity among the findings, or -1 when there are none. */
int cd_results_worst(const struct cd_results *r);
/* explain's bucket for log lines without a host prefix (host_id_source CD_HOST_FROM_LOG): no machine. */
int cd_host_from_log(const struct cd_host *h);
/* Hosts that are machines: the bucket is none, unless it is all there is. */
size_t cd_results_machines(const struct cd_results *r);

/*
 * Load a document written by `--json` (the same loader serves --from and MPI gathering).
 * `name` is used in messages ("-" for stdin). Returns 0, or -1 after printing
 * "commdiag: results: 'name': what was wrong".
 */
/* The longest host name (RFC 1035) a document holds: the loader refuses longer, parsers of logs cut. */
#define CD_HOSTNAME_MAX 253
/*
 * A host name read from a log, as a document can hold it: valid UTF-8 without control
 * characters (a bad byte becomes U+FFFD, three bytes), cut to CD_HOSTNAME_MAX bytes at a
 * character's end. Heap.
 */
char *cd_hostname_from_text(const char *s);

/* The first key an object under v (a cJSON *) has twice, its path in path; NULL when none. */
struct cJSON;
const char *cd_json_duplicate_key(const struct cJSON *v, char *path, size_t len);
int cd_results_load_json(struct cd_results *r, const char *text, size_t len, const char *name);
int cd_results_load_file(struct cd_results *r, const char *path);

#endif
