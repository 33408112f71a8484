/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The number parsers of the command line: sizes (-b/-e/-i, "8M", "1.5G") and
 * seconds (--timeout). Properties beyond "no crash": only the documented forms are
 * accepted (a decimal number, for sizes with an optional K/M/G/T, "i" and "B"),
 * a refused input leaves the output alone, and whole numbers come out exact.
 */
#include "fuzz.h"

#include <ctype.h>
#include <math.h>

/* digits, at most one '.', at least one digit; returns the end */
static const char *decimal(const char *s)
{
	int digits = 0, dot = 0;

	for (;; s++) {
		if (isdigit((unsigned char)*s))
			digits++;
		else if (*s == '.' && !dot)
			dot = 1;
		else
			break;
	}
	return digits ? s : NULL;
}

static int size_form(const char *s)
{
	const char *p = decimal(s);

	if (!p)
		return 0;
	if (*p && strchr("kKmMgGtT", *p)) {
		p++;
		if (*p == 'i')
			p++;
	}
	if (*p == 'b' || *p == 'B')
		p++;
	return *p == '\0';
}

static int seconds_form(const char *s)
{
	const char *p = decimal(s);

	return p && *p == '\0';
}

static void sizes(const char *s)
{
	uint64_t v = 12345;
	size_t n = strlen(s);

	if (cd_parse_size(s, &v) < 0) {
		FUZZ_CHECK(v == 12345, "'%s' refused but changed the output", s);
		return;
	}
	FUZZ_CHECK(size_form(s), "'%s' accepted as a size", s);
	/* plain digits: the exact integer, not a double's approximation of it */
	if (n && n <= 19 && strspn(s, "0123456789") == n)
		FUZZ_CHECK(v == strtoull(s, NULL, 10), "'%s' parsed as %llu", s, (unsigned long long)v);
}

static void seconds(const char *s)
{
	double v = -7;

	if (cd_parse_seconds(s, &v) < 0) {
		FUZZ_CHECK(v == -7, "'%s' refused but changed the output", s);
		return;
	}
	FUZZ_CHECK(seconds_form(s), "'%s' accepted as seconds", s);
	FUZZ_CHECK(isfinite(v) && v > 0 && v <= 86400.0 * 365, "'%s' gave %g s", s, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	sizes(s);
	seconds(s);
	free(s);
	return 0;
}
