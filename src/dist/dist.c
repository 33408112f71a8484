/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many nodes under MPI (see dist.h). The document travels as the JSON that report.c
 * writes and results_json.c reads back, so a gathered host is exactly what --from loads.
 */
#include "dist.h"
#include "fault.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out.h"
#include "measure.h"
#include "reach.h"
#include "util.h"

extern char **environ;

static struct cd_dist dist = { .rank = 0, .nranks = 1, .local_size = 1, .n_hosts = 1,
			       .launcher_ranks = CD_NULL_I64 };

const struct cd_dist *cd_dist_get(void)
{
	return &dist;
}

void cd_dist_set_broken(void)
{
	dist.broken = 1;
}

int cd_dist_prints(void)
{
	return dist.rank == 0;
}

/* ---- launcher detection: the environment only, so a plain run never touches MPI ---- */

static const char *env_of(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int64_t env_count(char *const *envp, const char *name)
{
	const char *v = env_of(envp, name);
	char *end;
	long long n;

	if (!v || !*v)
		return CD_NULL_I64;
	errno = 0;
	n = strtoll(v, &end, 10);
	return errno || *end || n < 1 ? CD_NULL_I64 : n;
}

/*
 * Is this process one of srun's own tasks? SLURM_NTASKS alone is set in a batch script
 * too, so a task also has a step and a task id. srun's PMI or PMIx (--mpi=pmi2/pmix)
 * then gives the same rank and size; a launcher that starts its own proxies through
 * srun (MPICH's hydra in an allocation) gives ranks of its own, and is not srun.
 */
static int srun_task(char *const *envp, int64_t *nranks)
{
	const char *procid = env_of(envp, "SLURM_PROCID"), *pmi_rank = env_of(envp, "PMIX_RANK");
	int64_t tasks = env_count(envp, "SLURM_STEP_NUM_TASKS"), pmi_size = env_count(envp, "PMI_SIZE");

	if (!env_of(envp, "SLURM_STEP_ID") || !procid)
		return 0;
	if (!pmi_rank)
		pmi_rank = env_of(envp, "PMI_RANK");
	if (tasks == CD_NULL_I64)
		tasks = env_count(envp, "SLURM_NTASKS");
	if ((pmi_rank && strcmp(pmi_rank, procid)) || (pmi_size != CD_NULL_I64 && pmi_size != tasks))
		return 0;
	*nranks = tasks;
	return 1;
}

const char *cd_dist_detect(char *const *envp, int64_t *nranks)
{
	*nranks = CD_NULL_I64;
	if (env_of(envp, "OMPI_COMM_WORLD_SIZE")) {
		*nranks = env_count(envp, "OMPI_COMM_WORLD_SIZE");
		return "mpirun";
	}
	if (srun_task(envp, nranks))
		return "srun";
	if (env_of(envp, "PMI_SIZE") || env_of(envp, "PMIX_RANK")) {
		*nranks = env_count(envp, "PMI_SIZE");
		return "pmi";
	}
	return NULL;
}

/* ---- fault knobs (tests only) ---- */

int cd_fault_rank(const char *knob)
{
	const char *v = cd_fault_value(knob);

	return v ? atoi(v) : -1; /* fault.c checked it is a whole number */
}

void cd_fault_delay(size_t bytes)
{
	static int slow = -2, die = -2;
	struct timespec ts;
	double us;

	if (die == -2)
		die = cd_fault_rank("die_rank");
	if (die >= 0 && die == dist.rank) {
		cd_warn("dist: rank %d: COMMDIAG_FAULT die_rank: killing this rank", dist.rank);
		raise(SIGKILL);
	}
	if (slow == -2)
		slow = cd_fault_rank("slow_rank");
	if (slow < 0 || slow != dist.rank)
		return;
	us = 100.0 + (double)bytes / 1000.0;
	ts.tv_sec = (time_t)(us / 1e6);
	ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1e3);
	nanosleep(&ts, NULL);
}

void cd_fault_late(void)
{
	static int late = -2;
	const struct timespec ts = { 0, CD_FAULT_LATE_MS * 1000000L };

	if (late == -2)
		late = cd_fault_rank("late_rank");
	if (late >= 0 && late == dist.rank)
		nanosleep(&ts, NULL);
}

/* ---- pair schedules ---- */

int cd_pair_rounds(int n)
{
	return n < 2 ? 0 : n % 2 ? n : n - 1;
}

/*
 * The circle method: with m = n rounded up to even, unit m-1 stays put and meets unit r
 * in round r; every other unit i meets (2r - i) mod (m-1). With odd n, unit m-1 is a bye.
 */
