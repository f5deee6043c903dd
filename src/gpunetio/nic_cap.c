/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a GPU and NIC pair can do, found by doing it once: register a page
 * of GPU memory (or of pinned host memory mapped for the GPU) as a UMEM,
 * and map a non-cached UAR's doorbell for GPU stores. Each probe undoes
 * what it made; DOCA_SUCCESS means supported.
 */
#include <infiniband/verbs.h>
#include <unistd.h>

#include "core/log.h"
#include "core/sdk.h"
#include "gpunetio_internal.h"

#define NIC_CAP_PROBE_SIZE 4096u

static doca_error_t nic_cap_check_args(doca_gpu_t *gpu_dev, doca_dev_t *net_dev, const char *what)
{
    if (gpu_dev == NULL || net_dev == NULL) {
        DOCA_LOG_ERR("%s: gpu_dev (%p) and net_dev (%p) must not be NULL", what, (void *)gpu_dev,
                     (void *)net_dev);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

/* Allocates a page of mtype memory and registers it as a UMEM; both undone before returning. */
static doca_error_t nic_cap_umem_probe(doca_gpu_t *gpu_dev, doca_dev_t *net_dev,
                                       enum doca_gpu_mem_type mtype)
{
    void *gpu_ptr = NULL, *cpu_ptr = NULL;
    doca_verbs_umem_t *umem = NULL;
    int dmabuf_fd = -1;
    doca_error_t err;

    err = doca_gpu_mem_alloc(gpu_dev, NIC_CAP_PROBE_SIZE, NIC_CAP_PROBE_SIZE, mtype, &gpu_ptr,
                             &cpu_ptr);
    if (err != DOCA_SUCCESS)
        return err;
    /* A dma-buf where the GPU offers one; otherwise the registration uses peer memory. */
    if (mtype == DOCA_GPU_MEM_TYPE_GPU && gpu_dev->dmabuf &&
        doca_gpu_get_dmabuf_fd(gpu_dev, gpu_ptr, NIC_CAP_PROBE_SIZE, &dmabuf_fd) != DOCA_SUCCESS)
        dmabuf_fd = -1;
    err = doca_verbs_umem_create(
            net_dev, gpu_dev, mtype == DOCA_GPU_MEM_TYPE_GPU ? gpu_ptr : cpu_ptr,
            NIC_CAP_PROBE_SIZE, IBV_ACCESS_LOCAL_WRITE,
            dmabuf_fd >= 0 ? dmabuf_fd : (int)DOCA_VERBS_DMABUF_INVALID_FD, 0, &umem);
    if (err == DOCA_SUCCESS)
        doca_verbs_umem_destroy(umem);
    if (dmabuf_fd >= 0)
        close(dmabuf_fd); /* the registration held its own reference */
    doca_gpu_mem_free(gpu_dev, gpu_ptr);
    return err;
}

doca_error_t doca_gpu_nic_cap_is_gpu_mem_umem_supported(doca_gpu_t *gpu_dev,
                                                        struct doca_dev *net_dev)
{
    DGN_SDK_ROUTE(doca_gpu_nic_cap_is_gpu_mem_umem_supported, (gpu_dev, net_dev),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = nic_cap_check_args(gpu_dev, net_dev, __func__);

    return err != DOCA_SUCCESS ? err : nic_cap_umem_probe(gpu_dev, net_dev, DOCA_GPU_MEM_TYPE_GPU);
}

doca_error_t doca_gpu_nic_cap_is_host_mem_umem_supported(doca_gpu_t *gpu_dev,
                                                         struct doca_dev *net_dev)
{
    DGN_SDK_ROUTE(doca_gpu_nic_cap_is_host_mem_umem_supported, (gpu_dev, net_dev),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = nic_cap_check_args(gpu_dev, net_dev, __func__);

    return err != DOCA_SUCCESS ? err
                               : nic_cap_umem_probe(gpu_dev, net_dev, DOCA_GPU_MEM_TYPE_CPU_GPU);
}

doca_error_t doca_gpu_nic_cap_is_nic_handler_gpu_sm_db_supported(doca_gpu_t *gpu_dev,
                                                                 struct doca_dev *net_dev)
{
    DGN_SDK_ROUTE(doca_gpu_nic_cap_is_nic_handler_gpu_sm_db_supported, (gpu_dev, net_dev),
                  DOCA_ERROR_NOT_SUPPORTED);

    doca_error_t err = nic_cap_check_args(gpu_dev, net_dev, __func__);
    doca_verbs_uar_t *uar = NULL;
    uint64_t *reg = NULL, *reg_gpu = NULL;

    if (err != DOCA_SUCCESS)
        return err;
    err = doca_verbs_uar_create(net_dev, DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE, &uar);
    if (err != DOCA_SUCCESS)
        return err;
    err = doca_verbs_uar_reg_addr_get(uar, (void **)&reg);
    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_export_uar(reg, &reg_gpu);
    if (err == DOCA_SUCCESS)
        doca_gpu_verbs_unexport_uar(reg_gpu);
    doca_verbs_uar_destroy(uar);
    return err;
}
