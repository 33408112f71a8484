/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule table: C predicates over the results document that append findings.
 * Ids are stable and never reused; each is documented in man/commdiag.1.
 * Thresholds come from rules/ (conf.c); a rule whose data is absent says nothing,
 * and its group is listed as not evaluated, with the reason, in the document.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "rules.h"
#include "rules_hosts.h"

struct cd_eval {
	struct cd_results *r;
	const struct cd_conf *c;
	unsigned char *judged; /* per probe: a rule already explained it (COPY, P2P, NCCL003), so later ones stay quiet */
};

static double key(const struct cd_eval *e, enum cd_key k)
{
	return cd_conf_get(e->c, k);
}

static double pct(const struct cd_eval *e, enum cd_key k)
{
	return cd_conf_get(e->c, k) / 100.0;
}

/* A finding with its numbers and the threshold key that set `expected`. */
static struct cd_finding *add(struct cd_eval *e, const char *id, enum cd_severity sev, const char *host,
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

static const char *probe_host_name(const struct cd_results *r, const struct cd_probe_run *p)
{
	const struct cd_host *h = cd_probe_host(r, p);

	return p->host ? p->host : h ? h->hostname : NULL;
}

/* "gpu3", "gpu0-gpu1", or the probe's name for host-level probes. */
static void probe_subject(const struct cd_probe_run *p, char *buf, size_t len)
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
static int64_t mode_i64(const int64_t *v, size_t n)
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

/* ---- system ---- */

static int in_container(const struct cd_host *h)
{
	return h->system.container && strcmp(h->system.container, "none");
}

static int rule_shm(struct cd_eval *e, const struct cd_host *h)
{
	int64_t min = (int64_t)key(e, CD_K_SHM_MIN_BYTES);
	char have[32], want[32];
	struct cd_finding *f;

	if (!in_container(h) || h->system.shm_bytes == CD_NULL_I64 || h->system.shm_bytes >= min)
		return 0;
	cd_fmt_bytes(have, sizeof(have), h->system.shm_bytes);
	cd_fmt_bytes(want, sizeof(want), min);
	f = add(e, "SYS001", h->n_gpus >= 2 ? CD_SEV_FAIL : CD_SEV_WARN, h->hostname, "/dev/shm",
		"/dev/shm is too small for NCCL's shared-memory transport", (double)h->system.shm_bytes, (double)min,
		"bytes", CD_K_SHM_MIN_BYTES);
	cd_finding_evidence(f, "/dev/shm is %s inside a %s container, below %s", have, h->system.container, want);
	return 1;
}

static int rule_memlock(struct cd_eval *e, const struct cd_host *h)
{
	struct cd_finding *f;
	char have[32];

	if (h->n_hcas == 0 || h->system.memlock_unlimited != CD_TRI_FALSE || h->system.memlock_bytes == CD_NULL_I64)
		return 0;
	cd_fmt_bytes(have, sizeof(have), h->system.memlock_bytes);
	f = add(e, "SYS002", CD_SEV_FAIL, h->hostname, "memlock", "locked-memory limit is too low for RDMA registration",
		(double)h->system.memlock_bytes, NAN, "bytes", CD_K_NONE);
	cd_finding_evidence(f, "RLIMIT_MEMLOCK is %s with %zu RDMA device%s present; verbs needs unlimited", have,
			    h->n_hcas, h->n_hcas == 1 ? "" : "s");
	return 1;
}

static int rule_iommu(struct cd_eval *e, const struct cd_host *h)
{
	struct cd_finding *f;

	if (h->n_gpus < 2 || !h->system.iommu || strcmp(h->system.iommu, "on"))
		return 0;
	f = add(e, "SYS003", CD_SEV_WARN, h->hostname, "iommu",
		"IOMMU translation is on: GPU peer-to-peer and GPUDirect RDMA traffic pays for it", NAN, NAN, NULL,
		CD_K_NONE);
	cd_finding_evidence(f, "iommu on (%s) with %zu GPUs", h->system.iommu_evidence ? h->system.iommu_evidence : "?",
			    h->n_gpus);
	cd_finding_evidence(f, "NCCL's troubleshooting guide: use iommu=pt (passthrough) or disable the IOMMU");
	return 1;
}

/* ---- net ---- */

int cd_nic_is_up(const struct cd_nic *n)
{
	/* virtual devices without carrier logic report "unknown" while working */
	return n->admin_up == CD_TRI_TRUE && n->state && (!strcmp(n->state, "up") || !strcmp(n->state, "unknown"));
}

static int has_usable_address(const struct cd_nic *n)
{
	if (n->ipv4.n)
		return 1;
	for (size_t i = 0; i < n->ipv6.n; i++)
		if (strncasecmp(n->ipv6.v[i], "fe80:", 5))
			return 1;
	return 0;
}

static int rule_no_iface_up(struct cd_eval *e, const struct cd_host *h)
{
	struct cd_finding *f;

	if (h->part[CD_PART_NET].status != CD_ST_OK)
		return 0;
	for (size_t i = 0; i < h->n_nics; i++)
		if (h->nics[i].kind != CD_NIC_LOOPBACK && cd_nic_is_up(&h->nics[i]))
			return 0;
	f = add(e, "NET002", CD_SEV_FAIL, h->hostname, "interfaces", "no interface other than loopback is up", NAN, NAN,
		NULL, CD_K_NONE);
	for (size_t i = 0; i < h->n_nics; i++) {
		if (h->nics[i].kind == CD_NIC_LOOPBACK)
			continue;
		cd_finding_evidence(f, "%s: state %s, admin %s", h->nics[i].name,
				    h->nics[i].state ? h->nics[i].state : "unknown",
				    h->nics[i].admin_up == CD_TRI_TRUE ? "up" : "down");
	}
	if (!f->evidence.n)
		cd_strv_push(&f->evidence, "only loopback exists");
	return 1;
}

static int rule_up_no_address(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *nic = &h->nics[i];
		struct cd_finding *f;

		/* bond and bridge ports carry traffic for their master, which holds the address */
		if (nic->kind == CD_NIC_LOOPBACK || nic->master || !cd_nic_is_up(nic) || has_usable_address(nic))
			continue;
		f = add(e, "NET003",
			nic->kind == CD_NIC_PHYSICAL || nic->kind == CD_NIC_IPOIB ? CD_SEV_WARN : CD_SEV_INFO,
			h->hostname, nic->name, "interface is up but has no address", NAN, NAN, NULL, CD_K_NONE);
		cd_finding_evidence(f, "%s (%s) is %s with no IPv4 and no global IPv6 address%s", nic->name,
				    cd_nic_kind_str(nic->kind), nic->state, nic->ipv6.n ? " (link-local only)" : "");
		n++;
	}
	return n;
}

