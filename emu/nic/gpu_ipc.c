/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUDA IPC for the device (gpu_ipc.h). Opening a peer's handle costs far
 * more than a copy, and CUDA refuses to open one handle twice in a context,
 * so opened allocations are kept in one table per process (least recently
 * used closed first). The table's lock is held through each copy, and an
 * entry that copies still running read (a deferred set's) is not closed
 * until they are settled: an entry is never closed under a copy that reads it.
 */
#include "gpu_ipc.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common/emu_log.h"
#include "core/cuda_driver.h"
#include "nic/mem.h"

struct ipc_open {
    core_cu_ipc_mem_handle handle;
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

    if (cuda == NULL ||
        cuda->cuMemGetAddressRange(&base, &size, (core_cu_deviceptr)addr) != CORE_CU_SUCCESS ||
        cuda->cuIpcGetMemHandle(&h, base) != CORE_CU_SUCCESS)
        return ENOTSUP;
    memcpy(ref->handle, h.reserved, sizeof(ref->handle));
    ref->offset = (uint64_t)addr - base;
    *room = base + size - (uint64_t)addr;
    return 0;
}

/*
 * The table entry of ref's allocation opened in context ctx (ipc_lock held);
 * NULL when it cannot be opened, or (*busy) when every entry is held.
 */
static struct ipc_open *ipc_open(const struct core_cuda_ops *cuda, core_cu_context ctx,
                                 const struct emu_gpu_ref *ref, bool *busy)
{
    struct ipc_open *victim = NULL;
    core_cu_ipc_mem_handle h;
    core_cu_deviceptr base = 0;
    core_cu_result rc;

    *busy = false;
    for (int i = 0; i < EMU_GPU_IPC_OPEN_MAX; i++) {
        struct ipc_open *o = &ipc_table[i];

        if (o->used != 0 && o->ctx == ctx && memcmp(o->handle.reserved, ref->handle, 64) == 0) {
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
    memcpy(h.reserved, ref->handle, sizeof(h.reserved));
    rc = cuda->cuIpcOpenMemHandle(&base, h, CORE_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (rc != CORE_CU_SUCCESS) {
        EMU_LOG_INFO("a peer's GPU memory cannot be opened here (CUDA error %d): it sends the "
                     "bytes instead",
                     rc);
        return NULL;
    }
    if (victim->used != 0) {
        cuda->cuCtxSetCurrent(victim->ctx);
        cuda->cuIpcCloseMemHandle(victim->base);
        cuda->cuCtxSetCurrent(ctx);
    }
    *victim = (struct ipc_open){.handle = h, .ctx = ctx, .base = base, .used = ++ipc_clock};
    return victim;
}

/*
 * The entry of ref's allocation, opened in the context that copies into
 * dst: 0 with ipc_lock held, or ENOTSUP (not held) when it cannot be opened.
 * When every entry is held by running copies, d's own (d may be NULL) are
 * settled first, which frees theirs: an error of theirs is returned.
 */
static int ipc_entry(const struct emu_gpu_ref *ref, uintptr_t dst, struct emu_gpu_ipc_defer *d,
                     struct ipc_open **out)
{
    const struct core_cuda_ops *cuda = ipc_cuda();
    core_cu_context ctx = NULL;
    bool busy;
    int err;

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
    int err = ipc_entry(ref, dst, NULL, &o);

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
    int err = ipc_entry(ref, dst, d, &o);

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
