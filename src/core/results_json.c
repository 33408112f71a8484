/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load a results document from the JSON that report.c writes: `report --from`,
 * `check --from`, and (later) the hosts gathered from MPI ranks. A key that is
 * absent reads as null; a key of the wrong type is an error naming its path.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "json_tree.h"
#include "nvml.h"
#include "results.h"
#include "out.h"
#include "reach.h"

#define MAX_INPUT_BYTES (1024u << 20) /* 4096 hosts with every GPU pair: 340 MB indented */
/*
 * Bounds on the tree cJSON would build, checked before it builds it: a results
 * document nests 6 levels deep and spends about 23 bytes per value, but "[[[[…"
 * costs recursion and "[0,0,0,…" about 80 bytes of tree for every 2 bytes of input.
 * A fleet of 4096 hosts of 8 GPUs with every GPU pair's runs is about 15 Mi values in
 * 340 MB indented, 272 MB compact (issue 18; 3.5 GB peak to load); 32 Mi values
 * leaves it twice that, and keeps a hostile "[0,0,…" tree under ~2.6 GB.
 */
#define MAX_DEPTH 64
#define MAX_VALUES (32u << 20)

struct ld {
	const char *name;
	char path[256];
	int failed;
	int64_t schema;
	const cJSON **hosts; /* schema 2: hosts[] by index, for {"same_as": i} */
	size_t expanded;     /* values the compact form's references and NVLink runs add */
};

static int fail(struct ld *l, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct ld *l, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (l->failed++)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cd_error("results: '%s': %s%s%s: %s", l->name, l->path, *l->path && key ? "." : "", key ? key : "", msg);
}

/* Path bookkeeping for messages: enter() appends ".key" or "[i]", leave() restores. */
static size_t enter(struct ld *l, const char *key, long idx)
{
	size_t mark = strlen(l->path);

	if (key)
		snprintf(l->path + mark, sizeof(l->path) - mark, "%s%s", mark ? "." : "", key);
	else
		snprintf(l->path + mark, sizeof(l->path) - mark, "[%ld]", idx);
	return mark;
}

static void leave(struct ld *l, size_t mark)
{
	l->path[mark] = '\0';
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return v && !cJSON_IsNull(v) ? v : NULL;
}

static char *get_str(struct ld *l, const cJSON *obj, const char *key)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return NULL;
	if (!cJSON_IsString(v)) {
		fail(l, key, "expected a string or null");
		return NULL;
	}
	return xstrdup(v->valuestring);
}

/*
 * A host name: at most 253 bytes (RFC 1035's longest). It labels every Prometheus series
 * and every HTML cell of its host: a 100 MB one made a 13 GB metrics file.
 */
#define MAX_HOSTNAME CD_HOSTNAME_MAX

static char *get_host(struct ld *l, const cJSON *obj, const char *key)
{
	char *s = get_str(l, obj, key), *c = s ? cd_clean_text(s, CD_CLEAN_UTF8) : NULL;

	/* as every output writes it (a bad byte is U+FFFD, three bytes): then measured */
	if (c) {
		free(s);
		s = c;
	}
	if (s && strlen(s) > MAX_HOSTNAME && !l->failed) {
		fail(l, key, "a host name of %zu bytes: expected at most %d", strlen(s), MAX_HOSTNAME);
		free(s);
		return NULL;
	}
	return s;
}

/* A name that keys an array (a NIC's, an HCA's): required, a non-empty string. */
static char *get_name(struct ld *l, const cJSON *obj, const char *what)
{
	char *s = get_str(l, obj, "name");

	if ((!s || !*s) && !l->failed)
		fail(l, "name", "%s", what);
	return s;
}

static double get_dbl(struct ld *l, const cJSON *obj, const char *key)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return NAN;
	if (!cJSON_IsNumber(v)) {
		fail(l, key, "expected a number or null");
		return NAN;
	}
	/* 1e999 parses as infinity: no measurement or threshold is that */
	if (!isfinite(v->valuedouble)) {
		fail(l, key, "expected a finite number or null");
		return NAN;
	}
	return v->valuedouble;
}

/* A measurement or a rate: a time, a bandwidth, a duration is never below 0. */
static double get_nonneg(struct ld *l, const cJSON *obj, const char *key)
{
	double d = get_dbl(l, obj, key);

	if (d < 0) {
		fail(l, key, "expected a number of at least 0 or null");
		return NAN;
	}
	return d;
}

static int64_t get_i64(struct ld *l, const cJSON *obj, const char *key)
{
	double d = get_dbl(l, obj, key);

	if (isnan(d))
		return CD_NULL_I64;
	if (d != floor(d) || fabs(d) > 9007199254740992.0) {
		fail(l, key, "expected an integer");
		return CD_NULL_I64;
	}
	return (int64_t)d;
}

static int get_tri(struct ld *l, const cJSON *obj, const char *key)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return CD_TRI_NULL;
	if (!cJSON_IsBool(v)) {
		fail(l, key, "expected true, false or null");
		return CD_TRI_NULL;
	}
	return cJSON_IsTrue(v) ? CD_TRI_TRUE : CD_TRI_FALSE;
}

