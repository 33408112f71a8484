/* SPDX-License-Identifier: BSD-3-Clause */
/* Thresholds as data: defaults, profiles, overrides, units, and every malformed line's FILE:LINE. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ck_stderr.h"
#include "conf.h"
#include "embed.h"
#include "suites.h"

static struct cd_conf conf;

static void setup(void)
{
	cd_conf_init(&conf);
}

static void teardown(void)
{
	cd_conf_free(&conf);
}

static int parse_str(const void *text)
{
	struct cd_conf c;
	int rc;

	cd_conf_init(&c);
	rc = cd_conf_parse(&c, text, strlen(text), "site.conf", "--rules ");
	cd_conf_free(&c);
	return rc;
}

static int define_str(const void *def)
{
	struct cd_conf c;
	int rc;

	cd_conf_init(&c);
	rc = cd_conf_define(&c, def);
	cd_conf_free(&c);
	return rc;
}

/* Parsing text fails with exactly this one-line message. */
static void rejects(const char *text, const char *want)
{
	int rc;
	char *msg = ck_stderr_of(parse_str, text, &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_msg(!strcmp(msg, want), "for:\n%s\ngot:  %swant: %s", text, msg, want);
	free(msg);
}

static double parsed(const char *text, enum cd_key k)
{
	ck_assert_int_ge(cd_conf_parse(&conf, text, strlen(text), "t.conf", ""), 1);
	return cd_conf_get(&conf, k);
}

START_TEST(test_defaults_cover_every_key)
{
	ck_assert_int_eq(cd_conf_load(&conf, NULL, NULL), 0);
	for (int k = CD_K_NONE + 1; k < CD_K_COUNT; k++) {
		const struct cd_conf_key *ck = cd_conf_key(k);

		if (ck->unit == CD_U_TEXT)
			continue; /* profile metadata */
		ck_assert_msg(!isnan(cd_conf_get(&conf, k)), "%s has no default in rules/default.conf", ck->name);
		ck_assert_msg(!strncmp(conf.origin[k], "embedded default.conf:", 22), "%s from %s", ck->name,
			      conf.origin[k]);
		ck_assert_int_eq(cd_conf_key_find(ck->name), k);
		ck_assert_ptr_nonnull(strchr(ck->name, '.'));
	}
	ck_assert_ptr_null(conf.profile);
	ck_assert_uint_eq(conf.sources.n, 1);
	ck_assert_str_eq(conf.sources.v[0], "embedded default.conf");
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_SHM_MIN_BYTES), 1073741824.0);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_WARN_PCT), 80);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_NET_FABRIC_MIN), 25000);
	ck_assert_int_eq(cd_conf_key_find("no.such_key"), -1);
}
END_TEST

START_TEST(test_every_profile_loads)
{
	const char *const *names = cd_conf_profiles();
	size_t n = 0;

	for (; names[n]; n++) {
		struct cd_conf c;
		struct cd_conf_opts o = { .profile = names[n] };

		ck_assert_int_eq(cd_conf_load(&c, &o, NULL), 0);
		ck_assert_str_eq(c.profile, names[n]);
		ck_assert_str_eq(c.profile_reason, "--profile");
		ck_assert_uint_eq(c.sources.n, 2);
		ck_assert_ptr_nonnull(c.text[CD_K_PROFILE_DESC]);
		ck_assert_ptr_nonnull(c.text[CD_K_PROFILE_IC]);
		cd_conf_free(&c);
	}
	ck_assert_uint_ge(n, 6);
	for (const char *const *want = (const char *const[]){ "h100-sxm", "h200-sxm", "a100-sxm", "l40s-pcie",
							      "generic-pcie", "cpu-only", NULL };
	     *want; want++) {
		size_t k;

		for (k = 0; names[k] && strcmp(names[k], *want); k++)
			;
		ck_assert_msg(names[k] != NULL, "profile %s missing", *want);
	}
	/* only *.conf of rules/ are profiles; default.conf is not one */
	for (size_t k = 0; names[k]; k++)
		ck_assert_str_ne(names[k], "default");
}
END_TEST

