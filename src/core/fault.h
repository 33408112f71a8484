/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test-only fault injection: named knobs that make one step misbehave on purpose
 * (a discovery section that stalls, a probe operation that never completes), so
 * the tests can show that nothing hangs and nothing is half-written. Off unless
 * BOTH variables are set:
 *
 *   COMMDIAG_TESTING=1 COMMDIAG_FAULT=name[=value][,name[=value]...]
 *
 * COMMDIAG_FAULT alone (say, copied from a test script into a job's environment)
 * does nothing but warn. The names are a fixed table in fault.c: an unknown name or
 * a bad value is a usage error, so a typo in a test fails it instead of silently
 * testing nothing. A run with faults on says so on stderr, whatever -q says.
 *
 * Adding a knob: one line in the table in fault.c, one cd_fault_active() or
 * cd_fault_value() at the place that misbehaves, one entry in the man page.
 */
#ifndef CD_FAULT_H
#define CD_FAULT_H

/* main: read the environment once. Returns 0, or -1 after a message (exit 2). */
int cd_fault_init(void);
/* Is the knob on? */
int cd_fault_active(const char *name);
/* Its value: "" when given without one, NULL when the knob is off. */
const char *cd_fault_value(const char *name);
/* Tests: replace the active knobs by spec (same syntax; NULL turns all off). 0 or -1 after a message. */
int cd_fault_set(const char *spec);

#endif
