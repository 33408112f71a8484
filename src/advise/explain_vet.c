/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * explain's last step over the advice (cd_explain_vet): no setting for a network that no
 * line of the log shows failing, and no second fix from the tree for a line the catalogue
 * already gave one for. Issue 17: "network settings only from network errors".
 */
#include <string.h>

#include "explain.h"
#include "explain_catalog.h"
#include "explain_net.h"
#include "results.h"
#include "util.h"

/*
 * Which network failed, by the findings that say so. A socket error (bootstrap, Open MPI's
 * TCP, a port, a virtual interface) supports socket-interface settings; an RDMA error
 * (completions, queue pairs, NET/OFI) supports HCA, GID and rail settings. Neither supports
 * the other's: a bootstrap connect failure says nothing about which HCAs NCCL should use.
 * ENV006 (a set interface variable selects nothing usable) supports both: its subject is the
 * variable, whichever it is.
 */
enum { NET_SOCKET = 1, NET_RDMA = 2 };

static int in_list(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return 1;
	return 0;
}

/* An advice item the cause catalogue gave (its path starts there), not the tree. */
static int from_catalogue(const struct cd_advice *a)
{
	return a->path.n && !strncmp(a->path.v[0], "cause catalogue", 15);
}

/* The catalogue entry a finding's evidence or an advice's path cites ("cause catalogue [id]: …"). */
static const struct cd_cause *cited_entry(const char *s)
{
	const struct cd_causes *c = cd_causes_default();
	const char *id = !strncmp(s, "cause catalogue [", 17) ? s + 17 : NULL;
	size_t n = id ? strcspn(id, "]") : 0;

	for (size_t i = 0; c && id && id[n] == ']' && i < c->n; i++)
		if (strlen(c->v[i].id) == n && !strncmp(c->v[i].id, id, n))
			return &c->v[i];
	return NULL;
}

/*
 * Does the log show a cause that is not the network (rules/README-causes.md's classes): a
 * release bug, a build, the program, the scheduler's kill, a GPU fault or driver, memory,
 * shared memory, the launcher, versions? Then the other ranks' closed connections are its
 * consequence. Not "peer-died", "nccl-result" or "timeout": they name no cause.
 */
static int other_cause(const struct cd_results *r)
{
	static const char *const cls[] = { "release",  "build",       "program", "scheduler", "cuda-fault",
					   "cuda-driver", "gpu-arch", "memory",  "memory-host", "memory-limit",
					   "shm",      "nvls",        "p2p",     "launcher",  "versions",
					   "setting-graph" };
	const struct cd_cause *e;

	for (size_t i = 0; i < r->n_findings; i++)
		for (size_t k = 0; k < r->findings[i].evidence.n; k++)
			if ((e = cited_entry(r->findings[i].evidence.v[k])) && !e->generic &&
			    in_list(e->cls, cls, ARRAY_SIZE(cls)))
				return 1;
	for (size_t i = 0; i < r->n_advice; i++)
		if (r->advice[i].path.n && (e = cited_entry(r->advice[i].path.v[0])) && !e->generic &&
		    in_list(e->cls, cls, ARRAY_SIZE(cls)))
			return 1;
	return 0;
}

/*
 * A line that says a peer went away (closed the socket, flushed the queue pair): a peer-died
 * entry of the catalogue matches it, or it is NCCL's "Connection closed by remote peer" in
 * any release (include/socket.h up to 2.11 prints it after "Net : ", which no entry lists).
 */
static int peer_gone_line(const char *line)
{
	const struct cd_causes *c = cd_causes_default();

	if (strstr(line, "Connection closed by remote peer"))
		return 1;
	for (size_t i = 0; c && i < c->n; i++)
		for (int k = 0; !strcmp(c->v[i].cls, "peer-died") && k < c->v[i].n_match; k++)
			if (cd_cause_match(c->v[i].match[k], line))
				return 1;
	return 0;
}

/* Is every line of finding f a peer going away (its evidence besides the catalogue's notes)? */
static int only_peer_gone(const struct cd_finding *f)
{
	int lines = 0;

	for (size_t k = 0; k < f->evidence.n; k++) {
		const char *e = f->evidence.v[k];

		if (cd_explain_note(e))
			continue;
		if (!peer_gone_line(e))
			return 0;
		lines++;
	}
	return lines > 0;
}

static int network_errors(const struct cd_results *r)
{
	static const char *const sock[] = { "LOG003", "LOG010", "LOG015", "LOG019", "LOG023" };
	static const char *const rdma[] = { "LOG007", "LOG016", "LOG020" };
	int kinds = 0, other = other_cause(r);

	for (size_t i = 0; i < r->n_findings; i++) {
		const char *id = r->findings[i].id;

		/*
		 * Issue 17: a connection the peer closed after a cause that is not the network
		 * (NCCL 2.11's remote allocator, nccl#844; a GPU fault, a scheduler kill) is that
		 * cause's consequence, not a network error: it supports no network setting.
		 */
		if (other && only_peer_gone(&r->findings[i]))
			continue;
		if (!strcmp(id, "ENV006"))
			kinds |= NET_SOCKET | NET_RDMA;
		if (in_list(id, sock, ARRAY_SIZE(sock)))
			kinds |= NET_SOCKET;
		if (in_list(id, rdma, ARRAY_SIZE(rdma)))
			kinds |= NET_RDMA;
	}
	return kinds;
}

/*
 * The network an export (or a command) picks for a library: NET_SOCKET for interfaces,
 * NET_RDMA for HCAs, GIDs and rails (UCX_NET_DEVICES names either), 0 for anything else.
 */
