/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decorations in front of a log line. Each recogniser reads one layer at the start of
 * the line in the exact form its tool prints it, and nothing else: a layer it does not
 * know stays on the line, where the readers' substring searches still find the text after
 * it. Forms (the source each follows):
 *   srun --label          "3: ", " 3: "         Slurm's _build_label "%*d: " (the task id padded to the
 *                                               width of the largest), "P%u %*d: " in a heterogeneous job
 *   mpirun --tag-output   "[1,0]<stderr>:"      Open MPI 4.1 orte iof_base_output.c "[%s,%s]<%s>:";
 *                         "[1,0]<stdout>: "     Open MPI 5.0 (PRRTE 3), a space after it
 *   mpirun --timestamp-output "Thu Nov 26 10:00:01 2026<stdout>:"  ctime() without its newline, then the tag
 *   torchrun --tee        "[default0]:"         torch.distributed.elastic's "[${role_name}${local_rank}]:";
 *                         "[3]:"                its docs' template for the global rank, "[${rank}]:"
 *   Ray                   "(RayTrainWorker pid=123, ip=10.0.0.1) ", "(pid=123) "
 *   kubectl logs --prefix "[pod/NAME/CONTAINER] "
 *   docker compose logs   "svc-1  | "           the name padded to the widest service
 *   timestamps            "2024-05-01 12:00:00,123 - INFO - " (Python logging's default asctime form),
 *                         "2024-05-01T12:00:00.123456789Z " (RFC 3339: kubectl/docker --timestamps),
 *                         "Nov 26 10:00:01 host prog[123]: " (syslog, RFC 3164),
 *                         "2026-11-26T10:00:01+0000 host prog[123]: " (journalctl -o short-iso)
 * PyTorch's own "[rank3]:" is the program's text, not a decoration: the watchdog reader
 * takes the global rank from it. Under the decorations, the prefix the program printed names
 * the host (cd_explain_host_prefix): NCCL's, Open MPI's, UCX's, nccl-tests'.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "explain_lines.h"

#define MAX_LAYERS 8

static size_t digits(const char *p)
{
	size_t n = 0;

	while (isdigit((unsigned char)p[n]))
		n++;
	return n;
}

/* n characters at p that are all of class ok */
static size_t run_of(const char *p, int (*ok)(int))
{
	size_t n = 0;

	while (p[n] && ok((unsigned char)p[n]))
		n++;
	return n;
}

static void note(char *stream, size_t len, const char *what, const char *p, size_t n)
{
	size_t have = strlen(stream);

	if (have + 1 < len)
		snprintf(stream + have, len - have, "%s%s%.*s", have ? " " : "", what, (int)n, p);
}

/* srun --label: the task id, ": " (a wider job pads it with spaces: " 3: "; a het job's "P1 3: ") */
static size_t srun_label(const char *p, char *stream, size_t len)
{
	size_t s = 0, n;

	if (p[0] == 'P' && (n = digits(p + 1)) && p[1 + n] == ' ')
		s = n + 2;
	s += strspn(p + s, " ");
	n = digits(p + s);
	if (!n || n > 6 || p[s + n] != ':' || p[s + n + 1] != ' ')
		return 0;
	note(stream, len, "srun ", p, s + n);
	return s + n + 2;
}

/* "<stdout>:" / "<stderr>:" / "<stddiag>:", and a space after it (PRRTE) */
static size_t stdio_tag(const char *p)
{
	static const char *const tags[] = { "<stdout>:", "<stderr>:", "<stddiag>:" };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(p, tags[i], strlen(tags[i])))
			return strlen(tags[i]) + (p[strlen(tags[i])] == ' ');
	return 0;
}

/* Open MPI's "[jobid,rank]" and its stdio tag */
static size_t ompi_tag(const char *p, char *stream, size_t len)
{
	size_t a, b, t;

	if (*p != '[' || !(a = digits(p + 1)) || p[1 + a] != ',' || !(b = digits(p + 2 + a)) || p[2 + a + b] != ']')
		return 0;
	t = stdio_tag(p + 3 + a + b);
	if (!t)
		return 0;
	note(stream, len, "mpi ", p + 1, a + 1 + b);
	return 3 + a + b + t;
}

