/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_REPORT_H
#define CD_REPORT_H

#include "conf.h"
#include "out.h"
#include "results.h"

/* Render the whole document: text for people or the JSON document (schema 1). */
void cd_report(struct cd_out *o, const struct cd_results *r);

/* `commdiag rules`: every rule, every threshold in force and its origin, the profiles. */
void cd_report_rules(struct cd_out *o, const struct cd_conf *c);

#endif
