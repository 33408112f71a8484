/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp.reach's data read as groups, for the judge and the advisor alike: the attempts on
 * an interface of a host (it listened), from an interface name of a host (it connected),
 * between two hosts. The document holds them in one of two forms:
 *
 * - every attempt in reach[] (up to CD_REACH_COMPACT_HOSTS hosts, and any saved document
 *   from before issue 18);
 * - compact, above that: reach[] keeps each failed attempt and one successful attempt per
 *   pair of hosts (the proof of a path), and reach_counts[] counts every attempt per host
 *   and interface name. A job of thousands of hosts stores O(hosts × peers), never N².
 *
 * The index answers the same questions from either form in O(log R).
 */
#ifndef CD_REACH_H
#define CD_REACH_H

#include "out.h"
#include "results.h"

#define CD_REACH_COMPACT_HOSTS 64

struct cd_reach_index;

struct cd_reach_index *cd_reach_index_new(const struct cd_results *r);
void cd_reach_index_free(struct cd_reach_index *ix);
/* Attempts on iface of host `to` (into) or by host `from` on interface name iface (out of): tried and ok. */
void cd_reach_into(const struct cd_reach_index *ix, const char *to, const char *iface, int64_t *tried, int64_t *ok);
void cd_reach_outof(const struct cd_reach_index *ix, const char *from, const char *iface, int64_t *tried,
		    int64_t *ok);
/* Did `from` reach `to` on any address? 1 yes, 0 it tried and never did, -1 it did not try. */
int cd_reach_pair(const struct cd_reach_index *ix, const char *from, const char *to);

/*
 * Make r's reach data compact (above CD_REACH_COMPACT_HOSTS hosts; a document already
 * compact, or smaller, is left as it is). Returns the number of attempts dropped.
 */
size_t cd_reach_compact(struct cd_results *r);

#endif
