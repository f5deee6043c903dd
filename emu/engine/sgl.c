/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather/scatter lists: the memory one request or response touches, each
 * entry checked against its key and held (not deregistrable) until the list
 * is released. Every copy into or out of application host memory goes
 * through the fault-free helpers of nic/mem.h: a registration whose pages
 * were unmapped gives an error, never a crash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "nic/gpu_ipc.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/qp.h"

enum emu_mr_check engine_sgl_hold(struct engine_sgl *s, struct emu_qp *qp, uint32_t key,
                                  uint64_t iova, uint32_t len, int access)
{
    struct emu_mr *mr;
    enum emu_mr_check r;

    if (s->count == ENGINE_SGL_MAX)
        return EMU_MR_OUT_OF_RANGE;
    r = emu_mr_get(qp->nic, key, engine_qp_pd(qp)->pdn, iova, len, access, &mr);
    if (r != EMU_MR_OK)
        return r;
    s->gpu |= mr->gpu;
    s->app |= !mr->gpu;
    s->mr[s->count] = mr;
    s->iova[s->count] = iova;
    s->iov[s->count].iov_base = emu_mr_host_ptr(mr, iova);
    s->iov[s->count++].iov_len = len;
    s->bytes += len;
    return EMU_MR_OK;
}

bool engine_sgl_inline(struct engine_sgl *s, void *data, uint32_t len)
{
    if (s->count == ENGINE_SGL_MAX)
        return false;
    s->mr[s->count] = NULL;
    s->iova[s->count] = 0;
    s->iov[s->count].iov_base = data;
    s->iov[s->count++].iov_len = len;
    s->bytes += len;
    return true;
}

void engine_sgl_release(struct engine_sgl *s)
{
    for (int i = 0; i < s->count; i++)
        if (s->mr[i] != NULL)
            emu_mr_put(s->mr[i]);
    s->count = 0;
    s->bytes = 0;
}

int engine_sgl_mapped(const struct engine_sgl *s)
{
    for (int i = 0; i < s->count; i++)
        if (s->mr[i] != NULL && !s->mr[i]->gpu &&
            emu_mem_host_mapped(s->iov[i].iov_base, s->iov[i].iov_len) != 0)
            return EFAULT;
    return 0;
}

int engine_sgl_copy_gpu_ref(const struct engine_sgl *s, const struct emu_gpu_ref *ref, uint32_t len,
                            struct emu_gpu_ipc_defer *defer)
{
    struct emu_gpu_ref at = *ref;

    for (int i = 0; i < s->count; i++)
        if (s->mr[i] == NULL || !s->mr[i]->gpu)
            return ENOTSUP;
    for (int i = 0; i < s->count && len > 0; i++) {
        uint32_t take = s->iov[i].iov_len < len ? (uint32_t)s->iov[i].iov_len : len;
        const struct emu_mr *mr = s->mr[i];
        uintptr_t dst = mr->addr + (uintptr_t)(s->iova[i] - mr->iova);
        int err = defer != NULL ? emu_gpu_ipc_copy_defer(defer, &at, dst, take)
                                : emu_gpu_ipc_copy(&at, dst, take);

        /* A first entry refused leaves nothing written; a later one cannot be refused. */
        if (err != 0)
            return err == ENOTSUP && i > 0 ? EIO : err;
        at.offset += take;
        len -= take;
    }
    return 0;
}

int engine_sgl_scatter(const struct engine_sgl *s, const void *src, uint32_t len)
{
    const uint8_t *p = src;

    for (int i = 0; i < s->count && len > 0; i++) {
        uint32_t take = s->iov[i].iov_len < len ? (uint32_t)s->iov[i].iov_len : len;

        if (s->mr[i] == NULL)
            memcpy(s->iov[i].iov_base, p, take);
        else if (emu_mr_write(s->mr[i], s->iova[i], p, take) != 0)
            return EFAULT;
        p += take;
        len -= take;
    }
    return 0;
}

int engine_sgl_gather(const struct engine_sgl *s, void *dst)
{
    uint8_t *p = dst;

    for (int i = 0; i < s->count; i++) {
        if (s->mr[i] == NULL)
            memcpy(p, s->iov[i].iov_base, s->iov[i].iov_len);
        else if (emu_mr_read(s->mr[i], s->iova[i], p, s->iov[i].iov_len) != 0)
            return EFAULT;
        p += s->iov[i].iov_len;
    }
    return 0;
}

struct engine_sgl *engine_sgl_dup(const struct engine_sgl *s)
{
    struct engine_sgl *copy = malloc(sizeof(*copy));

    if (copy != NULL)
        *copy = *s;
    return copy;
}

void engine_sgl_free(void *sgl)
{
    engine_sgl_release(sgl);
    free(sgl);
}
