/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The env linter over the catalogue in rules/env.catalog. Only names of the
 * communication families are read (NCCL_, TORCH_NCCL_, GLOO_, OMPI_MCA_, UCX_);
 * the families with hundreds of parameters (Open MPI, UCX) get a "did you mean"
 * only when a name is one or two edits from a catalogued one.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embed.h"
#include "envlint.h"
#include "libdefaults.h"

#define LINE_MAX_BYTES 4096

static const struct {
	const char *prefix;
	int strict;             /* unknown names are findings */
} families[] = {
	{ "TORCH_NCCL_", 1 }, { "NCCL_", 1 }, { "GLOO_", 1 }, { "OMPI_MCA_", 0 }, { "UCX_", 0 },
};

static const char *const kind_names[] = {
	[CD_ENVK_ANY] = "any", [CD_ENVK_BOOL] = "bool", [CD_ENVK_INT] = "int", [CD_ENVK_PARAM] = "param", [CD_ENVK_UINT] = "uint",
	[CD_ENVK_ULONG] = "ulong", [CD_ENVK_MCABOOL] = "mcabool", [CD_ENVK_MCAVERBOSE] = "mcaverbose",
	[CD_ENVK_ENUM] = "enum", [CD_ENVK_IFLIST] = "iflist", [CD_ENVK_HCALIST] = "hcalist",
	[CD_ENVK_RENAMED] = "renamed", [CD_ENVK_REMOVED] = "removed", [CD_ENVK_NOTVAR] = "notvar",
	[CD_ENVK_PLUGIN] = "plugin", [CD_ENVK_LABEL] = "label",
};

static int family_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (!strncmp(name, families[i].prefix, strlen(families[i].prefix)))
			return (int)i;
	return -1;
}

/* ---- the catalogue ---- */

int cd_envcat_parse(struct cd_envcat *c, const char *text, size_t len, const char *name)
{
	size_t pos = 0;
	int line = 0;

	while (pos < len) {
		size_t end = pos, n;
		char buf[LINE_MAX_BYTES], *words[3] = { NULL }, *save = NULL, *p;
		struct cd_envvar *v;
		int k = -1;

		while (end < len && text[end] != '\n')
			end++;
		line++;
		n = end - pos < sizeof(buf) - 1 ? end - pos : sizeof(buf) - 1;
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		pos = end + 1;
		p = buf + strspn(buf, " \t\r");
		if (!*p || *p == '#')
			continue;
		words[0] = strtok_r(p, " \t\r", &save);
		words[1] = strtok_r(NULL, " \t\r", &save);
		words[2] = save ? save + strspn(save, " \t") : NULL;
		if (words[2]) {
			size_t l;

			/* a comment after the entry: '#' at the start of the argument or after a blank */
			for (char *q = words[2]; *q; q++)
				if (*q == '#' && (q == words[2] || q[-1] == ' ' || q[-1] == '\t')) {
					*q = '\0';
					break;
				}
			l = strlen(words[2]);
			while (l && (words[2][l - 1] == '\r' || words[2][l - 1] == ' ' || words[2][l - 1] == '\t'))
				words[2][--l] = '\0';
			if (!l)
				words[2] = NULL;
		}
		for (size_t i = 0; words[1] && i < ARRAY_SIZE(kind_names); i++)
			if (!strcmp(words[1], kind_names[i]))
				k = (int)i;
		if (k < 0)
			return cd_error("env: '%s:%d': expected 'NAME KIND [ARGUMENT]' with KIND one of any, bool, int, "
					"param, uint, ulong, mcabool, mcaverbose, enum, iflist, hcalist, renamed, removed, notvar, "
					"plugin, label", name, line);
		if ((k == CD_ENVK_ENUM || k == CD_ENVK_RENAMED || k == CD_ENVK_REMOVED || k == CD_ENVK_NOTVAR ||
		     k == CD_ENVK_PLUGIN || k == CD_ENVK_LABEL) && !words[2])
			return cd_error("env: '%s:%d': '%s' needs an argument", name, line, words[1]);
		n = strlen(words[0]);
		if (words[0][n - 1] == '*' && (k != CD_ENVK_PLUGIN || n < 3 || words[0][n - 2] != '_'))
			return cd_error("env: '%s:%d': only a plugin's prefix ends in '*', after a '_' (NCCL_FOO_* plugin TEXT)",
					name, line);
		v = CD_PUSH(c->v, c->n, c->cap);
		v->prefix = words[0][n - 1] == '*';
		v->name = xstrndup(words[0], n - (size_t)v->prefix);
		v->kind = (enum cd_envkind)k;
		v->arg = words[2] ? xstrdup(words[2]) : NULL;
	}
	return 0;
}

