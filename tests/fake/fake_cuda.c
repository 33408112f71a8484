/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake CUDA driver for the end-to-end tests: built as libcuda.so.1 and found through
 * LD_LIBRARY_PATH, it loads like the real one and its calls misbehave on demand,
 * FAKE_CUDA=nodev (default): cuInit says CUDA_ERROR_NO_DEVICE
 *          count: cuInit works, cuDeviceGetCount fails with CUDA_ERROR_UNKNOWN
 *          hang:  cuInit never returns (a wedged driver); it first creates the file
 *                 FAKE_CUDA_MARK names, if any, so a test knows when to send signals
 *          one:   one device, "Fake GPU", whose other calls work
 *          two:   two such devices, peers of each other
 *          four:  four (one per rank of a four-rank NCCL world)
 *          corrupt: two devices whose device-to-host copies flip one byte
 *          stuck: one device whose streams never finish (cuStreamQuery: not ready)
 *          hgx8:  the timed model of an 8-GPU node (below)
 *          hgx8-nograph: the same model, whose cuStreamBeginCapture fails (CUDA_ERROR_NOT_SUPPORTED),
 *                 as a driver that cannot capture would: the probes' fallback to direct launches
 *                 (so does every mode but hgx8: their fake NCCL, moving data at each call,
 *                 knows nothing of capture, and their collectives must run when launched)
 * FAKE_CUDA_DELAY_MS=N makes every copy take N ms longer (a slow link: a run long
 * enough for the progress line).
 * FAKE_CUDA_STATS=FILE: the calls worth counting (context creations, peer enables),
 * rewritten as "name value" lines whenever one changes, then the model's parameters.
 *
 * The timed model (hgx8): eight "NVIDIA H100 80GB HBM3", all peers. Loaded with
 * LD_PRELOAD it replaces clock_gettime(CLOCK_MONOTONIC) by a virtual host clock: the
 * real clock plus what the model adds. Every call costs the host its modelled time
 * (a launch 5 µs, a query 1 µs, a context 100 ms: added, never slept); each stream
 * keeps the virtual time its queued work ends, an operation starting at the later of
 * its launch and the stream's end and lasting bytes / bandwidth + latency. A query of
 * a stream whose work is done in the model moves the host clock to that end (a poller
 * that notices completion at once), so a harness's wall clock reads the model; events
 * stamp the stream time. cuStreamWaitValue32 holds a stream until the host writes the
 * word; what was queued behind it runs from then. Stream capture and graphs (nccl-tests'
 * -G): while a stream captures, the fake NCCL's collectives on it (fake_model_collective)
 * are recorded into its graph, not run, and copies, memsets, events and queries on it fail
 * with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (not modelled) and invalidate the capture, as
 * the real driver does for what it cannot capture. cuGraphLaunch costs the host one launch
 * (launch_ns: a graph launch costs about what one kernel launch does, which is why nccl-tests
 * has -G) and queues the recorded device time on its stream; a collective recorded in the
 * graphs of several streams starts when every one of them has reached it, so graphs
 * launched one after another by one thread run their collectives together. Copies above 1 MiB whose source
 * holds what the destination holds already (both copies of the same buffer, of the same
 * size, and sampled bytes equal) move no bytes again: the data the check reads is the
 * same. A whole device block that receives a copy shares a copy-on-write snapshot of the
 * source's bytes, and large blocks are asked for as huge pages: the modelled node's
 * gigabytes of buffers cost this machine little memory and few page faults.
 * FAKE_CUDA=corrupt is not the model: every copy moves every byte there.
 * Device memory is host memory and copies are memcpy, so the copy and P2P probes
 * run their whole path (setup, polled operations, data check) against it.
 * Built with -DMISSING_SYMBOL it lacks cuDeviceGetCount (a driver too old or broken).
 * Self-contained on purpose: no cuda.h, so it builds wherever a C compiler does.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct fake_ctx *CUcontext;
typedef struct fake_stream *CUstream;
typedef struct fake_event *CUevent;
typedef struct {
	char bytes[16];
} CUuuid;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_UNKNOWN 999
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704

