/* SPDX-License-Identifier: BSD-3-Clause */
/* The test-only fault knobs: off unless both variables say so; typos are errors. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "suites.h"

START_TEST(test_set_and_query)
{
	ck_assert_int_eq(cd_fault_active("probe.hang"), 0);
	ck_assert_ptr_null(cd_fault_value("discover.stall"));
	ck_assert_int_eq(cd_fault_set("probe.hang,discover.stall=net"), 0);
	ck_assert_int_eq(cd_fault_active("probe.hang"), 1);
	ck_assert_str_eq(cd_fault_value("probe.hang"), "");
	ck_assert_str_eq(cd_fault_value("discover.stall"), "net");
	ck_assert_int_eq(cd_fault_active("discover"), 0); /* whole names only */
	ck_assert_int_eq(cd_fault_set(""), 0);
	ck_assert_int_eq(cd_fault_active("probe.hang"), 0);
	ck_assert_int_eq(cd_fault_set("discover.stall=gpu"), 0);
	ck_assert_int_eq(cd_fault_set(NULL), 0);
	ck_assert_ptr_null(cd_fault_value("discover.stall"));
}
END_TEST

START_TEST(test_bad_specs)
{
	static const char *const bad[] = {
		"probe.hnag",             /* typo */
		"discover.stall",         /* needs a section */
		"discover.stall=",        /* empty section */
		"discover.stall=disk",    /* no such section */
		"discover.stall=ne",      /* a prefix is not a section */
		"probe.hang=1",           /* takes no value */
		"probe.hang,,",           /* an empty item */
		"probe.hang,nope",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(cd_fault_set(bad[i]) == -1, "'%s' accepted", bad[i]);
		/* a refused spec leaves nothing on */
		ck_assert_int_eq(cd_fault_active("probe.hang"), 0);
		ck_assert_int_eq(cd_fault_active("discover.stall"), 0);
	}
}
END_TEST

/* Never by accident: COMMDIAG_FAULT alone, or with COMMDIAG_TESTING other than 1, is ignored. */
START_TEST(test_env_needs_both)
{
	unsetenv("COMMDIAG_TESTING");
	setenv("COMMDIAG_FAULT", "probe.hang", 1);
	ck_assert_int_eq(cd_fault_init(), 0);
	ck_assert_int_eq(cd_fault_active("probe.hang"), 0);
	setenv("COMMDIAG_TESTING", "yes", 1);
	ck_assert_int_eq(cd_fault_init(), 0);
	ck_assert_int_eq(cd_fault_active("probe.hang"), 0);
	setenv("COMMDIAG_TESTING", "1", 1);
	ck_assert_int_eq(cd_fault_init(), 0);
	ck_assert_int_eq(cd_fault_active("probe.hang"), 1);
	setenv("COMMDIAG_FAULT", "probe.hnag", 1);
	ck_assert_int_eq(cd_fault_init(), -1);
	ck_assert_int_eq(cd_fault_active("probe.hang"), 0);
	unsetenv("COMMDIAG_FAULT");
	unsetenv("COMMDIAG_TESTING");
	ck_assert_int_eq(cd_fault_init(), 0);
	ck_assert_int_eq(cd_fault_set(NULL), 0);
}
END_TEST

Suite *fault_suite(void)
{
	Suite *s = suite_create("fault");
	TCase *tc = tcase_create("knobs");

	tcase_add_test(tc, test_set_and_query);
	tcase_add_test(tc, test_bad_specs);
	tcase_add_test(tc, test_env_needs_both);
	suite_add_tcase(s, tc);
	return s;
}
