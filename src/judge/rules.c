/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule table: C predicates over the results document that append findings.
 * Ids are stable and never reused; each is documented in man/commdiag.1.
 * Thresholds come from rules/ (conf.c); a rule whose data is absent says nothing,
 * and its group is listed as not evaluated, with the reason, in the document.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "rules.h"
#include "rules_eval.h"
#include "rules_hosts.h"
#include "scope.h"


double key(const struct cd_eval *e, enum cd_key k)
{
	return cd_conf_get(e->c, k);
}

double pct(const struct cd_eval *e, enum cd_key k)
{
	return cd_conf_get(e->c, k) / 100.0;
}

/* A finding with its numbers and the threshold key that set `expected`. */
struct cd_finding *add(struct cd_eval *e, const char *id, enum cd_severity sev, const char *host,
			      const char *subject, const char *title, double measured, double expected,
			      const char *unit, enum cd_key k)
{
	struct cd_finding *f = cd_results_add_finding(e->r, id, sev, host, subject, title);

	f->measured = measured;
	f->expected = expected;
	f->unit = xstrdup(unit);
	if (k != CD_K_NONE)
		f->threshold = xstrdup(cd_conf_key(k)->name);
	return f;
}

const char *probe_host_name(const struct cd_results *r, const struct cd_probe_run *p)
{
	const struct cd_host *h = cd_probe_host(r, p);

	return p->host ? p->host : h ? h->hostname : NULL;
}

/* "gpu3", "gpu0-gpu1", or the probe's name for host-level probes. */
void probe_subject(const struct cd_probe_run *p, char *buf, size_t len)
{
	if (p->device != CD_NULL_I64 && p->peer != CD_NULL_I64)
		snprintf(buf, len, "gpu%" PRId64 "-gpu%" PRId64, p->device, p->peer);
	else if (p->device != CD_NULL_I64)
		snprintf(buf, len, "gpu%" PRId64, p->device);
	else if (p->nranks != CD_NULL_I64)
		snprintf(buf, len, "%" PRId64 " ranks", p->nranks);
	else
		snprintf(buf, len, "%s", p->host ? p->host : "host");
}

/* The most frequent value (the larger one on a tie); CD_NULL_I64 for none. */
int64_t mode_i64(const int64_t *v, size_t n)
{
	int64_t best = CD_NULL_I64;
	size_t best_n = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		for (size_t j = 0; j < n; j++)
			k += v[j] == v[i];
		if (k > best_n || (k == best_n && v[i] > best))
			best = v[i], best_n = k;
	}
	return best;
}

