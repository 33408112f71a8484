/* SPDX-License-Identifier: BSD-3-Clause */
#include "embed.h"
#include "out.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cd_embedded_file *cd_embedded(const char *name)
{
	for (const struct cd_embedded_file *f = cd_embedded_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

const char *cd_rules_text(const char *who, const char *env, const char *file, size_t *len, const char **name,
			  char **owned)
{
	const char *path = getenv(env), *kind = NULL;
	const struct cd_embedded_file *e;
	FILE *f;

	*owned = NULL;
	if (!path || !*path) {
		if (!(e = cd_embedded(file))) {
			cd_error("%s: the embedded file '%s' is missing", who, file);
			return NULL;
		}
		*len = e->len;
		*name = file;
		return e->data;
	}
	if (!(f = cd_open_input(path, &kind))) {
		cd_error("%s: %s '%s' %s%s", who, env, path, kind ? "is " : "cannot be opened: ", kind ? kind : strerror(errno));
		return NULL;
	}
	*owned = cd_read_file(f, (size_t)16 << 20, len);
	fclose(f);
	if (!*owned) {
		cd_error("%s: cannot read %s '%s' (or it is over 16 MiB)", who, env, path);
		return NULL;
	}
	*name = path;
	return *owned;
}
