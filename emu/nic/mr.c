/* SPDX-License-Identifier: BSD-3-Clause */
#include "mr.h"

#include <errno.h>
#include <stdlib.h>

#include "nic/mem.h"
#include "nic/nic.h"

const char *emu_mr_check_str(enum emu_mr_check result)
{
    switch (result) {
    case EMU_MR_OK:
        return "ok";
    case EMU_MR_BAD_KEY:
        return "unknown memory key";
    case EMU_MR_BAD_PD:
        return "memory key of another protection domain";
    case EMU_MR_OUT_OF_RANGE:
        return "range outside the registration";
    case EMU_MR_NO_ACCESS:
        return "access not allowed by the registration";
    }
    return "?";
}

struct emu_pd *emu_pd_of(struct ibv_pd *pd)
{
    return (struct emu_pd *)pd;
}

int emu_mr_register(struct emu_pd *pd, uintptr_t addr, uint64_t iova, uint64_t length, int access,
                    bool gpu, struct emu_mr **mr_out)
{
    struct emu_nic *nic = pd->nic;
    struct emu_mr *mr;
    int64_t index;

    if (length == 0 || iova + length < iova || addr + length < addr)
        return EINVAL;
    /* Remote write and atomics need local write, as the IB specification requires. */
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
        !(access & IBV_ACCESS_LOCAL_WRITE))
        return EINVAL;
    /*
     * As ConnectX's pinning: host pages mapped, readable, and writable for a
     * writable registration (checked without touching them).
     */
    if (!gpu && emu_mem_host_pinnable((const void *)addr, (size_t)length,
                                      (access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                                 IBV_ACCESS_REMOTE_ATOMIC)) != 0) != 0)
        return EFAULT;
    mr = calloc(1, sizeof(*mr));
    if (mr == NULL)
        return ENOMEM;
    mr->nic = nic;
    mr->pd = pd;
    mr->iova = iova;
    mr->addr = addr;
    mr->length = length;
    mr->access = access;
    mr->gpu = gpu;
    mr->ipc = gpu && emu_gpu_ipc_export(addr, &mr->ipc_ref, &mr->ipc_room) == 0;

    pthread_rwlock_wrlock(&nic->mkey_lock);
    index = emu_table_insert(&nic->mkeys, mr);
    if (index >= 0)
        mr->key = ((uint32_t)index << 8) | nic->mkey_variant++;
    pthread_rwlock_unlock(&nic->mkey_lock);
    if (index < 0) {
        if (mr->ipc)
            emu_gpu_ipc_unexport(&mr->ipc_ref);
        free(mr);
        return ENOMEM;
    }
    pthread_mutex_lock(&nic->lock);
    pd->users++;
    pthread_mutex_unlock(&nic->lock);
    *mr_out = mr;
    return 0;
}

int emu_mr_deregister(struct emu_mr *mr)
{
    struct emu_nic *nic = mr->nic;

    /* Out of the table first: no new access can take the key. */
    pthread_rwlock_wrlock(&nic->mkey_lock);
    emu_table_remove(&nic->mkeys, mr->key >> 8);
    pthread_rwlock_unlock(&nic->mkey_lock);
    /* Then every access in flight through it finishes (emu_mr_put wakes us). */
    pthread_mutex_lock(&nic->mkey_idle_lock);
    while (__atomic_load_n(&mr->users, __ATOMIC_ACQUIRE) != 0)
        pthread_cond_wait(&nic->mkey_idle, &nic->mkey_idle_lock);
    pthread_mutex_unlock(&nic->mkey_idle_lock);
    pthread_mutex_lock(&nic->lock);
    mr->pd->users--;
    pthread_mutex_unlock(&nic->lock);
    if (mr->ipc)
        emu_gpu_ipc_unexport(&mr->ipc_ref);
    free(mr);
    return 0;
}

static enum emu_mr_check mr_check(const struct emu_mr *mr, uint32_t key, uint32_t pdn,
                                  uint64_t iova, uint64_t len, int access)
{
    if (mr == NULL || mr->key != key)
        return EMU_MR_BAD_KEY;
    if (mr->pd->pdn != pdn)
        return EMU_MR_BAD_PD;
    if (iova < mr->iova || len > mr->length || iova - mr->iova > mr->length - len)
        return EMU_MR_OUT_OF_RANGE;
    if ((mr->access & access) != access)
        return EMU_MR_NO_ACCESS;
    return EMU_MR_OK;
}

enum emu_mr_check emu_mr_get(struct emu_nic *nic, uint32_t key, uint32_t pdn, uint64_t iova,
                             uint64_t len, int access, struct emu_mr **mr_out)
{
    struct emu_mr *mr;
    enum emu_mr_check result;

    pthread_rwlock_rdlock(&nic->mkey_lock);
    mr = emu_table_get(&nic->mkeys, key >> 8);
    result = mr_check(mr, key, pdn, iova, len, access);
    if (result == EMU_MR_OK) {
        __atomic_add_fetch(&mr->users, 1, __ATOMIC_RELAXED);
        *mr_out = mr;
    }
    pthread_rwlock_unlock(&nic->mkey_lock);
    return result;
}

void emu_mr_put(struct emu_mr *mr)
{
    struct emu_nic *nic = mr->nic;

    if (__atomic_sub_fetch(&mr->users, 1, __ATOMIC_RELEASE) != 0)
        return;
    /* A deregistration may be waiting for the last access. */
    pthread_mutex_lock(&nic->mkey_idle_lock);
    pthread_cond_broadcast(&nic->mkey_idle);
    pthread_mutex_unlock(&nic->mkey_idle_lock);
}

int emu_mr_write(const struct emu_mr *mr, uint64_t iova, const void *src, size_t len)
{
    uintptr_t at = mr->addr + (iova - mr->iova);

    /* Host pages may have been unmapped since the registration: never fault. */
    return mr->gpu ? emu_mem_write(true, at, src, len) : emu_mem_host_copy_to((void *)at, src, len);
}

int emu_mr_read(const struct emu_mr *mr, uint64_t iova, void *dst, size_t len)
{
    uintptr_t at = mr->addr + (iova - mr->iova);

    return mr->gpu ? emu_mem_read(true, at, dst, len)
                   : emu_mem_host_copy_from(dst, (const void *)at, len);
}

void *emu_mr_host_ptr(const struct emu_mr *mr, uint64_t iova)
{
    return mr->gpu ? NULL : (void *)(mr->addr + (iova - mr->iova));
}
