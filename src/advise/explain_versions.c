/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a log shows of versions, architectures and drivers, per host, and the verdicts from
 * comparing it with the version table (explain_versions_table.c): an architecture a build has
 * no kernels for, a driver older than a build needs, versions that differ between ranks.
 * Every pattern is a substring search on one bounded line, so no input can make it read
 * outside the line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "explain_versions.h"

#define MAX_HOSTS 256
#define EV 240

static void nccl_str(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

static void cuda_str(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
}

/* ---- what a log shows, per host ---- */

struct vhost {
	char name[128];
	int unprefixed;                /* the lines without a host prefix: their facts are every host's */
	int nccl, nccl_cuda;           /* "NCCL version 2.21.5+cuda12.4" */
	char ev_nccl[EV];
	int api, api2;                 /* NCCL's "cudaDriverVersion 12040"; a second, different one */
	char ev_api[EV];
	int smi_cuda;                  /* nvidia-smi's "CUDA Version: 12.2" (what the driver supports) */
	char driver[32], driver2[32];  /* nvidia-smi's "Driver Version:", collect_env's "Nvidia driver version:" */
	char ev_driver[EV];
	int torch_cuda;                /* "CUDA used to build PyTorch: 12.4", "PyTorch version: 2.5.1+cu124" */
	char ev_torch[EV];
	int sm[8], n_sm;               /* the GPUs' architectures */
	char ev_sm[EV];
	int torch_sm[24], n_torch_sm;  /* "The current PyTorch install supports CUDA capabilities sm_50 …" */
	int torch_ptx;                 /* its compute_NN, 0 when none */
	char ev_torch_sm[EV];
	char ev_noimage[EV];           /* CUDA's "no kernel image is available for execution on the device" */
	char ev_torch_old[EV];         /* PyTorch: "The NVIDIA driver on your system is too old (found version 12040)" */
};

struct cd_vers_log {
	struct vhost *h;
	size_t n, cap;
};

struct cd_vers_log *cd_vers_log_new(void)
{
	return xcalloc(1, sizeof(struct cd_vers_log));
}

void cd_vers_log_free(struct cd_vers_log *l)
{
	if (l)
		free(l->h);
	free(l);
}

static struct vhost *vhost(struct cd_vers_log *l, const char *name, int unprefixed)
{
	struct vhost *h;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->h[i].name, name))
			return &l->h[i];
	if (l->n >= MAX_HOSTS)
		return &l->h[0];
	h = CD_PUSH(l->h, l->n, l->cap);
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->unprefixed = unprefixed;
	return h;
}

static void keep(char *ev, const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*ev)
		snprintf(ev, EV, "%s", line);
}

/* After pat in line: skip blanks, one ':' or '=', blanks. NULL when pat is absent or no separator follows. */
static const char *value_after(const char *line, const char *pat, int need_sep)
{
	const char *p = strstr(line, pat);
	int sep = 0;

	if (!p)
		return NULL;
	p += strlen(pat);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == ':' || *p == '=') {
		sep = 1;
		p++;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	return sep || !need_sep ? p : NULL;
}

/* "+cu124" → 12040 (PyTorch's wheel tag: major is two digits, the rest the minor). */
static int cu_tag(const char *s)
{
	const char *p = strstr(s, "+cu");
	int n = 0;

	if (!p)
		return -1;
	p += 3;
	while (isdigit((unsigned char)p[n]))
		n++;
	if (n < 3 || n > 4)
		return -1;
	return ((p[0] - '0') * 10 + (p[1] - '0')) * 1000 + atoi(p + 2) % 100 * 10;
}

static void add_sm(struct vhost *h, int sm, const char *line)
{
	if (sm < 10 || sm > 999)
		return;
	for (int i = 0; i < h->n_sm; i++)
		if (h->sm[i] == sm)
			return;
	if (h->n_sm < 8)
		h->sm[h->n_sm++] = sm;
	keep(h->ev_sm, line);
}

