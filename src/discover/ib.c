/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA devices (HCAs), their ports and GID tables.
 *
 * sysfs carries every fact we report except the active MTU, and it can be read
 * where /dev/infiniband is not (containers), so it is the one source of the
 * inventory: cd_ib_read_sysfs() works on any root and is what the tests run.
 * Live, libibverbs decides which devices exist (the set NCCL and MPI would use)
 * and gives the node GUID; a device context, opened and closed at once as in
 * rdma-core's devinfo, adds the active MTU and fills anything sysfs lacked.
 */
#include "ib.h"

#include <ctype.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "discover_opts.h"

#ifndef CD_LIBIBVERBS_VERSION
#define CD_LIBIBVERBS_VERSION ""
#endif

#define IB_MAX_GIDS 4096 /* a guard; real tables hold 128 to 2048 entries */

static const char *const port_states[] = {
	[0] = "nop", [1] = "down", [2] = "init", [3] = "armed", [4] = "active", [5] = "active_defer",
};

static const char *const phys_states[] = {
	[1] = "sleep", [2] = "polling", [3] = "disabled", [4] = "port_configuration_training",
	[5] = "link_up", [6] = "link_error_recovery", [7] = "phy_test",
};

static const char *name_or_unknown(const char *const *names, size_t n, int v)
{
	return v >= 0 && (size_t)v < n && names[v] ? names[v] : "unknown";
}

const char *cd_ib_port_state_str(int state)
{
	return name_or_unknown(port_states, ARRAY_SIZE(port_states), state);
}

const char *cd_ib_phys_state_str(int phys_state)
{
	return name_or_unknown(phys_states, ARRAY_SIZE(phys_states), phys_state);
}

int64_t cd_ib_width_lanes(int active_width)
{
	switch (active_width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	}
	return CD_NULL_I64;
}

static const struct {
	int speed;		/* verbs active_speed */
	const char *name;	/* as sysfs "rate" spells it */
	double lane_gbit_s;	/* nominal, as the kernel computes the rate */
} ib_speeds[] = {
	{ 1, "SDR", 2.5 }, { 2, "DDR", 5 }, { 4, "QDR", 10 }, { 8, "FDR10", 10 },
	{ 16, "FDR", 14 }, { 32, "EDR", 25 }, { 64, "HDR", 50 }, { 128, "NDR", 100 },
	{ 256, "XDR", 200 },
};

double cd_ib_speed_lane_gbit(int active_speed)
{
	for (size_t i = 0; i < ARRAY_SIZE(ib_speeds); i++)
		if (ib_speeds[i].speed == active_speed)
			return ib_speeds[i].lane_gbit_s;
	return NAN;
}

double cd_ib_speed_name_lane_gbit(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(ib_speeds); i++)
		if (!strcmp(ib_speeds[i].name, name))
			return ib_speeds[i].lane_gbit_s;
	return NAN;
}

int64_t cd_ib_mtu_bytes(int active_mtu)
{
	return active_mtu >= 1 && active_mtu <= 5 ? (int64_t)128 << active_mtu : CD_NULL_I64;
}

int cd_ib_parse_rate(const char *text, int64_t *width, double *lane_gbit_s, double *rate_gbit_s)
{
	char name[16] = "";
	double total, lane;
	int lanes, n = 0;

	if (!text)
		return -1;
	/* "400 Gb/sec (4X NDR)"; old kernels print "10 Gb/sec (4X)" for SDR */
	if (sscanf(text, "%lf Gb/sec (%dX%n", &total, &lanes, &n) != 2 || !n || lanes <= 0)
		return -1;
	text += n;
	if (*text == ' ' && sscanf(text, " %15[A-Z0-9])", name) != 1)
		return -1;
	lane = cd_ib_speed_name_lane_gbit(name);
	if (isnan(lane))
		lane = total / lanes;
	*width = lanes;
	*lane_gbit_s = lane;
	*rate_gbit_s = (double)lanes * lane;
	return 0;
}

char *cd_ib_guid_str(const char *s)
{
	uint64_t v = 0;
	int digits = 0;

	if (!s)
		return NULL;
	for (; *s; s++) {
		if (*s == ':')
			continue;
		if (!isxdigit((unsigned char)*s) || ++digits > 16)
			return NULL;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10));
	}
	return digits == 16 ? xasprintf("0x%016" PRIx64, v) : NULL;
}

