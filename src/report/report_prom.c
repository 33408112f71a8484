/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results document as Prometheus metrics: the text exposition format that
 * node_exporter's textfile collector reads (no timestamps, no exemplars).
 *
 * Each family is written in one pass over the document, so its samples are contiguous
 * and its # HELP / # TYPE come first and once; a family without a sample is left out.
 * Units are in the names and in base units (seconds, bytes, bytes per second, ratios
 * 0-1). A fact the document does not know (null) is no sample, never a 0. Every metric
 * is a gauge: each run replaces the file, nothing accumulates across runs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline.h"
#include "measure.h"
#include "report.h"
#include "report_scale.h"
#include "util.h"

/*
 * Above CD_SCALE_HOSTS hosts (issue 18: a 4096-host document made 664k series) only this
 * many hosts get series of their own: the worst, with a finding at warn or fail (BAL002's
 * outliers among them). Every host's sample also goes into its family's fleet aggregate,
 * commdiag_fleet_<family>{<class labels>, stat="min"|"median"|"max"} and its _samples, keyed by
 * the labels that name a class (probe, status, severity, rule id...; class_label), never a
 * host, GPU, interface or peer. So a file holds at most CD_PROM_HOSTS hosts' own series
 * (about 300 for an 8-GPU host) plus 4 per family and class of labels, whatever the number
 * of hosts; up to CD_SCALE_HOSTS hosts it is as before, every host in full.
 */
#define CD_PROM_HOSTS 64

struct prom {
	struct cd_out *o;
	const char *name;       /* the family being written */
	const char *help;
	int header;             /* its # HELP / # TYPE are out */
	char *lbl;              /* labels of the next sample, without braces: a="x",b="y" */
	size_t lbl_len, lbl_cap;
	/*
	 * Label sets already written in this family: node_exporter refuses a whole file with a
	 * repeated series, so a second one (two identical probe runs, say) is dropped with a warning.
	 */
	char **seen;
	size_t seen_cap, seen_n;
	size_t dropped;         /* over all families, reported once at the end */
	char *first_dropped;
	/*
	 * Above CD_SCALE_HOSTS hosts (fleet, report_scale.h): a sample with a host label is
	 * written only for the listed hosts, the worst CD_PROM_HOSTS with a finding at warn or
	 * fail; every host's sample goes into its family's fleet aggregate, by key.
	 */
	int fleet;
	const char **listed;
	size_t n_listed;
	const char *host;       /* the host label of the next sample; NULL: none */
	char *key;              /* its labels that name a class, not a thing: the aggregate's key */
	size_t key_len, key_cap;
	struct prom_agg *agg;   /* the current family's aggregates, first seen first */
	size_t n_agg, cap_agg;
	char *own[4];           /* the names and help of the last fleet families */
};

struct prom_agg {
	char *key;
	double *v;
	size_t n, cap;
};

static void lbl_reserve(struct prom *pm, size_t more)
{
	if (pm->lbl_len + more + 1 <= pm->lbl_cap)
		return;
	while (pm->lbl_len + more + 1 > pm->lbl_cap)
		pm->lbl_cap = pm->lbl_cap ? pm->lbl_cap * 2 : 256;
	pm->lbl = xrealloc(pm->lbl, pm->lbl_cap);
}

/*
 * Labels that name a class (an enumeration or a catalog entry), never one host's thing: a
 * fleet aggregate is keyed by these alone, so its series are bounded by the catalogs, not
 * by hosts, GPUs, interfaces or peers.
 */
