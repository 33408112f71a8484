/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One renderer per section, each using only out.h: the same calls write the text
 * report and the JSON document, and results_json.c reads that JSON back.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "report.h"
#include "report_render.h"

static void str_list(struct cd_out *o, const char *key, const struct cd_strv *sv)
{
	out_arr_open(o, key);
	for (size_t i = 0; i < sv->n; i++)
		out_str(o, OUT_JSON, NULL, NULL, sv->v[i]);
	out_arr_close(o);
}

/* Text: "a, b, c" or "-" for an empty list. */
static void text_list(struct cd_out *o, const char *fmt, const struct cd_strv *sv)
{
	char buf[512];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sv->n && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "," : "", sv->v[i]);
	out_str(o, OUT_TEXT, NULL, fmt, sv->n ? buf : "-");
}

static void text_bytes(struct cd_out *o, const char *fmt, int64_t v)
{
	char buf[32];

	out_str(o, OUT_TEXT, NULL, fmt, v == CD_NULL_I64 ? NULL : cd_fmt_bytes(buf, sizeof(buf), v));
}

static void hex_id(struct cd_out *o, const char *key, int64_t v, int digits)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, digits, (uint64_t)v);
	out_str(o, OUT_JSON, key, NULL, v == CD_NULL_I64 ? NULL : buf);
}

