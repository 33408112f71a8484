/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP between hosts, as NCCL's socket bootstrap and MPI's TCP transport would use it.
 *
 * tcp.reach: every host (its first rank) lists its candidate interfaces and addresses
 * and listens on one port; each host connects to each address of a bounded set of peers
 * (cd_reach_peers: ring neighbours, hashed peers, coverage of every interface name,
 * subnet and naming; every other host with --reach all), all at once (non-blocking
 * connect + poll, a short timeout each), in two rounds whatever the job's size, since
 * N - 1 rounds of 2 s each do not fit a prolog at 1024 nodes (issue 18); it checks who
 * answered: the listener sends a per-run random cookie,
 * so an address that is also local (docker0's 172.17.0.1 on every node) or belongs to a
 * third host is not mistaken for the peer. Each attempt is one reach[] entry: the
 * per-interface reachability matrix.
 *
 * tcp.bw: between ring neighbours, over the first address that reached the peer, the
 * time to send a message and get a one-byte acknowledgement.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dist.h"
#include "probe.h"
#include "util.h"

#ifdef CD_HAVE_MPI

#define BLOCK 4096              /* one host's candidate list in the exchange */
#define MAX_CAND 32
#define REACH_TIMEOUT_S 2.0     /* one connect attempt (and its answer) */
#define TAG_DONE 700
#define TAG_BW 720

struct cand {
	char iface[32];
	char addr[64];
	char net[72];   /* "net:10.0.0.0/24": the subnet, a label of the sample */
};

static void cidr_net(const char *cidr, char *out, size_t len);

struct peer {
	char hostname[64];
	unsigned long long cookie;
	int port;
	int n;
	struct cand c[MAX_CAND];
};

struct xchg {
	int listen_fd;
	int n_hosts, me;
	struct peer *hosts;
};

/* ---- candidates and the exchange ---- */

static int nic_usable(const struct cd_nic *n)
{
	return n->kind != CD_NIC_LOOPBACK && n->admin_up == CD_TRI_TRUE && n->state &&
	       (!strcmp(n->state, "up") || !strcmp(n->state, "unknown"));
}

static void add_cand(struct peer *p, const char *iface, const char *cidr)
{
	struct cand *c;
	char *slash;

	if (p->n >= MAX_CAND)
		return;
	c = &p->c[p->n++];
	snprintf(c->iface, sizeof(c->iface), "%s", iface);
	snprintf(c->addr, sizeof(c->addr), "%s", cidr);
	cidr_net(cidr, c->net, sizeof(c->net));
	slash = strchr(c->addr, '/');
	if (slash)
		*slash = '\0';
}

static void my_candidates(const struct cd_host *h, struct peer *me)
{
	snprintf(me->hostname, sizeof(me->hostname), "%s", h->hostname ? h->hostname : "?");
	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *n = &h->nics[i];

		if (!nic_usable(n))
			continue;
		for (size_t k = 0; k < n->ipv4.n; k++)
			add_cand(me, n->name, n->ipv4.v[k]);
		for (size_t k = 0; k < n->ipv6.n; k++)
			if (strncasecmp(n->ipv6.v[k], "fe80:", 5))
				add_cand(me, n->name, n->ipv6.v[k]);
	}
}

static void pack(const struct peer *p, char *buf)
{
	size_t off;

	memset(buf, 0, BLOCK);
	off = (size_t)snprintf(buf, BLOCK, "%llx %d %s\n", p->cookie, p->port, p->hostname);
	for (int i = 0; i < p->n && off < BLOCK - 100; i++)
		off += (size_t)snprintf(buf + off, BLOCK - off, "%s %s %s\n", p->c[i].iface, p->c[i].addr,
					p->c[i].net[0] ? p->c[i].net : "-");
}