/* An up physical or IPoIB interface at fabric speed: the ones jobs' traffic uses. */
static int is_fabric(const struct cd_eval *e, const struct cd_nic *n, enum cd_nic_kind kind)
{
	return n->kind == kind && cd_nic_is_up(n) && n->speed_mbit_s != CD_NULL_I64 &&
	       (double)n->speed_mbit_s >= key(e, CD_K_NET_FABRIC_MIN);
}

/* NET004 (MTU) and NET005 (speed): a fabric port that differs from the most common value of its kind. */
static int fabric_outliers(struct cd_eval *e, const struct cd_host *h, int speed)
{
	static const enum cd_nic_kind kinds[] = { CD_NIC_PHYSICAL, CD_NIC_IPOIB };
	int64_t *v = xcalloc(h->n_nics + 1, sizeof(*v));
	int found = 0;

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		size_t n = 0;
		int64_t common;

		for (size_t i = 0; i < h->n_nics; i++)
			if (is_fabric(e, &h->nics[i], kinds[k]))
				v[n++] = speed ? h->nics[i].speed_mbit_s : h->nics[i].mtu;
		if (n < 2)
			continue;
		common = mode_i64(v, n);
		for (size_t i = 0; i < h->n_nics; i++) {
			const struct cd_nic *nic = &h->nics[i];
			int64_t x = speed ? nic->speed_mbit_s : nic->mtu;
			struct cd_finding *f;

			if (!is_fabric(e, nic, kinds[k]) || x == common || (speed && x > common))
				continue;
			if (speed) {
				f = add(e, "NET005", CD_SEV_WARN, h->hostname, nic->name,
					"fabric interface runs slower than its peers", (double)x, (double)common, "mbit_s",
					CD_K_NET_FABRIC_MIN);
				cd_finding_evidence(f, "%s (%s) negotiated %" PRId64 " Mb/s; most %s fabric ports have %" PRId64
						    " Mb/s", nic->name, cd_nic_kind_str(nic->kind), x,
						    cd_nic_kind_str(nic->kind), common);
			} else {
				f = add(e, "NET004", CD_SEV_WARN, h->hostname, nic->name,
					"fabric interface MTU differs from its peers", (double)x, (double)common, "bytes",
					CD_K_NET_FABRIC_MIN);
				cd_finding_evidence(f, "%s (%s) has MTU %" PRId64 "; most %s fabric ports have %" PRId64,
						    nic->name, cd_nic_kind_str(nic->kind), x, cd_nic_kind_str(nic->kind), common);
			}
			found++;
		}
	}
	free(v);
	return found;
}

static int rule_mtu_mismatch(struct cd_eval *e, const struct cd_host *h)
{
	return fabric_outliers(e, h, 0);
}

static int rule_speed_mismatch(struct cd_eval *e, const struct cd_host *h)
{
	return fabric_outliers(e, h, 1);
}

/* ---- pcie ---- */

/* Gen/width below the maximum: fewer lanes is a fault (fail), a lower generation may be power saving (warn). */
static struct cd_finding *degraded(struct cd_eval *e, const struct cd_host *h, const char *id, const char *subject,
				   const char *title, int64_t gen, int64_t width, int64_t max_gen, int64_t max_width)
{
	double cur = cd_pcie_gbyte_s(gen, width), max = cd_pcie_gbyte_s(max_gen, max_width);
	struct cd_finding *f;

	f = add(e, id, width < max_width ? CD_SEV_FAIL : CD_SEV_WARN, h->hostname, subject, title, cur, max, "gbyte_s",
		CD_K_NONE);
	cd_finding_evidence(f, "%s: Gen%" PRId64 " x%" PRId64 " of Gen%" PRId64 " x%" PRId64 ": %.2f of %.2f GB/s per direction",
			    subject, gen, width, max_gen, max_width, cur, max);
	return f;
}

static int link_known(int64_t gen, int64_t width, int64_t max_gen, int64_t max_width)
{
	return gen != CD_NULL_I64 && width != CD_NULL_I64 && max_gen != CD_NULL_I64 && max_width != CD_NULL_I64;
}

/* A copy probe of this GPU that reached the warn share of the full link proves the link. */
static int copy_proves_link(const struct cd_eval *e, const struct cd_host *h, const struct cd_gpu *g)
{
	double link = cd_pcie_gbyte_s(g->pcie_max_gen, g->pcie_max_width);

	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];

		if (cd_probe_is(p, "copy.") && p->device == g->index && cd_probe_host(e->r, p) == h &&
		    cd_probe_bw(p) >= link * pct(e, CD_K_COPY_WARN_PCT))
			return 1;
	}
	return 0;
}

static int rule_gpu_link(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_gpus; i++) {
		const struct cd_gpu *g = &h->gpus[i];
		struct cd_finding *f;
		char subj[32];

		if (!link_known(g->pcie_gen, g->pcie_width, g->pcie_max_gen, g->pcie_max_width) ||
		    (g->pcie_gen >= g->pcie_max_gen && g->pcie_width >= g->pcie_max_width))
			continue;
		if (g->pcie_width >= g->pcie_max_width && copy_proves_link(e, h, g))
			continue;
		snprintf(subj, sizeof(subj), "gpu%" PRId64, g->index);
		f = degraded(e, h, "PCIE001", subj, "GPU PCIe link is below its maximum", g->pcie_gen, g->pcie_width,
			     g->pcie_max_gen, g->pcie_max_width);
		if (g->bus_id)
			cd_finding_evidence(f, "bus id %s", g->bus_id);
		if (g->pcie_width >= g->pcie_max_width)
			cd_finding_evidence(f, "GPUs lower the link generation when idle: a copy.h2d probe at load "
					       "settles it");
		n++;
	}
	return n;
}

static const char *pci_name(const struct cd_pci_device *d)
{
	return d->os_devices.n ? d->os_devices.v[0] : d->bus_id;
}

static int rule_nic_link(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_pci; i++) {
		const struct cd_pci_device *d = &h->pci[i];
		struct cd_finding *f;

		if ((d->kind != CD_PCI_NIC && d->kind != CD_PCI_HCA) || !link_known(d->gen, d->width, d->max_gen, d->max_width) ||
		    (d->gen >= d->max_gen && d->width >= d->max_width))
			continue;
		f = degraded(e, h, "PCIE002", pci_name(d), "network adapter PCIe link is below its maximum", d->gen,
			     d->width, d->max_gen, d->max_width);
		cd_finding_evidence(f, "bus id %s (%s)", d->bus_id, cd_pci_kind_str(d->kind));
		n++;
	}
	return n;
}

