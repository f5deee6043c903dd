/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * -z 1, Data Direct: the examples' GPU buffers registered through the NIC's
 * Data Direct device (ConnectX-8's separate PCIe function to GPU memory):
 * a dma-buf of the buffer mapped for PCIe (CUDA 12.8's
 * CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE), registered with
 * mlx5dv_reg_dmabuf_mr and MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT. Both
 * libmlx5 calls are rdma-core's MLX5_1.25 (Debian 12 has neither), so they
 * are looked up at run time, as the CUDA side is checked at build time
 * (CUDA >= 12.8) and at run time (driver >= 12.8). Each side only changes
 * its own registrations: pass -z 1 to both.
 */
#ifndef EX_DATA_DIRECT_H
#define EX_DATA_DIRECT_H

#include <infiniband/verbs.h>
#include <stddef.h>

/*
 * Checks that -z 1 can work on ctx's device (named dev_name) for GPU
 * execution: the libmlx5 calls, the device's Data Direct device, the CUDA
 * build and driver. 0, or -1 with the reason logged.
 */
int ex_dd_check(struct ibv_context *ctx, const char *dev_name);

/* Registers len bytes of GPU memory at addr through the Data Direct device; NULL (logged). */
struct ibv_mr *ex_dd_reg(struct ibv_pd *pd, void *addr, size_t len, int access);

#endif /* EX_DATA_DIRECT_H */