int cd_pair_partner(int n, int round, int self)
{
	int m = n % 2 ? n + 1 : n, other;

	if (n < 2 || self < 0 || self >= n || round < 0 || round >= cd_pair_rounds(n))
		return -1;
	if (self == m - 1)
		other = round;
	else if (self == round)
		other = m - 1;
	else
		other = ((2 * round - self) % (m - 1) + (m - 1)) % (m - 1);
	return other >= n ? -1 : other;
}

static int ring_round(int n, int edge)
{
	if (n % 2 && edge == n - 1)
		return 2;
	return edge % 2;
}

int cd_ring_partner(int n, int round, int self, int *initiator)
{
	int edges = n == 2 ? 1 : n;

	if (n < 2 || self < 0 || self >= n)
		return -1;
	/* self's edges: (self, self+1) and (self-1, self) */
	if (self < edges && ring_round(n, self) == round) {
		*initiator = 1;
		return (self + 1) % n;
	}
	{
		int e = (self - 1 + n) % n;

		if (e < edges && ring_round(n, e) == round && e != self) {
			*initiator = 0;
			return e;
		}
	}
	return -1;
}

/* ---- tcp.reach's sampled peers ---- */

/* splitmix64's finaliser: a well-mixed 64-bit value of (seed, self, host, salt) */
uint64_t cd_reach_hash(uint64_t seed, int self, int host, int salt)
{
	uint64_t z = seed ^ ((uint64_t)(uint32_t)self << 32 | (uint32_t)host) ^ (uint64_t)(uint32_t)salt * 0x9e3779b97f4a7c15ULL;

	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct hashed {
	uint64_t h;
	int host;
};

static int cmp_hashed(const void *a, const void *b)
{
	const struct hashed *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (x->host > y->host) - (x->host < y->host);
}

/* The other hosts in the order of their hash with salt; *m gets their count. */
static struct hashed *hash_order(int n, int self, uint64_t seed, int salt, int *m)
{
	struct hashed *o = xcalloc((size_t)(n > 1 ? n : 1), sizeof(*o));

	*m = 0;
	for (int j = 0; j < n; j++)
		if (j != self)
			o[(*m)++] = (struct hashed){ cd_reach_hash(seed, self, j, salt), j };
	qsort(o, (size_t)*m, sizeof(*o), cmp_hashed);
	return o;
}

static int has_key(const char *const *keys, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] && !strcmp(keys[i], key))
			return 1;
	return 0;
}

