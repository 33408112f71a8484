/* SPDX-License-Identifier: BSD-3-Clause */
/* The run of long lines a folded message may continue (see explain_fold.h). */
#include <stdio.h>
#include <string.h>

#include "explain_fold.h"

void cd_fold_line(struct cd_fold *f, int cont, const char *line)
{
	f->cont = cont;
	if (!cd_fold_seamed(f))
		return;
	/* piece and seam are members of one struct: copied by length, not snprintf, which gcc's
	 * -Wrestrict takes for overlapping arguments (CD_FOLD_SEAM_MAX holds both and the space) */
	const char *last = f->piece[f->pieces - 1];
	size_t lp = strnlen(last, CD_FOLD_CHARS - 1), ll = strnlen(line, CD_FOLD_LINE_MAX - 1);

	for (int j = 0; j < 2; j++) {
		char *s = f->seam[j];

		memcpy(s, last, lp);
		if (j)
			s[lp] = ' ';
		memcpy(s + lp + (size_t)j, line, ll);
		s[lp + (size_t)j + ll] = '\0';
	}
}

int cd_fold_seamed(const struct cd_fold *f)
{
	return f->cont && f->pieces;
}

int cd_fold_has(const struct cd_fold *f, const char *line, const char *needle)
{
	/* across the seam: in the joins, not wholly inside the last piece, which was read as its own line */
	return cd_fold_seamed(f) && (strstr(line, needle) || ((strstr(f->seam[0], needle) || strstr(f->seam[1], needle)) &&
								 !strstr(f->piece[f->pieces - 1], needle)));
}

void cd_fold_join(const struct cd_fold *f, const char *line, const char *sep, char *buf, size_t len)
{
	size_t n = 0;

	for (int k = 0; k < f->pieces && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", f->piece[k], sep);
	if (n < len)
		snprintf(buf + n, len - n, "%s", line);
}

void cd_fold_next(struct cd_fold *f, const char *own, size_t len)
{
	if (len < CD_FOLD_MIN_COLS || strlen(own) >= CD_FOLD_CHARS) {
		f->pieces = 0;
		return;
	}
	if (!f->cont)
		f->pieces = 0;
	if (f->pieces == CD_FOLD_PIECES) {
		memmove(f->piece[0], f->piece[1], sizeof(f->piece[0]) * (CD_FOLD_PIECES - 1));
		f->pieces--;
	}
	snprintf(f->piece[f->pieces++], CD_FOLD_CHARS, "%s", own);
}