static int mode(const char *m)
{
	static const char *v;

	if (!v) { /* read once: the model asks on every call */
		v = getenv("FAKE_CUDA");
		v = v && *v ? v : "nodev";
	}
	return !strcmp(v, m);
}

/* The timed model (hgx8, and hgx8-nograph: the same node, a driver that cannot capture). */
static int model(void)
{
	static int m = -1;

	if (m < 0)
		m = mode("hgx8") || mode("hgx8-nograph");
	return m;
}

CUresult cuInit(unsigned int flags)
{
	const char *mark = getenv("FAKE_CUDA_MARK");

	(void)flags;
	if (mode("hang") && mark)
		close(open(mark, O_WRONLY | O_CREAT, 0644));
	while (mode("hang"))
		pause();
	return mode("nodev") ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v)
{
	*v = 12040;
	return CUDA_SUCCESS;
}

#ifndef MISSING_SYMBOL
CUresult cuDeviceGetCount(int *n)
{
	*n = model() ? 8 : mode("four") ? 4 : mode("two") || mode("corrupt") ? 2 : 1;
	return mode("count") ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}
#endif

CUresult cuDeviceGet(CUdevice *d, int i)
{
	*d = i;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	(void)d;
	strncpy(name, model() ? "NVIDIA H100 80GB HBM3" : "Fake GPU", (size_t)len);
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
	static const char *const hgx[8] = { "0000:18:00.0", "0000:2A:00.0", "0000:3A:00.0", "0000:5D:00.0",
					    "0000:9A:00.0", "0000:AB:00.0", "0000:BA:00.0", "0000:DB:00.0" };

	if (model()) {
		strncpy(bus, hgx[d & 7], (size_t)len);
		return CUDA_SUCCESS;
	}
	strncpy(bus, d ? "0000:AC:00.0" : "0000:AB:00.0", (size_t)len);
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
	(void)d;
	*bytes = (size_t)80 << 30;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d)
{
	memset(u->bytes, 0xab, sizeof(u->bytes));
	if (model())
		u->bytes[15] = (char)d;
	return CUDA_SUCCESS;
}

/* Compute capability 9.0; every other attribute 0. */
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	(void)d;
	*v = attr == 75 ? 9 : 0; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
	return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b)
{
	*can = a != b;
	return CUDA_SUCCESS;
}

/* ---- the timed model (FAKE_CUDA=hgx8); with other modes every time below stays 0 ---- */

/*
 * The model's numbers: what an HGX H100 node roughly delivers, and host costs that are
 * never zero (the estimates). Bandwidths in bytes per ns (= GB/s), times in ns.
 * HBM is counted as traffic: a copy within a GPU reads and writes, 2 bytes per byte.
 */
static const struct {
	const char *name;
	double v;
} params[] = {
	{ "h2d_gbs", 55 },        { "d2h_gbs", 55 },          { "p2p_gbs", 370 },     { "staged_gbs", 20 },
	{ "hbm_gbs", 3000 },      { "copy_lat_ns", 2000 },    { "launch_ns", 5000 },  { "query_ns", 1000 },
	{ "sync_ns", 2000 },      { "ctx_ns", 100000000 },    { "alloc_ns", 100000 }, { "pin_gbs", 10 },
	{ "nccl_group_ns", 50000 }, { "nccl_lat_ns", 15000 }, { "ar_busbw_gbs", 480 }, { "coll_busbw_gbs", 360 },
};

double fake_model_param(const char *name);
double fake_model_param(const char *name)
{
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		if (!strcmp(params[i].name, name))
			return params[i].v;
	return 0;
}

static _Atomic long long v_off; /* ns the model added to the real monotonic clock */

/* libc's clock_gettime (the vDSO's: cheap), found past this library when it is preloaded. */
static int real_clock(clockid_t id, struct timespec *ts)
{
	static int (*libc)(clockid_t, struct timespec *);
	static int tried;

	if (!tried) {
		tried = 1;
		libc = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
		if (libc == clock_gettime)
			libc = NULL;
	}
	return libc ? libc(id, ts) : (int)syscall(SYS_clock_gettime, id, ts);
}