static const struct cd_rule rules[] = {
	{ "SYS001", "system", "warn|fail", "/dev/shm below system.shm_min_bytes inside a container",
	  { CD_K_SHM_MIN_BYTES }, 1, rule_shm },
	{ "SYS002", "system", "fail", "memlock limit below unlimited while RDMA devices exist", { 0 }, 1, rule_memlock },
	{ "SYS003", "system", "warn", "IOMMU translation on (not passthrough) with two or more GPUs", { 0 }, 1,
	  rule_iommu },
	{ "NET002", "net", "fail", "no interface other than loopback is up", { 0 }, 1, rule_no_iface_up },
	{ "NET003", "net", "info|warn", "an interface is up but has no address", { 0 }, 1, rule_up_no_address },
	{ "NET004", "net", "warn", "a fabric interface's MTU differs from its peers of the same kind",
	  { CD_K_NET_FABRIC_MIN }, 1, rule_mtu_mismatch },
	{ "NET005", "net", "warn", "a fabric interface negotiated a lower speed than its peers",
	  { CD_K_NET_FABRIC_MIN }, 1, rule_speed_mismatch },
	{ "NET006", "net", "fail", "fewer usable interfaces than net.nics_expected", { CD_K_NET_NICS }, 1,
	  rule_nic_count },
	{ "PCIE001", "pcie", "warn|fail", "a GPU's PCIe link runs below its maximum generation or width", { 0 }, 1,
	  rule_gpu_link },
	{ "PCIE002", "pcie", "warn|fail", "a NIC's or HCA's PCIe link runs below its maximum generation or width",
	  { 0 }, 1, rule_nic_link },
	{ "PCIE003", "pcie", "warn", "ACS redirect set on a PCIe bridge between GPUs", { 0 }, 1, rule_acs },
	{ "NVL001", "nvlink", "fail", "an NVLink of a GPU is down", { 0 }, 1, rule_nvlink_down },
	{ "NVL002", "nvlink", "fail", "a GPU has fewer NVLinks than nvlink.links_expected", { CD_K_NVL_LINKS }, 1,
	  rule_nvlink_count },
	{ "IB001", "ib", "fail", "an RDMA port is not active", { 0 }, 1, rule_port_down },
	{ "IB002", "ib", "warn", "an active RDMA port runs slower than most ports of its host", { 0 }, 1,
	  rule_port_slow },
	{ "IB003", "ib", "fail", "an active RDMA port runs below ib.min_rate_gbit_s", { CD_K_IB_MIN_RATE }, 1,
	  rule_port_floor },
	{ "IB004", "ib", "fail", "fewer RDMA ports than ib.ports_expected (none found counts)", { CD_K_IB_PORTS }, 1,
	  rule_port_count },
	{ "IB005", "ib", "warn", "an active RoCE port has no RoCE v2 GID with an IPv4 address", { 0 }, 1,
	  rule_roce_v2_gid },
	{ "GPU004", "gpu", "fail", "NVIDIA GPUs on the PCI bus that the driver does not give (not loaded, failed, lost)",
	  { 0 }, 1, rule_gpu_driver },
	{ "GPU001", "gpu", "fail", "fewer GPUs than gpu.count_expected (none found counts)", { CD_K_GPU_COUNT }, 1,
	  rule_gpu_count },
	{ "GPU002", "gpu", "warn", "GPUs of different models on one host", { 0 }, 1, rule_gpu_mixed },
	{ "GPU003", "gpu", "info", "GPU persistence mode off", { 0 }, 1, rule_persistence },
	{ "COPY001", "copy", "warn|fail", "copy.h2d/copy.d2h below copy.warn_pct/copy.fail_pct of the GPU's PCIe link",
	  { CD_K_COPY_WARN_PCT, CD_K_COPY_FAIL_PCT }, 0, rule_copy_frac },
	{ "COPY002", "copy", "fail", "copy.h2d/copy.d2h below the profile's absolute floor",
	  { CD_K_COPY_H2D_MIN, CD_K_COPY_D2H_MIN }, 0, rule_copy_floor },
	{ "P2P001", "p2p", "warn|fail", "p2p.bw below p2p.warn_pct/p2p.fail_pct of the NVLink or PCIe path",
	  { CD_K_P2P_WARN_PCT, CD_K_P2P_FAIL_PCT }, 0, rule_p2p_frac },
	{ "P2P002", "p2p", "fail", "p2p.bw below p2p.min_gbyte_s", { CD_K_P2P_MIN }, 0, rule_p2p_floor },
	{ "P2P003", "p2p", "fail", "NCCL P2P off between NVLink-connected GPUs", { 0 }, 1, rule_nccl_p2p_off },
	{ "NCCL003", "nccl", "warn|fail", "under MPI, the other ranks wait for one rank in most collectives",
	  { CD_K_NCCL_LATE_MIN_US, CD_K_NCCL_LATE_WARN_PCT, CD_K_NCCL_LATE_FAIL_PCT }, 0, rule_nccl_straggler },
	{ "NCCL001", "nccl", "fail",
	  "nccl.all_reduce busbw at its largest size below the floor (one host or across hosts) scaled to that size",
	  { CD_K_NCCL_AR_MIN, CD_K_NCCL_NET_AR_MIN, CD_K_NCCL_FLOOR_BYTES, CD_K_NCCL_FLOOR_REF_BYTES,
	    CD_K_NCCL_FLOOR_HALF_BYTES }, 0, rule_nccl_floor },
	{ "NCCL002", "nccl", "warn", "a collective's time at 8 KiB or less above the warn level of its scope",
	  { CD_K_NCCL_LAT_WARN, CD_K_NCCL_NET_LAT_WARN }, 0, rule_nccl_latency },
	{ "BAL001", "balance", "warn", "a GPU's bandwidth is a low outlier among the host's GPUs (median/MAD)",
	  { CD_K_BAL_MAD_K, CD_K_BAL_MIN_DEV, CD_K_BAL_MIN_PEERS }, 1, rule_gpu_outlier },
	{ "BAL002", "balance", "warn", "a host's bandwidth is a low outlier among the hosts (median/MAD)",
	  { CD_K_BAL_MAD_K, CD_K_BAL_MIN_DEV, CD_K_BAL_MIN_PEERS }, 0, rule_host_outlier },
	{ "STAB001", "stability", "fail", "a probe timed out", { 0 }, 0, rule_timeout },
	{ "STAB002", "stability", "fail", "a probe failed (status error)", { 0 }, 0, rule_probe_error },
	{ "STAB003", "stability", "fail", "a probe's data check found wrong elements", { 0 }, 0, rule_data_errors },
	{ "REQ001", "run", "fail", "a group that --require or profile.require names was not evaluated",
	  { CD_K_PROFILE_REQUIRE }, 0, rule_required },
	{ "STAB004", "stability", "warn",
	  "interquartile range of the iteration times at the largest size above stability.spread_warn_pct of the median",
	  { CD_K_STAB_SPREAD_WARN, CD_K_STAB_HOST_SPREAD_WARN, CD_K_STAB_JITTER }, 0, rule_spread },
	{ "STAB005", "stability", "info", "iterations beyond Tukey's far-out fences (outliers) and stability.jitter_us "
	  "above the median, per host", { CD_K_STAB_JITTER }, 1, rule_outliers },
	{ "BASE003", "baseline", "fail", "a probe run or size the baseline finished has no result now", { 0 }, 0,
	  rule_base_missing },
	{ "BASE001", "baseline", "warn|fail",
	  "bandwidth (sizes above 8 KiB) below the baseline's beyond noise_k interquartile ranges and baseline.warn_pct",
	  { CD_K_BASE_NOISE_K, CD_K_BASE_WARN_PCT, CD_K_BASE_FAIL_PCT }, 0, rule_base_bw },
	{ "BASE002", "baseline", "warn|fail",
	  "time at 8 KiB or less above the baseline's beyond noise_k interquartile ranges and baseline.warn_pct",
	  { CD_K_BASE_NOISE_K, CD_K_BASE_WARN_PCT, CD_K_BASE_FAIL_PCT }, 0, rule_base_lat },
	{ "BASE004", "baseline", "info", "faster than the baseline beyond the noise and baseline.warn_pct",
	  { CD_K_BASE_NOISE_K, CD_K_BASE_WARN_PCT }, 0, rule_base_better },
};

