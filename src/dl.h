/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU stack is loaded, not linked: dlopen by SONAME (never a bare "libcuda.so",
 * never the current directory) and bind a table of symbols by their versioned names.
 */
#ifndef CD_DL_H
#define CD_DL_H

#define CD_SONAME_CUDA "libcuda.so.1"
#define CD_SONAME_NVML "libnvidia-ml.so.1"
#define CD_SONAME_NCCL "libnccl.so.2"

struct cd_dl_sym {
	const char *name; /* as exported: "cuMemAlloc_v2", "nvmlInit_v2" */
	void **addr;
	int optional;     /* absent in older libraries: left NULL */
};

/* Returns the handle, or NULL with *err set to a heap copy of the loader's message. */
void *cd_dl_open(const char *name, char **err);
/* Bind every symbol; a missing required one fails with *err naming it and the library. */
int cd_dl_bind(void *handle, const char *libname, const struct cd_dl_sym *syms, char **err);
void cd_dl_close(void *handle);

#endif
