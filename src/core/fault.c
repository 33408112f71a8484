/* SPDX-License-Identifier: BSD-3-Clause */
#include "fault.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct knob {
	const char *name;
	const char *values; /* what the value may be: a '|' list; NULL: no value */
	const char *what;
} knobs[] = {
	{ "discover.stall", "system|topo|net|ib|gpu",
	  "that discovery section stalls until the run is stopped (SIGINT, SIGTERM, --timeout)" },
	{ "probe.hang", NULL, "every probe operation the harness starts never completes" },
	{ "output.stall", NULL, "the -o file is written whole but not committed until the run is stopped" },
	/* under mpirun: which rank misbehaves ('#': a rank number) */
	{ "slow_rank", "#", "that rank sleeps in every MPI probe operation (about 1 ms per MB)" },
	{ "hang_rank", "#", "that rank never answers rank 0's gather" },
	{ "mute_rank", "#", "that rank's TCP listener accepts and never answers" },
	{ "die_rank", "#", "that rank is killed (SIGKILL) in its first MPI probe operation, mid-collective" },
	{ "late_rank", "#", "that rank reaches every NCCL collective 10 ms late (a straggler the others wait for)" },
};

struct on {
	const struct knob *k;
	char *value;
};

static struct on *active;
static size_t n_active, cap_active;

static const struct knob *knob_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++)
		if (strlen(knobs[i].name) == len && !strncmp(knobs[i].name, name, len))
			return &knobs[i];
	return NULL;
}

static int value_ok(const struct knob *k, const char *v)
{
	size_t n = strlen(v);

	if (!k->values)
		return !v[0];
	if (!strcmp(k->values, "#"))
		return v[0] && strspn(v, "0123456789") == n && n < 9;
	for (const char *p = k->values; *p;) {
		size_t len = strcspn(p, "|");

		if (len == n && !strncmp(p, v, n))
			return 1;
		p += len + (p[len] == '|');
	}
	return 0;
}

static void clear(void)
{
	for (size_t i = 0; i < n_active; i++)
		free(active[i].value);
	free(active);
	active = NULL;
	n_active = cap_active = 0;
}

static int bad(const char *spec, const char *item, size_t len, const char *why, const char *more)
{
	return cd_error("fault: COMMDIAG_FAULT='%s': '%.*s': %s%s", spec, (int)len, item, why, more);
}

int cd_fault_set(const char *spec)
{
	const char *p = spec;

	clear();
	while (p && *p) {
		size_t len = strcspn(p, ","), nlen = strcspn(p, ",=");
		const struct knob *k = knob_by_name(p, nlen);
		char *value = xstrndup(p + nlen + (nlen < len), len - nlen - (nlen < len));
		struct on *o;

		if (!k) {
			char *names = xstrdup("");

			for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
				char *more = xasprintf("%s%s%s", names, i ? ", " : "", knobs[i].name);

				free(names);
				names = more;
			}
			free(value);
			clear();
			bad(spec, p, len, "unknown fault: expected one of ", names);
			free(names);
			return -1;
		}
		if (!value_ok(k, value)) {
			char *why = !k->values ? xasprintf("%s takes no value", k->name)
				    : !strcmp(k->values, "#") ? xasprintf("expected %s=RANK (a whole number)", k->name)
							      : xasprintf("expected %s=%s", k->name, k->values);

			free(value);
			clear();
			bad(spec, p, len, why, "");
			free(why);
			return -1;
		}
		o = CD_PUSH(active, n_active, cap_active);
		o->k = k;
		o->value = value;
		p += len + (p[len] == ',');
	}
	return 0;
}

int cd_fault_init(void)
{
	const char *spec = getenv("COMMDIAG_FAULT"), *testing = getenv("COMMDIAG_TESTING");

	if (!spec || !*spec)
		return 0;
	if (!testing || strcmp(testing, "1")) {
		cd_warn("COMMDIAG_FAULT is ignored: fault injection is for tests and needs COMMDIAG_TESTING=1 too");
		return 0;
	}
	if (cd_fault_set(spec) < 0)
		return -1;
	for (size_t i = 0; i < n_active; i++)
		fprintf(stderr, "commdiag: test fault injection on: %s%s%s (%s)\n", active[i].k->name,
			active[i].value[0] ? "=" : "", active[i].value, active[i].k->what);
	return 0;
}

const char *cd_fault_value(const char *name)
{
	for (size_t i = 0; i < n_active; i++)
		if (!strcmp(active[i].k->name, name))
			return active[i].value;
	return NULL;
}

int cd_fault_active(const char *name)
{
	return cd_fault_value(name) != NULL;
}