static int64_t get_hex(struct ld *l, const cJSON *obj, const char *key)
{
	char *s = get_str(l, obj, key), *end;
	long long v;

	if (!s)
		return CD_NULL_I64;
	errno = 0;
	v = strtoll(s, &end, 16);
	if (errno || end == s || *end || v < 0)
		fail(l, key, "expected a hexadecimal id like \"0x15b3\"");
	free(s);
	return v;
}

/* An array member: absent/null reads as empty; anything else but an array is an error. */
static const cJSON *get_arr(struct ld *l, const cJSON *obj, const char *key)
{
	const cJSON *v = get(obj, key);

	if (v && !cJSON_IsArray(v)) {
		fail(l, key, "expected an array");
		return NULL;
	}
	return v;
}

static const cJSON *get_obj(struct ld *l, const cJSON *obj, const char *key)
{
	const cJSON *v = get(obj, key);

	if (v && !cJSON_IsObject(v)) {
		fail(l, key, "expected an object");
		return NULL;
	}
	return v;
}

static void get_strv(struct ld *l, const cJSON *obj, const char *key, struct cd_strv *sv)
{
	const cJSON *a = get_arr(l, obj, key), *e;
	long i = 0;

	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e)) {
			size_t m = enter(l, key, -1);

			fail(l, NULL, "element %ld: expected a string", i);
			leave(l, m);
			return;
		}
		cd_strv_push(sv, e->valuestring);
		i++;
	}
}

static int enum_of(struct ld *l, const cJSON *obj, const char *key, int (*parse)(const char *), int dflt)
{
	char *s = get_str(l, obj, key);
	int v;

	if (!s)
		return dflt;
	v = parse(s);
	if (v < 0) {
		fail(l, key, "unknown value '%s'", s);
		v = dflt;
	}
	free(s);
	return v;
}

static void load_system(struct ld *l, const cJSON *o, struct cd_system *s)
{
	if (!o)
		return;
	s->kernel = get_str(l, o, "kernel");
	s->os = get_str(l, o, "os");
	s->arch = get_str(l, o, "arch");
	s->cpus_online = get_i64(l, o, "cpus_online");
	s->mem_total_bytes = get_i64(l, o, "mem_total_bytes");
	s->container = get_str(l, o, "container");
	s->container_evidence = get_str(l, o, "container_evidence");
	s->shm_bytes = get_i64(l, o, "shm_bytes");
	s->memlock_unlimited = get_tri(l, o, "memlock_unlimited");
	s->memlock_bytes = get_i64(l, o, "memlock_bytes");
	s->nofile_soft = get_i64(l, o, "nofile_soft");
	s->nofile_hard = get_i64(l, o, "nofile_hard");
	s->iommu = get_str(l, o, "iommu");
	s->iommu_evidence = get_str(l, o, "iommu_evidence");
	s->peermem = get_tri(l, o, "peermem");
	s->dev_infiniband = get_tri(l, o, "dev_infiniband");
	s->fabric_manager = get_str(l, o, "fabric_manager");
}

static void load_versions(struct ld *l, const cJSON *o, struct cd_versions *v)
{
	if (!o)
		return;
	v->driver = get_str(l, o, "driver");
	v->cuda_driver = get_i64(l, o, "cuda_driver");
	v->nccl = get_str(l, o, "nccl");
	v->nccl_net_plugin = get_str(l, o, "nccl_net_plugin");
	v->hwloc = get_str(l, o, "hwloc");
	v->libnl = get_str(l, o, "libnl");
	v->libibverbs = get_str(l, o, "libibverbs");
	v->cjson = get_str(l, o, "cjson");
	v->commdiag = get_str(l, o, "commdiag");
}

/*
 * Call fn on each element of the array obj[key], each one an object, with the
 * element's path ("hosts[0].nics[2]") in place for messages. Stops at the first error.
 */
static void each_obj(struct ld *l, const cJSON *obj, const char *key, void *ctx,
		     void (*fn)(struct ld *l, const cJSON *el, void *ctx))
{
	const cJSON *arr = get_arr(l, obj, key), *el;
	long i = 0;

	cJSON_ArrayForEach(el, arr) {
		size_t m;

		if (l->failed)
			return;
		m = enter(l, key, 0);
		enter(l, NULL, i++);
		if (cJSON_IsObject(el))
			fn(l, el, ctx);
		else
			fail(l, NULL, "expected an object");
		leave(l, m);
	}
}

static void load_pci(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_pci_device *p = cd_host_add_pci(ctx);
	const cJSON *pcie = get_obj(l, d, "pcie");

	p->bus_id = get_str(l, d, "bus_id");
	p->kind = enum_of(l, d, "kind", cd_pci_kind_parse, CD_PCI_OTHER);
	p->vendor_id = get_hex(l, d, "vendor_id");
	p->device_id = get_hex(l, d, "device_id");
	p->class_id = get_hex(l, d, "class_id");
	p->vendor = get_str(l, d, "vendor");
	p->device = get_str(l, d, "device");
	p->numa = get_i64(l, d, "numa");
	p->link_gbyte_s = get_nonneg(l, d, "link_gbyte_s");
	if (pcie) {
		size_t m = enter(l, "pcie", 0);

		p->gen = get_i64(l, pcie, "gen");
		p->width = get_i64(l, pcie, "width");
		p->max_gen = get_i64(l, pcie, "max_gen");
		p->max_width = get_i64(l, pcie, "max_width");
		leave(l, m);
	}
	get_strv(l, d, "os_devices", &p->os_devices);
}

