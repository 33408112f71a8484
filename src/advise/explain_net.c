/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Candidate causes of an RDMA failure, from facts spread over many lines. One error line
 * (status 12, an ibv_modify_qp timeout) fits several causes; the INFO lines around it
 * tell them apart: the link layer NCCL chose (a GID only exists on RoCE), the GID index
 * each QP used and whether it is link-local or IPv4-mapped, the MTU each host reports,
 * whether GPUDirect RDMA is on (ACS only matters to peer DMA into GPU memory).
 *
 * Formats followed (NVIDIA/nccl src/transport/net_ib.cc, src/graph/paths.cc):
 *   "NET/IB : Using%s %s; OOB %s:%s" with "[%d]%s:%d/%s" per device (IB or RoCE), v2.18.6-1 … v2.29.7-1
 *   "NET/IB: Dev %d Port %d qpn %d mtu %d LID %d" / "… mtu %d GID %ld (%lX/%lX)", v2.18.6-1
 *   "NET/IB: %s %d IbDev %d Port %d qpn %d mtu %d LID %d subnet-prefix …" / "… mtu %d GID %ld
 *   (%lX/%lX) fifoRkey=…", v2.23.4-1 … v2.27.7-1; "NET/IB: %s: %s %d IbDev %d Port %d qp_num %d
 *   mtu %d …", v2.29.7-1. mtu is the verbs enum (1 = 256 … 5 = 4096); the GID is the index in
 *   use; its prefix is printed as a little-endian u64, so fe80:: reads "80FE", ::ffff:a.b.c.d "0".
 *   "GPU Direct RDMA Enabled for …" / "GPU Direct RDMA Disabled for …", v2.18.6-1 … v2.29.7-1.
 *   ibv_devinfo's "active_mtu:  4096 (5)"; lspci -vvv's "ACSCtl: … ReqRedir+ CmpltRedir+";
 *   the kernel's "iommu: Default domain type: Translated".
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "explain_net.h"

#define NET_HOSTS 64
#define NET_LINE 200

struct net_host {
	char name[128];
	int roce, ib;        /* link layers seen */
	long gid_index;      /* in use (QP line), -1 unknown */
	int gid_linklocal;   /* 1 fe80::, 0 IPv4-mapped, -1 unknown */
	char gid_env[32];    /* NCCL_IB_GID_INDEX set by environment */
	long mtu;            /* bytes; 0 unknown */
	long dev_mtu[8];     /* per NCCL IB device index (the [d] of "NET/IB : Using"), bytes; 0 unknown */
	int gid_fe80;        /* a completion error's localGid is fe80:: */
	int gdr_on, gdr_off, acs, iommu;
};

struct cd_net {
	struct net_host h[NET_HOSTS];
	int n;
	int st12, st4, access, qp_fail, qp_timeout, other;
	char first_error[NET_LINE];
};

enum { C_GID, C_LINK, C_ACS, C_MTU, N_CAND };

/* What each candidate is, the advice that already names its fix, and the fix itself. */
static const struct {
	const char *name, *keyword, *fix;
} cand[N_CAND] = {
	[C_GID] = { "RoCE GID index or routing", "GID_INDEX",
		    "show_gids on both hosts: export NCCL_IB_GID_INDEX set to the RoCE v2 GID with an IPv4 address "
		    "(commdiag check on the host computes it), then check that the two NICs route to each other "
		    "(same subnet or a route; NCCL_CROSS_NIC=0 on rail fabrics)" },
	[C_LINK] = { "InfiniBand link, cable or subnet manager", "ibstat",
		     "ibstat and ibdiagnet on both hosts: a port down or flapping, symbol or link-recovery errors "
		     "(perfquery), the subnet manager (sminfo); a longer NCCL_IB_TIMEOUT only rides a flaky link out" },
	[C_ACS] = { "PCIe ACS or the IOMMU blocking GPUDirect RDMA", "ACS",
		    "disable PCIe ACS redirect on the switches between GPU and HCA (BIOS, or setpci on each bridge; "
		    "commdiag check lists them) and put the IOMMU in passthrough (iommu=pt); to confirm, run once with "
		    "NCCL_NET_GDR_LEVEL=LOC" },
	[C_MTU] = { "MTU mismatch between hosts", "MTU",
		    "give every host's RDMA port (and the switch ports) the same MTU (ip link set <netdev> mtu …; "
		    "ibv_devinfo shows active_mtu), then rerun" },
};