static int class_label(const char *name)
{
	static const char *const names[] = { "probe", "variant", "section", "status", "kind", "state", "phys_state",
					     "link_layer", "id", "severity", "threshold" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

static void lbl_reset(struct prom *pm)
{
	lbl_reserve(pm, 0);
	pm->lbl_len = 0;
	pm->lbl[0] = '\0';
	pm->host = NULL;
	pm->key_len = 0;
	if (pm->key)
		pm->key[0] = '\0';
}

/* A label; NULL (not known) adds none, which Prometheus reads the same as an empty value. */
static void lbl_str(struct prom *pm, const char *name, const char *v)
{
	size_t at = pm->lbl_len;

	if (!v)
		return;
	if (!strcmp(name, "host"))
		pm->host = v;
	/* worst case every byte doubles, plus name, '=', quotes and comma */
	lbl_reserve(pm, strlen(name) + 2 * strlen(v) + 4);
	pm->lbl_len += (size_t)sprintf(pm->lbl + pm->lbl_len, "%s%s=\"", pm->lbl_len ? "," : "", name);
	for (const char *c = v; *c; c++) {
		/* the exposition format escapes exactly these three in label values */
		if (*c == '\\' || *c == '"' || *c == '\n') {
			pm->lbl[pm->lbl_len++] = '\\';
			pm->lbl[pm->lbl_len++] = *c == '\n' ? 'n' : *c;
		} else {
			pm->lbl[pm->lbl_len++] = *c;
		}
	}
	pm->lbl[pm->lbl_len++] = '"';
	pm->lbl[pm->lbl_len] = '\0';
	if (pm->fleet && class_label(name)) {
		size_t add = pm->lbl_len - at + 1;

		if (pm->key_len + add + 1 > pm->key_cap) {
			pm->key_cap = 2 * (pm->key_len + add + 1) + 64;
			pm->key = xrealloc(pm->key, pm->key_cap);
		}
		/* the label as written, its leading comma dropped and put back between keys */
		pm->key_len += (size_t)sprintf(pm->key + pm->key_len, "%s%s", pm->key_len ? "," : "",
					       pm->lbl + at + (at ? 1 : 0));
	}
}

static void lbl_i64(struct prom *pm, const char *name, int64_t v)
{
	char buf[24];

	if (v == CD_NULL_I64)
		return;
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	lbl_str(pm, name, buf);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void seen_clear(struct prom *pm)
{
	for (size_t i = 0; i < pm->seen_cap; i++)
		free(pm->seen[i]);
	free(pm->seen);
	pm->seen = NULL;
	pm->seen_cap = pm->seen_n = 0;
}

/* Open addressing, kept at most half full; returns 1 when s was already there. */
static int seen_add(struct prom *pm, const char *s)
{
	size_t i;

	if (2 * (pm->seen_n + 1) > pm->seen_cap) {
		char **old = pm->seen;
		size_t old_cap = pm->seen_cap;

		pm->seen_cap = old_cap ? old_cap * 2 : 64;
		pm->seen = xcalloc(pm->seen_cap, sizeof(*pm->seen));
		for (size_t k = 0; k < old_cap; k++) {
			if (!old[k])
				continue;
			for (i = hash_str(old[k]) & (pm->seen_cap - 1); pm->seen[i]; i = (i + 1) & (pm->seen_cap - 1))
				;
			pm->seen[i] = old[k];
		}
		free(old);
	}
	for (i = hash_str(s) & (pm->seen_cap - 1); pm->seen[i]; i = (i + 1) & (pm->seen_cap - 1))
		if (!strcmp(pm->seen[i], s))
			return 1;
	pm->seen[i] = xstrdup(s);
	pm->seen_n++;
	return 0;
}

/* Labels already escaped and joined (an aggregate's key), appended as they are. */
static void lbl_raw(struct prom *pm, const char *text)
{
	size_t n = strlen(text);

	if (!n)
		return;
	lbl_reserve(pm, n + 1);
	pm->lbl_len += (size_t)sprintf(pm->lbl + pm->lbl_len, "%s%s", pm->lbl_len ? "," : "", text);
}

static int is_listed(const struct prom *pm, const char *host)
{
	for (size_t i = 0; i < pm->n_listed; i++)
		if (!strcmp(pm->listed[i], host))
			return 1;
	return 0;
}

static void agg_add(struct prom *pm, double v)
{
	const char *key = pm->key ? pm->key : "";
	struct prom_agg *a = NULL;

	/* the samples of one key mostly come together: search from the last */
	for (size_t i = pm->n_agg; i-- > 0 && !a;)
		if (!strcmp(pm->agg[i].key, key))
			a = &pm->agg[i];
	if (!a) {
		a = CD_PUSH(pm->agg, pm->n_agg, pm->cap_agg);
		memset(a, 0, sizeof(*a));
		a->key = xstrdup(key);
	}
	*CD_PUSH(a->v, a->n, a->cap) = v;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static void family(struct prom *pm, const char *name, const char *help);
static void sample(struct prom *pm, double v);

/*
 * The family just written, over every host: per key, its lowest value, median and highest
 * (stat="min", "median", "max"), then how many samples they are over.
 */
static void agg_flush(struct prom *pm)
{
	/* not "quantile": that label belongs to summaries, whose _sum these have not (promtool) */
	static const char *const qname[] = { "min", "median", "max" };
	struct prom_agg *v = pm->agg;
	size_t n = pm->n_agg;
	const char *base = pm->name;

	if (!n)
		return;
	pm->n_agg = 0;
	pm->fleet = 0; /* what follows is the fleet's own, no host's */
	for (size_t i = 0; i < ARRAY_SIZE(pm->own); i++)
		free(pm->own[i]);
	if (!strncmp(base, "commdiag_", 9))
		base += 9;
	pm->own[0] = xasprintf("commdiag_fleet_%s", base);
	pm->own[1] = xasprintf("Over every host (more than %d): the lowest, median and highest commdiag_%s per class "
			       "of labels. %s", CD_SCALE_HOSTS, base, pm->help);
	pm->own[2] = xasprintf("commdiag_fleet_%s_samples", base);
	pm->own[3] = xasprintf("Over every host (more than %d): how many samples of commdiag_%s stat is over.",
			       CD_SCALE_HOSTS, base);
	family(pm, pm->own[0], pm->own[1]);
	for (size_t i = 0; i < n; i++) {
		qsort(v[i].v, v[i].n, sizeof(*v[i].v), cmp_dbl);
		for (size_t q = 0; q < ARRAY_SIZE(qname); q++) {
			size_t m = v[i].n;

			lbl_raw(pm, v[i].key);
			lbl_str(pm, "stat", qname[q]);
			/* the median of an even count is the mean of the middle two */
			sample(pm, q == 0 ? v[i].v[0] : q == 2 ? v[i].v[m - 1] :
				   m % 2 ? v[i].v[m / 2] : (v[i].v[m / 2 - 1] + v[i].v[m / 2]) / 2);
		}
	}
	family(pm, pm->own[2], pm->own[3]);
	for (size_t i = 0; i < n; i++) {
		lbl_raw(pm, v[i].key);
		sample(pm, (double)v[i].n);
		free(v[i].key);
		free(v[i].v);
	}
	pm->fleet = 1;
}

/* Start a family; its header is written with its first sample. */
static void family(struct prom *pm, const char *name, const char *help)
{
	agg_flush(pm);
	pm->name = name;
	pm->help = help;
	pm->header = 0;
	seen_clear(pm);
	lbl_reset(pm);
}

/*
 * Write one sample with the labels built since the last one. A value that is not a
 * finite number is a fact the document does not have: no sample.
 */
static void sample(struct prom *pm, double v)
{
	char num[32];

	if (pm->fleet && pm->host) {
		if (isfinite(v))
			agg_add(pm, v);
		if (!is_listed(pm, pm->host)) {
			lbl_reset(pm);
			return;
		}
	}
	if (!isfinite(v)) {
		lbl_reset(pm);
		return;
	}
	if (seen_add(pm, pm->lbl)) {
		if (!pm->dropped++)
			pm->first_dropped = xasprintf("%s{%s}", pm->name, pm->lbl);
		lbl_reset(pm);
		return;
	}
	if (!pm->header) {
		out_raw(pm->o, "# HELP %s %s\n# TYPE %s gauge\n", pm->name, pm->help, pm->name);
		pm->header = 1;
	}
	/*
	 * 15 digits: a document's decimals come back as written after the unit conversion
	 * (17.9 us is 1.79e-05, not 1.7899999999999998e-05); measurements have far fewer.
	 */
	snprintf(num, sizeof(num), "%.15g", v);
	out_raw(pm->o, pm->lbl_len ? "%s{%s} %s\n" : "%s%s %s\n", pm->name, pm->lbl, num);
	lbl_reset(pm);
}

static void sample_i64(struct prom *pm, int64_t v)
{
	sample(pm, v == CD_NULL_I64 ? NAN : (double)v);
}

static void sample_tri(struct prom *pm, int v)
{
	sample(pm, v == CD_TRI_NULL ? NAN : v == CD_TRI_TRUE);
}

/* "2026-11-21T10:00:00Z" as Unix seconds; NAN when absent (COMMDIAG_DETERMINISTIC) or not in that form. */
static double started_seconds(const char *s)
{
	struct tm tm;
	int n = 0;

	if (!s)
		return NAN;
	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &n) != 6 || s[n] != '\0')
		return NAN;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm);
}

/* ---- the run ---- */

static void run_families(struct prom *pm, const struct cd_results *r)
{
	family(pm, "commdiag_info", "The commdiag build that wrote the document, the command and the rules profile.");
	lbl_str(pm, "version", r->tool_version);
	lbl_str(pm, "mode", r->run.mode);
	lbl_str(pm, "profile", r->rules.profile);
	sample(pm, 1);

	family(pm, "commdiag_last_run_timestamp_seconds", "When the run started, Unix time.");
	sample(pm, started_seconds(r->run.started));

	family(pm, "commdiag_run_duration_seconds", "How long the run took.");
	sample(pm, r->run.duration_s);

	family(pm, "commdiag_run_complete",
	       "1 when the run went to its end, 0 when a timeout or signal stopped it (the document is partial).");
	sample(pm, !r->run.stopped_by);

	family(pm, "commdiag_hosts", "Hosts in the document.");
	sample(pm, (double)r->n_hosts);

	family(pm, "commdiag_discovery_ok", "1 when a host's discovery section is ok, 0 when skipped, failed or timed out.");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (int k = 0; k < CD_PART_COUNT; k++) {
			lbl_str(pm, "host", r->hosts[i].hostname);
			lbl_str(pm, "section", cd_part_str((enum cd_part)k));
			sample(pm, r->hosts[i].part[k].status == CD_ST_OK);
		}
}

/* ---- host facts: GPUs, interfaces, RDMA ports ---- */

static void gpu_labels(struct prom *pm, const struct cd_host *h, const struct cd_gpu *g)
{
	lbl_str(pm, "host", h->hostname);
	lbl_i64(pm, "gpu", g->index);
	/* dcgm-exporter's label for the same GPU: its series join ours on it */
	lbl_str(pm, "UUID", g->uuid);
}

enum gpu_fact { G_GEN, G_WIDTH, G_MAX_GEN, G_MAX_WIDTH, G_LINK, G_NVL_UP, G_NVL };

static double gpu_fact(const struct cd_gpu *g, enum gpu_fact f)
{
	size_t up = 0;

	switch (f) {
	case G_GEN:
		return g->pcie_gen == CD_NULL_I64 ? NAN : (double)g->pcie_gen;
	case G_WIDTH:
		return g->pcie_width == CD_NULL_I64 ? NAN : (double)g->pcie_width;
	case G_MAX_GEN:
		return g->pcie_max_gen == CD_NULL_I64 ? NAN : (double)g->pcie_max_gen;
	case G_MAX_WIDTH:
		return g->pcie_max_width == CD_NULL_I64 ? NAN : (double)g->pcie_max_width;
	case G_LINK:
		return g->pcie_link_gbyte_s * 1e9;
	case G_NVL_UP:
		for (size_t l = 0; l < g->n_nvlinks; l++)
			up += g->nvlinks[l].up == CD_TRI_TRUE;
		return g->n_nvlinks ? (double)up : NAN;
	case G_NVL:
		return g->n_nvlinks ? (double)g->n_nvlinks : NAN;
	}
	return NAN;
}

static void gpu_families(struct prom *pm, const struct cd_results *r)
{
	static const struct {
		enum gpu_fact f;
		const char *name, *help;
	} fams[] = {
		{ G_GEN, "commdiag_gpu_pcie_link_gen", "PCIe generation the GPU's link runs at now." },
		{ G_WIDTH, "commdiag_gpu_pcie_link_width", "PCIe lanes the GPU's link runs at now." },
		{ G_MAX_GEN, "commdiag_gpu_pcie_link_max_gen", "Highest PCIe generation of the GPU's link." },
		{ G_MAX_WIDTH, "commdiag_gpu_pcie_link_max_width", "Widest PCIe link the GPU supports." },
		{ G_LINK, "commdiag_gpu_pcie_link_bytes_per_second",
		  "Theoretical per-direction rate of the GPU's PCIe link at its current state." },
		{ G_NVL_UP, "commdiag_gpu_nvlinks_up", "NVLinks of the GPU that are up." },
		{ G_NVL, "commdiag_gpu_nvlinks", "NVLinks of the GPU." },
	};

	for (size_t k = 0; k < ARRAY_SIZE(fams); k++) {
		family(pm, fams[k].name, fams[k].help);
		for (size_t i = 0; i < r->n_hosts; i++)
			for (size_t j = 0; j < r->hosts[i].n_gpus; j++) {
				gpu_labels(pm, &r->hosts[i], &r->hosts[i].gpus[j]);
				sample(pm, gpu_fact(&r->hosts[i].gpus[j], fams[k].f));
			}
	}
}

static void nic_families(struct prom *pm, const struct cd_results *r)
{
	family(pm, "commdiag_nic_info", "A network interface: its kind and operational state, value 1.");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_nics; j++) {
			const struct cd_nic *n = &r->hosts[i].nics[j];

			lbl_str(pm, "host", r->hosts[i].hostname);
			lbl_str(pm, "iface", n->name);
			lbl_str(pm, "kind", cd_nic_kind_str(n->kind));
			lbl_str(pm, "state", n->state);
			sample(pm, 1);
		}
	family(pm, "commdiag_nic_up", "1 when the interface's operational state is up.");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_nics; j++) {
			const struct cd_nic *n = &r->hosts[i].nics[j];

			lbl_str(pm, "host", r->hosts[i].hostname);
			lbl_str(pm, "iface", n->name);
			sample(pm, n->state ? !strcmp(n->state, "up") : NAN);
		}
	family(pm, "commdiag_nic_mtu_bytes", "MTU of the interface.");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_nics; j++) {
			lbl_str(pm, "host", r->hosts[i].hostname);
			lbl_str(pm, "iface", r->hosts[i].nics[j].name);
			sample_i64(pm, r->hosts[i].nics[j].mtu);
		}
	family(pm, "commdiag_nic_speed_bytes_per_second", "Link speed of the interface as the driver reports it.");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_nics; j++) {
			int64_t mbit = r->hosts[i].nics[j].speed_mbit_s;

			lbl_str(pm, "host", r->hosts[i].hostname);
			lbl_str(pm, "iface", r->hosts[i].nics[j].name);
			/* through the one bits-to-bytes helper: Mb/s are 1e-3 Gb/s */
			sample(pm, mbit == CD_NULL_I64 ? NAN : cd_gbit_to_gbyte((double)mbit / 1e3) * 1e9);
		}
}