/* "fe80:0000:…" (eight groups of four hex digits) into 16 bytes */
static int gid_parse(const char *s, unsigned char out[16])
{
	for (int g = 0; g < 8; g++) {
		unsigned v = 0;

		for (int i = 0; i < 4; i++, s++) {
			if (!isxdigit((unsigned char)*s))
				return -1;
			v = v << 4 | (unsigned)(isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10);
		}
		if (*s != (g == 7 ? '\0' : ':'))
			return -1;
		s++;
		out[2 * g] = (unsigned char)(v >> 8);
		out[2 * g + 1] = (unsigned char)v;
	}
	return 0;
}

int cd_ib_gid_is_ipv4(const char *gid)
{
	static const unsigned char prefix[12] = { [10] = 0xff, [11] = 0xff };
	unsigned char b[16];

	if (!gid || gid_parse(gid, b))
		return -1;
	return !memcmp(b, prefix, sizeof(prefix));
}

int cd_ib_gid_is_zero(const char *gid)
{
	static const unsigned char zero[16];
	unsigned char b[16];

	return gid && !gid_parse(gid, b) && !memcmp(b, zero, sizeof(zero));
}

/* sysfs */

static int ib_read(const char *dir, const char *leaf, char *buf, size_t len)
{
	char *p = xasprintf("%s/%s", dir, leaf);
	int ret = cd_read_line(p, buf, len);

	free(p);
	return ret;
}

static char *ib_read_str(const char *dir, const char *leaf)
{
	char buf[256];

	return ib_read(dir, leaf, buf, sizeof(buf)) == 0 && buf[0] ? xstrdup(buf) : NULL;
}

/* The number before ':' in "4: ACTIVE", "5: LinkUp"; -1 when absent. */
static int ib_read_enum(const char *dir, const char *leaf)
{
	char buf[64], *end;
	long v;

	if (ib_read(dir, leaf, buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end != buf && *end == ':' && v >= 0 && v < INT_MAX ? (int)v : -1;
}

static char *ib_link_base(const char *dir, const char *leaf)
{
	char *p = xasprintf("%s/%s", dir, leaf);
	char *base = cd_readlink_base(p);

	free(p);
	return base;
}

static int cmp_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_dev(const void *a, const void *b)
{
	return strverscmp(ibv_get_device_name(*(struct ibv_device *const *)a),
			  ibv_get_device_name(*(struct ibv_device *const *)b));
}

/* Names in a directory, "." and ".." left out, in version order; -1 with errno. */
static int list_dir(const char *path, struct cd_strv *out)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			cd_strv_push(out, e->d_name);
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_name);
	return 0;
}

/* An IPoIB or Ethernet netdev of the HCA's PCI function that belongs to this port. */
static char *ib_port_netdev_from_device(const char *devdir, int64_t port)
{
	char *netdir = xasprintf("%s/device/net", devdir);
	struct cd_strv names = { 0 };
	char *found = NULL;

	if (list_dir(netdir, &names) == 0) {
		for (size_t i = 0; i < names.n && !found; i++) {
			char *leaf = xasprintf("%s/dev_port", names.v[i]);
			char buf[32];

			if (ib_read(netdir, leaf, buf, sizeof(buf)) == 0 && strtol(buf, NULL, 10) == port - 1)
				found = xstrdup(names.v[i]);
			free(leaf);
		}
		if (!found && names.n == 1)
			found = xstrdup(names.v[0]);
	}
	cd_strv_free(&names);
	free(netdir);
	return found;
}

static void ib_read_gids(struct cd_ib_port *p, const char *portdir)
{
	for (int i = 0; i < IB_MAX_GIDS; i++) {
		char leaf[64], buf[128];
		struct cd_gid *g;

		snprintf(leaf, sizeof(leaf), "gids/%d", i);
		if (ib_read(portdir, leaf, buf, sizeof(buf))) {
			if (errno == ENOENT)
				break;
			continue; /* unused slots may fail with EINVAL */
		}
		if (cd_ib_gid_is_zero(buf) || cd_ib_gid_is_ipv4(buf) < 0)
			continue;
		g = cd_port_add_gid(p);
		g->index = i;
		g->gid = xstrdup(buf);
		g->ipv4 = cd_ib_gid_is_ipv4(buf) ? CD_TRI_TRUE : CD_TRI_FALSE;
		snprintf(leaf, sizeof(leaf), "gid_attrs/types/%d", i);
		g->type = ib_read_str(portdir, leaf);
		snprintf(leaf, sizeof(leaf), "gid_attrs/ndevs/%d", i);
		g->netdev = ib_read_str(portdir, leaf);
	}
}