struct cd_net *cd_net_new(void)
{
	return xcalloc(1, sizeof(struct cd_net));
}

void cd_net_free(struct cd_net *n)
{
	free(n);
}

static struct net_host *host_of(struct cd_net *n, const char *name)
{
	struct net_host *h;

	name = name ? name : "";
	for (int i = 0; i < n->n; i++)
		if (!strcmp(n->h[i].name, name))
			return &n->h[i];
	if (n->n == NET_HOSTS)
		return &n->h[NET_HOSTS - 1]; /* past the table: facts pool on the last one */
	h = &n->h[n->n++];
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->gid_index = -1;
	h->gid_linklocal = -1;
	return h;
}

/* The verbs MTU enum NCCL prints (1 = 256 … 5 = 4096) in bytes; 0 for anything else. */
static long mtu_bytes(long e)
{
	return e >= 1 && e <= 5 ? 128L << e : 0;
}

/* A completion status in any of NCCL's forms: "error 12,", "status=12 ", "status=NAME(12)". */
static int status_is(const char *line, const char *code)
{
	char a[24], b[24], c[24];

	snprintf(a, sizeof(a), "error %s,", code);
	snprintf(b, sizeof(b), "status=%s ", code);
	snprintf(c, sizeof(c), "(%s)", code);
	return strstr(line, a) || strstr(line, b) || (strstr(line, "status=") && strstr(line, c));
}

/*
 * "… NET/IB … mtu 5 GID 3 (80FE/…)" or "… mtu 5 LID 7 …": the QP a host opened (2.21 and
 * 2.22 print "query_ece={…}" between the MTU and the GID).
 */
static void qp_line(struct net_host *h, const char *line, const char *m)
{
	char *end;
	const char *g, *d = strstr(line, "IbDev ") ? strstr(line, "IbDev ") + 6 : strstr(line, " Dev ") + 5;
	long e = strtol(m + 5, &end, 10), dev = isdigit((unsigned char)*d) ? strtol(d, NULL, 10) : -1;

	if (end == m + 5)
		return;
	if (mtu_bytes(e))
		h->mtu = mtu_bytes(e);
	if (mtu_bytes(e) && dev >= 0 && dev < 8)
		h->dev_mtu[dev] = mtu_bytes(e);
	if (!strncmp(end, " LID ", 5)) {
		h->ib = 1;
	} else if ((g = strstr(end, " GID ")) && isdigit((unsigned char)g[5])) {
		const char *p = g + 5;

		h->roce = 1;
		h->gid_index = strtol(p, NULL, 10);
		if ((p = strchr(p, '(')))
			h->gid_linklocal = !strncmp(p, "(80FE/", 6) ? 1 : !strncmp(p, "(0/", 3) ? 0 : h->gid_linklocal;
	}
}

/*
 * A completion error names the GIDs (" localGid fe80::… remoteGid …", since 2.18): an
 * IPv4-mapped one exists only on RoCE v2; fe80:: is what InfiniBand always has, so it
 * says "link-local" only where the link layer is known to be RoCE.
 */
static void completion_gid(struct net_host *h, const char *line)
{
	const char *g = strstr(line, " localGid ");
	size_t skip = 10;

	/* ibv_modify_qp's failure on the way to RTR says ", local GID index %d, local GID %s" (2.19 and later) */
	if (!g && (g = strstr(line, ", local GID ")) && !strncmp(g + 12, "index", 5))
		g = strstr(g + 12, ", local GID ");
	if (g && !strncmp(g, ", local GID ", 12))
		skip = 12;
	if (!g)
		return;
	if (!strncmp(g + skip, "::ffff:", 7)) {
		h->roce = 1;
		h->gid_linklocal = 0;
	} else if (!strncmp(g + skip, "fe80:", 5) && h->gid_linklocal < 0) {
		h->gid_fe80 = 1;
	}
}