int cd_envcat_load_default(struct cd_envcat *c)
{
	const struct cd_embedded_file *f = cd_embedded("env.catalog");

	if (!f)
		return cd_error("env: the embedded catalogue 'env.catalog' is missing");
	return cd_envcat_parse(c, f->data, f->len, "env.catalog");
}

void cd_envcat_free(struct cd_envcat *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].arg);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

const struct cd_envvar *cd_envcat_find(const struct cd_envcat *c, const char *name)
{
	const struct cd_envvar *best = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (!c->v[i].prefix && !strcmp(c->v[i].name, name))
			return &c->v[i];
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].prefix && !strncmp(c->v[i].name, name, strlen(c->v[i].name)) &&
		    (!best || strlen(c->v[i].name) > strlen(best->name)))
			best = &c->v[i];
	return best;
}

int cd_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[128];

	if (la > 120 || lb > 120)
		return 255;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb] > 255 ? 255 : row[lb];
}

const char *cd_envcat_nearest(const struct cd_envcat *c, const char *name)
{
	int fam = family_of(name), best = 255;
	size_t len = strlen(name);
	/* strict families tolerate a dropped word (NCCL_SOCKET_NAME → NCCL_SOCKET_IFNAME) */
	int limit = fam >= 0 && families[fam].strict ? (len > 14 ? 3 : 2) : 2;
	const char *hit = NULL;

	for (size_t i = 0; i < c->n; i++) {
		const struct cd_envvar *v = &c->v[i];
		int d;

		if (family_of(v->name) != fam || v->kind == CD_ENVK_NOTVAR || v->kind == CD_ENVK_LABEL || v->prefix ||
		    !strcmp(v->name, name))
			continue;
		d = cd_edit_distance(name, v->name);
		if (d < best) {
			best = d;
			hit = v->kind == CD_ENVK_RENAMED ? v->arg : v->name;
		}
	}
	return best <= limit ? hit : NULL;
}

/* ---- values ---- */

static int is_int_base(const char *s, int allow_neg, int base)
{
	char *end;

	errno = 0;
	if (!*s || (!allow_neg && *s == '-'))
		return 0;
	(void)strtoll(s, &end, base);
	return !errno && !*end;
}

static int is_int(const char *s, int allow_neg)
{
	return is_int_base(s, allow_neg, 10);
}

static int in_enum(const char *words, const char *v)
{
	size_t l = strlen(v);

	for (const char *p = words; *p;) {
		size_t n = strcspn(p, ",");

		if (n == l && !strncasecmp(p, v, l))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* Every comma-separated item of v in the enum (for lists such as NCCL_DEBUG_SUBSYS). */
static int enum_ok(const char *arg, const char *v)
{
	int list = arg[0] == '+';
	const char *words = arg + list;
	char item[128];

	if (!list)
		return in_enum(words, v);
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");

		if (!n || n >= sizeof(item))
			return 0;
		memcpy(item, p, n);
		item[n] = '\0';
		if (!in_enum(words, item))
			return 0;
		p += n + (p[n] == ',');
	}
	return 1;
}

/*
 * Open MPI's own words, as its 4.1 parser takes them (tried one by one through
 * ompi_info): case-sensitive, so "TRUE" and "Yes" abort MPI_Init.
 */
static int word_in(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(v, *words))
			return 1;
	return 0;
}

static const char *const mca_bool_words[] = { "true", "false", "yes", "no", "y", "n", "t", "f", "enabled",
					      "disabled", NULL };
static const char *const mca_verbose_words[] = { "none", "error", "component", "warn", "info", "trace", "debug",
						 "max", NULL };

