/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules over the facts of a host: system, interfaces, PCIe, NVLink, peer-to-peer, RDMA, GPUs. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libdefaults.h"
#include "rules.h"
#include "rules_eval.h"

/* The section's status as evidence: "gpu discovery skipped: libcuda.so.1: cannot open …". */
static void section_evidence(struct cd_finding *f, const struct cd_host *h, enum cd_part part)
{
	const struct cd_section *s = &h->part[part];

	if (s->status != CD_ST_OK)
		cd_finding_evidence(f, "%s discovery %s: %s", cd_part_str(part), cd_status_str(s->status),
				    s->reason ? s->reason : "no reason recorded");
}

/* Imported and explained documents name hosts that were never discovered: expectations skip them. */
int host_discovered(const struct cd_host *h)
{
	for (int p = 0; p < CD_PART_COUNT; p++)
		if (h->part[p].status != CD_ST_SKIPPED)
			return 1;
	return 0;
}

/* ---- system ---- */

static int in_container(const struct cd_host *h)
{
	return h->system.container && strcmp(h->system.container, "none");
}

int rule_shm(struct cd_eval *e, const struct cd_host *h)
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

int rule_memlock(struct cd_eval *e, const struct cd_host *h)
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

int rule_iommu(struct cd_eval *e, const struct cd_host *h)
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

int rule_no_iface_up(struct cd_eval *e, const struct cd_host *h)
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

int rule_up_no_address(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *nic = &h->nics[i];
		struct cd_finding *f;

		/* bond and bridge ports carry traffic for their master, which holds the address */
		if (nic->kind == CD_NIC_LOOPBACK || nic->master || !cd_nic_is_up(nic) || cd_nic_has_address(nic))
			continue;
		/*
		 * IPoIB without an address is the default of many RDMA clusters (Azure's HPC images):
		 * NCCL and UCX use the verbs device, not the netdev; only sockets over it need one.
		 */
		f = add(e, "NET003", nic->kind == CD_NIC_PHYSICAL ? CD_SEV_WARN : CD_SEV_INFO,
			h->hostname, nic->name, "interface is up but has no address", NAN, NAN, NULL, CD_K_NONE);
		cd_finding_evidence(f, "%s (%s) is %s with no IPv4 and no global IPv6 address%s", nic->name,
				    cd_nic_kind_str(nic->kind), nic->state, nic->ipv6.n ? " (link-local only)" : "");
		n++;
	}
	return n;
}

/* NET006: fewer usable interfaces than expected (up, addressed, not loopback, virtual or enslaved). */
int rule_nic_count(struct cd_eval *e, const struct cd_host *h)
{
	double want = key(e, CD_K_NET_NICS);
	size_t n = 0;
	struct cd_finding *f;

	if (!(want > 0) || !host_discovered(h))
		return 0;
	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *nic = &h->nics[i];

		n += nic->kind != CD_NIC_LOOPBACK && nic->kind != CD_NIC_BRIDGE && nic->kind != CD_NIC_VETH &&
		     nic->kind != CD_NIC_TUNNEL && nic->kind != CD_NIC_VIRTUAL && !nic->master && cd_nic_is_up(nic) &&
		     cd_nic_has_address(nic);
	}
	if ((double)n >= want)
		return 0;
	f = add(e, "NET006", CD_SEV_FAIL, h->hostname, "interfaces", "fewer usable interfaces than the profile expects",
		(double)n, want, "interfaces", CD_K_NET_NICS);
	cd_finding_evidence(f, "%zu interface%s up with an address (not loopback, virtual or a bond/bridge port), %.0f "
			    "expected", n, n == 1 ? "" : "s", want);
	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *nic = &h->nics[i];

		if (nic->kind == CD_NIC_LOOPBACK || (cd_nic_is_up(nic) && cd_nic_has_address(nic)))
			continue;
		cd_finding_evidence(f, "%s (%s): %s%s", nic->name, cd_nic_kind_str(nic->kind),
				    nic->state ? nic->state : "state unknown",
				    cd_nic_has_address(nic) ? "" : ", no address");
	}
	section_evidence(f, h, CD_PART_NET);
	return 1;
}