void cd_net_line(struct cd_net *n, const char *host, const char *line)
{
	struct net_host *h = host_of(n, host);
	const char *p;
	int err = 0;

	if ((p = strstr(line, "NET/IB : Using ")) && strchr(p, '[')) {
		for (const char *s = strchr(p, '['); s && *s && *s != ';'; s++)
			if (!strncmp(s, "/RoCE", 5))
				h->roce = 1;
			else if (!strncmp(s, "/IB", 3) && !isalnum((unsigned char)s[3]))
				h->ib = 1;
	} else if (strstr(line, "NET/IB") && (p = strstr(line, " mtu ")) && strstr(line, "Port ") && strstr(line, "Dev ")) {
		qp_line(h, line, p);
	} else if ((p = strstr(line, "active_mtu:"))) {
		const char *q = strchr(p, '(');
		long v = q ? mtu_bytes(strtol(q + 1, NULL, 10)) : strtol(p + 11, NULL, 10);

		if (v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096)
			h->mtu = v;
	} else if ((p = strstr(line, "NCCL_IB_GID_INDEX set by environment to "))) {
		snprintf(h->gid_env, sizeof(h->gid_env), "%.*s", (int)strspn(p + 40, "-0123456789"), p + 40);
	} else if (strstr(line, "GPU Direct RDMA Enabled for") || (strstr(line, "via NET/IB") && strstr(line, "GDRDMA"))) {
		h->gdr_on = 1;
	} else if (strstr(line, "GPU Direct RDMA Disabled for")) {
		h->gdr_off = 1;
	} else if (strstr(line, "ACSCtl:") && (strstr(line, "ReqRedir+") || strstr(line, "CmpltRedir+"))) {
		h->acs = 1;
	} else if (strstr(line, "Default domain type: Translated") || strstr(line, "DMAR: IOMMU enabled")) {
		h->iommu = 1;
	}

	if (strstr(line, "Got completion") || strstr(line, "retry counter exceeded")) {
		completion_gid(h, line);
		if (status_is(line, "12") || strstr(line, "transport retry counter exceeded"))
			n->st12 = err = 1;
		else if (status_is(line, "4"))
			n->st4 = err = 1;
		else
			n->other = err = 1;
	} else if (strstr(line, "local access violation")) {
		n->access = err = 1;
	} else if (strstr(line, "ibv_modify_qp failed") && !strstr(line, ", retrying ")) {
		/* NCCL 2.26+ retries ETIMEDOUT at INFO ("…, retrying %d/%d after %u msec of sleep",
		   misc/ibvwrap.cc): only the WARN without it, when the retries ran out, failed */
		completion_gid(h, line);
		n->qp_fail = err = 1;
		n->qp_timeout |= strstr(line, "failed with 110 ") || strstr(line, "Connection timed out");
	}
	if (err && !*n->first_error)
		snprintf(n->first_error, sizeof(n->first_error), "%s", line);
}

void cd_net_to_hosts(const struct cd_net *n, struct cd_results *r)
{
	for (int i = 0; i < n->n; i++)
		for (size_t k = 0; k < r->n_hosts; k++) {
			struct cd_host *h = &r->hosts[k];

			if (!h->hostname || strcmp(h->hostname, n->h[i].name))
				continue;
			for (size_t d = 0; d < h->n_hcas && d < 8; d++)
				if (n->h[i].dev_mtu[d] && h->hcas[d].n_ports)
					h->hcas[d].ports[0].mtu_bytes = n->h[i].dev_mtu[d];
		}
}

int cd_net_has_error(const struct cd_net *n)
{
	return n->st12 || n->st4 || n->access || n->qp_fail || n->other;
}

