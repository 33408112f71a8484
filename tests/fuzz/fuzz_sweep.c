/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe size sweep from -b MIN -e MAX -f FACTOR -i INCREMENT. Input: one byte
 * saying which options are given (bit 0 -b, 1 -e, 2 -f, 3 -i), then their values
 * separated by newlines. Properties: a refusal has a message naming an option; an
 * accepted sweep has 1..CD_SWEEP_MAX sizes, rising from min, none above max, and
 * the n sizes ascend from min and end at last.
 */
#include "fuzz.h"

#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *arg[4] = { NULL, NULL, NULL, NULL };
	char *buf, *p, *err = NULL;
	struct cd_sweep s;
	unsigned given;
	size_t n = 0, b, prev = 0;

	if (size < 1)
		return 0;
	given = data[0];
	buf = fuzz_cstr(data + 1, size - 1);
	p = buf;
	for (int i = 0; i < 4; i++) {
		char *nl = strchr(p, '\n');

		if (given & (1u << i))
			arg[i] = p;
		if (nl) {
			*nl = '\0';
			p = nl + 1;
		} else {
			p += strlen(p);
		}
	}
	if (cd_sweep_init(&s, arg[0], arg[1], arg[2], arg[3], &err) < 0) {
		FUZZ_CHECK(err && err[0] == '-' && strchr("befi", err[1]), "refused without naming the option: %s",
			   err ? err : "(no message)");
		FUZZ_CHECK(cd_sweep_init(&s, arg[0], arg[1], arg[2], arg[3], NULL) < 0, "refusal depends on err");
		free(err);
		free(buf);
		return 0;
	}
	FUZZ_CHECK(err == NULL, "accepted with a message: %s", err);
	FUZZ_CHECK(s.max >= 1 && s.min <= s.max, "min %zu max %zu", s.min, s.max);
	FUZZ_CHECK(s.n >= 1 && s.n <= CD_SWEEP_MAX, "n %zu", s.n);
	FUZZ_CHECK((s.factor >= 2) != (s.incr >= 1), "factor %zu incr %zu", s.factor, s.incr);
	FUZZ_CHECK(s.size[0] == s.min, "first size %zu is not min %zu", s.size[0], s.min);
	for (n = 0; n < s.n; n++) {
		b = s.size[n];
		FUZZ_CHECK((n == 0 || b > prev) && b <= s.max, "size %zu after %zu (max %zu)", b, prev, s.max);
		prev = b;
	}
	FUZZ_CHECK(s.last == (prev ? prev : 1), "the sizes end at %zu, init said last %zu", prev, s.last);
	free(buf);
	return 0;
}
