/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU memory of CUDA's virtual memory management API for softmlx5's tests,
 * as NCCL and PyTorch's expandable segments make it: an allocation
 * (cuMemCreate on GPU 0) mapped at an address range reserved for it, made
 * readable and writable by GPU 0. Through the project's driver table (the
 * fake driver or the real one); the calls are the table's optional ones.
 */
#ifndef EMU_VMM_TEST_H
#define EMU_VMM_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cuda_driver.h"

struct emu_vmm_buf {
    core_cu_deviceptr va;
    size_t size;
};

/* Whether the driver has the calls these helpers make. */
static inline bool emu_vmm_calls(const struct core_cuda_ops *cuda)
{
    return cuda->cuMemCreate != NULL && cuda->cuMemRelease != NULL &&
           cuda->cuMemAddressReserve != NULL && cuda->cuMemAddressFree != NULL &&
           cuda->cuMemMap != NULL && cuda->cuMemUnmap != NULL && cuda->cuMemSetAccess != NULL &&
           cuda->cuMemGetAllocationGranularity != NULL;
}

/*
 * At least size bytes (rounded up to the granularity) of GPU 0, exportable
 * through the handle types `types` (CORE_CU_MEM_HANDLE_TYPE_*). The CUDA
 * result of the first call that failed (nothing left behind), or 0.
 */
static inline core_cu_result emu_vmm_alloc(const struct core_cuda_ops *cuda, size_t size, int types,
                                           struct emu_vmm_buf *b)
{
    struct core_cu_mem_alloc_prop prop = {.type = CORE_CU_MEM_ALLOCATION_TYPE_PINNED,
                                          .requested_handle_types = types,
                                          .location = {CORE_CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    struct core_cu_mem_access_desc access = {{CORE_CU_MEM_LOCATION_TYPE_DEVICE, 0},
                                             CORE_CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    core_cu_mem_handle h = 0;
    size_t g = 0;
    core_cu_result rc;

    b->va = 0;
    rc = cuda->cuMemGetAllocationGranularity(&g, &prop, CORE_CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (rc != CORE_CU_SUCCESS || g == 0)
        return rc != CORE_CU_SUCCESS ? rc : CORE_CU_ERROR_INVALID_VALUE;
    b->size = (size + g - 1) / g * g;
    rc = cuda->cuMemCreate(&h, b->size, &prop, 0);
    if (rc != CORE_CU_SUCCESS)
        return rc;
    rc = cuda->cuMemAddressReserve(&b->va, b->size, g, 0, 0);
    if (rc == CORE_CU_SUCCESS) {
        rc = cuda->cuMemMap(b->va, b->size, 0, h, 0);
        if (rc == CORE_CU_SUCCESS) {
            rc = cuda->cuMemSetAccess(b->va, b->size, &access, 1);
            if (rc != CORE_CU_SUCCESS)
                cuda->cuMemUnmap(b->va, b->size);
        }
        if (rc != CORE_CU_SUCCESS)
            cuda->cuMemAddressFree(b->va, b->size);
    }
    cuda->cuMemRelease(h); /* the mapping holds the allocation */
    if (rc != CORE_CU_SUCCESS)
        b->va = 0;
    return rc;
}

/* Unmaps (which frees the allocation once no other process maps it) and frees the range. */
static inline void emu_vmm_free(const struct core_cuda_ops *cuda, struct emu_vmm_buf *b)
{
    if (b->va == 0)
        return;
    cuda->cuMemUnmap(b->va, b->size);
    cuda->cuMemAddressFree(b->va, b->size);
    b->va = 0;
}

#endif /* EMU_VMM_TEST_H */
