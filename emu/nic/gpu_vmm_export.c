/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exporting VMM allocations (gpu_vmm.h). Each allocation is exported once:
 * its entry keeps a retained allocation handle and the POSIX file
 * descriptor while registrations refer to it (each reference counts), so
 * the descriptor number a peer was given stays that allocation's; the last
 * reference given back closes it and releases the handle. The allocation's
 * memory lives at least as long (as a NIC's registration pins it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "nic/gpu_vmm.h"

struct vmm_export {
    struct vmm_export *next;
    core_cu_mem_handle handle; /* retained for the entry */
    core_cu_deviceptr base;    /* the mapping exported */
    uint64_t size;
    int fd;
    uint64_t serial;
    unsigned int refs; /* references given out and not given back */
};

static pthread_mutex_t vmm_export_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vmm_export *vmm_exports;
static uint64_t vmm_serial; /* the last serial given (vmm_export_lock) */

/* The reasons an allocation is not exported, each logged once a process. */
enum vmm_refusal {
    VMM_NO_FD_TYPE,
    VMM_NOT_ONE_MAPPING,
    VMM_EXPORT_FAILED,
    VMM_REFUSAL_END,
};
static bool vmm_logged[VMM_REFUSAL_END];

static bool vmm_once(enum vmm_refusal why)
{
    return !__atomic_exchange_n(&vmm_logged[why], true, __ATOMIC_RELAXED);
}

static bool vmm_calls(const struct core_cuda_ops *cuda)
{
    return cuda->cuMemRetainAllocationHandle != NULL &&
           cuda->cuMemGetAllocationPropertiesFromHandle != NULL &&
           cuda->cuMemExportToShareableHandle != NULL && cuda->cuMemRelease != NULL;
}

/* Whether addr lies in a mapping of allocation h (the handle is the one it was mapped with). */
static bool vmm_same_allocation(const struct core_cuda_ops *cuda, core_cu_deviceptr addr,
                                core_cu_mem_handle h)
{
    core_cu_mem_handle other = 0;

    if (cuda->cuMemRetainAllocationHandle(&other, (void *)(uintptr_t)addr) != CORE_CU_SUCCESS)
        return false;
    cuda->cuMemRelease(other);
    return other == h;
}

/* A new serial: random at first, so that a later process with this pid gives others. */
static uint64_t vmm_next_serial(void)
{
    if (vmm_serial == 0 &&
        getrandom(&vmm_serial, sizeof(vmm_serial), GRND_NONBLOCK) != sizeof(vmm_serial))
        vmm_serial = ((uint64_t)time(NULL) << 24) ^ (uint64_t)getpid();
    return ++vmm_serial;
}

/*
 * The entry of allocation h mapped at [base, base + size), made on first
 * use (vmm_export_lock held); its reference taken. NULL when the export
 * fails. The entry keeps h's reference when it is new.
 */
static struct vmm_export *vmm_entry(const struct core_cuda_ops *cuda, core_cu_mem_handle h,
                                    core_cu_deviceptr base, uint64_t size, bool *h_kept)
{
    struct vmm_export *x;
    core_cu_result rc;
    int fd = -1;

    *h_kept = false;
    for (x = vmm_exports; x != NULL; x = x->next) {
        if (x->handle == h && x->base == base && x->size == size) {
            x->refs++;
            return x;
        }
    }
    x = calloc(1, sizeof(*x));
    if (x == NULL)
        return NULL;
    rc = cuda->cuMemExportToShareableHandle(&fd, h, CORE_CU_MEM_HANDLE_TYPE_POSIX_FD, 0);
    if (rc != CORE_CU_SUCCESS || fd < 0) {
        if (vmm_once(VMM_EXPORT_FAILED))
            EMU_LOG_INFO("GPU memory at 0x%llx (CUDA VMM) cannot be exported: "
                         "cuMemExportToShareableHandle returned CUDA error %d; peers of this host "
                         "get its bytes instead (logged once)",
                         (unsigned long long)base, rc);
        free(x);
        return NULL;
    }
    /* Not inherited across exec by programs this one starts. */
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    *x = (struct vmm_export){.next = vmm_exports,
                             .handle = h,
                             .base = base,
                             .size = size,
                             .fd = fd,
                             .serial = vmm_next_serial(),
                             .refs = 1};
    vmm_exports = x;
    *h_kept = true;
    return x;
}

int emu_gpu_vmm_export(const struct core_cuda_ops *cuda, uintptr_t addr, struct emu_gpu_ref *ref,
                       uint64_t *room)
{
    struct core_cu_mem_alloc_prop prop = {0};
    core_cu_mem_handle h = 0;
    core_cu_deviceptr base = 0;
    struct vmm_export *x;
    size_t size = 0;
    bool kept = false;

    if (!vmm_calls(cuda) || cuda->cuMemRetainAllocationHandle(&h, (void *)addr) != CORE_CU_SUCCESS)
        return ENOENT;
    if (cuda->cuMemGetAllocationPropertiesFromHandle(&prop, h) != CORE_CU_SUCCESS ||
        !(prop.requested_handle_types & CORE_CU_MEM_HANDLE_TYPE_POSIX_FD)) {
        if (vmm_once(VMM_NO_FD_TYPE))
            EMU_LOG_INFO("GPU memory at 0x%lx is a CUDA VMM allocation made without "
                         "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in requestedHandleTypes: peers "
                         "of this host get its bytes, not a reference (logged once)",
                         (unsigned long)addr);
        cuda->cuMemRelease(h);
        return ENOTSUP;
    }
    /* The mapping holding addr; both its ends must be of the same allocation. */
    if (cuda->cuMemGetAddressRange(&base, &size, (core_cu_deviceptr)addr) != CORE_CU_SUCCESS ||
        size == 0 || !vmm_same_allocation(cuda, base, h) ||
        !vmm_same_allocation(cuda, base + size - 1, h)) {
        if (vmm_once(VMM_NOT_ONE_MAPPING))
            EMU_LOG_INFO("GPU memory at 0x%lx (CUDA VMM): cuMemGetAddressRange gives no range "
                         "that is one mapping of its allocation; peers of this host get its "
                         "bytes instead (logged once)",
                         (unsigned long)addr);
        cuda->cuMemRelease(h);
        return ENOTSUP;
    }
    pthread_mutex_lock(&vmm_export_lock);
    x = vmm_entry(cuda, h, base, size, &kept);
    if (x != NULL) {
        *ref = (struct emu_gpu_ref){
                .kind = EMU_GPU_REF_VMM,
                .vmm = {.pid = (int32_t)getpid(), .fd = x->fd, .serial = x->serial, .size = size},
                .offset = (uint64_t)addr - base};
        *room = base + size - (uint64_t)addr;
    }
    pthread_mutex_unlock(&vmm_export_lock);
    if (!kept)
        cuda->cuMemRelease(h); /* the entry holds its own */
    return x != NULL ? 0 : ENOTSUP;
}

void emu_gpu_vmm_unexport(const struct core_cuda_ops *cuda, const struct emu_gpu_ref *ref)
{
    struct vmm_export *gone = NULL;

    pthread_mutex_lock(&vmm_export_lock);
    for (struct vmm_export **link = &vmm_exports; *link != NULL; link = &(*link)->next) {
        struct vmm_export *x = *link;

        if (x->fd == ref->vmm.fd && x->serial == ref->vmm.serial) {
            if (--x->refs == 0) {
                *link = x->next;
                gone = x;
            }
            break;
        }
    }
    pthread_mutex_unlock(&vmm_export_lock);
    if (gone == NULL)
        return;
    close(gone->fd);
    cuda->cuMemRelease(gone->handle);
    free(gone);
}