static const struct cd_rule_group groups[] = {
#define G(name, summary) { name, summary },
	CD_RULE_GROUPS
#undef G
};

const struct cd_rule *cd_rules_table(size_t *n)
{
	*n = ARRAY_SIZE(rules);
	return rules;
}

const struct cd_rule_group *cd_rules_groups(size_t *n)
{
	*n = ARRAY_SIZE(groups);
	return groups;
}

/* ---- which groups have data: NULL when evaluable, else why not ---- */

static int any_probe(const struct cd_results *r, const char *prefix, int finished)
{
	for (size_t i = 0; i < r->n_probes; i++)
		if (cd_probe_is(&r->probes[i], prefix) &&
		    (finished ? r->probes[i].status == CD_ST_OK && r->probes[i].n_samples
			      : r->probes[i].status != CD_ST_SKIPPED))
			return 1;
	return 0;
}

static int any_part_ok(const struct cd_results *r, enum cd_part part)
{
	for (size_t h = 0; h < r->n_hosts; h++)
		if (r->hosts[h].part[part].status == CD_ST_OK)
			return 1;
	return 0;
}

static int any_pcie_state(const struct cd_results *r)
{
	for (size_t i = 0; i < r->n_hosts; i++) {
		const struct cd_host *h = &r->hosts[i];

		if (h->n_acs)
			return 1;
		for (size_t j = 0; j < h->n_gpus; j++)
			if (link_known(h->gpus[j].pcie_gen, h->gpus[j].pcie_width, h->gpus[j].pcie_max_gen,
				       h->gpus[j].pcie_max_width))
				return 1;
		for (size_t j = 0; j < h->n_pci; j++)
			if ((h->pci[j].kind == CD_PCI_NIC || h->pci[j].kind == CD_PCI_HCA) &&
			    link_known(h->pci[j].gen, h->pci[j].width, h->pci[j].max_gen, h->pci[j].max_width))
				return 1;
	}
	return 0;
}

