/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The env linter: the communication variables of a host (its environment
 * snapshot and NCCL's configuration files) checked against a catalogue
 * (rules/env.catalog): unknown names with the nearest known one, renamed and
 * removed variables, invalid values, interfaces and HCAs that do not exist,
 * include and exclude set together, settings that contradict each other.
 * Findings are ENV###.
 */
#ifndef CD_ENVLINT_H
#define CD_ENVLINT_H

#include "results.h"

enum cd_envkind {
	CD_ENVK_ANY, CD_ENVK_BOOL, CD_ENVK_INT, CD_ENVK_PARAM, CD_ENVK_UINT, CD_ENVK_ULONG, CD_ENVK_MCABOOL, CD_ENVK_MCAVERBOSE,
	CD_ENVK_ENUM, CD_ENVK_IFLIST, CD_ENVK_HCALIST, CD_ENVK_RENAMED, CD_ENVK_REMOVED, CD_ENVK_NOTVAR,
	CD_ENVK_PLUGIN,     /* read by a plugin (arg names it), any value; NAME_* covers every name under the prefix */
	CD_ENVK_LABEL       /* a record an image or installer sets, read by nothing (arg says whose): never a finding */
};

struct cd_envvar {
	char *name;
	enum cd_envkind kind;
	char *arg;          /* enum words, the new name, the explanation or the plugin; NULL when none */
	int prefix;         /* the name ended in '*': it stands for every name that starts with it */
};

struct cd_envcat {
	struct cd_envvar *v;
	size_t n, cap;
};

/*
 * Parse a catalogue ("NAME KIND [ARG]" lines, '#' comments, also after a blank at the
 * end of a line; "PREFIX_* plugin TEXT" for a plugin's prefix). Returns 0, or -1
 * after printing "commdiag: env: 'name:line': what was expected".
 */
int cd_envcat_parse(struct cd_envcat *c, const char *text, size_t len, const char *name);
/* The embedded rules/env.catalog. */
int cd_envcat_load_default(struct cd_envcat *c);
void cd_envcat_free(struct cd_envcat *c);
/* The entry of name: its own, else the longest plugin prefix it starts with, else NULL. */
const struct cd_envvar *cd_envcat_find(const struct cd_envcat *c, const char *name);
/* The known name of the same family nearest to name by edit distance, or NULL when none is close. */
const char *cd_envcat_nearest(const struct cd_envcat *c, const char *name);

/* Levenshtein distance, capped at 255. */
int cd_edit_distance(const char *a, const char *b);

/*
 * Lint every host's env snapshot, and for the first host the NCCL configuration
 * files listed in conf_paths (colon-separated; NULL or "" for none: a saved
 * document is not this machine). Returns the number of findings added.
 */
int cd_envlint(struct cd_results *r, const struct cd_envcat *c, const char *conf_paths);

/*
 * The configuration files NCCL reads on this machine: $COMMDIAG_NCCL_CONF when set
 * (tests), else $NCCL_CONF_FILE or /etc/nccl.conf, and ~/.nccl.conf. Malloc'd.
 */
char *cd_envlint_conf_paths(void);

#endif
