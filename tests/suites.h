/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_TESTS_SUITES_H
#define CD_TESTS_SUITES_H
/* Every module suite, in run order. Add one line per tests/check_<module>.c. */
#define CD_SUITES \
	SUITE(util) SUITE(out) SUITE(results) SUITE(system) SUITE(topo) SUITE(net) SUITE(ib) \
	SUITE(dl) SUITE(embed) SUITE(conf) SUITE(rules) SUITE(score) SUITE(report) SUITE(prom) SUITE(discover) \
	SUITE(probe) SUITE(advise) SUITE(libdefaults) SUITE(explain) SUITE(envlint) SUITE(import) SUITE(fault) SUITE(dist) SUITE(report_html) \
	SUITE(progress) SUITE(ras) SUITE(abi) SUITE(baseline) SUITE(fr) SUITE(merge) SUITE(explain_versions) \
	SUITE(compact)
/* Weak, so a suite joins the runner by existing; the prototypes also serve each check_<module>.c. */
#define SUITE(name) Suite *name##_suite(void) __attribute__((weak));
#include <check.h>
CD_SUITES
#undef SUITE

/* Directory of the real-machine topology fixtures, relative to the repository root (where
 * make check runs the suites); tests/data/topo/README says where each file comes from. */
#ifndef CD_FIXTURES
#define CD_FIXTURES "tests/data/topo"
#endif
#endif
