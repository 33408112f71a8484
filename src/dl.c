/* SPDX-License-Identifier: BSD-3-Clause */
#include "dl.h"

#include <dlfcn.h>
#include <string.h>

#include "util.h"

void *cd_dl_open(const char *name, char **err)
{
	void *h;

	dlerror();
	/* RTLD_LOCAL: two NCCLs (--nccl-lib and a system one) must not resolve into each other */
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		*err = xstrdup(e ? e : "dlopen failed");
	}
	return h;
}

int cd_dl_bind(void *handle, const char *libname, const struct cd_dl_sym *syms, char **err)
{
	for (const struct cd_dl_sym *s = syms; s->name; s++) {
		dlerror();
		*s->addr = dlsym(handle, s->name);
		if (!*s->addr && !s->optional) {
			*err = xasprintf("%s: symbol '%s' not found", libname, s->name);
			return -1;
		}
	}
	return 0;
}

void cd_dl_close(void *handle)
{
	if (handle)
		dlclose(handle);
}
