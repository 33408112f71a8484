/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rules/profile parser (the files of rules/, --rules FILE): any bytes. Properties: it
 * returns -1 or a count of keys, and the same text parses the same way a second time.
 */
#include "fuzz.h"

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_conf a, b;
	int ra, rb;

	cd_conf_init(&a);
	cd_conf_init(&b);
	ra = cd_conf_parse(&a, (const char *)data, size, "fuzz.conf", "");
	rb = cd_conf_parse(&b, (const char *)data, size, "fuzz.conf", "");
	FUZZ_CHECK(ra >= -1, "cd_conf_parse returned %d", ra);
	FUZZ_CHECK(ra == rb, "the same text parsed twice gave %d then %d", ra, rb);
	cd_conf_free(&a);
	cd_conf_free(&b);
	return 0;
}
