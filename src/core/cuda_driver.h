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
typedef struct core_cu_stream *core_cu_stream;
/* CUipcMemHandle: 64 opaque bytes, passed by value. */
typedef struct {
    char reserved[64];
} core_cu_ipc_mem_handle;
/* The virtual memory management API's (cuMemCreate, cuMemMap): CUmemGenericAllocationHandle. */
typedef unsigned long long core_cu_mem_handle;
/* CUmemLocation */
struct core_cu_mem_location {
    int type; /* CORE_CU_MEM_LOCATION_TYPE_* */
    int id;   /* device ordinal for a device location */
};
/* CUmemAllocationProp */
struct core_cu_mem_alloc_prop {
    int type;                   /* CORE_CU_MEM_ALLOCATION_TYPE_PINNED */
    int requested_handle_types; /* CORE_CU_MEM_HANDLE_TYPE_* bits */
    struct core_cu_mem_location location;
    void *win32_handle_meta_data;
    struct {
        unsigned char compression_type;
        unsigned char gpu_direct_rdma_capable;
        unsigned short usage;
        unsigned char reserved[4];
    } alloc_flags;
};
/* CUmemAccessDesc */
struct core_cu_mem_access_desc {
    struct core_cu_mem_location location;
    int flags; /* CORE_CU_MEM_ACCESS_FLAGS_* */
};
_Static_assert(sizeof(struct core_cu_mem_alloc_prop) == 32, "CUmemAllocationProp is 32 bytes");
_Static_assert(sizeof(struct core_cu_mem_access_desc) == 12, "CUmemAccessDesc is 12 bytes");

#define CORE_CU_SUCCESS                          0
#define CORE_CU_ERROR_INVALID_VALUE              1
#define CORE_CU_ERROR_OUT_OF_MEMORY              2
#define CORE_CU_ERROR_NO_DEVICE                  100
#define CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR    75
#define CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR    76
#define CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED    124
#define CORE_CU_POINTER_ATTR_MEMORY_TYPE         2
#define CORE_CU_POINTER_ATTR_DEVICE_ORDINAL      9
#define CORE_CU_MEMORYTYPE_HOST                  1
#define CORE_CU_MEMORYTYPE_DEVICE                2
#define CORE_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1
#define CORE_CU_ERROR_INSUFFICIENT_DRIVER        35
#define CORE_CU_ERROR_INVALID_DEVICE             101
#define CORE_CU_MEMHOSTALLOC_PORTABLE            0x01
#define CORE_CU_MEMHOSTALLOC_DEVICEMAP           0x02
#define CORE_CU_MEMHOSTREGISTER_PORTABLE         0x01
#define CORE_CU_MEMHOSTREGISTER_DEVICEMAP        0x02
#define CORE_CU_MEMHOSTREGISTER_IOMEMORY         0x04
#define CORE_CU_STREAM_NON_BLOCKING              0x01
#define CORE_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS  0x01
#define CORE_CU_MEM_ALLOCATION_TYPE_PINNED       0x1
#define CORE_CU_MEM_HANDLE_TYPE_NONE             0x0
#define CORE_CU_MEM_HANDLE_TYPE_POSIX_FD         0x1 /* CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR */
#define CORE_CU_MEM_LOCATION_TYPE_DEVICE         0x1
#define CORE_CU_MEM_ACCESS_FLAGS_PROT_READWRITE  0x3
#define CORE_CU_MEM_ALLOC_GRANULARITY_MINIMUM    0x0

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
      (void *handle, core_cu_deviceptr ptr, size_t size, int type, unsigned long long flags))     \
    X(cuDeviceGetByPCIBusId, "cuDeviceGetByPCIBusId", (core_cu_device * device, const char *id))  \
    X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                               \
    X(cuMemsetD8, "cuMemsetD8_v2", (core_cu_deviceptr dst, unsigned char value, size_t count))    \
    X(cuMemHostAlloc, "cuMemHostAlloc", (void **ptr, size_t bytes, unsigned int flags))           \
    X(cuMemFreeHost, "cuMemFreeHost", (void *ptr))                                                \
    X(cuMemHostRegister, "cuMemHostRegister_v2", (void *ptr, size_t bytes, unsigned int flags))   \
    X(cuMemHostUnregister, "cuMemHostUnregister", (void *ptr))                                    \
    X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2",                                  \
      (core_cu_deviceptr * dptr, void *host, unsigned int flags))                                 \
    X(cuStreamCreate, "cuStreamCreate", (core_cu_stream * stream, unsigned int flags))            \
    X(cuStreamDestroy, "cuStreamDestroy_v2", (core_cu_stream stream))                             \
    X(cuStreamSynchronize, "cuStreamSynchronize", (core_cu_stream stream))                        \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                                  \
      (void *dst, core_cu_deviceptr src, size_t bytes, core_cu_stream stream))                    \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                                  \
      (core_cu_deviceptr dst, const void *src, size_t bytes, core_cu_stream stream))              \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                                  \
      (core_cu_deviceptr dst, core_cu_deviceptr src, size_t bytes, core_cu_stream stream))        \
    X(cuMemGetAddressRange, "cuMemGetAddressRange_v2",                                            \
      (core_cu_deviceptr * base, size_t * size, core_cu_deviceptr ptr))                           \
    X(cuIpcGetMemHandle, "cuIpcGetMemHandle",                                                     \
      (core_cu_ipc_mem_handle * handle, core_cu_deviceptr ptr))                                   \
    X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2",                                                \
      (core_cu_deviceptr * ptr, core_cu_ipc_mem_handle handle, unsigned int flags))               \
    X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", (core_cu_deviceptr ptr))                        \
    X(cuCtxGetDevice, "cuCtxGetDevice", (core_cu_device * device))

