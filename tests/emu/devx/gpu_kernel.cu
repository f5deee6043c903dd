/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include "gpu_kernel.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"

__device__ static uint64_t gk_now(void)
{
    uint64_t t;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/*
 * Rings the doorbell of the WQE whose first basic block is bb (eight 8-byte
 * words), in one of three ways: an 8-byte doorbell at 0x800; a BlueFlame
 * write of the whole block at 0x800, its first word first; a BlueFlame write
 * at 0x900, its first word last.
 */
__device__ static void gk_doorbell(uint8_t *uar, const uint64_t *bb, uint32_t mode)
{
    volatile uint64_t *reg = (volatile uint64_t *)(uar + (mode == 2 ? 0x900 : 0x800));

    if (mode == 0) {
        reg[0] = bb[0];
    } else if (mode == 1) {
        for (int i = 0; i < 8; i++)
            reg[i] = bb[i];
    } else {
        for (int i = 7; i >= 0; i--)
            reg[i] = bb[i];
    }
    __threadfence_system();
}

__global__ static void gk_kernel(struct gk_args a, struct gk_result *r)
{
    uint32_t sq_pi = a.sq_pi, cq_ci = a.cq_ci;

    for (uint32_t i = 0; i < a.n; i++) {
        uint64_t bb[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        uint8_t *wqe = (uint8_t *)bb;
        uint64_t *slot = (uint64_t *)prm_wqe_slot(a.sq, sq_pi, a.log_sq);
        volatile struct prm_cqe64 *cqe =
                (volatile struct prm_cqe64 *)(a.cq + (cq_ci & ((1u << a.log_cq) - 1)) * 64);
        uint64_t start;
        uint8_t op_own;

        prm_wqe_set_ctrl_seg((struct prm_wqe_ctrl_seg *)wqe, (uint16_t)sq_pi,
                             PRM_WQE_OPCODE_RDMA_WRITE, 0, a.qpn, PRM_WQE_CTRL_CQ_UPDATE,
                             PRM_WQE_DS_RDMA, 0, 0);
        prm_wqe_set_raddr_seg((struct prm_wqe_raddr_seg *)(wqe + 16),
                              a.raddr + (uint64_t)i * a.stride, a.rkey);
        prm_wqe_set_data_seg((struct prm_wqe_data_seg *)(wqe + 32), a.len, a.lkey,
                             a.laddr + (uint64_t)i * a.stride);
        for (int k = 0; k < 8; k++)
            slot[k] = bb[k];
        sq_pi++;
        __threadfence();
        if (!a.no_dbr)
            *(volatile uint32_t *)&a.qp_dbr[1] = gdaki_htobe32(sq_pi & 0xffff);
        /* The WQE and the record reach memory before the doorbell reaches the device. */
        __threadfence_system();
        gk_doorbell(a.uar, bb, i % 3);

        start = gk_now();
        for (;;) {
            op_own = cqe->op_own;
            if (prm_cqe_op_own_sw_owned(op_own, cq_ci, a.log_cq))
                break;
            if (gk_now() - start > a.timeout_ns) {
                r->timeouts = 1;
                r->last_op_own = op_own;
                r->last_counter = i;
                return;
            }
        }
        __threadfence();
        {
            uint32_t sop = gdaki_be32toh(cqe->sop_drop_qpn);
            uint16_t counter = gdaki_be16toh(cqe->wqe_counter);

            if ((op_own >> PRM_CQE_OPCODE_SHIFT) != PRM_CQE_OPCODE_REQ ||
                (sop >> 24) != PRM_WQE_OPCODE_RDMA_WRITE || counter != (uint16_t)(sq_pi - 1)) {
                r->bad++;
                r->last_op_own = op_own;
                r->last_syndrome = ((volatile struct prm_cqe64_err *)cqe)->syndrome;
                r->last_counter = counter;
            }
        }
        cq_ci++;
        r->completed++;
        *(volatile uint32_t *)&a.cq_dbr[0] = gdaki_htobe32(cq_ci & 0xffffff);
        __threadfence_system();
    }
}

extern "C" int gk_run(const struct gk_args *args, struct gk_result *result)
{
    struct gk_result *d = NULL;
    cudaError_t rc = cudaMalloc(&d, sizeof(*d));

    if (rc == cudaSuccess)
        rc = cudaMemset(d, 0, sizeof(*d));
    if (rc == cudaSuccess) {
        /* Stream 0: the legacy default stream, which blocking copies would wait for. */
        gk_kernel<<<1, 1, 0, 0>>>(*args, d);
        rc = cudaGetLastError();
    }
    if (rc == cudaSuccess)
        rc = cudaDeviceSynchronize();
    if (rc == cudaSuccess)
        rc = cudaMemcpy(result, d, sizeof(*d), cudaMemcpyDeviceToHost);
    if (d != NULL)
        cudaFree(d);
    if (rc != cudaSuccess) {
        fprintf(stderr, "gk_run: %s\n", cudaGetErrorString(rc));
        return -1;
    }
    return 0;
}
