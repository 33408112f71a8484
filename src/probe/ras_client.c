/* SPDX-License-Identifier: BSD-3-Clause */
/* The RAS client: see ras_client.h. Protocol from NCCL's src/ras/client.cc (connectToNCCL,
 * setOutputFormat, getNCCLStatus) and the command loop of src/ras/client_support.cc. */
#include "ras_client.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ras.h"
#include "util.h"

#define SLICE_MS 100

int cd_ras_split_addr(const char *addr, char **host, char **port, char **err)
{
	const char *colon;
	char *end;
	long p;

	*host = *port = NULL;
	if (!addr || !*addr) {
		*err = xstrdup("empty: expected HOST:PORT, like localhost:28028");
		return -1;
	}
	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');

		if (!rb || rb == addr + 1 || (rb[1] && rb[1] != ':')) {
			*err = xasprintf("'%s': expected [IPV6]:PORT", addr);
			return -1;
		}
		*host = xstrndup(addr + 1, (size_t)(rb - addr - 1));
		colon = rb[1] ? rb + 1 : NULL;
	} else {
		colon = strrchr(addr, ':');
		if (colon && strchr(addr, ':') != colon) {
			*err = xasprintf("'%s': an IPv6 address goes in brackets: [ADDR]:PORT", addr);
			return -1;
		}
		if (colon == addr) {
			*err = xasprintf("'%s': no host before the ':' (expected HOST:PORT)", addr);
			return -1;
		}
		*host = colon ? xstrndup(addr, (size_t)(colon - addr)) : xstrdup(addr);
	}
	for (const char *c = *host; *c; c++)
		if (!(c[0] == '.' || c[0] == '-' || c[0] == ':' || c[0] == '_' || (c[0] >= '0' && c[0] <= '9') ||
		      (c[0] >= 'a' && c[0] <= 'z') || (c[0] >= 'A' && c[0] <= 'Z')) ||
		    strlen(*host) > 253) {
			*err = xasprintf("'%s': the host is not a host name or an address", addr);
			free(*host);
			*host = NULL;
			return -1;
		}
	if (!colon) {
		*port = xasprintf("%d", CD_RAS_PORT);
		return 0;
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || p < 1 || p > 65535) {
		*err = xasprintf("'%s': the port must be a number from 1 to 65535", addr);
		free(*host);
		*host = NULL;
		return -1;
	}
	*port = xasprintf("%ld", p);
	return 0;
}

void cd_ras_reply_free(struct cd_ras_reply *r)
{
	free(r->text);
	free(r->protocol);
	free(r->format_reply);
	memset(r, 0, sizeof(*r));
}

/* Wait for fd to be ready for ev; 1 ready, -2 stopped. */
static int wait_fd(int fd, short ev)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		int n;

		if (cd_stop)
			return -2;
		n = poll(&p, 1, SLICE_MS);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return 1; /* let the read or write report it */
	}
}