START_TEST(test_profile_values_and_origins)
{
	struct cd_conf_opts o = { .profile = "h100-sxm" };

	ck_assert_int_eq(cd_conf_load(&conf, &o, NULL), 0);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_H2D_MIN), 48);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_P2P_MIN), 335);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_NCCL_AR_MIN), 460);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_NCCL_FLOOR_REF_BYTES), 17179869184.0); /* quoted at 16 GiB */
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_NCCL_FLOOR_BYTES), 268435456.0);      /* judged from 256 MiB */
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_IB_MIN_RATE), 400);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_WARN_PCT), 80); /* from default.conf */
	ck_assert(!strncmp(conf.origin[CD_K_COPY_H2D_MIN], "embedded h100-sxm.conf:", 23));
	ck_assert(!strncmp(conf.origin[CD_K_COPY_WARN_PCT], "embedded default.conf:", 22));
	cd_conf_free(&conf);
	o.profile = "h200-sxm";
	ck_assert_int_eq(cd_conf_load(&conf, &o, NULL), 0);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_NCCL_AR_MIN), 431);
	cd_conf_free(&conf);
	o.profile = "a100-sxm";
	ck_assert_int_eq(cd_conf_load(&conf, &o, NULL), 0);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_NCCL_AR_MIN), 228);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_IB_MIN_RATE), 200);
	cd_conf_free(&conf);
	o.profile = "none";
	ck_assert_int_eq(cd_conf_load(&conf, &o, NULL), 0);
	ck_assert_ptr_null(conf.profile);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_H2D_MIN), 0);
}
END_TEST

static int load_unknown_profile(const void *arg)
{
	struct cd_conf c;
	struct cd_conf_opts o = { .profile = arg };
	int rc = cd_conf_load(&c, &o, NULL);

	cd_conf_free(&c);
	return rc;
}

