/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compact form of the JSON document (schema 2, issue 18). A 4096-host fleet written
 * indented was 255 MB, and its loader's parse tree grows with every byte: measured on
 * tests/gen_fleet.py's 512-host document, the indentation is a third of the bytes, the
 * hosts' discovery sections a third of the rest, and within a host the 18 NVLink records
 * of each GPU are nearly all alike. So the compact form, written for a document of more
 * than CD_SCALE_HOSTS hosts and for the parts an MPI rank sends to rank 0:
 *
 *  - is one line, without indentation;
 *  - writes a run of NVLink records that differ only in `link`, counting up by one, as
 *    the first of them with `"count": n` (n > 1);
 *  - writes a host section (system, versions, numa_nodes, pci_devices, gpus, paths, acs,
 *    nics, hcas, env) equal to the same section of an earlier host as `{"same_as": i}`,
 *    i the index of the first host in `hosts` that has it (an index, not a name: names
 *    may repeat).
 *
 * The loader (results_json.c) expands both back, so the document in memory is the same
 * whichever form it was read from, and this pass runs on the finished cJSON tree, after
 * the renderers: the text and the indented JSON never see it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "nvml.h"
#include "report.h"
#include "results.h"
#include "util.h"

/* The sections that may be a reference; the identity and status keys are smaller than one. */
static const char *const sections[] = { "system", "versions", "numa_nodes", "pci_devices", "gpus",
					"paths",  "acs",      "nics",	    "hcas",	   "env" };
#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* A hash of a subtree (keys, types, values), so equal sections are found without comparing every pair. */
static uint64_t tree_hash(const cJSON *v, uint64_t h)
{
	int t = v->type & 0xff;

	h = fnv(h, &t, sizeof(t));
	if (v->string)
		h = fnv(h, v->string, strlen(v->string) + 1);
	if (cJSON_IsString(v))
		h = fnv(h, v->valuestring, strlen(v->valuestring) + 1);
	else if (cJSON_IsNumber(v))
		h = fnv(h, &v->valuedouble, sizeof(v->valuedouble));
	for (const cJSON *c = v->child; c; c = c->next)
		h = tree_hash(c, h);
	return h;
}

/* Two NVLink records equal but for `link` (and b without a count of its own). */
static int same_but_link(const cJSON *a, const cJSON *b)
{
	int na = 0, nb = 0;

	for (const cJSON *c = a->child; c; c = c->next) {
		if (!strcmp(c->string, "link") || !strcmp(c->string, "count"))
			continue;
		na++;
		if (!cJSON_Compare(c, cJSON_GetObjectItemCaseSensitive(b, c->string), 1))
			return 0;
	}
	for (const cJSON *c = b->child; c; c = c->next) {
		if (!strcmp(c->string, "count"))
			return 0;
		nb += strcmp(c->string, "link") != 0;
	}
	return na == nb;
}

static void compact_nvlinks(cJSON *links)
{
	cJSON *run = cJSON_IsArray(links) ? links->child : NULL;

	while (run) {
		const cJSON *first = cJSON_GetObjectItemCaseSensitive(run, "link");
		cJSON *next;
		double n = 1;

		/* what the loader takes back: a run from link 0 or more, of at most NVML_NVLINK_MAX_LINKS */
		if (!cJSON_IsNumber(first) || first->valuedouble < 0) {
			run = run->next;
			continue;
		}
		while ((next = run->next) && cJSON_IsObject(next)) {
			const cJSON *l = cJSON_GetObjectItemCaseSensitive(next, "link");

			if (n == NVML_NVLINK_MAX_LINKS || !cJSON_IsNumber(l) || l->valuedouble != first->valuedouble + n ||
			    !same_but_link(run, next))
				break;
			cJSON_Delete(cJSON_DetachItemViaPointer(links, next));
			n++;
		}
		if (n > 1)
			cJSON_AddNumberToObject(run, "count", n);
		run = run->next;
	}
}

struct seen {
	uint64_t hash;
	const cJSON *item;
	size_t host;
};

/*
 * Replace each host section equal to an earlier host's by a reference to the first host
 * that has it: one open-addressed table per section, keyed by the subtree's hash.
 */
static void share_sections(cJSON *hosts)
{
	size_t n = (size_t)cJSON_GetArraySize(hosts), cap = 16, i = 0;
	struct seen *tab[N_SECTIONS];
	cJSON *h;

	while (cap < 2 * n)
		cap *= 2;
	for (size_t s = 0; s < N_SECTIONS; s++)
		tab[s] = xcalloc(cap, sizeof(**tab));
	cJSON_ArrayForEach(h, hosts) {
		for (size_t s = 0; s < N_SECTIONS && cJSON_IsObject(h); s++) {
			cJSON *item = cJSON_GetObjectItemCaseSensitive(h, sections[s]), *ref;
			uint64_t hv;
			size_t k;

			if (!item || !item->child) /* null, [] and {} are shorter than a reference */
				continue;
			hv = tree_hash(item, 0xcbf29ce484222325ULL);
			for (k = hv & (cap - 1); tab[s][k].item; k = (k + 1) & (cap - 1))
				if (tab[s][k].hash == hv && cJSON_Compare(tab[s][k].item, item, 1))
					break;
			if (!tab[s][k].item) {
				tab[s][k] = (struct seen){ hv, item, i };
				continue;
			}
			ref = cJSON_CreateObject();
			if (!ref || !cJSON_AddNumberToObject(ref, "same_as", (double)tab[s][k].host))
				abort();
			cJSON_ReplaceItemInObjectCaseSensitive(h, sections[s], ref);
		}
		i++;
	}
	for (size_t s = 0; s < N_SECTIONS; s++)
		free(tab[s]);
}

/* out_end()'s pass over the finished tree: always the compact form (returns 1: one line). */
static int compact_pass(void *tree)
{
	cJSON *root = tree, *hosts = cJSON_GetObjectItemCaseSensitive(root, "hosts"), *h, *g;
	cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");

	if (schema)
		cJSON_SetNumberHelper(schema, CD_SCHEMA_COMPACT);
	cJSON_ArrayForEach(h, hosts) {
		cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(h, "gpus"))
			compact_nvlinks(cJSON_GetObjectItemCaseSensitive(g, "nvlinks"));
	}
	if (cJSON_IsArray(hosts))
		share_sections(hosts);
	return 1;
}

void cd_report_compact_form(struct cd_out *o)
{
	if (out_format(o) == OUT_FMT_JSON)
		out_set_json_pass(o, compact_pass);
}

void cd_report_compact(struct cd_out *o, const struct cd_results *r)
{
	cd_report_compact_form(o);
	cd_report(o, r);
}