static int in_list(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Does a chosen peer already carry key? */
static int covered(const int *out, int got, const char *key, const char *const *const *keys, const size_t *n_keys)
{
	for (int i = 0; i < got; i++)
		if (has_key(keys[out[i]], n_keys[out[i]], key))
			return 1;
	return 0;
}

int cd_reach_peers(int n, int self, uint64_t seed, int k, const char *const *const *keys, const size_t *n_keys,
		   int *out, int cap)
{
	struct hashed *o;
	int m, got = 0;

	if (n < 2 || self < 0 || self >= n || cap < 1)
		return 0;
	/* the ring: every host is tested by at least its two neighbours */
	out[got++] = (self + 1) % n;
	if (got < cap && !in_list(out, got, (self - 1 + n) % n))
		out[got++] = (self - 1 + n) % n;
	o = hash_order(n, self, seed, 0, &m);
	for (int i = 0, added = 0; i < m && added < k && got < cap; i++) {
		if (in_list(out, got, o[i].host))
			continue;
		out[got++] = o[i].host;
		added++;
	}
	/* coverage: a host that brings a label no peer has joins, in hash order */
	for (int i = 0; i < m && got < cap && keys && n_keys; i++) {
		int j = o[i].host;

		if (in_list(out, got, j))
			continue;
		for (size_t q = 0; q < n_keys[j]; q++) {
			if (keys[j][q] && !covered(out, got, keys[j][q], keys, n_keys)) {
				out[got++] = j;
				break;
			}
		}
	}
	free(o);
	return got;
}

int cd_reach_second(int n, int self, uint64_t seed, const char *key, const char *const *const *keys,
		    const size_t *n_keys, const int *tried, int n_tried, int k, int *out)
{
	struct hashed *o;
	int m, got = 0;

	if (n < 2 || self < 0 || self >= n || !key)
		return 0;
	o = hash_order(n, self, seed, 1, &m);
	for (int i = 0; i < m && got < k; i++) {
		int j = o[i].host;

		if (!in_list(tried, n_tried, j) && has_key(keys[j], n_keys[j], key))
			out[got++] = j;
	}
	free(o);
	return got;
}

/* ---- the document in transit ---- */

static cd_dist_render_fn render;

void cd_dist_set_render(cd_dist_render_fn fn)
{
	render = fn;
}

char *cd_dist_render(const struct cd_results *r, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f;
	struct cd_out *o;

	if (!render || !(f = open_memstream(&buf, &n)))
		return NULL;
	o = out_new(OUT_FMT_JSON, f, 0);
	render(o, r);
	out_end(o);
	fclose(f);
	*len = n;
	return buf;
}

/* how long an answering rank waits for rank 0's MPI_Abort to kill it */
#define ABORT_WAIT_S 10.0

#define MOVE_ARRAY(dst, src, arr, n, cap)                                                        \
	do {                                                                                     \
		for (size_t i_ = 0; i_ < (src)->n; i_++)                                         \
			*CD_PUSH((dst)->arr, (dst)->n, (dst)->cap) = (src)->arr[i_];              \
		(src)->n = 0;                                                                    \
	} while (0)

void cd_dist_merge(struct cd_results *dst, struct cd_results *part, int64_t *host_map, size_t n_map)
{
	/* a part has one host at most: its leader's, whose index is in its ranks[] entry */
	if (part->n_hosts && part->n_ranks) {
		int64_t old = part->ranks[0].host_index;

		if (old >= 0 && (size_t)old < n_map)
			host_map[old] = (int64_t)dst->n_hosts;
	}
	MOVE_ARRAY(dst, part, hosts, n_hosts, cap_hosts);
	MOVE_ARRAY(dst, part, ranks, n_ranks, cap_ranks);
	MOVE_ARRAY(dst, part, probes, n_probes, cap_probes);
	MOVE_ARRAY(dst, part, reach, n_reach, cap_reach);
}

static const char *kv_get(const struct cd_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value ? kv[i].value : "";
	return NULL;
}

/* Keep only what differs from the host's env; a variable of the host unset here is NULL. */
static void reduce_env(struct cd_rank *k, const struct cd_host *h)
{
	struct cd_kv *all = k->env_diff;
	size_t n = k->n_env_diff;

	k->env_diff = NULL;
	k->n_env_diff = k->cap_env_diff = 0;
	for (size_t i = 0; i < n; i++) {
		const char *hv = kv_get(h->env, h->n_env, all[i].key);

		if (cd_env_from_launcher(all[i].key))
			continue;
		if (!hv || !all[i].value || strcmp(hv, all[i].value))
			cd_rank_set_env(k, all[i].key, all[i].value);
	}
	for (size_t i = 0; i < h->n_env; i++)
		if (!cd_env_from_launcher(h->env[i].key) && !kv_get(all, n, h->env[i].key))
			cd_rank_set_env(k, h->env[i].key, NULL);
	for (size_t i = 0; i < n; i++) {
		free(all[i].key);
		free(all[i].value);
	}
	free(all);
}

void cd_dist_finish_ranks(struct cd_results *dst, const int64_t *host_map, size_t n_map)
{
	for (size_t i = 0; i < dst->n_ranks; i++) {
		struct cd_rank *k = &dst->ranks[i];
		int64_t old = k->host_index;

		k->host_index = old >= 0 && (size_t)old < n_map && host_map[old] >= 0 ? host_map[old] : CD_NULL_I64;
		if (k->host_index != CD_NULL_I64 && k->answered == CD_TRI_TRUE)
			reduce_env(k, &dst->hosts[k->host_index]);
	}
}

/* This rank's entry: where it runs and its whole communication env (reduced by rank 0). */
void cd_dist_add_self(struct cd_results *r, const struct cd_host *h)
{
	struct cd_rank *k = cd_results_add_rank(r, dist.rank);

	k->host = h->hostname ? xstrdup(h->hostname) : NULL;
	k->host_index = dist.host_index;
	k->local_rank = dist.local_rank;
	k->answered = CD_TRI_TRUE;
	for (size_t i = 0; i < h->n_env; i++)
		cd_rank_set_env(k, h->env[i].key, h->env[i].value);
}

void cd_dist_stamp_run(struct cd_results *r)
{
	r->run.ranks = dist.nranks;
	free(r->run.launcher);
	r->run.launcher = dist.launcher ? xstrdup(dist.launcher) : NULL;
	r->run.launcher_ranks = dist.launcher_ranks;
}

#ifndef CD_HAVE_MPI

int cd_dist_init(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dist.launcher = cd_dist_detect(environ, &dist.launcher_ranks);
	return 0;
}

int cd_dist_gather(struct cd_results *r, double deadline)
{
	(void)r;
	(void)deadline;
	return 0;
}

int cd_dist_end(int rc, int missing, double deadline)
{
	(void)missing;
	(void)deadline;
	return rc;
}

int cd_dist_bcast_blob(void *blob, double deadline)
{
	(void)blob;
	(void)deadline;
	return -1;
}

int cd_dist_allgather_int(int mine, int *all, double deadline)
{
	(void)deadline;
	all[0] = mine;
	return 0;
}

int cd_dist_agree(int ok, double deadline)
{
	(void)deadline;
	return ok;
}

void cd_dist_hunt(const struct cd_hunt_plan *plan)
{
	(void)plan;
}

int cd_dist_pair_exchange(int peer, int tag, const void *mine, void *theirs, size_t len, double deadline)
{
	(void)peer;
	(void)tag;
	(void)mine;
	(void)theirs;
	(void)len;
	(void)deadline;
	return -1;
}

#else /* CD_HAVE_MPI */

static MPI_Comm world = MPI_COMM_NULL, node = MPI_COMM_NULL, leaders = MPI_COMM_NULL, gcomm = MPI_COMM_NULL;

MPI_Comm cd_dist_world(void) { return world; }
MPI_Comm cd_dist_node(void) { return node; }
MPI_Comm cd_dist_leaders(void) { return leaders; }

int cd_dist_leader_rank(int host_index)
{
	/* hosts are numbered by their first rank: the host_index-th rank with local rank 0 */
	for (int k = 0, h = 0; dist.local_ranks && k < dist.nranks; k++)
		if (dist.local_ranks[k] == 0 && h++ == host_index)
			return k;
	return -1;
}

enum { TAG_LEN = 1, TAG_DOC = 2, TAG_RC = 3 };

static int mpi_fail(const char *what, int err)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(err, msg, &len);
	return cd_error("dist: %s failed: %s", what, msg);
}