static long long real_ns(int id)
{
	struct timespec ts;

	real_clock(id, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The virtual host clock, what clock_gettime(CLOCK_MONOTONIC) says under LD_PRELOAD. */
static long long host_ns(void)
{
	return real_ns(CLOCK_MONOTONIC) + v_off;
}

static void host_cost(double ns)
{
	if (model())
		v_off += (long long)ns;
}

static void host_until(long long t)
{
	long long now = host_ns();

	if (model() && t > now)
		v_off += t - now;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	long long ns;

	if (!model() || id != CLOCK_MONOTONIC)
		return real_clock(id, ts);
	ns = host_ns();
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return 0;
}

static struct {
	long ctx_creates, ctx_destroys, peer_enables, wait_values, events;
	long captures, graph_launches; /* captures ended with a graph; cuGraphLaunch calls (written at exit too) */
} stats;

static void stats_write(void)
{
	const char *path = getenv("FAKE_CUDA_STATS");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "ctx_creates %ld\nctx_destroys %ld\npeer_enables %ld\nwait_values %ld\nevents %ld\n"
		"captures %ld\ngraph_launches %ld\n", stats.ctx_creates, stats.ctx_destroys, stats.peer_enables,
		stats.wait_values, stats.events, stats.captures, stats.graph_launches);
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		fprintf(f, "%s %g\n", params[i].name, params[i].v);
	fclose(f);
}

static struct fake_ctx {
	int dev;
	int refs;
	unsigned char peer[8];  /* peer access enabled from this context to device k */
} ctxs[8];
static _Thread_local struct fake_ctx *cur;

struct fake_coll;

/* Work queued on a stream that cannot run it yet (held, or waiting in a collective for other streams). */
struct pending {
	long long dur;
	long long at;          /* host time it was launched: it starts no earlier */
	struct fake_event *ev; /* a record, when not NULL */
	struct fake_coll *coll; /* a collective of several streams, when not NULL */
};

/* What a capture recorded: the device time of each collective it saw, in order. */
struct fake_graph {
	struct fake_coll **coll;
	size_t n, cap;
	int invalid;            /* something the model cannot capture was issued: ending the capture fails */
};
typedef struct fake_graph *CUgraph;
typedef struct fake_graph *CUgraphExec;

struct fake_stream {
	int dev;
	long long end;          /* virtual time the queued work ends */
	const volatile uint32_t *wait; /* held until (int32_t)(*wait - value) >= 0 */
	uint32_t value;
	struct pending *q;      /* queued: q[hq] is the next to run */
	size_t hq, nq, capq;
	struct fake_coll *joined; /* q[hq], a collective this stream reached: waiting for the others */
	struct fake_graph *cap; /* capturing into it; NULL when not */
};

/*
 * One collective over n streams, as the fake NCCL's group launches it (one kernel per GPU
 * that wait for each other): it starts when all n have reached it and lasts dur on each.
 * Shared by the queue entries and graphs that name it; freed with the last reference.
 */
struct fake_coll {
	int n, arrived, refs;
	long long dur, ready;
	struct fake_stream *who[64];
};

struct fake_event {
	long long t;
	int recorded, held;
};

static struct fake_coll *coll_new(int n, long long dur)
{
	struct fake_coll *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	c->n = n > 64 ? 64 : n;
	c->dur = dur;
	return c;
}

static void coll_put(struct fake_coll *c)
{
	if (c && !--c->refs)
		free(c);
}

static void stream_advance(struct fake_stream *s);
CUresult cuGraphDestroy(CUgraph g);

/* The last of a collective's streams reached it: it runs on all of them, from the latest arrival. */
static void coll_run(struct fake_coll *c)
{
	struct fake_stream *who[64];
	int n = c->arrived;
	long long end = c->ready + c->dur;

	memcpy(who, c->who, (size_t)n * sizeof(*who));
	c->arrived = 0;
	c->ready = 0;
	for (int i = 0; i < n; i++) {
		who[i]->end = end;
		who[i]->joined = NULL;
		who[i]->hq++;
		coll_put(c);
	}
	for (int i = 0; i < n; i++)
		stream_advance(who[i]);
}

/*
 * Run what s has queued, as far as it can: nothing while it is held (its word not yet
 * written), and up to a collective that waits for other streams. Each entry starts at the
 * later of its launch and the end of the one before.
 */
static void stream_advance(struct fake_stream *s)
{
	if (s->wait) {
		long long t = host_ns();

		if ((int32_t)(*s->wait - s->value) < 0)
			return;
		s->wait = NULL;
		if (s->end < t) /* released now: what was queued runs from here */
			s->end = t;
	}
	while (s->hq < s->nq) {
		struct pending *p = &s->q[s->hq];
		long long t = s->end > p->at ? s->end : p->at;

		if (p->coll) {
			struct fake_coll *c = p->coll;

			if (s->joined == c)
				return; /* still waiting for the others */
			s->joined = c;
			c->who[c->arrived++] = s;
			if (t > c->ready)
				c->ready = t;
			if (c->arrived >= c->n)
				coll_run(c); /* advances s, and the others, past it */
			return;
		}
		s->end = t + p->dur;
		if (p->ev) {
			p->ev->t = s->end;
			p->ev->held = 0;
		}
		s->hq++;
	}
	s->hq = s->nq = 0;
}

static void stream_push(struct fake_stream *s, long long dur, struct fake_event *ev, struct fake_coll *coll)
{
	if (s->hq && s->hq == s->nq)
		s->hq = s->nq = 0;
	if (s->nq == s->capq) {
		size_t cap = s->capq ? 2 * s->capq : 64;
		struct pending *q = realloc(s->q, cap * sizeof(*q));

		if (!q)
			abort();
		s->q = q;
		s->capq = cap;
	}
	if (coll)
		coll->refs++;
	s->q[s->nq++] = (struct pending){ dur, host_ns(), ev, coll };
}

/* Queue dur ns of work on s, launched now (after the launch's host cost). */
static void stream_run(struct fake_stream *s, long long dur)
{
	if (!model() || !s)
		return;
	host_cost(fake_model_param("launch_ns"));
	stream_push(s, dur, NULL, NULL);
	stream_advance(s);
}

/* What the model cannot capture, issued on a capturing stream: the capture is invalidated, as the driver does. */
#define CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED 900
#define CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901
#define CUDA_ERROR_ILLEGAL_STATE 401
static int capture_refused(struct fake_stream *s)
{
	if (!s || !s->cap)
		return 0;
	s->cap->invalid = 1;
	return 1;
}

static void graph_add(struct fake_graph *g, struct fake_coll *c)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		struct fake_coll **p = realloc(g->coll, cap * sizeof(*p));

		if (!p)
			abort();
		g->coll = p;
		g->cap = cap;
	}
	c->refs++;
	g->coll[g->n++] = c;
}