static int port_active(const struct cd_ib_port *p)
{
	return p->state && !strcmp(p->state, "active");
}

/*
 * The netdev of a GPU rail (a RoCE rail, or IPoIB over one): its peers are the other rails.
 * The netdev of a front-end port seen through verbs is grouped with the front end.
 */
static int rdma_netdev(const struct cd_host *h, const struct cd_nic *n)
{
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];

			if (p->netdev && n->name && !strcmp(p->netdev, n->name))
				return !port_active(p) || cd_rdma_rail_port(h, h->hcas[i].name, p);
		}
	return 0;
}

/*
 * An interface's role: the netdev of an RDMA rail (2), the front end that carries the
 * default route (1), or another data interface (0).
 */
static int nic_role(const struct cd_host *h, const struct cd_nic *n)
{
	if (rdma_netdev(h, n))
		return 2;
	return n->default_route == CD_TRI_TRUE;
}

/*
 * A fabric port of one group: the same kind, and the same role: a 100 GbE front end at MTU
 * 1500 beside 200 GbE RoCE rails at 9000 is a design, not a mismatch, and so is a cloud VM's
 * front end on the default network (GCE: MTU 1460) beside GPU NICs of the same make at 8244;
 * one rail at 1500 among rails at 9000 is a mismatch.
 */
static int is_fabric(const struct cd_eval *e, const struct cd_host *h, const struct cd_nic *n, enum cd_nic_kind kind,
		     int role)
{
	return n->kind == kind && nic_role(h, n) == role && cd_nic_is_up(n) && n->speed_mbit_s != CD_NULL_I64 &&
	       (double)n->speed_mbit_s >= key(e, CD_K_NET_FABRIC_MIN);
}

/* NET004 (MTU) and NET005 (speed): a fabric port that differs from the most common value of its group. */
static int fabric_outliers(struct cd_eval *e, const struct cd_host *h, int speed)
{
	static const enum cd_nic_kind kinds[] = { CD_NIC_PHYSICAL, CD_NIC_IPOIB };
	int64_t *v = xcalloc(h->n_nics + 1, sizeof(*v));
	int found = 0;

	for (size_t g = 0; g < 3 * ARRAY_SIZE(kinds); g++) {
		const size_t k = g / 3;
		const int role = (int)(g % 3), rdma = role == 2;
		size_t n = 0;
		int64_t common;

		for (size_t i = 0; i < h->n_nics; i++)
			if (is_fabric(e, h, &h->nics[i], kinds[k], role))
				v[n++] = speed ? h->nics[i].speed_mbit_s : h->nics[i].mtu;
		if (n < 2)
			continue;
		common = mode_i64(v, n);
		for (size_t i = 0; i < h->n_nics; i++) {
			const struct cd_nic *nic = &h->nics[i];
			int64_t x = speed ? nic->speed_mbit_s : nic->mtu;
			struct cd_finding *f;

			if (!is_fabric(e, h, nic, kinds[k], role) || x == common || (speed && x > common))
				continue;
			if (speed) {
				f = add(e, "NET005", CD_SEV_WARN, h->hostname, nic->name,
					"fabric interface runs slower than its peers", (double)x, (double)common, "mbit_s",
					CD_K_NET_FABRIC_MIN);
				cd_finding_evidence(f, "%s (%s) negotiated %" PRId64 " Mb/s; most %s%s fabric ports have %" PRId64
						    " Mb/s", nic->name, cd_nic_kind_str(nic->kind), x,
						    cd_nic_kind_str(nic->kind), rdma ? " RDMA" : "", common);
			} else {
				f = add(e, "NET004", CD_SEV_WARN, h->hostname, nic->name,
					"fabric interface MTU differs from its peers", (double)x, (double)common, "bytes",
					CD_K_NET_FABRIC_MIN);
				cd_finding_evidence(f, "%s (%s) has MTU %" PRId64 "; most %s%s fabric ports have %" PRId64,
						    nic->name, cd_nic_kind_str(nic->kind), x, cd_nic_kind_str(nic->kind),
						    rdma ? " RDMA" : "", common);
			}
			found++;
		}
	}
	free(v);
	return found;
}

