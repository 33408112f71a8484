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
/* NVLink generation of nvmlDeviceGetNvLinkVersion's nvmlNvlinkVersion_t (4 -> 3 for NVLink 3.0); 0 unknown. */
int cd_nvml_nvlink_gen(unsigned v);
/* A CUDA UUID's 16 bytes as nvidia-smi writes them: "GPU-..." or, for a MIG instance, "MIG-...". */
char *cd_gpu_uuid_str(const unsigned char b[16], int mig);
/* Turn the UUIDs of MIG instances (sharing a bus id, or mig_on[i] from NVML; may be NULL) to "MIG-". */
void cd_gpu_mark_mig(struct cd_host *h, const int *mig_on);
/*
 * Fill paths.cuda_p2p (cuDeviceCanAccessPeer) and paths.nvml_p2p (NVML's P2P read
 * status) once the matrix follows the driver's GPU order; nothing without a driver.
 */
void cd_gpu_p2p_matrix(struct cd_host *h);

#endif