/*
 * For the fake NCCL: one collective over n streams (one per GPU), launched by a group
 * that cost the host host_ns_cost: it starts when every stream is free and lasts dur.
 * While the streams capture, it is recorded into each one's graph instead: 1 (the data
 * does not move now), 0 when queued to run, -1 when only some of the streams capture
 * (the real driver invalidates such a capture; so does the model).
 */
int fake_model_collective(struct fake_stream **s, int n, long long dur, long long host_ns_cost);
int fake_model_collective(struct fake_stream **s, int n, long long dur, long long host_ns_cost)
{
	struct fake_coll *c;
	int live = 0, capturing = 0;

	if (!model())
		return 0;
	host_cost((double)host_ns_cost);
	for (int i = 0; i < n; i++) {
		live += s[i] != NULL;
		capturing += s[i] && s[i]->cap;
	}
	if (capturing && capturing != live) {
		for (int i = 0; i < n; i++)
			capture_refused(s[i]);
		return -1;
	}
	c = coll_new(live, dur);
	c->refs++; /* held while it is handed out */
	for (int i = 0; i < n; i++)
		if (s[i] && capturing)
			graph_add(s[i]->cap, c);
		else if (s[i])
			stream_push(s[i], 0, NULL, c);
	for (int i = 0; i < n && !capturing; i++)
		if (s[i])
			stream_advance(s[i]);
	coll_put(c);
	return capturing ? 1 : 0;
}

