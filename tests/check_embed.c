/* SPDX-License-Identifier: BSD-3-Clause */
/* The files compiled into the binary are exactly the files in rules/: they cannot drift. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "suites.h"
#include "util.h"

/* What the Makefile embeds: every file of rules/ but its README. */
static int is_data(const char *name)
{
	return name[0] != '.' && strncmp(name, "README", 6);
}

START_TEST(test_every_rules_file_embedded_verbatim)
{
	DIR *d = opendir("rules");
	struct dirent *e;
	int seen = 0;

	ck_assert_msg(d != NULL, "run the tests from the repository root");
	while ((e = readdir(d))) {
		const struct cd_embedded_file *f;
		char *path, *text;
		size_t len;
		FILE *fp;

		if (!is_data(e->d_name))
			continue;
		path = xasprintf("rules/%s", e->d_name);
		fp = fopen(path, "r");
		ck_assert_ptr_nonnull(fp);
		text = cd_read_file(fp, (size_t)16 << 20, &len); /* the loader's limit (src/core/embed.c) */
		fclose(fp);
		ck_assert_ptr_nonnull(text);
		f = cd_embedded(e->d_name);
		ck_assert_msg(f != NULL, "%s is not embedded: rebuild (make)", path);
		ck_assert_msg(f->len == len && !memcmp(f->data, text, len), "embedded %s differs from the file", path);
		ck_assert_int_eq(f->data[f->len], '\0');
		free(text);
		free(path);
		seen++;
	}
	closedir(d);
	ck_assert_int_gt(seen, 0);
	/* and nothing embedded that is no longer in rules/ */
	for (const struct cd_embedded_file *f = cd_embedded_files; f->name; f++)
		seen--;
	ck_assert_int_eq(seen, 0);
	ck_assert_ptr_null(cd_embedded("no-such.conf"));
}
END_TEST

Suite *embed_suite(void)
{
	Suite *s = suite_create("embed");
	TCase *tc = tcase_create("files");

	tcase_add_test(tc, test_every_rules_file_embedded_verbatim);
	suite_add_tcase(s, tc);
	return s;
}
