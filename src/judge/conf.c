/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threshold store: parse the rules/ .conf files, keep each value's origin, pick a
 * hardware profile. A bad file is an input error that names FILE:LINE and what
 * was expected; nothing is judged with half a configuration.
 */
#include "conf.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"

#define MAX_RULES_FILE_BYTES (1u << 20)
#define MAX_PROFILES 64

static const struct cd_conf_key keys[] = {
	[CD_K_NONE] = { "", CD_U_NUMBER, "" },
#define X(id, name, unit, help) [CD_K_##id] = { name, unit, help },
	CD_CONF_KEYS
#undef X
};

static const char *const unit_names[] = {
	[CD_U_BYTES] = "bytes", [CD_U_GBYTE_S] = "gbyte_s", [CD_U_GBIT_S] = "gbit_s", [CD_U_MBIT_S] = "mbit_s",
	[CD_U_PCT] = "pct",	[CD_U_US] = "us",	    [CD_U_NUMBER] = "number", [CD_U_TEXT] = "text",
};

/* What a value of each unit looks like, for "expected …" messages. */
static const char *const unit_expect[] = {
	[CD_U_BYTES] = "a size like 1G, 512M or 1073741824",
	[CD_U_GBYTE_S] = "a bandwidth like '48 GB/s' or '400 Gb/s'",
	[CD_U_GBIT_S] = "a rate like '400 Gb/s' or '50 GB/s'",
	[CD_U_MBIT_S] = "a speed like '25000 Mb/s' or '25 Gb/s'",
	[CD_U_PCT] = "a percentage from 0 to 100, like '80 %'",
	[CD_U_US] = "a time like '25 us', '0.5 ms' or '1 s'",
	[CD_U_NUMBER] = "a plain non-negative number, like '3.5'",
	[CD_U_TEXT] = "text",
};

const char *cd_unit_str(enum cd_unit u)
{
	return (size_t)u < ARRAY_SIZE(unit_names) ? unit_names[u] : "unknown";
}

const struct cd_conf_key *cd_conf_key(enum cd_key k)
{
	return (size_t)k < ARRAY_SIZE(keys) ? &keys[k] : &keys[CD_K_NONE];
}

int cd_conf_key_find(const char *name)
{
	for (int k = CD_K_NONE + 1; k < CD_K_COUNT; k++)
		if (!strcmp(keys[k].name, name))
			return k;
	return -1;
}

/* A section is known when some key starts with "section.". */
static int section_known(const char *s, size_t n)
{
	for (int k = CD_K_NONE + 1; k < CD_K_COUNT; k++)
		if (!strncmp(keys[k].name, s, n) && keys[k].name[n] == '.')
			return 1;
	return 0;
}

static void section_list(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = CD_K_NONE + 1; k < CD_K_COUNT && used < len; k++) {
		const char *dot = strchr(keys[k].name, '.');
		size_t n = (size_t)(dot - keys[k].name);
		int seen = 0;

		for (int j = CD_K_NONE + 1; j < k; j++)
			seen |= !strncmp(keys[j].name, keys[k].name, n + 1);
		if (!seen)
			used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used ? ", " : "", (int)n, keys[k].name);
	}
}

void cd_conf_init(struct cd_conf *c)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < CD_K_COUNT; k++)
		c->val[k] = NAN;
}