START_TEST(test_unknown_profile)
{
	int rc;
	char *msg = ck_stderr_of(load_unknown_profile, "b300-sxm", &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_ptr_nonnull(strstr(msg, "commdiag: option '--profile': unknown profile 'b300-sxm': expected one of a100-sxm, "));
	ck_assert_ptr_nonnull(strstr(msg, "h100-sxm, "));
	ck_assert_ptr_nonnull(strstr(msg, "none\n"));
	free(msg);
}
END_TEST

/* A document with n GPUs of one model, with or without NVLink. */
static void gpus(struct cd_results *r, const char *name, int n, int nvlink)
{
	struct cd_host *h = cd_results_add_host(r);

	h->hostname = xstrdup("node");
	for (int i = 0; i < n; i++) {
		struct cd_gpu *g = cd_host_add_gpu(h);

		g->index = i;
		g->name = xstrdup(name);
		if (nvlink)
			cd_gpu_add_nvlink(g)->up = CD_TRI_TRUE;
	}
}

static void picks(const char *name, int n, int nvlink, const char *want, const char *why)
{
	struct cd_results r;
	const char *got;
	char *reason = NULL;

	cd_results_init(&r);
	gpus(&r, name, n, nvlink);
	got = cd_conf_pick_profile(&r, &reason);
	ck_assert_msg(want ? got && !strcmp(got, want) : !got, "%s (nvlink %d): got %s, want %s", name, nvlink,
		      got ? got : "none", want ? want : "none");
	if (why)
		ck_assert_str_eq(reason, why);
	free(reason);
	cd_results_free(&r);
}

START_TEST(test_profile_auto)
{
	picks("NVIDIA H100 80GB HBM3", 8, 1, "h100-sxm", "auto: 8\u00d7 NVIDIA H100 80GB HBM3 with NVLink");
	picks("NVIDIA H200", 8, 1, "h200-sxm", NULL);
	picks("NVIDIA A100-SXM4-80GB", 8, 1, "a100-sxm", NULL);
	picks("NVIDIA L40S", 4, 0, "l40s-pcie", "auto: 4\u00d7 NVIDIA L40S with PCIe only");
	picks("Tesla T4", 2, 0, "generic-pcie", NULL);
	picks("NVIDIA H100 PCIe", 2, 0, "generic-pcie", NULL);     /* not the SXM profile */
	picks("NVIDIA H100 80GB HBM3", 8, 0, "generic-pcie", NULL); /* NVLink facts absent: not judged as SXM */
	picks("NVIDIA H200 NVL", 4, 1, NULL, "auto: no profile matches 4\u00d7 NVIDIA H200 NVL with NVLink; default.conf only");
	picks("unused", 0, 0, "cpu-only", "auto: no GPU in the document");
}
END_TEST

/* A driver that does not load leaves no GPU in the document but NVIDIA GPUs on the PCI bus:
   the reason says so, not that the node is CPU-only (the verdict is GPU004's). */
START_TEST(test_profile_auto_gpus_on_bus_only)
{
	struct cd_results r;
	struct cd_host *h;
	struct cd_pci_device *d;
	char *reason = NULL;

	cd_results_init(&r);
	h = cd_results_add_host(&r);
	h->hostname = xstrdup("node");
	for (int i = 0; i < 2; i++) {
		d = cd_host_add_pci(h);
		d->vendor_id = 0x10de;
		d->class_id = 0x0302;
		d->bus_id = xasprintf("0000:%02x:00.0", 0x18 + i);
	}
	ck_assert_str_eq(cd_conf_pick_profile(&r, &reason), "cpu-only");
	ck_assert_str_eq(reason, "auto: no GPU usable through the driver, though the PCI bus shows 2 NVIDIA GPUs (GPU004); "
				 "no GPU profile applies until the driver gives them");
	free(reason);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_profile_auto_mixed_models)
{
	struct cd_results r;
	char *reason = NULL;

	cd_results_init(&r);
	gpus(&r, "NVIDIA H100 80GB HBM3", 4, 1);
	gpus(&r, "NVIDIA A100-SXM4-80GB", 4, 1);
	ck_assert_ptr_null(cd_conf_pick_profile(&r, &reason));
	free(reason);
	cd_results_free(&r);
}
END_TEST

START_TEST(test_profile_from_document_in_load)
{
	struct cd_results r;

	cd_results_init(&r);
	gpus(&r, "NVIDIA H100 80GB HBM3", 8, 1);
	ck_assert_int_eq(cd_conf_load(&conf, NULL, &r), 0);
	ck_assert_str_eq(conf.profile, "h100-sxm");
	ck_assert_str_eq(conf.sources.v[1], "embedded h100-sxm.conf (profile)");
	cd_results_free(&r);
}
END_TEST

START_TEST(test_units)
{
	ck_assert_double_eq(parsed("copy.h2d_min_gbyte_s = 48", CD_K_COPY_H2D_MIN), 48);
	ck_assert_double_eq(parsed("copy.d2h_min_gbyte_s = 48 GB/s", CD_K_COPY_D2H_MIN), 48);
	ck_assert_double_eq(parsed("p2p.min_gbyte_s = 400 Gb/s", CD_K_P2P_MIN), 50); /* cd_gbit_to_gbyte */
	ck_assert_double_eq(parsed("ib.min_rate_gbit_s = 50GB/s", CD_K_IB_MIN_RATE), 400);
	ck_assert_double_eq(parsed("net.fabric_min_mbit_s = 25 Gb/s", CD_K_NET_FABRIC_MIN), 25000);
	ck_assert_double_eq(parsed("copy.warn_pct = 75", CD_K_COPY_WARN_PCT), 75);
	ck_assert_double_eq(parsed("copy.fail_pct = 42.5 %", CD_K_COPY_FAIL_PCT), 42.5);
	ck_assert_double_eq(parsed("nccl.latency_warn_us = 0.5 ms", CD_K_NCCL_LAT_WARN), 500);
	ck_assert_double_eq(parsed("mpi.latency_target_us = 3us", CD_K_MPI_LAT_TARGET), 3);
	ck_assert_double_eq(parsed("system.shm_min_bytes = 512M", CD_K_SHM_MIN_BYTES), 536870912.0);
	ck_assert_double_eq(parsed("nccl.floor_min_bytes = 16 GiB", CD_K_NCCL_FLOOR_BYTES), 17179869184.0);
	ck_assert_double_eq(parsed("balance.mad_k = 3", CD_K_BAL_MAD_K), 3);
	ck_assert_str_eq(conf.origin[CD_K_BAL_MAD_K], "t.conf:1");
}
END_TEST

START_TEST(test_sections_comments_origins)
{
	static const char text[] = "# site thresholds\n"
				   "\n"
				   "[copy]\r\n"
				   "  warn_pct = 70 %   # our riser cards\n"
				   "[nccl]\n"
				   "latency_warn_us=200\n"
				   "copy.fail_pct = 30\n" /* a full key inside a section stays as written */
				   "[profile]\n"
				   "interconnect = nvlink\n"
				   "gpu_names = *H100*, *H800*\n";

	ck_assert_int_eq(cd_conf_parse(&conf, text, sizeof(text) - 1, "site.conf", "--rules "), 5);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_WARN_PCT), 70);
	ck_assert_str_eq(conf.origin[CD_K_COPY_WARN_PCT], "--rules site.conf:4");
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_NCCL_LAT_WARN), 200);
	ck_assert_str_eq(conf.origin[CD_K_NCCL_LAT_WARN], "--rules site.conf:6");
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_FAIL_PCT), 30);
	ck_assert_str_eq(conf.text[CD_K_PROFILE_IC], "nvlink");
	ck_assert_str_eq(conf.text[CD_K_PROFILE_GPUS], "*H100*, *H800*");
}
END_TEST

