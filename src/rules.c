/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule table: C predicates over the results document that append findings.
 * Ids are stable and never reused; each is documented in man/commdiag.1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "rules_hosts.h"

/* NCCL needs /dev/shm for intra-node transport buffers; Docker's default is 64 MiB. */
#define SHM_MIN_BYTES (1LL << 30)

static int in_container(const struct cd_host *h)
{
	return h->system.container && strcmp(h->system.container, "none");
}

static int rule_shm(struct cd_results *r, const struct cd_host *h)
{
	char have[32], want[32];
	struct cd_finding *f;

	if (!in_container(h) || h->system.shm_bytes == CD_NULL_I64 || h->system.shm_bytes >= SHM_MIN_BYTES)
		return 0;
	cd_fmt_bytes(have, sizeof(have), h->system.shm_bytes);
	cd_fmt_bytes(want, sizeof(want), SHM_MIN_BYTES);
	f = cd_results_add_finding(r, "SYS001", h->n_gpus >= 2 ? CD_SEV_FAIL : CD_SEV_WARN, h->hostname, "/dev/shm",
				   "/dev/shm is too small for NCCL's shared-memory transport");
	f->measured = (double)h->system.shm_bytes;
	f->expected = (double)SHM_MIN_BYTES;
	f->unit = xstrdup("bytes");
	cd_finding_evidence(f, "/dev/shm is %s inside a %s container, below %s", have, h->system.container, want);
	return 1;
}

static int rule_memlock(struct cd_results *r, const struct cd_host *h)
{
	struct cd_finding *f;
	char have[32];

	if (h->n_hcas == 0 || h->system.memlock_unlimited != CD_TRI_FALSE || h->system.memlock_bytes == CD_NULL_I64)
		return 0;
	cd_fmt_bytes(have, sizeof(have), h->system.memlock_bytes);
	f = cd_results_add_finding(r, "SYS002", CD_SEV_FAIL, h->hostname, "memlock",
				   "locked-memory limit is too low for RDMA registration");
	f->measured = (double)h->system.memlock_bytes;
	f->unit = xstrdup("bytes");
	cd_finding_evidence(f, "RLIMIT_MEMLOCK is %s with %zu RDMA device%s present; verbs needs unlimited", have,
			    h->n_hcas, h->n_hcas == 1 ? "" : "s");
	return 1;
}

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

static int rule_no_iface_up(struct cd_results *r, const struct cd_host *h)
{
	struct cd_finding *f;

	if (h->part[CD_PART_NET].status != CD_ST_OK)
		return 0;
	for (size_t i = 0; i < h->n_nics; i++)
		if (h->nics[i].kind != CD_NIC_LOOPBACK && cd_nic_is_up(&h->nics[i]))
			return 0;
	f = cd_results_add_finding(r, "NET002", CD_SEV_FAIL, h->hostname, "interfaces",
				   "no interface other than loopback is up");
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

static int rule_up_no_address(struct cd_results *r, const struct cd_host *h)
{
	int n = 0;

	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *nic = &h->nics[i];
		struct cd_finding *f;

		/* bond and bridge ports carry traffic for their master, which holds the address */
		if (nic->kind == CD_NIC_LOOPBACK || nic->master || !cd_nic_is_up(nic) || has_usable_address(nic))
			continue;
		f = cd_results_add_finding(r, "NET003",
					   nic->kind == CD_NIC_PHYSICAL || nic->kind == CD_NIC_IPOIB ? CD_SEV_WARN
												       : CD_SEV_INFO,
					   h->hostname, nic->name, "interface is up but has no address");
		cd_finding_evidence(f, "%s (%s) is %s with no IPv4 and no global IPv6 address%s", nic->name,
				    cd_nic_kind_str(nic->kind), nic->state, nic->ipv6.n ? " (link-local only)" : "");
		n++;
	}
	return n;
}

static const struct cd_rule rules[] = {
	{ "SYS001", "system", "/dev/shm below 1 GiB inside a container", rule_shm },
	{ "SYS002", "system", "memlock limit below unlimited while RDMA devices exist", rule_memlock },
	{ "NET002", "net", "no interface other than loopback is up", rule_no_iface_up },
	{ "NET003", "net", "an interface is up but has no address", rule_up_no_address },
};

const struct cd_rule *cd_rules_table(size_t *n)
{
	*n = ARRAY_SIZE(rules);
	return rules;
}

int cd_rules_evaluate(struct cd_results *r)
{
	int n = 0;

	for (size_t h = 0; h < r->n_hosts; h++)
		for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
			n += rules[i].check(r, &r->hosts[h]);
	n += cd_rules_hosts_evaluate(r); /* the job as a whole: src/rules_hosts.c */
	return n;
}