struct weighed {
	int on, ruled_out, score;
	int support; /* facts for it beyond the error line: its notes for, less the restated ones, and a strong one */
	int strong; /* a fact that by itself is the cause (two MTUs): counts twice */
	int restated; /* notes "for" that only restate the error: support, but not a fact beyond it */
	char why[2][4][NET_LINE]; /* [0] for, [1] against */
	int k[2];
};

static void note(struct weighed *w, int against, const char *fmt, const char *a, const char *b)
{
	/* a cut line is still evidence: the host list is the part that may be long */
	if (w->k[against] < 4 && snprintf(w->why[against][w->k[against]], NET_LINE, fmt, a ? a : "", b ? b : "") >= 0)
		w->k[against]++;
}

/* A note for that only restates the error line: listed, but no support beyond the error. */
static void restate(struct weighed *w, const char *fmt)
{
	int k = w->k[0];

	note(w, 0, fmt, NULL, NULL);
	w->restated += w->k[0] > k;
}

/* The hosts with a fact, "a, b" (at most three named). */
static void hosts_with(const struct cd_net *n, int (*has)(const struct net_host *), char *buf, size_t len)
{
	size_t used = 0;
	int k = 0;

	*buf = '\0';
	for (int i = 0; i < n->n; i++)
		if (has(&n->h[i]) && k++ < 3 && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 *n->h[i].name ? n->h[i].name : "the log");
}

static int is_roce(const struct net_host *h) { return h->roce; }
static int is_ib(const struct net_host *h) { return h->ib; }
static int gdr_on(const struct net_host *h) { return h->gdr_on; }
static int gdr_only_off(const struct net_host *h) { return h->gdr_off && !h->gdr_on; }
static int acs_on(const struct net_host *h) { return h->acs; }
static int iommu_on(const struct net_host *h) { return h->iommu; }
static int gid_ll(const struct net_host *h) { return h->gid_linklocal == 1 || (h->gid_fe80 && h->roce); }
static int gid_v4(const struct net_host *h) { return h->gid_linklocal == 0; }
static int gid_env(const struct net_host *h) { return *h->gid_env != '\0'; }

static void weigh_gid(const struct cd_net *n, struct weighed *w)
{
	char hs[NET_LINE];

	w->on = n->st12 || n->qp_fail;
	hosts_with(n, is_roce, hs, sizeof(hs));
	if (*hs)
		note(w, 0, "link layer RoCE on %s: packets reach the peer only through the GID NCCL picks%s", hs, NULL);
	if (n->st12)
		restate(w, "completions timed out (status 12, transport retry exceeded): nothing came back%s%s");
	if (n->qp_timeout)
		note(w, 0, "ibv_modify_qp timed out (110) on the way to RTR: the peer's GID is unreachable%s%s", NULL, NULL);
	hosts_with(n, gid_ll, hs, sizeof(hs));
	if (*hs)
		note(w, 0, "the GID index in use on %s is link-local (fe80::): RoCE v1 or no IPv4 address, not routable%s",
		     hs, NULL);
	hosts_with(n, gid_env, hs, sizeof(hs));
	if (*hs)
		note(w, 0, "NCCL_IB_GID_INDEX is set by environment on %s: a fixed index breaks when the GID table differs%s",
		     hs, NULL);
	hosts_with(n, is_ib, hs, sizeof(hs));
	if (*hs) {
		char roce[NET_LINE];

		hosts_with(n, is_roce, roce, sizeof(roce));
		if (!*roce) {
			note(w, 1, "link layer InfiniBand on %s: the LID routes, no GID index is involved%s", hs, NULL);
			w->ruled_out = 1;
		}
	}
	hosts_with(n, gid_v4, hs, sizeof(hs));
	if (*hs)
		note(w, 1, "the GID index in use on %s is IPv4-mapped (RoCE v2): the right kind of GID%s", hs, NULL);
}