int rule_mtu_mismatch(struct cd_eval *e, const struct cd_host *h)
{
	return fabric_outliers(e, h, 0);
}

int rule_speed_mismatch(struct cd_eval *e, const struct cd_host *h)
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

int link_known(int64_t gen, int64_t width, int64_t max_gen, int64_t max_width)
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

int rule_gpu_link(struct cd_eval *e, const struct cd_host *h)
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

int rule_nic_link(struct cd_eval *e, const struct cd_host *h)
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

int rule_acs(struct cd_eval *e, const struct cd_host *h)
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

int rule_nvlink_down(struct cd_eval *e, const struct cd_host *h)
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

int rule_nvlink_count(struct cd_eval *e, const struct cd_host *h)
{
	double want = key(e, CD_K_NVL_LINKS);
	int n = 0, any = 0;

	for (size_t i = 0; i < h->n_gpus; i++)
		any |= h->gpus[i].n_nvlinks > 0;
	if (!(want > 0) || !h->n_gpus)
		return 0; /* no GPUs: GPU001 or GPU004 says why; their links are not a second fault */
	if (!any) {
		/* the profile expects NVLinks and NVML showed none: zero found, not "no data" */
		struct cd_finding *f = add(e, "NVL002", CD_SEV_FAIL, h->hostname, "gpus",
					   "GPUs have fewer NVLinks than their model", 0, want, "links", CD_K_NVL_LINKS);

		cd_finding_evidence(f, "no NVLink facts for any of %zu GPU%s; the profile expects %.0f per GPU", h->n_gpus,
				    h->n_gpus == 1 ? "" : "s", want);
		cd_finding_evidence(f, "NVML (libnvidia-ml.so.1) answers NVLink state: without it, or on PCIe GPUs, "
				       "no link is seen");
		return 1;
	}
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

int rule_p2p_frac(struct cd_eval *e, const struct cd_host *unused)
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

int rule_p2p_floor(struct cd_eval *e, const struct cd_host *unused)
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

int rule_nccl_p2p_off(struct cd_eval *e, const struct cd_host *h)
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

int rule_port_down(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_hcas; i++) {
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];
			struct cd_finding *f;
			char subj[96];

			unsigned wanted;

			if (port_active(p))
				continue;
			/*
			 * A port the site's own settings leave out of every library (an uncabled
			 * storage port beside NCCL_IB_HCA and UCX_NET_DEVICES naming the rails) is a
			 * fact of the design, not a fault: info.
			 */
			wanted = cd_rdma_port_selected(h, h->hcas[i].name, p);
			snprintf(subj, sizeof(subj), "%s/%" PRId64, h->hcas[i].name, p->port);
			f = add(e, "IB001", wanted ? CD_SEV_FAIL : CD_SEV_INFO, h->hostname, subj, "RDMA port is not active",
				NAN, NAN, NULL, CD_K_NONE);
			cd_finding_evidence(f, "%s: state %s, physical state %s, link layer %s", subj,
					    p->state ? p->state : "unknown", p->phys_state ? p->phys_state : "unknown",
					    p->link_layer ? p->link_layer : "unknown");
			if (!wanted)
				cd_finding_evidence(f, "no library would use it: NCCL_IB_HCA=%s leaves it out, and so does UCX "
						    "(UCX_NET_DEVICES=%s, UCX_TLS=%s)", cd_host_env(h, "NCCL_IB_HCA"),
						    cd_host_env(h, "UCX_NET_DEVICES") ? cd_host_env(h, "UCX_NET_DEVICES") : "all",
						    cd_host_env(h, "UCX_TLS") ? cd_host_env(h, "UCX_TLS") : "all");
			n++;
		}
	}
	return n;
}