int cd_dist_init(int *argc, char ***argv)
{
	int err, info[2];

	dist.launcher = cd_dist_detect(environ, &dist.launcher_ranks);
	if (!dist.launcher)
		return 0;
	err = MPI_Init(argc, argv);
	if (err != MPI_SUCCESS)
		return mpi_fail("MPI_Init", err);
	dist.mpi = 1;
	/* errors come back as codes: a failed peer must not abort the rank that reports it */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_dup(MPI_COMM_WORLD, &world);
	MPI_Comm_dup(MPI_COMM_WORLD, &gcomm);
	MPI_Comm_rank(world, &dist.rank);
	MPI_Comm_size(world, &dist.nranks);
	err = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, dist.rank, MPI_INFO_NULL, &node);
	if (err != MPI_SUCCESS)
		return mpi_fail("MPI_Comm_split_type", err);
	MPI_Comm_rank(node, &dist.local_rank);
	MPI_Comm_size(node, &dist.local_size);
	MPI_Comm_split(world, dist.local_rank == 0 ? 0 : MPI_UNDEFINED, dist.rank, &leaders);
	if (leaders != MPI_COMM_NULL) {
		MPI_Comm_rank(leaders, &info[0]);
		MPI_Comm_size(leaders, &info[1]);
	}
	MPI_Bcast(info, 2, MPI_INT, 0, node);
	dist.host_index = info[0];
	dist.n_hosts = info[1];
	/* every rank's hostname, so rank 0 can name the host of a rank that never answers */
	dist.hostnames = xcalloc((size_t)dist.nranks, sizeof(*dist.hostnames));
	if (gethostname(dist.hostnames[dist.rank], sizeof(dist.hostnames[0])) < 0)
		snprintf(dist.hostnames[dist.rank], sizeof(dist.hostnames[0]), "rank%d", dist.rank);
	dist.hostnames[dist.rank][sizeof(dist.hostnames[0]) - 1] = '\0';
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dist.hostnames, (int)sizeof(dist.hostnames[0]), MPI_CHAR,
		      world);
	dist.local_ranks = xcalloc((size_t)dist.nranks, sizeof(*dist.local_ranks));
	MPI_Allgather(&dist.local_rank, 1, MPI_INT, dist.local_ranks, 1, MPI_INT, world);
	cd_debug(1, "dist: rank %d of %d, local %d of %d, host %d of %d (%s)", dist.rank, dist.nranks,
		 dist.local_rank, dist.local_size, dist.host_index, dist.n_hosts, dist.launcher);
	return 0;
}

/*
 * Waiting on MPI requests: spin for the first 2 ms (a ping-pong answered at once is timed
 * to the poll), then sleep for 1% of the time waited, at most 50 µs up to 0.1 s and 1 ms
 * after that, so a rank waiting long does not steal the cores that probes measure.
 */
#define SPIN_S 0.002

static void wait_backoff(double t0)
{
	double waited = cd_now_s() - t0;
	struct timespec ts = { 0, 0 };

	if (waited < SPIN_S)
		return;
	ts.tv_nsec = waited < 0.1 ? (long)(waited * 1e7 < 50000 ? waited * 1e7 : 50000) : 1000000;
	nanosleep(&ts, NULL);
}

void cd_dist_cancel(MPI_Request *reqs, int n)
{
	for (int i = 0; i < n; i++) {
		if (reqs[i] == MPI_REQUEST_NULL)
			continue;
		MPI_Cancel(&reqs[i]);
		MPI_Request_free(&reqs[i]);
	}
}

