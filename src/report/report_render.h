/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sections report.c renders that another view composes too (report_explain.c): private
 * to src/report, one way to print each section.
 */
#ifndef CD_REPORT_RENDER_H
#define CD_REPORT_RENDER_H

#include "out.h"
#include "results.h"

void cd_render_tool_run(struct cd_out *o, const struct cd_results *r);
void cd_render_findings(struct cd_out *o, const struct cd_results *r);
void cd_render_advice(struct cd_out *o, const struct cd_results *r);
void cd_render_shell_block(struct cd_out *o, const struct cd_results *r);

#endif