/* "sm_120" or "12.0" at p → 120; -1 otherwise. */
static int arch_at(const char *p)
{
	int c;

	if (!strncmp(p, "sm_", 3) && isdigit((unsigned char)p[3]))
		return atoi(p + 3);
	c = cd_vers_cuda_code(p, NULL);
	return c < 0 ? -1 : c / 1000 * 10 + c % 1000 / 10;
}

static int torch_arch_list(struct vhost *h, const char *p, const char *line)
{
	int any = 0;

	h->n_torch_sm = 0;
	h->torch_ptx = 0;
	for (; *p; p++) {
		if (!strncmp(p, "sm_", 3) && isdigit((unsigned char)p[3])) {
			if (h->n_torch_sm < 24)
				h->torch_sm[h->n_torch_sm++] = atoi(p + 3);
			any = 1;
		} else if (!strncmp(p, "compute_", 8) && isdigit((unsigned char)p[8])) {
			int v = atoi(p + 8);

			if (!h->torch_ptx || v < h->torch_ptx)
				h->torch_ptx = v;
			any = 1;
		}
	}
	if (any)
		snprintf(h->ev_torch_sm, EV, "%s", line);
	return any;
}

/* The driver's CUDA API number (cudaDriverGetVersion: 12040) a line gave: the first, and a second
 * that differs. 0 when it is no such number. */
static int set_api(struct vhost *h, int v, const char *line)
{
	if (v < 1000 || v > 99990)
		return 0;
	if (!h->api) {
		h->api = v;
		keep(h->ev_api, line);
	} else if (v != h->api && !h->api2) {
		h->api2 = v;
	}
	return 1;
}

static void set_driver(struct vhost *h, const char *p, const char *line)
{
	size_t n = strspn(p, "0123456789.");
	char buf[32];

	while (n && p[n - 1] == '.')
		n--;
	if (n >= sizeof(buf) || !cd_vers_driver_ok(p, n))
		return;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (!*h->driver) {
		snprintf(h->driver, sizeof(h->driver), "%s", buf);
		keep(h->ev_driver, line);
	} else if (strcmp(h->driver, buf) && !*h->driver2) {
		snprintf(h->driver2, sizeof(h->driver2), "%s", buf);
	}
}

/* nvidia-smi -q's "    CUDA Version                : 12.2": the key alone on its line, blanks before the colon */
static int smi_q_line(const char *line, const char *key)
{
	size_t n = strlen(key);

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, key, n) || (line[n] != ' ' && line[n] != '\t'))
		return 0;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == ':';
}