static int wait_reqs(MPI_Request *reqs, int n, double deadline, int stoppable)
{
	double t0 = cd_now_s(), now;
	int spinning = 1;

	for (unsigned tests = 1;; tests++) {
		int done = 0, err = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);

		if (err != MPI_SUCCESS)
			return -1;
		if (done)
			return 0;
		/* while spinning, the clock (as dear as a test) is read every 16 tests */
		if (spinning && tests % 16 && !(stoppable && cd_stop))
			continue;
		now = cd_now_s();
		spinning = now - t0 < SPIN_S;
		if (now >= deadline || (stoppable && cd_stop)) {
			cd_dist_cancel(reqs, n);
			return CD_DIST_TIMEOUT;
		}
		wait_backoff(t0);
	}
}

int cd_dist_wait(MPI_Request *reqs, int n, double deadline)
{
	return wait_reqs(reqs, n, deadline, 0);
}

int cd_dist_wait_op(MPI_Request *reqs, int n, double deadline)
{
	return wait_reqs(reqs, n, deadline, 1);
}

/*
 * The collectives below exchange through heap scratch, never the caller's memory: one
 * given up on stays in MPI's hands, the world is marked broken, and the scratch is left
 * to MPI (leaked on purpose).
 */
static int collective_wait(MPI_Request *req, double deadline)
{
	if (cd_dist_wait(req, 1, deadline) == 0)
		return 0;
	dist.broken = 1;
	return -1;
}

int cd_dist_agree(int ok, double deadline)
{
	MPI_Request req;
	int *v, all;

	if (!dist.mpi)
		return ok;
	if (dist.broken)
		return -1;
	v = xcalloc(2, sizeof(*v));
	v[0] = ok;
	if (MPI_Iallreduce(&v[0], &v[1], 1, MPI_INT, MPI_MIN, world, &req) != MPI_SUCCESS) {
		free(v);
		return -1;
	}
	if (collective_wait(&req, deadline) < 0)
		return -1;
	all = v[1];
	free(v);
	return all;
}

int cd_dist_bcast_blob(void *blob, double deadline)
{
	MPI_Request req;
	void *tmp;

	if (!dist.mpi || dist.broken)
		return -1;
	tmp = xmalloc(CD_DIST_BLOB_BYTES);
	memcpy(tmp, blob, CD_DIST_BLOB_BYTES);
	if (MPI_Ibcast(tmp, CD_DIST_BLOB_BYTES, MPI_BYTE, 0, world, &req) != MPI_SUCCESS) {
		free(tmp);
		return -1;
	}
	if (collective_wait(&req, deadline) < 0)
		return -1;
	memcpy(blob, tmp, CD_DIST_BLOB_BYTES);
	free(tmp);
	return 0;
}

int cd_dist_allgather_int(int mine, int *all, double deadline)
{
	MPI_Request req;
	int *tmp;

	if (!dist.mpi) {
		all[0] = mine;
		return 0;
	}
	if (dist.broken)
		return -1;
	tmp = xcalloc((size_t)dist.nranks + 1, sizeof(*tmp));
	tmp[0] = mine;
	if (MPI_Iallgather(&tmp[0], 1, MPI_INT, tmp + 1, 1, MPI_INT, world, &req) != MPI_SUCCESS) {
		free(tmp);
		return -1;
	}
	if (collective_wait(&req, deadline) < 0)
		return -1;
	memcpy(all, tmp + 1, (size_t)dist.nranks * sizeof(*all));
	free(tmp);
	return 0;
}

int cd_dist_pair_exchange(int peer, int tag, const void *mine, void *theirs, size_t len, double deadline)
{
	MPI_Request req[2];
	unsigned char *buf;

	if (!dist.mpi || len > (size_t)INT32_MAX)
		return -1;
	buf = xmalloc(2 * len + 1);
	memcpy(buf, mine, len);
	if (MPI_Irecv(buf + len, (int)len, MPI_BYTE, peer, tag, world, &req[1]) != MPI_SUCCESS) {
		free(buf);
		return -1;
	}
	if (MPI_Isend(buf, (int)len, MPI_BYTE, peer, tag, world, &req[0]) != MPI_SUCCESS) {
		cd_dist_cancel(&req[1], 1);
		return -1; /* buf stays MPI's (the receive may still land) */
	}
	if (cd_dist_wait_op(req, 2, deadline) != 0)
		return -1;
	memcpy(theirs, buf + len, len);
	free(buf);
	return 0;
}

/* ---- bad-node hunting ---- */

struct hunt {
	int n;          /* units: one per host, or every rank when all share one host */
	int me;         /* my unit, -1 when this rank is not one */
	int *world;     /* unit -> world rank */
	const struct cd_hunt_plan *p;
};

