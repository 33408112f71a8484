/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many nodes: MPI ranks, hosts, and the gather of every rank's part of the document
 * to rank 0. A build without MPI (MPI=0), or a run that no launcher started, is a
 * one-rank job and never initialises MPI.
 *
 * Never hang: after MPI_Init (which, like the communicator splits of cd_dist_init, is
 * covered by the run's SIGALRM deadline), every wait is a non-blocking operation polled
 * with MPI_Test under an explicit deadline. A rank that does not answer is named in
 * ranks[] (answered: false) and rank 0 goes on with the partial document.
 */
#ifndef CD_DIST_H
#define CD_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"
#include "results.h"

#ifdef CD_HAVE_MPI
#include <mpi.h>
#endif

struct cd_dist {
	int mpi;                /* MPI is initialised (a launcher started us and this build has MPI) */
	int rank, nranks;
	int local_rank, local_size; /* among the ranks of this host (MPI_COMM_TYPE_SHARED) */
	int host_index, n_hosts;    /* hosts numbered by their first rank */
	int broken;             /* a collective timed out: no further collective is started */
	const char *launcher;   /* "mpirun", "srun", "pmi"; NULL when none */
	int64_t launcher_ranks; /* how many ranks the launcher said; CD_NULL_I64 when none */
	char (*hostnames)[64];  /* per rank, from the init allgather; NULL without MPI */
	int *local_ranks;       /* per rank: its local rank (0: the first rank of its host) */
};

/* This process's view; a one-rank job until cd_dist_init found a launcher. */
const struct cd_dist *cd_dist_get(void);

/*
 * Which launcher started this process, from the environment only (no MPI call):
 * OMPI_COMM_WORLD_SIZE (mpirun), PMI_SIZE / PMIX_RANK (hydra, PMIx), SLURM_STEP_ID with
 * SLURM_NTASKS (srun). Returns the name or NULL; *nranks gets the size it announced
 * (CD_NULL_I64 when it did not say).
 */
const char *cd_dist_detect(char *const *envp, int64_t *nranks);

/*
 * Initialise MPI when a launcher started us and this build has MPI; else stay one rank.
 * Returns 0, or -1 after printing the error.
 */
int cd_dist_init(int *argc, char ***argv);

/* The run's ranks and launcher, as this process sees them, into r->run. */
void cd_dist_stamp_run(struct cd_results *r);
/* Under MPI: this rank's ranks[] entry in r, from its host h (identity, env). */
void cd_dist_add_self(struct cd_results *r, const struct cd_host *h);

/*
 * Every rank sends its part to rank 0 as JSON (rendered by report.c, loaded by the --from
 * loader); rank 0 merges them in rank order into r. Ranks whose part did not arrive before
 * deadline (cd_now_s() time) are recorded as not answered. Returns, on rank 0, the number
 * of ranks that did not answer (0 elsewhere and without MPI).
 */
int cd_dist_gather(struct cd_results *r, double deadline);

/*
 * The end of a distributed command: rank 0 tells every rank its exit code (so mpirun
 * exits with it); the others wait for it until deadline and return it (3 if it never
 * came). Then MPI_Finalize, or MPI_Abort(code) when a rank is missing, since a finalize
 * would wait for it. Returns the exit code for main.
 */
int cd_dist_end(int rc, int missing, double deadline);

/* A collective timed out: the communicator's collectives may be out of step, so start no more. */
void cd_dist_set_broken(void);

/* Rank 0, or a one-rank job: the rank that prints. */
int cd_dist_prints(void);

/* ---- pure helpers (unit tested without MPI) ---- */

/*
 * Round-robin schedule of all pairs among n units (the circle method): cd_pair_rounds(n)
 * rounds (n-1 for even n, n for odd), each a set of disjoint pairs. Returns the partner
 * of `self` in `round`, or -1 when it sits out.
 */
int cd_pair_rounds(int n);
int cd_pair_partner(int n, int round, int self);
/*
 * A ring of disjoint pairs: edge (i, i+1 mod n) runs in round cd_ring_round(n, i) (2 or 3
 * rounds); returns self's partner in `round` and whether self starts (*initiator), or -1.
 */
int cd_ring_partner(int n, int round, int self, int *initiator);
#define CD_RING_ROUNDS 3

/*
 * tcp.reach's peers (issue 18): each host tests a bounded set of peers at once, so the
 * probe takes a constant number of rounds (a sample, then a second sample for what
 * failed), never N - 1. keys[h] are host h's labels, n_keys[h] their count: "if:eth0",
 * "net:10.0.0.0/24", "names:docker0,eth0" (any strings; equal strings are one label).
 *
 * cd_reach_peers: self's ring neighbours, then the k other hosts of lowest hash(seed,
 * self, host, salt), then, in that hash order, any host that brings a label no peer
 * chosen so far has (so every interface name, subnet and naming present on another host
 * is tested by every host), at most cap in all. Writes the peers to out (ring first)
 * and returns their count; the same inputs give the same peers.
 *
 * cd_reach_second: the second sample for a label whose attempts all failed: up to k hosts
 * with that label, not self and not in tried[] (n_tried entries), in the order of a
 * hash with another salt. Returns their count.
 */
#define CD_REACH_K 6            /* hashed peers besides the two ring neighbours */
#define CD_REACH_K2 2           /* the second sample of an interface that failed all its peers */
#define CD_REACH_CAP 64         /* peers of one host at most, coverage included */
#define CD_REACH_ALL_MAX 64     /* --reach all: every pair, for this many hosts at most */
#define CD_REACH_SEED 0x636f6d6d64696167ULL /* "commdiag": the same job samples the same peers */
uint64_t cd_reach_hash(uint64_t seed, int self, int host, int salt);
int cd_reach_peers(int n, int self, uint64_t seed, int k, const char *const *const *keys, const size_t *n_keys,
		   int *out, int cap);
int cd_reach_second(int n, int self, uint64_t seed, const char *key, const char *const *const *keys,
		    const size_t *n_keys, const int *tried, int n_tried, int k, int *out);

/*
 * Merge the part document of `rank` into dst (hosts, ranks, probes, reach are moved; part
 * is left empty). host_map[old host index] receives the index in dst->hosts.
 */
void cd_dist_merge(struct cd_results *dst, struct cd_results *part, int64_t *host_map, size_t n_map);
/* After merging: host indices through host_map; each rank's env reduced to its differences from its host's. */
void cd_dist_finish_ranks(struct cd_results *dst, const int64_t *host_map, size_t n_map);
/*
 * Parts travel as the JSON document. Its writer is the report's: main hands it over here
 * (dist, beneath the stages, calls none of them).
 */
typedef void (*cd_dist_render_fn)(struct cd_out *o, const struct cd_results *r);
void cd_dist_set_render(cd_dist_render_fn fn);
/* JSON text of r through that renderer (heap; *len without the NUL); NULL without one. */
char *cd_dist_render(const struct cd_results *r, size_t *len);

/*
 * Test-only fault knobs that name a rank (fault.h: honoured only with COMMDIAG_TESTING=1).
 * cd_fault_rank: the rank a knob names, or -1. cd_fault_delay runs inside each MPI and TCP
 * probe operation: die_rank is killed there, slow_rank sleeps 100 us + 1 us per kB moved.
 * cd_fault_late runs before each NCCL collective, outside its timed region: late_rank
 * arrives CD_FAULT_LATE_MS late, as a rank with a busy CPU or a stalled loader does.
 */
#define CD_FAULT_LATE_MS 10
int cd_fault_rank(const char *knob);
void cd_fault_delay(size_t bytes);
void cd_fault_late(void);

/*
 * Bad-node hunting (check --pairs), the schedule that mpi.bw and nccl.pairs share. Units
 * are hosts (each by its first rank), or every rank when all share one host. Pass 1
 * pairs units (0,1), (2,3), …, and every rank learns every pair's value. Both units of a
 * pair below CD_HUNT_FRAC (measure.h) of the best pair are suspects, as is an odd one out (untested).
 * Pass 2 pairs each suspect with a known-good unit, as many disjoint pairs per round as
 * there are good units: O(N) pairs, never all of them.
 *
 * Before each pair its two ranks meet (one exchange): in pass 2 a known-good partner may
 * still be busy with the pairs of earlier rounds, each at most pair_s seconds, so the
 * meeting waits that long for each, within end_s; a partner that does not come is
 * reported to absent() by the initiator. Then pair(arg, peer, initiator, phase)
 * runs on both ranks: peer is the partner's world rank; the initiator records the run and
 * returns its value (NAN when it failed; the other side's return is ignored); phase
 * (< CD_HUNT_PHASES) keeps the messages of different rounds apart. Every rank calls
 * cd_dist_hunt; without MPI it does nothing.
 */
#define CD_HUNT_PHASES 9
typedef double (*cd_hunt_pair_fn)(void *arg, int peer, int initiator, int phase);
/* The initiator's partner did not come to the pair before the deadline (why says so). */
typedef void (*cd_hunt_absent_fn)(void *arg, int peer, const char *why);
struct cd_hunt_plan {
	const char *name;         /* the probe's, for messages */
	double end_s;             /* the run's end (cd_now_s clock) */
	double pair_s;            /* the longest one pair may take */
	cd_hunt_pair_fn pair;
	void *pair_arg;
	cd_hunt_absent_fn absent; /* the probe harness records these as the probe's timeouts */
	void *absent_arg;
};
void cd_dist_hunt(const struct cd_hunt_plan *plan);

/*
 * Swap len bytes with one peer, point to point with tag, under deadline (and cd_stop):
 * 0, or -1 (timeout, stop, MPI error, no MPI). An exchange given up on leaves its heap
 * scratch to MPI, as dist's collectives do; mine and theirs are never MPI's.
 */
int cd_dist_pair_exchange(int peer, int tag, const void *mine, void *theirs, size_t len, double deadline);

#ifdef CD_HAVE_MPI
/* Communicators: every rank, the ranks of this host, the first rank of each host (MPI_COMM_NULL elsewhere). */
MPI_Comm cd_dist_world(void);
MPI_Comm cd_dist_node(void);
MPI_Comm cd_dist_leaders(void);
/* World rank of the first rank of host `host_index`. */
int cd_dist_leader_rank(int host_index);
/*
 * Wait for n requests until deadline: 0 when all completed, CD_DIST_TIMEOUT when the
 * deadline passed (the requests are then cancelled and freed), -1 on an MPI error.
 * cd_dist_wait_op also gives up when the run is told to stop (cd_stop): the waits of
 * probe operations, which a SIGTERM must end, unlike the gather that follows it.
 *
 * A request given up on may still be progressed by MPI, which cannot cancel a send in
 * flight nor a collective: its buffers must outlive the process. Callers leak them,
 * never free or reuse them; a send buffer freed under a peer's shared-memory
 * single-copy read made Open MPI 4.1's vader crash both ranks (SIGSEGV, "Read -1").
 */
#define CD_DIST_TIMEOUT (-2)
int cd_dist_wait(MPI_Request *reqs, int n, double deadline);
int cd_dist_wait_op(MPI_Request *reqs, int n, double deadline);
void cd_dist_cancel(MPI_Request *reqs, int n);
#endif

/* Minimum of ok over every rank (an agreement to start something together); -1 on timeout. ok without MPI. */
int cd_dist_agree(int ok, double deadline);

/*
 * NCCL's unique id (128 bytes) from rank 0 to every rank, by MPI_Ibcast under deadline.
 * 0, or -1 (timeout or no MPI: one rank has nothing to receive).
 */
#define CD_DIST_BLOB_BYTES 128
int cd_dist_bcast_blob(void *blob, double deadline);
/*
 * Every rank's `mine`, in rank order, into all[nranks] (all[0] = mine without MPI), by
 * MPI_Iallgather under deadline. 0, or -1 (timeout: no collective is started after it).
 */
int cd_dist_allgather_int(int mine, int *all, double deadline);

#endif
