/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fake CUDA driver's files share (fake_cuda.c: devices, contexts,
 * memory, copies; fake_cuda_vmm.c: the virtual memory management calls).
 * Everything here is hidden: the library exports only the driver's entry
 * points and the test hooks (FAKE_EXPORT).
 */
#ifndef FAKE_CUDA_INT_H
#define FAKE_CUDA_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cuda_driver.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

/* Driver results the fake gives (the driver ABI's values). */
#define FAKE_CU_ERROR_NOT_INITIALIZED 3
#define FAKE_CU_ERROR_INVALID_CONTEXT 201
#define FAKE_CU_ERROR_NOT_SUPPORTED   801
#define FAKE_CU_ERROR_ALREADY_MAPPED  208
#define FAKE_CU_ERROR_NOT_MAPPED      211
#define FAKE_MAX_GPUS                 8

/* Each entry point has exactly the type the library's table gives it. */
#define FAKE_SAME_TYPE(member, function)                                                           \
    _Static_assert(                                                                                \
            _Generic(&function, __typeof__(((struct core_cuda_ops *)0)->member) : 1, default : 0), \
            #function " does not match core_cuda_ops." #member)

struct core_cu_ctx {
    int ordinal;
};

/*
 * DEVICE: cuMemAlloc; HOST: cuMemHostAlloc; REGISTERED: cuMemHostRegister;
 * VMM: a cuMemMap mapping (fake_cuda_vmm.c), device memory.
 */
enum fake_mem_kind { FAKE_MEM_DEVICE, FAKE_MEM_HOST, FAKE_MEM_REGISTERED, FAKE_MEM_VMM };

struct fake_mem {
    uintptr_t start;
    size_t size;
    enum fake_mem_kind kind;
    int ordinal;      /* the device of the context it was allocated in (VMM: its location) */
    bool no_access;   /* VMM: mapped, not yet made accessible (cuMemSetAccess) */
    void *allocation; /* VMM: the allocation mapped */
    struct fake_mem *next;
};

/* Guards the memory records and the VMM state. */
extern pthread_mutex_t fake_lock;

/* CORE_CU_SUCCESS once cuInit succeeded. */
core_cu_result fake_ready(void);
/* A call that works in the current context: one must be current and still retained. */
core_cu_result fake_need_context(void);
bool fake_device_valid(core_cu_device device);
/* Caller holds fake_lock. The record containing [start, start + size), or NULL. */
struct fake_mem *fake_mem_find(uintptr_t start, size_t size);
/* Caller holds fake_lock. The first record overlapping [start, start + size), or NULL. */
struct fake_mem *fake_mem_overlap(uintptr_t start, size_t size);
/* Caller holds fake_lock: m joins the records / leaves them (not freed). */
void fake_mem_link(struct fake_mem *m);
void fake_mem_unlink(struct fake_mem *m);
/* Caller holds fake_lock. The records of that kind. */
int fake_mem_count(enum fake_mem_kind kind);

#endif /* FAKE_CUDA_INT_H */
