/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "util.h"

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 12345;

	ck_assert_msg(cd_parse_size(s, &v) == 0, "'%s' should parse", s);
	ck_assert_msg(v == want, "'%s' gave %llu, want %llu", s, (unsigned long long)v, (unsigned long long)want);
}

static void size_bad(const char *s)
{
	uint64_t v = 12345;

	ck_assert_msg(cd_parse_size(s, &v) == -1, "'%s' should be rejected", s);
	ck_assert_msg(v == 12345, "'%s' changed the output on failure", s);
}

START_TEST(test_parse_size)
{
	size_ok("8M", 8388608);
	size_ok("1G", 1073741824);
	size_ok("64K", 65536);
	size_ok("64k", 65536);
	size_ok("512", 512);
	size_ok("0", 0);
	size_ok("1.5G", 1610612736);
	size_ok("1GiB", 1073741824);
	size_ok("4MB", 4194304);
	size_ok("2T", 2199023255552ULL);
	size_ok("1.5K", 1536);

	size_bad("");
	size_bad("-1");
	size_bad("+1");
	size_bad("12Q");
	size_bad("1.3");   /* 1.3 bytes is not a whole number */
	size_bad("M");
	size_bad("1e400"); /* ERANGE */
	size_bad("18446744073709551616"); /* 2^64 */
	size_bad("inf");
	size_bad("nan");
	size_bad("8MX");
	size_bad("8 M");
	size_bad("1iB"); /* "i" only after a unit */
	size_bad("0x");
	size_bad("0x10"); /* decimal only */
	size_bad(" 1");
	size_bad(" -0");

	/* found by tests/fuzz/fuzz_parse (the documented forms only, exact values) */
	size_bad("1e3");   /* an exponent is not a size form */
	size_bad("5e-1K");
	size_bad("1E1G");
	size_ok("9007199254740993", 9007199254740993ULL); /* 2^53+1: a double would say 2^53 */
	size_ok("18446744073709551615", UINT64_MAX);
	size_bad("18446744073709551616");
	size_ok("16777215.9999999999990905052982270717620849609375T", UINT64_MAX); /* 2^64-1 exactly, in T */
	size_bad("16777216T");
	size_ok("0.0009765625K", 1);   /* 1/1024 K */
	size_bad("0.00048828125K");    /* half a byte */
	size_ok("1.50K", 1536);        /* trailing zeros of the fraction */
	size_ok("1.", 1);
	size_ok(".5K", 512);
	size_bad(".");
	size_bad("1.5");
	size_ok("3.0", 3);
}
END_TEST

START_TEST(test_version_num)
{
	ck_assert_int_eq(cd_version_num("2.21.5"), 22105);
	ck_assert_int_eq(cd_version_num("2.21"), 22100);
	ck_assert_int_eq(cd_version_num("2.21.5+cuda12.4"), 22105);
	ck_assert(cd_version_num("2.18.1") < cd_version_num("2.21.5"));
	ck_assert_int_eq(cd_version_num("2"), -1);
	ck_assert_int_eq(cd_version_num("x.1"), -1);
	ck_assert_int_eq(cd_version_num(NULL), -1);
	ck_assert_int_eq(cd_version_num("2.100.1"), -1);
	/* the fuzzer's input: components far past a long's range */
	ck_assert_int_eq(cd_version_num("99999999999999999999.9"), -1);
	ck_assert_int_eq(cd_version_num("922337203685.99.99"), -1);
}
END_TEST

