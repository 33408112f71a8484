/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data files of rules/, compiled into the binary (scripts/embed.sh), so the
 * tool works with nothing installed; a file given on the command line overrides them.
 */
#ifndef CD_EMBED_H
#define CD_EMBED_H

#include <stddef.h>

struct cd_embedded_file {
	const char *name;   /* base name: "default.conf" */
	const char *data;   /* NUL-terminated */
	size_t len;
};

/* Terminated by an entry whose name is NULL. */
extern const struct cd_embedded_file cd_embedded_files[];

/* The embedded file called name, or NULL. */
const struct cd_embedded_file *cd_embedded(const char *name);

#endif