static void port_labels(struct prom *pm, const struct cd_host *h, const struct cd_hca *c, const struct cd_ib_port *p)
{
	lbl_str(pm, "host", h->hostname);
	lbl_str(pm, "hca", c->name);
	lbl_i64(pm, "port", p->port);
}

static void hca_families(struct prom *pm, const struct cd_results *r)
{
	family(pm, "commdiag_hca_port_info", "An RDMA port: state, physical state and link layer, value 1.");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_hcas; j++)
			for (size_t k = 0; k < r->hosts[i].hcas[j].n_ports; k++) {
				const struct cd_ib_port *p = &r->hosts[i].hcas[j].ports[k];

				port_labels(pm, &r->hosts[i], &r->hosts[i].hcas[j], p);
				lbl_str(pm, "state", p->state);
				lbl_str(pm, "phys_state", p->phys_state);
				lbl_str(pm, "link_layer", p->link_layer);
				sample(pm, 1);
			}
	family(pm, "commdiag_hca_port_active", "1 when the RDMA port's state is active.");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_hcas; j++)
			for (size_t k = 0; k < r->hosts[i].hcas[j].n_ports; k++) {
				const struct cd_ib_port *p = &r->hosts[i].hcas[j].ports[k];

				port_labels(pm, &r->hosts[i], &r->hosts[i].hcas[j], p);
				sample(pm, p->state ? !strcmp(p->state, "active") : NAN);
			}
	family(pm, "commdiag_hca_port_rate_bytes_per_second", "Rate of the RDMA port (width times lane rate).");
	for (size_t i = 0; i < r->n_hosts; i++)
		for (size_t j = 0; j < r->hosts[i].n_hcas; j++)
			for (size_t k = 0; k < r->hosts[i].hcas[j].n_ports; k++) {
				const struct cd_ib_port *p = &r->hosts[i].hcas[j].ports[k];

				port_labels(pm, &r->hosts[i], &r->hosts[i].hcas[j], p);
				sample(pm, cd_port_gbyte_s(p->rate_gbit_s) * 1e9);
			}
}