START_TEST(test_parse_seconds)
{
	double v = -7;

	ck_assert_int_eq(cd_parse_seconds("10", &v), 0);
	ck_assert_double_eq(v, 10.0);
	ck_assert_int_eq(cd_parse_seconds("2.5", &v), 0);
	ck_assert_double_eq(v, 2.5);

	v = -7;
	ck_assert_int_eq(cd_parse_seconds("0", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("-1", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("abc", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("1x", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("inf", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("nan", &v), -1);
	ck_assert_int_eq(cd_parse_seconds(NULL, &v), -1);
	/* found by tests/fuzz/fuzz_parse: strtod's other forms are not decimal seconds */
	ck_assert_int_eq(cd_parse_seconds("+1127", &v), -1);
	ck_assert_int_eq(cd_parse_seconds(" 5", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("0x10", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("1e2", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("infinity", &v), -1);
	ck_assert_int_eq(cd_parse_seconds("31536001", &v), -1); /* a year and a second */
	ck_assert_double_eq(v, -7);
}
END_TEST

START_TEST(test_vec_push)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	int *slot;

	slot = CD_PUSH(v, n, cap);
	ck_assert_ptr_nonnull(slot);
	ck_assert_ptr_eq(slot, v);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(*slot, 0);
	*slot = 100;
	for (int i = 1; i < 5; i++) {
		slot = CD_PUSH(v, n, cap);
		ck_assert_int_eq(*slot, 0);
		*slot = 100 + i;
	}
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(cap, 8); /* doubled once */
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(v[i], 100 + i); /* growth kept the old elements */
	for (int i = 5; i < 9; i++)
		CD_PUSH(v, n, cap);
	ck_assert_uint_eq(n, 9);
	ck_assert_uint_eq(cap, 16);
	/* a reused slot is zeroed again */
	n = 2;
	slot = CD_PUSH(v, n, cap);
	ck_assert_ptr_eq(slot, &v[2]);
	ck_assert_int_eq(v[2], 0);
	ck_assert_int_eq(v[1], 101);
	free(v);
}
END_TEST

static char *tmp_file(const char *content, size_t len)
{
	char *path = xstrdup("/tmp/check_util.XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, len), (ssize_t)len);
	close(fd);
	return path;
}

START_TEST(test_read_line)
{
	char buf[64];
	char *p = tmp_file("hello world\n", 12);
	char *e = tmp_file("", 0);
	char *two = tmp_file("first\nsecond\n", 13);

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(cd_read_line(p, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "hello world");
	ck_assert_int_eq(cd_read_line(two, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "first");
	/* a short buffer truncates, still NUL-terminated */
	ck_assert_int_eq(cd_read_line(p, buf, 6), 0);
	ck_assert_str_eq(buf, "hello");

	errno = 0;
	ck_assert_int_eq(cd_read_line("/nonexistent/commdiag/file", buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_int_eq(cd_read_line(e, buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, ENODATA);
	unlink(p);
	unlink(e);
	unlink(two);
	free(p);
	free(e);
	free(two);
}
END_TEST

static char *read_path(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *s;

	ck_assert_ptr_nonnull(f);
	s = cd_read_file(f, max, len);
	fclose(f);
	return s;
}

START_TEST(test_read_file)
{
	char *big = xmalloc(65537);
	char *p, *p64k, *p64k1, *s;
	size_t len = 0;

	memset(big, 'a', 65537);
	p = tmp_file("0123456789abcdef", 16);
	p64k = tmp_file(big, 65536);
	p64k1 = tmp_file(big, 65537);

	s = read_path(p, 100, &len);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 16);
	ck_assert_str_eq(s, "0123456789abcdef");
	free(s);

	/* exactly max_bytes fits */
	s = read_path(p, 16, &len);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 16);
	free(s);

	errno = 0;
	ck_assert_ptr_null(read_path(p, 15, &len));
	ck_assert_int_eq(errno, EFBIG);

	/* at the buffer's growth boundary: exactly the limit fits, one more byte does not */
	s = read_path(p64k, 65536, &len);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 65536);
	ck_assert_uint_eq(strlen(s), 65536);
	free(s);
	errno = 0;
	ck_assert_ptr_null(read_path(p64k1, 65536, &len));
	ck_assert_int_eq(errno, EFBIG);
	s = read_path(p64k1, 1 << 20, &len);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 65537);
	free(s);
	errno = 0;
	ck_assert_ptr_null(read_path(p64k1, 1000, NULL));
	ck_assert_int_eq(errno, EFBIG);

	unlink(p);
	unlink(p64k);
	unlink(p64k1);
	free(p);
	free(p64k);
	free(p64k1);
	free(big);
}
END_TEST

START_TEST(test_fmt_bytes)
{
	char buf[32];

	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 0), "0 B");
	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 1023), "1023 B");
	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 1024), "1.0 KiB");
	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 1536), "1.5 KiB");
	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 64LL << 20), "64.0 MiB");
	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 1LL << 30), "1.0 GiB");
	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 24LL << 30), "24.0 GiB");
	ck_assert_str_eq(cd_fmt_bytes(buf, sizeof(buf), 3LL << 50), "3.0 PiB");
	ck_assert_ptr_eq(cd_fmt_bytes(buf, sizeof(buf), 1), buf);
}
END_TEST

START_TEST(test_units)
{
	ck_assert_double_eq(cd_gbit_to_gbyte(400), 50.0);
	ck_assert_double_eq(cd_gbit_to_gbyte(100), 12.5);
	ck_assert_double_eq(cd_gbyte_to_gbit(50), 400.0);
	ck_assert(CD_NULL_I64 == INT64_MIN);
}
END_TEST

START_TEST(test_strings)
{
	char *s = xasprintf("%s-%d", "mlx5", 3);

	ck_assert_str_eq(s, "mlx5-3");
	free(s);
	s = xstrndup("abcdef", 3);
	ck_assert_str_eq(s, "abc");
	free(s);
	ck_assert_ptr_null(xstrdup(NULL));
	ck_assert_ptr_null(xstrndup(NULL, 4));
}
END_TEST

START_TEST(test_malloc_pages)
{
	long page = sysconf(_SC_PAGESIZE);

	for (size_t n = 0; n <= (3u << 20); n = n ? n * 8 : 1) {
		unsigned char *p = xmalloc_pages(n);
		size_t zero = 0;

		ck_assert_uint_eq((uintptr_t)p % (uintptr_t)page, 0);
		for (size_t i = 0; i < n; i++)
			zero += !p[i];
		ck_assert_uint_eq(zero, n);
		free(p);
	}
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");

	tcase_add_test(tc, test_parse_size);
	tcase_add_test(tc, test_parse_seconds);
	tcase_add_test(tc, test_version_num);
	tcase_add_test(tc, test_vec_push);
	tcase_add_test(tc, test_read_line);
	tcase_add_test(tc, test_read_file);
	tcase_add_test(tc, test_fmt_bytes);
	tcase_add_test(tc, test_units);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_malloc_pages);
	suite_add_tcase(s, tc);
	return s;
}
