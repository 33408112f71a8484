/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One Check runner for every module's suite: tests/check_<module>.c defines
 * Suite *<module>_suite(void). Weak references let a suite join by existing, and
 * CK_RUN_SUITE=<module> runs just one.
 */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define SUITE(name) if (name##_suite) srunner_add_suite(sr, name##_suite());
	CD_SUITES
#undef SUITE
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