/* IB004: fewer RDMA ports than expected; none at all when verbs found no device. Ports that
 * exist but are not active are IB001's. */
int rule_port_count(struct cd_eval *e, const struct cd_host *h)
{
	double want = key(e, CD_K_IB_PORTS);
	size_t ports = 0, active = 0;
	struct cd_finding *f;

	if (!(want > 0) || !host_discovered(h))
		return 0;
	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			ports++;
			active += port_active(&h->hcas[i].ports[j]);
		}
	if ((double)ports >= want)
		return 0;
	f = add(e, "IB004", CD_SEV_FAIL, h->hostname, "rdma ports", "fewer RDMA ports than the profile expects",
		(double)ports, want, "ports", CD_K_IB_PORTS);
	cd_finding_evidence(f, "%zu RDMA port%s on %zu device%s (%zu active), %.0f expected", ports, ports == 1 ? "" : "s",
			    h->n_hcas, h->n_hcas == 1 ? "" : "s", active, want);
	section_evidence(f, h, CD_PART_IB);
	{
		size_t hca_pci = 0;

		for (size_t i = 0; i < h->n_pci; i++)
			hca_pci += h->pci[i].kind == CD_PCI_HCA || h->pci[i].class_id == 0x0207;
		if (hca_pci > h->n_hcas)
			cd_finding_evidence(f, "%zu InfiniBand/RDMA-capable PCI function%s on the bus", hca_pci,
					    hca_pci == 1 ? "" : "s");
	}
	return 1;
}

/*
 * IB005: an active RoCE port whose GID table has no RoCE v2 entry with an IPv4 address.
 * NCCL from 2.21 picks that entry itself (ncclIbGetGidIndex), and before it needs it in
 * NCCL_IB_GID_INDEX; without one, traffic goes as RoCE v1, which no IP router forwards
 * and many fabrics do not carry. An unread table (no gids) says nothing.
 */
int rule_roce_v2_gid(struct cd_eval *e, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_hcas; i++) {
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];
			struct cd_finding *f;
			char subj[96], types[256];
			size_t used = 0;

			if (!port_active(p) || !p->link_layer || strcmp(p->link_layer, "ethernet") || !p->n_gids ||
			    p->roce_v2_gid_index != CD_NULL_I64)
				continue;
			snprintf(subj, sizeof(subj), "%s/%" PRId64, h->hcas[i].name, p->port);
			types[0] = '\0';
			for (size_t k = 0; k < p->n_gids && used < sizeof(types); k++)
				used += (size_t)snprintf(types + used, sizeof(types) - used, "%s%" PRId64 " %s%s",
							 k ? ", " : "", p->gids[k].index,
							 p->gids[k].type ? p->gids[k].type : "?",
							 p->gids[k].ipv4 == CD_TRI_TRUE ? " IPv4" : "");
			f = add(e, "IB005", CD_SEV_WARN, h->hostname, subj, "RoCE port has no RoCE v2 GID with an IPv4 address",
				NAN, NAN, NULL, CD_K_NONE);
			cd_finding_evidence(f, "%s is an active RoCE port; its GIDs: %s", subj, types);
			cd_finding_evidence(f, "RoCE v2 GIDs appear when the netdev%s%s has an IPv4 address and the RDMA "
					    "CM default is v2 (cma_roce_mode)", p->netdev ? " " : "",
					    p->netdev ? p->netdev : "");
			n++;
		}
	}
	return n;
}

/*
 * IB002 (below the host's usual rate) and IB003 (below the profile's floor), for the
 * host's GPU rails only (cd_rdma_rail_port): a front end or storage port seen through
 * verbs, of the other link layer or left out by the site's NCCL_IB_HCA, runs at its own
 * rate by design.
 */
