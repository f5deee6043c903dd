/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CUDA driver API, reached through function pointers resolved at run
 * time from libcuda.so.1. The types below are the driver ABI's (written here
 * so that host code builds without the CUDA toolkit); only the calls the
 * project uses are listed. Symbols with a versioned ABI name (_v2) are
 * resolved under that name.
 */
#ifndef CORE_CUDA_DRIVER_H
#define CORE_CUDA_DRIVER_H

#include <stddef.h>

#include "doca_error.h"

typedef int core_cu_result;
typedef int core_cu_device;
typedef struct core_cu_ctx *core_cu_context;
typedef unsigned long long core_cu_deviceptr;

#define CORE_CU_SUCCESS                          0
#define CORE_CU_ERROR_NO_DEVICE                  100
#define CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR    75
#define CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR    76
#define CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED    124
#define CORE_CU_POINTER_ATTR_MEMORY_TYPE         2
#define CORE_CU_POINTER_ATTR_DEVICE_ORDINAL      9
#define CORE_CU_MEMORYTYPE_HOST                  1
#define CORE_CU_MEMORYTYPE_DEVICE                2
#define CORE_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1

/* X(member, symbol, parameters); every call returns core_cu_result. */
#define CORE_CUDA_SYMBOLS(X)                                                                      \
    X(cuInit, "cuInit", (unsigned int flags))                                                     \
    X(cuDriverGetVersion, "cuDriverGetVersion", (int *version))                                   \
    X(cuGetErrorName, "cuGetErrorName", (core_cu_result error, const char **name))                \
    X(cuGetErrorString, "cuGetErrorString", (core_cu_result error, const char **text))            \
    X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                         \
    X(cuDeviceGet, "cuDeviceGet", (core_cu_device * device, int ordinal))                         \
    X(cuDeviceGetName, "cuDeviceGetName", (char *name, int len, core_cu_device device))           \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute",                                               \
      (int *value, int attribute, core_cu_device device))                                         \
    X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", (char *bus_id, int len, core_cu_device device)) \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                                       \
      (core_cu_context * ctx, core_cu_device device))                                             \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (core_cu_device device))         \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", (core_cu_context * ctx))                                \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", (core_cu_context ctx))                                  \
    X(cuPointerGetAttribute, "cuPointerGetAttribute",                                             \
      (void *data, int attribute, core_cu_deviceptr ptr))                                         \
    X(cuMemAlloc, "cuMemAlloc_v2", (core_cu_deviceptr * ptr, size_t bytes))                       \
    X(cuMemFree, "cuMemFree_v2", (core_cu_deviceptr ptr))                                         \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, core_cu_deviceptr src, size_t bytes))          \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (core_cu_deviceptr dst, const void *src, size_t bytes))    \
    X(cuMemGetHandleForAddressRange, "cuMemGetHandleForAddressRange",                             \
      (void *handle, core_cu_deviceptr ptr, size_t size, int type, unsigned long long flags))

#define CORE_CUDA_MEMBER(member, symbol, params) core_cu_result(*member) params;
struct core_cuda_ops {
    CORE_CUDA_SYMBOLS(CORE_CUDA_MEMBER)
};
#undef CORE_CUDA_MEMBER

#define CORE_LIBCUDA_ENV "DOCA_GPUNETIO_LIBCUDA"

/*
 * Loads libcuda.so.1 and calls cuInit(0) on first use (thread-safe), and
 * returns the table. DOCA_ERROR_NOT_SUPPORTED when the driver library or a
 * symbol is missing, DOCA_ERROR_DRIVER when cuInit fails (no device, driver
 * mismatch); the reason is logged and kept for the life of the process.
 */
doca_error_t core_cuda_get(const struct core_cuda_ops **cuda_out);

/* Why the CUDA driver is unusable (one line), or NULL when it is usable. */
const char *core_cuda_unavailable_reason(void);

#endif /* CORE_CUDA_DRIVER_H */