static void weigh_link(const struct cd_net *n, struct weighed *w)
{
	char hs[NET_LINE];
	int any_ib = 0;

	w->on = n->st12 || n->qp_fail;
	hosts_with(n, is_ib, hs, sizeof(hs));
	any_ib = *hs != '\0';
	if (any_ib)
		note(w, 0, "link layer InfiniBand on %s%s", hs, NULL);
	if (n->st12)
		restate(w, "completions timed out (status 12): packets lost on the link or never acknowledged%s%s");
	hosts_with(n, is_roce, hs, sizeof(hs));
	if (*hs && !any_ib)
		note(w, 1, "link layer RoCE on %s: Ethernet, no subnet manager; a GID or route fails the same way%s", hs,
		     NULL);
}

static void weigh_acs(const struct cd_net *n, struct weighed *w)
{
	char hs[NET_LINE];
	int on_any;

	w->on = n->st4 || n->access;
	if (n->st4)
		restate(w, "completion status 4 (local protection): the HCA could not DMA the registered buffer%s%s");
	if (n->access)
		restate(w, "async event \"local access violation\": a DMA into registered memory was refused%s%s");
	hosts_with(n, gdr_on, hs, sizeof(hs));
	on_any = *hs != '\0';
	if (on_any)
		note(w, 0, "GPUDirect RDMA is on (%s): the HCA writes GPU memory across the PCIe switches%s", hs, NULL);
	hosts_with(n, acs_on, hs, sizeof(hs));
	if (*hs)
		note(w, 0, "ACS redirect is on (ACSCtl ReqRedir+/CmpltRedir+) on %s%s", hs, NULL);
	hosts_with(n, iommu_on, hs, sizeof(hs));
	if (*hs)
		note(w, 0, "the IOMMU translates DMA (not passthrough) on %s%s", hs, NULL);
	hosts_with(n, gdr_only_off, hs, sizeof(hs));
	if (*hs && !on_any) {
		note(w, 1, "GPUDirect RDMA is disabled on %s: the HCA does not DMA into GPU memory%s", hs, NULL);
		w->ruled_out = 1;
	}
}

static void weigh_mtu(const struct cd_net *n, struct weighed *w)
{
	const struct net_host *a = NULL, *b = NULL;
	char buf[NET_LINE], va[24], vb[24];

	for (int i = 0; i < n->n; i++)
		if (n->h[i].mtu && !a)
			a = &n->h[i];
		else if (n->h[i].mtu && a && n->h[i].mtu != a->mtu && !b)
			b = &n->h[i];
	w->on = a != NULL && cd_net_has_error(n);
	if (!a)
		return;
	snprintf(va, sizeof(va), "%ld", a->mtu);
	if (b) {
		snprintf(vb, sizeof(vb), "%ld", b->mtu);
		snprintf(buf, sizeof(buf), "%.60s reports MTU %s, %.60s MTU %s", *a->name ? a->name : "the log", va,
			 *b->name ? b->name : "the log", vb);
		note(w, 0, "%s%s", buf, ": larger frames are dropped");
		w->strong = 1;
	} else {
		int hosts = 0;

		for (int i = 0; i < n->n; i++)
			hosts += n->h[i].mtu != 0;
		note(w, 1, hosts > 1 ? "every host reports MTU %s%s" : "only one host's MTU (%s) is in the log%s", va,
		     NULL);
		w->ruled_out = hosts > 1;
	}
}

