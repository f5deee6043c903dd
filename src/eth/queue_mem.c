/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory of an Ethernet queue: one allocation (GPU memory, pinned host
 * memory mapped for the GPU, or host memory for CPU threads) registered as
 * one UMEM, holding the work queue's ring, its CQ's ring and both doorbell
 * records; the CQ made in it; the queue's descriptor placed where the data
 * path runs.
 */
#include <stdlib.h>
#include <string.h>

#include "eth_internal.h"
#include "gpunetio/gpunetio_internal.h"
#include "gpunetio/hl_internal.h"

#define ETH_PAGE       4096u
#define ETH_DBR        64u
#define ETH_DESC_ALIGN 128u

doca_error_t eth_qmem_alloc(doca_dev_t *dev, doca_gpu_t *gpu, enum eth_mem_kind kind,
                            size_t wq_bytes, size_t cq_bytes, struct eth_qmem *m)
{
    enum hl_mem_kind hk = kind == ETH_MEM_GPU      ? HL_MEM_GPU
                          : kind == ETH_MEM_PINNED ? HL_MEM_PINNED
                                                   : HL_MEM_HOST;
    doca_error_t err;

    memset(m, 0, sizeof(*m));
    m->kind = kind;
    m->gpu = gpu;
    m->wq_off = 0;
    m->cq_off = verbs_align_up(wq_bytes, ETH_PAGE);
    m->wq_dbr_off = m->cq_off + verbs_align_up(cq_bytes, ETH_PAGE);
    m->cq_dbr_off = m->wq_dbr_off + ETH_DBR;
    m->size = verbs_align_up(m->cq_dbr_off + ETH_DBR, ETH_PAGE);
    err = hl_mem_alloc(gpu, dev, hk, DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_DEFAULT, m->size, &m->gpu_ptr,
                       &m->cpu_ptr, &m->umem, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    {
        static const uint8_t zero[2 * ETH_DBR];

        err = eth_qmem_write(m, m->wq_dbr_off, zero, sizeof(zero));
        if (err != DOCA_SUCCESS)
            eth_qmem_free(m);
    }
    return err;
}

void eth_qmem_free(struct eth_qmem *m)
{
    if (m->umem == NULL && m->gpu_ptr == NULL && m->cpu_ptr == NULL)
        return;
    hl_mem_free(m->gpu,
                m->kind == ETH_MEM_GPU      ? HL_MEM_GPU
                : m->kind == ETH_MEM_PINNED ? HL_MEM_PINNED
                                            : HL_MEM_HOST,
                m->gpu_ptr, m->cpu_ptr, m->umem);
    memset(m, 0, sizeof(*m));
}

doca_error_t eth_qmem_write(const struct eth_qmem *m, uint64_t off, const void *src, size_t len)
{
    struct verbs_buf b = {.umem = m->umem, .offset = 0, .internal = false};

    return verbs_buf_write(&b, off, src, len);
}

doca_error_t eth_qmem_cq(doca_dev_t *dev, const struct eth_qmem *m, uint32_t log_size,
                         doca_verbs_cq_t **cq)
{
    doca_verbs_cq_attr_t *attr = NULL;
    doca_error_t err = doca_verbs_cq_attr_create(&attr);

    if (err != DOCA_SUCCESS)
        return err;
    err = doca_verbs_cq_attr_set_cq_size(attr, 1u << log_size);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_cq_attr_set_cq_overrun(attr, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_cq_attr_set_external_umem(attr, m->umem, m->cq_off);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_cq_attr_set_external_dbr_umem(attr, m->umem, m->cq_dbr_off);
    if (err == DOCA_SUCCESS)
        err = doca_verbs_cq_create(dev, attr, cq);
    doca_verbs_cq_attr_destroy(attr);
    return err;
}

doca_error_t eth_desc_place(doca_gpu_t *gpu, const void *desc, size_t size, const char *what,
                            void **out)
{
    void *p;

    if (gpu != NULL)
        return gpunetio_mem_upload(gpu, desc, size, ETH_DESC_ALIGN, what, out);
    p = aligned_alloc(ETH_DESC_ALIGN, verbs_align_up(size, ETH_DESC_ALIGN));
    if (p == NULL) {
        DOCA_LOG_ERR("out of memory for %s", what);
        return DOCA_ERROR_NO_MEMORY;
    }
    memcpy(p, desc, size);
    *out = p;
    return DOCA_SUCCESS;
}

void eth_desc_free(doca_gpu_t *gpu, void *desc)
{
    if (desc == NULL)
        return;
    if (gpu != NULL)
        doca_gpu_mem_free(gpu, desc);
    else
        free(desc);
}