/* ---- probes ---- */

/* The host a probe ran on, by name: its own, else the document's only host. */
static const char *probe_host(const struct cd_results *r, const struct cd_probe_run *p)
{
	const struct cd_host *h;

	if (p->host)
		return p->host;
	h = cd_probe_host(r, p);
	return h ? h->hostname : NULL;
}

static void probe_labels(struct prom *pm, const struct cd_results *r, const struct cd_probe_run *p)
{
	/* device is the host's GPU index, as the score card reads it (cd_probe_link_gbyte_s) */
	const struct cd_gpu *g = cd_host_gpu(cd_probe_host(r, p), p->device);

	lbl_str(pm, "host", probe_host(r, p));
	lbl_str(pm, "probe", p->name);
	lbl_i64(pm, "gpu", p->device);
	lbl_str(pm, "UUID", g ? g->uuid : NULL); /* as dcgm-exporter names the GPU */
	lbl_i64(pm, "peer", p->peer);
	lbl_str(pm, "variant", p->variant);
	lbl_i64(pm, "rank", p->rank);
}

static int host_listed(const char **hosts, size_t n, const char *h)
{
	for (size_t i = 0; i < n; i++)
		if ((!hosts[i] && !h) || (hosts[i] && h && !strcmp(hosts[i], h)))
			return 1;
	return 0;
}