static size_t count_gpus(const struct cd_results *r, int with_nvlinks)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_gpus; j++)
			n += !with_nvlinks || r->hosts[i].gpus[j].n_nvlinks > 0;
	return n;
}

/* The largest number of comparable bandwidth values: devices of one probe on one host, or hosts. */
struct cmp_entry {
	const char *name;
	size_t host;    /* index in hosts[]; SIZE_MAX: no host (all such compare equal, as before) */
	int device;     /* the run names a device */
};

static int cmp_entries(const void *a, const void *b)
{
	const struct cmp_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->host < y->host ? -1 : x->host > y->host;
}

/*
 * Sorted by probe name and host, each group is counted once: O(P log P) where comparing each
 * run with every other (and every host) was P² × H, minutes for a merged fleet of 4096 hosts.
 */
static size_t widest_comparison(const struct cd_results *r)
{
	struct cmp_entry *e = xcalloc(r->n_probes + 1, sizeof(*e));
	size_t n = 0, best = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		const struct cd_host *h;

		if (!p->name || !cd_probe_is_bw(p) || isnan(cd_probe_bw(p)))
			continue;
		h = cd_probe_host(r, p);
		e[n++] = (struct cmp_entry){ p->name, h ? (size_t)(h - r->hosts) : SIZE_MAX, p->device != CD_NULL_I64 };
	}
	if (n > 1)
		qsort(e, n, sizeof(*e), cmp_entries);
	for (size_t g = 0, end; g < n; g = end) {
		size_t hosts = 0;

		for (end = g; end < n && !strcmp(e[end].name, e[g].name); end++)
			;
		for (size_t k = g, kend; k < end; k = kend) {
			size_t same_host = 0;

			for (kend = k; kend < end && e[kend].host == e[k].host; kend++)
				same_host += e[kend].device;
			hosts += e[k].host != SIZE_MAX;
			best = same_host > best ? same_host : best;
		}
		best = hosts > best ? hosts : best;
	}
	free(e);
	return best;
}

/* A count the profile expects makes its group judgeable on any discovered host: zero found is a fail. */
static int expects(const struct cd_results *r, const struct cd_conf *c, enum cd_key k)
{
	if (!(cd_conf_get(c, k) > 0))
		return 0;
	for (size_t i = 0; i < r->n_hosts; i++)
		if (host_discovered(&r->hosts[i]))
			return 1;
	return 0;
}