void cd_conf_free(struct cd_conf *c)
{
	for (int k = 0; k < CD_K_COUNT; k++) {
		free(c->text[k]);
		free(c->origin[k]);
	}
	free(c->profile);
	free(c->profile_reason);
	cd_strv_free(&c->sources);
	cd_strv_free(&c->require);
	cd_conf_init(c);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Formats the message of a failed line into err (the caller adds FILE:LINE or -D). */
static int bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The unit suffix (after the number) in the key's own unit: scale factor, or 0 when it does not fit. */
static double unit_factor(enum cd_unit u, const char *sfx)
{
	static const struct {
		enum cd_unit u;
		const char *sfx;
		double f;
	} t[] = {
		{ CD_U_GBYTE_S, "GB/s", 1 }, { CD_U_GBIT_S, "Gb/s", 1 }, { CD_U_MBIT_S, "Mb/s", 1 },
		{ CD_U_MBIT_S, "Gb/s", 1000 }, { CD_U_PCT, "%", 1 },	 { CD_U_US, "us", 1 },
		{ CD_U_US, "\u00b5s", 1 },     { CD_U_US, "ms", 1e3 },	 { CD_U_US, "s", 1e6 },
	};

	if (!*sfx)
		return 1;
	if (u == CD_U_GBYTE_S && !strcmp(sfx, "Gb/s"))
		return cd_gbit_to_gbyte(1.0);
	if (u == CD_U_GBIT_S && !strcmp(sfx, "GB/s"))
		return cd_gbyte_to_gbit(1.0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (t[i].u == u && !strcmp(t[i].sfx, sfx))
			return t[i].f;
	return 0;
}

/*
 * The largest value a threshold of each unit can mean (in the unit stored): past it a value
 * is a typo, and a byte count past 2^53 is not even exact in the document. 18446744073709551615
 * bytes was taken and shown as a negative number, and SYS001 never fired.
 */
static const double unit_max[] = {
	[CD_U_BYTES] = 9007199254740992.0, /* 2^53, 8 PiB */
	[CD_U_GBYTE_S] = 1e6,              /* 1 PB/s */
	[CD_U_GBIT_S] = 8e6,
	[CD_U_MBIT_S] = 8e9,
	[CD_U_PCT] = 100,
	[CD_U_US] = 3.6e9,                 /* an hour */
	[CD_U_NUMBER] = 1e6,               /* counts (GPUs, links, peers) and factors */
};

static int parse_value(enum cd_key k, const char *v, double *out, char *err, size_t elen)
{
	enum cd_unit u = keys[k].unit;
	char num[64], *end, joined[96];
	const char *sfx;
	double d, f;
	size_t n;

	/* decimal digits only: strtod alone would take "0x10", "inf", "nan" and signs */
	n = strspn(v, "0123456789.");
	if (n == 0 || n >= sizeof(num))
		return bad(err, elen, "'%s' is not a number: expected %s", v, unit_expect[u]);
	memcpy(num, v, n);
	num[n] = '\0';
	errno = 0;
	d = strtod(num, &end);
	if (errno || *end || !isfinite(d))
		return bad(err, elen, "'%s' is not a number: expected %s", v, unit_expect[u]);
	sfx = v + n;
	while (*sfx == ' ' || *sfx == '\t')
		sfx++;
	if (u == CD_U_BYTES) {
		uint64_t b;

		snprintf(joined, sizeof(joined), "%s%s", num, sfx);
		if (cd_parse_size(joined, &b) < 0)
			return bad(err, elen, "unit '%s' of '%s' is not a size: expected %s", sfx, v, unit_expect[u]);
		if ((double)b > unit_max[u])
			return bad(err, elen, "'%s' is out of range: expected %s, at most 8192T (2^53 bytes)", v,
				   unit_expect[u]);
		*out = (double)b;
		return 0;
	}
	f = unit_factor(u, sfx);
	if (f == 0)
		return bad(err, elen, "unit '%s' does not fit '%s': expected %s", sfx, keys[k].name, unit_expect[u]);
	d *= f;
	if (u == CD_U_PCT && d > 100)
		return bad(err, elen, "'%s' is out of range: expected %s", v, unit_expect[u]);
	if (d > unit_max[u])
		return bad(err, elen, "'%s' is out of range: expected %s, at most %.15g%s%s", v, unit_expect[u],
			   unit_max[u], u == CD_U_NUMBER ? "" : " ", u == CD_U_NUMBER ? "" : cd_unit_str(u));
	*out = d;
	return 0;
}

/*
 * "gpu, nccl,ib": each item a rule group (or the whole list "none"). Appends the groups to
 * out when it is not NULL; -1 with what was expected in err.
 */
int cd_conf_parse_groups(const char *list, struct cd_strv *out, char *err, size_t elen)
{
	static const char *const g[] = {
#define G(name, summary) name,
		CD_RULE_GROUPS
#undef G
	};
	const size_t ng = ARRAY_SIZE(g);
	char *copy = xstrdup(list), *save = NULL, *item;
	int rc = 0;

	if (!strcmp(trim(copy), "none")) {
		free(copy);
		return 0;
	}
	for (item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
		size_t i;

		item = trim(item);
		for (i = 0; i < ng && strcmp(g[i], item); i++)
			;
		if (i < ng) {
			if (out)
				cd_strv_push(out, item);
			continue;
		}
		{
			char names[256];
			size_t used = 0;

			for (size_t j = 0; j < ng && used < sizeof(names); j++)
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", j ? ", " : "",
							 g[j]);
			rc = bad(err, elen, "'%s' is not a rule group: expected a comma-separated list of %s (or none)",
				 item, names);
		}
	}
	if (rc == 0 && !item && strspn(list, " \t,") == strlen(list))
		rc = bad(err, elen, "'%s' names no rule group: expected a comma-separated list (or none)", list);
	free(copy);
	return rc;
}

static int check_text(enum cd_key k, const char *v, char *err, size_t elen)
{
	if (k == CD_K_PROFILE_REQUIRE)
		return cd_conf_parse_groups(v, NULL, err, elen);
	if (k == CD_K_PROFILE_IC && strcmp(v, "nvlink") && strcmp(v, "pcie") && strcmp(v, "any") && strcmp(v, "none"))
		return bad(err, elen, "'%s' is not an interconnect: expected nvlink, pcie, any or none", v);
	return 0;
}

struct parse_state {
	struct cd_conf *c;
	char section[64];
	int seen_line[CD_K_COUNT]; /* this file's line that set each key: duplicates are mistakes */
	int count;
};

/* "key = value" (or "[section]"); origin names where it came from. */
static int parse_line(struct parse_state *ps, char *line, int lineno, const char *origin, char *err, size_t elen)
{
	char *eq, *key, *val, full[160];
	double d = NAN;
	int k;

	line = trim(line);
	if (!*line)
		return 0;
	if (*line == '[') {
		size_t n = strlen(line);

		if (line[n - 1] != ']' || n < 3 || strspn(line + 1, "abcdefghijklmnopqrstuvwxyz0123456789_") != n - 2)
			return bad(err, elen, "'%s': expected a section header like '[copy]'", line);
		if (!section_known(line + 1, n - 2)) {
			char list[256];

			section_list(list, sizeof(list));
			return bad(err, elen, "unknown section '%s': expected one of %s", line, list);
		}
		snprintf(ps->section, sizeof(ps->section), "%.*s", (int)(n - 2), line + 1);
		return 0;
	}
	eq = strchr(line, '=');
	if (!eq)
		return bad(err, elen, "'%s': expected 'key = value' or '[section]'", line);
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (!*key)
		return bad(err, elen, "'= %s': expected a key before '='", val);
	if (ps->section[0] && !strchr(key, '.'))
		snprintf(full, sizeof(full), "%s.%s", ps->section, key);
	else
		snprintf(full, sizeof(full), "%s", key);
	k = cd_conf_key_find(full);
	if (k < 0)
		return bad(err, elen, "unknown key '%s': expected a key listed by 'commdiag rules'", full);
	if (!*val)
		return bad(err, elen, "key '%s' has no value: expected %s", full, unit_expect[keys[k].unit]);
	if (ps->seen_line[k])
		return bad(err, elen, "key '%s' is already set on line %d", full, ps->seen_line[k]);
	if (keys[k].unit == CD_U_TEXT ? check_text(k, val, err, elen) : parse_value(k, val, &d, err, elen))
		return -1;
	ps->seen_line[k] = lineno > 0 ? lineno : 1;
	if (keys[k].unit == CD_U_TEXT) {
		free(ps->c->text[k]);
		ps->c->text[k] = xstrdup(val);
	} else {
		ps->c->val[k] = d;
	}
	free(ps->c->origin[k]);
	ps->c->origin[k] = lineno > 0 ? xasprintf("%s:%d", origin, lineno) : xstrdup(origin);
	ps->count++;
	return 0;
}

static int parse_text(struct cd_conf *c, const char *text, size_t len, const char *name, const char *prefix)
{
	struct parse_state ps = { .c = c };
	const char *p = text, *end = text + len;
	char *origin = xasprintf("%s%s", prefix, name);
	int lineno = 0, rc = 0;

	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n), *hash, err[512];

		lineno++;
		if (memchr(p, '\0', n)) {
			rc = cd_error("rules: %s:%d: binary data: expected text lines 'key = value'", name, lineno);
		} else {
			hash = strchr(line, '#');
			if (hash)
				*hash = '\0';
			if (parse_line(&ps, line, lineno, origin, err, sizeof(err)) < 0)
				rc = cd_error("rules: %s:%d: %s", name, lineno, err);
		}
		free(line);
		p += n + 1;
	}
	free(origin);
	return rc < 0 ? -1 : ps.count;
}