/*
 * torchrun's tee: "[default0]:", "[trainer0|0]:", and "[3]:" of the template torch's docs give
 * for the global rank ("[${rank}]:"); never c10's "[rank0]:"
 */
static size_t tee_tag(const char *p, char *stream, size_t len)
{
	size_t n = 1;

	if (*p != '[' || !isalnum((unsigned char)p[1]) || !strncmp(p + 1, "rank", 4))
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '-' || p[n] == '|')
		n++;
	if (p[n] != ']' || p[n + 1] != ':' || !isdigit((unsigned char)p[n - 1]))
		return 0;
	note(stream, len, "tee ", p + 1, n - 1);
	return n + 2 + (p[n + 2] == ' ');
}

/* Ray's "(ActorName pid=123, ip=10.0.0.1) " or "(pid=123) " */
static size_t ray_tag(const char *p, char *stream, size_t len)
{
	const char *q = p + 1, *e;

	if (*p != '(')
		return 0;
	q += run_of(q, cd_explain_hostchar);
	if (*q == ' ')
		q++;
	if (strncmp(q, "pid=", 4) || !digits(q + 4))
		return 0;
	e = strchr(q, ')');
	if (!e || e[1] != ' ' || memchr(q, '(', (size_t)(e - q)))
		return 0;
	note(stream, len, "ray ", p + 1, (size_t)(e - p - 1));
	return (size_t)(e - p) + 2;
}

/* kubectl logs --prefix: "[pod/NAME/CONTAINER] " */
static size_t kubectl_tag(const char *p, char *stream, size_t len)
{
	const char *e;

	if (strncmp(p, "[pod/", 5) || !(e = strchr(p, ']')) || e[1] != ' ' || memchr(p, ' ', (size_t)(e - p)))
		return 0;
	note(stream, len, "", p + 1, (size_t)(e - p - 1));
	return (size_t)(e - p) + 2;
}

/* docker compose: "svc-1  | " */
static size_t compose_tag(const char *p, char *stream, size_t len)
{
	size_t n = isalpha((unsigned char)*p) ? run_of(p, cd_explain_hostchar) : 0, s;

	if (!n)
		return 0;
	s = strspn(p + n, " ");
	if (!s || p[n + s] != '|' || p[n + s + 1] != ' ')
		return 0;
	note(stream, len, "service ", p, n);
	return n + s + 2;
}

/* "2024-05-01 12:00:00", "2024-05-01T12:00:00.123Z", "…+0000", "…+00:00": the length */
static size_t iso_time(const char *p)
{
	static const char form[] = "dddd-dd-dd?dd:dd:dd";
	size_t n = 0;

	for (; form[n]; n++)
		if (form[n] == 'd' ? !isdigit((unsigned char)p[n]) : form[n] == '?' ? p[n] != 'T' && p[n] != ' ' : p[n] != form[n])
			return 0;
	if ((p[n] == '.' || p[n] == ',') && digits(p + n + 1))
		n += 1 + digits(p + n + 1);
	if (p[n] == 'Z') {
		n++;
	} else if ((p[n] == '+' || p[n] == '-') && digits(p + n + 1) == 4) {
		n += 5;
	} else if ((p[n] == '+' || p[n] == '-') && digits(p + n + 1) == 2 && p[n + 3] == ':' && digits(p + n + 4) == 2) {
		n += 6;
	}
	return n;
}

/* syslog's "Nov 26 10:00:01" and ctime's "Thu Nov 26 10:00:01 2026" */
static int month(const char *p)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	for (size_t i = 0; i + 3 <= sizeof(months) - 1; i += 3)
		if (!strncmp(p, months + i, 3))
			return 1;
	return 0;
}