static void unpack(const char *buf, struct peer *p)
{
	char line[192];
	const char *s = buf;

	memset(p, 0, sizeof(*p));
	for (int first = 1; *s && s < buf + BLOCK; first = 0) {
		size_t n = strcspn(s, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), s);
		s += n + (s[n] == '\n');
		if (first) {
			if (sscanf(line, "%llx %d %63s", &p->cookie, &p->port, p->hostname) != 3)
				return;
		} else if (p->n < MAX_CAND && sscanf(line, "%31s %63s %71s", p->c[p->n].iface, p->c[p->n].addr,
						      p->c[p->n].net) == 3) {
			if (!strcmp(p->c[p->n].net, "-"))
				p->c[p->n].net[0] = '\0';
			p->n++;
		}
	}
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* One port on every address: IPv6 any with IPv4-mapped addresses, else IPv4 any. */
static int open_listener(int *port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct sockaddr_storage got;
	socklen_t len = sizeof(got);
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), off = 0;

	if (fd >= 0 && (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0 ||
			bind(fd, (struct sockaddr *)&a6, sizeof(a6)) < 0)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a4, sizeof(a4)) < 0) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	/* a host of --reach all is tried by up to 63 hosts × their addresses at once */
	if (listen(fd, 1024) < 0 || set_nonblock(fd) < 0 || getsockname(fd, (struct sockaddr *)&got, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
						: ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

static void xchg_free(struct xchg *x)
{
	if (x->listen_fd >= 0)
		close(x->listen_fd);
	free(x->hosts);
	memset(x, 0, sizeof(*x));
	x->listen_fd = -1;
}

/* Listen, then share (cookie, port, candidates) among the hosts' first ranks. */
static int exchange(struct cd_probe_ctx *ctx, struct xchg *x, char *why, size_t why_len)
{
	const struct cd_dist *ds = cd_dist_get();
	struct peer me = { 0 };
	char *mine = xmalloc(BLOCK), *all;
	MPI_Request req;
	int rc;

	memset(x, 0, sizeof(*x));
	x->listen_fd = open_listener(&me.port);
	if (x->listen_fd < 0) {
		snprintf(why, why_len, "cannot listen on a TCP port: %s", strerror(errno));
		me.port = -1; /* still take part, so the others do not wait for this host */
	}
	if (getrandom(&me.cookie, sizeof(me.cookie), 0) != sizeof(me.cookie))
		me.cookie = (unsigned long long)getpid() << 32 ^ (unsigned long long)time(NULL);
	my_candidates(ctx->host, &me);
	pack(&me, mine);
	x->n_hosts = ds->n_hosts;
	x->me = ds->host_index;
	all = xmalloc((size_t)BLOCK * (size_t)ds->n_hosts);
	rc = MPI_Iallgather(mine, BLOCK, MPI_CHAR, all, BLOCK, MPI_CHAR, cd_dist_leaders(), &req);
	if (rc == MPI_SUCCESS && cd_dist_wait_op(&req, 1, ctx->end_s) != 0) {
		/* mine and all stay MPI's (dist.h) */
		snprintf(why, why_len, "the hosts did not exchange their addresses before the deadline");
		return -1;
	}
	if (rc != MPI_SUCCESS) {
		snprintf(why, why_len, "the hosts did not exchange their addresses: MPI_Iallgather failed");
		free(mine);
		free(all);
		return -1;
	}
	x->hosts = xcalloc((size_t)ds->n_hosts, sizeof(*x->hosts));
	for (int i = 0; i < ds->n_hosts; i++)
		unpack(all + (size_t)i * BLOCK, &x->hosts[i]);
	free(mine);
	free(all);
	return x->listen_fd < 0 ? -1 : 0;
}

/* ---- the listening side: answer every connection with our cookie ---- */

#define MAX_ACCEPTED 64

struct server {
	int fd[MAX_ACCEPTED];
	int n;
	int mute;       /* test fault: accept and never answer */
};

static void serve(struct xchg *x, struct server *sv)
{
	const struct peer *me = &x->hosts[x->me];

	for (;;) {
		int fd = accept4(x->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		ssize_t w;

		if (fd < 0)
			break;
		if (sv->mute && sv->n < MAX_ACCEPTED) {
			sv->fd[sv->n++] = fd; /* held open, never answered */
			continue;
		}
		w = write(fd, &me->cookie, sizeof(me->cookie));
		(void)w;
		/* the peer reads 8 bytes and closes; ours closes after, so no reset loses them */
		if (sv->n < MAX_ACCEPTED)
			sv->fd[sv->n++] = fd;
		else
			close(fd);
	}
	/* drop the connections the peer closed */
	for (int i = 0; i < sv->n; i++) {
		char b[16];
		ssize_t r = sv->mute ? -1 : read(sv->fd[i], b, sizeof(b));

		if (r == 0 || (r < 0 && errno != EAGAIN && !sv->mute)) {
			close(sv->fd[i]);
			sv->fd[i--] = sv->fd[--sv->n];
		}
	}
}

static void server_close(struct server *sv)
{
	for (int i = 0; i < sv->n; i++)
		close(sv->fd[i]);
	sv->n = 0;
}

/* ---- the connecting side ---- */

enum att_state { A_CONNECTING, A_READING, A_DONE };

struct attempt {
	const struct cand *c;
	int fd;
	enum att_state st;
	double t0, connect_us;
	unsigned char got[8];
	size_t have;
	int ok;
	int keep;       /* keep the connection once verified (tcp.bw) */
	char err[256];
};

static int to_sockaddr(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	}
	return -1;
}

static void att_fail(struct attempt *a, const char *fmt, const char *detail)
{
	snprintf(a->err, sizeof(a->err), fmt, detail);
	a->ok = 0;
	a->st = A_DONE;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}

static void att_start(struct attempt *a, int port)
{
	struct sockaddr_storage ss;
	socklen_t len;

	a->fd = -1;
	a->st = A_CONNECTING;
	a->t0 = cd_now_s();
	a->connect_us = NAN;
	if (to_sockaddr(a->c->addr, port, &ss, &len) < 0) {
		att_fail(a, "'%s' is not an IP address", a->c->addr);
		return;
	}
	a->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (a->fd < 0) {
		att_fail(a, "socket: %s", strerror(errno));
		return;
	}
	if (connect(a->fd, (struct sockaddr *)&ss, len) == 0) {
		a->connect_us = (cd_now_s() - a->t0) * 1e6;
		a->st = A_READING;
	} else if (errno != EINPROGRESS) {
		att_fail(a, "%s", strerror(errno));
	}
}

/* Who answered: the peer, a third host of the job, or nobody we know. */
static void att_verdict(struct attempt *a, const struct xchg *x, int peer)
{
	unsigned long long c;

	memcpy(&c, a->got, sizeof(c));
	a->st = A_DONE;
	if (!a->keep || c != x->hosts[peer].cookie) {
		close(a->fd);
		a->fd = -1;
	}
	if (c == x->hosts[peer].cookie) {
		a->ok = 1;
		return;
	}
	a->ok = 0;
	for (int i = 0; i < x->n_hosts; i++) {
		if (c == x->hosts[i].cookie) {
			snprintf(a->err, sizeof(a->err), "answered by %s%s, not %s", x->hosts[i].hostname,
				 i == x->me ? " (this host: the address is local here too)" : "", x->hosts[peer].hostname);
			return;
		}
	}
	snprintf(a->err, sizeof(a->err), "answered by something other than commdiag on %s", x->hosts[peer].hostname);
}

static void att_step(struct attempt *a, short revents, const struct xchg *x, int peer)
{
	if (a->st == A_CONNECTING && (revents & (POLLOUT | POLLERR | POLLHUP))) {
		int err = 0;
		socklen_t l = sizeof(err);

		getsockopt(a->fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err) {
			att_fail(a, "%s", strerror(err));
			return;
		}
		a->connect_us = (cd_now_s() - a->t0) * 1e6;
		a->st = A_READING;
		return;
	}
	if (a->st == A_READING && (revents & (POLLIN | POLLERR | POLLHUP))) {
		ssize_t r = read(a->fd, a->got + a->have, sizeof(a->got) - a->have);

		if (r > 0) {
			a->have += (size_t)r;
			if (a->have == sizeof(a->got))
				att_verdict(a, x, peer);
		} else if (r == 0) {
			att_fail(a, "%s", "connected, but the listener closed without answering");
		} else if (errno != EAGAIN) {
			att_fail(a, "%s", strerror(errno));
		}
	}
}

static int is_mine(const struct xchg *x, const char *addr)
{
	const struct peer *me = &x->hosts[x->me];

	for (int i = 0; i < me->n; i++)
		if (!strcmp(me->c[i].addr, addr))
			return 1;
	return 0;
}

/*
 * One round: connect to every address of every target at once (at most WINDOW sockets in
 * flight, each attempt given REACH_TIMEOUT_S from its own start), serving our own
 * listener meanwhile; one reach[] entry per attempt. A target with an iface name tests
 * only that interface's addresses (the second sample).
 */
#define WINDOW 256

struct target {
	int peer;
	const char *iface; /* NULL: every address */
};

struct slot {
	struct attempt a;
	int peer;
};

static void record(struct cd_probe_ctx *ctx, const struct xchg *x, struct slot *s)
{
	struct cd_reach *r = cd_results_add_reach(ctx->r);
	struct attempt *a = &s->a;

	if (a->st != A_DONE)
		att_fail(a, a->st == A_CONNECTING ? "no connection within %s s" : "connected, but nothing answered within %s s",
			 "2.0");
	r->from = xstrdup(x->hosts[x->me].hostname);
	r->to = xstrdup(x->hosts[s->peer].hostname);
	r->iface = xstrdup(a->c->iface);
	r->address = xstrdup(a->c->addr);
	r->ok = a->ok ? CD_TRI_TRUE : CD_TRI_FALSE;
	r->connect_us = a->ok ? a->connect_us : NAN;
	if (a->ok)
		r->error = NULL;
	else if (is_mine(x, a->c->addr) && !strstr(a->err, "local"))
		r->error = xasprintf("%s; %s is also an address of this host, so it never leaves it", a->err, a->c->addr);
	else
		r->error = xstrdup(a->err);
}

static void reach_round(struct cd_probe_ctx *ctx, struct xchg *x, struct server *sv, const struct target *t, int n_t,
			double deadline)
{
	struct slot *all = NULL;
	size_t n = 0, cap = 0, next = 0, left;
	struct pollfd pfd[WINDOW + 1];
	int map[WINDOW];

	for (int i = 0; i < n_t; i++) {
		const struct peer *p = &x->hosts[t[i].peer];

		for (int c = 0; c < p->n; c++) {
			struct slot *s;

			if (t[i].iface && strcmp(t[i].iface, p->c[c].iface))
				continue;
			s = CD_PUSH(all, n, cap);
			memset(s, 0, sizeof(*s));
			s->a.c = &p->c[c];
			s->a.fd = -1;
			s->a.st = A_CONNECTING;
			s->peer = t[i].peer;
		}
	}
	left = n;
	for (size_t i = 0; i < n; i++)
		all[i].a.st = A_CONNECTING, all[i].a.t0 = NAN; /* not started */
	while (left > 0 && cd_now_s() < deadline && !cd_stop) {
		int k = 1, busy = 0;
		double now = cd_now_s();

		/* start attempts while the window has room; end those past their own timeout */
		for (size_t i = 0; i < next; i++) {
			struct attempt *a = &all[i].a;

			if (a->st != A_DONE && now - a->t0 > REACH_TIMEOUT_S) {
				att_fail(a, a->st == A_CONNECTING ? "no connection within %s s"
								  : "connected, but nothing answered within %s s", "2.0");
				left--;
			}
			busy += a->st != A_DONE;
		}
		while (next < n && busy < WINDOW) {
			cd_fault_delay(0);
			att_start(&all[next].a, x->hosts[all[next].peer].port);
			if (all[next].a.st == A_DONE)
				left--;
			else
				busy++;
			next++;
		}
		pfd[0].fd = x->listen_fd;
		pfd[0].events = POLLIN;
		for (size_t i = 0; i < next && k <= WINDOW; i++) {
			struct attempt *a = &all[i].a;

			if (a->st == A_DONE)
				continue;
			pfd[k].fd = a->fd;
			pfd[k].events = a->st == A_CONNECTING ? POLLOUT : POLLIN;
			map[k - 1] = (int)i;
			k++;
		}
		if (poll(pfd, (nfds_t)k, 10) < 0 && errno != EINTR)
			break;
		serve(x, sv);
		for (int j = 1; j < k; j++) {
			struct slot *s = &all[map[j - 1]];

			if (!pfd[j].revents)
				continue;
			att_step(&s->a, pfd[j].revents, x, s->peer);
			left -= s->a.st == A_DONE;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (i >= next) {
			snprintf(all[i].a.err, sizeof(all[i].a.err), "not tried: the probe's deadline came first");
			all[i].a.st = A_DONE;
		}
		record(ctx, x, &all[i]);
		if (all[i].a.fd >= 0)
			close(all[i].a.fd);
	}
	free(all);
}

/* Every host is done with the round: a non-blocking barrier of the hosts, answering connections meanwhile. */
static int settle(struct xchg *x, struct server *sv, double deadline)
{
	MPI_Request *req = xmalloc(sizeof(*req));

	if (MPI_Ibarrier(cd_dist_leaders(), req) != MPI_SUCCESS) {
		free(req);
		return -1;
	}
	for (;;) {
		int done = 0;
		struct pollfd pfd = { .fd = x->listen_fd, .events = POLLIN };

		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done) {
			free(req);
			return 0;
		}
		if (cd_now_s() >= deadline || cd_stop)
			return -1; /* req stays MPI's (dist.h); no collective follows on the leaders */
		poll(&pfd, 1, 1);
		serve(x, sv);
	}
}

/* "10.0.0.0/24" of "10.0.0.7/24"; "" when it is not an address with a prefix length */
static void cidr_net(const char *cidr, char *out, size_t len)
{
	unsigned char b[16];
	char a[64];
	const char *slash = strchr(cidr, '/');
	int bits, fam, size;

	out[0] = '\0';
	if (!slash || (size_t)(slash - cidr) >= sizeof(a))
		return;
	snprintf(a, sizeof(a), "%.*s", (int)(slash - cidr), cidr);
	bits = atoi(slash + 1);
	fam = strchr(a, ':') ? AF_INET6 : AF_INET;
	size = fam == AF_INET6 ? 16 : 4;
	if (bits < 0 || bits > size * 8 || inet_pton(fam, a, b) != 1)
		return;
	for (int i = 0; i < size; i++) {
		int keep = bits - i * 8;

		b[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (unsigned char)(0xff << (8 - keep));
	}
	if (inet_ntop(fam, b, a, sizeof(a)))
		snprintf(out, len, "net:%s/%d", a, bits);
}

/* Each host's labels for the sample (cd_reach_peers): its interface names, subnets and naming. */
struct labels {
	char **s;
	const char **v;
	size_t n;
};

static void host_labels(const struct peer *p, struct labels *l)
{
	char names[512] = "names:";

	l->s = xcalloc((size_t)(2 * p->n + 1), sizeof(*l->s));
	l->v = xcalloc((size_t)(2 * p->n + 1), sizeof(*l->v));
	l->n = 0;
	for (int i = 0; i < p->n; i++) {
		int seen = 0;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(p->c[j].iface, p->c[i].iface);
		if (!seen) {
			l->s[l->n++] = xasprintf("if:%s", p->c[i].iface);
			if (strlen(names) + strlen(p->c[i].iface) + 2 < sizeof(names))
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 names[6] ? "," : "", p->c[i].iface);
		}
		if (p->c[i].net[0])
			l->s[l->n++] = xstrdup(p->c[i].net);
	}
	l->s[l->n++] = xstrdup(names);
	for (size_t i = 0; i < l->n; i++)
		l->v[i] = l->s[i];
}

static void labels_free(struct labels *l, int n)
{
	for (int h = 0; h < n; h++) {
		for (size_t i = 0; i < l[h].n; i++)
			free(l[h].s[i]);
		free(l[h].s);
		free(l[h].v);
	}
	free(l);
}

/*
 * The second sample: an interface name whose every attempt of the first round failed is
 * tried on CD_REACH_K2 more hosts that have it, so one bad peer does not condemn the
 * interface, and a name that fails everywhere (docker0) is failed twice over.
 */
static int second_targets(const struct cd_results *r, size_t first, const struct xchg *x, const int *peers,
			  int n_peers, const char *const *const *keys, const size_t *n_keys, struct target *t, int cap)
{
	int n_t = 0;

	for (size_t i = first; i < r->n_reach; i++) {
		const char *iface = r->reach[i].iface;
		int ok = 0, dup = 0, got, out[CD_REACH_K2];
		char key[64];

		for (size_t j = first; j < i && !dup; j++)
			dup = !strcmp(r->reach[j].iface, iface);
		if (dup)
			continue;
		for (size_t j = i; j < r->n_reach; j++)
			ok |= !strcmp(r->reach[j].iface, iface) && r->reach[j].ok == CD_TRI_TRUE;
		if (ok)
			continue;
		snprintf(key, sizeof(key), "if:%s", iface);
		got = cd_reach_second(x->n_hosts, x->me, CD_REACH_SEED, key, keys, n_keys, peers, n_peers, CD_REACH_K2,
				      out);
		for (int k = 0; k < got && n_t < cap; k++) {
			/* the name as the peer spells it, owned by x (the entry's copy goes with the document) */
			const struct peer *p = &x->hosts[out[k]];

			for (int c = 0; c < p->n; c++)
				if (!strcmp(p->c[c].iface, iface)) {
					t[n_t++] = (struct target){ out[k], p->c[c].iface };
					break;
				}
		}
	}
	return n_t;
}

static int leader_setup(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	const struct cd_dist *ds = cd_dist_get();

	if (ds->local_rank != 0)
		return -1; /* one rank per host speaks for it */
	if (ds->n_hosts < 2) {
		char *why = xasprintf("needs two hosts: the %d ranks share one host", ds->nranks);

		cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), why);
		free(why);
		return -1;
	}
	return 0;
}

