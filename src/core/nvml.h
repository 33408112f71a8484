/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The few NVML declarations commdiag uses (NVML's header is not part of the CUDA
 * Toolkit install): types and values as in nvml.h, functions reached through dlsym.
 *
 * Checked by hand against NVIDIA's published nvml.h, NVML_API_VERSION 13, as
 * vendored by github.com/NVIDIA/go-nvml at gen/nvml/nvml.h, commit 2f9e261fe40a
 * ("sync-nvml-h", 2026-07-01): every name dl.c binds is the one nvml.h maps the
 * unversioned call to (nvmlInit -> nvmlInit_v2, nvmlDeviceGetHandleByPciBusId ->
 * _v2, nvmlDeviceGetNvLinkRemotePciInfo -> _v2), every value below is the
 * header's, and nvmlPciInfo_t has the header's layout (tests/check_abi.c checks
 * the offsets; docs/TESTING.md records the check). The header's enums
 * (nvmlReturn_t, nvmlEnableState_t, nvmlGpuP2PStatus_t, ...) have no negative
 * values and fit in 32 bits, so int is their size and calling convention.
 */
#ifndef CD_NVML_H
#define CD_NVML_H

typedef int nvmlReturn_t;            /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlEnableState_t;       /* 0 disabled, 1 enabled */

#define NVML_SUCCESS 0
/* 18 until NVLink 5 (B200: 18 links of 50 GB/s); nvml.h of API 13 says 36 */
#define NVML_NVLINK_MAX_LINKS 36
#define NVML_P2P_CAPS_INDEX_READ 0
#define NVML_NVLINK_DEVICE_TYPE_GPU 0
#define NVML_NVLINK_DEVICE_TYPE_IBMNPU 1
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define NVML_DEVICE_MIG_DISABLE 0
#define NVML_DEVICE_MIG_ENABLE 1

/*
 * What nvmlDeviceGetNvLinkVersion answers (nvmlNvlinkVersion_t): not the
 * generation. 4 is NVLink 3.0 (A100), 6 is 4.0 (H100), 7 is 5.0 (B200).
 */
enum {
	NVML_NVLINK_VERSION_INVALID = 0,
	NVML_NVLINK_VERSION_1_0 = 1,
	NVML_NVLINK_VERSION_2_0 = 2,
	NVML_NVLINK_VERSION_2_2 = 3,
	NVML_NVLINK_VERSION_3_0 = 4,
	NVML_NVLINK_VERSION_3_1 = 5,
	NVML_NVLINK_VERSION_4_0 = 6,
	NVML_NVLINK_VERSION_5_0 = 7,
	NVML_NVLINK_VERSION_6_0 = 8,
};

/* the _v2/_v3 layout: busIdLegacy at 0, domain at 16, bus 20, device 24, busId at 36 */
typedef struct nvmlPciInfo_st {
	char busIdLegacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

#endif