static int send_line(int fd, const char *line, char **err)
{
	size_t done = 0, len = strlen(line);

	while (done < len) {
		ssize_t w;

		if (wait_fd(fd, POLLOUT) == -2)
			return -2;
		w = send(fd, line + done, len - done, MSG_NOSIGNAL);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w < 0) {
			*err = xasprintf("sending '%.*s': %s", (int)strcspn(line, "\n"), line, strerror(errno));
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

/*
 * Read until a newline (one reply line) or, with to_eof, until the server closes. Returns 0
 * with *buf; -1 on an error or a close before a line ended; -2 when stopped.
 */
static int read_reply(int fd, int to_eof, char **buf, size_t *len, const char *what, char **err)
{
	size_t cap = 4096, n = 0;
	char *b = xmalloc(cap);

	for (;;) {
		ssize_t r;

		if (!to_eof && n && b[n - 1] == '\n')
			break;
		if (wait_fd(fd, POLLIN) == -2) {
			free(b);
			return -2;
		}
		if (n + 1 >= cap) {
			if (cap >= CD_RAS_MAX_REPORT) {
				free(b);
				*err = xasprintf("the answer to %s is over %u MiB", what, CD_RAS_MAX_REPORT >> 20);
				return -1;
			}
			cap *= 2;
			b = xrealloc(b, cap);
		}
		/* a line is read byte by byte so nothing of the next answer is taken */
		r = recv(fd, b + n, to_eof ? cap - n - 1 : 1, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			free(b);
			*err = xasprintf("reading the answer to %s: %s", what, strerror(errno));
			return -1;
		}
		if (r == 0) {
			if (to_eof)
				break;
			free(b);
			*err = xasprintf("the server closed the connection before answering %s%s", what,
					 n ? " in full" : "");
			return -1;
		}
		n += (size_t)r;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

static int connect_to(const char *host, const char *port, char **err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int rc = getaddrinfo(host, port, &hints, &ai), fd = -1, saved = 0;

	if (rc) {
		*err = xasprintf("cannot resolve '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
			saved = errno;
			close(fd);
			fd = -1;
			continue;
		}
		if (wait_fd(fd, POLLOUT) == -2) {
			close(fd);
			freeaddrinfo(ai);
			return -2;
		}
		{
			int e = 0;
			socklen_t el = sizeof(e);

			getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
			if (e) {
				saved = e;
				close(fd);
				fd = -1;
			}
		}
	}
	freeaddrinfo(ai);
	if (fd < 0)
		*err = xasprintf("cannot connect to %s:%s: %s (is an NCCL 2.24 or later job running there, with "
				 "RAS on? NCCL_RAS_ADDR moves it)",
				 host, port, strerror(saved));
	return fd;
}

int cd_ras_query(const char *host, const char *port, int try_json, int ras_timeout_s, void (*step)(int),
		 struct cd_ras_reply *out, char **err)
{
	char line[64], *b = NULL;
	size_t n;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	step(CD_RAS_CONNECT);
	fd = connect_to(host, port, err);
	if (fd < 0)
		return fd;
	step(CD_RAS_PROTOCOL);
	snprintf(line, sizeof(line), "CLIENT PROTOCOL %d\n", CD_RAS_CLIENT_PROTOCOL);
	rc = send_line(fd, line, err);
	if (!rc)
		rc = read_reply(fd, 0, &b, &n, "CLIENT PROTOCOL", err);
	if (rc)
		goto out;
	if (strncasecmp(b, "SERVER PROTOCOL ", 16)) {
		*err = xasprintf("not a RAS server: it answered '%.*s' to CLIENT PROTOCOL", (int)strcspn(b, "\r\n"), b);
		rc = -1;
		goto out;
	}
	b[strcspn(b, "\r\n")] = '\0';
	out->protocol = b;
	b = NULL;
	step(CD_RAS_TIMEOUT);
	snprintf(line, sizeof(line), "TIMEOUT %d\n", ras_timeout_s);
	rc = send_line(fd, line, err);
	if (!rc)
		rc = read_reply(fd, 0, &b, &n, "TIMEOUT", err);
	if (rc)
		goto out;
	if (strcasecmp(b, "OK\n") && strcasecmp(b, "OK\r\n")) {
		*err = xasprintf("the server answered '%.*s' to '%.*s'", (int)strcspn(b, "\r\n"), b,
				 (int)strcspn(line, "\n"), line);
		rc = -1;
		goto out;
	}
	free(b);
	b = NULL;
	if (try_json) {
		step(CD_RAS_FORMAT);
		rc = send_line(fd, "SET FORMAT json\n", err);
		if (!rc)
			rc = read_reply(fd, 0, &b, &n, "SET FORMAT json", err);
		if (rc)
			goto out;
		/* 2.28.7 and later: OK; older: "ERROR: Unknown command SET FORMAT json" and text follows */
		out->json = !strcasecmp(b, "OK\n") || !strcasecmp(b, "OK\r\n");
		b[strcspn(b, "\r\n")] = '\0';
		out->format_reply = b;
		b = NULL;
	}
	step(CD_RAS_STATUS);
	rc = send_line(fd, "VERBOSE STATUS\n", err);
	if (!rc)
		rc = read_reply(fd, 1, &out->text, &out->len, "VERBOSE STATUS", err);
out:
	free(b);
	close(fd);
	if (rc)
		cd_ras_reply_free(out);
	return rc;
}