/*
 * Two rounds whatever the job's size: the sample (ring neighbours, CD_REACH_K hashed peers,
 * and whoever brings an interface name, subnet or naming no peer has), then the second
 * sample of what failed. --reach all, up to CD_REACH_ALL_MAX hosts, makes the first round
 * every other host. Each round ends with a barrier of the hosts.
 */
static void run_reach(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	const struct cd_dist *ds = cd_dist_get();
	struct cd_probe_run *run;
	struct server sv = { .mute = cd_fault_rank("mute_rank") == ds->rank };
	struct xchg x;
	struct labels *lab;
	const char *const **keys;
	size_t *n_keys, first;
	struct target *t;
	int *peers, n_peers, n_t, rounds = 0, failed = 0, all;
	size_t first_round = 0;
	char why[256] = "";
	double t0 = cd_now_s();

	if (leader_setup(d, ctx) < 0)
		return;
	run = cd_probe_new_run(ctx, d, -1, -1);
	run->rank = ctx->rank;
	run->nranks = ds->n_hosts;
	if (exchange(ctx, &x, why, sizeof(why)) < 0 && !x.hosts) {
		run->status = CD_ST_TIMEOUT;
		run->phase = xstrdup("exchange");
		run->reason = xstrdup(why);
		xchg_free(&x);
		return;
	}
	all = ctx->reach_all && x.n_hosts <= CD_REACH_ALL_MAX;
	if (ctx->reach_all && !all)
		cd_warn("tcp.reach: --reach all is for at most %d hosts; %d hosts test a sample", CD_REACH_ALL_MAX,
			x.n_hosts);
	run->variant = xstrdup(all ? "all" : "sample");
	lab = xcalloc((size_t)x.n_hosts, sizeof(*lab));
	keys = xcalloc((size_t)x.n_hosts, sizeof(*keys));
	n_keys = xcalloc((size_t)x.n_hosts, sizeof(*n_keys));
	for (int h = 0; h < x.n_hosts; h++) {
		host_labels(&x.hosts[h], &lab[h]);
		keys[h] = lab[h].v;
		n_keys[h] = lab[h].n;
	}
	peers = xcalloc((size_t)(x.n_hosts > CD_REACH_CAP ? x.n_hosts : CD_REACH_CAP), sizeof(*peers));
	n_peers = 0;
	if (all) {
		for (int h = 0; h < x.n_hosts; h++)
			if (h != x.me)
				peers[n_peers++] = h;
	} else {
		n_peers = cd_reach_peers(x.n_hosts, x.me, CD_REACH_SEED, CD_REACH_K, keys, n_keys, peers, CD_REACH_CAP);
	}
	t = xcalloc((size_t)(n_peers > MAX_CAND * CD_REACH_K2 ? n_peers : MAX_CAND * CD_REACH_K2), sizeof(*t));
	for (int i = 0; i < n_peers; i++)
		t[i] = (struct target){ peers[i], NULL };
	for (int round = 0; round < 2; round++) {
		double deadline = cd_now_s() + ctx->budget_s;

		if (deadline > ctx->end_s)
			deadline = ctx->end_s;
		first = ctx->r->n_reach;
		(void)first;
		n_t = round == 0 ? n_peers
				 : all ? 0 : second_targets(ctx->r, first_round, &x, peers, n_peers, keys, n_keys, t,
							    MAX_CAND * CD_REACH_K2);
		if (round == 0)
			first_round = first;
		if (x.listen_fd >= 0 && n_t)
			reach_round(ctx, &x, &sv, t, n_t, deadline);
		rounds += n_t > 0;
		/* a host without a listener still joins the barriers, so the others do not wait for it */
		if (settle(&x, &sv, deadline) < 0) {
			failed++;
			break;
		}
	}
	server_close(&sv);
	if (why[0]) {
		run->status = CD_ST_ERROR;
		run->reason = xstrdup(why);
	} else if (failed) {
		run->status = CD_ST_TIMEOUT;
		run->phase = xstrdup("round");
		run->reason = xstrdup("the other hosts did not finish the round before the deadline");
	}
	{
		/* the run's one sample: the rounds this host took part in, and how long it took */
		struct cd_probe_sample *s = cd_probe_add_sample(run);

		s->bytes = 0;
		s->iters = rounds;
		s->time_us = (cd_now_s() - t0) * 1e6;
	}
	labels_free(lab, x.n_hosts);
	free(keys);
	free(n_keys);
	free(peers);
	free(t);
	xchg_free(&x);
}