static void load_nic(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_nic *n = cd_host_add_nic(ctx);
	n->name = get_name(l, d, "expected the interface's name (a string)");
	n->ifindex = get_i64(l, d, "ifindex");
	n->kind = enum_of(l, d, "kind", cd_nic_kind_parse, CD_NIC_OTHER);
	n->link_type = get_str(l, d, "link_type");
	n->state = get_str(l, d, "state");
	n->admin_up = get_tri(l, d, "admin_up");
	n->mtu = get_i64(l, d, "mtu");
	n->speed_mbit_s = get_i64(l, d, "speed_mbit_s");
	n->mac = get_str(l, d, "mac");
	n->master = get_str(l, d, "master");
	get_strv(l, d, "ipv4", &n->ipv4);
	get_strv(l, d, "ipv6", &n->ipv6);
	n->default_route = get_tri(l, d, "default_route");
	n->driver = get_str(l, d, "driver");
	n->bus_id = get_str(l, d, "bus_id");
	n->numa = get_i64(l, d, "numa");
}

static void load_gid(struct ld *l, const cJSON *el, void *ctx)
{
	struct cd_gid *g = cd_port_add_gid(ctx);

	g->index = get_i64(l, el, "index");
	g->gid = get_str(l, el, "gid");
	g->type = get_str(l, el, "type");
	g->netdev = get_str(l, el, "netdev");
	g->ipv4 = get_tri(l, el, "ipv4");
}

static void load_port(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_ib_port *p = cd_hca_add_port(ctx);

	p->port = get_i64(l, d, "port");
	p->state = get_str(l, d, "state");
	p->phys_state = get_str(l, d, "phys_state");
	p->link_layer = get_str(l, d, "link_layer");
	p->active_width = get_i64(l, d, "active_width");
	p->lane_gbit_s = get_nonneg(l, d, "lane_gbit_s");
	p->rate_gbit_s = get_nonneg(l, d, "rate_gbit_s");
	p->lid = get_i64(l, d, "lid");
	p->mtu_bytes = get_i64(l, d, "mtu_bytes");
	p->netdev = get_str(l, d, "netdev");
	p->roce_v2_gid_index = get_i64(l, d, "roce_v2_gid_index");
	each_obj(l, d, "gids", p, load_gid);
}

static void load_hca(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_hca *c = cd_host_add_hca(ctx);

	c->name = get_name(l, d, "expected the RDMA device's name (a string)");
	c->node_guid = get_str(l, d, "node_guid");
	c->fw_ver = get_str(l, d, "fw_ver");
	c->board_id = get_str(l, d, "board_id");
	c->bus_id = get_str(l, d, "bus_id");
	c->numa = get_i64(l, d, "numa");
	c->netdev = get_str(l, d, "netdev");
	each_obj(l, d, "ports", c, load_port);
}

static void load_numa(struct ld *l, const cJSON *el, void *ctx)
{
	struct cd_numa_node *n = cd_host_add_numa(ctx);

	n->index = get_i64(l, el, "index");
	n->cpus = get_str(l, el, "cpus");
	n->memory_bytes = get_i64(l, el, "memory_bytes");
}

/* A link of schema 2 may stand for a run of `count` alike links numbered up from it (report_compact.c). */
static void load_nvlink(struct ld *l, const cJSON *el, void *ctx)
{
	struct cd_nvlink *n = cd_gpu_add_nvlink(ctx), first;
	int64_t count = l->schema == CD_SCHEMA_COMPACT ? get_i64(l, el, "count") : CD_NULL_I64;

	n->link = get_i64(l, el, "link");
	n->up = get_tri(l, el, "up");
	n->version = get_i64(l, el, "version");
	n->remote_bus_id = get_str(l, el, "remote_bus_id");
	n->remote_kind = get_str(l, el, "remote_kind");
	if (count == CD_NULL_I64 || l->failed)
		return;
	/* NVML_NVLINK_MAX_LINKS (nvml.h): no GPU has more links than that */
	if (count < 2 || count > NVML_NVLINK_MAX_LINKS || n->link == CD_NULL_I64 || n->link < 0 ||
	    (l->expanded += 5 * (size_t)count) > MAX_VALUES) {
		fail(l, "count", "expected 2 to %d links numbered up from a link index of 0 or more",
		     NVML_NVLINK_MAX_LINKS);
		return;
	}
	first = *n;
	for (int64_t i = 1; i < count; i++) {
		n = cd_gpu_add_nvlink(ctx);
		*n = first;
		n->link = first.link + i;
		n->remote_bus_id = first.remote_bus_id ? xstrdup(first.remote_bus_id) : NULL;
		n->remote_kind = first.remote_kind ? xstrdup(first.remote_kind) : NULL;
	}
}