static size_t clock_at(const char *p)
{
	return digits(p) == 2 && p[2] == ':' && digits(p + 3) == 2 && p[5] == ':' && digits(p + 6) == 2 ? 8 : 0;
}

/* "Nov 26 10:00:01" (the day padded with a space: "Nov  6") */
static size_t syslog_time(const char *p)
{
	if (!month(p) || p[3] != ' ' || !(p[4] == ' ' || isdigit((unsigned char)p[4])) || !isdigit((unsigned char)p[5]) ||
	    p[6] != ' ' || !clock_at(p + 7))
		return 0;
	return 15;
}

/* ctime: "Thu Nov 26 10:00:01 2026" */
static size_t ctime_time(const char *p)
{
	if (!isupper((unsigned char)p[0]) || !islower((unsigned char)p[1]) || !islower((unsigned char)p[2]) || p[3] != ' ')
		return 0;
	if (!syslog_time(p + 4) || p[19] != ' ' || digits(p + 20) != 4)
		return 0;
	return 24;
}

/*
 * after syslog's or journald's time: "host prog[123]: "; the pid may be missing after syslog's
 * own time ("host kernel: "), never after an ISO time, where "WARN NET/IB: …" is the program's
 */
static size_t syslog_source(const char *p, char *stream, size_t len, int need_pid)
{
	size_t h = run_of(p, cd_explain_hostchar), t, n;

	if (!h || p[h] != ' ')
		return 0;
	t = h + 1;
	n = t;
	while (p[n] && (cd_explain_hostchar((unsigned char)p[n]) || p[n] == '@'))
		n++;
	if (n == t)
		return 0;
	if (p[n] == '[' && digits(p + n + 1) && p[n + 1 + digits(p + n + 1)] == ']')
		n += 2 + digits(p + n + 1);
	else if (need_pid)
		return 0;
	if (p[n] != ':' || p[n + 1] != ' ')
		return 0;
	note(stream, len, "syslog ", p, n);
	return n + 2;
}

/* Python logging's " - LEVEL - " after its time */
static size_t python_level(const char *p)
{
	size_t n;

	if (strncmp(p, "- ", 2))
		return 0;
	for (n = 2; isupper((unsigned char)p[n]); n++)
		;
	return n > 2 && !strncmp(p + n, " - ", 3) ? n + 3 : 0;
}

/* One timestamp layer and what follows it only after a time: the level or the syslog source. */
static size_t time_layer(const char *p, char *stream, size_t len)
{
	size_t n = ctime_time(p), m;
	int iso = 0;

	if (n) /* mpirun --timestamp-output: the tag follows the time at once */
		return n;
	if (!(n = syslog_time(p)) && !(iso = (n = iso_time(p)) != 0))
		return 0;
	if (p[n] != ' ')
		return 0;
	n += strspn(p + n, " ");
	if ((m = python_level(p + n)) || (m = syslog_source(p + n, stream, len, iso)))
		n += m;
	return n;
}

size_t cd_explain_decorations(const char *line, char *stream, size_t len)
{
	size_t at = 0;

	if (len)
		*stream = '\0';
	for (int layer = 0; layer < MAX_LAYERS; layer++) {
		const char *p = line + at;
		size_t n;

		if (!(n = time_layer(p, stream, len)) && !(n = srun_label(p, stream, len)) && !(n = ompi_tag(p, stream, len)) &&
		    !(n = stdio_tag(p)) && !(n = tee_tag(p, stream, len)) && !(n = ray_tag(p, stream, len)) &&
		    !(n = kubectl_tag(p, stream, len)) && !(n = compose_tag(p, stream, len)))
			break;
		at += n;
	}
	return at;
}

/* ---- the host a line's program prefix names ---- */

int cd_explain_hostchar(int c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_';
}

int cd_explain_addrchar(int c)
{
	return isxdigit(c) || c == '.' || c == ':';
}

