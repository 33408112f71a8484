/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake NCCL whose collectives really move data between ranks, for the end-to-end
 * tests of the NCCL probes: built as libnccl.so.2 and found through LD_LIBRARY_PATH,
 *	cc -std=c11 -D_GNU_SOURCE -shared -fPIC -o DIR/libnccl.so.2 tests/fake/fake_nccl_world.c -lrt
 * next to the fake libcuda.so.1 (fake_cuda.c), whose device pointers are host pointers:
 * a buffer handed to a collective is plain memory this library reads and writes.
 * The ranks of a world (the communicators made from one ncclUniqueId) may be processes
 * (MPI ranks), communicators of one process made and driven inside ncclGroupStart/End
 * (one per GPU), or both. A world lives in POSIX shared memory: /dev/shm/<id> holds its
 * barrier and sizes, /dev/shm/<id>-r<rank> what that rank published for the current
 * group; the last communicator to leave (destroy, abort, failed init, exit) removes them.
 * FAKE_NCCL_TIMEOUT_S=S (default 20): a rank waits at most S seconds for the others, at
 *          init and in each group, then fails with ncclSystemError; ncclGetLastError says
 *          which wait and how many ranks had arrived, ncclCommGetAsyncError keeps it
 * FAKE_NCCL_DELAY=RANK:MS: rank RANK sleeps MS ms in each group of operations (a slow rank);
 *          RANK * is every rank of this process (set for one MPI rank: a slow GPU or NIC there)
 * FAKE_NCCL_CORRUPT=RANK: rank RANK's all_reduce output is 1.0 too high in its first element
 * FAKE_NCCL_TAG=WORD: up to 16 letters and digits put into every /dev/shm name after "fakenccl-",
 *          so a test suite can check for leaks of its own worlds beside another suite's
 * FAKE_NCCL_STATS=FILE: at exit, this process's count of splits and of groups of operations
 *          on blocking communicators and on non-blocking ones (a group with one of each: the latter),
 *          how many groups were recorded into CUDA graphs (the timed model's stream capture), and
 *          the most distinct send buffers rank 0's operations of one element count were given (up to 64)
 * Faked: ncclFloat sums only, through AllReduce, AllGather, ReduceScatter, Broadcast, Reduce
 * and Send/Recv, in place or not, done before the call (or ncclGroupEnd) returns, and
 * ncclCommSplit of a whole world (color 0, key = the rank; none with -DFAKE_NCCL_NO_SPLIT,
 * as before NCCL 2.18); streams are ignored and non-blocking configs complete at once,
 * except a split of a non-blocking parent, which runs as NCCL 2.28's does (init.cc, group.cc):
 * ncclGroupEnd says ncclInProgress, the parent says in progress to the next SPLIT_POLLS
 * ncclCommGetAsyncError calls and refuses operations meanwhile ("Attempt to use communicator
 * before the previous operation returned ncclSuccess"), and the new communicator's handle is
 * written only when the parent is done (NULL until then);
 * ncclCommAbort on any rank makes the others' waits fail with ncclRemoteError.
 * Under the timed model of fake_cuda.c (FAKE_CUDA=hgx8, that library LD_PRELOADed),
 * each group costs the host what NCCL's launch does (a thread per ncclGroupEnd for a
 * non-blocking communicator, 50 µs; a kernel launch, 5 µs, per blocking one) and puts a
 * collective of latency + bus bytes / bus bandwidth on every stream of the group (recorded
 * into the streams' graphs instead while they capture: no data moves then); data
 * moves only in a group that follows a cuMemsetD32Async (fresh inputs: a data check), when
 * every rank of the world is in this process; and when each rank's input is one value
 * (three samples agree, as the probes' data checks fill them) the outputs are written
 * from those values (const_group), so checking 8 GPUs at 256 MiB stays affordable.
 * Not faked: other types and reductions, other splits, shrink, registration, real
 * asynchrony. Every rank of a world must take part in every group (a barrier joins them), point-to-point
 * ones included, and a world's memory is a full copy of every rank's inputs.
 * Self-contained on purpose: no nccl.h or cuda.h, so it builds wherever a C compiler does.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* shm_open, ftruncate, nanosleep under -std=c11 too */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef enum {
	ncclSuccess = 0,
	ncclUnhandledCudaError = 1,
	ncclSystemError = 2,
	ncclInternalError = 3,
	ncclInvalidArgument = 4,
	ncclInvalidUsage = 5,
	ncclRemoteError = 6,
	ncclInProgress = 7,
} ncclResult_t;

typedef int ncclDataType_t;
typedef int ncclRedOp_t;
typedef struct ncclComm *ncclComm_t;
typedef struct ncclConfig ncclConfig_t; /* never looked into */
typedef struct CUstream_st *cudaStream_t;
typedef struct {
	char internal[128];
} ncclUniqueId;

#define NCCL_FLOAT 7
#define NCCL_SUM 0

#define MAX_RANKS 64
#define HDR_SIZE 4096
#define PAGE 4096
#define ALIGN 64

/* lock-free, or the atomics would not work across processes */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2, "lock-free atomics needed");

/* /dev/shm/<id>: what every rank of the world shares. Zero when its first rank creates it. */
struct hdr {
	atomic_uint nranks;                  /* 0 until the first rank sets it */
	atomic_uint aborted;
	atomic_uint attached;                /* communicators that mapped it ... */
	atomic_uint detached;                /* ... and that left: the last one out cleans up */
	atomic_ullong bar;                   /* barrier: generation << 32 | ranks arrived */
	atomic_uint claimed[MAX_RANKS];
	atomic_ullong slot_size[MAX_RANKS];  /* of /dev/shm/<id>-r<rank>, for peers to re-map */
};
_Static_assert(sizeof(struct hdr) <= HDR_SIZE, "header too big");

enum kind { K_ALL_REDUCE, K_ALL_GATHER, K_REDUCE_SCATTER, K_BROADCAST, K_REDUCE, K_SEND, K_RECV };

static const char *const kind_name[] = { "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
					 "Send", "Recv" };

/* A rank's slot starts with this directory of what it published in the current group, in issue order. */
struct entry {
	int32_t kind;
	int32_t peer;   /* Send: the destination; collectives: the root, or -1 */
	uint64_t count;
	uint64_t off;   /* of the payload, from the start of the slot */
	uint64_t bytes;
};

struct dir {
	uint64_t n;
	struct entry e[];
};

enum cstate { CS_PENDING, CS_READY, CS_FAILED };

struct ncclComm {
	char name[136];         /* "/<id>", the header; slots add "-r<rank>" */
	int nranks, rank;
	int blocking;           /* from the config: 0 makes ncclGroupEnd cost a thread in the model */
	enum cstate state;
	ncclResult_t err;       /* sticky: a failed wait leaves the world out of step */
	pid_t pid;              /* of the process that joined: a forked child must not leave for it */
	struct hdr *h;
	int fd;                 /* own slot, kept open to grow it */
	unsigned char *mine;
	size_t mine_size;
	struct {
		const unsigned char *p;
		size_t size;
	} peer[MAX_RANKS];
	uint32_t gen, seen;     /* barrier generation waited for; most ranks seen there */
	unsigned splits;        /* ncclCommSplit calls so far: names the next one's world */
	struct ncclComm *held;  /* a split of this non-blocking parent that is "still running" */
	int held_polls;         /* ncclCommGetAsyncError calls left before it is done */
	ncclComm_t *out;        /* a held split's: where its handle goes when its parent is done */
	int waiting;
	int joined;             /* attached: a failure after that is the world's, not the arguments' */
	struct ncclComm *next;  /* joined and not left */
};

struct op {
	struct ncclComm *comm;
	enum kind kind;
	const void *send;
	void *recv;
	size_t count;
	int peer;               /* root or point-to-point peer; -1 when none */
	cudaStream_t stream;
};

/* ncclGroupStart/End nest per thread, as in NCCL. */
static _Thread_local struct {
	int depth;
	ncclResult_t err;       /* first failed call inside: the group is dropped */
	struct ncclComm **inits;
	int ninits, cap_inits;
	struct op *ops;
	int nops, cap_ops;
	int async;              /* a split of a non-blocking parent was made: ncclGroupEnd says in progress */
} G;

/* ncclCommGetAsyncError calls a split of a non-blocking parent stays in progress for */
#define SPLIT_POLLS 3

static char last_err[512];
static struct ncclComm *live;
static unsigned id_counter;

/* What FAKE_NCCL_STATS reports at exit: how the probes drove NCCL, for tests of the method. */
static struct {
	unsigned long splits;           /* communicators made by ncclCommSplit */
	unsigned long blocking_groups;  /* groups of operations (or lone ones) on blocking communicators only */
	unsigned long nonblocking_groups;
	unsigned long captured_groups;  /* of those, recorded into CUDA graphs (the timed model's capture) */
	struct {                        /* distinct send buffers rank 0 was given, per element count */
		size_t count;
		const void *send[64];
		unsigned long n;
	} sends[16];
	unsigned long n_counts;
} stats;

static void count_send(size_t count, const void *send)
{
	unsigned long k = 0, j = 0;

	while (k < stats.n_counts && stats.sends[k].count != count)
		k++;
	if (k == stats.n_counts) {
		if (k == sizeof(stats.sends) / sizeof(stats.sends[0]))
			return;
		stats.sends[stats.n_counts++].count = count;
	}
	while (j < stats.sends[k].n && stats.sends[k].send[j] != send)
		j++;
	if (j == stats.sends[k].n && j < sizeof(stats.sends[k].send) / sizeof(stats.sends[k].send[0]))
		stats.sends[k].send[stats.sends[k].n++] = send;
}

__attribute__((destructor)) static void stats_write(void)
{
	const char *path = getenv("FAKE_NCCL_STATS");
	FILE *f = path && *path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	unsigned long most = 0;

	for (unsigned long k = 0; k < stats.n_counts; k++)
		if (stats.sends[k].n > most)
			most = stats.sends[k].n;
	fprintf(f, "splits %lu\nblocking_groups %lu\nnonblocking_groups %lu\ncaptured_groups %lu\nsend_buffers %lu\n",
		stats.splits, stats.blocking_groups, stats.nonblocking_groups, stats.captured_groups, most);
	fclose(f);
}

__attribute__((format(printf, 2, 3))) static ncclResult_t fail(ncclResult_t r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	return r;
}

/* A failed call inside a group fails the whole group at ncclGroupEnd, as NCCL does. */
static ncclResult_t group_fail(ncclResult_t r)
{
	if (G.depth && !G.err)
		G.err = r;
	return r;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	nanosleep(&ts, NULL);
}

static double timeout_s(void)
{
	const char *v = getenv("FAKE_NCCL_TIMEOUT_S");
	double t = v && *v ? strtod(v, NULL) : 0;

	return t > 0 ? t : 20;
}

#define ANY_RANK MAX_RANKS /* "*": every rank of this process */

/* "RANK" or "RANK:N": the rank (ANY_RANK for "*"), and N in *arg; -1 when unset. */
static int knob(const char *env, long *arg)
{
	const char *v = getenv(env);
	char *end;
	long r;

	if (!v || !*v)
		return -1;
	if (*v == '*') {
		r = ANY_RANK;
		end = (char *)v + 1;
	} else {
		r = strtol(v, &end, 10);
		if (end == v || r < 0 || r >= MAX_RANKS)
			return -1;
	}
	if (arg)
		*arg = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
	return (int)r;
}

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

static void slot_name(const struct ncclComm *c, int rank, char *buf, size_t len)
{
	snprintf(buf, len, "%s-r%d", c->name, rank);
}

ncclResult_t ncclGetVersion(int *version)
{
	if (!version)
		return fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
	*version = 22809;
	return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r)
{
	switch (r) {
	case ncclSuccess:
		return "no error";
	case ncclUnhandledCudaError:
		return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case ncclSystemError:
		return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case ncclInternalError:
		return "internal error - please report this issue to the NCCL developers";
	case ncclInvalidArgument:
		return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case ncclInvalidUsage:
		return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case ncclRemoteError:
		return "remote process exited or there was a network error";
	case ncclInProgress:
		return "NCCL operation in progress";
	}
	return "unknown result code";
}

const char *ncclGetLastError(ncclComm_t comm)
{
	(void)comm;
	return last_err;
}

/*
 * FAKE_NCCL_TAG (up to 16 letters and digits) goes into every /dev/shm name, so a test run
 * checks for leaks of its own worlds only, not of another suite running beside it.
 */
static const char *shm_tag(void)
{
	static char tag[18];
	const char *v = getenv("FAKE_NCCL_TAG");
	size_t n = 0;

	if (v && *v && strlen(v) <= 16) {
		while (v[n] && ((v[n] >= 'a' && v[n] <= 'z') || (v[n] >= 'A' && v[n] <= 'Z') || (v[n] >= '0' && v[n] <= '9')))
			n++;
		if (!v[n]) {
			snprintf(tag, sizeof(tag), "%s-", v);
			return tag;
		}
	}
	return "";
}

/* Everything the other ranks need is in the id's bytes: they only ever get those. */
ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	struct timespec ts;

	if (!id)
		return fail(ncclInvalidArgument, "ncclGetUniqueId: id is NULL");
	clock_gettime(CLOCK_REALTIME, &ts);
	memset(id, 0, sizeof(*id));
	snprintf(id->internal, sizeof(id->internal), "fakenccl-%s%ld-%lld-%u", shm_tag(), (long)getpid(),
		 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, id_counter++);
	return ncclSuccess;
}

/* The id becomes a /dev/shm name: nothing but what ncclGetUniqueId writes. */
static int id_ok(const ncclUniqueId *id)
{
	size_t n = strnlen(id->internal, sizeof(id->internal));

	if (!n || n >= sizeof(id->internal) - 8)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = id->internal[i];

		if (!(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z') && !(ch >= '0' && ch <= '9') &&
		    ch != '-' && ch != '_' && ch != '.')
			return 0;
	}
	return 1;
}

static void unmap_all(struct ncclComm *c)
{
	for (int q = 0; q < MAX_RANKS; q++) {
		if (c->peer[q].p)
			munmap((void *)c->peer[q].p, c->peer[q].size);
		c->peer[q].p = NULL;
		c->peer[q].size = 0;
	}
	if (c->mine)
		munmap(c->mine, c->mine_size);
	c->mine = NULL;
	c->mine_size = 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/*
 * Leave the world. Whoever leaves last removes it, so a rank that failed, was aborted or
 * just exited does not leak /dev/shm; a rank that comes after that makes a world of its own
 * (and times out alone).
 */
static void detach(struct ncclComm *c)
{
	struct hdr *h = c->h;

	if (!h)
		return;
	for (struct ncclComm **p = &live; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			break;
		}
	}
	unmap_all(c);
	if (atomic_fetch_add(&h->detached, 1) + 1 == atomic_load(&h->attached)) {
		unsigned n = atomic_load(&h->nranks);
		char sn[160];

		for (unsigned k = 0; k < n && k < MAX_RANKS; k++) {
			slot_name(c, (int)k, sn, sizeof(sn));
			shm_unlink(sn);
		}
		shm_unlink(c->name);
	}
	munmap(h, HDR_SIZE);
	c->h = NULL;
}

/* A process that exits with communicators still joined leaves for them. */
__attribute__((destructor)) static void leave_all(void)
{
	struct ncclComm **p = &live;

	while (*p) {
		if ((*p)->pid == getpid())
			detach(*p);
		else
			p = &(*p)->next;
	}
}

static ncclResult_t slot_grow(struct ncclComm *c, size_t need)
{
	size_t sz = align_up(need, PAGE);
	void *m;

	if (sz <= c->mine_size)
		return ncclSuccess;
	if (ftruncate(c->fd, (off_t)sz) < 0)
		return fail(ncclSystemError, "rank %d: growing its /dev/shm slot to %zu bytes: %s", c->rank, sz,
			    strerror(errno));
	m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (m == MAP_FAILED)
		return fail(ncclSystemError, "rank %d: mmap of its /dev/shm slot (%zu bytes): %s", c->rank, sz,
			    strerror(errno));
	if (c->mine)
		munmap(c->mine, c->mine_size);
	c->mine = m;
	c->mine_size = sz;
	atomic_store(&c->h->slot_size[c->rank], (unsigned long long)sz);
	return ncclSuccess;
}

/* Map the header (making it if first) and claim this rank; no waiting here. */
static ncclResult_t attach(struct ncclComm *c)
{
	unsigned want = 0;
	ncclResult_t r;
	char sn[160];
	void *m;
	int fd;

	fd = shm_open(c->name, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return fail(ncclSystemError, "shm_open %s: %s", c->name, strerror(errno));
	/* every rank sizes it before touching it: the same size again changes nothing */
	if (ftruncate(fd, HDR_SIZE) < 0 ||
	    (m = mmap(NULL, HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		int e = errno;

		close(fd);
		return fail(ncclSystemError, "mapping %s: %s", c->name, strerror(e));
	}
	close(fd);
	c->h = m;
	c->pid = getpid();
	c->next = live;
	live = c;
	atomic_fetch_add(&c->h->attached, 1);
	if (!atomic_compare_exchange_strong(&c->h->nranks, &want, (unsigned)c->nranks) && want != (unsigned)c->nranks)
		return fail(ncclInvalidArgument, "rank %d: nranks %d, but the world %s has %u", c->rank, c->nranks,
			    c->name + 1, want);
	if (atomic_load(&c->h->aborted))
		return fail(ncclRemoteError, "rank %d: the world %s was aborted", c->rank, c->name + 1);
	want = 0;
	if (!atomic_compare_exchange_strong(&c->h->claimed[c->rank], &want, 1))
		return fail(ncclInvalidArgument, "rank %d of %s joined twice", c->rank, c->name + 1);
	slot_name(c, c->rank, sn, sizeof(sn));
	c->fd = shm_open(sn, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (c->fd < 0)
		return fail(ncclSystemError, "shm_open %s: %s", sn, strerror(errno));
	if ((r = slot_grow(c, PAGE)))
		return r;
	c->joined = 1;
	return ncclSuccess;
}

static void bar_arrive(struct ncclComm *c)
{
	unsigned long long old = atomic_load(&c->h->bar), nw;
	uint32_t gen, n;

	do {
		gen = (uint32_t)(old >> 32);
		n = (uint32_t)old + 1;
		nw = n == (uint32_t)c->nranks ? (unsigned long long)(uint32_t)(gen + 1) << 32 :
						(unsigned long long)gen << 32 | n;
	} while (!atomic_compare_exchange_weak(&c->h->bar, &old, nw));
	c->gen = gen;
	c->seen = n;
}

/* 1: the barrier c waits at is done; 0: not yet; -1: the world was aborted. */
static int bar_poll(struct ncclComm *c)
{
	unsigned long long v = atomic_load(&c->h->bar);

	if ((uint32_t)(v >> 32) != c->gen)
		return 1;
	if ((uint32_t)v > c->seen)
		c->seen = (uint32_t)v;
	return atomic_load(&c->h->aborted) ? -1 : 0;
}

/* Past the deadline: count ourselves out, so a late rank cannot complete a barrier we gave up on. */
static int bar_leave(struct ncclComm *c)
{
	unsigned long long v = atomic_load(&c->h->bar);
	int gone = 0;

	while ((uint32_t)(v >> 32) == c->gen && !(gone = atomic_compare_exchange_weak(&c->h->bar, &v, v - 1)))
		;
	return gone;
}

/*
 * Every communicator arrives before any waits, and they are all polled in one loop: one
 * process may hold several ranks of a world, and waiting in the first would keep the
 * second from ever arriving (and what a timeout reports would depend on the order).
 */
static ncclResult_t barrier_all(struct ncclComm **cs, int n, const char *what)
{
	ncclResult_t res = ncclSuccess;
	double deadline, t = timeout_s();
	int waiting = 0;

	for (int i = 0; i < n; i++) {
		cs[i]->waiting = !cs[i]->err;
		if (cs[i]->waiting) {
			bar_arrive(cs[i]);
			waiting++;
		}
	}
	deadline = now_s() + t;
	for (unsigned spins = 0; waiting; spins++) {
		int late = now_s() >= deadline;

		for (int i = 0; i < n; i++) {
			struct ncclComm *c = cs[i];
			int st = c->waiting ? bar_poll(c) : 0;

			if (!st)
				continue;
			c->waiting = 0;
			waiting--;
			if (st > 0)
				continue;
			c->err = fail(ncclRemoteError, "rank %d of %d: %s barrier: the world was aborted", c->rank,
				      c->nranks, what);
			if (!res)
				res = c->err;
		}
		if (waiting && late) {
			/* the polls above said who had come; only now does anyone leave */
			for (int i = 0; i < n; i++) {
				struct ncclComm *c = cs[i];

				if (!c->waiting || !bar_leave(c))
					continue;
				c->err = fail(ncclSystemError, "rank %d of %d: %s barrier timed out after %g s: "
					      "%u of %d ranks arrived", c->rank, c->nranks, what, t, c->seen,
					      c->nranks);
				if (!res)
					res = c->err;
			}
			break;
		}
		if (waiting)
			nap_ns(spins < 200 ? 20000 : 200000);
	}
	return res;
}

static ncclResult_t init_run(struct ncclComm **cs, int n)
{
	ncclResult_t res = ncclSuccess;

	for (int i = 0; i < n; i++) {
		ncclResult_t r = attach(cs[i]);

		if (r) {
			cs[i]->err = r;
			if (!res)
				res = r;
		}
	}
	if (n) {
		ncclResult_t r = barrier_all(cs, n, "init");

		if (r && !res)
			res = r;
	}
	for (int i = 0; i < n; i++) {
		cs[i]->state = cs[i]->err ? CS_FAILED : CS_READY;
		/* callers need not destroy a communicator that never came up: leave now, not leak */
		if (cs[i]->err)
			detach(cs[i]);
	}
	return res;
}

/* A communicator of the world name (a /dev/shm name), joined now or at the group's end. */
static ncclResult_t comm_make(ncclComm_t *comm, const char *name, int nranks, int rank, ncclConfig_t *cfg)
{
	struct ncclComm *c = calloc(1, sizeof(*c));

	if (!c)
		return group_fail(fail(ncclSystemError, "out of memory"));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->nranks = nranks;
	c->rank = rank;
	c->fd = -1;
	/* ncclConfig_t begins size_t size; unsigned magic, version; int blocking (default 1) */
	c->blocking = cfg ? *(const int *)((const char *)cfg + sizeof(size_t) + 2 * sizeof(unsigned)) : 1;
	c->state = CS_PENDING;
	*comm = c;
	if (!G.depth) {
		ncclResult_t r = init_run(&c, 1);

		/* refused outright (no wait timed out): nothing for the caller to destroy, as with NCCL's checks */
		if (r && !c->joined) {
			free(c);
			*comm = NULL;
		}
		return r;
	}
	if (G.ninits == G.cap_inits) {
		int cap = G.cap_inits ? 2 * G.cap_inits : 8;
		struct ncclComm **p = realloc(G.inits, (size_t)cap * sizeof(*p));

		if (!p) {
			c->state = CS_FAILED;
			c->err = ncclSystemError;
			return group_fail(fail(ncclSystemError, "out of memory"));
		}
		G.inits = p;
		G.cap_inits = cap;
	}
	G.inits[G.ninits++] = c;
	return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t *cfg)
{
	char name[sizeof(((struct ncclComm *)0)->name)];

	if (!comm)
		return group_fail(fail(ncclInvalidArgument, "ncclCommInitRankConfig: comm is NULL"));
	*comm = NULL;
	if (nranks < 1 || nranks > MAX_RANKS)
		return group_fail(fail(ncclInvalidArgument, "nranks %d: this fake NCCL takes 1 to %d", nranks,
				       MAX_RANKS));
	if (rank < 0 || rank >= nranks)
		return group_fail(fail(ncclInvalidArgument, "rank %d out of range for %d ranks", rank, nranks));
	if (!id_ok(&id))
		return group_fail(fail(ncclInvalidArgument, "not a unique id of this fake NCCL"));
	snprintf(name, sizeof(name), "/%s", id.internal);
	return comm_make(comm, name, nranks, rank, cfg);
}

/*
 * The whole world again, same ranks in the same order (color 0, key = the rank: all this
 * fake splits), with its own config. Every rank splits its communicators in the same order,
 * so the n-th split of a world is named the same everywhere: "<world>-s<n>". As NCCL's, a
 * split is collective: joined at once (a barrier) or, inside a group, at ncclGroupEnd.
 */
#ifndef FAKE_NCCL_NO_SPLIT /* defined: an NCCL older than 2.18, without it */
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *cfg)
{
	char name[sizeof(((struct ncclComm *)0)->name)];
	ncclResult_t r;

	if (!comm || !newcomm)
		return group_fail(fail(ncclInvalidArgument, "ncclCommSplit: NULL argument"));
	*newcomm = NULL;
	if (comm->state != CS_READY || comm->err)
		return group_fail(comm->err ? comm->err : fail(ncclInvalidUsage, "ncclCommSplit: rank %d: "
								    "communicator not initialized", comm->rank));
	if (comm->held)
		return group_fail(fail(ncclInvalidArgument, "Attempt to use communicator before the previous "
				       "operation returned ncclSuccess"));
	if (color != 0 || key != comm->rank)
		return group_fail(fail(ncclInvalidArgument, "ncclCommSplit: color %d key %d: this fake NCCL splits "
				       "with color 0 and key = the rank only", color, key));
	if ((size_t)snprintf(name, sizeof(name), "%s-s%u", comm->name, comm->splits++) >= sizeof(name))
		return group_fail(fail(ncclInvalidArgument, "ncclCommSplit: world name too long"));
	stats.splits++;
	r = comm_make(newcomm, name, comm->nranks, comm->rank, cfg);
	if (r == ncclSuccess && G.depth && !comm->blocking) {
		/* NCCL's group thread makes it: the handle appears when the parent is done */
		comm->held = *newcomm;
		comm->held_polls = SPLIT_POLLS;
		comm->held->out = newcomm;
		*newcomm = NULL;
		G.async = 1;
	}
	return r;
}
#endif

static ncclResult_t comm_free(struct ncclComm *c, int abort);

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *err)
{
	if (!comm || !err)
		return fail(ncclInvalidArgument, "ncclCommGetAsyncError: NULL argument");
	if (comm->held && comm->held->state != CS_PENDING && comm->held_polls-- <= 0) {
		struct ncclComm *child = comm->held;

		comm->held = NULL;
		if (child->err) {
			/* the group's result is every member's: the parent keeps the failure, no handle */
			comm->err = child->err;
			child->out = NULL;
			comm_free(child, 1);
		} else {
			*child->out = child;
			child->out = NULL;
		}
	}
	*err = comm->state == CS_PENDING || comm->held ? ncclInProgress : comm->err;
	return ncclSuccess;
}

/* A communicator that goes away leaves no dangling pointer in the open group. */
static void group_forget(struct ncclComm *c)
{
	int j = 0;

	for (int i = 0; i < G.ninits; i++)
		if (G.inits[i] != c)
			G.inits[j++] = G.inits[i];
	G.ninits = j;
	j = 0;
	for (int i = 0; i < G.nops; i++)
		if (G.ops[i].comm != c)
			G.ops[j++] = G.ops[i];
	G.nops = j;
}

static ncclResult_t comm_free(struct ncclComm *c, int abort)
{
	if (!c)
		return ncclSuccess;
	/* a split still running goes with its parent, its handle never written (an abort's, as NCCL's) */
	if (c->held) {
		c->held->out = NULL;
		comm_free(c->held, abort);
		c->held = NULL;
	}
	if (abort && c->h)
		atomic_store(&c->h->aborted, 1);
	group_forget(c);
	detach(c);
	free(c);
	return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	return comm_free(comm, 0);
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
	return comm_free(comm, 1);
}

/* Bytes rank publishes for op (what its peers read from its slot). */
static size_t pub_bytes(enum kind k, size_t count, int nranks, int root, int rank)
{
	switch (k) {
	case K_REDUCE_SCATTER:
		return count * sizeof(float) * (size_t)nranks;
	case K_BROADCAST:
		return rank == root ? count * sizeof(float) : 0;
	case K_RECV:
		return 0;
	default:
		return count * sizeof(float);
	}
}

/* Phase 1: every input into this rank's slot, so outputs may overwrite inputs (in place) later. */
static ncclResult_t publish(struct ncclComm *c, const struct op *ops, int nops)
{
	size_t need, off, k = 0;
	struct dir *d;
	ncclResult_t r;

	for (int i = 0; i < nops; i++)
		k += ops[i].comm == c && ops[i].kind != K_RECV;
	need = align_up(sizeof(struct dir) + k * sizeof(struct entry), ALIGN);
	off = need;
	for (int i = 0; i < nops; i++)
		if (ops[i].comm == c)
			need += align_up(pub_bytes(ops[i].kind, ops[i].count, c->nranks, ops[i].peer, c->rank), ALIGN);
	if ((r = slot_grow(c, need)))
		return r;
	d = (struct dir *)c->mine;
	d->n = 0;
	for (int i = 0; i < nops; i++) {
		const struct op *o = &ops[i];
		size_t bytes = pub_bytes(o->kind, o->count, c->nranks, o->peer, c->rank);
		struct entry *e;

		if (o->comm != c || o->kind == K_RECV)
			continue;
		e = &d->e[d->n++];
		e->kind = o->kind;
		e->peer = o->peer;
		e->count = o->count;
		e->off = off;
		e->bytes = bytes;
		if (bytes)
			memcpy(c->mine + off, o->send, bytes);
		off += align_up(bytes, ALIGN);
	}
	return ncclSuccess;
}

/* Rank q's slot, mapped again when q grew it since. */
static ncclResult_t peer_slot(struct ncclComm *c, int q, const unsigned char **base, size_t *size)
{
	size_t sz;
	char sn[160];
	void *m;
	int fd;

	if (q == c->rank) {
		*base = c->mine;
		*size = c->mine_size;
		return ncclSuccess;
	}
	sz = (size_t)atomic_load(&c->h->slot_size[q]);
	if (sz > c->peer[q].size) {
		slot_name(c, q, sn, sizeof(sn));
		fd = shm_open(sn, O_RDONLY, 0);
		if (fd < 0)
			return fail(ncclSystemError, "rank %d: shm_open %s: %s", c->rank, sn, strerror(errno));
		m = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return fail(ncclSystemError, "rank %d: mmap %s: %s", c->rank, sn, strerror(errno));
		if (c->peer[q].p)
			munmap((void *)c->peer[q].p, c->peer[q].size);
		c->peer[q].p = m;
		c->peer[q].size = sz;
	}
	*base = c->peer[q].p;
	*size = c->peer[q].size;
	return ncclSuccess;
}

/*
 * Rank q's nth collective entry (sends: its nth send to rank `to`), checked to lie within
 * its slot; NULL if it published none.
 */
static const struct entry *find(const unsigned char *base, size_t size, int sends, int to, int nth)
{
	const struct dir *d = (const struct dir *)base;

	if (size < sizeof(*d) || d->n > (size - sizeof(*d)) / sizeof(struct entry))
		return NULL;
	for (uint64_t i = 0; i < d->n; i++) {
		const struct entry *e = &d->e[i];

		if ((e->kind == K_SEND) != sends || (sends && e->peer != to))
			continue;
		if (nth-- == 0)
			return e->off <= size && e->bytes <= size - e->off ? e : NULL;
	}
	return NULL;
}

static int sends_to(const unsigned char *base, size_t size, int to)
{
	int n = 0;

	while (find(base, size, 1, to, n))
		n++;
	return n;
}

static void reduce(float *out, const float *const *in, int n, size_t off, size_t count)
{
	if (!count)
		return;
	memcpy(out, in[0] + off, count * sizeof(float));
	for (int q = 1; q < n; q++)
		for (size_t i = 0; i < count; i++)
			out[i] += in[q][off + i];
}

/* Phase 2: this rank's outputs, from the slots every rank filled in phase 1. */
static ncclResult_t compute(struct ncclComm *c, const struct op *ops, int nops)
{
	const float *in[MAX_RANKS];
	int recvd[MAX_RANKS] = { 0 }, coll = 0, n = c->nranks;
	const unsigned char *base;
	size_t size;
	ncclResult_t r;

	for (int i = 0; i < nops; i++) {
		const struct op *o = &ops[i];
		size_t bytes = o->count * sizeof(float);
		const struct entry *e;
		float *out = o->recv;

		if (o->comm != c || o->kind == K_SEND)
			continue;
		if (o->kind == K_RECV) {
			if ((r = peer_slot(c, o->peer, &base, &size)))
				return r;
			e = find(base, size, 1, c->rank, recvd[o->peer]++);
			if (!e)
				return fail(ncclInvalidUsage, "rank %d: Recv #%d from rank %d has no matching Send",
					    c->rank, recvd[o->peer], o->peer);
			if (e->count != o->count)
				return fail(ncclInvalidUsage, "rank %d: Recv of %zu floats from rank %d, "
					    "which sent %llu", c->rank, o->count, o->peer,
					    (unsigned long long)e->count);
			if (bytes)
				memcpy(out, base + e->off, bytes);
			continue;
		}
		for (int q = 0; q < n; q++) {
			if ((r = peer_slot(c, q, &base, &size)))
				return r;
			e = find(base, size, 0, -1, coll);
			if (!e || e->kind != (int32_t)o->kind || e->count != o->count || e->peer != o->peer ||
			    e->bytes != pub_bytes(o->kind, o->count, n, o->peer, q))
				return fail(ncclInvalidUsage, "rank %d: collective #%d is %s(count %zu, root %d), "
					    "not what rank %d issued", c->rank, coll, kind_name[o->kind], o->count,
					    o->peer, q);
			in[q] = (const float *)(base + e->off);
		}
		coll++;
		switch (o->kind) {
		case K_ALL_REDUCE:
			reduce(out, in, n, 0, o->count);
			if (o->count && c->rank == knob("FAKE_NCCL_CORRUPT", NULL))
				out[0] += 1.0f;
			break;
		case K_ALL_GATHER:
			for (int q = 0; q < n && bytes; q++)
				memcpy(out + (size_t)q * o->count, in[q], bytes);
			break;
		case K_REDUCE_SCATTER:
			reduce(out, in, n, (size_t)c->rank * o->count, o->count);
			break;
		case K_BROADCAST:
			if (bytes)
				memcpy(out, in[o->peer], bytes);
			break;
		case K_REDUCE:
			if (c->rank == o->peer)
				reduce(out, in, n, 0, o->count);
			break;
		default:
			break;
		}
	}
	for (int q = 0; q < n; q++) {
		int sent;

		if ((r = peer_slot(c, q, &base, &size)))
			return r;
		if ((sent = sends_to(base, size, c->rank)) > recvd[q])
			return fail(ncclInvalidUsage, "rank %d sent %d messages to rank %d, which received %d", q, sent,
				    c->rank, recvd[q]);
	}
	return ncclSuccess;
}

/* ---- the timed model: fake_cuda.c's, found in the process when it was LD_PRELOADed ---- */

static int (*model_coll)(cudaStream_t *, int, long long, long long);
static double (*model_param)(const char *);
static long (*model_memsets)(void);

static int model_on(void)
{
	static int tried;

	if (!tried) {
		tried = 1;
		model_coll = (int (*)(cudaStream_t *, int, long long, long long))dlsym(RTLD_DEFAULT, "fake_model_collective");
		model_param = (double (*)(const char *))dlsym(RTLD_DEFAULT, "fake_model_param");
		model_memsets = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_model_memsets");
		if (!model_coll || !model_param || !model_memsets || !model_param("nccl_lat_ns"))
			model_coll = NULL;
	}
	return model_coll != NULL;
}

/* Bus bytes of op for its rank, and its bus bandwidth (nccl-tests' busbw factors). */
static double bus_ns(const struct op *o)
{
	double n = o->comm->nranks, b = (double)o->count * sizeof(float), bus = 0;
	double ar = model_param("ar_busbw_gbs"), bw = model_param("coll_busbw_gbs");

	switch (o->kind) {
	case K_ALL_REDUCE:
		return b * 2 * (n - 1) / n / ar;
	case K_ALL_GATHER:
	case K_REDUCE_SCATTER:
		bus = b * (n - 1);
		break;
	case K_BROADCAST:
	case K_REDUCE:
		bus = b;
		break;
	case K_SEND:
		bus = o->peer == o->comm->rank ? 0 : b;
		break;
	case K_RECV:
		break;
	}
	return bus / bw;
}

/*
 * The group's time on every stream it names; 1 when its data need not move (no fresh
 * inputs, or the streams capture: the group is recorded into their graphs, and a
 * graph's launches move no data here: the probes check data outside their graphs),
 * 2 when it must and every rank is here (const_group may do it), else 0; -1 when some
 * of the streams capture and others do not (the driver invalidated the capture).
 */
static int model_group(const struct op *ops, int nops, struct ncclComm *const *cs, int n)
{
	static long last_memsets; /* the first group after the buffers were made moves no data either */
	cudaStream_t s[MAX_RANKS];
	double longest = 0, host = 0;
	int ns = 0, local = 1, captured;
	long m;

	if (!model_on())
		return 0;
	for (int i = 0; i < n; i++) {
		double t = 0;

		host += cs[i]->blocking ? model_param("launch_ns") : 0;
		local &= n == cs[i]->nranks;
		for (int k = 0; k < nops; k++) {
			int seen = 0;

			if (ops[k].comm != cs[i])
				continue;
			t += bus_ns(&ops[k]);
			for (int j = 0; j < ns && !seen; j++)
				seen = s[j] == ops[k].stream;
			if (!seen && ns < MAX_RANKS)
				s[ns++] = ops[k].stream;
		}
		if (t > longest)
			longest = t;
	}
	for (int i = 0; i < n && !host; i++)
		host = model_param("nccl_group_ns"); /* one thread per group */
	captured = model_coll(s, ns, (long long)(model_param("nccl_lat_ns") + longest), (long long)host);
	if (captured) {
		stats.captured_groups += captured > 0;
		return captured;
	}
	m = model_memsets();
	if (m != last_memsets) {
		last_memsets = m;
		return local ? 2 : 0;
	}
	return local;
}

/* Element i of a buffer that holds one value: what three samples say, or 0 when they differ. */
static int sampled_const(const float *p, size_t count, float *v)
{
	if (!count)
		return 0;
	*v = p[0];
	return p[count / 2] == *v && p[count - 1] == *v;
}

static void fill_f(float *out, size_t count, float v)
{
	for (size_t i = 0; i < count; i++)
		out[i] = v;
}

/*
 * The model's data check, fast: a group of one collective per rank, every rank here,
 * whose inputs are each one value (as a data check's memsets make them, sampled at three
 * elements) gets its outputs written from those values, without the n-fold reads of the
 * general path. 1 when done; 0 to take the general path.
 */
static int const_group(const struct op *ops, int nops)
{
	float v[MAX_RANKS], sum = 0;
	const struct op *by[MAX_RANKS] = { 0 };
	int n = nops ? ops[0].comm->nranks : 0;

	if (!n || nops != n)
		return 0;
	for (int i = 0; i < nops; i++) {
		const struct op *o = &ops[i];
		size_t cin = o->kind == K_REDUCE_SCATTER ? o->count * (size_t)n : o->count;

		if (o->kind == K_SEND || o->kind == K_RECV || o->comm->nranks != n || by[o->comm->rank] ||
		    o->kind != ops[0].kind || o->count != ops[0].count)
			return 0;
		by[o->comm->rank] = o;
		if (o->kind == K_BROADCAST && o->comm->rank != o->peer)
			continue;
		if (!sampled_const(o->send, cin, &v[o->comm->rank]))
			return 0;
	}
	for (int q = 0; q < n; q++)
		sum += v[q];
	for (int q = 0; q < n; q++) {
		const struct op *o = by[q];
		float *out = o->recv;

		switch (o->kind) {
		case K_ALL_REDUCE:
		case K_REDUCE_SCATTER:
			fill_f(out, o->count, sum);
			if (o->kind == K_ALL_REDUCE && o->count && q == knob("FAKE_NCCL_CORRUPT", NULL))
				out[0] += 1.0f;
			break;
		case K_ALL_GATHER:
			for (int k = 0; k < n; k++)
				fill_f(out + (size_t)k * o->count, o->count, v[k]);
			break;
		case K_BROADCAST:
			fill_f(out, o->count, v[o->peer]);
			break;
		case K_REDUCE:
			if (q == o->peer)
				fill_f(out, o->count, sum);
			break;
		default:
			break;
		}
	}
	return 1;
}

static ncclResult_t ops_run(const struct op *ops, int nops)
{
	struct ncclComm **cs = malloc((size_t)nops * sizeof(*cs));
	ncclResult_t res = ncclSuccess;
	int r;
	long delay_ms = 0;
	int slow = knob("FAKE_NCCL_DELAY", &delay_ms), n = 0;

	if (!cs)
		return fail(ncclSystemError, "out of memory");
	for (int i = 0; i < nops; i++) {
		int seen = 0;

		for (int j = 0; j < n && !seen; j++)
			seen = cs[j] == ops[i].comm;
		if (!seen)
			cs[n++] = ops[i].comm;
	}
	for (int i = 0, blocking = 1; i < n; i++) {
		blocking &= cs[i]->blocking;
		if (i == n - 1)
			blocking ? stats.blocking_groups++ : stats.nonblocking_groups++;
	}
	for (int i = 0; i < n; i++) {
		if (cs[i]->state != CS_READY || cs[i]->err) {
			res = cs[i]->err ? cs[i]->err : fail(ncclInvalidUsage, "rank %d: communicator not initialized",
								 cs[i]->rank);
			free(cs);
			return res;
		}
	}
	if ((r = model_group(ops, nops, cs, n)) == 1 || (r == 2 && const_group(ops, nops))) {
		free(cs);
		return ncclSuccess;
	}
	if (r < 0) {
		free(cs);
		return fail(ncclUnhandledCudaError, "a group over streams of which only some capture");
	}
	for (int i = 0; i < n; i++) {
		if ((cs[i]->rank == slow || slow == ANY_RANK) && delay_ms > 0)
			nap_ns(delay_ms * 1000000L);
		if ((r = publish(cs[i], ops, nops))) {
			cs[i]->err = r;
			if (!res)
				res = r;
		}
	}
	if ((r = barrier_all(cs, n, "publish")) && !res)
		res = r;
	for (int i = 0; i < n; i++)
		if (!cs[i]->err && (r = compute(cs[i], ops, nops)) && !res)
			res = r;
	/* nobody may overwrite its slot with the next group while a peer still reads it */
	if ((r = barrier_all(cs, n, "complete")) && !res)
		res = r;
	free(cs);
	return res;
}

ncclResult_t ncclGroupStart(void)
{
	G.depth++;
	return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
	ncclResult_t res, r;

	if (!G.depth)
		return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
	if (--G.depth)
		return ncclSuccess;
	res = G.err;
	if (res) {
		for (int i = 0; i < G.ninits; i++) {
			G.inits[i]->state = CS_FAILED;
			G.inits[i]->err = res;
		}
	} else {
		res = init_run(G.inits, G.ninits);
		if (G.nops && (r = ops_run(G.ops, G.nops)) && !res)
			res = r;
	}
	free(G.inits);
	free(G.ops);
	r = G.async;
	memset(&G, 0, sizeof(G));
	/* a non-blocking group that made a split: NCCL's thread runs it, the caller polls */
	return res == ncclSuccess && r ? ncclInProgress : res;
}

static ncclResult_t enqueue(struct op o)
{
	struct ncclComm *c = o.comm;
	int needs_send = o.kind != K_RECV && (o.kind != K_BROADCAST || c->rank == o.peer);
	int needs_recv = o.kind != K_SEND && (o.kind != K_REDUCE || c->rank == o.peer);

	if (c->state == CS_FAILED || c->err)
		return group_fail(c->err ? c->err : ncclInvalidUsage);
	if (c->state == CS_PENDING && !G.depth)
		return fail(ncclInvalidUsage, "rank %d: communicator not initialized", c->rank);
	if (c->held)
		return group_fail(fail(ncclInvalidArgument, "Attempt to use communicator before the previous "
				       "operation returned ncclSuccess"));
	/* a slot holds every input of the group: keep its size arithmetic from wrapping */
	if (o.count > SIZE_MAX / sizeof(float) / (size_t)c->nranks / 4)
		return group_fail(fail(ncclInvalidArgument, "%s: count %zu too large", kind_name[o.kind], o.count));
	if (o.count && ((needs_send && !o.send) || (needs_recv && !o.recv)))
		return group_fail(fail(ncclInvalidArgument, "%s: NULL buffer", kind_name[o.kind]));
	if (c->rank == 0 && o.send && o.count)
		count_send(o.count, o.send);
	if (!G.depth)
		return ops_run(&o, 1);
	if (G.nops == G.cap_ops) {
		int cap = G.cap_ops ? 2 * G.cap_ops : 16;
		struct op *p = realloc(G.ops, (size_t)cap * sizeof(*p));

		if (!p)
			return group_fail(fail(ncclSystemError, "out of memory"));
		G.ops = p;
		G.cap_ops = cap;
	}
	G.ops[G.nops++] = o;
	return ncclSuccess;
}

static ncclResult_t check_type(ncclComm_t comm, ncclDataType_t type, int reducing, ncclRedOp_t op)
{
	if (!comm)
		return group_fail(fail(ncclInvalidArgument, "comm is NULL"));
	if (type != NCCL_FLOAT)
		return group_fail(fail(ncclInvalidArgument, "data type %d: this fake NCCL has ncclFloat only", type));
	if (reducing && op != NCCL_SUM)
		return group_fail(fail(ncclInvalidArgument, "reduction %d: this fake NCCL has ncclSum only", op));
	return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t type, ncclRedOp_t op,
			   ncclComm_t comm, cudaStream_t stream)
{
	ncclResult_t r = check_type(comm, type, 1, op);

	return r ? r : enqueue((struct op){ comm, K_ALL_REDUCE, sendbuff, recvbuff, count, -1, stream });
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t type,
			   ncclComm_t comm, cudaStream_t stream)
{
	ncclResult_t r = check_type(comm, type, 0, NCCL_SUM);

	return r ? r : enqueue((struct op){ comm, K_ALL_GATHER, sendbuff, recvbuff, sendcount, -1, stream });
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t type,
			       ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
	ncclResult_t r = check_type(comm, type, 1, op);

	return r ? r : enqueue((struct op){ comm, K_REDUCE_SCATTER, sendbuff, recvbuff, recvcount, -1, stream });
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t type, int root,
			   ncclComm_t comm, cudaStream_t stream)
{
	ncclResult_t r = check_type(comm, type, 0, NCCL_SUM);

	if (!r && (root < 0 || root >= comm->nranks))
		r = group_fail(fail(ncclInvalidArgument, "Broadcast: root %d out of range", root));
	return r ? r : enqueue((struct op){ comm, K_BROADCAST, sendbuff, recvbuff, count, root, stream });
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t type, ncclRedOp_t op,
			int root, ncclComm_t comm, cudaStream_t stream)
{
	ncclResult_t r = check_type(comm, type, 1, op);

	if (!r && (root < 0 || root >= comm->nranks))
		r = group_fail(fail(ncclInvalidArgument, "Reduce: root %d out of range", root));
	return r ? r : enqueue((struct op){ comm, K_REDUCE, sendbuff, recvbuff, count, root, stream });
}

ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
		      cudaStream_t stream)
{
	ncclResult_t r = check_type(comm, type, 0, NCCL_SUM);

	if (!r && (peer < 0 || peer >= comm->nranks))
		r = group_fail(fail(ncclInvalidArgument, "Send: peer %d out of range", peer));
	return r ? r : enqueue((struct op){ comm, K_SEND, sendbuff, NULL, count, peer, stream });
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
		      cudaStream_t stream)
{
	ncclResult_t r = check_type(comm, type, 0, NCCL_SUM);

	if (!r && (peer < 0 || peer >= comm->nranks))
		r = group_fail(fail(ncclInvalidArgument, "Recv: peer %d out of range", peer));
	return r ? r : enqueue((struct op){ comm, K_RECV, NULL, recvbuff, count, peer, stream });
}