static int value_ok(const struct cd_envvar *e, const char *v)
{
	switch (e->kind) {
	case CD_ENVK_BOOL:
		return !strcmp(v, "0") || !strcmp(v, "1");
	case CD_ENVK_INT:
		return is_int(v, 1);
	case CD_ENVK_PARAM: /* NCCL_PARAM: strtoll(v, NULL, 0), so 0x hex and 0 octal too */
		return is_int_base(v, 1, 0);
	case CD_ENVK_UINT:
		return is_int(v, 0);
	case CD_ENVK_ULONG: /* UCX's "unsigned long" parser takes its two words in any case */
		return is_int(v, 0) || !strcasecmp(v, "inf") || !strcasecmp(v, "auto");
	case CD_ENVK_MCABOOL: /* any integer: 0 is false, the rest true */
		return is_int(v, 1) || word_in(v, mca_bool_words);
	case CD_ENVK_MCAVERBOSE:
		return is_int(v, 1) || word_in(v, mca_verbose_words);
	case CD_ENVK_ENUM:
		return enum_ok(e->arg, v);
	case CD_ENVK_IFLIST:
	case CD_ENVK_HCALIST:
		return *v && !strchr(v, ' ');
	default:
		return 1;
	}
}

/* ---- interfaces and HCAs named by a setting ---- */

static int nic_matches(const struct cd_host *h, const char *item, int exact)
{
	for (size_t i = 0; i < h->n_nics; i++)
		if (h->nics[i].name && (exact ? !strcmp(h->nics[i].name, item)
					      : !strncmp(h->nics[i].name, item, strlen(item))))
			return 1;
	return 0;
}

/* Append one missing item to the comma-joined list. */
static void add_missing(char *missing, size_t len, size_t *used, int *count, const char *item, size_t n)
{
	*used += (size_t)snprintf(missing + *used, *used < len ? len - *used : 0, "%s%.*s", *count ? "," : "", (int)n,
				  item);
	(*count)++;
}

/*
 * The items of a NCCL list (NCCL_IB_HCA, NCCL_SOCKET_IFNAME: libdefaults.h's reader, so
 * "eth0:1" names eth0 and ",," nothing) that match no device of h, as written, joined by
 * commas into missing; exclusion lists never miss. Returns how many are missing.
 */
static int nccl_list_missing(const struct cd_host *h, const char *v, int hca, char *missing, size_t len)
{
	struct cd_nccl_list l;
	struct cd_nccl_item it;
	int count = 0;
	size_t used = 0;

	missing[0] = '\0';
	cd_nccl_list_init(&l, v, hca ? CD_NCCL_MAX_IB_DEVS : CD_NCCL_MAX_IFS);
	if (l.not)
		return 0;
	while (cd_nccl_list_next(&l, &it)) {
		size_t i, n = hca ? h->n_hcas : h->n_nics;

		for (i = 0; i < n; i++) {
			const char *name = hca ? h->hcas[i].name : h->nics[i].name;

			if (name && cd_nccl_item_match(&it, l.exact, name, -1))
				break;
		}
		if (i == n)
			add_missing(missing, len, &used, &count, it.text, it.text_len);
	}
	return count;
}

/* Does one item of Gloo's or Open MPI's interface list (exact names, CIDR subnets) name a device of h? */
static int iface_item_found(const struct cd_host *h, const char *item)
{
	/* Open MPI accepts CIDR subnets; those name no device */
	return strchr(item, '/') || nic_matches(h, item, 1);
}

/* Does one UCX_NET_DEVICES item select a device of h: an interface, or an HCA's port "mlx5_0:1"? */
static int ucx_item_found(const struct cd_host *h, const char *item)
{
	char name[160];

	if (*item == '^')
		return 0; /* only the list's first character negates: here it is part of a name */
	for (size_t i = 0; i < h->n_nics; i++)
		if (h->nics[i].name && cd_ucx_net_device_match(item, h->nics[i].name))
			return 1;
	for (size_t i = 0; i < h->n_hcas; i++) {
		const struct cd_hca *c = &h->hcas[i];

		if (c->name && !c->n_ports && cd_ucx_net_device_match(item, c->name))
			return 1; /* ports not known: the device's name */
		for (size_t k = 0; c->name && k < c->n_ports; k++) {
			snprintf(name, sizeof(name), "%s:%lld", c->name, (long long)c->ports[k].port);
			if (cd_ucx_net_device_match(item, name))
				return 1;
		}
	}
	return 0;
}

/*
 * The items of a plain comma-separated list (Gloo's, Open MPI's, UCX_NET_DEVICES) that
 * found() finds on no device of h, joined by commas into missing. Returns how many.
 */
static int list_missing(const struct cd_host *h, const char *v, int (*found)(const struct cd_host *, const char *),
			char *missing, size_t len)
{
	int count = 0;
	size_t used = 0;

	missing[0] = '\0';
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");
		char item[128];

		if (n && n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
			if (!found(h, item))
				add_missing(missing, len, &used, &count, item, n);
		}
		p += n + (p[n] == ',');
	}
	return count;
}