int cd_conf_parse(struct cd_conf *c, const char *text, size_t len, const char *name, const char *prefix)
{
	return parse_text(c, text, len, name, prefix ? prefix : "");
}

int cd_conf_define(struct cd_conf *c, const char *def)
{
	struct parse_state ps = { .c = c };
	char *line = xstrdup(def), err[512];
	int rc;

	if (!strchr(line, '=')) {
		free(line);
		return cd_error("option '-D': '%s': expected key=value", def);
	}
	if (strchr(line, '#'))
		*strchr(line, '#') = '\0';
	rc = parse_line(&ps, line, 0, "-D", err, sizeof(err));
	if (rc < 0 || !ps.count)
		rc = cd_error("option '-D': %s", rc < 0 ? err : "expected key=value");
	free(line);
	return rc < 0 ? -1 : 0;
}

static int parse_file(struct cd_conf *c, const char *path, const char *prefix)
{
	const char *kind = NULL;
	FILE *f = cd_open_input(path, &kind);
	size_t len = 0;
	char *text;
	int rc;

	if (!f && kind)
		return cd_error("rules: '%s' is %s: expected a regular file", path, kind);
	if (!f)
		return cd_error("rules: cannot open '%s': %s", path, strerror(errno));
	text = cd_read_file(f, MAX_RULES_FILE_BYTES, &len);
	if (!text) {
		int err = errno;

		fclose(f);
		if (err == EFBIG)
			return cd_error("rules: '%s': larger than 1 MiB: not a rules file", path);
		return cd_error("rules: cannot read '%s': %s", path, strerror(err));
	}
	fclose(f);
	rc = parse_text(c, text, len, path, prefix);
	free(text);
	return rc;
}