/*
 * ---- many hosts (report_scale.h): no series names two hosts or two GPUs ----
 * Above CD_SCALE_HOSTS hosts a run with a peer (a GPU pair, a host pair) is no series of
 * its own: per host and probe, the pairs, the slowest pair's bandwidth and the slowest
 * latency; the sizes of a sweep are left to the JSON; reachability is per host and
 * interface. So a host has at most its facts (GPUs, NICs, ports), its runs without a
 * peer, 3 series per pair probe, 4 run counts and 2 per interface reached: 8-GPU hosts
 * about 300 each, whatever the number of hosts (the pairs alone are hosts^2 and gpus^2).
 */
static int is_latency_probe(const struct cd_probe_run *p);

static void probe_counts_big(struct prom *pm, const struct cd_results *r)
{
	size_t (*n)[CD_ST_TIMEOUT + 1] = xcalloc(r->n_hosts + 1, sizeof(*n));

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_host *h = cd_probe_host(r, &r->probes[i]);

		n[h ? (size_t)(h - r->hosts) : r->n_hosts][r->probes[i].status]++;
	}
	family(pm, "commdiag_probes", "Probe runs by status: ok, skipped (needs unmet), error or timeout.");
	for (size_t k = 0; k <= r->n_hosts; k++)
		for (int st = CD_ST_OK; st <= CD_ST_TIMEOUT && (k < r->n_hosts || n[k][CD_ST_OK] + n[k][CD_ST_SKIPPED] +
								 n[k][CD_ST_ERROR] + n[k][CD_ST_TIMEOUT]); st++) {
			lbl_str(pm, "host", k < r->n_hosts ? r->hosts[k].hostname : NULL);
			lbl_str(pm, "status", cd_status_str((enum cd_status)st));
			sample(pm, (double)n[k][st]);
		}
	free(n);
}

struct pair_agg {
	size_t host;            /* position; n_hosts: not a host of the document */
	const char *probe;
	size_t pairs;
	double bw, lat;         /* slowest: lowest bandwidth, highest latency */
};

static int cmp_pair_agg(const void *x, const void *y)
{
	const struct pair_agg *a = x, *b = y;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return strcmp(a->probe, b->probe);
}

