/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a measurement is judged against, chosen from the run itself: the latency target
 * and warn level of the scope a probe ran in (GPUs of one host over NVLink or PCIe, MPI
 * ranks of one host, hosts over InfiniBand/RoCE or TCP), and the all_reduce busbw floor
 * at the size measured. The rules (NCCL001, NCCL002) and the score card share it, so both
 * read the same number. Private to judge/.
 */
#ifndef CD_SCOPE_H
#define CD_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "results.h"

enum cd_scope { CD_SCOPE_NVLINK, CD_SCOPE_PCIE, CD_SCOPE_SHM, CD_SCOPE_RDMA, CD_SCOPE_TCP };

struct cd_lat_ref {
	enum cd_scope scope;
	int known;                 /* the transport was read from the facts; 0: the lenient one was assumed */
	size_t hosts;              /* hosts the operation involved */
	double hops;               /* across hosts, a collective's tree depth log2(hosts) (at least 1); else 1 */
	enum cd_key target, warn;  /* warn is CD_K_NONE where no rule warns (p2p, mpi) */
	double target_us, warn_us; /* the keys' values times hops; warn_us 0 when not checked */
	int64_t bytes;             /* the size judged (cd_probe_lat_sample: the fastest of at most 8 KiB) */
	const struct cd_host *busy; /* an oversubscribed host the run involved (its times are the scheduler's) */
	int contended;             /* the judged size's thread waited for a CPU over stability.cpu_wait_max_pct */
};

/*
 * The latency reference of p: 0 with *x filled for a finished collective (nccl.* but init
 * and pairs), p2p.latency or mpi.latency with a size of at most CD_LAT_MAX_BYTES; -1
 * otherwise. `ranks` is cd_hosts_ranks()'s array.
 */
int cd_latency_ref(const struct cd_results *r, const struct cd_conf *c, const int64_t *ranks,
		   const struct cd_probe_run *p, struct cd_lat_ref *x);
/* "one host over NVLink", "2 hosts over InfiniBand/RoCE", "2 hosts, transport not known"; returns buf. */
const char *cd_lat_ref_str(const struct cd_lat_ref *x, char *buf, size_t len);

/*
 * NCCL001's reference for nccl.all_reduce run p. The floor F is quoted at one size S_ref
 * (nccl.floor_ref_bytes); busbw follows Hockney's r(S) = r_inf * S / (n_half + S), so the
 * floor at a smaller size S is F * (S / (n_half + S)) * ((n_half + S_ref) / S_ref), never
 * more than F (n_half is nccl.floor_half_bytes). The largest size measured at or above
 * nccl.floor_min_bytes is judged. Across hosts the floor is
 * nccl.net_all_reduce_min_busbw_gbyte_s, a single-host figure never applies.
 */
enum cd_floor_state {
	CD_FLOOR_JUDGED,   /* floor set, the largest size is at least nccl.floor_min_bytes */
	CD_FLOOR_NONE,     /* no floor for this scope (0), or not a finished nccl.all_reduce */
	CD_FLOOR_SHORT,    /* the sweep stopped below nccl.floor_min_bytes */
	CD_FLOOR_NO_NET,   /* across hosts: only a single-host floor is set */
};
struct cd_floor_ref {
	enum cd_floor_state state;
	const struct cd_probe_sample *s; /* the largest size; NULL when none */
	double floor;                    /* at s->bytes (JUDGED) */
	double quoted;                   /* the floor as quoted, at ref_bytes */
	double ref_bytes, half_bytes, min_bytes;
	enum cd_key key;                 /* the floor's key */
	size_t hosts;
};
void cd_allreduce_floor(const struct cd_results *r, const struct cd_conf *c, const struct cd_probe_run *p,
			struct cd_floor_ref *x);

#endif