int cd_vers_log_line(struct cd_vers_log *l, const char *host, int unprefixed, const char *line)
{
	struct vhost *h = vhost(l, host && *host ? host : "log", unprefixed);
	const char *p;
	int seen = 0, v;

	if ((p = strstr(line, "NCCL version ")) && (v = cd_vers_nccl_code(p + 13, &p)) > 0) {
		/* NCCL_SUFFIX may sit between the release and "+cuda" */
		const char *c = strstr(p, "+cuda");
		const char *sp = strchr(p, ' ');
		int cuda = c && (!sp || c < sp) ? cd_vers_cuda_code(c + 5, NULL) : -1;

		if (!h->nccl || (cuda > 0 && h->nccl_cuda <= 0)) {
			h->nccl = v;
			h->nccl_cuda = cuda;
			h->ev_nccl[0] = '\0';
			keep(h->ev_nccl, line);
		}
		seen = 1;
	}
	/* torch/cuda/__init__.py: the driver refused PyTorch's CUDA runtime; the number is cudaDriverGetVersion()'s */
	if ((p = strstr(line, "driver on your system is too old (found version ")) && isdigit((unsigned char)p[48])) {
		v = atoi(p + 48);
		if (v >= 1000 && v <= 99990 && !h->api) {
			h->api = v;
			keep(h->ev_api, line);
		}
		keep(h->ev_torch_old, line);
		seen = 1;
	}
	if ((p = strstr(line, "cudaDriverVersion ")) && isdigit((unsigned char)p[18]))
		seen |= set_api(h, atoi(p + 18), line);
	/* nvidia-smi's header "| NVIDIA-SMI 535.104.05  Driver Version: 535.104.05  CUDA Version: 12.2 |",
	 * or -q's "Driver Version : 535.104.05" and "CUDA Version : 12.2"; but nvbandwidth's "CUDA Driver
	 * Version: 12080" is cudaDriverGetVersion()'s API number, not the NVIDIA driver's release (its
	 * next line, "Driver Version: 570.124.06") */
	if ((p = value_after(line, "CUDA Driver Version", 1))) {
		set_api(h, strchr(p, '.') ? cd_vers_cuda_code(p, NULL) : isdigit((unsigned char)*p) ? atoi(p) : 0, line);
		seen = 1;
	} else if ((p = value_after(line, "Driver Version", 1))) {
		set_driver(h, p, line);
		seen = 1;
	}
	if ((p = value_after(line, "Nvidia driver version", 1))) {
		set_driver(h, p, line);
		seen = 1;
	}
	if ((strstr(line, "Driver Version") || smi_q_line(line, "CUDA Version")) && (p = value_after(line, "CUDA Version", 1)) &&
	    (v = cd_vers_cuda_code(p, NULL)) > 0) {
		h->smi_cuda = v;
		seen = 1;
	}
	if ((p = value_after(line, "CUDA used to build PyTorch", 1)) && (v = cd_vers_cuda_code(p, NULL)) > 0) {
		h->torch_cuda = v;
		keep(h->ev_torch, line);
		seen = 1;
	}
	if ((strstr(line, "PyTorch version") || strstr(line, "torch.__version__")) && (v = cu_tag(line)) > 0) {
		h->torch_cuda = v;
		keep(h->ev_torch, line);
		seen = 1;
	}
	/* PyTorch: "... with CUDA capability sm_120 is not compatible with the current PyTorch installation."
	 * and "The current PyTorch install supports CUDA capabilities sm_50 sm_60 ... sm_90." */
	if ((p = strstr(line, "supports CUDA capabilities ")))
		seen |= torch_arch_list(h, p + 27, line);
	else if ((p = strcasestr(line, "capability")) && strncasecmp(p, "capabilities", 12)) {
		p += 10;
		if (!strncmp(p, " Major/Minor version number", 27))
			p += 27;
		while (*p == ' ' || *p == ':' || *p == '=')
			p++;
		if ((v = arch_at(p)) > 0) {
			add_sm(h, v, line);
			seen = 1;
		}
	}
	if (strstr(line, "no kernel image is available")) {
		keep(h->ev_noimage, line);
		seen = 1;
	}
	/* NCCL 2.26+ src/enqueue.cc WARN("cudaArch %d ncclMaxSharedMem %d exceeds ..."): cudaArch is
	 * 100*major + 10*minor of the device (src/init.cc) */
	if ((p = strstr(line, "cudaArch ")) && isdigit((unsigned char)p[9]) && strstr(p, " ncclMaxSharedMem ")) {
		v = atoi(p + 9);
		if (v % 10 == 0) {
			add_sm(h, v / 10, line);
			seen = 1;
		}
	}
	/* NCCL's topology dump: <gpu dev="0" sm="90" rank="0" gdr="1"> */
	if (strstr(line, "<gpu ") && (p = strstr(line, " sm=\"")) && isdigit((unsigned char)p[5])) {
		add_sm(h, atoi(p + 5), line);
		seen = 1;
	}
	return seen;
}

/* ---- verdicts ---- */

static struct cd_vers_verdict *verdict(struct cd_vers_verdict *out, size_t *n, size_t max, const char *id,
				       enum cd_severity sev, const char *host, const char *subject)
{
	struct cd_vers_verdict *v;