static void hunt_units(struct hunt *h)
{
	int by_host = dist.n_hosts >= 2;

	h->n = by_host ? dist.n_hosts : dist.nranks;
	h->me = by_host ? (dist.local_rank == 0 ? dist.host_index : -1) : dist.rank;
	h->world = xcalloc((size_t)h->n, sizeof(*h->world));
	for (int u = 0; u < h->n; u++)
		h->world[u] = by_host ? cd_dist_leader_rank(u) : u;
}

/*
 * One pair. Its two ranks meet first, so both start it together: a partner that is still
 * busy with `before` earlier pairs is waited for, not given up on while the other side
 * already measures alone. A partner that never comes is the initiator's record.
 */
#define HUNT_TAG 80 /* + phase; the probes' own tags start at 100 */
static double hunt_pair(const struct hunt *h, int peer, int initiator, int phase, int before)
{
	double deadline = fmin(h->p->end_s, cd_now_s() + h->p->pair_s * (1 + before));
	int32_t mine = 1, theirs = 0;
	char why[96];

	if (cd_dist_pair_exchange(peer, HUNT_TAG + phase, &mine, &theirs, sizeof(mine), deadline) == 0 && theirs)
		return h->p->pair(h->p->pair_arg, peer, initiator, phase);
	if (initiator) {
		snprintf(why, sizeof(why), "rank %d did not come to this pair of the hunt before the deadline", peer);
		h->p->absent(h->p->absent_arg, peer, why);
	}
	return NAN;
}

void cd_dist_hunt(const struct cd_hunt_plan *plan)
{
	struct hunt h = { .p = plan };
	double mine = NAN, *val, best = 0;
	int *suspect, *good, ns = 0, ng = 0;
	MPI_Request req;

	if (!dist.mpi)
		return;
	hunt_units(&h);
	/* pass 1: (0,1), (2,3), … */
	if (h.me >= 0 && (h.me ^ 1) < h.n)
		mine = hunt_pair(&h, h.world[h.me ^ 1], !(h.me & 1), 0, 0);
	/* everyone learns every pair's result, so every rank plans pass 2 alike */
	val = xcalloc((size_t)dist.nranks + 1, sizeof(*val));
	val[dist.nranks] = mine;
	if (dist.broken ||
	    MPI_Iallgather(&val[dist.nranks], 1, MPI_DOUBLE, val, 1, MPI_DOUBLE, world, &req) != MPI_SUCCESS ||
	    cd_dist_wait_op(&req, 1, plan->end_s) < 0) {
		cd_warn("probe %s --pairs: the first pass did not complete on every rank; no second pass", plan->name);
		dist.broken = 1; /* a collective given up on: the world's next ones would be out of step */
		val = NULL; /* MPI's now (dist.h) */
		goto out;
	}
	for (int u = 0; u + 1 < h.n; u += 2)
		if (val[h.world[u]] > best)
			best = val[h.world[u]];
	suspect = xcalloc((size_t)h.n, sizeof(*suspect));
	good = xcalloc((size_t)h.n, sizeof(*good));
	for (int u = 0; u < h.n; u++) {
		int first = u & ~1;
		double v = first + 1 < h.n ? val[h.world[first]] : NAN;

		if (v >= CD_HUNT_FRAC * best && best > 0)
			good[ng++] = u;
		else
			suspect[ns++] = u; /* a bad pair's two ends, or the odd one out, untested */
	}
	cd_debug(1, "probe %s --pairs: %d suspects, %d known good, best pair %.2f GB/s", plan->name, ns, ng, best);
	/* pass 2: each suspect against a known-good unit, |good| disjoint pairs per round */
	for (int k = 0; ng && k < ns; k += ng) {
		for (int i = k; i < ns && i < k + ng; i++) {
			int s = suspect[i], g = good[i - k];
			int peer = h.world[h.me == s ? g : s], phase = 1 + (k / ng) % (CD_HUNT_PHASES - 1);

			if (h.me == s || h.me == g)
				hunt_pair(&h, peer, h.me == s, phase, k / ng);
		}
	}
	free(suspect);
	free(good);
out:
	free(val);
	free(h.world);
}

static void fault_hang(void)
{
	if (cd_fault_rank("hang_rank") != dist.rank)
		return;
	cd_warn("dist: rank %d: COMMDIAG_FAULT hang_rank: not answering", dist.rank);
	for (;;)
		pause(); /* until the run's deadline ends this rank */
}

static int send_part(struct cd_results *r, double deadline)
{
	MPI_Request req[2];
	size_t len = 0;
	char *text = cd_dist_render(r, &len);
	unsigned long long *n;

	if (!text || len > (size_t)INT32_MAX) {
		free(text);
		return cd_error("dist: rank %d: cannot serialise this rank's part", dist.rank);
	}
	n = xmalloc(sizeof(*n));
	*n = len;
	MPI_Isend(n, 1, MPI_UNSIGNED_LONG_LONG, 0, TAG_LEN, gcomm, &req[0]);
	MPI_Isend(text, (int)len, MPI_CHAR, 0, TAG_DOC, gcomm, &req[1]);
	if (cd_dist_wait(req, 2, deadline) < 0) /* n and text stay MPI's */
		return cd_error("dist: rank %d: rank 0 did not take this rank's part before the deadline", dist.rank);
	free(n);
	free(text);
	return 0;
}