static void pair_families(struct prom *pm, const struct cd_results *r)
{
	struct pair_agg *v = xcalloc(r->n_probes + 1, sizeof(*v));
	size_t n = 0, m = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];
		const struct cd_host *h = cd_probe_host(r, p);

		if (p->peer == CD_NULL_I64 || !p->name)
			continue;
		v[n].host = h ? (size_t)(h - r->hosts) : r->n_hosts;
		v[n].probe = p->name;
		v[n].pairs = 1;
		v[n].bw = cd_probe_is_bw(p) && p->status == CD_ST_OK ? cd_probe_bw(p) : NAN;
		v[n++].lat = is_latency_probe(p) && p->status == CD_ST_OK ? cd_probe_lat_us(p) : NAN;
	}
	qsort(v, n, sizeof(*v), cmp_pair_agg);
	for (size_t i = 0; i < n; i++) {
		if (m && !cmp_pair_agg(&v[m - 1], &v[i])) {
			struct pair_agg *a = &v[m - 1];

			a->pairs++;
			a->bw = isnan(a->bw) || v[i].bw < a->bw ? v[i].bw : a->bw;
			a->lat = isnan(a->lat) || v[i].lat > a->lat ? v[i].lat : a->lat;
			continue;
		}
		v[m++] = v[i];
	}
	family(pm, "commdiag_probe_pairs", "Runs of a pair probe (GPU pairs, host pairs) per host (many hosts: no series per pair).");
	for (size_t i = 0; i < m; i++) {
		lbl_str(pm, "host", v[i].host < r->n_hosts ? r->hosts[v[i].host].hostname : NULL);
		lbl_str(pm, "probe", v[i].probe);
		sample(pm, (double)v[i].pairs);
	}
	family(pm, "commdiag_probe_pair_min_bandwidth_bytes_per_second",
	       "The slowest finished pair of the host: the bandwidth the rules judge, at the largest size.");
	for (size_t i = 0; i < m; i++) {
		lbl_str(pm, "host", v[i].host < r->n_hosts ? r->hosts[v[i].host].hostname : NULL);
		lbl_str(pm, "probe", v[i].probe);
		sample(pm, v[i].bw * 1e9);
	}
	family(pm, "commdiag_probe_pair_max_latency_seconds",
	       "The slowest finished pair of the host: median time of one operation at the smallest size.");
	for (size_t i = 0; i < m; i++) {
		lbl_str(pm, "host", v[i].host < r->n_hosts ? r->hosts[v[i].host].hostname : NULL);
		lbl_str(pm, "probe", v[i].probe);
		sample(pm, v[i].lat / 1e6);
	}
	free(v);
}

static void probe_families_big(struct prom *pm, const struct cd_results *r)
{
	probe_counts_big(pm, r);
	family(pm, "commdiag_probe_ok", "1 when the probe ran to its end, 0 when skipped, failed or timed out.");
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].peer == CD_NULL_I64) {
			probe_labels(pm, r, &r->probes[i]);
			sample(pm, r->probes[i].status == CD_ST_OK);
		}
	family(pm, "commdiag_probe_bandwidth_bytes_per_second",
	       "The bandwidth the rules judge: algbw (copies, p2p, tcp, mpi.bw) or busbw at the largest size.");
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].peer == CD_NULL_I64 && cd_probe_is_bw(&r->probes[i])) {
			probe_labels(pm, r, &r->probes[i]);
			sample(pm, cd_probe_bw(&r->probes[i]) * 1e9);
		}
	family(pm, "commdiag_probe_link_bytes_per_second",
	       "Theoretical rate of the link the probe's bandwidth is judged against (PCIe or NVLink).");
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].peer == CD_NULL_I64 && cd_probe_is_bw(&r->probes[i]) && r->probes[i].status == CD_ST_OK) {
			probe_labels(pm, r, &r->probes[i]);
			sample(pm, cd_probe_link_gbyte_s(r, &r->probes[i]) * 1e9);
		}
	family(pm, "commdiag_probe_latency_seconds", "Median time of one operation at the probe's smallest size.");
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].peer == CD_NULL_I64 && is_latency_probe(&r->probes[i])) {
			probe_labels(pm, r, &r->probes[i]);
			sample(pm, cd_probe_lat_us(&r->probes[i]) / 1e6);
		}
	pair_families(pm, r);
}

static const struct cd_reach *reach_of;

static int cmp_reach(const void *x, const void *y)
{
	const struct cd_reach *a = &reach_of[*(const size_t *)x], *b = &reach_of[*(const size_t *)y];
	int c = strcmp(a->to ? a->to : "", b->to ? b->to : "");

	return c ? c : strcmp(a->iface ? a->iface : "", b->iface ? b->iface : "");
}

/* Per host reached and interface: the attempts, and how many failed (not ok, or not known). */
static void reach_families_big(struct prom *pm, const struct cd_results *r)
{
	size_t *v = xcalloc(r->n_reach + 1, sizeof(*v));

	for (size_t i = 0; i < r->n_reach; i++)
		v[i] = i;
	reach_of = r->reach;
	qsort(v, r->n_reach, sizeof(*v), cmp_reach);
	for (int failed = 0; failed < 2; failed++) {
		if (failed)
			family(pm, "commdiag_reach_failed", "TCP connections to the host's interface that failed (many hosts: no series per pair).");
		else
			family(pm, "commdiag_reach_attempts", "TCP connections tried to the host's interface from other hosts.");
		for (size_t a = 0, b; a < r->n_reach; a = b) {
			size_t bad = 0;

			for (b = a; b < r->n_reach && !cmp_reach(&v[a], &v[b]); b++)
				bad += r->reach[v[b]].ok != CD_TRI_TRUE;
			lbl_str(pm, "host", r->reach[v[a]].to);
			lbl_str(pm, "iface", r->reach[v[a]].iface);
			sample(pm, (double)(failed ? bad : b - a));
		}
	}
	free(v);
}