	if (*n >= max)
		return NULL;
	v = &out[(*n)++];
	memset(v, 0, sizeof(*v));
	v->id = id;
	v->sev = sev;
	snprintf(v->host, sizeof(v->host), "%s", host);
	snprintf(v->subject, sizeof(v->subject), "%s", subject);
	return v;
}

static void evidence(struct cd_vers_verdict *v, const char *fmt, const char *a)
{
	if (v && a && *a && v->n_evidence < 4)
		snprintf(v->evidence[v->n_evidence++], sizeof(v->evidence[0]), fmt, a);
}

static void row_evidence(struct cd_vers_verdict *v, const struct cd_vers_db *db, const struct cd_vers_row *r)
{
	char line[EV];

	if (!v || !r || v->n_evidence >= 4)
		return;
	snprintf(line, sizeof(line), "%s:%d: %s", db->name, r->line, r->source);
	evidence(v, "%s", line);
}

static void list_sm(const int *sm, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%ssm_%d", i ? " " : "", sm[i]);
}

/* The fix for an architecture a build cannot run: the release that added it, or the last that kept it. */
static void arch_fix(struct cd_vers_verdict *v, const struct cd_vers_db *db, int sm, int newer)
{
	const struct cd_vers_row *r = newer ? cd_vers_first_for(db, sm) : cd_vers_last_for(db, sm);
	char a[16], c[16], c2[16];

	if (!r) {
		snprintf(v->fix, sizeof(v->fix), "no NCCL release in %s builds machine code for sm_%d: build NCCL from "
			 "source with NVCC_GENCODE=\"-gencode=arch=compute_%d,code=sm_%d\"", db->name, sm, sm, sm);
		return;
	}
	nccl_str(newer ? r->first : r->last, a, sizeof(a));
	cuda_str(r->cuda_from, c, sizeof(c));
	if (newer) {
		snprintf(v->fix, sizeof(v->fix), "upgrade NCCL to %s or later, built with CUDA %s or later (its build has "
			 "sm_%d machine code): pip install -U nvidia-nccl-cu%d, or a framework built with it", a, c, sm,
			 r->cuda_from / 1000);
	} else if (r->cuda_below > 0) {
		cuda_str(r->cuda_below, c2, sizeof(c2));
		snprintf(v->fix, sizeof(v->fix), "use an NCCL built with CUDA %s up to before %s (NCCL up to %s builds "
			 "sm_%d there)", c, c2, a, sm);
	} else {
		snprintf(v->fix, sizeof(v->fix), "use NCCL %s built with CUDA %s or later (it builds sm_%d)", a, c, sm);
	}
	snprintf(v->path, sizeof(v->path), "version table %s:%d: nccl-build", db->name, r->line);
}

static int newest_sm(const struct cd_vers_row *b)
{
	int m = 0;

	for (int i = 0; i < b->n_sm; i++)
		m = b->sm[i] > m ? b->sm[i] : m;
	return m;
}

/* Does PyTorch's list ("sm_50 … sm_90", "compute_37") run on sm? */
static int torch_runs(const struct vhost *h, int sm)
{
	if (h->torch_ptx && h->torch_ptx <= sm)
		return 1;
	for (int k = 0; k < h->n_torch_sm; k++)
		if (cd_vers_sass_runs(h->torch_sm[k], sm))
			return 1;
	return 0;
}

