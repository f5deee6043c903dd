/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel of test_devx_gpu_kernel (gpu_kernel.cu), callable from C: one
 * GPU thread drives a softmlx5 QP whose rings are in GPU memory, as a GPU
 * data path does. For each of n RDMA writes it builds the WQE in the SQ,
 * updates the doorbell record (unless no_dbr), rings the UAR page (mapped
 * host memory) with an 8-byte doorbell or a 64-byte BlueFlame write, and
 * spins on the CQ in GPU memory until the CQE arrives, all while it runs on
 * the legacy default stream.
 */
#ifndef GPU_KERNEL_H
#define GPU_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gk_args {
    uint8_t *sq; /* GPU addresses */
    uint8_t *cq;
    uint32_t *qp_dbr; /* [0] receive, [1] send counter (big-endian) */
    uint32_t *cq_dbr; /* [0] consumer counter */
    uint8_t *uar;     /* device address of the UAR page (0x800, 0x900: doorbell registers) */
    uint32_t log_sq, log_cq;
    uint32_t qpn;
    uint32_t sq_pi, cq_ci; /* where the QP stands */
    uint32_t lkey, rkey;
    uint64_t laddr, raddr; /* write i: len bytes from laddr + i * stride to raddr + i * stride */
    uint32_t len, stride;
    uint32_t n;
    int no_dbr;
    uint64_t timeout_ns; /* per CQE */
};

struct gk_result {
    uint32_t completed; /* CQEs seen */
    uint32_t bad;       /* CQEs that were not the WQE's successful completion */
    uint32_t timeouts;  /* 1 when a CQE did not come in time (the kernel stops there) */
    uint32_t last_op_own;
    uint32_t last_syndrome;
    uint32_t last_counter;
};

/* Runs the kernel on the legacy default stream and waits for it; 0, or -1 (CUDA error, logged). */
int gk_run(const struct gk_args *args, struct gk_result *result);

#ifdef __cplusplus
}
#endif

#endif /* GPU_KERNEL_H */
