/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Types the DOCA core headers share: memory access flags (doca_mmap) and the
 * user-data union. DOCA's names and values.
 */
#ifndef DOCA_TYPES_H
#define DOCA_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a device may do with the memory of a doca_mmap (doca_mmap_set_permissions). */
enum doca_access_flag {
    DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
    DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
    DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
    DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
    DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
    DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
    DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
    DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

/* User data carried by DOCA objects. */
union doca_data {
    void *ptr;
    uint64_t u64;
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H */