static void judge_arch(const struct vhost *h, const struct cd_vers_db *db, struct cd_vers_verdict *out, size_t *n,
		       size_t max)
{
	char ns[16], cs[16], list[160], subj[48];

	nccl_str(h->nccl, ns, sizeof(ns));
	for (int i = 0; i < h->n_sm; i++) {
		int sm = h->sm[i], runs = -1, newer = 1;
		const struct cd_vers_row *b = NULL, *first;
		struct cd_vers_verdict *v;

		if (h->nccl && h->nccl_cuda > 0 && (b = cd_vers_build(db, h->nccl, h->nccl_cuda))) {
			runs = cd_vers_runs_on(b, sm);
			newer = sm > newest_sm(b);
		} else if (h->nccl) {
			/* the build's CUDA not shown: only when no build of this release has machine code for it */
			int covered = 0, known = 0, ptx = 0;

			for (size_t k = 0; k < db->n; k++) {
				const struct cd_vers_row *r = &db->v[k];

				if (r->kind != CD_VERS_BUILD || r->first > h->nccl || h->nccl > r->last)
					continue;
				known = 1;
				covered |= cd_vers_runs_on(r, sm) == 2;
				ptx |= cd_vers_runs_on(r, sm) == 1;
				newer = sm > newest_sm(r);
			}
			if (known && !covered)
				runs = ptx ? 1 : 0;
		}
		/* PyTorch's own kernels, when it listed them: they run first, so their fix comes first */
		if (h->n_torch_sm && !torch_runs(h, sm)) {
			snprintf(subj, sizeof(subj), "pytorch sm_%d", sm);
			v = verdict(out, n, max, "LOG024", CD_SEV_FAIL, h->name, subj);
			if (!v)
				return;
			list_sm(h->torch_sm, h->n_torch_sm, list, sizeof(list));
			snprintf(v->title, sizeof(v->title), "this PyTorch build has no kernels for the GPU's sm_%d (it has %.120s)",
				 sm, list);
			evidence(v, "%s", h->ev_sm);
			evidence(v, "%s", h->ev_torch_sm);
			evidence(v, "%s", h->ev_torch);
			first = cd_vers_first_for(db, sm);
			if (first) {
				cuda_str(first->cuda_from, cs, sizeof(cs));
				snprintf(v->fix, sizeof(v->fix), "install a PyTorch build made with CUDA %s or later whose "
					 "torch.cuda.get_arch_list() includes sm_%d (NCCL's makefiles build sm_%d from CUDA %s on)",
					 cs, sm, sm, cs);
				row_evidence(v, db, first);
				snprintf(v->path, sizeof(v->path), "version table %s:%d: nccl-build", db->name, first->line);
			} else {
				snprintf(v->fix, sizeof(v->fix), "install a PyTorch build whose torch.cuda.get_arch_list() "
					 "includes sm_%d", sm);
			}
			snprintf(v->why, sizeof(v->why), "PyTorch said so itself: its kernels were not compiled for this "
				 "GPU, so the first CUDA operation fails ('no kernel image is available')");
		}
		if (runs == 0 || runs == 1) {
			/* PTX alone may still run (JIT); a kernel-image failure in the log says it did not */
			snprintf(subj, sizeof(subj), "nccl sm_%d", sm);
			v = verdict(out, n, max, "LOG024", runs && !h->ev_noimage[0] ? CD_SEV_WARN : CD_SEV_FAIL, h->name,
				    subj);
			if (!v)
				return;
			if (h->nccl_cuda > 0) {
				cuda_str(h->nccl_cuda, cs, sizeof(cs));
				snprintf(v->title, sizeof(v->title), "NCCL %s built with CUDA %s has %s for the GPU's sm_%d", ns,
					 cs, runs ? "only PTX, no machine code," : "no kernels", sm);
			} else {
				snprintf(v->title, sizeof(v->title), "no build of NCCL %s has %s for the GPU's sm_%d", ns,
					 runs ? "machine code (only PTX)" : "kernels", sm);
			}
			evidence(v, "%s", h->ev_nccl);
			evidence(v, "%s", h->ev_sm);
			evidence(v, "%s", h->ev_noimage);
			if (b && v->n_evidence < 4) {
				list_sm(b->sm, b->n_sm, list, sizeof(list));
				snprintf(v->evidence[v->n_evidence++], sizeof(v->evidence[0]),
					 "%s:%d: that build targets %s and PTX compute_%d; %s", db->name, b->line, list, b->ptx,
					 b->source);
			}
			arch_fix(v, db, sm, newer);
			snprintf(v->why, sizeof(v->why), "%s", runs ? "the driver must JIT-compile NCCL's kernels from PTX for "
				 "this GPU: slow first use and no tuning for it; a release built for it avoids both"
				 : "NCCL's kernels cannot run on an architecture its build has neither machine code nor "
				 "usable PTX for: the first collective fails ('no kernel image is available')");
		}
	}
}

