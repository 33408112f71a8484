/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CD_GPU_H
#define CD_GPU_H

/* "2.28.9" from ncclGetVersion()'s integer (both of NCCL's encodings). */
char *cd_gpu_nccl_version_str(int v);
/* Load NCCL (lib, or libnccl.so.2 when NULL) and ask its version; NULL with *err on failure. */
char *cd_gpu_nccl_version(const char *lib, char **err);

/* The net plugin NCCL would load ("Libfabric (v10)", or "internal"); env is NCCL_NET_PLUGIN. */
char *cd_gpu_nccl_net_plugin(const char *env, char **err);

struct cd_host;
/*
 * Fill paths.cuda_p2p (cuDeviceCanAccessPeer) and paths.nvml_p2p (NVML's P2P read
 * status) once the matrix follows the driver's GPU order; nothing without a driver.
 */
void cd_gpu_p2p_matrix(struct cd_host *h);

#endif