/* JSON: run.imports; text: one line per imported file, under the title line. */
static void render_imports(struct cd_out *o, const struct cd_results *r)
{
	if (!r->run.n_imports)
		return;
	out_arr_open(o, "imports");
	for (size_t i = 0; i < r->run.n_imports; i++) {
		const struct cd_import *im = &r->run.imports[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_JSON, "file", NULL, im->file);
		out_str(o, OUT_JSON, "format", NULL, im->format);
		str_list(o, "collectives", &im->collectives);
		str_list(o, "collective_from", &im->collective_from);
		str_list(o, "hosts", &im->hosts);
		out_i64(o, OUT_JSON, "tests", NULL, im->tests);
		out_i64(o, OUT_JSON, "rows", NULL, im->rows);
		out_i64(o, OUT_JSON, "skipped_lines", NULL, im->skipped_lines);
		out_arr_open(o, "first_skipped_lines");
		for (size_t k = 0; k < im->n_first_skipped; k++)
			out_i64(o, OUT_JSON, NULL, NULL, im->first_skipped[k]);
		out_arr_close(o);
		out_i64(o, OUT_JSON, "other_lines", NULL, im->other_lines);
		out_i64(o, OUT_JSON, "out_of_bounds", NULL, im->out_of_bounds);
		out_bool(o, OUT_JSON, "complete", NULL, im->complete);
		out_arr_open(o, "avg_busbw_gbyte_s");
		for (size_t k = 0; k < im->n_avg_busbw; k++)
			out_dbl(o, OUT_JSON, NULL, NULL, im->avg_busbw[k]);
		out_arr_close(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void text_imports(struct cd_out *o, const struct cd_results *r)
{
	for (size_t i = 0; i < r->run.n_imports; i++) {
		const struct cd_import *im = &r->run.imports[i];

		out_text(o, "imported %s (%s): ", im->file ? im->file : "?", im->format ? im->format : "?");
		text_list(o, "%s", &im->collectives);
		/* a collective the log did not name: say how it was told (or which ones it could be) */
		for (size_t k = 0; k < im->collective_from.n && k < im->collectives.n; k++)
			if (strncmp(im->collective_from.v[k], "named", 5))
				out_text(o, " [%s: %s]", im->collectives.v[k], im->collective_from.v[k]);
		out_text(o, ", %" PRId64 " test%s, %" PRId64 " row%s", im->tests, im->tests == 1 ? "" : "s", im->rows,
			 im->rows == 1 ? "" : "s");
		if (im->out_of_bounds != CD_NULL_I64 && im->out_of_bounds > 0)
			out_text(o, ", %" PRId64 " out-of-bounds values", im->out_of_bounds);
		if (im->complete == CD_TRI_FALSE)
			out_text(o, ", ends without its footer (cut short?)");
		if (!im->rows && im->n_avg_busbw) {
			/* a pasted footer alone: kept, but nothing judges an average over sizes it does not show */
			out_text(o, ", no size rows: its footer's average bus bandwidth");
			for (size_t k = 0; k < im->n_avg_busbw; k++)
				out_text(o, "%s %.3f GB/s", k ? "," : "", im->avg_busbw[k]);
			out_text(o, " is recorded, and no rule judges it (the sizes it averages are not shown)");
		}
		if (im->skipped_lines > 0) {
			out_text(o, ", %" PRId64 " unusable line%s (at", im->skipped_lines, im->skipped_lines == 1 ? "" : "s");
			for (size_t k = 0; k < im->n_first_skipped; k++)
				out_text(o, " %" PRId64, im->first_skipped[k]);
			out_text(o, "%s)", (int64_t)im->n_first_skipped < im->skipped_lines ? " …" : "");
		}
		out_nl(o);
	}
}

void cd_render_tool_run(struct cd_out *o, const struct cd_results *r)
{
	out_i64(o, OUT_JSON, "schema", NULL, r->schema);
	out_obj_open(o, "tool");
	out_str(o, OUT_JSON, "name", NULL, "commdiag");
	out_str(o, OUT_JSON, "version", NULL, r->tool_version);
	out_obj_close(o);
	out_obj_open(o, "run");
	out_str(o, OUT_JSON, "started", NULL, r->run.started);
	out_str(o, OUT_JSON, "mode", NULL, r->run.mode);
	out_str(o, OUT_JSON, "launcher", NULL, r->run.launcher);
	out_i64(o, OUT_JSON, "launcher_ranks", NULL, r->run.launcher_ranks);
	out_i64(o, OUT_JSON, "ranks", NULL, r->run.ranks);
	out_dbl(o, OUT_JSON, "duration_s", NULL, r->run.duration_s);
	out_dbl(o, OUT_JSON, "timeout_s", NULL, r->run.timeout_s);
	out_str(o, OUT_JSON, "stopped_by", NULL, r->run.stopped_by);
	out_str(o, OUT_JSON, "stopped_phase", NULL, r->run.stopped_phase);
	render_imports(o, r);
	cd_report_fleet_run(o, r);
	out_obj_close(o);

	out_color(o, OUT_COLOR_BOLD);
	out_str(o, OUT_TEXT, NULL, "commdiag %s", r->tool_version);
	out_str(o, OUT_TEXT, NULL, " %s", r->run.mode);
	out_color(o, OUT_COLOR_NONE);
	if (r->run.started)
		out_str(o, OUT_TEXT, NULL, " · %s", r->run.started);
	if (isfinite(r->run.duration_s))
		out_dbl(o, OUT_TEXT, NULL, " · %.2f s", r->run.duration_s);
	out_i64(o, OUT_TEXT, NULL, " · %" PRId64 " rank", r->run.ranks);
	out_str(o, OUT_TEXT, NULL, "%s", r->run.ranks == 1 ? "" : "s");
	out_i64(o, OUT_TEXT, NULL, " · %" PRId64 " host", (int64_t)cd_results_machines(r));
	out_str(o, OUT_TEXT, NULL, "%s\n", cd_results_machines(r) == 1 ? "" : "s");
	if (r->run.stopped_by) {
		out_color(o, OUT_COLOR_RED);
		out_str(o, OUT_TEXT, NULL, "partial: stopped by %s", r->run.stopped_by);
		out_str(o, OUT_TEXT, NULL, " during %s", r->run.stopped_phase ? r->run.stopped_phase : "an unknown phase");
		out_color(o, OUT_COLOR_NONE);
		out_text(o, "; what did not run is marked timeout\n");
	}
	text_imports(o, r);
}

static void render_status(struct cd_out *o, const struct cd_host *h)
{
	out_obj_open(o, "status");
	for (int i = 0; i < CD_PART_COUNT; i++)
		out_str(o, OUT_JSON, cd_part_str(i), NULL, cd_status_str(h->part[i].status));
	out_obj_close(o);
	out_obj_open(o, "reason");
	for (int i = 0; i < CD_PART_COUNT; i++)
		out_str(o, OUT_JSON, cd_part_str(i), NULL, h->part[i].reason);
	out_obj_close(o);

	out_text(o, "  %-12s", "sections");
	for (int i = 0; i < CD_PART_COUNT; i++) {
		const struct cd_section *s = &h->part[i];

		out_text(o, "%s%s ", i ? " · " : "", cd_part_str(i));
		if (s->status != CD_ST_OK)
			out_color(o, s->status == CD_ST_SKIPPED ? OUT_COLOR_DIM : OUT_COLOR_RED);
		out_text(o, "%s", cd_status_str(s->status));
		out_color(o, OUT_COLOR_NONE);
	}
	out_nl(o);
	for (int i = 0; i < CD_PART_COUNT; i++)
		if (h->part[i].reason)
			out_text(o, "  %-12s%s: %s\n", "", cd_part_str(i), h->part[i].reason);
}

static void render_system(struct cd_out *o, const struct cd_host *h)
{
	const struct cd_system *s = &h->system;

	out_obj_open(o, "system");
	out_str(o, OUT_JSON, "kernel", NULL, s->kernel);
	out_str(o, OUT_JSON, "os", NULL, s->os);
	out_str(o, OUT_JSON, "arch", NULL, s->arch);
	out_i64(o, OUT_JSON, "cpus_online", NULL, s->cpus_online);
	out_i64(o, OUT_JSON, "mem_total_bytes", NULL, s->mem_total_bytes);
	out_str(o, OUT_JSON, "container", NULL, s->container);
	out_str(o, OUT_JSON, "container_evidence", NULL, s->container_evidence);
	out_i64(o, OUT_JSON, "shm_bytes", NULL, s->shm_bytes);
	out_bool(o, OUT_JSON, "memlock_unlimited", NULL, s->memlock_unlimited);
	out_i64(o, OUT_JSON, "memlock_bytes", NULL, s->memlock_bytes);
	out_i64(o, OUT_JSON, "nofile_soft", NULL, s->nofile_soft);
	out_i64(o, OUT_JSON, "nofile_hard", NULL, s->nofile_hard);
	out_str(o, OUT_JSON, "iommu", NULL, s->iommu);
	out_str(o, OUT_JSON, "iommu_evidence", NULL, s->iommu_evidence);
	out_bool(o, OUT_JSON, "peermem", NULL, s->peermem);
	out_bool(o, OUT_JSON, "dev_infiniband", NULL, s->dev_infiniband);
	out_str(o, OUT_JSON, "fabric_manager", NULL, s->fabric_manager);
	out_obj_close(o);

	out_str(o, OUT_TEXT, NULL, "  %-12s", "os");
	out_str(o, OUT_TEXT, NULL, "%s", s->os);
	out_str(o, OUT_TEXT, NULL, " · kernel %s", s->kernel);
	out_str(o, OUT_TEXT, NULL, " %s", s->arch);
	out_i64(o, OUT_TEXT, NULL, " · %" PRId64 " cpus", s->cpus_online);
	text_bytes(o, " · %s\n", s->mem_total_bytes);
	out_str(o, OUT_TEXT, NULL, "  %-12s", "container");
	out_str(o, OUT_TEXT, NULL, "%s", s->container);
	if (s->container_evidence)
		out_str(o, OUT_TEXT, NULL, " (%s)", s->container_evidence);
	out_nl(o);
	out_str(o, OUT_TEXT, NULL, "  %-12s", "limits");
	text_bytes(o, "/dev/shm %s", s->shm_bytes);
	if (s->memlock_unlimited == CD_TRI_TRUE)
		out_text(o, " · memlock unlimited");
	else
		text_bytes(o, " · memlock %s", s->memlock_bytes);
	out_i64(o, OUT_TEXT, NULL, " · nofile %" PRId64, s->nofile_soft);
	out_i64(o, OUT_TEXT, NULL, "/%" PRId64 "\n", s->nofile_hard);
	out_str(o, OUT_TEXT, NULL, "  %-12s", "iommu");
	out_str(o, OUT_TEXT, NULL, "%s", s->iommu);
	if (s->iommu_evidence)
		out_str(o, OUT_TEXT, NULL, " (%s)", s->iommu_evidence);
	out_nl(o);
	out_str(o, OUT_TEXT, NULL, "  %-12s", "rdma");
	out_bool(o, OUT_TEXT, NULL, "/dev/infiniband %s", s->dev_infiniband);
	out_bool(o, OUT_TEXT, NULL, " · gpudirect peermem %s", s->peermem);
	out_str(o, OUT_TEXT, NULL, " · fabric manager %s\n", s->fabric_manager);
}

static void render_versions(struct cd_out *o, const struct cd_host *h)
{
	const struct cd_versions *v = &h->versions;

	out_obj_open(o, "versions");
	out_str(o, OUT_ANY, "driver", "  versions    driver %s", v->driver);
	out_i64(o, OUT_ANY, "cuda_driver", " · cuda driver %" PRId64, v->cuda_driver);
	out_str(o, OUT_ANY, "nccl", " · nccl %s", v->nccl);
	out_str(o, OUT_JSON, "nccl_net_plugin", NULL, v->nccl_net_plugin);
	if (v->nccl_net_plugin)
		out_str(o, OUT_TEXT, NULL, " · net plugin %s", v->nccl_net_plugin);
	out_str(o, OUT_ANY, "hwloc", " · hwloc %s", v->hwloc);
	out_str(o, OUT_ANY, "libnl", " · libnl %s", v->libnl);
	out_str(o, OUT_ANY, "libibverbs", " · libibverbs %s", v->libibverbs);
	out_str(o, OUT_ANY, "cjson", " · cJSON %s", v->cjson);
	out_str(o, OUT_JSON, "commdiag", NULL, v->commdiag);
	if (v->commdiag)
		out_str(o, OUT_TEXT, NULL, " · commdiag %s", v->commdiag);
	out_nl(o);
	out_obj_close(o);
}

static void render_numa(struct cd_out *o, const struct cd_host *h)
{
	out_text(o, "\n## numa nodes (%zu, topology %s)\n", h->n_numa, h->topology_source ? h->topology_source : "n/a");
	if (h->n_numa)
		out_text(o, "  %4s  %-24s %10s\n", "node", "cpus", "memory");
	out_arr_open(o, "numa_nodes");
	for (size_t i = 0; i < h->n_numa; i++) {
		const struct cd_numa_node *n = &h->numa_nodes[i];

		out_obj_open(o, NULL);
		out_i64(o, OUT_ANY, "index", "  %4" PRId64, n->index);
		out_str(o, OUT_ANY, "cpus", "  %-24s", n->cpus);
		out_i64(o, OUT_JSON, "memory_bytes", NULL, n->memory_bytes);
		text_bytes(o, " %10s\n", n->memory_bytes);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void render_pci(struct cd_out *o, const struct cd_host *h)
{
	size_t shown = 0;

	out_arr_open(o, "pci_devices");
	for (size_t i = 0; i < h->n_pci; i++) {
		const struct cd_pci_device *d = &h->pci[i];

		/* text lists what communication cares about; JSON has every device */
		if (out_format(o) == OUT_FMT_TEXT && d->kind != CD_PCI_NIC && d->kind != CD_PCI_HCA && d->kind != CD_PCI_GPU &&
		    cd_verbosity < 1)
			continue;
		if (!shown++) {
			out_text(o, "\n## pci devices%s\n", cd_verbosity < 1 ? " (gpu, nic, hca; -v for all)" : "");
			out_text(o, "  %-13s %-7s %4s %9s %-9s %-18s %s\n", "bus id", "kind", "numa", "link GB/s", "gen/width",
				 "os devices", "device");
		}
		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "bus_id", "  %-13s", d->bus_id);
		out_str(o, OUT_ANY, "kind", " %-7s", cd_pci_kind_str(d->kind));
		hex_id(o, "vendor_id", d->vendor_id, 4);
		hex_id(o, "device_id", d->device_id, 4);
		hex_id(o, "class_id", d->class_id, 4);
		out_str(o, OUT_JSON, "vendor", NULL, d->vendor);
		out_str(o, OUT_JSON, "device", NULL, d->device);
		out_i64(o, OUT_ANY, "numa", " %4" PRId64, d->numa);
		out_dbl(o, OUT_ANY, "link_gbyte_s", " %9.2f", d->link_gbyte_s);
		out_obj_open(o, "pcie");
		out_i64(o, OUT_JSON, "gen", NULL, d->gen);
		out_i64(o, OUT_JSON, "width", NULL, d->width);
		out_i64(o, OUT_JSON, "max_gen", NULL, d->max_gen);
		out_i64(o, OUT_JSON, "max_width", NULL, d->max_width);
		out_obj_close(o);
		if (d->gen != CD_NULL_I64 && d->width != CD_NULL_I64) {
			char gw[48];

			snprintf(gw, sizeof(gw), "Gen%" PRId64 " x%" PRId64, d->gen, d->width);
			out_str(o, OUT_TEXT, NULL, " %-9s", gw);
		} else {
			out_str(o, OUT_TEXT, NULL, " %-9s", "-");
		}
		text_list(o, " %-18s", &d->os_devices);
		str_list(o, "os_devices", &d->os_devices);
		out_str(o, OUT_TEXT, NULL, " %s", d->vendor ? d->vendor : "-");
		if (d->device)
			out_str(o, OUT_TEXT, NULL, " %s", d->device);
		out_nl(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void render_nics(struct cd_out *o, const struct cd_host *h)
{
	out_text(o, "\n## interfaces (%zu)\n", h->n_nics);
	if (h->n_nics)
		out_text(o, "  %-12s %-9s %-8s %6s %9s %-4s %4s %-20s %s\n", "name", "kind", "state", "mtu", "speed", "dflt",
			 "numa", "ipv4", "ipv6");
	out_arr_open(o, "nics");
	for (size_t i = 0; i < h->n_nics; i++) {
		const struct cd_nic *n = &h->nics[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "name", "  %-12s", n->name);
		out_i64(o, OUT_JSON, "ifindex", NULL, n->ifindex);
		out_str(o, OUT_ANY, "kind", " %-9s", cd_nic_kind_str(n->kind));
		out_str(o, OUT_JSON, "link_type", NULL, n->link_type);
		out_str(o, OUT_ANY, "state", " %-8s", n->state);
		out_bool(o, OUT_JSON, "admin_up", NULL, n->admin_up);
		out_i64(o, OUT_ANY, "mtu", " %6" PRId64, n->mtu);
		out_i64(o, OUT_JSON, "speed_mbit_s", NULL, n->speed_mbit_s);
		if (n->speed_mbit_s != CD_NULL_I64)
			out_dbl(o, OUT_TEXT, NULL, " %4.0f Gb/s", (double)n->speed_mbit_s / 1000.0);
		else
			out_text(o, " %9s", "n/a");
		out_str(o, OUT_JSON, "mac", NULL, n->mac);
		out_str(o, OUT_JSON, "master", NULL, n->master);
		str_list(o, "ipv4", &n->ipv4);
		str_list(o, "ipv6", &n->ipv6);
		out_bool(o, OUT_ANY, "default_route", " %-4s", n->default_route);
		out_str(o, OUT_JSON, "driver", NULL, n->driver);
		out_str(o, OUT_JSON, "bus_id", NULL, n->bus_id);
		out_i64(o, OUT_ANY, "numa", " %4" PRId64, n->numa);
		text_list(o, " %-20s", &n->ipv4);
		text_list(o, " %s", &n->ipv6);
		if (n->master)
			out_str(o, OUT_TEXT, NULL, " (port of %s)", n->master);
		out_nl(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void render_port(struct cd_out *o, const struct cd_hca *c, const struct cd_ib_port *p)
{
	out_obj_open(o, NULL);
	out_str(o, OUT_TEXT, NULL, "  %-10s", c->name);
	out_i64(o, OUT_ANY, "port", " %4" PRId64, p->port);
	out_str(o, OUT_ANY, "state", " %-7s", p->state);
	out_str(o, OUT_ANY, "phys_state", " %-9s", p->phys_state);
	out_str(o, OUT_ANY, "link_layer", " %-10s", p->link_layer);
	out_i64(o, OUT_JSON, "active_width", NULL, p->active_width);
	out_dbl(o, OUT_JSON, "lane_gbit_s", NULL, p->lane_gbit_s);
	out_dbl(o, OUT_ANY, "rate_gbit_s", " %6.0f Gb/s", p->rate_gbit_s);
	out_i64(o, OUT_JSON, "lid", NULL, p->lid);
	out_i64(o, OUT_ANY, "mtu_bytes", " %5" PRId64, p->mtu_bytes);
	out_str(o, OUT_ANY, "netdev", " %-8s", p->netdev);
	out_i64(o, OUT_ANY, "roce_v2_gid_index", " %5" PRId64 "\n", p->roce_v2_gid_index);
	out_arr_open(o, "gids");
	for (size_t k = 0; k < p->n_gids; k++) {
		const struct cd_gid *g = &p->gids[k];

		out_obj_open(o, NULL);
		out_i64(o, OUT_JSON, "index", NULL, g->index);
		out_str(o, OUT_JSON, "gid", NULL, g->gid);
		out_str(o, OUT_JSON, "type", NULL, g->type);
		out_str(o, OUT_JSON, "netdev", NULL, g->netdev);
		out_bool(o, OUT_JSON, "ipv4", NULL, g->ipv4);
		if (cd_verbosity >= 1) {
			out_i64(o, OUT_TEXT, NULL, "                  gid %3" PRId64, g->index);
			out_str(o, OUT_TEXT, NULL, " %-40s", g->gid);
			out_str(o, OUT_TEXT, NULL, " %-10s", g->type);
			out_str(o, OUT_TEXT, NULL, " %s\n", g->netdev);
		}
		out_obj_close(o);
	}
	out_arr_close(o);
	out_obj_close(o);
}

static void render_hcas(struct cd_out *o, const struct cd_host *h)
{
	out_text(o, "\n## rdma devices (%zu)\n", h->n_hcas);
	if (!h->n_hcas && h->part[CD_PART_IB].status == CD_ST_OK)
		out_text(o, "  none\n");
	else if (h->n_hcas)
		out_text(o, "  %-10s %4s %-7s %-9s %-10s %11s %5s %-8s %5s\n", "device", "port", "state", "phys", "link",
			 "rate", "mtu", "netdev", "v2gid");
	out_arr_open(o, "hcas");
	for (size_t i = 0; i < h->n_hcas; i++) {
		const struct cd_hca *c = &h->hcas[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_JSON, "name", NULL, c->name);
		out_str(o, OUT_JSON, "node_guid", NULL, c->node_guid);
		out_str(o, OUT_JSON, "fw_ver", NULL, c->fw_ver);
		out_str(o, OUT_JSON, "board_id", NULL, c->board_id);
		out_str(o, OUT_JSON, "bus_id", NULL, c->bus_id);
		out_i64(o, OUT_JSON, "numa", NULL, c->numa);
		out_str(o, OUT_JSON, "netdev", NULL, c->netdev);
		out_arr_open(o, "ports");
		for (size_t j = 0; j < c->n_ports; j++)
			render_port(o, c, &c->ports[j]);
		out_arr_close(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void render_nvlinks(struct cd_out *o, const struct cd_gpu *g)
{
	size_t up = 0;

	out_arr_open(o, "nvlinks");
	for (size_t j = 0; j < g->n_nvlinks; j++) {
		const struct cd_nvlink *l = &g->nvlinks[j];

		up += l->up == CD_TRI_TRUE;
		out_obj_open(o, NULL);
		out_i64(o, OUT_JSON, "link", NULL, l->link);
		out_bool(o, OUT_JSON, "up", NULL, l->up);
		out_i64(o, OUT_JSON, "version", NULL, l->version);
		out_str(o, OUT_JSON, "remote_bus_id", NULL, l->remote_bus_id);
		out_str(o, OUT_JSON, "remote_kind", NULL, l->remote_kind);
		out_obj_close(o);
	}
	out_arr_close(o);
	if (g->n_nvlinks)
		out_text(o, "  %zu/%zu nvlinks up", up, g->n_nvlinks);
}

static void render_gpus(struct cd_out *o, const struct cd_host *h)
{
	out_text(o, "\n## gpus (%zu)\n", h->n_gpus);
	if (!h->n_gpus)
		out_text(o, "  %s\n", h->part[CD_PART_GPU].reason ? h->part[CD_PART_GPU].reason : "none");
	else
		out_text(o, "  %5s %-28s %-13s %4s %10s %4s %-17s %s\n", "index", "name", "bus id", "numa", "memory", "cc",
			 "pcie (max)", "uuid");
	out_arr_open(o, "gpus");
	for (size_t i = 0; i < h->n_gpus; i++) {
		const struct cd_gpu *g = &h->gpus[i];
		char link[64];

		out_obj_open(o, NULL);
		out_i64(o, OUT_ANY, "index", "  %5" PRId64, g->index);
		out_str(o, OUT_ANY, "name", " %-28s", g->name);
		out_str(o, OUT_ANY, "bus_id", " %-13s", g->bus_id);
		out_i64(o, OUT_ANY, "numa", " %4" PRId64, g->numa);
		out_i64(o, OUT_JSON, "memory_bytes", NULL, g->memory_bytes);
		text_bytes(o, " %10s", g->memory_bytes);
		out_str(o, OUT_ANY, "compute_capability", " %4s", g->compute_capability);
		out_bool(o, OUT_JSON, "persistence", NULL, g->persistence);
		out_obj_open(o, "pcie");
		out_i64(o, OUT_JSON, "gen", NULL, g->pcie_gen);
		out_i64(o, OUT_JSON, "width", NULL, g->pcie_width);
		out_i64(o, OUT_JSON, "max_gen", NULL, g->pcie_max_gen);
		out_i64(o, OUT_JSON, "max_width", NULL, g->pcie_max_width);
		out_dbl(o, OUT_JSON, "link_gbyte_s", NULL, g->pcie_link_gbyte_s);
		out_obj_close(o);
		link[0] = '\0';
		if (g->pcie_gen != CD_NULL_I64 && g->pcie_width != CD_NULL_I64)
			snprintf(link, sizeof(link), "Gen%" PRId64 " x%" PRId64 " (%" PRId64 " x%" PRId64 ")", g->pcie_gen,
				 g->pcie_width, g->pcie_max_gen, g->pcie_max_width);
		out_str(o, OUT_TEXT, NULL, " %-17s", link[0] ? link : NULL);
		out_str(o, OUT_TEXT, NULL, " %s", g->uuid);
		out_str(o, OUT_JSON, "uuid", NULL, g->uuid);
		render_nvlinks(o, g);
		out_nl(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

/* One matrix of the path section: rows are GPUs, cells strings (classes) or tri-states. */
static void render_matrix(struct cd_out *o, const char *key, size_t rows, size_t cols, char *const *strs,
			  const int *tris)
{
	if (!strs && !tris) {
		out_null(o, key);
		return;
	}
	out_arr_open(o, key);
	for (size_t i = 0; i < rows; i++) {
		out_arr_open(o, NULL);
		for (size_t j = 0; j < cols; j++) {
			if (strs)
				out_str(o, OUT_JSON, NULL, NULL, strs[i * cols + j]);
			else
				out_bool(o, OUT_JSON, NULL, NULL, tris[i * cols + j]);
		}
		out_arr_close(o);
	}
	out_arr_close(o);
}

/* Text: the `nvidia-smi topo -m` layout, GPUs then network devices as columns. */
static void text_path_matrix(struct cd_out *o, const struct cd_paths *p)
{
	size_t g = p->gpus.n, n = p->nets.n;

	out_text(o, "  %-8s", "");
	for (size_t j = 0; j < g; j++)
		out_text(o, " GPU%-4zu", j);
	for (size_t j = 0; j < n; j++)
		out_text(o, " %-7.7s", p->nets.v[j]);
	out_text(o, "  nccl p2p with\n");
	for (size_t i = 0; i < g; i++) {
		size_t peers = 0;

		out_text(o, "  GPU%-5zu", i);
		for (size_t j = 0; j < g; j++)
			out_str(o, OUT_TEXT, NULL, " %-7s", p->gpu_gpu[i * g + j]);
		for (size_t j = 0; j < n; j++)
			out_str(o, OUT_TEXT, NULL, " %-7s", p->gpu_net[i * n + j]);
		out_text(o, " ");
		for (size_t j = 0; j < g; j++) {
			if (j != i && p->nccl_p2p[i * g + j] == CD_TRI_TRUE)
				out_text(o, "%s%zu", peers++ ? "," : " GPU", j);
		}
		out_text(o, "%s\n", peers ? "" : " none");
	}
}

static void render_paths(struct cd_out *o, const struct cd_host *h)
{
	const struct cd_paths *p = &h->paths;
	size_t g = p->gpus.n;

	out_obj_open(o, "paths");
	out_str(o, OUT_JSON, "source", NULL, p->source);
	str_list(o, "gpus", &p->gpus);
	str_list(o, "nets", &p->nets);
	render_matrix(o, "gpu_gpu", g, g, p->gpu_gpu, NULL);
	render_matrix(o, "gpu_net", g, p->nets.n, p->gpu_net, NULL);
	out_str(o, OUT_JSON, "p2p_level", NULL, p->p2p_level);
	out_str(o, OUT_JSON, "p2p_level_source", NULL, p->p2p_level_source);
	render_matrix(o, "nccl_p2p", g, g, NULL, p->nccl_p2p);
	render_matrix(o, "cuda_p2p", g, g, NULL, p->cuda_p2p);
	render_matrix(o, "nvml_p2p", g, g, p->nvml_p2p, NULL);
	out_obj_close(o);
	if (g && p->gpu_gpu) {
		out_text(o, "\n## paths (%s", p->source ? p->source : "n/a");
		out_str(o, OUT_TEXT, NULL, "; nccl p2p up to %s", p->p2p_level);
		out_str(o, OUT_TEXT, NULL, ", %s)\n", p->p2p_level_source);
		text_path_matrix(o, p);
	}

	out_arr_open(o, "acs");
	if (h->n_acs)
		out_text(o, "\n## pcie acs on bridges between gpus (%zu)\n", h->n_acs);
	for (size_t i = 0; i < h->n_acs; i++) {
		const struct cd_acs *a = &h->acs[i];
		char ctrl[16];

		snprintf(ctrl, sizeof(ctrl), "0x%04" PRIx64, (uint64_t)a->ctrl);
		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "bus_id", "  %-13s", a->bus_id);
		out_bool(o, OUT_ANY, "redirect", " redirect %s", a->redirect);
		out_str(o, OUT_ANY, "ctrl", " ctrl %s", a->ctrl == CD_NULL_I64 ? NULL : ctrl);
		out_str(o, OUT_ANY, "reason", " (%s)", a->reason);
		out_nl(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void render_env(struct cd_out *o, const struct cd_host *h)
{
	out_text(o, "\n## communication environment (%zu)\n", h->n_env);
	if (!h->n_env)
		out_text(o, "  none set (NCCL_*, TORCH_NCCL_*, GLOO_*, OMPI_MCA_*, UCX_*, CUDA_VISIBLE_DEVICES, …)\n");
	out_obj_open(o, "env");
	for (size_t i = 0; i < h->n_env; i++) {
		out_text(o, "  %s=", h->env[i].key);
		out_str(o, OUT_ANY, h->env[i].key, "%s\n", h->env[i].value);
	}
	out_obj_close(o);
}

static void render_host(struct cd_out *o, const struct cd_host *h)
{
	out_obj_open(o, NULL);
	out_color(o, OUT_COLOR_BOLD);
	out_str(o, OUT_ANY, "hostname", "\n# host %s\n", h->hostname);
	out_color(o, OUT_COLOR_NONE);
	out_text(o, "  %-12s", "host id");
	out_str(o, OUT_ANY, "host_id", "%s", h->host_id);
	out_str(o, OUT_ANY, "host_id_source", " (%s)\n", h->host_id_source);
	render_status(o, h);
	render_system(o, h);
	render_versions(o, h);
	out_str(o, OUT_JSON, "topology_source", NULL, h->topology_source);
	render_numa(o, h);
	render_pci(o, h);
	render_gpus(o, h);
	render_paths(o, h);
	render_nics(o, h);
	render_hcas(o, h);
	render_env(o, h);
	out_obj_close(o);
}

static void render_probes(struct cd_out *o, const struct cd_results *r)
{
	out_arr_open(o, "probes");
	if (r->n_probes)
		out_text(o, "\n# probes (%zu)\n", r->n_probes);
	for (size_t i = 0; i < r->n_probes; i++) {
		const struct cd_probe_run *p = &r->probes[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "name", "  %-20s", p->name);
		out_str(o, OUT_JSON, "variant", NULL, p->variant);
		if (p->variant)
			out_str(o, OUT_TEXT, NULL, " %s", p->variant);
		out_str(o, OUT_JSON, "host", NULL, p->host);
		out_i64(o, OUT_JSON, "device", NULL, p->device);
		out_i64(o, OUT_JSON, "peer", NULL, p->peer);
		out_i64(o, OUT_JSON, "nranks", NULL, p->nranks);
		out_i64(o, OUT_JSON, "rank", NULL, p->rank);
		if (p->rank != CD_NULL_I64)
			out_i64(o, OUT_TEXT, NULL, " rank %" PRId64, p->rank);
		if (p->device != CD_NULL_I64)
			out_i64(o, OUT_TEXT, NULL, " gpu %" PRId64, p->device);
		if (p->peer != CD_NULL_I64)
			out_i64(o, OUT_TEXT, NULL, " peer %" PRId64, p->peer);
		if (p->status != CD_ST_OK)
			out_color(o, p->status == CD_ST_SKIPPED ? OUT_COLOR_DIM : OUT_COLOR_RED);
		out_str(o, OUT_ANY, "status", " %s", cd_status_str(p->status));
		out_color(o, OUT_COLOR_NONE);
		out_str(o, OUT_JSON, "phase", NULL, p->phase);
		if (p->phase)
			out_str(o, OUT_TEXT, NULL, " in %s", p->phase);
		out_str(o, OUT_JSON, "reason", NULL, p->reason);
		if (p->reason)
			out_str(o, OUT_TEXT, NULL, ": %s", p->reason);
		out_nl(o);
		if (p->n_samples)
			out_text(o, "  %14s %7s %11s %10s %10s %10s %11s %4s %10s %10s %6s\n", "bytes", "iters", "time us",
				 "p25 us", "p75 us", "min us", "max us", "out", "algbw GB/s", "busbw GB/s", "wrong");
		out_arr_open(o, "results");
		for (size_t k = 0; k < p->n_samples; k++) {
			const struct cd_probe_sample *s = &p->samples[k];

			out_obj_open(o, NULL);
			out_i64(o, OUT_ANY, "bytes", "  %14" PRId64, s->bytes);
			out_i64(o, OUT_ANY, "iters", " %7" PRId64, s->iters);
			out_dbl(o, OUT_ANY, "time_us", " %11.2f", s->time_us);
			out_dbl(o, OUT_JSON, "min_time_us", NULL, s->min_time_us);
			out_dbl(o, OUT_JSON, "max_time_us", NULL, s->max_time_us);
			out_dbl(o, OUT_JSON, "p10_time_us", NULL, s->p10_time_us);
			out_dbl(o, OUT_ANY, "p25_time_us", " %10.2f", s->p25_time_us);
			out_dbl(o, OUT_ANY, "p75_time_us", " %10.2f", s->p75_time_us);
			out_dbl(o, OUT_JSON, "p90_time_us", NULL, s->p90_time_us);
			out_dbl(o, OUT_TEXT, NULL, " %10.2f", s->min_time_us);
			out_dbl(o, OUT_TEXT, NULL, " %11.2f", s->max_time_us);
			out_i64(o, OUT_ANY, "outliers", " %4" PRId64, s->outliers);
			out_dbl(o, OUT_JSON, "cpu_wait_pct", NULL, s->cpu_wait_pct);
			out_dbl(o, OUT_ANY, "algbw_gbyte_s", " %10.2f", s->algbw_gbyte_s);
			out_dbl(o, OUT_ANY, "busbw_gbyte_s", " %10.2f", s->busbw_gbyte_s);
			out_i64(o, OUT_ANY, "errors", " %6" PRId64 "\n", s->errors);
			out_obj_close(o);
		}
		out_arr_close(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static void render_reach(struct cd_out *o, const struct cd_results *r)
{
	out_arr_open(o, "reach");
	if (r->n_reach)
		out_text(o, "\n# tcp reachability (%zu attempts)\n", r->n_reach);
	for (size_t i = 0; i < r->n_reach; i++) {
		const struct cd_reach *x = &r->reach[i];

		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "from", "  %s", x->from);
		out_str(o, OUT_ANY, "to", " -> %s", x->to);
		out_str(o, OUT_ANY, "iface", " %s", x->iface);
		out_str(o, OUT_ANY, "address", " %s:", x->address);
		out_bool(o, OUT_JSON, "ok", NULL, x->ok);
		out_str(o, OUT_TEXT, NULL, " %s", x->ok == CD_TRI_TRUE ? "ok" : x->ok == CD_TRI_FALSE ? "FAILED" : NULL);
		out_dbl(o, OUT_JSON, "connect_us", NULL, x->connect_us);
		if (isfinite(x->connect_us))
			out_dbl(o, OUT_TEXT, NULL, " %.0f us", x->connect_us);
		out_str(o, OUT_JSON, "error", NULL, x->error);
		if (x->error)
			out_str(o, OUT_TEXT, NULL, " (%s)", x->error);
		out_nl(o);
		out_obj_close(o);
	}
	out_arr_close(o);
	/* a compact matrix's counts per host and interface (report_scale.c): JSON only, absent unless compact */
	cd_scale_reach_counts(o, r);
}

/* The ranks of an MPI job; in text only when there is more than one, or one did not answer. */
static void render_ranks(struct cd_out *o, const struct cd_results *r)
{
	int text = r->n_ranks > 1;

	for (size_t i = 0; i < r->n_ranks; i++)
		text |= r->ranks[i].answered == CD_TRI_FALSE;
	out_arr_open(o, "ranks");
	if (text)
		out_text(o, "\n# ranks (%zu)\n  %6s %6s %-5s %-20s %s\n", r->n_ranks, "rank", "local", "host#",
			 "host", "answered");
	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct cd_rank *k = &r->ranks[i];
		enum out_kind t = text ? OUT_ANY : OUT_JSON;

		out_obj_open(o, NULL);
		out_i64(o, t, "rank", "  %6" PRId64, k->rank);
		out_i64(o, t, "local_rank", " %6" PRId64, k->local_rank);
		out_i64(o, t, "host_index", " %5" PRId64, k->host_index);
		out_str(o, t, "host", " %-20s", k->host);
		out_bool(o, t, "answered", " %s", k->answered);
		out_str(o, OUT_JSON, "error", NULL, k->error);
		if (text && k->error)
			out_str(o, OUT_TEXT, NULL, " (%s)", k->error);
		if (text)
			out_nl(o);
		out_obj_open(o, "env_diff");
		for (size_t j = 0; j < k->n_env_diff; j++) {
			if (text)
				out_text(o, "  %6s %s=", "", k->env_diff[j].key);
			out_str(o, t, k->env_diff[j].key, "%s\n", k->env_diff[j].value);
		}
		out_obj_close(o);
		out_obj_close(o);
	}
	out_arr_close(o);
}

static enum out_color sev_color(enum cd_severity s)
{
	return s == CD_SEV_FAIL ? OUT_COLOR_RED : s == CD_SEV_WARN ? OUT_COLOR_YELLOW : OUT_COLOR_DIM;
}

void cd_render_findings(struct cd_out *o, const struct cd_results *r)
{
	size_t count[3] = { 0 };

	out_text(o, "\n# findings (%zu)\n", r->n_findings);
	out_arr_open(o, "findings");
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct cd_finding *f = &r->findings[i];
		char sev[8];

		count[f->severity]++;
		snprintf(sev, sizeof(sev), "%s", cd_severity_str(f->severity));
		for (char *p = sev; *p; p++)
			*p = (char)(*p - 32 * (*p >= 'a' && *p <= 'z'));
		out_obj_open(o, NULL);
		out_str(o, OUT_JSON, "id", NULL, f->id);
		out_str(o, OUT_JSON, "severity", NULL, cd_severity_str(f->severity));
		out_color(o, sev_color(f->severity));
		out_str(o, OUT_TEXT, NULL, "  %-5s", sev);
		out_color(o, OUT_COLOR_NONE);
		out_str(o, OUT_TEXT, NULL, " %-7s", f->id);
		out_str(o, OUT_ANY, "host", " %s", f->host);
		out_str(o, OUT_ANY, "subject", " %s: ", f->subject);
		out_str(o, OUT_ANY, "title", "%s\n", f->title);
		out_dbl(o, OUT_JSON, "measured", NULL, f->measured);
		out_dbl(o, OUT_JSON, "expected", NULL, f->expected);
		out_str(o, OUT_JSON, "unit", NULL, f->unit);
		out_str(o, OUT_JSON, "threshold", NULL, f->threshold);
		out_bool(o, OUT_JSON, "consequence", NULL, f->consequence);
		out_arr_open(o, "evidence");
		for (size_t k = 0; k < f->evidence.n; k++)
			out_str(o, OUT_ANY, NULL, "        - %s\n", f->evidence.v[k]);
		out_arr_close(o);
		out_obj_close(o);
	}
	out_arr_close(o);
	if (!r->n_findings)
		out_text(o, "  none\n");
	out_text(o, "\nsummary: %zu fail, %zu warn, %zu info\n", count[CD_SEV_FAIL], count[CD_SEV_WARN],
		 count[CD_SEV_INFO]);
}

/* A value the shell reads back unchanged: bare when safe, else single-quoted. */
/*
 * The shell lines are meant to be pasted or eval'ed as root, from documents anyone may have
 * written: every byte is quoted or refused. A name is a shell variable name, a value is
 * always single-quoted, a host in a guard is a host name, and comment text has no control
 * character (a newline would end the comment and start a command).
 */
static int shell_name_ok(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static int host_name_ok(const char *s)
{
	if (!s || !*s || *s == '-' || strlen(s) > 253)
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '.' || *s == '-' || *s == '_'))
			return 0;
	return 1;
}

/* v in single quotes ('\'' for a quote); -1 when it holds a control character or does not fit */
static int shell_quote(char *buf, size_t len, const char *v)
{
	size_t used = 0;

	buf[used++] = '\'';
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || used + 6 > len)
			return -1;
		if (*p == '\'') {
			memcpy(buf + used, "'\\''", 4);
			used += 4;
		} else {
			buf[used++] = (char)*p;
		}
	}
	buf[used++] = '\'';
	buf[used] = '\0';
	return 0;
}

/* s as comment text: each control character a space, cut to fit */
/* s as one comment line: control bytes become spaces; cut at len with " ..." so a cut shows */
static void comment_text(char *buf, size_t len, const char *s)
{
	size_t used = 0;
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	for (; *p && used + 1 < len; p++)
		buf[used++] = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
	if (*p && len > 5) {
		used = len - 5;
		while (used && ((unsigned char)buf[used] & 0xc0) == 0x80)
			used--; /* not inside a UTF-8 sequence */
		memcpy(buf + used, " ...", 4);
		used += 4;
	}
	buf[used] = '\0';
}

static void refused(char *buf, size_t len, const char *what, const char *v)
{
	char c[160];

	comment_text(c, sizeof(c), v);
	snprintf(buf, len, "# commdiag refused to print this line: %s: %s", what, c);
}

/* "export K='V'", "unset K", or the command as a comment: eval runs settings, never commands. */
void cd_report_shell_line(char *buf, size_t len, const struct cd_advice *a)
{
	char q[512], h[300], guard[340] = "", c[CD_SHELL_COMMENT_MAX];

	if (a->host && (!host_name_ok(a->host) || shell_quote(h, sizeof(h), a->host) < 0)) {
		refused(buf, len, "not a host name", a->host);
		return;
	}
	if (a->host)
		snprintf(guard, sizeof(guard), "[ \"$(hostname)\" = %s ] && ", h);
	if (a->env && !shell_name_ok(a->env)) {
		refused(buf, len, "not a shell variable name", a->env);
	} else if (a->env && a->value) {
		if (shell_quote(q, sizeof(q), a->value) < 0)
			refused(buf, len, "a value with a control character, or over 500 bytes, for", a->env);
		else
			snprintf(buf, len, "%sexport %s=%s", guard, a->env, q);
	} else if (a->env) {
		snprintf(buf, len, "%sunset %s", guard, a->env);
	} else {
		comment_text(c, sizeof(c), a->value);
		snprintf(buf, len, "# %s%s%s%s", a->host ? "on " : "", a->host ? a->host : "", a->host ? ": " : "", c);
	}
}

static void text_ids(char *buf, size_t len, const struct cd_strv *ids)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ids->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", ids->v[i]);
}

void cd_render_advice(struct cd_out *o, const struct cd_results *r)
{
	out_arr_open(o, "advice");
	if (r->n_advice) {
		out_text(o, "\n# advice (%zu)\n", r->n_advice);
	} else if (r->rules.present) {
		size_t serious = 0;

		for (size_t i = 0; i < r->n_findings; i++)
			serious += r->findings[i].severity >= CD_SEV_WARN;
		/* an empty list is a verdict too: say which one */
		out_text(o, "\n# advice (0)\n  %s\n",
			 serious ? "no setting to change: the findings above need the hardware, driver or host fixed"
				 : "no change needed: no finding at warn or above, and no setting whose library's own "
				   "choice was shown not to work");
	}
	for (size_t i = 0; i < r->n_advice; i++) {
		const struct cd_advice *a = &r->advice[i];
		char line[CD_SHELL_LINE_MAX], ids[128];

		cd_report_shell_line(line, sizeof(line), a);
		text_ids(ids, sizeof(ids), &a->findings);
		out_obj_open(o, NULL);
		out_str(o, OUT_JSON, "env", NULL, a->env);
		out_str(o, OUT_JSON, "value", NULL, a->value);
		out_str(o, OUT_JSON, "host", NULL, a->host);
		out_str(o, OUT_TEXT, NULL, "  %s", a->env ? line : a->value);
		if (ids[0])
			out_str(o, OUT_TEXT, NULL, "  [%s]", ids);
		out_nl(o);
		str_list(o, "findings", &a->findings);
		str_list(o, "path", &a->path);
		out_str(o, OUT_ANY, "why", "      why: %s\n", a->why);
		if (a->path.n) {
			out_text(o, "      path:");
			for (size_t k = 0; k < a->path.n; k++)
				out_text(o, "%s %s", k ? " →" : "", a->path.v[k]);
			out_nl(o);
		}
		out_obj_close(o);
	}
	out_arr_close(o);
}

/* How the rules ran: the profile, where the thresholds came from, and what could not be judged. */
static void render_rules(struct cd_out *o, const struct cd_results *r)
{
	const struct cd_rules_run *rr = &r->rules;

	if (!rr->present) {
		out_null(o, "rules");
		return;
	}
	out_obj_open(o, "rules");
	out_text(o, "\n# rules\n");
	out_str(o, OUT_JSON, "profile", NULL, rr->profile);
	out_text(o, "  profile     %s", rr->profile ? rr->profile : "none");
	out_str(o, OUT_ANY, "profile_reason", " (%s)\n", rr->profile_reason);
	str_list(o, "sources", &rr->sources);
	out_text(o, "  thresholds ");
	for (size_t i = 0; i < rr->sources.n; i++)
		out_text(o, "%s%s", i ? " \u00b7 " : " ", rr->sources.v[i]);
	out_text(o, "\n  evaluated  ");
	for (size_t i = 0; i < rr->evaluated.n; i++)
		out_text(o, " %s", rr->evaluated.v[i]);
	out_text(o, "%s\n", rr->evaluated.n ? "" : " none");
	str_list(o, "evaluated", &rr->evaluated);
	if (rr->required.n) {
		out_text(o, "  required   ");
		for (size_t i = 0; i < rr->required.n; i++)
			out_text(o, " %s", rr->required.v[i]);
		out_text(o, " (not evaluated fails: REQ001)\n");
	}
	str_list(o, "required", &rr->required);
	out_arr_open(o, "not_evaluated");
	if (rr->n_not_evaluated)
		out_text(o, "  not evaluated (no data: these rules said nothing, which is not a pass)\n");
	for (size_t i = 0; i < rr->n_not_evaluated; i++) {
		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "group", "    %s", rr->not_evaluated[i].group);
		out_str(o, OUT_ANY, "reason", ": %s\n", rr->not_evaluated[i].reason);
		out_obj_close(o);
	}
	out_arr_close(o);
	out_obj_close(o);
}

static void render_score(struct cd_out *o, const struct cd_results *r)
{
	const struct cd_score *s = &r->score;

	if (!s->present) {
		out_null(o, "score");
		return;
	}
	out_obj_open(o, "score");
	out_text(o, "\n");
	out_color(o, OUT_COLOR_BOLD);
	out_i64(o, OUT_JSON, "total", NULL, s->total);
	out_str(o, OUT_JSON, "grade", NULL, s->grade);
	if (s->total == CD_NULL_I64)
		out_text(o, "# score n/a: no dimension has data\n");
	else
		out_text(o, "# score %" PRId64 "/100 \u00b7 %s\n", s->total, s->grade ? s->grade : "n/a");
	out_color(o, OUT_COLOR_NONE);
	for (int d = 0; d < CD_DIM_COUNT; d++) {
		out_text(o, "  %-10s", cd_dim_str(d));
		out_i64(o, OUT_ANY, cd_dim_str(d), " %4" PRId64, s->dim[d]);
		if (isnan(s->weight[d]))
			out_text(o, "  (   -)");
		else
			out_text(o, "  (%3.0f %%)", 100.0 * s->weight[d]);
		out_text(o, "  %s\n", s->basis[d] ? s->basis[d] : "");
	}
	out_obj_open(o, "weights");
	for (int d = 0; d < CD_DIM_COUNT; d++)
		out_dbl(o, OUT_JSON, cd_dim_str(d), NULL, s->weight[d]);
	out_obj_close(o);
	out_bool(o, OUT_JSON, "renormalised", NULL, s->renormalised);
	if (s->renormalised == CD_TRI_TRUE)
		out_text(o, "  weights renormalised over the dimensions with data (30/25/25/20 %% when all have data)\n");
	out_obj_open(o, "basis");
	for (int d = 0; d < CD_DIM_COUNT; d++)
		out_str(o, OUT_JSON, cd_dim_str(d), NULL, s->basis[d]);
	out_obj_close(o);
	out_text(o, "  grades: excellent \u2265 85, good 70\u201384, needs work < 70\n");
	out_obj_close(o);
}

void cd_report_shell(struct cd_out *o, const struct cd_results *r)
{
	for (size_t i = 0; i < r->n_advice; i++) {
		const struct cd_advice *a = &r->advice[i];
		char line[CD_SHELL_LINE_MAX], ids[128];
		char why[CD_SHELL_COMMENT_MAX];

		cd_report_shell_line(line, sizeof(line), a);
		text_ids(ids, sizeof(ids), &a->findings);
		comment_text(ids, sizeof(ids), ids);
		comment_text(why, sizeof(why), a->why);
		out_text(o, "%-44s # %s%s%s\n", line, ids, ids[0] ? ": " : "", why);
	}
}

/* The end of a text report: the block to paste, when there is advice. */
void cd_render_shell_block(struct cd_out *o, const struct cd_results *r)
{
	if (!r->n_advice || out_format(o) != OUT_FMT_TEXT)
		return;
	out_text(o, "\n# paste or eval (settings are exported; commands stay comments for you to run)\n");
	cd_report_shell(o, r);
}

void cd_report(struct cd_out *o, const struct cd_results *r)
{
	if (out_format(o) == OUT_FMT_PROM) {
		cd_report_prom(o, r);
		return;
	}
	if (out_format(o) == OUT_FMT_HTML) {
		cd_report_html(o, r);
		return;
	}
	if (cd_scale_big(r))
		cd_report_compact_form(o);
	cd_render_tool_run(o, r);
	if (out_format(o) == OUT_FMT_TEXT && cd_scale_big(r)) {
		/* many hosts: the bad ones in full, the rest summarised (report_scale.c); JSON keeps all */
		cd_scale_text(o, r, render_host);
	} else {
		out_arr_open(o, "hosts");
		for (size_t i = 0; i < r->n_hosts; i++)
			render_host(o, &r->hosts[i]);
		out_arr_close(o);
		render_ranks(o, r);
		render_probes(o, r);
		render_reach(o, r);
	}
	cd_render_findings(o, r);
	cd_report_fleet_verdicts(o, r);
	cd_render_advice(o, r);
	render_rules(o, r);
	render_score(o, r);
	cd_render_shell_block(o, r);
}

/* `advise`: the findings that led somewhere, the advice and the block. */
void cd_report_advice(struct cd_out *o, const struct cd_results *r)
{
	cd_render_tool_run(o, r);
	cd_render_findings(o, r);
	cd_render_advice(o, r);
	if (!r->n_advice)
		out_text(o, "\nno advice: nothing in the facts or findings calls for a change\n");
	cd_render_shell_block(o, r);
}

/* `env`: the settings seen, their findings, and what to change. */
void cd_report_env(struct cd_out *o, const struct cd_results *r)
{
	cd_render_tool_run(o, r);
	out_arr_open(o, "hosts");
	for (size_t i = 0; i < r->n_hosts; i++) {
		out_obj_open(o, NULL);
		out_str(o, OUT_ANY, "hostname", "\n# host %s\n", r->hosts[i].hostname);
		render_env(o, &r->hosts[i]);
		out_obj_close(o);
	}
	out_arr_close(o);
	cd_render_findings(o, r);
	cd_render_advice(o, r);
	cd_render_shell_block(o, r);
}
