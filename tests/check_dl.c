/* SPDX-License-Identifier: BSD-3-Clause */
/* dlopen by SONAME and symbol binding, against libm (present everywhere), and NCCL's version helpers. */
#include <check.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "gpu.h"
#include "suites.h"
#include "util.h"

START_TEST(test_open_missing)
{
	char *err = NULL;
	void *h = cd_dl_open("libdoesnotexist.so.9", &err);

	ck_assert_ptr_null(h);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "libdoesnotexist.so.9") != NULL, "error does not name the library: %s", err);
	free(err);
}
END_TEST

START_TEST(test_open_and_bind)
{
	double (*my_cos)(double) = NULL;
	double (*my_sqrt)(double) = NULL;
	const struct cd_dl_sym syms[] = {
		{ "cos", (void **)&my_cos, 0 },
		{ "sqrt", (void **)&my_sqrt, 1 },
		{ NULL, NULL, 0 },
	};
	char *err = NULL;
	void *h = cd_dl_open("libm.so.6", &err);

	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_null(err);
	ck_assert_int_eq(cd_dl_bind(h, "libm.so.6", syms, &err), 0);
	ck_assert_ptr_null(err);
	ck_assert_ptr_nonnull(my_cos);
	ck_assert_ptr_nonnull(my_sqrt);
	ck_assert_double_eq(my_cos(0.0), 1.0);
	ck_assert_double_eq(my_sqrt(16.0), 4.0);
	cd_dl_close(h);
}
END_TEST

START_TEST(test_bind_missing_required)
{
	void *a = NULL, *b = NULL, *c = (void *)&a;
	const struct cd_dl_sym syms[] = {
		{ "cos", &a, 0 },
		{ "cuNoSuchSymbol_v9", &b, 0 },
		{ "sin", &c, 0 },
		{ NULL, NULL, 0 },
	};
	char *err = NULL;
	void *h = cd_dl_open("libm.so.6", &err);

	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(cd_dl_bind(h, "libm.so.6", syms, &err), -1);
	ck_assert_ptr_nonnull(err);
	ck_assert_str_eq(err, "libm.so.6: symbol 'cuNoSuchSymbol_v9' not found");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_null(b);
	free(err);
	cd_dl_close(h);
}
END_TEST

START_TEST(test_bind_missing_optional)
{
	void *a = NULL, *b = (void *)&a; /* a stale value must be cleared */
	const struct cd_dl_sym syms[] = {
		{ "cos", &a, 0 },
		{ "cuDeviceGetUuid_v2", &b, 1 },
		{ NULL, NULL, 0 },
	};
	char *err = NULL;
	void *h = cd_dl_open("libm.so.6", &err);

	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(cd_dl_bind(h, "libm.so.6", syms, &err), 0);
	ck_assert_ptr_null(err);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_null(b);
	cd_dl_close(h);
	cd_dl_close(NULL);
}
END_TEST

START_TEST(test_sonames)
{
	/* never the unversioned development symlinks */
	ck_assert_str_eq(CD_SONAME_CUDA, "libcuda.so.1");
	ck_assert_str_eq(CD_SONAME_NVML, "libnvidia-ml.so.1");
	ck_assert_str_eq(CD_SONAME_NCCL, "libnccl.so.2");
}
END_TEST

static void version_is(int v, const char *want)
{
	char *s = cd_gpu_nccl_version_str(v);

	ck_assert_str_eq(s, want);
	free(s);
}

START_TEST(test_nccl_version_str)
{
	version_is(22809, "2.28.9");
	version_is(21903, "2.19.3");
	version_is(20900, "2.9.0");
	version_is(2708, "2.7.8");
	version_is(2406, "2.4.6");
	version_is(2800, "2.8.0");
}
END_TEST

START_TEST(test_nccl_version_missing_lib)
{
	char *err = NULL;
	char *v = cd_gpu_nccl_version("/nonexistent/libnccl.so.2", &err);

	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, "/nonexistent/libnccl.so.2") != NULL, "error does not name the path: %s", err);
	free(err);
}
END_TEST

START_TEST(test_nccl_version_not_nccl)
{
	char *err = NULL;
	char *v = cd_gpu_nccl_version("libm.so.6", &err);

	ck_assert_ptr_null(v);
	ck_assert_pstr_eq(err, "libm.so.6: symbol 'ncclGetVersion' not found");
	free(err);
}
END_TEST

/*
 * A net plugin stays mapped after commdiag is done with it (RTLD_NODELETE): its
 * constructors may have left threads or exit handlers pointing into it. libutil.so.1
 * (glibc, linked by nothing here) stands in: it loads and has no ncclNetPlugin_vN.
 */
START_TEST(test_net_plugin_stays_loaded)
{
	char *err = NULL, *v;

	ck_assert_msg(dlopen("libutil.so.1", RTLD_LAZY | RTLD_NOLOAD) == NULL, "libutil.so.1 is loaded already");
	v = cd_gpu_nccl_net_plugin("libutil.so.1", &err);
	ck_assert_str_eq(v, "internal");
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(dlopen("libutil.so.1", RTLD_LAZY | RTLD_NOLOAD) != NULL, "the plugin was unloaded");
	free(v);
	free(err);
}
END_TEST

Suite *dl_suite(void)
{
	Suite *s = suite_create("dl");
	TCase *tc = tcase_create("dl");

	tcase_add_test(tc, test_open_missing);
	tcase_add_test(tc, test_open_and_bind);
	tcase_add_test(tc, test_bind_missing_required);
	tcase_add_test(tc, test_bind_missing_optional);
	tcase_add_test(tc, test_sonames);
	suite_add_tcase(s, tc);
	tc = tcase_create("nccl");
	tcase_add_test(tc, test_nccl_version_str);
	tcase_add_test(tc, test_nccl_version_missing_lib);
	tcase_add_test(tc, test_nccl_version_not_nccl);
	tcase_add_test(tc, test_net_plugin_stays_loaded);
	suite_add_tcase(s, tc);
	return s;
}