/*
 * Rank 0 takes at most this many parts' text at once (issue 18). Each part is loaded as it
 * arrives and its text freed, so rank 0 holds the merged document, this many texts and one
 * part's parse tree, never every rank's text (about 26 kB per 8-GPU host: 100 MiB at 4096
 * hosts; bench/gather_scale.sh). A rank's length comes first and a rank that sent it sends
 * its text at once, so a rank that never answers holds no slot; 32 such texts are 0.8 MiB.
 */
#define GATHER_WINDOW 32

struct incoming {
	unsigned long long len;
	char *text;
	struct cd_results *part; /* loaded as it arrived; merged in rank order after */
	MPI_Request req;
	int stage; /* 0 waiting for the length, 4 length known, 1 receiving the text, 2 loaded, 3 failed, 5 did not load */
};

/* Rank 0: a text arrived: load it into its part and free it at once. */
static void load_part(struct incoming *in, int k)
{
	char name[32];

	snprintf(name, sizeof(name), "rank %d", k);
	in->text[in->len] = '\0';
	in->part = xcalloc(1, sizeof(*in->part));
	if (cd_results_load_json(in->part, in->text, (size_t)in->len, name) < 0) {
		cd_results_free(in->part);
		free(in->part);
		in->part = NULL;
		in->stage = 5;
	} else {
		in->stage = 2;
	}
	free(in->text);
	in->text = NULL;
}

/*
 * Rank 0: receive every part until deadline; which ones came is in in[].stage. Lengths are
 * received from every rank at once; texts, GATHER_WINDOW at a time, in the order their
 * lengths came (queue[]).
 */
static void receive_parts(struct incoming *in, int n, double deadline)
{
	int pending = n - 1, busy = 0, q_head = 0, q_tail = 0;
	int *queue = xcalloc((size_t)n, sizeof(*queue));

	for (int k = 1; k < n; k++)
		MPI_Irecv(&in[k].len, 1, MPI_UNSIGNED_LONG_LONG, k, TAG_LEN, gcomm, &in[k].req);
	double t0 = cd_now_s();

	while (pending > 0 && cd_now_s() < deadline) {
		int progressed = 0;

		for (int k = 1; k < n; k++) {
			int done = 0;

			if (in[k].stage != 0 && in[k].stage != 1)
				continue;
			if (MPI_Test(&in[k].req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
				busy -= in[k].stage == 1;
				in[k].stage = 3;
				pending--;
				continue;
			}
			if (!done)
				continue;
			progressed = 1;
			if (in[k].stage == 0) {
				if (in[k].len > (unsigned long long)INT32_MAX) {
					in[k].stage = 3;
					pending--;
					continue;
				}
				in[k].stage = 4;
				queue[q_tail++] = k;
			} else {
				busy--;
				load_part(&in[k], k);
				pending--;
			}
		}
		for (; busy < GATHER_WINDOW && q_head < q_tail; busy++) {
			int k = queue[q_head++];

			in[k].text = xmalloc((size_t)in[k].len + 1);
			MPI_Irecv(in[k].text, (int)in[k].len, MPI_CHAR, k, TAG_DOC, gcomm, &in[k].req);
			in[k].stage = 1;
			progressed = 1;
		}
		if (progressed)
			t0 = cd_now_s();
		wait_backoff(t0);
	}
	for (int k = 1; k < n; k++)
		if (in[k].stage == 0 || in[k].stage == 1)
			cd_dist_cancel(&in[k].req, 1); /* a text given up on stays MPI's (cd_dist_wait) */
	free(queue);
}

static void mark_missing(struct cd_results *r, int k, const char *why)
{
	struct cd_rank *x = cd_results_add_rank(r, k);

	x->host = xstrdup(dist.hostnames[k]);
	x->answered = CD_TRI_FALSE;
	x->error = xstrdup(why);
}

/* This process's peak resident set in kB (VmHWM), or -1: what the gather costs rank 0 (bench/reach_scale.sh). */
static long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct cd_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

int cd_dist_gather(struct cd_results *r, double deadline)
{
	struct incoming *in;
	int64_t *map;
	int missing = 0;
	double wait_s = deadline - cd_now_s();

	if (!dist.mpi)
		return 0;
	fault_hang();
	if (dist.rank != 0) {
		/* rank 0 may still be busy with its own probes: give the send the same deadline plus a margin */
		send_part(r, deadline + 1.0);
		return 0;
	}
	in = xcalloc((size_t)dist.nranks, sizeof(*in));
	map = xcalloc((size_t)dist.n_hosts, sizeof(*map));
	for (int i = 0; i < dist.n_hosts; i++)
		map[i] = -1;
	if (r->n_hosts && r->n_ranks)
		map[r->ranks[0].host_index] = 0;
	double t0 = cd_now_s();
	size_t bytes = 0, dropped;
	long rss0 = peak_rss_kb();

	receive_parts(in, dist.nranks, deadline);
	double t_recv = cd_now_s();

	for (int k = 1; k < dist.nranks; k++) {
		char *why;

		if (in[k].stage == 5) {
			mark_missing(r, k, "its part of the document did not load (see stderr)");
			missing++;
		} else if (in[k].stage != 2) {
			why = xasprintf("no answer within %.1f s of the gather", wait_s > 0 ? wait_s : 0.0);
			mark_missing(r, k, why);
			free(why);
			missing++;
			continue;
		} else {
			cd_dist_merge(r, in[k].part, map, (size_t)dist.n_hosts);
			cd_results_free(in[k].part);
			free(in[k].part);
		}
		bytes += (size_t)in[k].len;
	}
	qsort(r->ranks, r->n_ranks, sizeof(*r->ranks), cmp_rank);
	cd_dist_finish_ranks(r, map, (size_t)dist.n_hosts);
	/* above CD_REACH_COMPACT_HOSTS hosts the matrix keeps failures, a path per pair, and counts */
	dropped = cd_reach_compact(r);
	cd_debug(1, "dist: gather: %d parts, %zu bytes, received and loaded in %.3f s, merged in %.3f s; reach %zu -> %zu "
		 "attempts (%zu dropped); peak RSS %ld kB (%ld kB before the gather)", dist.nranks - 1, bytes, t_recv - t0,
		 cd_now_s() - t_recv, r->n_reach + dropped, r->n_reach, dropped, peak_rss_kb(), rss0);
	if (missing) {
		char list[256] = "";
		size_t off = 0;

		for (size_t i = 0; i < r->n_ranks && off < sizeof(list) - 32; i++)
			if (r->ranks[i].answered == CD_TRI_FALSE)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%lld (%s)", off ? ", " : "",
							(long long)r->ranks[i].rank, r->ranks[i].host);
		cd_error("dist: %d of %d ranks did not answer: %s", missing, dist.nranks, list);
	}
	if (!missing)
		free(in); /* else the cancelled receives may still write into it */
	free(map);
	return missing;
}