static void load_gpu(struct ld *l, const cJSON *el, void *ctx)
{
	struct cd_gpu *g = cd_host_add_gpu(ctx);
	const cJSON *pcie = get_obj(l, el, "pcie");

	g->index = get_i64(l, el, "index");
	g->name = get_str(l, el, "name");
	g->bus_id = get_str(l, el, "bus_id");
	g->numa = get_i64(l, el, "numa");
	g->memory_bytes = get_i64(l, el, "memory_bytes");
	g->uuid = get_str(l, el, "uuid");
	g->compute_capability = get_str(l, el, "compute_capability");
	g->persistence = get_tri(l, el, "persistence");
	if (pcie) {
		size_t m = enter(l, "pcie", 0);

		g->pcie_gen = get_i64(l, pcie, "gen");
		g->pcie_width = get_i64(l, pcie, "width");
		g->pcie_max_gen = get_i64(l, pcie, "max_gen");
		g->pcie_max_width = get_i64(l, pcie, "max_width");
		g->pcie_link_gbyte_s = get_nonneg(l, pcie, "link_gbyte_s");
		leave(l, m);
	}
	each_obj(l, el, "nvlinks", g, load_nvlink);
}

/*
 * A rows × cols matrix (array of arrays) into a flat row-major array: strings
 * (strs) or true/false/null (tris). An absent matrix leaves the output untouched.
 */
static void load_matrix(struct ld *l, const cJSON *obj, const char *key, size_t rows, size_t cols, char **strs,
			int *tris)
{
	const cJSON *a = get_arr(l, obj, key), *row, *cell;
	size_t i = 0, m;

	if (!a || l->failed)
		return;
	m = enter(l, key, 0);
	if ((size_t)cJSON_GetArraySize(a) != rows) {
		fail(l, NULL, "expected %zu rows, one per GPU", rows);
		leave(l, m);
		return;
	}
	cJSON_ArrayForEach(row, a) {
		size_t j = 0, mr = enter(l, NULL, (long)i);

		if (!cJSON_IsArray(row) || (size_t)cJSON_GetArraySize(row) != cols) {
			fail(l, NULL, "expected an array of %zu cells", cols);
			leave(l, m);
			return;
		}
		cJSON_ArrayForEach(cell, row) {
			size_t at = i * cols + j++;

			if (strs && cJSON_IsString(cell)) {
				strs[at] = xstrdup(cell->valuestring);
			} else if (tris && cJSON_IsBool(cell)) {
				tris[at] = cJSON_IsTrue(cell) ? CD_TRI_TRUE : CD_TRI_FALSE;
			} else if (!cJSON_IsNull(cell)) {
				fail(l, NULL, "cell %zu: expected %s or null", j - 1, strs ? "a string" : "true, false");
				leave(l, m);
				return;
			}
		}
		leave(l, mr);
		i++;
	}
	leave(l, m);
}

static void load_paths(struct ld *l, const cJSON *o, struct cd_paths *p)
{
	size_t g;

	if (!o)
		return;
	p->source = get_str(l, o, "source");
	get_strv(l, o, "gpus", &p->gpus);
	get_strv(l, o, "nets", &p->nets);
	p->p2p_level = get_str(l, o, "p2p_level");
	p->p2p_level_source = get_str(l, o, "p2p_level_source");
	if (l->failed || !get(o, "gpu_gpu"))
		return; /* no matrices were computed (null in the document) */
	cd_paths_alloc(p);
	g = p->gpus.n;
	load_matrix(l, o, "gpu_gpu", g, g, p->gpu_gpu, NULL);
	load_matrix(l, o, "gpu_net", g, p->nets.n, p->gpu_net, NULL);
	load_matrix(l, o, "nccl_p2p", g, g, NULL, p->nccl_p2p);
	load_matrix(l, o, "nvml_p2p", g, g, p->nvml_p2p, NULL);
	if (get(o, "cuda_p2p")) {
		p->cuda_p2p = xcalloc(g * g + 1, sizeof(*p->cuda_p2p));
		for (size_t i = 0; i < g * g; i++)
			p->cuda_p2p[i] = CD_TRI_NULL;
		load_matrix(l, o, "cuda_p2p", g, g, NULL, p->cuda_p2p);
	}
}

static void load_acs(struct ld *l, const cJSON *el, void *ctx)
{
	struct cd_acs *a = cd_host_add_acs(ctx);

	a->bus_id = get_str(l, el, "bus_id");
	a->redirect = get_tri(l, el, "redirect");
	a->ctrl = get_hex(l, el, "ctrl");
	a->reason = get_str(l, el, "reason");
}

static size_t count_values(const cJSON *v)
{
	size_t n = 1;

	for (v = v->child; v; v = v->next)
		n += count_values(v);
	return n;
}

/* The host holding section key of host d: d, or the earlier host its schema 2 {"same_as": i}
 * names (report_compact.c), already checked when loaded; each host gets its own copy. */
static const cJSON *holder(struct ld *l, const cJSON *d, const char *key, size_t self)
{
	const cJSON *ref = get(d, key), *i = cJSON_GetObjectItemCaseSensitive(ref, "same_as"), *t;
	size_t m;

	if (l->schema != CD_SCHEMA_COMPACT || !cJSON_IsObject(ref) || !i || l->failed)
		return d;
	m = enter(l, key, 0);
	if (!cJSON_IsNumber(i) || i->valuedouble != floor(i->valuedouble) || i->valuedouble < 0 ||
	    i->valuedouble >= (double)self || ref->child->next)
		fail(l, "same_as", "expected only the index of a host before this one (host %zu)", self);
	else if (!(t = get(l->hosts[(size_t)i->valuedouble], key)) || (cJSON_IsObject(t) && get(t, "same_as")))
		fail(l, "same_as", "host %zu's %s is %s: expected the host that has it written out",
		     (size_t)i->valuedouble, key, t ? "a reference too" : "null");
	else if ((l->expanded += count_values(t)) > MAX_VALUES)
		fail(l, "same_as", "the references stand for over %u Mi values", MAX_VALUES >> 20);
	else {
		leave(l, m);
		return l->hosts[(size_t)i->valuedouble];
	}
	leave(l, m);
	return d;
}

