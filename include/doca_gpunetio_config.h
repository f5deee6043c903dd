/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What this build of the library has code for, with DOCA's names. Whether
 * the machine can do it (rdma-core's and CUDA's versions, the NIC) is found
 * at run time, and a call that cannot answers NOT_SUPPORTED with the reason.
 */
#ifndef DOCA_GPUNETIO_CONFIG_H
#define DOCA_GPUNETIO_CONFIG_H

/* DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED UARs. */
#define DOCA_GPUNETIO_HAVE_DEDICATED_NC_UAR   1
/* UMEMs registered from a dma-buf (mlx5dv_devx_umem_reg_ex with a dma-buf fd). */
#define DOCA_GPUNETIO_HAVE_MLX5DV_UMEM_DMABUF 1
/* dma-buf export of GPU memory (doca_gpu_get_dmabuf_fd, through cuMemGetHandleForAddressRange). */
#define DOCA_GPUNETIO_HAVE_CUDA_DMABUF        1

#endif /* DOCA_GPUNETIO_CONFIG_H */