static char *why_not(const struct cd_results *r, const struct cd_conf *c, const char *group)
{
	if (!strcmp(group, "system"))
		return any_part_ok(r, CD_PART_SYSTEM) ? NULL : xstrdup("no host has its system section");
	if (!strcmp(group, "net"))
		return any_part_ok(r, CD_PART_NET) || expects(r, c, CD_K_NET_NICS)
			       ? NULL : xstrdup("no host has its net section (interfaces)");
	if (!strcmp(group, "pcie"))
		return any_pcie_state(r) ? NULL
					 : xstrdup("no current and maximum PCIe generation/width for a GPU, NIC or HCA "
						   "(a live host's sysfs or NVML gives them)");
	if (!strcmp(group, "nvlink"))
		return count_gpus(r, 1) || (count_gpus(r, 0) && expects(r, c, CD_K_NVL_LINKS))
			       ? NULL : xstrdup("no NVLink facts for any GPU");
	if (!strcmp(group, "p2p")) {
		for (size_t i = 0; i < r->n_hosts; i++)
			if (r->hosts[i].paths.gpu_gpu && r->hosts[i].paths.nccl_p2p)
				return NULL;
		return any_probe(r, "p2p.bw", 1) ? NULL : xstrdup("no p2p.bw probe result and no GPU path matrix");
	}
	if (!strcmp(group, "ib")) {
		for (size_t i = 0; i < r->n_hosts; i++)
			for (size_t j = 0; j < r->hosts[i].n_hcas; j++)
				if (r->hosts[i].hcas[j].n_ports)
					return NULL;
		return expects(r, c, CD_K_IB_PORTS) ? NULL : xstrdup("no RDMA device with ports");
	}
	if (!strcmp(group, "gpu")) {
		for (size_t i = 0; i < r->n_hosts; i++)
			if (cd_host_nvidia_pci_gpus(&r->hosts[i]))
				return NULL; /* GPU004 judges a bus with GPUs and no driver */
		return count_gpus(r, 0) || any_part_ok(r, CD_PART_GPU) || expects(r, c, CD_K_GPU_COUNT)
			       ? NULL : xstrdup("no GPU inventory");
	}
	if (!strcmp(group, "copy"))
		return any_probe(r, "copy.h2d", 1) || any_probe(r, "copy.d2h", 1)
			       ? NULL
			       : xstrdup("no finished copy.h2d or copy.d2h probe");
	if (!strcmp(group, "nccl"))
		return any_probe(r, "nccl.", 1) ? NULL : xstrdup("no finished nccl.* probe");
	if (!strcmp(group, "balance")) {
		double need = cd_conf_get(c, CD_K_BAL_MIN_PEERS);

		return (double)widest_comparison(r) >= need
			       ? NULL
			       : xasprintf("fewer than %.0f comparable bandwidth results (GPUs of one probe, or hosts)",
					   need);
	}
	if (!strcmp(group, "stability"))
		return any_probe(r, "", 0) ? NULL : xstrdup("no probe ran");
	if (!strcmp(group, "baseline"))
		return baseline_why_not(r);
	return NULL;
}

/*
 * NCCL001 judges the largest size from nccl.floor_min_bytes up, its floor scaled to that
 * size (scope.c): say so when the sweep stopped short, or when the run crossed hosts and
 * only a single-host floor is set.
 */
static void note_nccl_floor(struct cd_results *r, const struct cd_conf *c)
{
	int said_short = 0, said_net = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		struct cd_floor_ref x;
		char have[32], want[32], *why = NULL;

		cd_allreduce_floor(r, c, &r->probes[i], &x);
		if (x.state == CD_FLOOR_SHORT && !said_short++)
			why = xasprintf("nccl.all_reduce reached %s, below nccl.floor_min_bytes %s: its busbw floor is "
					"not judged", cd_fmt_bytes(have, sizeof(have), x.s->bytes),
					cd_fmt_bytes(want, sizeof(want), (int64_t)x.min_bytes));
		else if (x.state == CD_FLOOR_NO_NET && !said_net++)
			why = xasprintf("nccl.all_reduce ran across %zu hosts and the profile's floor is for one host "
					"(NVLink); no nccl.net_all_reduce_min_busbw_gbyte_s is set", x.hosts);
		if (why)
			cd_rules_run_add_not_evaluated(&r->rules, "nccl (NCCL001)", why);
		free(why);
	}
}