static void load_host(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_host *h = cd_results_add_host(ctx);
	size_t self = ((struct cd_results *)ctx)->n_hosts - 1;
	const cJSON *st = get_obj(l, d, "status"), *rs = get_obj(l, d, "reason"), *env, *el, *sys, *ver, *pth;
	size_t m;

	h->hostname = get_host(l, d, "hostname");
	h->host_id = get_str(l, d, "host_id");
	h->host_id_source = get_str(l, d, "host_id_source");
	for (int p = 0; p < CD_PART_COUNT; p++) {
		m = enter(l, "status", 0);
		h->part[p].status = enum_of(l, st, cd_part_str(p), cd_status_parse, CD_ST_SKIPPED);
		leave(l, m);
		m = enter(l, "reason", 0);
		h->part[p].reason = rs ? get_str(l, rs, cd_part_str(p)) : NULL;
		leave(l, m);
	}
	sys = holder(l, d, "system", self), ver = holder(l, d, "versions", self), pth = holder(l, d, "paths", self);
	m = enter(l, "system", 0);
	load_system(l, get_obj(l, sys, "system"), &h->system);
	leave(l, m);
	m = enter(l, "versions", 0);
	load_versions(l, get_obj(l, ver, "versions"), &h->versions);
	leave(l, m);
	h->topology_source = get_str(l, d, "topology_source");

	each_obj(l, holder(l, d, "numa_nodes", self), "numa_nodes", h, load_numa);
	each_obj(l, holder(l, d, "pci_devices", self), "pci_devices", h, load_pci);
	each_obj(l, holder(l, d, "gpus", self), "gpus", h, load_gpu);
	each_obj(l, holder(l, d, "nics", self), "nics", h, load_nic);
	each_obj(l, holder(l, d, "hcas", self), "hcas", h, load_hca);
	m = enter(l, "paths", 0);
	load_paths(l, get_obj(l, pth, "paths"), &h->paths);
	leave(l, m);
	each_obj(l, holder(l, d, "acs", self), "acs", h, load_acs);

	env = get_obj(l, holder(l, d, "env", self), "env");
	cJSON_ArrayForEach(el, env) {
		if (!cJSON_IsString(el)) {
			m = enter(l, "env", 0);
			fail(l, el->string, "expected a string");
			leave(l, m);
			break;
		}
		cd_host_set_env(h, el->string, el->valuestring);
	}
}

static void load_finding(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_results *r = ctx;
	char *id = get_str(l, d, "id"), *host = get_host(l, d, "host");
	char *subject = get_str(l, d, "subject"), *title = get_str(l, d, "title");
	int sev = enum_of(l, d, "severity", cd_severity_parse, CD_SEV_INFO);
	struct cd_finding *f;

	if (!id && !l->failed)
		fail(l, "id", "a finding needs an id");
	f = cd_results_add_finding(r, id ? id : "", sev, host, subject, title);
	free(id);
	free(host);
	free(subject);
	free(title);
	f->measured = get_dbl(l, d, "measured");
	f->expected = get_dbl(l, d, "expected");
	f->unit = get_str(l, d, "unit");
	f->threshold = get_str(l, d, "threshold");
	f->consequence = get_tri(l, d, "consequence") == CD_TRI_TRUE; /* absent before session 20 */
	get_strv(l, d, "evidence", &f->evidence);
}

static void load_sample(struct ld *l, const cJSON *el, void *ctx)
{
	struct cd_probe_sample *s = cd_probe_add_sample(ctx);

	s->bytes = get_i64(l, el, "bytes");
	s->iters = get_i64(l, el, "iters");
	s->time_us = get_nonneg(l, el, "time_us");
	s->min_time_us = get_nonneg(l, el, "min_time_us");
	s->max_time_us = get_nonneg(l, el, "max_time_us");
	s->p10_time_us = get_nonneg(l, el, "p10_time_us");
	s->p25_time_us = get_nonneg(l, el, "p25_time_us");
	s->p75_time_us = get_nonneg(l, el, "p75_time_us");
	s->p90_time_us = get_nonneg(l, el, "p90_time_us");
	s->outliers = get_i64(l, el, "outliers");
	s->cpu_wait_pct = get_nonneg(l, el, "cpu_wait_pct");
	if (s->outliers != CD_NULL_I64 && (s->outliers < 0 || (s->iters != CD_NULL_I64 && s->outliers > s->iters))) {
		fail(l, "outliers", "expected a count between 0 and iters or null");
		s->outliers = CD_NULL_I64;
	}
	s->algbw_gbyte_s = get_nonneg(l, el, "algbw_gbyte_s");
	s->busbw_gbyte_s = get_nonneg(l, el, "busbw_gbyte_s");
	s->errors = get_i64(l, el, "errors");
}

