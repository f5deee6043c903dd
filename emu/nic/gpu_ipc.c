/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peers' GPU memory for the device (gpu_ipc.h). Opening a peer's allocation
 * costs far more than a copy, and CUDA refuses to open one IPC handle twice
 * in a context, so opened allocations of both kinds (IPC handles opened,
 * VMM allocations mapped: gpu_vmm.h) are kept in one table per process
 * (least recently used closed first). The table's lock is held through each
 * copy, and an entry that copies still running read (a deferred set's) is
 * not closed until they are settled: an entry is never closed under a copy
 * that reads it.
 */
#include "gpu_ipc.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common/emu_log.h"
#include "core/cuda_driver.h"
#include "nic/gpu_vmm.h"
#include "nic/mem.h"

struct ipc_open {
    struct emu_gpu_ref ref; /* the allocation (its offset unused) */
    core_cu_context ctx;
    core_cu_deviceptr base;
    uint64_t used;        /* last use (ipc_clock); 0: free */
    unsigned int holders; /* deferred sets whose copies read it */
};

static_assert(EMU_GPU_IPC_OPEN_MAX <= 64, "a deferred set's held mask");

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ipc_open ipc_table[EMU_GPU_IPC_OPEN_MAX];
static uint64_t ipc_clock;

static const struct core_cuda_ops *ipc_cuda(void)
{
    const struct core_cuda_ops *cuda = NULL;

    if (core_cuda_unavailable_reason() != NULL || core_cuda_get(&cuda) != DOCA_SUCCESS)
        return NULL;
    return cuda;
}

int emu_gpu_ipc_export(uintptr_t addr, struct emu_gpu_ref *ref, uint64_t *room)
{
    const struct core_cuda_ops *cuda = ipc_cuda();
    core_cu_ipc_mem_handle h;
    core_cu_deviceptr base = 0;
    size_t size = 0;

    if (cuda == NULL)
        return ENOTSUP;
    /* A VMM allocation, or else cuMemAlloc's (cuIpcGetMemHandle refuses VMM memory). */
    if (emu_gpu_vmm_export(cuda, addr, ref, room) == 0)
        return 0;
    if (cuda->cuMemGetAddressRange(&base, &size, (core_cu_deviceptr)addr) != CORE_CU_SUCCESS ||
        cuda->cuIpcGetMemHandle(&h, base) != CORE_CU_SUCCESS)
        return ENOTSUP;
    memset(ref, 0, sizeof(*ref));
    ref->kind = EMU_GPU_REF_IPC;
    memcpy(ref->handle, h.reserved, sizeof(ref->handle));
    ref->offset = (uint64_t)addr - base;
    *room = base + size - (uint64_t)addr;
    return 0;
}

void emu_gpu_ipc_unexport(const struct emu_gpu_ref *ref)
{
    const struct core_cuda_ops *cuda;

    if (ref->kind != EMU_GPU_REF_VMM || (cuda = ipc_cuda()) == NULL)
        return;
    emu_gpu_vmm_unexport(cuda, ref);
}

/* Whether a and b name the same allocation (offsets aside). */
static bool ipc_same(const struct emu_gpu_ref *a, const struct emu_gpu_ref *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == EMU_GPU_REF_VMM)
        return a->vmm.pid == b->vmm.pid && a->vmm.fd == b->vmm.fd &&
               a->vmm.serial == b->vmm.serial && a->vmm.size == b->vmm.size;
    return memcmp(a->handle, b->handle, sizeof(a->handle)) == 0;
}