static void list_names(const struct cd_host *h, int hca, char *buf, size_t len)
{
	size_t used = 0;
	size_t n = hca ? h->n_hcas : h->n_nics;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 hca ? h->hcas[i].name : h->nics[i].name);
	if (!n)
		snprintf(buf, len, "none");
}

/* ---- one setting ---- */

struct setting {
	const char *name, *value;
	const char *source;     /* "environment" or "/etc/nccl.conf:3" */
};

static struct cd_finding *add(struct cd_results *r, const struct cd_host *h, const char *id, enum cd_severity sev,
			      const struct setting *s, const char *title)
{
	struct cd_finding *f = cd_results_add_finding(r, id, sev, h->hostname, s->name, title);

	cd_finding_evidence(f, "%s=%s (%s)", s->name, s->value, s->source);
	return f;
}

static int device_check(struct cd_results *r, const struct cd_host *h, const struct setting *s)
{
	static const struct {
		const char *name;
		int hca, nccl; /* nccl: NCCL's list syntax, else exact names */
	} devs[] = {
		{ "NCCL_SOCKET_IFNAME", 0, 1 }, { "NCCL_OOB_NET_IFNAME", 0, 1 }, { "GLOO_SOCKET_IFNAME", 0, 0 },
		{ "OMPI_MCA_btl_tcp_if_include", 0, 0 }, { "OMPI_MCA_oob_tcp_if_include", 0, 0 },
		{ "NCCL_IB_HCA", 1, 1 },
	};
	char missing[256], have[512];

	/* only a host whose interfaces and HCAs were discovered can say a name is absent */
	for (size_t i = 0; i < ARRAY_SIZE(devs); i++) {
		struct cd_finding *f;
		enum cd_part part = devs[i].hca ? CD_PART_IB : CD_PART_NET;

		if (strcmp(devs[i].name, s->name) || h->part[part].status != CD_ST_OK)
			continue;
		/* an exclusion list never misses; a leading '=' is not part of a name */
		if (!(devs[i].nccl ? nccl_list_missing(h, s->value, devs[i].hca, missing, sizeof(missing))
		      : *s->value != '^' && list_missing(h, s->value + (*s->value == '='), iface_item_found, missing,
							 sizeof(missing))))
			return 0;
		list_names(h, devs[i].hca, have, sizeof(have));
		f = add(r, h, devs[i].hca ? "ENV007" : "ENV006", CD_SEV_FAIL, s,
			devs[i].hca ? "names an RDMA device that does not exist on this host"
				    : "names an interface that does not exist on this host");
		cd_finding_evidence(f, "no %s matches '%s'; this host has %s", devs[i].hca ? "HCA" : "interface",
				    missing, have);
		return 1;
	}
	if (!strcmp(s->name, "UCX_NET_DEVICES") && h->part[CD_PART_NET].status == CD_ST_OK &&
	    h->part[CD_PART_IB].status == CD_ST_OK && *s->value != '^' && /* an exclusion list never misses */
	    list_missing(h, s->value, ucx_item_found, missing, sizeof(missing))) {
		struct cd_finding *f = add(r, h, "ENV006", CD_SEV_FAIL, s, "names a device that does not exist on this host");

		cd_finding_evidence(f, "no interface or HCA port matches '%s'", missing);
		return 1;
	}
	return 0;
}

