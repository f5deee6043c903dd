/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Importing a peer's VMM allocation (gpu_vmm.h): its file descriptor taken
 * from the peer's process with pidfd_getfd (Linux 5.6; the caller needs
 * ptrace permission over the peer, PTRACE_MODE_ATTACH_REALCREDS: the same
 * user and Yama letting it, or CAP_SYS_PTRACE), imported, mapped at a new
 * address reserved for it, and made accessible to the device of the current
 * context. The allocation handle is released once mapped: the mapping keeps
 * the allocation, and unmapping it gives it back.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "nic/gpu_vmm.h"

static bool vmm_pidfd_logged;

static bool vmm_import_calls(const struct core_cuda_ops *cuda)
{
    return cuda->cuMemImportFromShareableHandle != NULL && cuda->cuMemRelease != NULL &&
           cuda->cuMemAddressReserve != NULL && cuda->cuMemAddressFree != NULL &&
           cuda->cuMemMap != NULL && cuda->cuMemUnmap != NULL && cuda->cuMemSetAccess != NULL &&
           cuda->cuMemGetAllocationPropertiesFromHandle != NULL &&
           cuda->cuMemGetAllocationGranularity != NULL;
}

/*
 * Process pid's file descriptor fd, duplicated into this process: the new
 * one, or -errno with *call the system call that failed.
 */
static int vmm_take_fd(int pid, int fd, const char **call)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int got, err;

    *call = "pidfd_open";
    if (pidfd < 0)
        return -errno;
    *call = "pidfd_getfd";
    got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    err = got < 0 ? errno : 0;
    close(pidfd);
    return got < 0 ? -err : got;
#else
    (void)pid;
    (void)fd;
    *call = "pidfd_getfd (not in this system's headers)";
    return -ENOSYS;
#endif
}

/* One INFO line for a CUDA call that refused the import (each time: a refusal ends F_GPU). */
static int vmm_refused(const struct emu_gpu_ref *ref, const char *call, core_cu_result rc)
{
    EMU_LOG_INFO("a peer's GPU memory (CUDA VMM allocation of process %d, %llu bytes) cannot be "
                 "mapped here: %s returned CUDA error %d; it sends the bytes instead",
                 ref->vmm.pid, (unsigned long long)ref->vmm.size, call, rc);
    return ENOTSUP;
}

int emu_gpu_vmm_map(const struct core_cuda_ops *cuda, const struct emu_gpu_ref *ref,
                    core_cu_deviceptr *base)
{
    struct core_cu_mem_alloc_prop prop = {0};
    struct core_cu_mem_access_desc access = {{CORE_CU_MEM_LOCATION_TYPE_DEVICE, 0},
                                             CORE_CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    core_cu_mem_handle h = 0;
    core_cu_deviceptr va = 0;
    core_cu_result rc;
    size_t granularity = 0;
    const char *call;
    int fd;

    if (!vmm_import_calls(cuda)) {
        EMU_LOG_INFO("a peer's GPU memory (CUDA VMM allocation of process %d) cannot be mapped "
                     "here: the CUDA driver has no virtual memory management calls; it sends the "
                     "bytes instead",
                     ref->vmm.pid);
        return ENOTSUP;
    }
    fd = vmm_take_fd(ref->vmm.pid, ref->vmm.fd, &call);
    if (fd < 0) {
        if (!__atomic_exchange_n(&vmm_pidfd_logged, true, __ATOMIC_RELAXED))
            EMU_LOG_INFO("a peer's GPU memory (CUDA VMM) cannot be reached: %s for process %d's "
                         "descriptor %d: %s (taking it needs Linux 5.6 and ptrace permission "
                         "over the peer: the same user and Yama's ptrace_scope 0, or the peer a "
                         "descendant, or CAP_SYS_PTRACE); peers send the bytes instead (logged "
                         "once)",
                         call, ref->vmm.pid, ref->vmm.fd, strerror(-fd));
        return ENOTSUP;
    }
    rc = cuda->cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd,
                                              CORE_CU_MEM_HANDLE_TYPE_POSIX_FD);
    close(fd); /* the import holds the allocation; the descriptor is not needed any more */
    if (rc != CORE_CU_SUCCESS)
        return vmm_refused(ref, "cuMemImportFromShareableHandle", rc);
    rc = cuda->cuMemGetAllocationPropertiesFromHandle(&prop, h);
    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuMemGetAllocationGranularity(&granularity, &prop,
                                                 CORE_CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (rc != CORE_CU_SUCCESS || granularity == 0 || ref->vmm.size % granularity != 0) {
        cuda->cuMemRelease(h);
        return vmm_refused(ref, "cuMemGetAllocationGranularity (or the size is not a multiple)",
                           rc != CORE_CU_SUCCESS ? rc : CORE_CU_ERROR_INVALID_VALUE);
    }
    rc = cuda->cuCtxGetDevice(&access.location.id);
    if (rc != CORE_CU_SUCCESS) {
        cuda->cuMemRelease(h);
        return vmm_refused(ref, "cuCtxGetDevice", rc);
    }
    rc = cuda->cuMemAddressReserve(&va, ref->vmm.size, granularity, 0, 0);
    if (rc != CORE_CU_SUCCESS) {
        cuda->cuMemRelease(h);
        return vmm_refused(ref, "cuMemAddressReserve", rc);
    }
    rc = cuda->cuMemMap(va, ref->vmm.size, 0, h, 0);
    cuda->cuMemRelease(h); /* mapped: the mapping holds it; not mapped: nothing does */
    if (rc != CORE_CU_SUCCESS) {
        cuda->cuMemAddressFree(va, ref->vmm.size);
        return vmm_refused(ref, "cuMemMap", rc);
    }
    rc = cuda->cuMemSetAccess(va, ref->vmm.size, &access, 1);
    if (rc != CORE_CU_SUCCESS) {
        emu_gpu_vmm_unmap(cuda, va, ref->vmm.size);
        return vmm_refused(ref, "cuMemSetAccess", rc);
    }
    EMU_LOG_DBG("process %d's CUDA VMM allocation (descriptor %d, %llu bytes) mapped at 0x%llx "
                "for device %d",
                ref->vmm.pid, ref->vmm.fd, (unsigned long long)ref->vmm.size,
                (unsigned long long)va, access.location.id);
    *base = va;
    return 0;
}

void emu_gpu_vmm_unmap(const struct core_cuda_ops *cuda, core_cu_deviceptr base, uint64_t size)
{
    core_cu_result rc = cuda->cuMemUnmap(base, size);

    if (rc == CORE_CU_SUCCESS)
        rc = cuda->cuMemAddressFree(base, size);
    if (rc != CORE_CU_SUCCESS)
        EMU_LOG_ERR("a peer's GPU memory (CUDA VMM, %llu bytes at 0x%llx) cannot be unmapped: "
                    "CUDA error %d; its address range stays reserved",
                    (unsigned long long)size, (unsigned long long)base, rc);
}