static int rail_port(const struct cd_host *h, size_t hca, const struct cd_ib_port *p)
{
	return cd_rdma_rail_port(h, h->hcas[hca].name, p) && !isnan(p->rate_gbit_s);
}

static int port_rates(struct cd_eval *e, const struct cd_host *h, int floor_rule)
{
	double floor_ = key(e, CD_K_IB_MIN_RATE);
	const char *layer = NULL;
	int64_t *v = NULL, common;
	size_t cap = 0, n = 0, per_gpu = 1, designed;
	int found = 0;

	for (size_t i = 0; i < h->n_hcas; i++)
		for (size_t j = 0; j < h->hcas[i].n_ports; j++)
			if (rail_port(h, i, &h->hcas[i].ports[j])) {
				*CD_PUSH(v, n, cap) = (int64_t)h->hcas[i].ports[j].rate_gbit_s;
				layer = h->hcas[i].ports[j].link_layer;
			}
	common = mode_i64(v, n);
	free(v);
	/*
	 * The profile's floor is per GPU (one 400 Gb/s NDR port per H100 in HGX reference
	 * designs). A design with two rails per GPU (OCI's 16 x 200 Gb/s RoCE on 8 H100) meets
	 * it with two ports at half the rate each: the floor per port is the floor over the
	 * rails per GPU, rounded (ten ports for eight GPUs, storage included, is still one).
	 */
	/* the design's ports per GPU: the profile's expected count when it has one, so that a
	 * host missing rails (IB004's) does not also fail every survivor on a doubled floor */
	designed = key(e, CD_K_IB_PORTS) > 0 ? (size_t)key(e, CD_K_IB_PORTS) : n;
	if (h->n_gpus && designed >= 2 * h->n_gpus)
		per_gpu = (designed + h->n_gpus / 2) / h->n_gpus;
	floor_ /= (double)per_gpu;
	for (size_t i = 0; i < h->n_hcas; i++) {
		for (size_t j = 0; j < h->hcas[i].n_ports; j++) {
			const struct cd_ib_port *p = &h->hcas[i].ports[j];
			int below_floor = floor_ > 0 && p->rate_gbit_s < floor_;
			struct cd_finding *f;
			char subj[96];

			if (!rail_port(h, i, p))
				continue;
			snprintf(subj, sizeof(subj), "%s/%" PRId64, h->hcas[i].name, p->port);
			if (floor_rule && below_floor) {
				f = add(e, "IB003", CD_SEV_FAIL, h->hostname, subj,
					"RDMA port rate is below the profile's floor", p->rate_gbit_s, floor_, "gbit_s",
					CD_K_IB_MIN_RATE);
				if (per_gpu > 1)
					cd_finding_evidence(f, "%zu %s rails for %zu GPUs: the floor per GPU over %zu ports each",
							    n, layer ? layer : "RDMA", h->n_gpus, per_gpu);
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

int rule_port_slow(struct cd_eval *e, const struct cd_host *h)
{
	return port_rates(e, h, 0);
}

int rule_port_floor(struct cd_eval *e, const struct cd_host *h)
{
	return port_rates(e, h, 1);
}

/* ---- gpu ---- */

/*
 * Zero GPUs counts: a driver that does not load leaves no inventory, and a node whose
 * expected GPUs are all missing is the most broken of all, not an unevaluated one.
 */
int rule_gpu_count(struct cd_eval *e, const struct cd_host *h)
{
	double want = key(e, CD_K_GPU_COUNT);
	struct cd_finding *f;

	if (!(want > 0) || !host_discovered(h) || (double)h->n_gpus >= want)
		return 0;
	for (size_t i = 0; i < e->r->n_findings; i++)
		if (!strcmp(e->r->findings[i].id, "GPU004") && e->r->findings[i].host && h->hostname &&
		    !strcmp(e->r->findings[i].host, h->hostname))
			return 0; /* the driver lost them: GPU004 names them, a count would say it twice */
	f = add(e, "GPU001", CD_SEV_FAIL, h->hostname, "gpus", "fewer GPUs than the profile expects", (double)h->n_gpus,
		want, "gpus", CD_K_GPU_COUNT);
	cd_finding_evidence(f, "%zu GPU%s visible, %.0f expected%s", h->n_gpus, h->n_gpus == 1 ? "" : "s", want,
			    h->part[CD_PART_GPU].status == CD_ST_OK
				    ? " (a GPU that fell off the bus, or CUDA_VISIBLE_DEVICES)" : "");
	section_evidence(f, h, CD_PART_GPU);
	if (h->n_pci && h->part[CD_PART_TOPO].status == CD_ST_OK)
		cd_finding_evidence(f, "%zu NVIDIA GPU%s on the PCI bus", cd_host_nvidia_pci_gpus(h),
				    cd_host_nvidia_pci_gpus(h) == 1 ? "" : "s");
	return 1;
}

/*
 * GPU004: the PCI bus shows NVIDIA GPUs the driver did not give us. All of them missing
 * is a driver that did not load or initialise; some of them missing, outside a container
 * and without a *_VISIBLE_DEVICES filter, is a GPU the driver lost (Xid 79, fell off the bus).
 */
int rule_gpu_driver(struct cd_eval *e, const struct cd_host *h)
{
	size_t on_bus = cd_host_nvidia_pci_gpus(h);
	const struct cd_section *s = &h->part[CD_PART_GPU];
	int filtered = 0, contained = h->system.container && strcmp(h->system.container, "none");
	struct cd_finding *f;

	if (!on_bus || (double)h->n_gpus >= (double)on_bus)
		return 0;
	filtered = cd_host_env(h, "CUDA_VISIBLE_DEVICES") || cd_host_env(h, "NVIDIA_VISIBLE_DEVICES");
	if (h->n_gpus && (filtered || contained || s->status != CD_ST_OK))
		return 0;
	f = add(e, "GPU004", CD_SEV_FAIL, h->hostname, "gpus",
		h->n_gpus ? "the driver lost GPUs that are on the PCI bus"
			  : "NVIDIA GPUs on the PCI bus but the driver could not be used", (double)h->n_gpus,
		(double)on_bus, "gpus", CD_K_NONE);
	cd_finding_evidence(f, "%zu NVIDIA GPU%s on the PCI bus, %zu usable through the driver", on_bus,
			    on_bus == 1 ? "" : "s", h->n_gpus);
	section_evidence(f, h, CD_PART_GPU);
	for (size_t i = 0, named = 0; i < h->n_pci && named < 8; i++) {
		int seen = 0;

		if (!cd_pci_nvidia_gpu(&h->pci[i]))
			continue;
		for (size_t j = 0; j < h->n_gpus && !seen; j++)
			seen = h->gpus[j].bus_id && h->pci[i].bus_id && !strcasecmp(h->gpus[j].bus_id, h->pci[i].bus_id);
		if (seen)
			continue;
		cd_finding_evidence(f, "%s %s%s(class 0x%04" PRIx64 ") is not among the GPUs the driver gave", h->pci[i].bus_id,
				    h->pci[i].device ? h->pci[i].device : "", h->pci[i].device ? " " : "",
				    h->pci[i].class_id);
		named++;
	}
	if (!h->n_gpus && cd_host_env(h, "CUDA_VISIBLE_DEVICES"))
		cd_finding_evidence(f, "CUDA_VISIBLE_DEVICES='%s' is set: CUDA shows only the GPUs it names",
				    cd_host_env(h, "CUDA_VISIBLE_DEVICES"));
	if (h->versions.driver)
		cd_finding_evidence(f, "kernel module nvidia %s is loaded", h->versions.driver);
	else
		cd_finding_evidence(f, "no nvidia kernel module version in /sys/module/nvidia");
	return 1;
}

int rule_gpu_mixed(struct cd_eval *e, const struct cd_host *h)
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

int rule_persistence(struct cd_eval *e, const struct cd_host *h)
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