/* ---- tcp.bw ---- */

struct bw_state {
	int fd;
	size_t bytes, sent;
	unsigned long long hdr;
	size_t hdr_sent;
	unsigned char *buf;
};

/* Non-blocking: send what the socket takes, then wait for the one-byte acknowledgement. */
static int bw_start(struct cd_probe_env *env, size_t bytes)
{
	struct bw_state *st = env->priv;

	cd_fault_delay(bytes);
	st->bytes = bytes;
	st->sent = 0;
	st->hdr = bytes;
	st->hdr_sent = 0;
	return 0;
}

static int bw_poll(struct cd_probe_env *env)
{
	struct bw_state *st = env->priv;
	ssize_t w;
	char ack;

	while (st->hdr_sent < sizeof(st->hdr)) {
		w = write(st->fd, (char *)&st->hdr + st->hdr_sent, sizeof(st->hdr) - st->hdr_sent);
		if (w < 0)
			return errno == EAGAIN ? 0 : cd_probe_fail(env, "send: %s", strerror(errno));
		st->hdr_sent += (size_t)w;
	}
	while (st->sent < st->bytes) {
		w = write(st->fd, st->buf + st->sent, st->bytes - st->sent);
		if (w < 0)
			return errno == EAGAIN ? 0 : cd_probe_fail(env, "send: %s", strerror(errno));
		st->sent += (size_t)w;
	}
	w = read(st->fd, &ack, 1);
	if (w == 1)
		return 1;
	if (w == 0)
		return cd_probe_fail(env, "the peer closed the connection");
	return errno == EAGAIN ? 0 : cd_probe_fail(env, "receive: %s", strerror(errno));
}

