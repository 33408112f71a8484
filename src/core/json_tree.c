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
#else
#define TREE_ARENA 1
#endif

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define CHUNK (32u << 20)

static struct chunk *arena;

static void *arena_malloc(size_t n)
{
	const size_t align = sizeof(max_align_t);

	n = (n + align - 1) / align * align;
	if (!arena || arena->cap - arena->used < n) {
		size_t cap = n > CHUNK ? n : CHUNK, bytes = sizeof(struct chunk) + cap;
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