/* Opens ref's allocation in the current context: *base, 0 or ENOTSUP (logged). */
static int ipc_map(const struct core_cuda_ops *cuda, const struct emu_gpu_ref *ref,
                   core_cu_deviceptr *base)
{
    core_cu_ipc_mem_handle h;
    core_cu_result rc;

    if (ref->kind == EMU_GPU_REF_VMM)
        return emu_gpu_vmm_map(cuda, ref, base);
    memcpy(h.reserved, ref->handle, sizeof(h.reserved));
    rc = cuda->cuIpcOpenMemHandle(base, h, CORE_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (rc != CORE_CU_SUCCESS) {
        EMU_LOG_INFO("a peer's GPU memory cannot be opened here (CUDA error %d): it sends the "
                     "bytes instead",
                     rc);
        return ENOTSUP;
    }
    return 0;
}

/* Closes an entry's allocation (in its own context; ctx is made current again). */
static void ipc_unmap(const struct core_cuda_ops *cuda, const struct ipc_open *o,
                      core_cu_context ctx)
{
    cuda->cuCtxSetCurrent(o->ctx);
    if (o->ref.kind == EMU_GPU_REF_VMM)
        emu_gpu_vmm_unmap(cuda, o->base, o->ref.vmm.size);
    else
        cuda->cuIpcCloseMemHandle(o->base);
    cuda->cuCtxSetCurrent(ctx);
}

/*
 * The table entry of ref's allocation opened in context ctx (ipc_lock held);
 * NULL when it cannot be opened, or (*busy) when every entry is held.
 */
static struct ipc_open *ipc_open(const struct core_cuda_ops *cuda, core_cu_context ctx,
                                 const struct emu_gpu_ref *ref, bool *busy)
{
    struct ipc_open *victim = NULL;
    core_cu_deviceptr base = 0;

    *busy = false;
    for (int i = 0; i < EMU_GPU_IPC_OPEN_MAX; i++) {
        struct ipc_open *o = &ipc_table[i];

        if (o->used != 0 && o->ctx == ctx && ipc_same(&o->ref, ref)) {
            o->used = ++ipc_clock;
            return o;
        }
        if (o->holders == 0 && (victim == NULL || o->used < victim->used))
            victim = o;
    }
    if (victim == NULL) {
        *busy = true;
        return NULL;
    }
    if (ipc_map(cuda, ref, &base) != 0)
        return NULL;
    if (victim->used != 0)
        ipc_unmap(cuda, victim, ctx);
    *victim = (struct ipc_open){.ref = *ref, .ctx = ctx, .base = base, .used = ++ipc_clock};
    victim->ref.offset = 0;
    return victim;
}

/*
 * The entry of ref's allocation, opened in the context that copies its len
 * bytes into dst: 0 with ipc_lock held, or ENOTSUP (not held) when it cannot
 * be opened. When every entry is held by running copies, d's own (d may be
 * NULL) are settled first, which frees theirs: an error of theirs is
 * returned.
 */
static int ipc_entry(const struct emu_gpu_ref *ref, uintptr_t dst, size_t len,
                     struct emu_gpu_ipc_defer *d, struct ipc_open **out)
{
    const struct core_cuda_ops *cuda = ipc_cuda();
    core_cu_context ctx = NULL;
    bool busy;
    int err;

    /* A VMM mapping's size is known: a reference past its end is not copied. */
    if (ref->kind == EMU_GPU_REF_VMM &&
        (ref->offset > ref->vmm.size || len > ref->vmm.size - ref->offset)) {
        EMU_LOG_INFO("a peer's GPU reference runs past its CUDA VMM mapping (%zu bytes at offset "
                     "%llu of %llu): it sends the bytes instead",
                     len, (unsigned long long)ref->offset, (unsigned long long)ref->vmm.size);
        return ENOTSUP;
    }
    if (cuda == NULL || !emu_mem_gpu_bind(dst) || cuda->cuCtxGetCurrent(&ctx) != CORE_CU_SUCCESS ||
        ctx == NULL)
        return ENOTSUP;
    pthread_mutex_lock(&ipc_lock);
    *out = ipc_open(cuda, ctx, ref, &busy);
    if (*out == NULL && busy && d != NULL && d->held != 0) {
        pthread_mutex_unlock(&ipc_lock);
        err = emu_gpu_ipc_settle(d);
        if (err != 0)
            return err;
        pthread_mutex_lock(&ipc_lock);
        *out = ipc_open(cuda, ctx, ref, &busy);
    }
    if (*out == NULL) {
        pthread_mutex_unlock(&ipc_lock);
        return ENOTSUP;
    }
    return 0;
}

int emu_gpu_ipc_copy(const struct emu_gpu_ref *ref, uintptr_t dst, size_t len)
{
    struct ipc_open *o;
    int err = ipc_entry(ref, dst, len, NULL, &o);

    if (err != 0)
        return err;
    err = emu_mem_gpu_copy(dst, (uintptr_t)(o->base + ref->offset), len);
    pthread_mutex_unlock(&ipc_lock);
    return err == 0 ? 0 : EIO;
}

int emu_gpu_ipc_copy_defer(struct emu_gpu_ipc_defer *d, const struct emu_gpu_ref *ref,
                           uintptr_t dst, size_t len)
{
    struct ipc_open *o;
    int err = ipc_entry(ref, dst, len, d, &o);

    if (err != 0)
        return err;
    err = emu_mem_gpu_copy_defer(&d->mem, dst, (uintptr_t)(o->base + ref->offset), len);
    if (err == 0 && !(d->held & (1ull << (o - ipc_table)))) {
        d->held |= 1ull << (o - ipc_table);
        o->holders++;
    }
    pthread_mutex_unlock(&ipc_lock);
    return err;
}

int emu_gpu_ipc_settle(struct emu_gpu_ipc_defer *d)
{
    int err;

    if (d->mem.n == 0 && d->held == 0)
        return 0;
    err = emu_mem_gpu_settle(&d->mem);
    pthread_mutex_lock(&ipc_lock);
    for (int i = 0; i < EMU_GPU_IPC_OPEN_MAX; i++)
        if (d->held & (1ull << i))
            ipc_table[i].holders--;
    pthread_mutex_unlock(&ipc_lock);
    d->held = 0;
    return err;
}