static int lint_one(struct cd_results *r, const struct cd_envcat *c, const struct cd_host *h, const struct setting *s)
{
	const struct cd_envvar *e = cd_envcat_find(c, s->name);
	int fam = family_of(s->name);
	struct cd_finding *f;

	if (fam < 0)
		return 0;
	if (!e) {
		const char *near = cd_envcat_nearest(c, s->name);

		if (!families[fam].strict && !near)
			return 0;
		f = add(r, h, "ENV001", CD_SEV_WARN, s, "unknown variable: nothing reads it");
		if (near)
			cd_finding_evidence(f, "did you mean %s?", near);
		return 1;
	}
	switch (e->kind) {
	case CD_ENVK_RENAMED:
		f = add(r, h, "ENV002", CD_SEV_WARN, s, "deprecated variable");
		cd_finding_evidence(f, "renamed %s: set %s=%s instead", e->arg, e->arg, s->value);
		return 1;
	case CD_ENVK_REMOVED:
		f = add(r, h, "ENV003", CD_SEV_WARN, s, "variable no longer read");
		cd_finding_evidence(f, "%s", e->arg);
		return 1;
	case CD_ENVK_NOTVAR:
		f = add(r, h, "ENV003", CD_SEV_WARN, s, "not a variable of this library");
		cd_finding_evidence(f, "%s", e->arg);
		return 1;
	case CD_ENVK_LABEL:
		return 0; /* the image's own record: nothing to change */
	default:
		break;
	}
	if (!value_ok(e, s->value)) {
		f = add(r, h, "ENV004", CD_SEV_WARN, s, "invalid value");
		if (e->kind == CD_ENVK_ENUM)
			cd_finding_evidence(f, "expected %s%s", e->arg[0] == '+' ? "a comma list of " : "one of ",
					    e->arg + (e->arg[0] == '+'));
		else
			cd_finding_evidence(f, "expected %s", e->kind == CD_ENVK_BOOL ? "0 or 1"
							      : e->kind == CD_ENVK_UINT ? "a non-negative integer"
							      : e->kind == CD_ENVK_ULONG ? "a non-negative integer, inf or auto"
							      : e->kind == CD_ENVK_MCABOOL ? "an integer, true, false, yes, no, y, n, t, f, enabled or disabled"
							      : e->kind == CD_ENVK_MCAVERBOSE ? "an integer, none, error, component, warn, info, trace, debug or max"
							      : e->kind == CD_ENVK_INT ? "an integer"
							      : e->kind == CD_ENVK_PARAM ? "an integer (decimal, 0x hex or 0 octal): NCCL reads a word as 0"
										       : "a comma list without spaces");
		return 1;
	}
	return device_check(r, h, s);
}

/* ---- settings that contradict each other ---- */

static const char *lookup(const struct setting *s, size_t n, const char *name)
{
	for (size_t i = n; i-- > 0;)
		if (!strcmp(s[i].name, name))
			return s[i].value;
	return NULL;
}

static int conflicts(struct cd_results *r, const struct cd_host *h, const struct setting *s, size_t n)
{
	static const char *const pairs[][2] = {
		{ "OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_btl_tcp_if_exclude" },
		{ "OMPI_MCA_oob_tcp_if_include", "OMPI_MCA_oob_tcp_if_exclude" },
	};
	const char *v;
	int found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		if (lookup(s, n, pairs[i][0]) && lookup(s, n, pairs[i][1])) {
			struct setting one = { pairs[i][0], lookup(s, n, pairs[i][0]), "environment" };
			struct cd_finding *f = add(r, h, "ENV005", CD_SEV_FAIL, &one, "include and exclude set together");

			cd_finding_evidence(f, "%s=%s as well: Open MPI aborts when both are set", pairs[i][1],
					    lookup(s, n, pairs[i][1]));
			found++;
		}
	v = lookup(s, n, "NCCL_P2P_DISABLE");
	if (v && !strcmp(v, "1") && lookup(s, n, "NCCL_P2P_LEVEL")) {
		struct setting one = { "NCCL_P2P_LEVEL", lookup(s, n, "NCCL_P2P_LEVEL"), "environment" };
		struct cd_finding *f = add(r, h, "ENV008", CD_SEV_WARN, &one, "conflicts with another setting");

		cd_finding_evidence(f, "NCCL_P2P_DISABLE=1 turns P2P off, so NCCL_P2P_LEVEL has no effect: keep one");
		found++;
	}
	v = lookup(s, n, "NCCL_IB_DISABLE");
	if (v && !strcmp(v, "1") && lookup(s, n, "NCCL_IB_HCA")) {
		struct setting one = { "NCCL_IB_HCA", lookup(s, n, "NCCL_IB_HCA"), "environment" };
		struct cd_finding *f = add(r, h, "ENV008", CD_SEV_WARN, &one, "conflicts with another setting");

		cd_finding_evidence(f, "NCCL_IB_DISABLE=1 turns the IB transport off, so NCCL_IB_HCA has no effect");
		found++;
	}
	return found;
}

/* ---- NCCL configuration files ---- */

char *cd_envlint_conf_paths(void)
{
	const char *t = getenv("COMMDIAG_NCCL_CONF"), *home = getenv("HOME"), *ncf = getenv("NCCL_CONF_FILE");

	if (t)
		return xstrdup(t);
	return xasprintf("%s:%s%s", ncf && *ncf ? ncf : "/etc/nccl.conf", home && *home ? home : "/nonexistent",
			 "/.nccl.conf");
}