/* Probe runs per host and status, every status of every host present (0 included) so rates divide. */
static void probe_counts(struct prom *pm, const struct cd_results *r)
{
	const char **hosts = xcalloc(r->n_probes + 1, sizeof(*hosts));
	size_t n = 0;

	for (size_t i = 0; i < r->n_probes; i++) {
		const char *h = probe_host(r, &r->probes[i]);

		if (!host_listed(hosts, n, h))
			hosts[n++] = h;
	}
	family(pm, "commdiag_probes", "Probe runs by status: ok, skipped (needs unmet), error or timeout.");
	for (size_t i = 0; i < n; i++)
		for (int st = CD_ST_OK; st <= CD_ST_TIMEOUT; st++) {
			size_t count = 0;

			for (size_t k = 0; k < r->n_probes; k++)
				count += r->probes[k].status == (enum cd_status)st &&
					 host_listed(&hosts[i], 1, probe_host(r, &r->probes[k]));
			lbl_str(pm, "host", hosts[i]);
			lbl_str(pm, "status", cd_status_str((enum cd_status)st));
			sample(pm, (double)count);
		}
	free(hosts);
}

enum sample_fact { S_TIME, S_ALGBW, S_BUSBW, S_ERRORS };

static double sample_fact(const struct cd_probe_sample *s, enum sample_fact f)
{
	switch (f) {
	case S_TIME:
		return s->time_us / 1e6;
	case S_ALGBW:
		return s->algbw_gbyte_s * 1e9;
	case S_BUSBW:
		return s->busbw_gbyte_s * 1e9;
	case S_ERRORS:
		return s->errors == CD_NULL_I64 ? NAN : (double)s->errors;
	}
	return NAN;
}

/* Latency probes and the collectives, as the score card judges their smallest size. */
static int is_latency_probe(const struct cd_probe_run *p)
{
	return !cd_probe_is_bw(p) || cd_probe_is_collective(p);
}

static void probe_families(struct prom *pm, const struct cd_results *r)
{
	static const struct {
		enum sample_fact f;
		const char *name, *help;
	} per_size[] = {
		{ S_TIME, "commdiag_probe_time_seconds", "Median time of one operation at this size." },
		{ S_ALGBW, "commdiag_probe_algbw_bytes_per_second", "Algorithm bandwidth at this size: size / time." },
		{ S_BUSBW, "commdiag_probe_busbw_bytes_per_second",
		  "Bus bandwidth at this size: algbw times the collective's factor (nccl-tests)." },
		{ S_ERRORS, "commdiag_probe_data_errors", "Wrong elements found by the data check at this size." },
	};

	if (cd_scale_big(r)) {
		probe_families_big(pm, r);
		return;
	}
	probe_counts(pm, r);
	family(pm, "commdiag_probe_ok", "1 when the probe ran to its end, 0 when skipped, failed or timed out.");
	for (size_t i = 0; i < r->n_probes; i++) {
		probe_labels(pm, r, &r->probes[i]);
		sample(pm, r->probes[i].status == CD_ST_OK);
	}
	for (size_t k = 0; k < ARRAY_SIZE(per_size); k++) {
		family(pm, per_size[k].name, per_size[k].help);
		for (size_t i = 0; i < r->n_probes; i++)
			for (size_t j = 0; j < r->probes[i].n_samples; j++) {
				probe_labels(pm, r, &r->probes[i]);
				lbl_i64(pm, "size_bytes", r->probes[i].samples[j].bytes);
				sample(pm, sample_fact(&r->probes[i].samples[j], per_size[k].f));
			}
	}
	family(pm, "commdiag_probe_bandwidth_bytes_per_second",
	       "The bandwidth the rules judge: algbw (copies, p2p, tcp, mpi.bw) or busbw at the largest size.");
	for (size_t i = 0; i < r->n_probes; i++)
		if (cd_probe_is_bw(&r->probes[i])) {
			probe_labels(pm, r, &r->probes[i]);
			sample(pm, cd_probe_bw(&r->probes[i]) * 1e9);
		}
	family(pm, "commdiag_probe_link_bytes_per_second",
	       "Theoretical rate of the link the probe's bandwidth is judged against (PCIe or NVLink).");
	for (size_t i = 0; i < r->n_probes; i++)
		if (cd_probe_is_bw(&r->probes[i]) && r->probes[i].status == CD_ST_OK) {
			probe_labels(pm, r, &r->probes[i]);
			sample(pm, cd_probe_link_gbyte_s(r, &r->probes[i]) * 1e9);
		}
	family(pm, "commdiag_probe_latency_seconds", "Median time of one operation at the probe's smallest size.");
	for (size_t i = 0; i < r->n_probes; i++)
		if (is_latency_probe(&r->probes[i])) {
			probe_labels(pm, r, &r->probes[i]);
			sample(pm, cd_probe_lat_us(&r->probes[i]) / 1e6);
		}
}

