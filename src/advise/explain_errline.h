/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_EXPLAIN_ERRLINE_H
#define CD_EXPLAIN_ERRLINE_H

/*
 * Does a log line report an error in the way the libraries and runtimes print one (an error
 * level, a fatal abort, a failed call, a crash, the loader's refusal), whatever the library?
 * explain quotes the first such line of a log nothing explains, so an admin knows where to look.
 */
int cd_error_line(const char *line);

#endif
