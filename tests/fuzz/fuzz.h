/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the libFuzzer targets tests/fuzz/fuzz_<name>.c. A target is one file
 * defining LLVMFuzzerTestOneInput() over one parser; the Makefile finds it by name
 * and seeds it from tests/fuzz/corpus/<name>/ (and tests/fuzz/<name>.dict if any).
 *
 * FUZZ_CHECK states a property the parser promises (not only "does not crash"):
 * a violation aborts, so libFuzzer saves the input as a crash like any other.
 */
#ifndef CD_FUZZ_H
#define CD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/common_interface_defs.h>

#include "out.h"
#include "reach.h"
#include "report.h"
#include "results.h"
#include "util.h"

/*
 * The message goes through the sanitizers' report channel too: libFuzzer's
 * -close_fd_mask=2 (used by make fuzz-run) closes stderr but keeps that one.
 */
#define FUZZ_CHECK(cond, ...)                                                           \
	do {                                                                            \
		if (!(cond)) {                                                          \
			char fuzz_msg_[4096];                                           \
			int fuzz_n_ = snprintf(fuzz_msg_, sizeof(fuzz_msg_),            \
					       "fuzz: %s:%d: property '%s' failed: ",   \
					       __FILE__, __LINE__, #cond);              \
			if (fuzz_n_ > 0 && (size_t)fuzz_n_ < sizeof(fuzz_msg_))         \
				snprintf(fuzz_msg_ + fuzz_n_, sizeof(fuzz_msg_) - (size_t)fuzz_n_, \
					 __VA_ARGS__);                                  \
			fprintf(stderr, "%s\n", fuzz_msg_);                             \
			__sanitizer_report_error_summary(fuzz_msg_);                    \
			abort();                                                        \
		}                                                                       \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (a C parser never sees the bytes after a NUL). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The document rendered in fmt (colour on or off) into a heap buffer of *len bytes. */
static inline char *fuzz_render(const struct cd_results *r, enum out_format fmt, int colour, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct cd_out *o;

	FUZZ_CHECK(f != NULL, "open_memstream");
	o = out_new(fmt, f, colour);
	cd_report(o, r);
	FUZZ_CHECK(out_end(o) == 0, "rendering failed");
	fclose(f);
	return buf;
}

/* Property of every parser that builds a document: it renders to JSON that --from reads back. */
static inline void fuzz_check_reloads(const struct cd_results *r)
{
	struct cd_results back;
	size_t len = 0;
	char *json = fuzz_render(r, OUT_FMT_JSON, 0, &len);

	FUZZ_CHECK(cd_results_load_json(&back, json, len, "rendered") == 0, "its own JSON does not load: %.200s", json);
	cd_results_free(&back);
	free(json);
}

#endif