/* With a baseline (compare, --baseline): each size's median time over the baseline's, as the BASE rules read it. */
static void baseline_families(struct prom *pm, const struct cd_results *r)
{
	struct cd_baseline_map m;

	if (!r->baseline)
		return;
	cd_baseline_map(r, &m);
	family(pm, "commdiag_baseline_time_ratio",
	       "Median time at this size over the baseline's (above 1: slower); comparable runs only.");
	for (size_t i = 0; i < r->n_probes; i++)
		for (size_t j = 0; j < r->probes[i].n_samples; j++) {
			probe_labels(pm, r, &r->probes[i]);
			lbl_i64(pm, "size_bytes", r->probes[i].samples[j].bytes);
			sample(pm, cd_baseline_time_ratio(r, &m, i, &r->probes[i].samples[j]));
		}
	cd_baseline_map_free(&m);
}

static void reach_families(struct prom *pm, const struct cd_results *r)
{
	if (cd_scale_big(r)) {
		reach_families_big(pm, r);
		return;
	}
	family(pm, "commdiag_reach_ok", "1 when host connected over TCP to peer's address on its interface iface.");
	for (size_t i = 0; i < r->n_reach; i++) {
		lbl_str(pm, "host", r->reach[i].from);
		lbl_str(pm, "peer", r->reach[i].to);
		lbl_str(pm, "iface", r->reach[i].iface);
		lbl_str(pm, "address", r->reach[i].address);
		sample_tri(pm, r->reach[i].ok);
	}
	family(pm, "commdiag_reach_connect_seconds", "Time the TCP connection took.");
	for (size_t i = 0; i < r->n_reach; i++) {
		lbl_str(pm, "host", r->reach[i].from);
		lbl_str(pm, "peer", r->reach[i].to);
		lbl_str(pm, "iface", r->reach[i].iface);
		lbl_str(pm, "address", r->reach[i].address);
		sample(pm, r->reach[i].connect_us / 1e6);
	}
}

/* ---- judgement: findings and score ---- */

static void finding_families(struct prom *pm, const struct cd_results *r)
{
	family(pm, "commdiag_findings", "Findings by severity.");
	for (int sev = CD_SEV_INFO; sev <= CD_SEV_FAIL; sev++) {
		size_t n = 0;

		for (size_t i = 0; i < r->n_findings; i++)
			n += r->findings[i].severity == (enum cd_severity)sev;
		lbl_str(pm, "severity", cd_severity_str((enum cd_severity)sev));
		sample(pm, (double)n);
	}
	family(pm, "commdiag_finding",
	       "A finding of the rules, value 1; threshold names the rules key it was judged against.");
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct cd_finding *f = &r->findings[i];

		lbl_str(pm, "host", f->host);
		lbl_str(pm, "id", f->id);
		lbl_str(pm, "severity", cd_severity_str(f->severity));
		lbl_str(pm, "subject", f->subject);
		lbl_str(pm, "threshold", f->threshold);
		sample(pm, 1);
	}
}

static void score_families(struct prom *pm, const struct cd_results *r)
{
	if (!r->score.present)
		return;
	family(pm, "commdiag_score_ratio", "The score card's total, 0 to 1 (the text report's 0-100 divided by 100).");
	sample(pm, r->score.total == CD_NULL_I64 ? NAN : (double)r->score.total / 100.0);
	family(pm, "commdiag_score_dimension_ratio", "One dimension of the score card, 0 to 1.");
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		lbl_str(pm, "dimension", cd_dim_str((enum cd_dim)d));
		sample(pm, r->score.dim[d] == CD_NULL_I64 ? NAN : (double)r->score.dim[d] / 100.0);
	}
}

/* Hosts given series of their own in a large document: the worst with a finding at warn or fail. */
static void list_hosts(struct prom *pm, const struct cd_results *r)
{
	size_t n_bad;
	struct cd_scale_host *w = cd_scale_rank(r, &n_bad);

	pm->listed = xcalloc(CD_PROM_HOSTS + 1, sizeof(*pm->listed));
	for (size_t i = 0; i < n_bad && pm->n_listed < CD_PROM_HOSTS; i++)
		if (r->hosts[w[i].host].hostname)
			pm->listed[pm->n_listed++] = r->hosts[w[i].host].hostname;
	free(w);
	family(pm, "commdiag_fleet_hosts",
	       "Many hosts: those with a finding at warn or fail (bad), and those of them with series of their own (listed).");
	lbl_str(pm, "hosts", "bad");
	sample(pm, (double)n_bad);
	lbl_str(pm, "hosts", "listed");
	sample(pm, (double)pm->n_listed);
	pm->fleet = 1;
}

void cd_report_prom(struct cd_out *o, const struct cd_results *r)
{
	struct prom pm = { .o = o };

	if (cd_scale_big(r))
		list_hosts(&pm, r);
	run_families(&pm, r);
	gpu_families(&pm, r);
	nic_families(&pm, r);
	hca_families(&pm, r);
	probe_families(&pm, r);
	baseline_families(&pm, r);
	reach_families(&pm, r);
	finding_families(&pm, r);
	score_families(&pm, r);
	agg_flush(&pm);
	if (pm.dropped)
		cd_warn("prometheus: %zu repeated series left out, the first of each kept (the first repeat: %s)",
			pm.dropped, pm.first_dropped);
	seen_clear(&pm);
	free(pm.first_dropped);
	free(pm.lbl);
	free(pm.key);
	free(pm.agg);
	free(pm.listed);
	for (size_t i = 0; i < ARRAY_SIZE(pm.own); i++)
		free(pm.own[i]);
}
