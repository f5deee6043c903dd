/* SPDX-License-Identifier: BSD-3-Clause */
#include "umem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "nic/config.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/table.h"

#define EMU_LOG_MAX_UMEM 16

/* Per device, hung off the device (nic->umems): the umem table and its lock. */
struct umem_dev {
    pthread_mutex_t lock;
    struct emu_table table;
};

static void umem_dev_init(void *part)
{
    struct umem_dev *d = part;

    pthread_mutex_init(&d->lock, NULL);
    /* Id 0 is never handed out: a zeroed command field never names a umem. */
    emu_table_init(&d->table, 1u << EMU_LOG_MAX_UMEM, 1);
}

static struct umem_dev *umem_dev_of(struct emu_nic *nic)
{
    return emu_nic_part((void **)&nic->umems, sizeof(struct umem_dev), umem_dev_init);
}

int emu_umem_register(struct emu_nic *nic, uintptr_t addr, uint64_t size, uint32_t access, bool gpu,
                      struct emu_umem **umem_out)
{
    struct umem_dev *d = umem_dev_of(nic);
    struct emu_umem *umem;
    int64_t index;

    if (size == 0 || addr == 0 || addr + size < addr)
        return EINVAL;
    if (d == NULL)
        return ENOMEM;
    /* Host memory is pinned by the kernel on ConnectX: mapped, with the protection asked for. */
    if (!gpu && emu_mem_host_pinnable((const void *)addr, (size_t)size,
                                      (access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                                 IBV_ACCESS_REMOTE_ATOMIC)) != 0) != 0)
        return EFAULT;
    umem = calloc(1, sizeof(*umem));
    if (umem == NULL)
        return ENOMEM;
    umem->nic = nic;
    umem->addr = addr;
    umem->size = size;
    umem->access = access;
    umem->gpu = gpu;
    pthread_mutex_lock(&d->lock);
    index = emu_table_insert(&d->table, umem);
    if (index >= 0)
        umem->id = (uint32_t)index;
    pthread_mutex_unlock(&d->lock);
    if (index < 0) {
        free(umem);
        return ENOMEM;
    }
    *umem_out = umem;
    return 0;
}

int emu_umem_deregister(struct emu_umem *umem)
{
    struct umem_dev *d = umem_dev_of(umem->nic);

    pthread_mutex_lock(&d->lock);
    if (umem->users != 0) {
        pthread_mutex_unlock(&d->lock);
        return EBUSY;
    }
    emu_table_remove(&d->table, umem->id);
    pthread_mutex_unlock(&d->lock);
    free(umem);
    return 0;
}

enum emu_umem_check emu_umem_get(struct emu_nic *nic, uint32_t id, uint64_t offset, uint64_t len,
                                 uintptr_t *addr_out, bool *gpu_out, struct emu_umem **umem_out)
{
    struct umem_dev *d = umem_dev_of(nic);
    struct emu_umem *umem;

    if (d == NULL)
        return EMU_UMEM_BAD_ID;
    pthread_mutex_lock(&d->lock);
    umem = emu_table_get(&d->table, id);
    if (umem == NULL) {
        pthread_mutex_unlock(&d->lock);
        return EMU_UMEM_BAD_ID;
    }
    if (len == 0 || offset > umem->size || len > umem->size - offset) {
        pthread_mutex_unlock(&d->lock);
        return EMU_UMEM_OUT_OF_RANGE;
    }
    umem->users++;
    pthread_mutex_unlock(&d->lock);
    *addr_out = umem->addr + (uintptr_t)offset;
    *gpu_out = umem->gpu;
    *umem_out = umem;
    return EMU_UMEM_OK;
}

void emu_umem_put(struct emu_umem *umem)
{
    struct umem_dev *d;

    if (umem == NULL)
        return;
    d = umem_dev_of(umem->nic);
    pthread_mutex_lock(&d->lock);
    umem->users--;
    pthread_mutex_unlock(&d->lock);
}
