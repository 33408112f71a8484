/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_EXPLAIN_STATED_H
#define CD_EXPLAIN_STATED_H

/*
 * A line that states its own cause in the words the C library, the dynamic loader, the CUDA
 * runtime or a command-line parser print for one ("Permission denied", "cannot open shared
 * object file", "invalid device ordinal", "unrecognized arguments"), whatever program put them
 * in the line. explain uses it only where no catalogue entry and no reader explains the log
 * (LOG096): issue 17 asks that "cannot explain" be said only where no line names a cause.
 */
struct cd_stated {
	const char *words;  /* as printed, matched case-sensitively */
	const char *source; /* who prints these words */
	const char *cause;  /* what they say is wrong: LOG096's subject */
	const char *check;  /* the next step, for whatever program printed them */
};

/* The words a line states its cause in; NULL for none, or for a line of an info, debug or
 * trace level (a plugin search's "No such file or directory" in NCCL INFO is routine). */
const struct cd_stated *cd_stated_cause(const char *line);

#endif