static const struct cd_probe p_tcp_bw = {
	.name = "tcp.bw", .start = bw_start, .poll = bw_poll, .phase = "send",
};

/* Connect to the first address of peer that answers with its cookie; -1 when none does. */
static int bw_connect(struct xchg *x, struct server *sv, int peer, double deadline, const struct cand **used)
{
	const struct peer *p = &x->hosts[peer];

	for (int i = 0; i < p->n; i++) {
		struct attempt a = { .c = &p->c[i], .keep = 1 };
		double end = cd_now_s() + REACH_TIMEOUT_S;

		if (end > deadline)
			end = deadline;
		att_start(&a, p->port);
		while (a.st != A_DONE && cd_now_s() < end) {
			struct pollfd pfd = { .fd = a.fd, .events = a.st == A_CONNECTING ? POLLOUT : POLLIN };

			if (poll(&pfd, 1, 5) > 0)
				att_step(&a, pfd.revents, x, peer);
			serve(x, sv);
		}
		if (a.st == A_DONE && a.ok && write(a.fd, "B", 1) == 1) {
			*used = &p->c[i];
			return a.fd;
		}
		if (a.fd >= 0)
			close(a.fd);
	}
	return -1;
}

/* The receiving side: find the connection that says 'B', then read, acknowledge, until EOF. */
static void bw_receive(struct xchg *x, double deadline)
{
	const struct peer *me = &x->hosts[x->me];
	size_t cap = 1 << 20;
	unsigned char *buf = xmalloc(cap);
	int fd = -1, pending[MAX_ACCEPTED], np = 0;

	while (fd < 0 && cd_now_s() < deadline) {
		struct pollfd pfd[MAX_ACCEPTED + 1];
		int n = 0;

		pfd[n].fd = x->listen_fd;
		pfd[n++].events = POLLIN;
		for (int i = 0; i < np; i++) {
			pfd[n].fd = pending[i];
			pfd[n++].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)n, 10) <= 0)
			continue;
		for (;;) {
			int c = accept4(x->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			ssize_t w;

			if (c < 0)
				break;
			w = write(c, &me->cookie, sizeof(me->cookie));
			(void)w;
			if (np < MAX_ACCEPTED)
				pending[np++] = c;
			else
				close(c);
		}
		for (int i = 0; i < np; i++) {
			char m;
			ssize_t r = read(pending[i], &m, 1);

			if (r == 1 && m == 'B') {
				fd = pending[i];
				pending[i--] = pending[--np];
			} else if (r == 0 || (r < 0 && errno != EAGAIN)) {
				close(pending[i]);
				pending[i--] = pending[--np];
			}
		}
	}
	for (int i = 0; i < np; i++)
		close(pending[i]);
	while (fd >= 0 && cd_now_s() < deadline) {
		unsigned long long size = 0;
		size_t got = 0, want = sizeof(size);
		int eof = 0;

		/* header, then payload, polled so the deadline holds */
		for (int part = 0; part < 2 && !eof; part++) {
			got = 0;
			while (got < want && cd_now_s() < deadline) {
				struct pollfd pfd = { .fd = fd, .events = POLLIN };
				ssize_t r;

				if (poll(&pfd, 1, 10) <= 0)
					continue;
				r = part == 0 ? read(fd, (char *)&size + got, want - got)
					      : read(fd, buf, want - got < cap ? want - got : cap);
				if (r == 0 || (r < 0 && errno != EAGAIN)) {
					eof = 1;
					break;
				}
				if (r > 0)
					got += (size_t)r;
			}
			if (part == 0)
				want = (size_t)size;
		}
		if (eof || got < want)
			break;
		cd_fault_delay(0);
		if (write(fd, "A", 1) != 1)
			break;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void run_bw(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	const struct cd_dist *ds = cd_dist_get();
	struct server sv = { 0 };
	struct xchg x;
	char why[256] = "";

	if (leader_setup(d, ctx) < 0)
		return;
	if (exchange(ctx, &x, why, sizeof(why)) < 0 && !x.hosts) {
		struct cd_probe_run *run = cd_probe_new_run(ctx, d, -1, -1);

		run->status = CD_ST_TIMEOUT;
		run->phase = xstrdup("exchange");
		run->reason = xstrdup(why);
		xchg_free(&x);
		return;
	}
	for (int round = 0; round < CD_RING_ROUNDS; round++) {
		int init = 0, peer = cd_ring_partner(x.n_hosts, round, x.me, &init);
		double deadline = cd_now_s() + ctx->budget_s;

		if (deadline > ctx->end_s)
			deadline = ctx->end_s;
		if (peer < 0 || x.listen_fd < 0)
			continue;
		if (!init) {
			bw_receive(&x, deadline + 1.0);
		} else {
			const struct cand *used = NULL;
			struct cd_probe_run *run = cd_probe_new_run(ctx, d, -1, cd_dist_leader_rank(peer));
			struct bw_state st = { .fd = bw_connect(&x, &sv, peer, deadline, &used) };
			struct cd_probe_env env = { .device = -1, .peer = cd_dist_leader_rank(peer), .rank = ctx->rank,
						    .nranks = 2, .priv = &st };

			run->rank = ctx->rank;
			if (st.fd < 0) {
				run->status = CD_ST_ERROR;
				run->phase = xstrdup("connect");
				run->reason = xasprintf("no address of %s answered", x.hosts[peer].hostname);
				continue;
			}
			free(run->phase);
			run->phase = NULL;
			{
				int one = 1;

				setsockopt(st.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			}
			{
				struct cd_sweep sw;

				cd_probe_sweep_for(ctx, d, &sw);
				st.buf = xcalloc(1, sw.last ? sw.last : 1);
			}
			cd_probe_run_on(ctx, d, &p_tcp_bw, &env, run);
			if (!run->reason && used)
				run->reason = NULL;
			free(run->host);
			run->host = xasprintf("%s", x.hosts[x.me].hostname);
			cd_debug(1, "tcp.bw: to %s over %s %s", x.hosts[peer].hostname, used ? used->iface : "?",
				 used ? used->addr : "?");
			close(st.fd);
			free(st.buf);
		}
	}
	(void)ds;
	server_close(&sv);
	xchg_free(&x);
}

#else /* !CD_HAVE_MPI */

static void no_mpi(const struct cd_probe_def *d, struct cd_probe_ctx *ctx)
{
	cd_probe_skip(cd_probe_new_run(ctx, d, -1, -1), "this commdiag was built without MPI (MPI=0)");
}
#define run_reach no_mpi
#define run_bw no_mpi

#endif

const struct cd_probe_def cd_probe_tcp_reach = {
	.name = "tcp.reach",
	.summary = "TCP from every host to every address of a bounded sample of other hosts: the reachability matrix",
	.needs = NEED_RANKS2,
	.sets = CD_SETS_ALL,
	.min = "1",
	.max = "1",
	.warmup = 0,
	.iters = 1,
	.run = run_reach,
};
const struct cd_probe_def cd_probe_tcp_bw = {
	.name = "tcp.bw",
	.summary = "TCP bandwidth between ring neighbours over the first address that reaches the peer",
	.needs = NEED_RANKS2,
	.sets = CD_SET_DEFAULT | CD_SET_FULL,
	.min = "64K",
	.max = "16M",
	.warmup = 2,
	.iters = 5,
	.run = run_bw,
};
