/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NCCL world the nccl.* probes share (nccl_world.c): one communicator per GPU this
 * process drives, in a world of every GPU of every rank. Communicators are created
 * non-blocking and polled with ncclCommGetAsyncError; past a deadline they are aborted
 * (ncclCommAbort), so a wedged fabric ends as `timeout` with its phase. Once a warm-up
 * all_reduce on them has shown every rank there, each is split (ncclCommSplit, NCCL >=
 * 2.18) into a blocking twin that the collectives use, as nccl-tests' default config
 * does; without it they stay on the non-blocking ones, and w->method says so.
 */
#ifndef CD_PROBE_NCCL_WORLD_H
#define CD_PROBE_NCCL_WORLD_H

#include "gpu_common.h"

/* collectives in one captured graph, and the buffer offsets a timing cycles through (graph_ready, coll_shift) */
#define COLL_GRAPH_OPS 4
#define COLL_SHIFTS 20
/* graphs of successive offsets, so that the graph launches cycle through the offsets too */
#define COLL_GRAPH_SETS (COLL_SHIFTS / COLL_GRAPH_OPS)
_Static_assert(COLL_GRAPH_SETS * COLL_GRAPH_OPS == COLL_SHIFTS, "the graph sets cover the offsets exactly");

struct world {
	int peer;               /* nccl.pairs: the partner's world rank; -1 for the job's world */
	int tag;                /* nccl.pairs: the tag of this pair's messages */
	int n;                  /* communicators of this process, one per GPU */
	int g0;                 /* the NCCL rank of the first; the others follow */
	int total;              /* NCCL ranks in the world: every GPU of every rank */
	int procs;              /* processes (MPI ranks) in the world; 1 without MPI */
	int skipped;            /* some rank brings no GPU: every rank skips the collectives (1: recording it) */
	int *gpu;               /* the local GPU index of each communicator */
	int state;              /* 0 not made, 1 ready, -1 failed (reason in why), -2 aborted */
	char why[256];
	const struct cd_cuda_api *cu;
	const struct cd_nccl_api *nc;
	CUdevice *dev;
	CUcontext *ctx;
	ncclComm_t *comm;
	ncclComm_t *timed;      /* the blocking twins of comm the collectives use; NULL: they use comm */
	CUstream *s;
	CUdeviceptr *send, *recv;
	CUevent ev[2];          /* on the first GPU's stream: after a sample's first graph's worth, after its last */
	int launched;           /* collectives in the current sample (those in a launched graph included) */
	int pending;            /* a group was launched since the last completion: a non-blocking one may be in progress */
	/* the current run's graphs (nccl-tests' -G): COLL_GRAPH_SETS sets, each one per GPU of
	   COLL_GRAPH_OPS collectives of one size, at successive buffer offsets (launch_group) */
	struct cd_gpu_graphs graphs[COLL_GRAPH_SETS];
	int gset;               /* the set the next graph launch uses */
	unsigned op_i;          /* collectives launched or captured since the run's start: picks the offset */
	int graph;              /* 1 graphs hold g_bytes' collectives, 0 none yet, -1 not this run (graph_why) */
	size_t g_bytes;
	char graph_why[256];
	void *host;             /* pinned, for the data check */
	size_t cap;             /* bytes allocated per buffer */
	double init_us;
	char method[320];       /* why the collectives are timed on the non-blocking communicators; "" when not */
};

/* The communicator GPU i's collectives run on: the blocking twin when there is one. */
static inline ncclComm_t comm_of(const struct world *w, int i)
{
	return w->timed ? w->timed[i] : w->comm[i];
}

/* env->why from an NCCL error and ncclGetLastError; returns -1. */
int nccl_fail(const struct world *w, struct cd_probe_env *env, ncclResult_t r, const char *what);
/* Free (or, after an abort, forget: the GPUs may still run them) the current graphs. */
void graph_free(struct world *w, int destroy);
/* Abort every communicator (twins first): returns at once whatever they wait for. */
void world_abort(struct world *w);
/* Poll every communicator until none is in progress: 1 done, 0 running, -1 failed (aborted). */
int comms_poll(struct world *w, struct cd_probe_env *env);
/* Wait for comms_poll to say done, within env->deadline: 0, or -1 / CD_PROBE_TIMEOUT. */
int wait_comms(struct world *w, struct cd_probe_env *env);
/* Load NCCL and the driver, and a context and stream per GPU: 0 or -1 (env->why). */
int world_open(struct world *w, struct cd_probe_env *env, const char *nccl_lib);
/* The communicators of the world id names, within the deadline: 0, or -1 / CD_PROBE_TIMEOUT. */
int world_connect(struct world *w, struct cd_probe_env *env, const ncclUniqueId *id);
/* world_open, the job's unique id (rank 0's, by MPI) and world_connect. */
int world_init(struct world *w, struct cd_probe_env *env, const char *nccl_lib);
/* Every rank of the world says ok: 1 all did, 0 one did not, -1 not before the deadline. */
int world_agree(struct world *w, int ok, double deadline);
/* Everything of the world freed (or, failed or aborted, forgotten), and w zeroed. */
void world_free(struct world *w);
/* Send and receive buffers of bytes on every GPU, and the pinned host buffer: 0 or -1. */
int world_buffers(struct world *w, struct cd_probe_env *env, size_t bytes);
/* Warm-up, then the timed communicators; 0, or -1 / CD_PROBE_TIMEOUT (aborted) with env->why. */
int world_ready(struct world *w, struct cd_probe_env *env);
/* The GPUs this process drives (w->gpu), their count; 0 and w->why when none. */
int local_gpus(struct world *w, const struct cd_probe_def *d, const struct cd_probe_ctx *ctx);
/* Under MPI every rank agrees on the world or all skip it: 0, or -1 when recorded. */
int plan_world(struct world *w, const struct cd_probe_def *d, struct cd_probe_ctx *ctx, double deadline);

#endif
