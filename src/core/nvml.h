/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The few NVML declarations commdiag uses (NVML's header is not part of the CUDA
 * Toolkit install): types and values as in nvml.h, functions reached through dlsym.
 */
#ifndef CD_NVML_H
#define CD_NVML_H

typedef int nvmlReturn_t;            /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlEnableState_t;       /* 0 disabled, 1 enabled */

#define NVML_SUCCESS 0
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_P2P_CAPS_INDEX_READ 0
#define NVML_NVLINK_DEVICE_TYPE_GPU 0
#define NVML_NVLINK_DEVICE_TYPE_IBMNPU 1
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2

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