size_t cd_explain_token(const char *p, int (*ok)(int), char *buf, size_t len)
{
	size_t n = 0;

	while (p && p[n] && ok((unsigned char)p[n]) && n + 1 < len) {
		buf[n] = p[n];
		n++;
	}
	buf[n] = '\0';
	return n;
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* NCCL's "host:pid:tid [" prefix, anywhere in the line (after mpirun or Ray decorations). */
static int nccl_prefix_host(const char *line, char *host, size_t len)
{
	for (const char *p = line; *p; p++) {
		const char *q = p + 1, *start;
		size_t n;

		if (*p != ':' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q != ':' || !isdigit((unsigned char)q[1]))
			continue;
		q++;
		while (isdigit((unsigned char)*q))
			q++;
		/* "[3]": the CUDA device; "12:03:44 [INFO]" is a clock, not a host */
		if (q[0] != ' ' || q[1] != '[' || !isdigit((unsigned char)q[2]))
			continue;
		start = p;
		while (start > line && cd_explain_hostchar((unsigned char)start[-1]))
			start--;
		n = (size_t)(p - start);
		if (!n || n >= len || all_digits(start, n))
			continue;
		memcpy(host, start, n);
		host[n] = '\0';
		return 1;
	}
	return 0;
}

/*
 * Open MPI: "[host:pid]" or "[host][[job,vpid],rank][file.c:…]"; UCX: "[host:pid:thread]". A tqdm bar's "[00:29<01:10,"
 * or a clock's "[12:03:44]" has digits only before the colon: no host is all digits here.
 */
static int bracket_host(const char *p, char *host, size_t len)
{
	const char *q;
	size_t n = cd_explain_token(p + 1, cd_explain_hostchar, host, len);

	if (!n || n + 1 >= len || all_digits(host, n))
		return 0;
	if (p[1 + n] != ':')
		return p[1 + n] == ']' && p[2 + n] == '[' && p[3 + n] == '[';
	for (q = p + 2 + n; isdigit((unsigned char)*q); q++)
		;
	if (q == p + 2 + n)
		return 0;
	if (*q == ':' && isdigit((unsigned char)q[1])) /* UCX: "[host:pid:thread]" */
		for (q++; isdigit((unsigned char)*q); q++)
			;
	return *q == ']';
}

/* The prefix is among the first brackets (UCX puts a time stamp in front of it). */
static int ompi_prefix_host(const char *line, char *host, size_t len)
{
	for (const char *p = strchr(line, '['); p && p - line < 64; p = strchr(p + 1, '['))
		if (bracket_host(p, host, len))
			return 1;
	return 0;
}

/*
 * nccl-tests: "host: Test NCCL failure …" and "host pid N: Test failure", the host word right
 * before it (at the start of the line, or after a blank or a launcher's tag: pdsh's "node: ",
 * a tab).
 */
static int tests_prefix_host(const char *line, char *host, size_t len)
{
	const char *t = strstr(line, ": Test ");
	const char *s = t;
	size_t n;

	if (!t)
		return 0;
	while (s > line && cd_explain_hostchar((unsigned char)s[-1]))
		s--;
	if (s < t && all_digits(s, (size_t)(t - s)) && s - line >= 6 && !strncmp(s - 5, " pid ", 5))
		for (t = s - 5, s = t; s > line && cd_explain_hostchar((unsigned char)s[-1]);)
			s--;
	if (s > line && !strchr(" \t]>:", s[-1]))
		return 0;
	n = (size_t)(t - s);
	if (!n || n >= len || all_digits(s, n))
		return 0;
	memcpy(host, s, n);
	host[n] = '\0';
	return 1;
}

int cd_explain_host_prefix(const char *line, char *host, size_t len)
{
	char found[128];

	/* the readers leave a rejected token in their buffer: only a host found is copied */
	if (!nccl_prefix_host(line, found, sizeof(found)) && !ompi_prefix_host(line, found, sizeof(found)) &&
	    !tests_prefix_host(line, found, sizeof(found)))
		return 0;
	snprintf(host, len, "%s", found);
	return 1;
}