int cd_dist_end(int rc, int missing, double deadline)
{
	if (!dist.mpi)
		return rc;
	if (dist.rank == 0) {
		MPI_Request *req = xcalloc((size_t)dist.nranks, sizeof(*req));
		/* the answering ranks learn the exit code and whether rank 0 will abort */
		int sent[2] = { rc, missing != 0 };

		fflush(stdout);
		for (int k = 1; k < dist.nranks; k++)
			MPI_Isend(sent, 2, MPI_INT, k, TAG_RC, gcomm, &req[k]);
		if (!missing && cd_dist_wait(req + 1, dist.nranks - 1, deadline) < 0)
			missing = 1;
		free(req);
	} else {
		MPI_Request req;
		int got[2] = { 3, 1 };

		if (cd_dist_wait((MPI_Irecv(got, 2, MPI_INT, 0, TAG_RC, gcomm, &req), &req), 1, deadline) < 0) {
			cd_error("dist: rank %d: no exit code from rank 0 before the deadline", dist.rank);
			got[0] = 3;
			got[1] = 1;
		}
		rc = got[0];
		if (got[1]) {
			/*
			 * Rank 0 aborts the job. A rank sitting in MPI_Finalize's fence then is what
			 * makes Open MPI 4.1's mpirun crash in its PMIx teardown now and then, so
			 * wait here to be killed; past the backstop, leave without finalizing.
			 */
			fflush(stdout);
			fflush(stderr);
			for (double until = cd_now_s() + ABORT_WAIT_S; cd_now_s() < until;)
				nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
			_exit(rc);
		}
	}
	free(dist.hostnames);
	dist.hostnames = NULL;
	free(dist.local_ranks);
	dist.local_ranks = NULL;
	if (missing) {
		/* a finalize would wait for the missing ranks; abort ends the job with our code */
		fflush(stdout);
		fflush(stderr);
		MPI_Abort(MPI_COMM_WORLD, rc);
		return rc;
	}
	MPI_Comm_free(&gcomm);
	if (leaders != MPI_COMM_NULL)
		MPI_Comm_free(&leaders);
	MPI_Comm_free(&node);
	MPI_Comm_free(&world);
	MPI_Finalize();
	return rc;
}

#endif /* CD_HAVE_MPI */