static int rule_acs(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_acs; i++) {
		struct cd_finding *f;

		if (h->acs[i].redirect != CD_TRI_TRUE)
			continue;
		f = add(e, "PCIE003", CD_SEV_WARN, h->hostname, h->acs[i].bus_id,
			"ACS redirects GPU peer-to-peer traffic through the root complex", NAN, NAN, NULL, CD_K_NONE);
		cd_finding_evidence(f, "bridge %s between GPUs has ACS redirect bits set (ctrl 0x%04" PRIx64 ")",
				    h->acs[i].bus_id, h->acs[i].ctrl == CD_NULL_I64 ? 0 : (uint64_t)h->acs[i].ctrl);
		cd_finding_evidence(f, "NCCL's troubleshooting guide: disable ACS on bare metal (setpci) or in the BIOS");
		n++;
	}
	return n;
}

/* ---- nvlink ---- */

static size_t links_up(const struct cd_gpu *g)
{
	size_t up = 0;

	for (size_t i = 0; i < g->n_nvlinks; i++)
		up += g->nvlinks[i].up == CD_TRI_TRUE;
	return up;
}

static int rule_nvlink_down(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_gpus; i++) {
		const struct cd_gpu *g = &h->gpus[i];
		size_t up = links_up(g), down = 0;
		struct cd_finding *f;
		char subj[32];

		for (size_t l = 0; l < g->n_nvlinks; l++)
			down += g->nvlinks[l].up == CD_TRI_FALSE;
		if (!down)
			continue;
		snprintf(subj, sizeof(subj), "gpu%" PRId64, g->index);
		f = add(e, "NVL001", CD_SEV_FAIL, h->hostname, subj, "NVLink is down", (double)up,
			(double)(up + down), "links", CD_K_NONE);
		for (size_t l = 0; l < g->n_nvlinks; l++)
			if (g->nvlinks[l].up == CD_TRI_FALSE)
				cd_finding_evidence(f, "%s link %" PRId64 " is down", subj, g->nvlinks[l].link);
		n++;
	}
	return n;
}

static int rule_nvlink_count(struct cd_eval *e, const struct cd_host *h)
{
	double want = key(e, CD_K_NVL_LINKS);
	int n = 0, any = 0;

	for (size_t i = 0; i < h->n_gpus; i++)
		any |= h->gpus[i].n_nvlinks > 0;
	if (!(want > 0) || !any)
		return 0; /* no NVLink facts on this host: absent, not zero */
	for (size_t i = 0; i < h->n_gpus; i++) {
		const struct cd_gpu *g = &h->gpus[i];
		size_t up = links_up(g);
		struct cd_finding *f;
		char subj[32];

		if ((double)g->n_nvlinks >= want || (double)up >= want)
			continue;
		snprintf(subj, sizeof(subj), "gpu%" PRId64, g->index);
		f = add(e, "NVL002", CD_SEV_FAIL, h->hostname, subj, "GPU has fewer NVLinks than its model", (double)up,
			want, "links", CD_K_NVL_LINKS);
		cd_finding_evidence(f, "%s reports %zu NVLinks (%zu up); the profile expects %.0f", subj, g->n_nvlinks,
				    up, want);
		n++;
	}
	return n;
}

/* ---- p2p ---- */

/* Expected per-direction rate between two GPUs: their NVLinks if any, else the slower PCIe link. */
static double pair_expected(const struct cd_gpu *a, const struct cd_gpu *b, const char **via)
{
	size_t direct = 0, up = 0;
	int64_t gen = CD_NULL_I64;
	double pa, pb;

	for (size_t i = 0; i < a->n_nvlinks; i++) {
		const struct cd_nvlink *l = &a->nvlinks[i];

		if (l->up != CD_TRI_TRUE)
			continue;
		up++;
		gen = l->version != CD_NULL_I64 ? l->version : gen;
		/* point-to-point NVLink (no switch): only the links that reach b count */
		direct += l->remote_kind && !strcmp(l->remote_kind, "gpu") && l->remote_bus_id && b->bus_id &&
			  !strcasecmp(l->remote_bus_id, b->bus_id);
	}
	if (up && gen != CD_NULL_I64) {
		int switched = 0;

		for (size_t i = 0; i < a->n_nvlinks; i++)
			switched |= a->nvlinks[i].remote_kind && !strcmp(a->nvlinks[i].remote_kind, "nvswitch");
		if (switched || direct) {
			*via = "NVLink";
			return cd_nvlink_gbyte_s(gen, (int64_t)(switched ? up : direct));
		}
	}
	*via = "PCIe";
	pa = cd_gpu_pcie_max_gbyte_s(a);
	pb = cd_gpu_pcie_max_gbyte_s(b);
	return isnan(pa) ? pb : isnan(pb) ? pa : fmin(pa, pb);
}

static int rule_p2p_frac(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		const struct cd_host *h = cd_probe_host(e->r, p);
		const struct cd_gpu *a = cd_host_gpu(h, p->device), *b = cd_host_gpu(h, p->peer);
		double bw = cd_probe_bw(p), exp;
		const char *via = NULL;
		enum cd_key k;
		struct cd_finding *f;
		char subj[64];

		if (!p->name || strcmp(p->name, "p2p.bw") || !a || !b || isnan(bw))
			continue;
		exp = pair_expected(a, b, &via);
		if (!(exp > 0) || bw >= exp * pct(e, CD_K_P2P_WARN_PCT))
			continue;
		k = bw < exp * pct(e, CD_K_P2P_FAIL_PCT) ? CD_K_P2P_FAIL_PCT : CD_K_P2P_WARN_PCT;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "P2P001", k == CD_K_P2P_FAIL_PCT ? CD_SEV_FAIL : CD_SEV_WARN, probe_host_name(e->r, p), subj,
			"GPU peer-to-peer bandwidth is low for the link between them", bw, exp * pct(e, k), "gbyte_s", k);
		cd_finding_evidence(f, "p2p.bw %s: %.1f GB/s, %.0f %% of %.1f GB/s (%s)", subj, bw, 100.0 * bw / exp, exp,
				    via);
		e->judged[i] = 1;
		n++;
	}
	return n;
}

static int rule_p2p_floor(struct cd_eval *e, const struct cd_host *unused)
{
	double floor_ = key(e, CD_K_P2P_MIN);
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes && floor_ > 0; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		double bw = cd_probe_bw(p);
		struct cd_finding *f;
		char subj[64];

		if (!p->name || strcmp(p->name, "p2p.bw") || isnan(bw) || bw >= floor_ || e->judged[i])
			continue;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "P2P002", CD_SEV_FAIL, probe_host_name(e->r, p), subj,
			"GPU peer-to-peer bandwidth is below the profile's floor", bw, floor_, "gbyte_s", CD_K_P2P_MIN);
		cd_finding_evidence(f, "p2p.bw %s: %.1f GB/s, floor %.1f GB/s", subj, bw, floor_);
		e->judged[i] = 1;
		n++;
	}
	return n;
}

