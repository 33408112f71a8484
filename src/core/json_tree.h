/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A JSON parse tree for reading, not for keeping: built from an arena and released at
 * once (json_tree.c says why). One tree at a time; never cJSON_Delete it.
 */
#ifndef CD_JSON_TREE_H
#define CD_JSON_TREE_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* cJSON_ParseWithLengthOpts(text, len, end, 0) into the arena; NULL as cJSON says. */
cJSON *cd_json_tree_parse(const char *text, size_t len, const char **end);
/* Release the tree (and anything a failed parse left in the arena: root may be NULL). */
void cd_json_tree_release(cJSON *root);

#endif