static void judge_driver(const struct vhost *h, const struct cd_vers_db *db, struct cd_vers_verdict *out, size_t *n,
			 size_t max)
{
	int build = h->nccl_cuda > 0 ? h->nccl_cuda : h->torch_cuda;
	int api = h->api ? h->api : h->smi_cuda;
	const char *who = h->nccl_cuda > 0 ? "NCCL" : "PyTorch";
	const struct cd_vers_row *need = h->nccl ? cd_vers_nccl_driver(db, h->nccl, "init") : NULL;
	const struct cd_vers_row *cd = build > 0 ? cd_vers_cuda_driver(db, build / 1000) : NULL;
	struct cd_vers_verdict *v;
	char a[16], b[16], ns[16];
	int by_api;

	if (api > 0 && need && api < need->min_api) {
		/*
		 * A warning, not a cause: every NCCL tag read (v2.18.1 ... v2.30.7) calls
		 * (void)ncclCudaLibraryInit() in init.cc and carries on when it fails; the
		 * collectives run on the runtime API, only what needs the driver's entry points
		 * (cuMem, NVLS, DMA-BUF registration) is off (NVIDIA/nccl#1000 worked on a CUDA
		 * 11.2 driver with NCCL 2.18.5 once its interface was set).
		 */
		v = verdict(out, n, max, "LOG024", CD_SEV_WARN, h->name, "cuda driver");
		if (!v)
			return;
		cuda_str(api, a, sizeof(a));
		cuda_str(need->min_api, b, sizeof(b));
		nccl_str(h->nccl, ns, sizeof(ns));
		snprintf(v->title, sizeof(v->title), "the CUDA driver (CUDA %s) is older than NCCL %s needs (%s)", a, ns, b);
		evidence(v, "%s", h->ev_api[0] ? h->ev_api : h->ev_driver);
		evidence(v, "%s", h->ev_nccl);
		row_evidence(v, db, need);
		snprintf(v->fix, sizeof(v->fix), "upgrade the NVIDIA driver to one whose CUDA version (nvidia-smi) is %s "
			 "or later for NCCL's driver-API features; by itself this does not stop NCCL", b);
		snprintf(v->why, sizeof(v->why), "below it NCCL's CUDA driver-API setup fails without a warning of its own "
			 "and NCCL carries on without cuMem, NVLS and DMA-BUF registration");
		snprintf(v->path, sizeof(v->path), "version table %s:%d: nccl-driver", db->name, need->line);
		return;
	}
	if (build <= 0 && h->ev_torch_old[0] && api > 0) {
		/* PyTorch said so; the table gives the driver a runtime one major release newer needs */
		v = verdict(out, n, max, "LOG024", CD_SEV_FAIL, h->name, "cuda driver");
		if (!v)
			return;
		cuda_str(api, a, sizeof(a));
		cd = cd_vers_cuda_driver(db, api / 1000 + 1);
		snprintf(v->title, sizeof(v->title), "the NVIDIA driver (CUDA %s) is too old for PyTorch's CUDA runtime", a);
		evidence(v, "%s", h->ev_torch_old);
		evidence(v, "%s", h->ev_driver);
		row_evidence(v, db, cd);
		if (cd)
			snprintf(v->fix, sizeof(v->fix), "install the PyTorch build for the CUDA the driver supports (CUDA %s or "
				 "older: torch.version.cuda must not be newer), or upgrade the NVIDIA driver (CUDA %d.x needs %s or "
				 "later)", a, cd->major, cd->min_driver);
		else
			snprintf(v->fix, sizeof(v->fix), "install the PyTorch build for the CUDA the driver supports (CUDA %s "
				 "or older), or upgrade the NVIDIA driver", a);
		snprintf(v->why, sizeof(v->why), "PyTorch's CUDA runtime is newer than the driver supports: CUDA refused "
			 "to start (cudaErrorInsufficientDriver)");
		if (cd)
			snprintf(v->path, sizeof(v->path), "version table %s:%d: cuda-driver", db->name, cd->line);
		return;
	}
	if (build <= 0)
		return;
	cuda_str(build, b, sizeof(b));
	by_api = api > 0 && api / 1000 < build / 1000;
	if (by_api || (cd && *h->driver && cd_vers_driver_cmp(h->driver, cd->min_driver) < 0)) {
		v = verdict(out, n, max, "LOG024", CD_SEV_FAIL, h->name, "cuda driver");
		if (!v)
			return;
		if (by_api) {
			cuda_str(api, a, sizeof(a));
			snprintf(v->title, sizeof(v->title), "the NVIDIA driver supports CUDA %s; %s was built with CUDA %s, "
				 "which needs a CUDA %d driver", a, who, b, build / 1000);
		} else {
			snprintf(v->title, sizeof(v->title), "NVIDIA driver %s is older than CUDA %d.x needs (%s); %s was "
				 "built with CUDA %s", h->driver, build / 1000, cd->min_driver, who, b);
		}
		evidence(v, "%s", by_api && h->ev_api[0] ? h->ev_api : h->ev_driver);
		evidence(v, "%s", h->nccl_cuda > 0 ? h->ev_nccl : h->ev_torch);
		if (cd) {
			row_evidence(v, db, cd);
			snprintf(v->fix, sizeof(v->fix), "upgrade the NVIDIA driver to %s or later (the minimum for CUDA %d.x), "
				 "or use a build of %s for the CUDA the driver supports", cd->min_driver, build / 1000, who);
			snprintf(v->path, sizeof(v->path), "version table %s:%d: cuda-driver", db->name, cd->line);
		} else {
			snprintf(v->fix, sizeof(v->fix), "upgrade the NVIDIA driver to one for CUDA %d.x, or use a build of %s "
				 "for the CUDA the driver supports", build / 1000, who);
		}
		snprintf(v->why, sizeof(v->why), "a CUDA runtime runs only on a driver of its major release or later "
			 "(minor version compatibility); an older one refuses it (cudaErrorInsufficientDriver)");
	}
}