static int rule_nccl_p2p_off(struct cd_eval *e, const struct cd_host *h)
{
	const struct cd_paths *p = &h->paths;
	size_t g = p->gpus.n, pairs = 0;
	struct cd_finding *f = NULL;

	if (!p->gpu_gpu || !p->nccl_p2p)
		return 0;
	for (size_t i = 0; i < g; i++) {
		for (size_t j = i + 1; j < g; j++) {
			const char *cls = p->gpu_gpu[i * g + j];

			if (!cls || strncmp(cls, "NV", 2) || p->nccl_p2p[i * g + j] != CD_TRI_FALSE)
				continue;
			if (!f)
				f = add(e, "P2P003", CD_SEV_FAIL, h->hostname, "nccl p2p",
					"NCCL will not use peer-to-peer between NVLink-connected GPUs", 0, NAN, "pairs",
					CD_K_NONE);
			if (pairs++ < 8)
				cd_finding_evidence(f, "GPU%zu-GPU%zu: %s, nccl p2p off", i, j, cls);
		}
	}
	if (!f)
		return 0;
	f->measured = (double)pairs;
	cd_finding_evidence(f, "%zu pair%s; p2p level %s (%s)", pairs, pairs == 1 ? "" : "s",
			    p->p2p_level ? p->p2p_level : "?", p->p2p_level_source ? p->p2p_level_source : "?");
	return 1;
}

/* ---- ib ---- */

static int port_active(const struct cd_ib_port *p)
{
	return p->state && !strcmp(p->state, "active");
}

static int rule_port_down(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_hcas; i++) {
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];
			struct cd_finding *f;
			char subj[96];

			if (port_active(p))
				continue;
			snprintf(subj, sizeof(subj), "%s/%" PRId64, h->hcas[i].name, p->port);
			f = add(e, "IB001", CD_SEV_FAIL, h->hostname, subj, "RDMA port is not active", NAN, NAN, NULL,
				CD_K_NONE);
			cd_finding_evidence(f, "%s: state %s, physical state %s, link layer %s", subj,
					    p->state ? p->state : "unknown", p->phys_state ? p->phys_state : "unknown",
					    p->link_layer ? p->link_layer : "unknown");
			n++;
		}
	}
	return n;
}

/* IB002 (below the host's usual rate) and IB003 (below the profile's floor) for active ports. */
static int port_rates(struct cd_eval *e, const struct cd_host *h, int floor_rule)
{
	double floor_ = key(e, CD_K_IB_MIN_RATE);
	int64_t *v = NULL, common;
	size_t cap = 0, n = 0;
	int found = 0;

	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t j = 0; j < h->hcas[i].n_ports; j++)
			if (port_active(&h->hcas[i].ports[j]) && !isnan(h->hcas[i].ports[j].rate_gbit_s))
				*CD_PUSH(v, n, cap) = (int64_t)h->hcas[i].ports[j].rate_gbit_s;
	common = mode_i64(v, n);
	free(v);
	for (size_t i = 0; i < h->n_hcas; i++) {
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];
			int below_floor = floor_ > 0 && p->rate_gbit_s < floor_;
			struct cd_finding *f;
			char subj[96];

			if (!port_active(p) || isnan(p->rate_gbit_s))
				continue;
			snprintf(subj, sizeof(subj), "%s/%" PRId64, h->hcas[i].name, p->port);
			if (floor_rule && below_floor) {
				f = add(e, "IB003", CD_SEV_FAIL, h->hostname, subj,
					"RDMA port rate is below the profile's floor", p->rate_gbit_s, floor_, "gbit_s",
					CD_K_IB_MIN_RATE);
			} else if (!floor_rule && !below_floor && n >= 2 && p->rate_gbit_s < (double)common) {
				f = add(e, "IB002", CD_SEV_WARN, h->hostname, subj, "RDMA port runs slower than its peers",
					p->rate_gbit_s, (double)common, "gbit_s", CD_K_NONE);
			} else {
				continue;
			}
			cd_finding_evidence(f, "%s is active at %.0f Gb/s (%" PRId64 " lanes); most ports here run at %" PRId64
					    " Gb/s", subj, p->rate_gbit_s, p->active_width == CD_NULL_I64 ? 0 : p->active_width,
					    common);
			found++;
		}
	}
	return found;
}

static int rule_port_slow(struct cd_eval *e, const struct cd_host *h)
{
	return port_rates(e, h, 0);
}

static int rule_port_floor(struct cd_eval *e, const struct cd_host *h)
{
	return port_rates(e, h, 1);
}

/* ---- gpu ---- */

static int rule_gpu_count(struct cd_eval *e, const struct cd_host *h)
{
	double want = key(e, CD_K_GPU_COUNT);
	struct cd_finding *f;

	if (!(want > 0) || h->part[CD_PART_GPU].status != CD_ST_OK || (double)h->n_gpus >= want)
		return 0;
	f = add(e, "GPU001", CD_SEV_FAIL, h->hostname, "gpus", "fewer GPUs than the profile expects", (double)h->n_gpus,
		want, "gpus", CD_K_GPU_COUNT);
	cd_finding_evidence(f, "%zu GPU%s visible, %.0f expected (a GPU that fell off the bus, or CUDA_VISIBLE_DEVICES)",
			    h->n_gpus, h->n_gpus == 1 ? "" : "s", want);
	return 1;
}

static int rule_gpu_mixed(struct cd_eval *e, const struct cd_host *h)
{
	struct cd_finding *f = NULL;

	for (size_t i = 1; i < h->n_gpus; i++) {
		const char *a = h->gpus[0].name, *b = h->gpus[i].name;

		if (!a || !b || !strcmp(a, b))
			continue;
		if (!f)
			f = add(e, "GPU002", CD_SEV_WARN, h->hostname, "gpus",
				"GPU models differ: collectives run at the slowest one's pace", NAN, NAN, NULL, CD_K_NONE);
		cd_finding_evidence(f, "gpu%" PRId64 " is %s, gpu%" PRId64 " is %s", h->gpus[0].index, a,
				    h->gpus[i].index, b);
	}
	return f != NULL;
}

static int rule_persistence(struct cd_eval *e, const struct cd_host *h)
{
	struct cd_finding *f = NULL;
	size_t off = 0;

	for (size_t i = 0; i < h->n_gpus; i++) {
		if (h->gpus[i].persistence != CD_TRI_FALSE)
			continue;
		if (!f)
			f = add(e, "GPU003", CD_SEV_INFO, h->hostname, "persistence mode",
				"GPU persistence mode is off: each job pays the driver's start-up", NAN, NAN, NULL, CD_K_NONE);
		off++;
		cd_finding_evidence(f, "gpu%" PRId64 " persistence off", h->gpus[i].index);
	}
	if (f)
		f->measured = (double)off;
	return f != NULL;
}