static void load_probe(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_results *r = ctx;
	char *name = get_str(l, d, "name");
	struct cd_probe_run *p;

	if (!name && !l->failed)
		fail(l, "name", "a probe needs a name");
	p = cd_results_add_probe(r, name ? name : "");
	free(name);
	p->status = enum_of(l, d, "status", cd_status_parse, CD_ST_ERROR);
	p->reason = get_str(l, d, "reason");
	p->phase = get_str(l, d, "phase");
	p->variant = get_str(l, d, "variant");
	p->host = get_host(l, d, "host");
	p->device = get_i64(l, d, "device");
	p->peer = get_i64(l, d, "peer");
	p->nranks = get_i64(l, d, "nranks");
	p->rank = get_i64(l, d, "rank");
	each_obj(l, d, "results", p, load_sample);
}

static void load_reach(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_reach *x = cd_results_add_reach(ctx);

	x->from = get_host(l, d, "from");
	x->to = get_host(l, d, "to");
	x->iface = get_str(l, d, "iface");
	x->address = get_str(l, d, "address");
	x->ok = get_tri(l, d, "ok");
	x->connect_us = get_nonneg(l, d, "connect_us");
	x->error = get_str(l, d, "error");
}

static int64_t get_count(struct ld *l, const cJSON *d, const char *key)
{
	int64_t v = get_i64(l, d, key);

	if (v == CD_NULL_I64 || v < 0)
		fail(l, key, "expected a whole number of at least 0");
	return v;
}

static void load_reach_count(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_results *r = ctx;
	struct cd_reach_count *c = CD_PUSH(r->reach_counts, r->n_reach_counts, r->cap_reach_counts);

	memset(c, 0, sizeof(*c));
	c->host = get_host(l, d, "host");
	c->iface = get_str(l, d, "iface");
	if (!l->failed && (!c->host || !c->iface))
		fail(l, c->host ? "iface" : "host", "expected a string");
	c->in_tested = get_count(l, d, "in_tested");
	c->in_failed = get_count(l, d, "in_failed");
	c->out_tested = get_count(l, d, "out_tested");
	c->out_failed = get_count(l, d, "out_failed");
	if (!l->failed && (c->in_failed > c->in_tested || c->out_failed > c->out_tested))
		fail(l, c->in_failed > c->in_tested ? "in_failed" : "out_failed", "expected at most the attempts tested");
}

static void load_import(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_results *r = ctx;
	char *file = get_str(l, d, "file"), *format = get_str(l, d, "format");
	struct cd_import *im = cd_results_add_import(r, file, format);
	const cJSON *first = get_arr(l, d, "first_skipped_lines"), *e;

	free(file);
	free(format);
	get_strv(l, d, "collectives", &im->collectives);
	get_strv(l, d, "collective_from", &im->collective_from);
	get_strv(l, d, "hosts", &im->hosts);
	im->tests = get_i64(l, d, "tests");
	im->rows = get_i64(l, d, "rows");
	im->skipped_lines = get_i64(l, d, "skipped_lines");
	im->other_lines = get_i64(l, d, "other_lines");
	im->out_of_bounds = get_i64(l, d, "out_of_bounds");
	im->complete = get_tri(l, d, "complete");
	/* absent in documents written before it was recorded */
	cJSON_ArrayForEach(e, get_arr(l, d, "avg_busbw_gbyte_s")) {
		if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) || !isfinite(e->valuedouble)) {
			fail(l, "avg_busbw_gbyte_s", "expected numbers >= 0 (GB/s)");
			return;
		}
		*CD_PUSH(im->avg_busbw, im->n_avg_busbw, im->cap_avg_busbw) = e->valuedouble;
	}
	cJSON_ArrayForEach(e, first) {
		if (!cJSON_IsNumber(e) || im->n_first_skipped == CD_IMPORT_FIRST_SKIPPED) {
			fail(l, "first_skipped_lines", "expected at most %d line numbers", CD_IMPORT_FIRST_SKIPPED);
			return;
		}
		im->first_skipped[im->n_first_skipped++] = (int64_t)e->valuedouble;
	}
}

static void load_rank(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_rank *k = cd_results_add_rank(ctx, get_i64(l, d, "rank"));
	const cJSON *env = get_obj(l, d, "env_diff"), *el;

	k->host = get_host(l, d, "host");
	k->host_index = get_i64(l, d, "host_index");
	k->local_rank = get_i64(l, d, "local_rank");
	k->answered = get_tri(l, d, "answered");
	k->error = get_str(l, d, "error");
	cJSON_ArrayForEach(el, env) {
		if (!cJSON_IsString(el) && !cJSON_IsNull(el)) {
			size_t m = enter(l, "env_diff", 0);

			fail(l, el->string, "expected a string or null");
			leave(l, m);
			break;
		}
		cd_rank_set_env(k, el->string, cJSON_IsString(el) ? el->valuestring : NULL);
	}
}

static void load_merged(struct ld *l, const cJSON *d, void *ctx)
{
	char *file = get_str(l, d, "file"), *mode = get_str(l, d, "mode");
	struct cd_merged *m = cd_results_add_merged(ctx, file, mode);
	const cJSON *e;

	free(file);
	free(mode);
	cJSON_ArrayForEach(e, get_arr(l, d, "hosts")) {
		char *h;

		if (!cJSON_IsString(e)) {
			fail(l, "hosts", "expected host names (strings)");
			return;
		}
		h = cd_hostname_from_text(e->valuestring);
		cd_strv_push(&m->hosts, h);
		free(h);
	}
}

