/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "fault.h"
#include "out.h"
#include "progress.h"
#include "util.h"

/*
 * ---- output: stdout, or FILE written aside and renamed over it ----
 *
 * The document is written to an unnamed file in FILE's directory (O_TMPFILE) that gets a
 * name only once it is whole and synced: a run killed while writing (mpirun's SIGKILL a
 * second after its SIGTERM) leaves nothing behind. Where the file system cannot do that,
 * or /proc is missing, a named temporary file (mkstemp) is used, which a signal handler
 * removes, SIGKILL excepted. Either way FILE is replaced by rename(2): whole or untouched,
 * and a file replaced keeps its mode and owner (a new one gets the umask's mode).
 *
 * Only a regular file (or nothing, or a symbolic link, which is replaced, never followed)
 * is renamed over. A character device or a FIFO (/dev/null, a terminal, a named pipe) is
 * written directly: renaming over /dev/null as root made it a regular file. So is a link
 * to one, when root or this user owns the link (/dev/stdout; not a link another user
 * planted in /tmp), and a name that is this process's stdout or stderr is written there.
 * A block device or a socket is refused.
 */

struct sink {
	FILE *f;
	char *tmp;  /* the temporary name: from the start (mkstemp), or from the commit on (unnamed) */
	char *dir;
	const char *path;
	int unnamed;
	int direct;          /* written in place: a device, a FIFO, stdout or stderr */
	int keep;            /* a regular file is replaced: keep its mode and owner */
	struct stat old;     /* ... which were these */
};

enum target { T_NEW, T_REGULAR, T_DIRECT, T_STDOUT, T_STDERR };

/* Is st the file behind descriptor fd? */
static int same_file(const struct stat *st, int fd)
{
	struct stat f;

	return fstat(fd, &f) == 0 && f.st_dev == st->st_dev && f.st_ino == st->st_ino;
}

/*
 * What -o names and how it is written; -1 after the message for a name that can never be
 * written (exit 2). *old is the regular file replaced (T_REGULAR).
 */
static int classify(const char *path, enum target *t, struct stat *old)
{
	const char *base = strrchr(path, '/');
	struct stat lst, st;

	base = base ? base + 1 : path;
	if (strlen(base) > NAME_MAX)
		return cd_error("option '--output': the file name '%.40s...' is %zu bytes long: at most %d", base,
				strlen(base), NAME_MAX);
	if (strlen(path) >= PATH_MAX)
		return cd_error("option '--output': the path is %zu bytes long: at most %d", strlen(path), PATH_MAX - 1);
	*t = T_NEW;
	if (lstat(path, &lst) < 0)
		return 0; /* nothing there (or not reachable): creating the file says why it cannot */
	if (S_ISREG(lst.st_mode)) {
		*t = T_REGULAR;
		*old = lst;
		return 0;
	}
	st = lst;
	if (S_ISLNK(lst.st_mode)) {
		if (stat(path, &st) < 0)
			return 0; /* a dangling link is replaced */
		/* /dev/stdout, /dev/fd/2, …: this process's own output, whatever it is */
		if (same_file(&st, STDOUT_FILENO) || same_file(&st, STDERR_FILENO)) {
			*t = same_file(&st, STDOUT_FILENO) ? T_STDOUT : T_STDERR;
			return 0;
		}
		if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
			return 0; /* the link itself is replaced (a directory is refused when writing) */
		/* a link someone else planted is replaced, never written through */
		if (lst.st_uid != 0 && lst.st_uid != geteuid())
			return 0;
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		*t = same_file(&st, STDOUT_FILENO) ? T_STDOUT : T_DIRECT;
		return 0;
	}
	if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
		return cd_error("option '--output': '%s' is a %s: expected a file, a character device or a FIFO", path,
				S_ISBLK(st.st_mode) ? "block device" : "socket");
	return 0;
}

int cd_sink_check(const char *path)
{
	enum target t;
	struct stat old;

	if (!path || !strcmp(path, "-"))
		return 0;
	return classify(path, &t, &old);
}

/* Open a device, a FIFO or stderr to write in place. */
static int open_direct(struct sink *s, enum target t)
{
	int fd, err;

	s->direct = 1;
	if (t == T_STDOUT) {
		s->f = stdout;
		return 0;
	}
	/* a FIFO without a reader is an error now, not a wait (O_NONBLOCK), then blocking again */
	fd = t == T_STDERR ? dup(STDERR_FILENO) : open(s->path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		return cd_error("option '--output': cannot open '%s': %s", s->path,
				err == ENXIO ? "no process reads this FIFO" : strerror(err));
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	s->f = fdopen(fd, "w");
	if (!s->f) {
		err = errno;
		close(fd);
		return cd_error("option '--output': cannot open '%s': %s", s->path, strerror(err));
	}
	return 0;
}

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
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		errno = EOPNOTSUPP;
	return fd;
}

/*
 * The temporary file's name beside FILE: .NAME.XXXXXX, the shape mkstemp fills, and not
 * ending in .prom (node_exporter's textfile collector skips it). A NAME too long for that
 * (up to NAME_MAX is a valid -o) gets a short one.
 */
static char *tmp_name(const struct sink *s)
{
	const char *base = strrchr(s->path, '/');

	base = base ? base + 1 : s->path;
	if (strlen(base) + 8 > NAME_MAX)
		return xasprintf("%s/.commdiag-output.XXXXXX", s->dir);
	return xasprintf("%s/.%s.XXXXXX", s->dir, base);
}

static int sink_open(struct sink *s, const char *path)
{
	const char *base;
	char *dup;
	struct stat st;
	enum target t;
	mode_t mask;
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
	if (classify(path, &t, &s->old) < 0)
		return -1;
	if (t == T_DIRECT || t == T_STDOUT || t == T_STDERR)
		return open_direct(s, t);
	s->keep = t == T_REGULAR;
	dup = xstrdup(path);
	s->dir = xstrdup(dirname(dup));
	free(dup);
	fd = open_unnamed(s->dir);
	if (fd >= 0) {
		s->unnamed = 1;
	} else if (errno == EOPNOTSUPP) {
		s->tmp = tmp_name(s);
		pending_tmp = s->tmp; /* mkstemp fills the name in place: no window without cleanup */
		fd = mkstemp(s->tmp);
	}
	if (fd < 0) {
		err = errno;
		sink_free(s);
		return cd_error("option '--output': cannot create '%s': %s", path, strerror(err));
	}
	/* the file replaced keeps its mode and owner (a chown only root may make can fail:
	 * then it is this user's); a new file has the mode the umask leaves */
	mask = umask(0);
	umask(mask);
	if (s->keep) {
		if (fchown(fd, s->old.st_uid, s->old.st_gid) < 0 && errno != EPERM)
			cd_debug(1, "output: cannot keep the owner of '%s': %s", path, strerror(errno));
		fchmod(fd, s->old.st_mode & 07777);
	} else {
		fchmod(fd, 0666 & ~mask);
	}
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
	if (!s->path || s->f == stdout)
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
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(s->f));
	for (unsigned int i = 0;; i++) {
		char *x6;

		free(s->tmp);
		s->tmp = tmp_name(s);
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
	if (s->direct) {
		/* in place: nothing to name or rename, and a device has nothing to sync */
		if (s->f == stdout ? fflush(s->f) != 0 : fclose(s->f) != 0)
			rc = cd_error("cannot write '%s': %s", s->path, strerror(errno));
		sink_free(s);
		return rc;
	}
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