/* One fact that differs between hosts, or between ranks of one host. */
static void skew(const struct cd_vers_log *l, struct cd_vers_verdict *out, size_t *n, size_t max, const char *subject,
		 const char *(*get)(const struct vhost *, char *, int))
{
	const struct vhost *base = NULL;
	char x[32], y[32];

	for (size_t i = 0; i < l->n; i++) {
		const struct vhost *h = &l->h[i];
		const char *a = get(h, x, 0), *b2 = get(h, y, 1);
		struct cd_vers_verdict *v = NULL;
		char line[EV];

		if (!a)
			continue;
		if (b2) {
			v = verdict(out, n, max, "LOG009", CD_SEV_WARN, h->name, subject);
			snprintf(line, sizeof(line), "ranks on %.80s report %s %s and %s", h->name, subject, a, b2);
		} else if (!base) {
			base = h;
			continue;
		} else {
			char z[32];
			const char *c = get(base, z, 0);

			if (!strcmp(a, c))
				continue;
			v = verdict(out, n, max, "LOG009", CD_SEV_WARN, h->name, subject);
			snprintf(line, sizeof(line), "%.80s has %s %s, %.80s has %s", base->name, subject, c, h->name, a);
		}
		if (!v)
			return;
		snprintf(v->title, sizeof(v->title), "%s versions differ between ranks or hosts", subject);
		evidence(v, "%s", line);
	}
}

