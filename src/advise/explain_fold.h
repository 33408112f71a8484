/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A message a terminal or a mail reader folded over lines: a terminal cuts at its width with
 * nothing between the pieces, a mail reader at a space it drops. explain keeps the run of long
 * lines a folded message may continue, and reads a line that can continue them (no launcher
 * prefix, no host of its own) joined to them: the catalogue on every piece of the run, the
 * readers of one phrase on the seam of the last piece and this line.
 */
#ifndef CD_EXPLAIN_FOLD_H
#define CD_EXPLAIN_FOLD_H

#include <stddef.h>

/* a line this long may be a piece of a folded one (mail readers fold near 72 columns, terminals at 80 or more) */
#define CD_FOLD_MIN_COLS 40
#define CD_FOLD_PIECES 6
#define CD_FOLD_CHARS 1024
/* the longest line joined (explain.c checks it holds CD_EXPLAIN_LINE_MAX); a join of the whole
 * run and a line, and of the last piece and a line */
#define CD_FOLD_LINE_MAX 4096
#define CD_FOLD_JOIN_MAX (CD_FOLD_PIECES * CD_FOLD_CHARS + CD_FOLD_LINE_MAX + CD_FOLD_PIECES)
#define CD_FOLD_SEAM_MAX (CD_FOLD_CHARS + CD_FOLD_LINE_MAX + 2)

struct cd_fold {
	char piece[CD_FOLD_PIECES][CD_FOLD_CHARS]; /* the run's pieces (their own text), oldest first */
	int pieces;
	int cont;                             /* this line can continue the run */
	char seam[2][CD_FOLD_SEAM_MAX];       /* the last piece and this line, without and with a space */
};

/* Whether this line can continue the run, and its seams (none when it continues nothing). */
void cd_fold_line(struct cd_fold *f, int cont, const char *line);
/* This line continues a run: its seams are set. */
int cd_fold_seamed(const struct cd_fold *f);
/* The continuation holds needle, on itself or across the seam. */
int cd_fold_has(const struct cd_fold *f, const char *line, const char *needle);
/* The whole run joined to line (sep: "" or " " between the parts) into buf. */
void cd_fold_join(const struct cd_fold *f, const char *line, const char *sep, char *buf, size_t len);
/*
 * After the line is read: it (LEN characters as printed, OWN its text without the launcher's
 * prefix) starts a run, or extends the one it continues; a short line ends it, for it is the
 * last piece or a line of its own. The window slides: at CD_FOLD_PIECES the oldest piece goes.
 */
void cd_fold_next(struct cd_fold *f, const char *own, size_t len);

#endif