const char *cd_net_candidates(const struct cd_net *n, struct cd_finding *f)
{
	struct weighed w[N_CAND];
	int order[N_CAND], k = 0;

	if (!cd_net_has_error(n))
		return NULL;
	memset(w, 0, sizeof(w));
	weigh_gid(n, &w[C_GID]);
	weigh_link(n, &w[C_LINK]);
	weigh_acs(n, &w[C_ACS]);
	weigh_mtu(n, &w[C_MTU]);
	for (int c = 0; c < N_CAND; c++) {
		/* a restated error line supports no candidate, in the order and in the guard below */
		w[c].support = w[c].k[0] - w[c].restated + w[c].strong;
		w[c].score = w[c].support - w[c].k[1] - (w[c].ruled_out ? 100 : 0);
		if (w[c].on)
			order[k++] = c;
	}
	if (!k)
		return NULL;
	/* stable: on equal evidence the table's order (GID before the link, as NCCL's users meet them) */
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && w[order[j]].score > w[order[j - 1]].score; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (w[order[0]].ruled_out)
		return NULL; /* everything the error fits is ruled out: no candidate to put first */
	if (w[order[0]].support <= 0)
		return NULL; /* nothing beyond the error line: any candidate first would be a guess */
	if (!f)
		return cand[order[0]].name;
	cd_finding_evidence(f, "error: %s", n->first_error);
	for (int i = 0; i < k; i++) {
		const struct weighed *c = &w[order[i]];

		if (c->ruled_out)
			cd_finding_evidence(f, "x. %s (ruled out)", cand[order[i]].name);
		else
			cd_finding_evidence(f, "%d. %s", i + 1, cand[order[i]].name);
		for (int s = 0; s < 2; s++)
			for (int j = 0; j < c->k[s]; j++)
				cd_finding_evidence(f, "   %s %s", s ? "against:" : "for:", c->why[s][j]);
		if (!c->k[0] && !c->k[1])
			cd_finding_evidence(f, "   for: nothing beyond the error line itself");
	}
	return cand[order[0]].name;
}

/* ---- the advice, after the tree ---- */

static int advice_names(const struct cd_advice *a, const char *word)
{
	return (a->env && strstr(a->env, word)) || (a->value && strstr(a->value, word));
}

/*
 * Advice a specific catalogue entry gave: its message and its require/rule_out lines
 * matched, which says more than the weighing of general facts does (the rail case: an
 * IPv4-mapped GID timing out on the way to RTR is routing between rails, not the index).
 */
static int from_catalogue(const struct cd_advice *a)
{
	for (size_t k = 0; k < a->path.n; k++)
		if (!strncmp(a->path.v[k], "cause catalogue [", 17))
			return 1;
	return 0;
}

/* Move advice i up, to the front but behind what specific catalogue entries gave. */
static void to_front(struct cd_results *r, size_t i)
{
	struct cd_advice t = r->advice[i];
	size_t at = 0;

	while (at < i && from_catalogue(&r->advice[at]))
		at++;
	if (at >= i)
		return;
	memmove(&r->advice[at + 1], &r->advice[at], (i - at) * sizeof(t));
	r->advice[at] = t;
}

void cd_net_order_advice(struct cd_results *r)
{
	const struct cd_finding *f = NULL;
	int best = -1, gid_out = 0;
	size_t i;

	/* several logs in one document: the first log's candidates order the advice (one list) */
	for (i = 0; i < r->n_findings && !f; i++)
		if (!strcmp(r->findings[i].id, "LOG030"))
			f = &r->findings[i];
	if (!f || !f->subject)
		return;
	for (int c = 0; c < N_CAND; c++)
		if (!strcmp(f->subject, cand[c].name))
			best = c;
	for (i = 0; i < f->evidence.n; i++)
		gid_out |= !strncmp(f->evidence.v[i], "x. ", 3) && strstr(f->evidence.v[i], cand[C_GID].name);
	/* InfiniBand proven: a GID index is no fix, whoever proposed it */
	for (i = r->n_advice; gid_out && i-- > 0;)
		if (advice_names(&r->advice[i], "GID_INDEX") || advice_names(&r->advice[i], "show_gids"))
			cd_results_drop_advice(r, i);
	if (best < 0)
		return;
	for (i = 0; i < r->n_advice; i++)
		if (advice_names(&r->advice[i], cand[best].keyword))
			break;
	if (i == r->n_advice) {
		struct cd_advice *a = cd_results_add_advice(r);
		char *step = xasprintf("candidate causes (LOG030): %s, best supported", cand[best].name);

		a->value = xstrdup(cand[best].fix);
		cd_strv_push(&a->findings, "LOG030");
		cd_strv_push(&a->path, step);
		free(step);
		a->why = xasprintf("of the causes the RDMA error fits, the log's other lines support %s best (LOG030 lists "
				   "the evidence for and against each)", cand[best].name);
	}
	to_front(r, i);
}
