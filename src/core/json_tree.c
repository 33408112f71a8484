/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "json_tree.h"

/*
 * A document's parse tree lives only while it loads, and cJSON mallocs each of its nodes
 * and strings: a fleet of 4096 hosts (about 10 Mi values) spent half of its scoring
 * time in malloc and its page faults (issue 18). So the tree comes from an arena of
 * large chunks, released at once after the load; cJSON's free is a no-op meanwhile.
 * cJSON's hooks are global, so they are set for the parse alone (which runs on the
 * main thread, as every use of cJSON here) and the tree is released by cd_json_tree_release,
 * never by cJSON_Delete. Under AddressSanitizer (the fuzz targets, SANITIZE=1) the
 * tree keeps malloc, so a stray read of it is still caught.
 */
#if defined(__SANITIZE_ADDRESS__)
#define TREE_ARENA 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TREE_ARENA 0
#endif
#endif
#ifndef TREE_ARENA
#define TREE_ARENA 1
#endif

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

/*
 * A chunk is sized to the input (the tree takes about 8 times the text's bytes), between
 * 64 KiB and 32 MiB: `merge` loads thousands of 30 KB documents, each of which would
 * otherwise populate a 32 MiB chunk.
 */
#define CHUNK_MIN (64u << 10)
#define CHUNK_MAX (32u << 20)

static struct chunk *arena;
static size_t chunk_size = CHUNK_MAX;

static void *arena_malloc(size_t n)
{
	const size_t align = sizeof(max_align_t);

	n = (n + align - 1) / align * align;
	if (!arena || arena->cap - arena->used < n) {
		size_t cap = n > chunk_size ? n : chunk_size, bytes = sizeof(struct chunk) + cap;
		/*
		 * Mapped populated, in huge pages where the kernel has them: faulting in a tree
		 * of a GB page by page cost a third of the load in a VM (issue 18).
		 */
		struct chunk *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				       -1, 0);

		if (c == MAP_FAILED)
			return NULL; /* cJSON fails the parse: reported as invalid JSON, never a crash */
		c->next = arena;
		c->used = 0;
		c->cap = cap;
		arena = c;
	}
	arena->used += n;
	return (char *)arena->data + arena->used - n;
}

static void arena_free(void *p)
{
	(void)p;
}

cJSON *cd_json_tree_parse(const char *text, size_t len, const char **end)
{
	cJSON *root;

	if (TREE_ARENA) {
		cJSON_Hooks h = { .malloc_fn = arena_malloc, .free_fn = arena_free };

		chunk_size = len < CHUNK_MIN / 8 ? CHUNK_MIN : len < CHUNK_MAX / 8 ? len * 8 : CHUNK_MAX;

		cJSON_InitHooks(&h);
	}
	root = cJSON_ParseWithLengthOpts(text, len, end, 0);
	if (TREE_ARENA)
		cJSON_InitHooks(NULL);
	return root;
}

void cd_json_tree_release(cJSON *root)
{
	if (!TREE_ARENA) {
		cJSON_Delete(root);
		return;
	}
	while (arena) {
		struct chunk *next = arena->next;

		munmap(arena, sizeof(*arena) + arena->cap);
		arena = next;
	}
}