/*
 * Calls resolved when the driver has them: a NULL member is a driver older
 * than they are (the virtual memory management API came with CUDA 10.2 and
 * cuMemRetainAllocationHandle with 11.0), and the caller does without.
 */
#define CORE_CUDA_OPTIONAL_SYMBOLS(X)                                                       \
    X(cuMemCreate, "cuMemCreate",                                                           \
      (core_cu_mem_handle * handle, size_t size, const struct core_cu_mem_alloc_prop *prop, \
       unsigned long long flags))                                                           \
    X(cuMemRelease, "cuMemRelease", (core_cu_mem_handle handle))                            \
    X(cuMemAddressReserve, "cuMemAddressReserve",                                           \
      (core_cu_deviceptr * ptr, size_t size, size_t alignment, core_cu_deviceptr addr,      \
       unsigned long long flags))                                                           \
    X(cuMemAddressFree, "cuMemAddressFree", (core_cu_deviceptr ptr, size_t size))           \
    X(cuMemMap, "cuMemMap",                                                                 \
      (core_cu_deviceptr ptr, size_t size, size_t offset, core_cu_mem_handle handle,        \
       unsigned long long flags))                                                           \
    X(cuMemUnmap, "cuMemUnmap", (core_cu_deviceptr ptr, size_t size))                       \
    X(cuMemSetAccess, "cuMemSetAccess",                                                     \
      (core_cu_deviceptr ptr, size_t size, const struct core_cu_mem_access_desc *desc,      \
       size_t count))                                                                       \
    X(cuMemRetainAllocationHandle, "cuMemRetainAllocationHandle",                           \
      (core_cu_mem_handle * handle, void *addr))                                            \
    X(cuMemGetAllocationPropertiesFromHandle, "cuMemGetAllocationPropertiesFromHandle",     \
      (struct core_cu_mem_alloc_prop * prop, core_cu_mem_handle handle))                    \
    X(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity",                       \
      (size_t * granularity, const struct core_cu_mem_alloc_prop *prop, int option))        \
    X(cuMemExportToShareableHandle, "cuMemExportToShareableHandle",                         \
      (void *shareable, core_cu_mem_handle handle, int type, unsigned long long flags))     \
    X(cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle",                     \
      (core_cu_mem_handle * handle, void *os_handle, int type))

#define CORE_CUDA_MEMBER(member, symbol, params) core_cu_result(*member) params;
struct core_cuda_ops {
    CORE_CUDA_SYMBOLS(CORE_CUDA_MEMBER)
    CORE_CUDA_OPTIONAL_SYMBOLS(CORE_CUDA_MEMBER)
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

/* What loading the driver found, for callers that explain a failure themselves. */
struct core_cuda_probe {
    doca_error_t status;         /* core_cuda_get()'s answer */
    core_cu_result init_result;  /* cuInit(0)'s result; CORE_CU_SUCCESS when it was not reached */
    const char *init_error_name; /* cuGetErrorName of init_result ("?" when it succeeded) */
    const char *init_error_text; /* cuGetErrorString of init_result */
    int driver_version;          /* cuDriverGetVersion (13000 = CUDA 13.0); 0 when unknown */
};

/*
 * Loads the driver like core_cuda_get() (once per process) and describes
 * the outcome, logging nothing. DOCA_ERROR_NOT_SUPPORTED in probe->status:
 * the library or a symbol is missing (core_cuda_unavailable_reason() says
 * which); DOCA_ERROR_DRIVER: the library loaded and cuInit failed.
 */
void core_cuda_probe(struct core_cuda_probe *probe);

#endif /* CORE_CUDA_DRIVER_H */