static const char *get_driver(const struct vhost *h, char *buf, int second)
{
	const char *s = second ? h->driver2 : h->driver;

	snprintf(buf, 32, "%s", s);
	return *s ? buf : NULL;
}

static const char *get_api(const struct vhost *h, char *buf, int second)
{
	int v = second ? h->api2 : h->api;

	if (!v)
		return NULL;
	cuda_str(v, buf, 32);
	return buf;
}

static const char *get_nccl_cuda(const struct vhost *h, char *buf, int second)
{
	if (second || h->nccl_cuda <= 0)
		return NULL;
	cuda_str(h->nccl_cuda, buf, 32);
	return buf;
}

/* What h does not show itself, taken from the lines without a host prefix (a pasted nvidia-smi, PyTorch's warnings). */
static void fill_from(struct vhost *h, const struct vhost *u)
{
	if (!h->nccl && u->nccl) {
		h->nccl = u->nccl;
		h->nccl_cuda = u->nccl_cuda;
		memcpy(h->ev_nccl, u->ev_nccl, EV);
	}
	if (!h->api && u->api) {
		h->api = u->api;
		memcpy(h->ev_api, u->ev_api, EV);
	}
	if (!h->smi_cuda)
		h->smi_cuda = u->smi_cuda;
	if (!*h->driver && *u->driver) {
		memcpy(h->driver, u->driver, sizeof(h->driver));
		memcpy(h->ev_driver, u->ev_driver, EV);
	}
	if (!h->torch_cuda && u->torch_cuda) {
		h->torch_cuda = u->torch_cuda;
		memcpy(h->ev_torch, u->ev_torch, EV);
	}
	for (int i = 0; i < u->n_sm; i++)
		add_sm(h, u->sm[i], u->ev_sm);
	if (!h->n_torch_sm && u->n_torch_sm) {
		memcpy(h->torch_sm, u->torch_sm, sizeof(h->torch_sm));
		h->n_torch_sm = u->n_torch_sm;
		h->torch_ptx = u->torch_ptx;
		memcpy(h->ev_torch_sm, u->ev_torch_sm, EV);
	}
	if (!h->ev_noimage[0])
		memcpy(h->ev_noimage, u->ev_noimage, EV);
	if (!h->ev_torch_old[0])
		memcpy(h->ev_torch_old, u->ev_torch_old, EV);
}

size_t cd_vers_judge(const struct cd_vers_log *l, const struct cd_vers_db *db, struct cd_vers_verdict *out, size_t max)
{
	struct cd_vers_log m = { 0 };
	const struct vhost *u = NULL;
	size_t n = 0, prefixed = 0;

	if (!l || !db || !l->n)
		return 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->h[i].unprefixed)
			u = &l->h[i];
		else
			prefixed++;
	}
	/* the unprefixed lines join every named host; alone, they are the host */
	m.h = xcalloc(l->n, sizeof(*m.h));
	for (size_t i = 0; i < l->n; i++) {
		if (prefixed && l->h[i].unprefixed)
			continue;
		m.h[m.n] = l->h[i];
		if (u && prefixed)
			fill_from(&m.h[m.n], u);
		m.n++;
	}
	for (size_t i = 0; i < m.n; i++) {
		judge_arch(&m.h[i], db, out, &n, max);
		judge_driver(&m.h[i], db, out, &n, max);
	}
	skew(&m, out, &n, max, "nvidia driver", get_driver);
	skew(&m, out, &n, max, "cuda driver api", get_api);
	skew(&m, out, &n, max, "nccl cuda build", get_nccl_cuda);
	free(m.h);
	return n;
}
