/* SPDX-License-Identifier: BSD-3-Clause */
#include "embed.h"

#include <string.h>

const struct cd_embedded_file *cd_embedded(const char *name)
{
	for (const struct cd_embedded_file *f = cd_embedded_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}