int cd_conf_check_file(const char *path)
{
	struct cd_conf c;
	int rc;

	cd_conf_init(&c);
	rc = parse_file(&c, path, "");
	cd_conf_free(&c);
	return rc;
}

/* ---- profiles ---- */

static int is_profile_file(const char *name)
{
	size_t n = strlen(name);

	/* rules/ holds other data files too (catalogues): only *.conf are thresholds */
	return n > 5 && !strcmp(name + n - 5, ".conf") && strcmp(name, "default.conf");
}

const char *const *cd_conf_profiles(void)
{
	static char store[MAX_PROFILES][64];
	static const char *names[MAX_PROFILES + 1];
	static int done;
	size_t n = 0;

	if (done)
		return names;
	for (const struct cd_embedded_file *f = cd_embedded_files; f->name && n < MAX_PROFILES; f++) {
		if (!is_profile_file(f->name))
			continue;
		snprintf(store[n], sizeof(store[n]), "%.*s", (int)(strlen(f->name) - 5), f->name);
		names[n] = store[n];
		n++;
	}
	names[n] = NULL;
	done = 1;
	return names;
}

static const char *interconnect_of(const struct cd_results *r, size_t *n_gpus, const char **name)
{
	int nvlink = 0;

	*n_gpus = 0;
	*name = NULL;
	for (size_t i = 0; r && i < r->n_hosts; i++) {
		const struct cd_host *h = &r->hosts[i];
		size_t g = h->paths.gpus.n;

		for (size_t j = 0; j < h->n_gpus; j++) {
			(*n_gpus)++;
			if (!*name)
				*name = h->gpus[j].name;
			for (size_t l = 0; l < h->gpus[j].n_nvlinks; l++)
				nvlink |= h->gpus[j].nvlinks[l].up == CD_TRI_TRUE;
		}
		for (size_t c = 0; h->paths.gpu_gpu && c < g * g; c++)
			nvlink |= h->paths.gpu_gpu[c] && !strncmp(h->paths.gpu_gpu[c], "NV", 2);
	}
	return !*n_gpus ? "none" : nvlink ? "nvlink" : "pcie";
}

