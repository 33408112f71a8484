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

/*
 * A rules file's text: the file the environment variable env names (read whole, at most
 * 16 MiB; *owned is set to the text to free), else the embedded file. *name says which,
 * for the parser's messages. NULL after an error (who said what already printed, prefixed
 * with who: "explain").
 */
const char *cd_rules_text(const char *who, const char *env, const char *file, size_t *len, const char **name,
			  char **owned);

#endif