static void load_advice(struct ld *l, const cJSON *d, void *ctx)
{
	struct cd_advice *a = cd_results_add_advice(ctx);

	a->env = get_str(l, d, "env");
	a->value = get_str(l, d, "value");
	a->host = get_host(l, d, "host");
	get_strv(l, d, "findings", &a->findings);
	get_strv(l, d, "path", &a->path);
	a->why = get_str(l, d, "why");
}

static void load_not_evaluated(struct ld *l, const cJSON *d, void *ctx)
{
	char *group = get_str(l, d, "group"), *reason = get_str(l, d, "reason");

	cd_rules_run_add_not_evaluated(ctx, group ? group : "", reason);
	free(group);
	free(reason);
}

/* "rules": null (not run) or how the rules ran. */
static void load_rules(struct ld *l, const cJSON *root, struct cd_rules_run *rr)
{
	const cJSON *o = get_obj(l, root, "rules");
	size_t m;

	if (!o)
		return;
	m = enter(l, "rules", 0);
	rr->present = 1;
	rr->profile = get_str(l, o, "profile");
	rr->profile_reason = get_str(l, o, "profile_reason");
	get_strv(l, o, "sources", &rr->sources);
	get_strv(l, o, "evaluated", &rr->evaluated);
	get_strv(l, o, "required", &rr->required);
	each_obj(l, o, "not_evaluated", rr, load_not_evaluated);
	leave(l, m);
}

/* "score": null (not scored) or the card; dimensions are integers 0-100 or null. */
static void load_score(struct ld *l, const cJSON *root, struct cd_score *s)
{
	const cJSON *o = get_obj(l, root, "score"), *w, *b;
	size_t m;

	if (!o)
		return;
	m = enter(l, "score", 0);
	s->present = 1;
	s->total = get_i64(l, o, "total");
	s->grade = get_str(l, o, "grade");
	/* the three words score.c writes: a grade is printed as a verdict, never any text */
	if (s->grade && strcmp(s->grade, "excellent") && strcmp(s->grade, "good") && strcmp(s->grade, "needs work"))
		fail(l, "grade", "expected excellent, good, needs work or null");
	w = get_obj(l, o, "weights");
	b = get_obj(l, o, "basis");
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		size_t mw;

		s->dim[d] = get_i64(l, o, cd_dim_str(d));
		if (s->dim[d] != CD_NULL_I64 && (s->dim[d] < 0 || s->dim[d] > 100))
			fail(l, cd_dim_str(d), "expected an integer from 0 to 100 or null");
		mw = enter(l, "weights", 0);
		if (w)
			s->weight[d] = get_nonneg(l, w, cd_dim_str(d));
		leave(l, mw);
		mw = enter(l, "basis", 0);
		if (b)
			s->basis[d] = get_str(l, b, cd_dim_str(d));
		leave(l, mw);
	}
	if (s->total != CD_NULL_I64 && (s->total < 0 || s->total > 100))
		fail(l, "total", "expected an integer from 0 to 100 or null");
	s->renormalised = get_tri(l, o, "renormalised");
	leave(l, m);
}

static void load_doc(struct ld *l, const cJSON *root, struct cd_results *r)
{
	const cJSON *tool = get_obj(l, root, "tool"), *run = get_obj(l, root, "run");
	int64_t schema = get_i64(l, root, "schema");
	size_t m;

	if (l->failed)
		return;
	if (schema == CD_NULL_I64) {
		fail(l, "schema", "missing: not a commdiag results document");
		return;
	}
	if (schema != CD_SCHEMA_VERSION && schema != CD_SCHEMA_COMPACT) {
		fail(l, "schema", "this commdiag reads schema %d and %d, the document has schema %lld", CD_SCHEMA_VERSION,
		     CD_SCHEMA_COMPACT, (long long)schema);
		return;
	}
	l->schema = schema;
	if (tool) {
		m = enter(l, "tool", 0);
		r->tool_version = get_str(l, tool, "version");
		leave(l, m);
	}
	if (run) {
		m = enter(l, "run", 0);
		r->run.started = get_str(l, run, "started");
		r->run.mode = get_str(l, run, "mode");
		r->run.launcher = get_str(l, run, "launcher");
		r->run.launcher_ranks = get_i64(l, run, "launcher_ranks");
		r->run.ranks = get_i64(l, run, "ranks");
		r->run.duration_s = get_nonneg(l, run, "duration_s");
		r->run.timeout_s = get_nonneg(l, run, "timeout_s");
		r->run.stopped_by = get_str(l, run, "stopped_by");
		r->run.stopped_phase = get_str(l, run, "stopped_phase");
		each_obj(l, run, "imports", r, load_import);
		each_obj(l, run, "merged", r, load_merged);
		leave(l, m);
	}
	if (schema == CD_SCHEMA_COMPACT && get_arr(l, root, "hosts")) {
		const cJSON *host;
		size_t i = 0;

		l->hosts = xcalloc((size_t)cJSON_GetArraySize(get(root, "hosts")) + 1, sizeof(*l->hosts));
		cJSON_ArrayForEach(host, get(root, "hosts"))
			l->hosts[i++] = host;
	}
	each_obj(l, root, "hosts", r, load_host);
	free(l->hosts);
	each_obj(l, root, "ranks", r, load_rank);
	each_obj(l, root, "probes", r, load_probe);
	each_obj(l, root, "reach", r, load_reach);
	each_obj(l, root, "reach_counts", r, load_reach_count);
	each_obj(l, root, "findings", r, load_finding);
	each_obj(l, root, "advice", r, load_advice);
	load_rules(l, root, &r->rules);
	load_score(l, root, &r->score);
}

