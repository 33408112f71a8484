/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#ifdef CD_HAVE_MPI
#include <mpi.h>
#define MPI_VERSION_LEN MPI_MAX_LIBRARY_VERSION_STRING
#else
#define MPI_VERSION_LEN 1
#endif

#include "advise.h"
#include "catalog.h"
#include "conf.h"
#include "discover.h"
#include "envlint.h"
#include "explain.h"
#include "fault.h"
#include "import_nccltests.h"
#include "dist.h"
#include "out.h"
#include "probe.h"
#include "progress.h"
#include "report.h"
#include "results.h"
#include "rules.h"
#include "rules_hosts.h"
#include "score.h"

#include "cmd.h"

/*
 * ---- output: stdout, or FILE written aside and renamed over it ----
 *
 * The document is written to an unnamed file in FILE's directory (O_TMPFILE) that gets a
 * name only once it is whole and synced: a run killed while writing (mpirun's SIGKILL a
 * second after its SIGTERM) leaves nothing behind. Where the file system cannot do that,
 * or /proc is missing, a named temporary file (mkstemp) is used, which a signal handler
 * removes, SIGKILL excepted. Either way FILE is replaced by rename(2): whole or untouched.
 */

struct sink {
	FILE *f;
	char *tmp;  /* the temporary name: from the start (mkstemp), or from the commit on (unnamed) */
	char *dir;
	const char *path;
	int unnamed;
};

static void sink_free(struct sink *s)
{
	pending_tmp = NULL;
	free(s->tmp);
	free(s->dir);
	s->tmp = s->dir = NULL;
}

/* An unnamed file in dir: fd, or -1 with errno (EOPNOTSUPP: this system cannot). */
static int open_unnamed(const char *dir)
{
	int fd;

	if (access("/proc/self/fd", X_OK) < 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		errno = EOPNOTSUPP;
	return fd;
}

static int sink_open(struct sink *s, const char *path)
{
	const char *base;
	char *dup;
	struct stat st;
	int fd, err;

	memset(s, 0, sizeof(*s));
	if (!path || !strcmp(path, "-")) {
		s->f = stdout;
		return 0;
	}
	s->path = path;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!*base || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return cd_error("option '--output': '%s' is a directory: expected a file name", path);
	dup = xstrdup(path);
	s->dir = xstrdup(dirname(dup));
	free(dup);
	fd = open_unnamed(s->dir);
	if (fd >= 0) {
		s->unnamed = 1;
	} else if (errno == EOPNOTSUPP) {
		s->tmp = xasprintf("%s/.%s.XXXXXX", s->dir, base);
		pending_tmp = s->tmp; /* mkstemp fills the name in place: no window without cleanup */
		fd = mkstemp(s->tmp);
	}
	if (fd < 0) {
		err = errno;
		sink_free(s);
		return cd_error("option '--output': cannot create '%s': %s", path, strerror(err));
	}
	fchmod(fd, 0644);
	s->f = fdopen(fd, "w");
	if (!s->f) {
		err = errno;
		close(fd);
		if (s->tmp)
			unlink(s->tmp);
		sink_free(s);
		return cd_error("option '--output': cannot open '%s': %s", path, strerror(err));
	}
	return 0;
}

static void sink_abort(struct sink *s)
{
	if (!s->path)
		return;
	fclose(s->f);
	if (s->tmp)
		unlink(s->tmp);
	sink_free(s);
}

/* Give the unnamed file a temporary name next to FILE; 0, or -1 with errno. */
static int name_unnamed(struct sink *s)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(cd_now_s() * 1e9);
	const char *base = strrchr(s->path, '/');
	char proc[64];

	base = base ? base + 1 : s->path;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(s->f));
	for (unsigned int i = 0;; i++) {
		char *x6;

		free(s->tmp);
		/* the same shape as mkstemp's: .NAME.XXXXXX */
		s->tmp = xasprintf("%s/.%s.XXXXXX", s->dir, base);
		x6 = s->tmp + strlen(s->tmp) - 6;
		for (int k = 0; k < 6; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			x6[k] = alnum[(x >> 33) % (sizeof(alnum) - 1)];
		}
		pending_tmp = s->tmp; /* a stop between the link and the rename still removes it */
		if (linkat(AT_FDCWD, proc, AT_FDCWD, s->tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		pending_tmp = NULL;
		if (errno != EEXIST || i == 100) {
			/* the name is not ours: the caller must not remove it */
			int err = errno;

			free(s->tmp);
			s->tmp = NULL;
			errno = err;
			return -1;
		}
	}
}

/* Called after out_end() flushed the stream. */
static int sink_commit(struct sink *s)
{
	int rc = 0;

	if (!s->path)
		return 0;
	if (cd_fault_active("output.stall")) {
		cd_warn("test fault output.stall: the report is written, not yet committed, until the run is stopped");
		while (!cd_stop)
			pause();
	}
	if (fsync(fileno(s->f)) < 0 && errno != EINVAL)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (!rc && s->unnamed && name_unnamed(s) < 0)
		rc = cd_error("cannot write '%s': cannot name the finished file: %s", s->path, strerror(errno));
	if (fclose(s->f) != 0 && !rc)
		rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
	if (!rc && rename(s->tmp, s->path) < 0)
		rc = cd_error("cannot rename '%s' to '%s': %s", s->tmp, s->path, strerror(errno));
	if (rc && s->tmp)
		unlink(s->tmp);
	sink_free(s);
	return rc;
}

/* Render through the one emitter to stdout or -o; returns 0, EXIT_USAGE or EXIT_RUNTIME. */
int emit_report(struct ctx *c, void (*render)(struct cd_out *o, const void *arg), const void *arg)
{
	struct sink s;
	struct cd_out *o;

	cd_progress_end(); /* the report starts on a clean line */
	if (sink_open(&s, c->output) < 0)
		return EXIT_USAGE;
	o = out_new(c->format, s.f, c->color && s.f == stdout);
	render(o, arg);
	if (out_end(o) < 0) {
		sink_abort(&s);
		cd_error("cannot write the report to '%s': %s", c->output ? c->output : "stdout", strerror(errno));
		return EXIT_RUNTIME;
	}
	return sink_commit(&s) < 0 ? EXIT_RUNTIME : 0;
}