START_TEST(test_override_order)
{
	char path[] = "/tmp/check_conf_rules.XXXXXX";
	int fd = mkstemp(path);
	const char *files[] = { path };
	const char *defs[] = { "copy.warn_pct=60", "copy.h2d_min_gbyte_s = 40 GB/s" };
	struct cd_conf_opts o = { .profile = "h100-sxm", .files = files, .n_files = 1, .defs = defs, .n_defs = 2 };
	static const char text[] = "[copy]\nwarn_pct = 90\nfail_pct = 45\n";

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	ck_assert_int_eq(cd_conf_load(&conf, &o, NULL), 0);
	unlink(path);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_WARN_PCT), 60); /* -D wins */
	ck_assert_str_eq(conf.origin[CD_K_COPY_WARN_PCT], "-D");
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_FAIL_PCT), 45); /* --rules over default */
	ck_assert_uint_eq(conf.sources.n, 5);
	ck_assert_str_eq(conf.sources.v[2] + strlen("--rules "), path);
	ck_assert_str_eq(conf.sources.v[4], "-D copy.h2d_min_gbyte_s = 40 GB/s");
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_COPY_H2D_MIN), 40); /* over the profile's 48 */
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_P2P_MIN), 335);     /* the profile's */
}
END_TEST

START_TEST(test_malformed_lines)
{
	rejects("copy.warn_pct = 80\nfrobnicate\n",
		"commdiag: rules: site.conf:2: 'frobnicate': expected 'key = value' or '[section]'\n");
	rejects("\n\ncopy.warn_pcent = 80\n",
		"commdiag: rules: site.conf:3: unknown key 'copy.warn_pcent': expected a key listed by 'commdiag rules'\n");
	rejects("[copy]\nwarn = 80\n",
		"commdiag: rules: site.conf:2: unknown key 'copy.warn': expected a key listed by 'commdiag rules'\n");
	rejects("copy.warn_pct = eighty\n",
		"commdiag: rules: site.conf:1: 'eighty' is not a number: expected a percentage from 0 to 100, like '80 %'\n");
	rejects("# c\ncopy.h2d_min_gbyte_s = -5\n",
		"commdiag: rules: site.conf:2: '-5' is not a number: expected a bandwidth like '48 GB/s' or '400 Gb/s'\n");
	rejects("copy.h2d_min_gbyte_s = 1.2.3 GB/s\n",
		"commdiag: rules: site.conf:1: '1.2.3 GB/s' is not a number: expected a bandwidth like '48 GB/s' or '400 Gb/s'\n");
	rejects("copy.h2d_min_gbyte_s = inf\n",
		"commdiag: rules: site.conf:1: 'inf' is not a number: expected a bandwidth like '48 GB/s' or '400 Gb/s'\n");
	rejects("copy.h2d_min_gbyte_s = 48 MB/s\n",
		"commdiag: rules: site.conf:1: unit 'MB/s' does not fit 'copy.h2d_min_gbyte_s': expected a bandwidth like '48 GB/s' or '400 Gb/s'\n");
	rejects("ib.min_rate_gbit_s = 400 Gbps\n",
		"commdiag: rules: site.conf:1: unit 'Gbps' does not fit 'ib.min_rate_gbit_s': expected a rate like '400 Gb/s' or '50 GB/s'\n");
	rejects("copy.warn_pct = 80 us\n",
		"commdiag: rules: site.conf:1: unit 'us' does not fit 'copy.warn_pct': expected a percentage from 0 to 100, like '80 %'\n");
	rejects("copy.warn_pct = 120 %\n",
		"commdiag: rules: site.conf:1: '120 %' is out of range: expected a percentage from 0 to 100, like '80 %'\n");
	rejects("system.shm_min_bytes = 1 GiB/s\n",
		"commdiag: rules: site.conf:1: unit 'GiB/s' of '1 GiB/s' is not a size: expected a size like 1G, 512M or 1073741824\n");
	rejects("balance.mad_k = 3 sigma\n",
		"commdiag: rules: site.conf:1: unit 'sigma' does not fit 'balance.mad_k': expected a plain non-negative number, like '3.5'\n");
	rejects("copy.warn_pct =\n",
		"commdiag: rules: site.conf:1: key 'copy.warn_pct' has no value: expected a percentage from 0 to 100, like '80 %'\n");
	rejects("= 80\n", "commdiag: rules: site.conf:1: '= 80': expected a key before '='\n");
	rejects("copy.warn_pct = 80\ncopy.warn_pct = 70\n",
		"commdiag: rules: site.conf:2: key 'copy.warn_pct' is already set on line 1\n");
	rejects("[copy\n", "commdiag: rules: site.conf:1: '[copy': expected a section header like '[copy]'\n");
	rejects("[Copy]\n", "commdiag: rules: site.conf:1: '[Copy]': expected a section header like '[copy]'\n");
	rejects("x = 1\n[frob]\n",
		"commdiag: rules: site.conf:1: unknown key 'x': expected a key listed by 'commdiag rules'\n");
	rejects("[frob]\n",
		"commdiag: rules: site.conf:1: unknown section '[frob]': expected one of system, net, copy, p2p, nvlink, "
		"gpu, ib, nccl, mpi, balance, stability, baseline, score, profile\n");
	rejects("[profile]\ninterconnect = infiniband\n",
		"commdiag: rules: site.conf:2: 'infiniband' is not an interconnect: expected nvlink, pcie, any or none\n");
}
END_TEST