/* ---- copy ---- */

static int is_h2d_d2h(const struct cd_probe_run *p)
{
	return p->name && (!strcmp(p->name, "copy.h2d") || !strcmp(p->name, "copy.d2h"));
}

static const char *copy_title(const struct cd_probe_run *p, int floor_rule)
{
	if (!strcmp(p->name, "copy.h2d"))
		return floor_rule ? "host-to-device copy bandwidth is below the profile's floor"
				  : "host-to-device copy bandwidth is low for the GPU's PCIe link";
	return floor_rule ? "device-to-host copy bandwidth is below the profile's floor"
			  : "device-to-host copy bandwidth is low for the GPU's PCIe link";
}

static int rule_copy_frac(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		const struct cd_gpu *g;
		double bw, link;
		enum cd_key k;
		struct cd_finding *f;
		char subj[64];

		if (!is_h2d_d2h(p) || isnan(bw = cd_probe_bw(p)))
			continue;
		g = cd_host_gpu(cd_probe_host(e->r, p), p->device);
		link = g ? cd_gpu_pcie_max_gbyte_s(g) : NAN;
		if (!(link > 0) || bw >= link * pct(e, CD_K_COPY_WARN_PCT))
			continue;
		k = bw < link * pct(e, CD_K_COPY_FAIL_PCT) ? CD_K_COPY_FAIL_PCT : CD_K_COPY_WARN_PCT;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "COPY001", k == CD_K_COPY_FAIL_PCT ? CD_SEV_FAIL : CD_SEV_WARN, probe_host_name(e->r, p), subj,
			copy_title(p, 0), bw, link * pct(e, k), "gbyte_s", k);
		cd_finding_evidence(f, "%s %s: %.1f GB/s, %.0f %% of the %.2f GB/s per-direction PCIe link", p->name, subj,
				    bw, 100.0 * bw / link, link);
		if (g->pcie_gen != CD_NULL_I64 && g->pcie_max_gen != CD_NULL_I64)
			cd_finding_evidence(f, "link Gen%" PRId64 " x%" PRId64 " (max Gen%" PRId64 " x%" PRId64 ")",
					    g->pcie_gen, g->pcie_width, g->pcie_max_gen, g->pcie_max_width);
		e->judged[i] = 1;
		n++;
	}
	return n;
}

static int rule_copy_floor(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		enum cd_key k;
		double bw, floor_;
		struct cd_finding *f;
		char subj[64];

		if (!is_h2d_d2h(p) || e->judged[i] || isnan(bw = cd_probe_bw(p)))
			continue;
		k = !strcmp(p->name, "copy.h2d") ? CD_K_COPY_H2D_MIN : CD_K_COPY_D2H_MIN;
		floor_ = key(e, k);
		if (!(floor_ > 0) || bw >= floor_)
			continue;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "COPY002", CD_SEV_FAIL, probe_host_name(e->r, p), subj, copy_title(p, 1), bw, floor_, "gbyte_s",
			k);
		cd_finding_evidence(f, "%s %s: %.1f GB/s, floor %.1f GB/s", p->name, subj, bw, floor_);
		e->judged[i] = 1;
		n++;
	}
	return n;
}

/* ---- nccl ---- */

static int rule_nccl_floor(struct cd_eval *e, const struct cd_host *unused)
{
	double floor_ = key(e, CD_K_NCCL_AR_MIN), min_bytes = key(e, CD_K_NCCL_FLOOR_BYTES);
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes && floor_ > 0; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		double bw = cd_probe_bw(p);
		struct cd_finding *f;
		char subj[64], size[32];

		if (!p->name || strcmp(p->name, "nccl.all_reduce") || e->judged[i] || isnan(bw) || bw >= floor_ ||
		    (double)cd_probe_max_bytes(p) < min_bytes)
			continue;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "NCCL001", CD_SEV_FAIL, probe_host_name(e->r, p), subj,
			"all_reduce bus bandwidth is below the profile's floor", bw, floor_, "gbyte_s", CD_K_NCCL_AR_MIN);
		cd_finding_evidence(f, "nccl.all_reduce busbw %.1f GB/s at %s, floor %.1f GB/s", bw,
				    cd_fmt_bytes(size, sizeof(size), cd_probe_max_bytes(p)), floor_);
		n++;
	}
	return n;
}

static int rule_nccl_latency(struct cd_eval *e, const struct cd_host *unused)
{
	double warn = key(e, CD_K_NCCL_LAT_WARN);
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes && warn > 0; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		double us = cd_probe_lat_us(p);
		struct cd_finding *f;
		char subj[64];

		if (!cd_probe_is_collective(p) || e->judged[i] || isnan(us) || us <= warn)
			continue;
		probe_subject(p, subj, sizeof(subj));
		f = add(e, "NCCL002", CD_SEV_WARN, probe_host_name(e->r, p), subj,
			"collective latency at the smallest size is high", us, warn, "us", CD_K_NCCL_LAT_WARN);
		cd_finding_evidence(f, "%s: %.1f us at %" PRId64 " bytes", p->name, us, cd_probe_smallest(p)->bytes);
		n++;
	}
	return n;
}

/*
 * NCCL003. Under MPI every rank times its own collectives, from its own start to its own
 * completion. A rank that reaches each collective late makes the others wait inside
 * theirs, so its times are the shortest and every other rank's are longer by its delay;
 * a slow link or GPU instead slows all ranks alike (check --pairs and BAL find those).
 * One comparison per collective, variant and size that two or more ranks timed; a rank
 * is named when it alone finished first, by the threshold, in over half of them.
 */
struct late_cmp {
	const struct cd_probe_run *p;
	int64_t bytes;
	double us;
};

static int late_cmp_order(const void *a, const void *b)
{
	const struct late_cmp *x = a, *y = b;
	int c = strcmp(x->p->name, y->p->name);

	if (!c)
		c = strcmp(x->p->variant ? x->p->variant : "", y->p->variant ? y->p->variant : "");
	if (!c)
		c = (x->bytes > y->bytes) - (x->bytes < y->bytes);
	if (!c)
		c = (x->us > y->us) - (x->us < y->us);
	return c;
}

static int same_op(const struct late_cmp *x, const struct late_cmp *y)
{
	return !strcmp(x->p->name, y->p->name) && x->bytes == y->bytes &&
	       !strcmp(x->p->variant ? x->p->variant : "", y->p->variant ? y->p->variant : "");
}

struct late_tally {
	int64_t rank;
	size_t first;                   /* comparisons it finished first in, by the threshold */
	double *share, *wait;           /* of each */
	const struct late_cmp *worst[2]; /* its largest wait: it, and the next fastest rank */
};