/*
 * The groups that must be evaluated: --require's on any document (the user asked), the
 * profile's only where a host was discovered (an imported nccl-tests log has no inventory
 * to require). Each is recorded with where it came from, for REQ001's evidence.
 */
static void required_groups(struct cd_results *r, const struct cd_conf *c, struct cd_strv *origin)
{
	const char *ptext = c->text[CD_K_PROFILE_REQUIRE];
	struct cd_strv prof = { 0 };
	char err[512];
	int discovered = 0;

	for (size_t i = 0; i < r->n_hosts; i++)
		discovered |= host_discovered(&r->hosts[i]);
	for (size_t i = 0; i < c->require.n; i++) {
		cd_strv_push(&r->rules.required, c->require.v[i]);
		cd_strv_push(origin, "--require");
	}
	if (!ptext || !discovered || cd_conf_parse_groups(ptext, &prof, err, sizeof(err)) < 0) {
		cd_strv_free(&prof);
		return;
	}
	for (size_t i = 0; i < prof.n; i++) {
		size_t j;

		for (j = 0; j < r->rules.required.n && strcmp(r->rules.required.v[j], prof.v[i]); j++)
			;
		if (j < r->rules.required.n)
			continue;
		cd_strv_push(&r->rules.required, prof.v[i]);
		cd_strv_push(origin, c->origin[CD_K_PROFILE_REQUIRE] ? c->origin[CD_K_PROFILE_REQUIRE] : "profile.require");
	}
	cd_strv_free(&prof);
}

/* One group judged alone (compare): only its own requirement stands, whoever named it. */
static void keep_required(struct cd_results *r, struct cd_strv *origin, const char *only)
{
	struct cd_strv g = { 0 }, o = { 0 };

	for (size_t i = 0; i < r->rules.required.n; i++)
		if (!strcmp(r->rules.required.v[i], only)) {
			cd_strv_push(&g, r->rules.required.v[i]);
			cd_strv_push(&o, origin->v[i]);
		}
	cd_strv_free(&r->rules.required);
	cd_strv_free(origin);
	r->rules.required = g;
	*origin = o;
}

static int any_finding(const struct cd_results *r, const char *id)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (!strcmp(r->findings[i].id, id))
			return 1;
	return 0;
}

int rule_required(struct cd_eval *e, const struct cd_host *unused)
{
	const struct cd_rules_run *rr = &e->r->rules;
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < rr->required.n; i++) {
		for (size_t g = 0; g < rr->n_not_evaluated; g++) {
			const struct cd_not_evaluated *ne = &rr->not_evaluated[g];
			struct cd_finding *f;

			if (strcmp(ne->group, rr->required.v[i]))
				continue;
			/* no GPU data because there is no GPU: GPU001/GPU004 said it, once */
			if (strcmp(ne->group, "gpu") && strcmp(ne->group, "system") && strcmp(ne->group, "net") &&
			    strcmp(ne->group, "ib") && (any_finding(e->r, "GPU001") || any_finding(e->r, "GPU004")))
				continue;
			f = add(e, "REQ001", CD_SEV_FAIL, NULL, ne->group, "a required rule group was not evaluated", NAN,
				NAN, NULL, CD_K_NONE);
			cd_finding_evidence(f, "%s not evaluated: %s", ne->group, ne->reason ? ne->reason : "no reason");
			cd_finding_evidence(f, "required by %s", e->required.v[i]);
			n++;
		}
	}
	return n;
}

