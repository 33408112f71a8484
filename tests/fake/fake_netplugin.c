/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stand-in NCCL net plugin for the tests: only what discovery reads, the exported
 * ncclNetPlugin_vN object, whose first member (in every version) is the plugin's name.
 * Built as libnccl-net.so (or libnccl-net-NAME.so) by tests/run_e2e.sh.
 */
#ifndef PLUGIN_VERSION_SYMBOL
#define PLUGIN_VERSION_SYMBOL ncclNetPlugin_v8
#endif

struct fake_net {
	const char *name;
	void *init; /* the rest of the function table: never called by commdiag */
};

const struct fake_net PLUGIN_VERSION_SYMBOL = { "FakeNet", 0 };