/* Does every GPU name of r match one of the comma-separated patterns? */
static int names_match(const struct cd_results *r, const char *patterns)
{
	for (size_t i = 0; i < r->n_hosts; i++) {
		for (size_t j = 0; j < r->hosts[i].n_gpus; j++) {
			const char *name = r->hosts[i].gpus[j].name ? r->hosts[i].gpus[j].name : "";
			char *list = xstrdup(patterns), *save = NULL, *pat;
			int ok = 0;

			for (pat = strtok_r(list, ",", &save); pat && !ok; pat = strtok_r(NULL, ",", &save))
				ok = fnmatch(trim(pat), name, FNM_CASEFOLD) == 0;
			free(list);
			if (!ok)
				return 0;
		}
	}
	return 1;
}

int cd_conf_load_embedded(struct cd_conf *c, const char *file)
{
	const struct cd_embedded_file *f = cd_embedded(file);

	if (!f)
		return cd_error("rules: '%s' is not embedded in this binary", file);
	return parse_text(c, f->data, f->len, file, "embedded ");
}

const char *cd_conf_pick_profile(const struct cd_results *r, char **why)
{
	const char *const *names = cd_conf_profiles();
	const char *first_name, *ic, *chosen = NULL;
	size_t n_gpus;

	ic = interconnect_of(r, &n_gpus, &first_name);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; names[i]; i++) {
			struct cd_conf p;
			char *file = xasprintf("%s.conf", names[i]);
			const char *pic, *pgpus;
			int match = 0, wildcard;

			cd_conf_init(&p);
			if (cd_conf_load_embedded(&p, file) >= 0) {
				pic = p.text[CD_K_PROFILE_IC] ? p.text[CD_K_PROFILE_IC] : "any";
				pgpus = p.text[CD_K_PROFILE_GPUS] ? p.text[CD_K_PROFILE_GPUS] : "";
				/* pass 0 tries named GPUs, pass 1 the catch-alls ("*") */
				wildcard = strspn(pgpus, "*, ") == strlen(pgpus);
				if (!strcmp(ic, "none"))
					match = !strcmp(pic, "none");
				else if (strcmp(pic, "none") && (!strcmp(pic, "any") || !strcmp(pic, ic)) && *pgpus &&
					 wildcard == pass)
					match = names_match(r, pgpus);
			}
			cd_conf_free(&p);
			free(file);
			if (match && !chosen)
				chosen = names[i];
		}
		if (chosen)
			break;
	}
	if (!strcmp(ic, "none")) {
		size_t on_bus = 0;

		for (size_t i = 0; i < r->n_hosts; i++)
			on_bus += cd_host_nvidia_pci_gpus(&r->hosts[i]);
		/* GPUs on the bus that the driver did not give: the verdict is GPU004's, and the
		   reason says why no GPU profile applies instead of calling the node CPU-only */
		*why = on_bus ? xasprintf("auto: no GPU usable through the driver, though the PCI bus shows %zu NVIDIA "
					  "GPU%s (GPU004); no GPU profile applies until the driver gives them",
					  on_bus, on_bus == 1 ? "" : "s")
			      : xstrdup("auto: no GPU in the document");
	}
	else if (chosen)
		*why = xasprintf("auto: %zu\u00d7 %s with %s", n_gpus, first_name ? first_name : "unnamed GPU",
				 !strcmp(ic, "nvlink") ? "NVLink" : "PCIe only");
	else
		*why = xasprintf("auto: no profile matches %zu\u00d7 %s with %s; default.conf only", n_gpus,
				 first_name ? first_name : "unnamed GPU", !strcmp(ic, "nvlink") ? "NVLink" : "PCIe only");
	return chosen;
}

