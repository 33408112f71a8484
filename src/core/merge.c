/* SPDX-License-Identifier: BSD-3-Clause */
#include "merge.h"

#include <stdlib.h>
#include <string.h>

void cd_merge_init(struct cd_merge *m, struct cd_results *r)
{
	cd_results_init(r);
	memset(m, 0, sizeof(*m));
	m->r = r;
	r->run.mode = xstrdup("merge");
	r->run.ranks = 0; /* the sum of the files' ranks; null when one of them did not say */
}

/* Append m elements of size sz from src to the vector (*arr, *n, *cap): the elements change owner. */
static void append(void *arr, size_t *n, size_t *cap, const void *src, size_t m, size_t sz)
{
	void **a = arr;

	if (!m)
		return;
	if (*n + m > *cap) {
		size_t c = *cap ? *cap : 8;

		while (c < *n + m)
			c *= 2;
		*a = xrealloc(*a, c * sz);
		*cap = c;
	}
	memcpy((char *)*a + *n * sz, src, m * sz);
	*n += m;
}

/* Is the probe's peer a rank (the pair runs of MPI and NCCL), not a GPU of its host? */
static int peer_is_rank(const struct cd_probe_run *p)
{
	return p->rank != CD_NULL_I64 && p->peer != CD_NULL_I64 && p->name && strncmp(p->name, "copy.", 5) &&
	       strncmp(p->name, "p2p.", 4);
}

void cd_merge_add(struct cd_merge *m, struct cd_results *src, const char *file)
{
	struct cd_results *r = m->r;
	size_t host_base = r->n_hosts;
	int64_t rank_base = m->next_rank, top = -1;

	if (src->run.n_merged) {
		append(&r->run.merged, &r->run.n_merged, &r->run.cap_merged, src->run.merged, src->run.n_merged,
		       sizeof(*src->run.merged));
		src->run.n_merged = 0;
	} else {
		struct cd_merged *e = cd_results_add_merged(r, file, src->run.mode);

		for (size_t i = 0; i < src->n_hosts; i++)
			cd_strv_push(&e->hosts, src->hosts[i].hostname ? src->hosts[i].hostname : "?");
	}
	if (r->run.ranks != CD_NULL_I64)
		r->run.ranks = src->run.ranks == CD_NULL_I64 ? CD_NULL_I64 : r->run.ranks + src->run.ranks;
	for (size_t i = 0; i < src->n_ranks; i++) {
		struct cd_rank *k = &src->ranks[i];

		if (k->rank != CD_NULL_I64 && k->rank > top)
			top = k->rank;
		if (k->rank != CD_NULL_I64)
			k->rank += rank_base;
		if (k->host_index != CD_NULL_I64)
			k->host_index += (int64_t)host_base;
	}
	for (size_t i = 0; i < src->n_probes; i++) {
		struct cd_probe_run *p = &src->probes[i];

		if (p->rank != CD_NULL_I64 && p->rank > top)
			top = p->rank;
		if (peer_is_rank(p)) {
			if (p->peer > top)
				top = p->peer;
			p->peer += rank_base;
		}
		if (p->rank != CD_NULL_I64)
			p->rank += rank_base;
	}
	m->next_rank = rank_base + top + 1;
	append(&r->hosts, &r->n_hosts, &r->cap_hosts, src->hosts, src->n_hosts, sizeof(*src->hosts));
	append(&r->probes, &r->n_probes, &r->cap_probes, src->probes, src->n_probes, sizeof(*src->probes));
	append(&r->reach, &r->n_reach, &r->cap_reach, src->reach, src->n_reach, sizeof(*src->reach));
	append(&r->ranks, &r->n_ranks, &r->cap_ranks, src->ranks, src->n_ranks, sizeof(*src->ranks));
	src->n_hosts = src->n_probes = src->n_reach = src->n_ranks = 0;
	cd_results_free(src);
	cd_results_init(src);
	m->files++;
}

const struct cd_merged *cd_merge_entry_of(const struct cd_results *r, size_t h)
{
	size_t base = 0;

	for (size_t i = 0; i < r->run.n_merged; i++) {
		if (h < base + r->run.merged[i].hosts.n)
			return &r->run.merged[i];
		base += r->run.merged[i].hosts.n;
	}
	return NULL;
}