static size_t line_of(const char *text, size_t off)
{
	size_t line = 1;

	for (size_t k = 0; k < off; k++)
		line += text[k] == '\n';
	return line;
}

/* One pass over the bytes, strings skipped: depth, a bound on the values, and is anything there. */
static int prescan(const char *text, size_t len, const char *name)
{
	size_t values = 1, depth = 0;
	int in_str = 0, esc = 0, any = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			any = 1;
		switch (c) {
		case '"':
			in_str = 1;
			break;
		case '[':
		case '{':
			if (++depth > MAX_DEPTH)
				return cd_error("results: '%s': line %zu: nested deeper than %d levels (byte %zu): "
						"not a results document", name, line_of(text, i), MAX_DEPTH, i);
			/* fall through - a container is a value too */
		case ',':
			if (++values > MAX_VALUES)
				return cd_error("results: '%s': line %zu: more than %u values (byte %zu): "
						"not a results document", name, line_of(text, i), MAX_VALUES, i);
			break;
		case ']':
		case '}':
			depth -= depth > 0;
			break;
		}
	}
	if (!any)
		return cd_error("results: '%s': empty input (white space only): expected a JSON document from "
				"'commdiag --json'", name);
	return 0;
}

int cd_results_load_json(struct cd_results *r, const char *text, size_t len, const char *name)
{
	char where[256] = "";
	const char *dup;
	struct ld l = { .name = name };
	const char *end = NULL;
	cJSON *root;

	cd_results_init(r);
	if (len == 0)
		return cd_error("results: '%s': empty input: expected a JSON document from 'commdiag --json'", name);
	if (memchr(text, '\0', len))
		return cd_error("results: '%s': binary data (NUL byte at offset %zu): expected JSON text", name,
				(size_t)((const char *)memchr(text, '\0', len) - text));
	if (prescan(text, len, name) < 0)
		return -1;
	root = cd_json_tree_parse(text, len, &end);
	if (!root) {
		cd_json_tree_release(NULL);
		size_t off = end && end >= text ? (size_t)(end - text) : 0;

		if (off > len)
			off = len;
		return cd_error("results: '%s': line %zu: not valid JSON (byte %zu)", name, line_of(text, off), off);
	}
	/* one document: only white space may follow it (cJSON stops after the first value) */
	for (const char *p = end; p && p < text + len; p++) {
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
			size_t off = (size_t)(p - text);

			cd_json_tree_release(root);
			return cd_error("results: '%s': line %zu: unexpected data after the JSON document (byte %zu)",
					name, line_of(text, off), off);
		}
	}
	if (!cJSON_IsObject(root)) {
		cd_json_tree_release(root);
		return cd_error("results: '%s': expected a JSON object at the top level", name);
	}
	/* readers disagree on which of two equal keys counts (cJSON the first, jq and Python the
	 * last): a document that means two things to two tools is refused */
	if ((dup = cd_json_duplicate_key(root, where, sizeof(where)))) {
		int rc = cd_error("results: '%s': %s%skey '%.64s' appears twice: expected each key once", name, where,
				  where[0] ? ": " : "", dup);

		cd_json_tree_release(root);
		return rc;
	}
	load_doc(&l, root, r);
	cd_json_tree_release(root);
	if (l.failed) {
		cd_results_free(r);
		cd_results_init(r);
		return -1;
	}
	return 0;
}

int cd_results_load_file(struct cd_results *r, const char *path)
{
	const char *kind = NULL;
	FILE *f = strcmp(path, "-") ? cd_open_input(path, &kind) : stdin;
	size_t len = 0;
	struct stat st;
	char *text;
	int rc;

	cd_results_init(r);
	if (!f && kind)
		return cd_error("results: '%s' is %s: expected a regular file ('-' reads standard input)", path, kind);
	if (!f)
		return cd_error("results: cannot open '%s': %s", path, strerror(errno));
	/* a regular file says its size: refuse a huge one before reading a byte of it */
	if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)MAX_INPUT_BYTES) {
		fclose(f);
		return cd_error("results: '%s': larger than %u MiB: not a results document", path, MAX_INPUT_BYTES >> 20);
	}
	text = cd_read_file(f, MAX_INPUT_BYTES, &len);
	if (!text) {
		int err = errno;

		if (f != stdin)
			fclose(f);
		if (err == EFBIG)
			return cd_error("results: '%s': larger than %u MiB: not a results document", path,
					MAX_INPUT_BYTES >> 20);
		return cd_error("results: cannot read '%s': %s", path, strerror(err));
	}
	if (f != stdin)
		fclose(f);
	rc = cd_results_load_json(r, text, len, strcmp(path, "-") ? path : "<stdin>");
	free(text);
	return rc;
}
