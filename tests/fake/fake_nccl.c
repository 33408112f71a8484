/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake NCCL for the end-to-end tests, built as libnccl.so.2 and found through
 * LD_LIBRARY_PATH: it loads, and ncclGetVersion fails with ncclSystemError (2).
 * Built with -DMISSING_SYMBOL it exports no ncclGetVersion at all.
 */
#ifndef MISSING_SYMBOL
int ncclGetVersion(int *version)
{
	*version = 0;
	return 2; /* ncclSystemError */
}
#else
int ncclFakeOnly(void);
int ncclFakeOnly(void)
{
	return 0;
}
#endif
