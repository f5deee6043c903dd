/* SPDX-License-Identifier: BSD-3-Clause */
/* libibverbs entry points: protection domains and memory registration. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi/context.h"
#include "common/emu_log.h"
#include "engine/engine.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/nic.h"

#define EMU_EXPORT __attribute__((visibility("default")))

/* Access flags this device understands; any other bit is refused. */
#define EMU_MR_ACCESS_SUPPORTED                                                  \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_RELAXED_ORDERING | IBV_ACCESS_OPTIONAL_RANGE)

EMU_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
    struct emu_nic *nic;
    struct emu_pd *pd;
    int64_t index;

    if (context == NULL || !emu_context_is_ours(context)) {
        errno = EINVAL;
        return NULL;
    }
    nic = emu_nic_of_ctx(context);
    pd = calloc(1, sizeof(*pd));
    if (pd == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&nic->lock);
    index = emu_table_insert(&nic->pds, pd);
    pthread_mutex_unlock(&nic->lock);
    if (index < 0) {
        EMU_LOG_ERR("ibv_alloc_pd: device %s has no free protection domain", nic->ibdev.name);
        free(pd);
        errno = ENOMEM;
        return NULL;
    }
    pd->nic = nic;
    pd->pdn = (uint32_t)index;
    pd->ibv.context = context;
    pd->ibv.handle = pd->pdn;
    return &pd->ibv;
}

EMU_EXPORT int ibv_dealloc_pd(struct ibv_pd *ibv_pd)
{
    struct emu_pd *pd = emu_pd_of(ibv_pd);
    struct emu_nic *nic;

    if (ibv_pd == NULL)
        return EINVAL;
    nic = pd->nic;
    pthread_mutex_lock(&nic->lock);
    if (pd->users != 0) {
        pthread_mutex_unlock(&nic->lock);
        EMU_LOG_ERR("ibv_dealloc_pd: protection domain %u still has %d memory regions or queues; "
                    "destroy them first",
                    pd->pdn, pd->users);
        return EBUSY;
    }
    emu_table_remove(&nic->pds, pd->pdn);
    pthread_mutex_unlock(&nic->lock);
    free(pd);
    return 0;
}

static struct ibv_mr *emu_reg(struct ibv_pd *ibv_pd, const char *call, uintptr_t addr,
                              uint64_t iova, size_t length, unsigned int access, bool gpu)
{
    struct emu_mr *mr;
    int err;

    if (ibv_pd == NULL || !emu_context_is_ours(ibv_pd->context)) {
        errno = EINVAL;
        return NULL;
    }
    if (access & ~(unsigned int)EMU_MR_ACCESS_SUPPORTED) {
        EMU_LOG_ERR("%s: access flags 0x%x include unsupported bits 0x%x", call, access,
                    access & ~(unsigned int)EMU_MR_ACCESS_SUPPORTED);
        errno = EINVAL;
        return NULL;
    }
    err = emu_mr_register(emu_pd_of(ibv_pd), addr, iova, length, (int)access, gpu, &mr);
    if (err != 0) {
        EMU_LOG_ERR("%s: cannot register %zu bytes at 0x%lx with access 0x%x: %s", call, length,
                    (unsigned long)addr, access,
                    err == EINVAL   ? "empty or wrapping range, or remote write/atomic without "
                                      "local write"
                    : err == EFAULT ? "some page is not mapped, or not readable (writable, for a "
                                      "writable registration) in this process (EFAULT)"
                                    : strerror(err));
        errno = err;
        return NULL;
    }
    mr->ibv.context = ibv_pd->context;
    mr->ibv.pd = ibv_pd;
    mr->ibv.addr = (void *)addr;
    mr->ibv.length = length;
    mr->ibv.handle = mr->key;
    mr->ibv.lkey = mr->key;
    mr->ibv.rkey = mr->key;
    return &mr->ibv;
}

EMU_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
                                           uint64_t iova, unsigned int access)
{
    return emu_reg(pd, "ibv_reg_mr", (uintptr_t)addr, iova, length, access,
                   emu_mem_is_gpu((uintptr_t)addr));
}

EMU_EXPORT struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

EMU_EXPORT struct ibv_mr *(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr, size_t length,
                                            uint64_t iova, int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

/*
 * A dma-buf registration. The file descriptor names the exporter's buffer
 * but not its address in this process; as every GPU user of this call does,
 * the iova is taken to be the GPU virtual address of the buffer's start plus
 * offset, and it must be GPU memory.
 */
EMU_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
                                            uint64_t iova, int fd, int access)
{
    struct stat st;

    if (fd < 0 || fstat(fd, &st) != 0) {
        EMU_LOG_ERR("ibv_reg_dmabuf_mr: fd %d is not an open file descriptor", fd);
        errno = EBADF;
        return NULL;
    }
    if (!emu_mem_is_gpu((uintptr_t)iova)) {
        EMU_LOG_ERR("ibv_reg_dmabuf_mr: iova 0x%lx (offset 0x%lx) is not GPU memory; pass the "
                    "GPU address of the exported range as iova",
                    (unsigned long)iova, (unsigned long)offset);
        errno = EINVAL;
        return NULL;
    }
    return emu_reg(pd, "ibv_reg_dmabuf_mr", (uintptr_t)iova, iova, length, (unsigned int)access,
                   true);
}

EMU_EXPORT int ibv_dereg_mr(struct ibv_mr *ibv_mr)
{
    struct emu_mr *mr = (struct emu_mr *)ibv_mr;
    struct emu_nic *nic;
    uint32_t key;
    int err;

    if (ibv_mr == NULL || ibv_mr->context == NULL || !emu_context_is_ours(ibv_mr->context))
        return EINVAL;
    nic = mr->nic;
    key = mr->key;
    err = emu_mr_deregister(mr);
    /*
     * After: no access takes the key any more, so no new grant names it.
     * Before we return: the program may free the memory then.
     */
    if (err == 0)
        emu_engine_direct_revoke_key(nic, key);
    return err;
}
