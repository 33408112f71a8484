/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A key written twice in one JSON object: cJSON keeps both and its lookups return the first,
 * so a document with "mtu" twice would be read as whichever the writer did not mean. The
 * results loader and the nccl-tests importer refuse such input, naming the key's path.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "results.h"
#include "util.h"

static int cmp_key(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/*
 * The first key that appears twice in one object, anywhere under v, with its path in
 * path ("hosts[0].env"); NULL when none. Sorting each object's keys keeps it
 * O(n log n): a document may have an env map of any size.
 */
/*
 * Whether any object under v has a key twice, without the path: the common answer is no,
 * and at 4096 hosts the path's snprintf per nested value and a sort per small object were
 * a tenth of `check --from`. Small objects compare pairwise (no allocation); the path is
 * built only when there is a duplicate to name.
 */
static const char *duplicate_key_at(const cJSON *v, char *path, size_t len);

static int any_duplicate_key(const cJSON *v)
{
	const cJSON *c, *stack_keys[64], **keys = stack_keys;
	size_t n = 0;
	int dup = 0;

	if (cJSON_IsObject(v)) {
		for (c = v->child; c; c = c->next)
			n++;
		if (n > 64)
			keys = xcalloc(n, sizeof(*keys));
		n = 0;
		for (c = v->child; c; c = c->next)
			keys[n++] = c;
		if (n > 1)
			qsort(keys, n, sizeof(*keys), cmp_key);
		for (size_t i = 1; i < n && !dup; i++)
			dup = !strcmp(keys[i - 1]->string, keys[i]->string);
		if (keys != stack_keys)
			free(keys);
		if (dup)
			return 1;
	}
	for (c = v->child; c; c = c->next)
		if ((c->type & (cJSON_Object | cJSON_Array)) && any_duplicate_key(c))
			return 1;
	return 0;
}

const char *cd_json_duplicate_key(const cJSON *v, char *path, size_t len)
{
	if (!v || (!path[0] && !any_duplicate_key(v)))
		return NULL;
	return duplicate_key_at(v, path, len);
}

static const char *duplicate_key_at(const cJSON *v, char *path, size_t len)
{
	size_t n = 0, used = strlen(path), i = 0;
	const cJSON *c;
	const char *dup = NULL;

	for (c = v ? v->child : NULL; c; c = c->next)
		n++;
	if (cJSON_IsObject(v) && n > 1) {
		const cJSON **keys = xcalloc(n, sizeof(*keys));

		for (c = v->child; c; c = c->next)
			keys[i++] = c;
		qsort(keys, n, sizeof(*keys), cmp_key);
		for (i = 1; i < n && !dup; i++)
			if (!strcmp(keys[i - 1]->string, keys[i]->string))
				dup = keys[i]->string;
		free(keys);
		if (dup)
			return dup;
	}
	i = 0;
	for (c = v ? v->child : NULL; c && !dup; c = c->next, i++) {
		if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
			continue;
		if (cJSON_IsObject(v))
			snprintf(path + used, len - used, "%s%s", used ? "." : "", c->string);
		else
			snprintf(path + used, len - used, "[%zu]", i);
		dup = duplicate_key_at(c, path, len);
		if (!dup)
			path[used] = '\0';
	}
	return dup;
}