static int network_setting(const struct cd_advice *a)
{
	static const struct {
		const char *var;
		int kind;
	} vars[] = {
		{ "NCCL_SOCKET_IFNAME", NET_SOCKET },
		{ "GLOO_SOCKET_IFNAME", NET_SOCKET },
		{ "TP_SOCKET_IFNAME", NET_SOCKET },
		{ "NCCL_SOCKET_FAMILY", NET_SOCKET },
		{ "UCX_NET_DEVICES", NET_SOCKET | NET_RDMA }, /* by its value: HCA ports or interfaces */
		{ "NCCL_IB_GID_INDEX", NET_RDMA },
		{ "NCCL_IB_HCA", NET_RDMA },
		{ "NCCL_CROSS_NIC", NET_RDMA },
	};

	if (from_catalogue(a))
		return 0; /* the catalogue advises only from the error line it matched */
	if (a->env && !a->value)
		return 0; /* unset: the log showed the variable set, and it is wrong */
	for (size_t k = 0; k < ARRAY_SIZE(vars); k++) {
		if (!(a->env ? !strcmp(a->env, vars[k].var) : a->value && strstr(a->value, vars[k].var)))
			continue;
		if (vars[k].kind == (NET_SOCKET | NET_RDMA) && a->env && a->value)
			return strchr(a->value, ':') ? NET_RDMA : NET_SOCKET; /* mlx5_0:1, or eth0 */
		return vars[k].kind;
	}
	return a->env && !strncmp(a->env, "OMPI_MCA_", 9) && strstr(a->env, "_if_") ? NET_SOCKET : 0;
}

static int has_finding(const struct cd_advice *a, const char *id)
{
	for (size_t k = 0; k < a->findings.n; k++)
		if (!strcmp(a->findings.v[k], id))
			return 1;
	return 0;
}

/* Did the catalogue give its own fix for finding id? */
static int catalogue_advised(const struct cd_results *r, const char *id)
{
	for (size_t i = 0; i < r->n_advice; i++)
		if (from_catalogue(&r->advice[i]) && has_finding(&r->advice[i], id))
			return 1;
	return 0;
}

/*
 * The tree's advice for findings the catalogue already gave a fix for: the entry read the
 * line (ENOSPC, EACCES, the /proc fd link), the tree knows only the id (LOG004: "a small
 * /dev/shm"), so one line would get two fixes, the second often for another cause.
 */
static void drop_tree_repeats(struct cd_results *r)
{
	/*
	 * Only the leaves that read nothing but the id: LOG004's small /dev/shm, LOG005's IOMMU
	 * and NCCL_P2P_DISABLE (a log rarely shows the IOMMU; after vLLM's, FlashInfer's or
	 * TensorRT-LLM's own IPC fix they are a second guess at another library), LOG006's
	 * set_device, LOG008's memlock, LOG012's fabric manager (after an entry's fix for the same
	 * finding: the manager's exact version, an IMEX channel, a clique), LOG013's cuMem host
	 * memory, LOG014's NCCL_NVLS_ENABLE
	 * (after Transformer Engine's or NVSHMEM's multicast fix, a setting of a library that may
	 * not have run), and LOG003's where the log
	 * lists no interface (no variable: "run check and export the NCCL_SOCKET_IFNAME it
	 * recommends"), which after a catalogue entry's fix for the same failure (a PyTorch
	 * store that MASTER_ADDR does not reach, mpirun's daemons) only adds a setting of a
	 * library that never ran. The others compute their advice from facts across lines (the
	 * interface LOG003 names, the addresses LOG010 excludes, LOG001's SeqNums) and stay.
	 */
	static const char *const ids[] = { "LOG004", "LOG005", "LOG006", "LOG008", "LOG012", "LOG013", "LOG014" };

	for (size_t i = r->n_advice; i-- > 0;) {
		const struct cd_advice *a = &r->advice[i];
		size_t k = 0;

		if (!a->findings.n || from_catalogue(a))
			continue;
		while (k < a->findings.n &&
		       (in_list(a->findings.v[k], ids, ARRAY_SIZE(ids)) || (!a->env && !strcmp(a->findings.v[k], "LOG003"))) &&
		       catalogue_advised(r, a->findings.v[k]))
			k++;
		if (k == a->findings.n)
			cd_results_drop_advice(r, i);
	}
}

/*
 * A catalogue fix comes before the tree's for the same finding (it read the line), except
 * where the tree computed an interface or HCA setting from the log's facts and the entry can
 * only describe it: LOG010's OMPI_MCA_btl_tcp_if_exclude with the addresses the peers failed
 * on, after the entry's "btl_tcp_if_include=<that interface>". The value is the fix; the
 * entry's text stays, second, as what it means. Not other exports: the tree's NCCL_DEBUG
 * after a timeout collects evidence, and its NCCL_P2P_DISABLE is a workaround.
 */
static void computed_first(struct cd_results *r)
{
	for (size_t i = 1; i < r->n_advice; i++) {
		struct cd_advice a = r->advice[i];
		size_t j = 0;

		if (!a.env || a.findings.n != 1 || !network_setting(&a)) /* an export with a value */
			continue;
		while (j < i && !(from_catalogue(&r->advice[j]) && !r->advice[j].env &&
				  has_finding(&r->advice[j], a.findings.v[0])))
			j++;
		if (j == i)
			continue;
		memmove(&r->advice[j + 1], &r->advice[j], (i - j) * sizeof(*r->advice));
		r->advice[j] = a;
	}
}

void cd_explain_vet(struct cd_results *r)
{
	int failed;

	drop_tree_repeats(r);
	computed_first(r);
	cd_net_order_advice(r); /* the best supported candidate's fix first */
	failed = network_errors(r);
	for (size_t i = r->n_advice; i-- > 0;) {
		int kind = network_setting(&r->advice[i]);

		if (kind && !(kind & failed))
			cd_results_drop_advice(r, i);
	}
}