/* Memsets so far: the fake NCCL moves real data only in a group that follows one (fresh inputs). */
static _Atomic long memsets;
long fake_model_memsets(void);
long fake_model_memsets(void)
{
	return memsets;
}

static long long copy_ns(size_t n, double gbs, double traffic)
{
	return (long long)(fake_model_param("copy_lat_ns") + (double)n * traffic / gbs);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	struct fake_ctx *x = &ctxs[d & 7];

	x->dev = d & 7;
	if (!x->refs++) {
		stats.ctx_creates++;
		host_cost(fake_model_param("ctx_ns"));
		memset(x->peer, 0, sizeof(x->peer)); /* a new context: its peer mappings are gone */
		stats_write();
	}
	*c = x;
	return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	struct fake_ctx *x = &ctxs[d & 7];

	if (x->refs > 0 && !--x->refs) {
		/* the last reference resets the context: its allocations and peer mappings go */
		stats.ctx_destroys++;
		host_cost(fake_model_param("ctx_ns"));
		stats_write();
	}
	return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c)
{
	cur = c;
	return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext c, unsigned int flags)
{
	(void)flags;
	stats.peer_enables++;
	stats_write();
	if (model() && cur && c) {
		if (cur->peer[c->dev])
			return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
		cur->peer[c->dev] = 1;
		host_cost(1000000); /* mapping a peer's memory: ~1 ms */
	}
	return CUDA_SUCCESS;
}

/*
 * The model keeps large freed blocks for the next allocation of the same size: a probe
 * that allocates per run must not cost this machine gigabytes of page faults.
 */
static struct {
	void *p;
	size_t n;
} spare[32];

/*
 * A large block of the model (n >= 1 MiB): a spare one of its size, else fresh pages asked
 * for as transparent huge pages, 512 times fewer page faults than 4 KiB ones: touching
 * gigabytes of fresh device and pinned memory page by page costs this machine seconds.
 */
static void *mem_get(size_t n)
{
	void *p;

	for (size_t i = 0; i < 32; i++)
		if (spare[i].p && spare[i].n == n) {
			p = spare[i].p;
			spare[i].p = NULL;
			return p;
		}
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n, MADV_HUGEPAGE); /* a hint: without it the pages are small, and that is all */
	return p;
}

static void mem_put(void *p, size_t n)
{
	for (size_t i = 0; i < 32; i++)
		if (!spare[i].p) {
			spare[i].p = p;
			spare[i].n = n;
			return;
		}
	munmap(p, n);
}

/* Sizes of live large blocks of the model, for mem_put (the API frees by pointer). */
static struct {
	void *p;
	size_t n;
} live_big[256];

static void *mem_alloc(size_t n)
{
	if (model() && n >= (1u << 20))
		for (size_t i = 0; i < 256; i++)
			if (!live_big[i].p) {
				void *p = mem_get(n);

				live_big[i].p = p;
				live_big[i].n = n;
				return p;
			}
	return malloc(n ? n : 1);
}

static void memo_forget(const void *p, size_t n);

static void mem_free(void *p)
{
	for (size_t i = 0; p && i < 256; i++)
		if (live_big[i].p == p) {
			live_big[i].p = NULL;
			memo_forget(p, live_big[i].n); /* what it holds is no copy of anything any more */
			mem_put(p, live_big[i].n);
			return;
		}
	free(p);
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *m = mem_alloc(n);

	host_cost(fake_model_param("alloc_ns"));
	*p = (CUdeviceptr)(uintptr_t)m;
	return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
	mem_free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags)
{
	(void)flags;
	*p = mem_alloc(n);
	host_cost(fake_model_param("alloc_ns") + (double)n / fake_model_param("pin_gbs"));
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned int flags)
{
	(void)flags;
	*d = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *p)
{
	mem_free(p);
	return CUDA_SUCCESS;
}