static void ib_read_port(struct cd_ib_port *p, const char *devdir, const char *portdir)
{
	char buf[128];
	int v;

	if ((v = ib_read_enum(portdir, "state")) >= 0)
		p->state = xstrdup(cd_ib_port_state_str(v));
	if ((v = ib_read_enum(portdir, "phys_state")) >= 0)
		p->phys_state = xstrdup(cd_ib_phys_state_str(v));
	if (ib_read(portdir, "link_layer", buf, sizeof(buf)) == 0 && buf[0]) {
		for (char *c = buf; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		p->link_layer = xstrdup(buf);
	}
	if (ib_read(portdir, "rate", buf, sizeof(buf)) == 0 &&
	    cd_ib_parse_rate(buf, &p->active_width, &p->lane_gbit_s, &p->rate_gbit_s))
		cd_debug(1, "ib: '%s/rate': unexpected text '%s'", portdir, buf);
	/* a LID is an InfiniBand address; RoCE ports show 0 */
	if ((!p->link_layer || strcmp(p->link_layer, "ethernet")) &&
	    ib_read(portdir, "lid", buf, sizeof(buf)) == 0) {
		char *end;
		long lid = strtol(buf, &end, 0);

		if (end != buf && !*end && lid >= 0)
			p->lid = lid;
	}
	ib_read_gids(p, portdir);
	p->netdev = ib_read_str(portdir, "gid_attrs/ndevs/0");
	if (!p->netdev)
		p->netdev = ib_port_netdev_from_device(devdir, p->port);
	if (p->link_layer && !strcmp(p->link_layer, "ethernet")) {
		for (size_t i = 0; i < p->n_gids; i++) {
			struct cd_gid *g = &p->gids[i];

			if (g->ipv4 == CD_TRI_TRUE && g->type && !strcmp(g->type, "RoCE v2")) {
				p->roce_v2_gid_index = g->index;
				break;
			}
		}
	}
}

static void ib_read_hca(struct cd_hca *c, const char *devdir)
{
	struct cd_strv ports = { 0 };
	char *portsdir, buf[128];

	if (ib_read(devdir, "node_guid", buf, sizeof(buf)) == 0)
		c->node_guid = cd_ib_guid_str(buf);
	c->fw_ver = ib_read_str(devdir, "fw_ver");
	c->board_id = ib_read_str(devdir, "board_id");
	c->bus_id = ib_link_base(devdir, "device");
	if (ib_read(devdir, "device/numa_node", buf, sizeof(buf)) == 0) {
		char *end;
		long v = strtol(buf, &end, 10);

		if (end != buf && !*end && v >= 0)
			c->numa = v;
	}
	portsdir = xasprintf("%s/ports", devdir);
	if (list_dir(portsdir, &ports) == 0) {
		for (size_t i = 0; i < ports.n; i++) {
			char *end, *portdir;
			long n = strtol(ports.v[i], &end, 10);
			struct cd_ib_port *p;

			if (end == ports.v[i] || *end || n <= 0)
				continue;
			p = cd_hca_add_port(c);
			p->port = n;
			portdir = xasprintf("%s/%s", portsdir, ports.v[i]);
			ib_read_port(p, devdir, portdir);
			free(portdir);
		}
	}
	cd_strv_free(&ports);
	free(portsdir);
	if (c->n_ports && c->ports[0].netdev)
		c->netdev = xstrdup(c->ports[0].netdev);
}

static char *ib_class_dir(const char *root)
{
	return xasprintf("%s/sys/class/infiniband", root ? root : "");
}

int cd_ib_read_sysfs(struct cd_host *h, const char *sysfs_root)
{
	char *classdir = ib_class_dir(sysfs_root);
	struct cd_strv names = { 0 };

	if (list_dir(classdir, &names)) {
		if (errno == ENOENT) {
			cd_debug(1, "ib: no '%s': no RDMA devices", classdir);
			cd_section_set(&h->part[CD_PART_IB], CD_ST_OK, NULL);
		} else {
			cd_section_set(&h->part[CD_PART_IB], CD_ST_ERROR, "cannot read '%s': %s",
				       classdir, strerror(errno));
		}
		free(classdir);
		return 0;
	}
	for (size_t i = 0; i < names.n; i++) {
		struct cd_hca *c = cd_host_add_hca(h);
		char *devdir = xasprintf("%s/%s", classdir, names.v[i]);

		c->name = xstrdup(names.v[i]);
		ib_read_hca(c, devdir);
		free(devdir);
	}
	cd_strv_free(&names);
	free(classdir);
	cd_section_set(&h->part[CD_PART_IB], CD_ST_OK, NULL);
	return 0;
}

/* live: verbs */

static struct cd_ib_port *hca_port(struct cd_hca *c, int64_t n)
{
	struct cd_ib_port *p;

	for (size_t i = 0; i < c->n_ports; i++)
		if (c->ports[i].port == n)
			return &c->ports[i];
	p = cd_hca_add_port(c);
	p->port = n;
	return p;
}

/* Add what only a device context knows (the active MTU), and fill what sysfs lacked. */
static void ib_query_verbs(struct cd_hca *c, struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_device_attr da;

	if (!ctx) {
		cd_debug(1, "ib: cannot open '%s': %s", c->name, strerror(errno));
		return;
	}
	if (ibv_query_device(ctx, &da)) {
		cd_debug(1, "ib: cannot query '%s': %s", c->name, strerror(errno));
		goto out;
	}
	if (!c->fw_ver && da.fw_ver[0])
		c->fw_ver = xstrndup(da.fw_ver, sizeof(da.fw_ver));
	for (int n = 1; n <= da.phys_port_cnt; n++) {
		struct ibv_port_attr pa;
		struct cd_ib_port *p;

		if (ibv_query_port(ctx, (uint8_t)n, &pa)) {
			cd_debug(1, "ib: cannot query '%s' port %d: %s", c->name, n, strerror(errno));
			continue;
		}
		p = hca_port(c, n);
		p->mtu_bytes = cd_ib_mtu_bytes(pa.active_mtu);
		if (!p->state)
			p->state = xstrdup(cd_ib_port_state_str(pa.state));
		if (!p->phys_state)
			p->phys_state = xstrdup(cd_ib_phys_state_str(pa.phys_state));
		if (!p->link_layer && pa.link_layer != IBV_LINK_LAYER_UNSPECIFIED)
			p->link_layer = xstrdup(pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "ethernet" : "infiniband");
		if (p->active_width == CD_NULL_I64 && isnan(p->rate_gbit_s)) {
			p->active_width = cd_ib_width_lanes(pa.active_width);
			p->lane_gbit_s = cd_ib_speed_lane_gbit(pa.active_speed);
			if (p->active_width != CD_NULL_I64 && !isnan(p->lane_gbit_s))
				p->rate_gbit_s = (double)p->active_width * p->lane_gbit_s;
		}
		if (p->lid == CD_NULL_I64 && pa.link_layer != IBV_LINK_LAYER_ETHERNET)
			p->lid = pa.lid;
	}
out:
	ibv_close_device(ctx);
}

int cd_ib_discover(struct cd_host *h, const struct cd_discover_opts *o)
{
	struct ibv_device **list, **sorted;
	char *classdir;
	int n = 0;

	free(h->versions.libibverbs);
	h->versions.libibverbs = CD_LIBIBVERBS_VERSION[0] ? xstrdup(CD_LIBIBVERBS_VERSION) : NULL;
	if (o && o->sysfs_root)
		return cd_ib_read_sysfs(h, o->sysfs_root);

	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list) {
		/* no ib_uverbs (or no RDMA at all) in the kernel: zero devices, not a failure */
		if (errno == ENOSYS) {
			cd_debug(1, "ib: no RDMA devices: %s", strerror(errno));
			cd_section_set(&h->part[CD_PART_IB], CD_ST_OK, NULL);
		} else {
			cd_section_set(&h->part[CD_PART_IB], CD_ST_ERROR, "cannot list RDMA devices: %s",
				       strerror(errno ? errno : EIO));
		}
		return 0;
	}
	classdir = ib_class_dir(NULL);
	sorted = xcalloc((size_t)n + 1, sizeof(*sorted));
	memcpy(sorted, list, (size_t)n * sizeof(*sorted));
	if (n > 1)
		qsort(sorted, (size_t)n, sizeof(*sorted), cmp_dev);
	for (int i = 0; i < n; i++) {
		struct cd_hca *c = cd_host_add_hca(h);
		const char *name = ibv_get_device_name(sorted[i]);
		char *devdir = xasprintf("%s/%s", classdir, name);
		uint64_t guid = be64toh(ibv_get_device_guid(sorted[i]));

		c->name = xstrdup(name);
		ib_read_hca(c, devdir);
		if (guid) {
			free(c->node_guid);
			c->node_guid = xasprintf("0x%016" PRIx64, guid);
		}
		ib_query_verbs(c, sorted[i]);
		if (!c->netdev && c->n_ports && c->ports[0].netdev)
			c->netdev = xstrdup(c->ports[0].netdev);
		free(devdir);
	}
	free(sorted);
	free(classdir);
	ibv_free_device_list(list);
	cd_section_set(&h->part[CD_PART_IB], CD_ST_OK, NULL);
	return 0;
}
