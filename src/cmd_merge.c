/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * merge FILE...|DIR: the documents of separate runs (a prolog's check on each node, or
 * fleet documents merged before) into one fleet document, judged as score judges a saved
 * document (the cross-host rules included) and reported in any format.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "merge.h"
#include "progress.h"
#include "results.h"

#include "cmd.h"

/* As the --from loader bounds one input (results_json.c): a 1000-host document is a few MB. */
#define MERGE_MAX_INPUT_BYTES ((size_t)256 << 20)

struct inputs {
	char **v;
	size_t n, cap;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of a directory, by name (so the fleet document is the same on every run). */
static int add_dir(struct inputs *in, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = in->n;

	if (!d)
		return cd_error("merge: cannot read directory '%s': %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		char *path;

		/* hidden names are the collector's files being written (.NAME.json.tmp) */
		if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		path = xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			cd_warn("merge: '%s' is not a regular file: skipped", path);
			free(path);
			continue;
		}
		*CD_PUSH(in->v, in->n, in->cap) = path;
	}
	closedir(d);
	if (in->n == first)
		return cd_error("merge: directory '%s' has no .json file: expected the documents of 'commdiag check "
				"--json' (NAME.json)", dir);
	qsort(in->v + first, in->n - first, sizeof(*in->v), cmp_name);
	return 0;
}

static int expand(struct ctx *c, struct inputs *in)
{
	for (int i = 0; i < c->nargs; i++) {
		const char *a = c->args[i];
		struct stat st;

		if (!strcmp(a, "-"))
			return cd_error("merge: '-': standard input is one document; name the files or a directory");
		if (stat(a, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (add_dir(in, a) < 0)
				return -1;
			continue;
		}
		*CD_PUSH(in->v, in->n, in->cap) = xstrdup(a);
	}
	return 0;
}

/*
 * The same document twice (a file named twice, a directory and a file in it, a copy) would be
 * two hosts with one identity: HOST001 for a mistake of the command line. A file whose bytes
 * are those of an earlier one is merged once, with a warning. Two 64-bit hashes and the length
 * in an open-addressing table: O(N), never a comparison of every pair.
 */
struct seen {
	uint64_t h1, h2;
	size_t len, file; /* file + 1; 0: empty slot */
};

static void hashes(const char *s, size_t len, uint64_t *h1, uint64_t *h2)
{
	uint64_t a = 14695981039346656037ULL, b = 5381;

	for (size_t i = 0; i < len; i++) {
		a = (a ^ (unsigned char)s[i]) * 1099511628211ULL; /* FNV-1a */
		b = (b * 33) ^ (unsigned char)s[i];               /* djb2 (xor) */
	}
	*h1 = a;
	*h2 = b;
}

/* The index of an earlier file with these bytes, or -1 (and this one is remembered). */
static long seen_before(struct seen *t, size_t size, const char *text, size_t len, size_t file)
{
	uint64_t h1, h2;
	size_t k;

	hashes(text, len, &h1, &h2);
	for (k = (size_t)h1 & (size - 1); t[k].file; k = (k + 1) & (size - 1))
		if (t[k].h1 == h1 && t[k].h2 == h2 && t[k].len == len)
			return (long)t[k].file - 1;
	t[k] = (struct seen){ h1, h2, len, file + 1 };
	return -1;
}

static int merge_one(struct cd_merge *m, const char *path, struct seen *t, size_t tsize, size_t idx,
		     char *const *names)
{
	const char *kind = NULL;
	FILE *f = cd_open_input(path, &kind);
	struct cd_results doc;
	size_t len = 0;
	char *text;
	long dup;

	if (!f) {
		if (kind)
			return cd_error("merge: '%s' is %s: expected a regular file (a document, or a directory of them)",
					path, kind);
		return cd_error("merge: cannot open '%s': %s", path, strerror(errno));
	}
	text = cd_read_file(f, MERGE_MAX_INPUT_BYTES, &len);
	fclose(f);
	if (!text)
		return cd_error("merge: cannot read '%s': %s", path,
				errno == EFBIG ? "larger than 256 MiB: not a results document" : strerror(errno));
	if ((dup = seen_before(t, tsize, text, len, idx)) >= 0) {
		cd_warn("merge: '%s' has the same bytes as '%s': merged once", path, names[dup]);
		free(text);
		return 0;
	}
	if (cd_results_load_json(&doc, text, len, path) < 0) {
		free(text);
		return -1;
	}
	free(text);
	/* the hosts of a run: not an import's, a log's or hang's (they carry no inventory of their own) */
	if (!doc.run.mode || (strcmp(doc.run.mode, "check") && strcmp(doc.run.mode, "probe") &&
			      strcmp(doc.run.mode, "topo") && strcmp(doc.run.mode, "merge"))) {
		cd_error("merge: '%s': run.mode is %s%s%s: expected the document of check, probe, topo or merge", path,
			 doc.run.mode ? "'" : "null", doc.run.mode ? doc.run.mode : "", doc.run.mode ? "'" : "");
		cd_results_free(&doc);
		return -1;
	}
	if (!doc.n_hosts) {
		cd_error("merge: '%s': no hosts: expected the document of a run that discovered its host", path);
		cd_results_free(&doc);
		return -1;
	}
	cd_merge_add(m, &doc, path);
	cd_results_free(&doc);
	return 0;
}

int cmd_merge(struct ctx *c)
{
	struct inputs in = { 0 };
	struct cd_results r;
	struct cd_merge m;
	struct cd_conf conf;
	struct seen *t = NULL;
	size_t tsize = 16;
	int rc = 0;

	if (!c->nargs)
		return cd_error("merge: which documents? use 'commdiag merge FILE.json... | DIR'"), EXIT_USAGE;
	/* a bad --rules, -D or --profile stops the run before any reading */
	rc = cd_conf_load(&conf, &c->conf, NULL);
	cd_conf_free(&conf);
	if (rc < 0)
		return EXIT_USAGE;
	phase(1);
	if (expand(c, &in) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	while (tsize < 2 * in.n)
		tsize *= 2;
	t = xcalloc(tsize, sizeof(*t));
	cd_merge_init(&m, &r);
	for (size_t i = 0; i < in.n && !cd_stop; i++) {
		if (merge_one(&m, in.v[i], t, tsize, i, in.v) < 0) {
			cd_results_free(&r);
			rc = EXIT_USAGE;
			goto out;
		}
		cd_progress_step("merge %zu of %zu", i + 1, in.n);
	}
	stamp(&r, "merge", c);
	if (!cd_stop) {
		phase(2);
		rc = judge(c, &r, 0);
		if (rc) {
			cd_results_free(&r);
			goto out;
		}
	}
	if (cd_stop)
		stamp_stop(&r); /* what was merged, unjudged: a partial run makes no findings */
	if (!deterministic())
		r.run.duration_s = cd_now_s() - c->t_start;
	phase(3);
	rc = emit_report(c, c->shell ? render_shell : render_results, &r);
	if (rc == 0)
		rc = exit_for(c, &r);
	cd_results_free(&r);
out:
	for (size_t i = 0; i < in.n; i++)
		free(in.v[i]);
	free(in.v);
	free(t);
	return rc;
}