static struct late_tally *tally_of(struct late_tally **t, size_t *n, int64_t rank, size_t cap)
{
	for (size_t i = 0; i < *n; i++)
		if ((*t)[i].rank == rank)
			return &(*t)[i];
	(*t)[*n].rank = rank;
	(*t)[*n].share = xcalloc(cap, sizeof(double));
	(*t)[*n].wait = xcalloc(cap, sizeof(double));
	return &(*t)[(*n)++];
}

static int rule_nccl_straggler(struct cd_eval *e, const struct cd_host *unused)
{
	double min_us = key(e, CD_K_NCCL_LATE_MIN_US), warn = pct(e, CD_K_NCCL_LATE_WARN_PCT),
	       fail = pct(e, CD_K_NCCL_LATE_FAIL_PCT);
	struct late_cmp *v;
	struct late_tally *t;
	size_t nv = 0, nt = 0, ncmp = 0, cap = 0;
	int n = 0;

	(void)unused;
	if (!(min_us > 0))
		return 0;
	for (size_t i = 0; i < e->r->n_probes; i++)
		if (cd_probe_is_collective(&e->r->probes[i]) && e->r->probes[i].rank != CD_NULL_I64)
			cap += e->r->probes[i].n_samples;
	v = xcalloc(cap + 1, sizeof(*v));
	t = xcalloc(cap + 1, sizeof(*t));
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];

		if (!cd_probe_is_collective(p) || p->rank == CD_NULL_I64)
			continue;
		for (size_t k = 0; k < p->n_samples; k++)
			if (isfinite(p->samples[k].time_us) && p->samples[k].time_us >= 0)
				v[nv++] = (struct late_cmp){ p, p->samples[k].bytes, p->samples[k].time_us };
	}
	qsort(v, nv, sizeof(*v), late_cmp_order);
	for (size_t a = 0, b; a < nv; a = b) {
		double wait;

		for (b = a + 1; b < nv && same_op(&v[a], &v[b]); b++)
			;
		if (b - a < 2)
			continue; /* one rank timed it: nothing to compare with */
		ncmp++;
		wait = v[a + 1].us - v[a].us;
		if (v[a].p->rank != v[a + 1].p->rank && wait >= min_us && wait >= warn * v[a + 1].us) {
			struct late_tally *x = tally_of(&t, &nt, v[a].p->rank, cap);

			x->share[x->first] = wait / v[a + 1].us;
			x->wait[x->first++] = wait;
			if (!x->worst[0] || wait > x->worst[1]->us - x->worst[0]->us)
				x->worst[0] = &v[a], x->worst[1] = &v[a + 1];
		}
	}
	for (size_t i = 0; i < nt; i++) {
		struct late_tally *x = &t[i];
		const struct late_cmp *lo = x->worst[0], *hi = x->worst[1];
		char subj[32], size[32];
		struct cd_finding *f;
		double share, wait;
		size_t first = x->first;

		if (2 * first <= ncmp)
			continue;
		share = cd_median(x->share, first);
		wait = cd_median(x->wait, first);
		snprintf(subj, sizeof(subj), "rank %" PRId64, x->rank);
		f = add(e, "NCCL003", share >= fail ? CD_SEV_FAIL : CD_SEV_WARN, probe_host_name(e->r, lo->p), subj,
			"the other ranks wait for this rank in every collective", wait, min_us, "us",
			CD_K_NCCL_LATE_MIN_US);
		cd_finding_evidence(f, "rank %" PRId64 " finished first in %zu of %zu comparisons (the same collective, "
				    "variant and size on every rank): the others were still waiting for it, a median "
				    "%.0f us (%.0f %% of their time) per operation", x->rank, first, ncmp, wait,
				    100.0 * share);
		cd_finding_evidence(f, "largest wait: %s %s at %s: rank %" PRId64 " took %.1f us, the next fastest rank "
				    "(%" PRId64 ") %.1f us", lo->p->name, lo->p->variant ? lo->p->variant : "",
				    cd_fmt_bytes(size, sizeof(size), lo->bytes), x->rank, lo->us, hi->p->rank, hi->us);
		cd_finding_evidence(f, "a rank that reaches each collective late (a busy CPU, another process on its GPU, "
				       "a slow data loader in training) is what NCCL and PyTorch timeouts report on the "
				       "other ranks");
		/* the others' long times are this wait: NCCL002 and BAL would only repeat it */
		for (size_t k = 0; k < e->r->n_probes; k++)
			if (cd_probe_is_collective(&e->r->probes[k]) && e->r->probes[k].rank != CD_NULL_I64 &&
			    e->r->probes[k].rank != x->rank)
				e->judged[k] = 1;
		n++;
	}
	for (size_t i = 0; i < nt; i++) {
		free(t[i].share);
		free(t[i].wait);
	}
	free(t);
	free(v);
	return n;
}

/* ---- balance: robust outliers (median/MAD) among GPUs of a host and among hosts ---- */

struct member {
	double v;
	size_t probe;            /* index of a probe with this value */
	const char *host;
};

/* Is x a low outlier among vals? Fills the median. */
static int low_outlier(const struct cd_eval *e, const double *vals, size_t n, double x, double *median)
{
	double *tmp = xcalloc(n + 1, sizeof(*tmp)), med, mad;
	int out;

	memcpy(tmp, vals, n * sizeof(*tmp));
	med = cd_median(tmp, n);
	mad = cd_mad(tmp, n, med);
	free(tmp);
	*median = med;
	if (!(med > 0) || (med - x) / med < pct(e, CD_K_BAL_MIN_DEV))
		return 0;
	/* 1.4826 MAD estimates the standard deviation of normal data (Iglewicz & Hoaglin) */
	out = mad == 0 || (med - x) / (1.4826 * mad) > key(e, CD_K_BAL_MAD_K);
	return out;
}