/* Append NAME=VALUE lines of one file; malformed lines are ENV009. */
static void read_conf(struct cd_results *r, const struct cd_host *h, const char *path, struct setting **set,
		      size_t *n, size_t *cap, struct cd_strv *keep)
{
	const char *kind = NULL;
	FILE *f = cd_open_input(path, &kind);
	size_t len = 0, pos = 0;
	char *text, why[160];
	int line = 0, err;

	if (!f && errno == ENOENT)
		return; /* none there: NCCL reads nothing either */
	if (f) {
		text = cd_read_file(f, 1 << 20, &len);
		err = errno;
		fclose(f);
	} else {
		text = NULL;
		err = errno;
	}
	if (!text) {
		/* NCCL may read what commdiag cannot check: say so, never pass it silently */
		struct cd_finding *fd = cd_results_add_finding(r, "ENV010", CD_SEV_WARN, h->hostname, path,
							       "configuration file commdiag cannot check");

		if (kind)
			snprintf(why, sizeof(why), "it is %s, not a regular file", kind);
		else if (err == EFBIG)
			snprintf(why, sizeof(why), "it is larger than 1 MiB");
		else
			snprintf(why, sizeof(why), "%s", strerror(err));
		cd_finding_evidence(fd, "%s: %s; NCCL reads its NAME=VALUE lines as settings", path, why);
		return;
	}
	while (pos < len) {
		size_t end = pos;
		char buf[LINE_MAX_BYTES], *p, *eq, *src;
		size_t l;

		while (end < len && text[end] != '\n')
			end++;
		line++;
		l = end - pos < sizeof(buf) - 1 ? end - pos : sizeof(buf) - 1;
		memcpy(buf, text + pos, l);
		buf[l] = '\0';
		pos = end + 1;
		while (l && (buf[l - 1] == '\r' || buf[l - 1] == ' ' || buf[l - 1] == '\t'))
			buf[--l] = '\0';
		p = buf + strspn(buf, " \t");
		if (!*p || *p == '#')
			continue;
		eq = strchr(p, '=');
		src = xasprintf("%s:%d", path, line);
		if (!eq || eq == p) {
			struct cd_finding *fd = cd_results_add_finding(r, "ENV009", CD_SEV_WARN, h->hostname, src,
								       "configuration line NCCL cannot read");

			cd_finding_evidence(fd, "expected NAME=VALUE, got '%.80s'", p);
			free(src);
			continue;
		}
		*eq = '\0';
		{
			struct setting *s = CD_PUSH(*set, *n, *cap);

			cd_strv_push(keep, p);
			s->name = keep->v[keep->n - 1];
			cd_strv_push(keep, eq + 1);
			s->value = keep->v[keep->n - 1];
			cd_strv_push(keep, src);
			s->source = keep->v[keep->n - 1];
		}
		free(src);
	}
	free(text);
}

static int lint_host(struct cd_results *r, const struct cd_envcat *c, const struct cd_host *h, const char *conf_paths)
{
	struct setting *set = NULL;
	size_t n = 0, cap = 0, before = r->n_findings;
	struct cd_strv keep = { 0 };

	/* files first: the environment overrides them, and lookup() takes the last */
	if (conf_paths && *conf_paths) {
		char *paths = xstrdup(conf_paths), *save = NULL;

		for (char *p = strtok_r(paths, ":", &save); p; p = strtok_r(NULL, ":", &save))
			read_conf(r, h, p, &set, &n, &cap, &keep);
		free(paths);
	}
	for (size_t i = 0; i < h->n_env; i++) {
		struct setting *s = CD_PUSH(set, n, cap);

		s->name = h->env[i].key;
		s->value = h->env[i].value ? h->env[i].value : "";
		s->source = "environment";
	}
	for (size_t i = 0; i < n; i++)
		lint_one(r, c, h, &set[i]);
	conflicts(r, h, set, n);
	free(set);
	cd_strv_free(&keep);
	return (int)(r->n_findings - before);
}

int cd_envlint(struct cd_results *r, const struct cd_envcat *c, const char *conf_paths)
{
	int n = 0;

	for (size_t i = 0; i < r->n_hosts; i++)
		n += lint_host(r, c, &r->hosts[i], i == 0 ? conf_paths : NULL);
	return n;
}
