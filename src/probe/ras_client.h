/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client of NCCL's RAS service (the protocol of src/ras/client.cc and the server side in
 * src/ras/client_support.cc, NCCL v2.24.3-1 … v2.30.7-1): one connection per query,
 * "CLIENT PROTOCOL 2" → "SERVER PROTOCOL n", "TIMEOUT s" → "OK", "SET FORMAT json" → "OK"
 * (2.28.7 and later; older servers answer "ERROR: Unknown command …" and the text report is
 * read instead), then "VERBOSE STATUS": the report, up to the server closing the connection.
 * Every wait polls in short slices and gives up when cd_stop is set (the --timeout deadline).
 */
#ifndef CD_RAS_CLIENT_H
#define CD_RAS_CLIENT_H

#include <stddef.h>

enum cd_ras_step { CD_RAS_CONNECT, CD_RAS_PROTOCOL, CD_RAS_TIMEOUT, CD_RAS_FORMAT, CD_RAS_STATUS };

struct cd_ras_reply {
	char *text;         /* the report, NUL-terminated */
	size_t len;
	int json;           /* the server took SET FORMAT json */
	char *protocol;     /* the server's "SERVER PROTOCOL n" line */
	char *format_reply; /* its answer to SET FORMAT json */
};

/* "HOST:PORT", "[v6]:PORT" or "HOST" → host and port; -1 with *err (malloc'd) when malformed. */
int cd_ras_split_addr(const char *addr, char **host, char **port, char **err);
/*
 * One query. try_json 0 skips SET FORMAT (an old server answered it with an error before).
 * step(s) is called as each wait starts. Returns 0; -1 with *err on a failure; -2 when cd_stop
 * ended a wait (the caller names the step it was in).
 */
int cd_ras_query(const char *host, const char *port, int try_json, int ras_timeout_s, void (*step)(int),
		 struct cd_ras_reply *out, char **err);
void cd_ras_reply_free(struct cd_ras_reply *r);

#endif
