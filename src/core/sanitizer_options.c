/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Defaults for the AddressSanitizer runtime, compiled only into SANITIZE=1 and fuzz builds.
 *
 * gcc 12's runtime guesses where a dlopen'd library's thread-local block starts from its
 * address alone: when malloc happens to return an address 16 bytes past a page boundary it
 * takes the 16 bytes before it for a glibc-2.19 header and later scans from whatever that
 * holds (google/sanitizers#1322). At exit the leak checker's tracer then dies of SIGSEGV near
 * address 0 ("Tracer caught signal 11") and the run exits 1 with every result already
 * written. Whether it happens depends only on the heap layout, so one machine never sees it
 * and another sees it in every run of the same command (the CI of 2026-11 did, in `check`).
 * Not following __tls_get_addr avoids the guess; commdiag keeps nothing in thread-local
 * storage, so the leak check loses nothing of its own. ASAN_OPTIONS still overrides this.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CD_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CD_ASAN 1
#endif

#ifdef CD_ASAN
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "intercept_tls_get_addr=0";
}
#else
/* ISO C wants at least one declaration in a translation unit */
typedef int cd_sanitizer_options_unused;
#endif