static int rule_gpu_outlier(struct cd_eval *e, const struct cd_host *h)
{
	size_t np = e->r->n_probes, n_found = 0;
	double *vals = xcalloc(np + 1, sizeof(*vals));
	size_t *idx = xcalloc(np + 1, sizeof(*idx));

	/* one comparison per probe name: the host's devices of that probe */
	for (size_t i = 0; i < np; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		size_t n = 0;

		if (p->device == CD_NULL_I64 || !cd_probe_is_bw(p) || cd_probe_host(e->r, p) != h)
			continue;
		for (size_t j = 0; j < i; j++) /* first of its name only */
			if (e->r->probes[j].name && !strcmp(e->r->probes[j].name, p->name) &&
			    e->r->probes[j].device != CD_NULL_I64 && cd_probe_host(e->r, &e->r->probes[j]) == h)
				goto next;
		for (size_t j = i; j < np; j++) {
			const struct cd_probe_run *q = &e->r->probes[j];

			if (q->name && !strcmp(q->name, p->name) && q->device != CD_NULL_I64 &&
			    cd_probe_host(e->r, q) == h && !isnan(cd_probe_bw(q))) {
				vals[n] = cd_probe_bw(q);
				idx[n++] = j;
			}
		}
		if ((double)n < key(e, CD_K_BAL_MIN_PEERS))
			continue;
		for (size_t k = 0; k < n; k++) {
			const struct cd_probe_run *q = &e->r->probes[idx[k]];
			struct cd_finding *f;
			double med;
			char subj[64];

			if (e->judged[idx[k]] || !low_outlier(e, vals, n, vals[k], &med))
				continue;
			probe_subject(q, subj, sizeof(subj));
			f = add(e, "BAL001", CD_SEV_WARN, h->hostname, subj, "GPU is slower than its peers", vals[k], med,
				"gbyte_s", CD_K_BAL_MAD_K);
			cd_finding_evidence(f, "%s %s: %.1f GB/s, %.0f %% below the median %.1f GB/s of %zu", q->name, subj,
					    vals[k], 100.0 * (med - vals[k]) / med, med, n);
			n_found++;
		}
next:;
	}
	free(vals);
	free(idx);
	return (int)n_found;
}

static int rule_host_outlier(struct cd_eval *e, const struct cd_host *unused)
{
	size_t nh = e->r->n_hosts, np = e->r->n_probes;
	double *hv = xcalloc(nh + 1, sizeof(*hv)), *tmp = xcalloc(np + 1, sizeof(*tmp));
	const struct cd_host **hosts = xcalloc(nh + 1, sizeof(*hosts));
	int found = 0;

	(void)unused;
	for (size_t i = 0; i < np && nh >= 2; i++) {
		const char *name = e->r->probes[i].name;
		size_t n = 0;

		if (!name || !cd_probe_is_bw(&e->r->probes[i]))
			continue;
		for (size_t j = 0; j < i; j++)
			if (e->r->probes[j].name && !strcmp(e->r->probes[j].name, name))
				goto next;
		/* each host's value: the median of its runs of this probe */
		for (size_t h = 0; h < nh; h++) {
			size_t m = 0;

			for (size_t j = i; j < np; j++) {
				const struct cd_probe_run *q = &e->r->probes[j];

				if (q->name && !strcmp(q->name, name) && cd_probe_host(e->r, q) == &e->r->hosts[h] &&
				    !isnan(cd_probe_bw(q)))
					tmp[m++] = cd_probe_bw(q);
			}
			if (m) {
				hv[n] = cd_median(tmp, m);
				hosts[n++] = &e->r->hosts[h];
			}
		}
		if ((double)n < key(e, CD_K_BAL_MIN_PEERS))
			continue;
		for (size_t k = 0; k < n; k++) {
			struct cd_finding *f;
			double med;

			if (!low_outlier(e, hv, n, hv[k], &med))
				continue;
			f = add(e, "BAL002", CD_SEV_WARN, hosts[k]->hostname, hosts[k]->hostname,
				"host is slower than the other hosts", hv[k], med, "gbyte_s", CD_K_BAL_MAD_K);
			cd_finding_evidence(f, "%s: median %.1f GB/s on %s, %.0f %% below the median %.1f GB/s of %zu hosts",
					    name, hv[k], hosts[k]->hostname, 100.0 * (med - hv[k]) / med, med, n);
			found++;
		}
next:;
	}
	free(hv);
	free(tmp);
	free(hosts);
	return found;
}

/* ---- stability ---- */

static int probe_status(struct cd_eval *e, enum cd_status st)
{
	int n = 0;

	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		struct cd_finding *f;
		char subj[96], where[64];

		if (p->status != st)
			continue;
		probe_subject(p, where, sizeof(where));
		snprintf(subj, sizeof(subj), "%s %s", p->name, where);
		if (p->status == CD_ST_TIMEOUT)
			f = add(e, "STAB001", CD_SEV_FAIL, probe_host_name(e->r, p), subj, "probe timed out", NAN, NAN, NULL,
				CD_K_NONE);
		else
			f = add(e, "STAB002", CD_SEV_FAIL, probe_host_name(e->r, p), subj, "probe failed", NAN, NAN, NULL,
				CD_K_NONE);
		cd_finding_evidence(f, "%s %s%s%s%s%s", p->name, cd_status_str(p->status), p->phase ? " in " : "",
				    p->phase ? p->phase : "", p->reason ? ": " : "", p->reason ? p->reason : "");
		n++;
	}
	return n;
}

static int rule_timeout(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return probe_status(e, CD_ST_TIMEOUT);
}

static int rule_probe_error(struct cd_eval *e, const struct cd_host *unused)
{
	(void)unused;
	return probe_status(e, CD_ST_ERROR);
}

static int rule_data_errors(struct cd_eval *e, const struct cd_host *unused)
{
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		int64_t wrong = cd_probe_errors(p);
		struct cd_finding *f;
		char subj[96], where[64];

		if (!wrong)
			continue;
		probe_subject(p, where, sizeof(where));
		snprintf(subj, sizeof(subj), "%s %s", p->name, where);
		f = add(e, "STAB003", CD_SEV_FAIL, probe_host_name(e->r, p), subj, "probe delivered wrong data",
			(double)wrong, 0, "elements", CD_K_NONE);
		for (size_t k = 0; k < p->n_samples; k++)
			if (p->samples[k].errors != CD_NULL_I64 && p->samples[k].errors > 0)
				cd_finding_evidence(f, "%" PRId64 " wrong elements at %" PRId64 " bytes", p->samples[k].errors,
						    p->samples[k].bytes);
		n++;
	}
	return n;
}

static int rule_spread(struct cd_eval *e, const struct cd_host *unused)
{
	double warn = pct(e, CD_K_STAB_SPREAD_WARN);
	int n = 0;

	(void)unused;
	for (size_t i = 0; i < e->r->n_probes; i++) {
		const struct cd_probe_run *p = &e->r->probes[i];
		double s = cd_probe_spread(p);
		const struct cd_probe_sample *big;
		struct cd_finding *f;
		char subj[96], where[64];

		if (isnan(s) || s <= warn)
			continue;
		big = cd_probe_largest(p);
		probe_subject(p, where, sizeof(where));
		snprintf(subj, sizeof(subj), "%s %s", p->name, where);
		f = add(e, "STAB004", CD_SEV_WARN, probe_host_name(e->r, p), subj, "run-to-run spread is high",
			100.0 * s, 100.0 * warn, "pct", CD_K_STAB_SPREAD_WARN);
		cd_finding_evidence(f, "%s at %" PRId64 " bytes: iterations took %.1f to %.1f us around a median of %.1f us",
				    p->name, big->bytes, big->min_time_us, big->max_time_us, big->time_us);
		n++;
	}
	return n;
}