START_TEST(test_malformed_define)
{
	int rc;
	char *msg = ck_stderr_of(define_str, "copy.warn_pct", &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(msg, "commdiag: option '-D': 'copy.warn_pct': expected key=value\n");
	free(msg);
	msg = ck_stderr_of(define_str, "copy.warn_pct=lots", &rc);
	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(msg, "commdiag: option '-D': 'lots' is not a number: expected a percentage from 0 to 100, like '80 %'\n");
	free(msg);
	msg = ck_stderr_of(define_str, "nope=1", &rc);
	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(msg, "commdiag: option '-D': unknown key 'nope': expected a key listed by 'commdiag rules'\n");
	free(msg);
	ck_assert_int_eq(cd_conf_define(&conf, "stability.spread_warn_pct=5%"), 0);
	ck_assert_double_eq(cd_conf_get(&conf, CD_K_STAB_SPREAD_WARN), 5);
}
END_TEST

static int check_missing(const void *path)
{
	return cd_conf_check_file(path);
}

START_TEST(test_check_file)
{
	int rc;
	char *msg = ck_stderr_of(check_missing, "/nonexistent/site.conf", &rc);

	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(msg, "commdiag: rules: cannot open '/nonexistent/site.conf': No such file or directory\n");
	free(msg);
	/* every embedded file of ours is a valid rules file */
	for (const struct cd_embedded_file *f = cd_embedded_files; f->name; f++) {
		struct cd_conf c;

		if (strlen(f->name) < 5 || strcmp(f->name + strlen(f->name) - 5, ".conf"))
			continue;
		cd_conf_init(&c);
		ck_assert_msg(cd_conf_parse(&c, f->data, f->len, f->name, "") > 0, "%s does not parse", f->name);
		cd_conf_free(&c);
	}
}
END_TEST

START_TEST(test_fmt)
{
	char buf[64];

	ck_assert_int_eq(cd_conf_load(&conf, NULL, NULL), 0);
	ck_assert_str_eq(cd_conf_fmt(&conf, CD_K_SHM_MIN_BYTES, buf, sizeof(buf)), "1.0 GiB");
	ck_assert_str_eq(cd_conf_fmt(&conf, CD_K_COPY_WARN_PCT, buf, sizeof(buf)), "80 %");
	ck_assert_str_eq(cd_conf_fmt(&conf, CD_K_NCCL_LAT_WARN, buf, sizeof(buf)), "500 us");
	ck_assert_str_eq(cd_conf_fmt(&conf, CD_K_BAL_MAD_K, buf, sizeof(buf)), "3.5");
	ck_assert_str_eq(cd_conf_fmt(&conf, CD_K_PROFILE_IC, buf, sizeof(buf)), "(unset)");
	ck_assert_str_eq(cd_unit_str(CD_U_GBIT_S), "gbit_s");
}
END_TEST

Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_defaults_cover_every_key);
	tcase_add_test(tc, test_every_profile_loads);
	tcase_add_test(tc, test_profile_values_and_origins);
	tcase_add_test(tc, test_unknown_profile);
	tcase_add_test(tc, test_profile_auto);
	tcase_add_test(tc, test_profile_auto_gpus_on_bus_only);
	tcase_add_test(tc, test_profile_auto_mixed_models);
	tcase_add_test(tc, test_profile_from_document_in_load);
	tcase_add_test(tc, test_override_order);
	tcase_add_test(tc, test_fmt);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_units);
	tcase_add_test(tc, test_sections_comments_origins);
	tcase_add_test(tc, test_malformed_lines);
	tcase_add_test(tc, test_malformed_define);
	tcase_add_test(tc, test_check_file);
	suite_add_tcase(s, tc);
	return s;
}