int cd_conf_load(struct cd_conf *c, const struct cd_conf_opts *o, const struct cd_results *r)
{
	const char *profile = NULL;
	char *why = NULL;

	cd_conf_init(c);
	if (cd_conf_load_embedded(c, "default.conf") < 0)
		return -1;
	cd_strv_push(&c->sources, "embedded default.conf");
	if (o && o->profile && !strcmp(o->profile, "none")) {
		why = xstrdup("--profile none: default.conf only");
	} else if (o && o->profile) {
		const char *const *names = cd_conf_profiles();

		for (size_t i = 0; names[i]; i++)
			if (!strcmp(names[i], o->profile))
				profile = names[i];
		if (!profile) {
			char list[512];
			size_t used = 0;

			list[0] = '\0';
			for (size_t i = 0; names[i] && used < sizeof(list); i++)
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s, ", names[i]);
			return cd_error("option '--profile': unknown profile '%s': expected one of %snone", o->profile,
					list);
		}
		why = xstrdup("--profile");
	} else if (r) {
		profile = cd_conf_pick_profile(r, &why);
	} else {
		why = xstrdup("none chosen: no document to choose from (use --profile NAME)");
	}
	c->profile_reason = why;
	if (profile) {
		char *file = xasprintf("%s.conf", profile);
		int rc = cd_conf_load_embedded(c, file);

		if (rc >= 0) {
			char *src = xasprintf("embedded %s (profile)", file);

			cd_strv_push(&c->sources, src);
			free(src);
		}
		free(file);
		if (rc < 0)
			return -1;
		c->profile = xstrdup(profile);
	}
	for (size_t i = 0; o && i < o->n_files; i++) {
		char *src;

		if (parse_file(c, o->files[i], "--rules ") < 0)
			return -1;
		src = xasprintf("--rules %s", o->files[i]);
		cd_strv_push(&c->sources, src);
		free(src);
	}
	for (size_t i = 0; o && i < o->n_defs; i++) {
		char *src;

		if (cd_conf_define(c, o->defs[i]) < 0)
			return -1;
		src = xasprintf("-D %s", o->defs[i]);
		cd_strv_push(&c->sources, src);
		free(src);
	}
	if (o && o->require) {
		char err[512], *src;

		if (cd_conf_parse_groups(o->require, &c->require, err, sizeof(err)) < 0) {
			cd_error("option '--require': %s", err);
			return -1;
		}
		src = xasprintf("--require %s", o->require);
		cd_strv_push(&c->sources, src);
		free(src);
	}
	return 0;
}

const char *cd_conf_fmt(const struct cd_conf *c, enum cd_key k, char *buf, size_t len)
{
	double v = c->val[k];

	switch (keys[k].unit) {
	case CD_U_TEXT:
		snprintf(buf, len, "%s", c->text[k] ? c->text[k] : "(unset)");
		return buf;
	case CD_U_BYTES:
		if (isnan(v))
			break;
		return cd_fmt_bytes(buf, len, (int64_t)v);
	case CD_U_GBYTE_S:
		snprintf(buf, len, "%g GB/s", v);
		return buf;
	case CD_U_GBIT_S:
		snprintf(buf, len, "%g Gb/s", v);
		return buf;
	case CD_U_MBIT_S:
		snprintf(buf, len, "%g Mb/s", v);
		return buf;
	case CD_U_PCT:
		snprintf(buf, len, "%g %%", v);
		return buf;
	case CD_U_US:
		snprintf(buf, len, "%g us", v);
		return buf;
	case CD_U_NUMBER:
		break;
	}
	snprintf(buf, len, "%g", v);
	return buf;
}