/*
 * Order matters: COPY and P2P mark what they judged before BAL looks for outliers, and
 * NCCL003 marks the runs that waited for a straggler before NCCL002 and BAL see them.
 */
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
	{ "GPU001", "gpu", "fail", "fewer GPUs than gpu.count_expected", { CD_K_GPU_COUNT }, 1, rule_gpu_count },
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
	{ "NCCL001", "nccl", "fail", "nccl.all_reduce busbw below nccl.all_reduce_min_busbw_gbyte_s",
	  { CD_K_NCCL_AR_MIN, CD_K_NCCL_FLOOR_BYTES }, 0, rule_nccl_floor },
	{ "NCCL002", "nccl", "warn", "a collective's smallest-size time above nccl.latency_warn_us",
	  { CD_K_NCCL_LAT_WARN }, 0, rule_nccl_latency },
	{ "BAL001", "balance", "warn", "a GPU's bandwidth is a low outlier among the host's GPUs (median/MAD)",
	  { CD_K_BAL_MAD_K, CD_K_BAL_MIN_DEV, CD_K_BAL_MIN_PEERS }, 1, rule_gpu_outlier },
	{ "BAL002", "balance", "warn", "a host's bandwidth is a low outlier among the hosts (median/MAD)",
	  { CD_K_BAL_MAD_K, CD_K_BAL_MIN_DEV, CD_K_BAL_MIN_PEERS }, 0, rule_host_outlier },
	{ "STAB001", "stability", "fail", "a probe timed out", { 0 }, 0, rule_timeout },
	{ "STAB002", "stability", "fail", "a probe failed (status error)", { 0 }, 0, rule_probe_error },
	{ "STAB003", "stability", "fail", "a probe's data check found wrong elements", { 0 }, 0, rule_data_errors },
	{ "STAB004", "stability", "warn", "run-to-run spread at the largest size above stability.spread_warn_pct",
	  { CD_K_STAB_SPREAD_WARN }, 0, rule_spread },
};

static const struct cd_rule_group groups[] = {
	{ "system", "container, limits and IOMMU of each host" },
	{ "net", "interfaces: state, addresses, fabric MTU and speed" },
	{ "pcie", "PCIe link state of GPUs, NICs and HCAs; ACS" },
	{ "nvlink", "NVLink state and count per GPU" },
	{ "p2p", "GPU peer-to-peer bandwidth and NCCL's P2P decision" },
	{ "ib", "RDMA port state and rate" },
	{ "gpu", "GPU inventory" },
	{ "copy", "host<->device copy bandwidth against the PCIe link" },
	{ "nccl", "collective bandwidth and latency" },
	{ "balance", "outliers among GPUs and among hosts" },
	{ "stability", "probe timeouts, failures, data errors and spread" },
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
static size_t widest_comparison(const struct cd_results *r)
{
	size_t best = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		size_t same_host = 0, hosts = 0;

		if (!cd_probe_is_bw(p) || isnan(cd_probe_bw(p)))
			continue;
		for (size_t j = 0; j < r->n_probes; j++) {
			const struct cd_probe_run *q = &r->probes[j];

			if (q->name && !strcmp(q->name, p->name) && !isnan(cd_probe_bw(q)) && q->device != CD_NULL_I64 &&
			    cd_probe_host(r, q) == cd_probe_host(r, p))
				same_host++;
		}
		for (size_t h = 0; h < r->n_hosts; h++) {
			for (size_t j = 0; j < r->n_probes; j++) {
				const struct cd_probe_run *q = &r->probes[j];

				if (q->name && !strcmp(q->name, p->name) && !isnan(cd_probe_bw(q)) &&
				    cd_probe_host(r, q) == &r->hosts[h]) {
					hosts++;
					break;
				}
			}
		}
		best = same_host > best ? same_host : best;
		best = hosts > best ? hosts : best;
	}
	return best;
}

static char *why_not(const struct cd_results *r, const struct cd_conf *c, const char *group)
{
	if (!strcmp(group, "system"))
		return any_part_ok(r, CD_PART_SYSTEM) ? NULL : xstrdup("no host has its system section");
	if (!strcmp(group, "net"))
		return any_part_ok(r, CD_PART_NET) ? NULL : xstrdup("no host has its net section (interfaces)");
	if (!strcmp(group, "pcie"))
		return any_pcie_state(r) ? NULL
					 : xstrdup("no current and maximum PCIe generation/width for a GPU, NIC or HCA "
						   "(a live host's sysfs or NVML gives them)");
	if (!strcmp(group, "nvlink"))
		return count_gpus(r, 1) ? NULL : xstrdup("no NVLink facts for any GPU");
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
		return xstrdup("no RDMA device with ports");
	}
	if (!strcmp(group, "gpu"))
		return count_gpus(r, 0) || any_part_ok(r, CD_PART_GPU) ? NULL : xstrdup("no GPU inventory");
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
	return NULL;
}

/* NCCL001 judges only sizes the floor was measured at: say so when the sweep stopped short. */
static void note_nccl_floor(struct cd_results *r, const struct cd_conf *c)
{
	double floor_ = cd_conf_get(c, CD_K_NCCL_AR_MIN), min_bytes = cd_conf_get(c, CD_K_NCCL_FLOOR_BYTES);

	for (size_t i = 0; i < r->n_probes && floor_ > 0; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		int64_t max = cd_probe_max_bytes(p);
		char have[32], want[32], *why;

		if (!p->name || strcmp(p->name, "nccl.all_reduce") || isnan(cd_probe_bw(p)) || (double)max >= min_bytes)
			continue;
		why = xasprintf("nccl.all_reduce reached %s, below nccl.floor_min_bytes %s: its busbw floor is not judged",
				cd_fmt_bytes(have, sizeof(have), max), cd_fmt_bytes(want, sizeof(want), (int64_t)min_bytes));
		cd_rules_run_add_not_evaluated(&r->rules, "nccl (NCCL001)", why);
		free(why);
		return;
	}
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

int cd_rules_evaluate_conf(struct cd_results *r, const struct cd_conf *c)
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
	for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
		char *why = why_not(r, c, groups[g].name);

		if (why) {
			cd_rules_run_add_not_evaluated(&r->rules, groups[g].name, why);
			free(why);
			continue;
		}
		cd_strv_push(&r->rules.evaluated, groups[g].name);
	}
	note_nccl_floor(r, c);
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		int skip = 0;

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
	n += cd_rules_hosts_evaluate(r); /* the job as a whole: src/rules_hosts.c */
	free(e.judged);
	cite_thresholds(r, c, first);
	return n;
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