/* Each finding that names a threshold says which value was in force and where it came from. */
static void cite_thresholds(struct cd_results *r, const struct cd_conf *c, size_t from)
{
	for (size_t i = from; i < r->n_findings; i++) {
		struct cd_finding *f = &r->findings[i];
		int k = f->threshold ? cd_conf_key_find(f->threshold) : -1;
		char v[64];

		if (k > 0)
			cd_finding_evidence(f, "threshold %s = %s (%s)", f->threshold, cd_conf_fmt(c, k, v, sizeof(v)),
					    c->origin[k] ? c->origin[k] : "unset");
	}
}

/* only: the one group to evaluate (compare), NULL for all */
static int evaluate(struct cd_results *r, const struct cd_conf *c, const char *only)
{
	struct cd_eval e = { .r = r, .c = c };
	size_t first = r->n_findings;
	int n = 0;

	cd_rules_run_free(&r->rules);
	r->rules.present = 1;
	r->rules.profile = xstrdup(c->profile);
	r->rules.profile_reason = xstrdup(c->profile_reason);
	for (size_t i = 0; i < c->sources.n; i++)
		cd_strv_push(&r->rules.sources, c->sources.v[i]);
	e.judged = xcalloc(r->n_probes + 1, 1);
	cd_probe_groups_build(r, &e.groups);
	for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
		char *why;

		if (only && strcmp(groups[g].name, only))
			continue;
		/*
		 * no baseline: the group is not part of this run, neither judged nor missing, unless
		 * --require names it (then its absence is REQ001's)
		 */
		if (!strcmp(groups[g].name, "baseline") && !r->baseline) {
			for (size_t i = 0; i < c->require.n; i++)
				if (!strcmp(c->require.v[i], "baseline"))
					cd_rules_run_add_not_evaluated(&r->rules, "baseline",
								       "no baseline document (compare OLD NEW, --baseline FILE)");
			continue;
		}
		why = why_not(r, c, groups[g].name);

		if (why) {
			cd_rules_run_add_not_evaluated(&r->rules, groups[g].name, why);
			free(why);
			continue;
		}
		cd_strv_push(&r->rules.evaluated, groups[g].name);
	}
	if (!only) {
		note_nccl_floor(r, c);
		note_timings(r, c);
	}
	note_baseline(r, c);
	required_groups(r, c, &e.required);
	if (only)
		keep_required(r, &e.required, only);
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		/* REQ001 too: `compare --require baseline` fails when nothing could be compared */
		int skip = only && strcmp(rules[i].group, only) && strcmp(rules[i].id, "REQ001");

		for (size_t g = 0; g < r->rules.n_not_evaluated; g++)
			skip |= !strcmp(r->rules.not_evaluated[g].group, rules[i].group);
		if (skip)
			continue;
		if (!rules[i].per_host) {
			n += rules[i].check(&e, NULL);
			continue;
		}
		for (size_t h = 0; h < r->n_hosts; h++)
			n += rules[i].check(&e, &r->hosts[h]);
	}
	if (!only)
		n += cd_rules_hosts_evaluate(r); /* the job as a whole: src/rules_hosts.c */
	free(e.judged);
	cd_probe_groups_free(&e.groups);
	cd_strv_free(&e.required);
	cite_thresholds(r, c, first);
	return n;
}

int cd_rules_evaluate_conf(struct cd_results *r, const struct cd_conf *c)
{
	return evaluate(r, c, NULL);
}

int cd_rules_evaluate_group(struct cd_results *r, const struct cd_conf *c, const char *group)
{
	return evaluate(r, c, group);
}

int cd_rules_evaluate(struct cd_results *r)
{
	struct cd_conf c;
	int n;

	if (cd_conf_load(&c, NULL, r) < 0) {
		cd_conf_free(&c);
		return -1;
	}
	n = cd_rules_evaluate_conf(r, &c);
	cd_conf_free(&c);
	return n;
}