static void slow_link(void)
{
	const char *v = getenv("FAKE_CUDA_DELAY_MS");
	long ms = v ? atol(v) : 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

/*
 * The model's record of what large buffers hold (model only): dst's n bytes are a copy of
 * origin's, the buffer the data was first copied from (a pattern in pinned memory), so a
 * copy whose source holds the same data as its destination (the same origin, and the
 * sampled bytes equal) moves no bytes: a GPU's pattern copied to another GPU's buffer that
 * already holds it. A smaller copy or a memset into a recorded buffer forgets it.
 */
#define MEMO_N 64
static struct memo {
	void *dst;
	const void *origin;
	size_t n;
} memo[MEMO_N];
static size_t memo_next;

static int same_sample(const unsigned char *a, const unsigned char *b, size_t n)
{
	return !memcmp(a, b, 64) && !memcmp(a + n / 2, b + n / 2, 64) && !memcmp(a + n - 64, b + n - 64, 64);
}

static struct memo *memo_of(const void *p, size_t n)
{
	for (size_t i = 0; i < MEMO_N; i++)
		if (memo[i].dst == p && memo[i].n == n)
			return &memo[i];
	return NULL;
}

/* Forget the records of buffers that bytes [p, p + n) overlap. */
static void memo_forget(const void *p, size_t n)
{
	const char *lo = p, *hi = lo + n;

	for (size_t i = 0; i < MEMO_N; i++)
		if (memo[i].dst && (const char *)memo[i].dst < hi && lo < (const char *)memo[i].dst + memo[i].n)
			memo[i].dst = NULL;
}

/*
 * A whole large block of device memory that receives a copy is mapped, copy-on-write, onto a
 * snapshot of the source's bytes (one per distinct content): eight GPUs' buffers that
 * hold one pattern are then one pattern in this machine's memory, not gigabytes of fresh
 * pages to zero and fill (seconds on a virtual machine). Whatever writes the block later
 * (a copy, a collective, a memset) gets its own pages, as it would after a real copy.
 */
static struct snap {
	int fd;
	const unsigned char *p; /* the snapshot, read-only */
	size_t n;
} snaps[8];

static int whole_block(const void *p, size_t n)
{
	for (size_t i = 0; i < 256; i++)
		if (live_big[i].p == p)
			return live_big[i].n == n;
	return 0;
}

static int cow_copy(void *dst, const void *src, size_t n)
{
	struct snap *s = NULL;
	void *m;
	int fd;

	if (n % 4096 || (uintptr_t)dst % 4096 || !whole_block(dst, n))
		return 0;
	for (size_t i = 0; i < 8 && !s; i++)
		if (snaps[i].p && snaps[i].n == n && same_sample(snaps[i].p, src, n) && !memcmp(snaps[i].p, src, n))
			s = &snaps[i];
	for (size_t i = 0; i < 8 && !s; i++) {
		if (snaps[i].p)
			continue;
		if ((fd = (int)syscall(SYS_memfd_create, "fake-cuda-copy", 1u /* MFD_CLOEXEC */)) < 0)
			return 0;
		if (ftruncate(fd, (off_t)n) < 0 ||
		    (m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
			close(fd);
			return 0;
		}
		memcpy(m, src, n);
		mprotect(m, n, PROT_READ);
		snaps[i] = (struct snap){ fd, m, n };
		s = &snaps[i];
	}
	return s && mmap(dst, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, s->fd, 0) != MAP_FAILED;
}

/* Copy n bytes (dev: into device memory, which only copies, memsets and collectives write). */
static void move(void *dst, const void *src, size_t n, int dev)
{
	struct memo *from, *to;
	const void *origin;

	if (!model())
		return (void)memmove(dst, src, n);
	if (n <= (1u << 20)) {
		memo_forget(dst, n);
		return (void)memmove(dst, src, n);
	}
	from = memo_of(src, n);
	origin = from ? from->origin : src;
	if ((to = memo_of(dst, n)) && to->origin == origin && same_sample(dst, src, n))
		return;
	memo_forget(dst, n);
	memo[memo_next] = (struct memo){ dst, origin, n };
	memo_next = (memo_next + 1) % MEMO_N;
	if (!dev || !cow_copy(dst, src, n))
		memmove(dst, src, n);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	slow_link();
	move((void *)(uintptr_t)dst, src, n, 1);
	stream_run(s, copy_ns(n, fake_model_param("h2d_gbs"), 1));
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	slow_link();
	move(dst, (const void *)(uintptr_t)src, n, 0);
	if (mode("corrupt") && n)
		((unsigned char *)dst)[n - 1] ^= 0x40;
	stream_run(s, copy_ns(n, fake_model_param("d2h_gbs"), 1));
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	slow_link();
	move((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, 1);
	stream_run(s, copy_ns(n, fake_model_param("hbm_gbs"), 2));
	return CUDA_SUCCESS;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s)
{
	/* NVLink where the source context mapped the destination's memory, else staged through the host */
	int peer = sc && dc && sc->peer[dc->dev];

	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	slow_link();
	move((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, 1);
	stream_run(s, copy_ns(n, fake_model_param(peer ? "p2p_gbs" : "staged_gbs"), 1));
	return CUDA_SUCCESS;
}

CUresult cuMemsetD32Async(CUdeviceptr p, unsigned int v, size_t n, CUstream s)
{
	unsigned int *w = (unsigned int *)(uintptr_t)p;
	size_t done = n < 1024 ? n : 1024;

	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	for (size_t i = 0; i < done; i++)
		w[i] = v;
	/* the rest copied from what is set, doubling: memcpy's speed, not a word at a time */
	while (done < n) {
		size_t k = done < n - done ? done : n - done;

		memcpy(w + done, w, 4 * k);
		done += k;
	}
	memo_forget(w, 4 * n);
	memsets++;
	stream_run(s, copy_ns(4 * n, fake_model_param("hbm_gbs"), 1));
	return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
	(void)flags;
	*s = calloc(1, sizeof(**s));
	if (!*s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*s)->dev = cur ? cur->dev : 0;
	return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream s)
{
	if (s) {
		for (size_t i = s->hq; i < s->nq; i++)
			coll_put(s->q[i].coll);
		free(s->q);
		if (s->cap)
			cuGraphDestroy(s->cap);
	}
	free(s);
	return CUDA_SUCCESS;
}

CUresult cuStreamWaitValue32_v2(CUstream s, CUdeviceptr addr, uint32_t value, unsigned int flags)
{
	if (flags != 0) /* CU_STREAM_WAIT_VALUE_GEQ only */
		return CUDA_ERROR_INVALID_VALUE;
	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	host_cost(fake_model_param("launch_ns"));
	stream_advance(s);
	if (!s->wait) {
		s->wait = (const volatile uint32_t *)(uintptr_t)addr;
		s->value = value;
		stats.wait_values++;
	}
	stream_advance(s); /* already satisfied: nothing held */
	return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream s)
{
	if (mode("stuck"))
		return CUDA_ERROR_NOT_READY;
	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	host_cost(fake_model_param("query_ns"));
	stream_advance(s);
	if (s->wait || s->hq < s->nq)
		return CUDA_ERROR_NOT_READY;
	host_until(s->end); /* done in the model: the poller notices at once */
	return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s)
{
	if (mode("stuck"))
		return CUDA_ERROR_NOT_READY;
	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	host_cost(fake_model_param("sync_ns"));
	stream_advance(s);
	if (s->wait || s->hq < s->nq)
		return CUDA_ERROR_NOT_READY; /* the real one would wait for ever */
	host_until(s->end);
	return CUDA_SUCCESS;
}

/*
 * Stream capture and graphs (see the top). Capture records only what the model times as
 * device work of a graph, the fake NCCL's collectives; mode (global, thread-local, relaxed)
 * is checked, not modelled: the model has no other thread to refuse.
 */
CUresult cuStreamBeginCapture_v2(CUstream s, int capmode)
{
	/* outside the model the fake NCCL moves data at each call and cannot be captured: no graphs there */
	if (!model() || mode("hgx8-nograph"))
		return CUDA_ERROR_NOT_SUPPORTED;
	if (!s || capmode < 0 || capmode > 2)
		return CUDA_ERROR_INVALID_VALUE;
	if (s->cap)
		return CUDA_ERROR_ILLEGAL_STATE;
	if (!(s->cap = calloc(1, sizeof(*s->cap))))
		return CUDA_ERROR_OUT_OF_MEMORY;
	return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph g)
{
	if (!g)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < g->n; i++)
		coll_put(g->coll[i]);
	free(g->coll);
	free(g);
	return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
	struct fake_graph *cap = s ? s->cap : NULL;

	*g = NULL;
	if (!cap)
		return CUDA_ERROR_ILLEGAL_STATE;
	s->cap = NULL;
	if (cap->invalid) {
		cuGraphDestroy(cap);
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	}
	*g = cap;
	stats.captures++;
	stats_write();
	return CUDA_SUCCESS;
}

/* An executable copy of the graph; a one-off host cost, modelled as an allocation's. */
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags)
{
	struct fake_graph *x;

	(void)flags;
	*e = NULL;
	if (!g || !(x = calloc(1, sizeof(*x))))
		return g ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < g->n; i++)
		graph_add(x, g->coll[i]);
	host_cost(fake_model_param("alloc_ns"));
	*e = x;
	return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec e)
{
	return cuGraphDestroy(e);
}

/* One launch's host cost, then every recorded collective queued on s, in order. */
CUresult cuGraphLaunch(CUgraphExec e, CUstream s)
{
	if (!e || !s)
		return CUDA_ERROR_INVALID_VALUE;
	if (capture_refused(s)) /* a graph launched into a capture: legal in CUDA, not modelled */
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	stats.graph_launches++;
	if (!model())
		return CUDA_SUCCESS;
	host_cost(fake_model_param("launch_ns"));
	for (size_t i = 0; i < e->n; i++)
		stream_push(s, 0, NULL, e->coll[i]);
	stream_advance(s);
	return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
	(void)flags;
	*e = calloc(1, sizeof(**e));
	return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuEventDestroy_v2(CUevent e)
{
	free(e);
	return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s)
{
	if (capture_refused(s))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	host_cost(fake_model_param("launch_ns") / 5);
	stats.events++;
	e->recorded = 1;
	e->held = 1; /* until the stream reaches it */
	stream_push(s, 0, e, NULL);
	stream_advance(s);
	return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent e)
{
	if (mode("stuck"))
		return CUDA_ERROR_NOT_READY;
	host_cost(fake_model_param("query_ns"));
	if (e->held)
		return CUDA_ERROR_NOT_READY;
	host_until(e->t);
	return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	/* the other modes copy at launch and have no device time: the probes fall back to the clock */
	if (!model())
		return CUDA_ERROR_NOT_SUPPORTED;
	if (!a->recorded || !b->recorded)
		return CUDA_ERROR_INVALID_VALUE;
	if (a->held || b->held || b->t > host_ns())
		return CUDA_ERROR_NOT_READY;
	*ms = (float)((double)(b->t - a->t) / 1e6);
	return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	return cuEventElapsedTime_v2(ms, a, b);
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : r == CUDA_ERROR_UNKNOWN ? "CUDA_ERROR_UNKNOWN" :
	     r == CUDA_ERROR_NOT_READY ? "CUDA_ERROR_NOT_READY" :
	     r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED ? "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED" :
	     r == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED" :
	     r == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED ? "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" :
	     r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ? "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED" :
	     r == CUDA_ERROR_ILLEGAL_STATE ? "CUDA_ERROR_ILLEGAL_STATE" : NULL;
	return *s ? CUDA_SUCCESS : 1;
}

/* The parameters, for a bench that compares with the model, whatever was called. */
__attribute__((constructor)) static void stats_init(void)
{
	if (model())
		stats_write();
}

/* Counters that change too often to write each time (events, graph launches): at exit. */
__attribute__((destructor)) static void stats_fini(void)
{
	stats_write();
}
