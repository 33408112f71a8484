/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_REPORT_H
#define CD_REPORT_H

#include "out.h"
#include "results.h"

/* Render the whole document: text for people or the JSON document (schema 1). */
void cd_report(struct cd_out *o, const struct cd_results *r);

#endif
