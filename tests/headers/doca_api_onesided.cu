/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every function of doca_gpunetio_dev_verbs_onesided.cuh called with DOCA's
 * parameter lists: explicit template arguments in DOCA's order (the
 * trailing cq_type included), defaults omitted and given, DOCA's return
 * types (void, but int for the waits and get). A signature of ours that
 * differs from DOCA's fails this build. Compiled only.
 */
#include <stdint.h>
#include <type_traits>

#include "doca_gpunetio_dev_verbs_onesided.cuh"

#define GPU      DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU
#define CTA      DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_CTA
#define EXCL     DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define AUTO     DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO
#define DB       DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB
#define THREAD   DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD
#define WARP     DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP
#define CQ_ANY   DOCA_GPUNETIO_VERBS_CQ_UNKNOWN
#define CQ_64B   DOCA_GPUNETIO_VERBS_CQ_64B
#define ADD      DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD
#define MCST_ON  DOCA_GPUNETIO_VERBS_MCST_ENABLED
#define MCST_OFF DOCA_GPUNETIO_VERBS_MCST_DISABLED
#define BLK_ON   DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED
#define BLK_OFF  DOCA_GPUNETIO_VERBS_BLOCKING_MODE_DISABLED
#define OPT      DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT

#define RETURNS(type, ...) \
    static_assert(std::is_same<decltype(__VA_ARGS__), type>::value, #__VA_ARGS__)

__global__ void doca_api_put(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr r,
                             struct doca_gpu_dev_verbs_addr l, size_t size)
{
    doca_gpu_dev_verbs_ticket_t t;

    doca_gpu_dev_verbs_put_thread<GPU, AUTO, CQ_ANY>(qp, r, l, size, &t, OPT);
    doca_gpu_dev_verbs_put_thread<EXCL>(qp, r, l, size, &t);
    doca_gpu_dev_verbs_put_thread(qp, r, l, size, &t);
    doca_gpu_dev_verbs_put_warp<GPU, AUTO, CQ_64B>(qp, r, l, size, &t, OPT);
    doca_gpu_dev_verbs_put_warp<CTA, DB>(qp, r, l, size, &t);
    doca_gpu_dev_verbs_put<GPU, AUTO, THREAD, CQ_ANY>(qp, r, l, size, &t, OPT);
    doca_gpu_dev_verbs_put<GPU, AUTO, WARP>(qp, r, l, size, &t);
    doca_gpu_dev_verbs_put(qp, r, l, size, &t);
    doca_gpu_dev_verbs_put<GPU, AUTO, THREAD, CQ_ANY>(qp, r, l, size, OPT);
    doca_gpu_dev_verbs_put<EXCL, AUTO, WARP>(qp, r, l, size);
    /* Not DOCA's (the seed's put_immediate): a write with a signal immediate, thread scope. */
    doca_gpu_dev_verbs_put_immediate<GPU, AUTO, CQ_ANY>(qp, r, l, size, 7u, 1u, &t, OPT);
    doca_gpu_dev_verbs_put_immediate(qp, r, l, size, 7u, 1u);
    doca_gpu_dev_verbs_put(qp, r, l, size);
    RETURNS(void, doca_gpu_dev_verbs_put_thread(qp, r, l, size, &t));
    RETURNS(void, doca_gpu_dev_verbs_put_warp(qp, r, l, size, &t));
    RETURNS(void, doca_gpu_dev_verbs_put(qp, r, l, size, &t));
    RETURNS(void, doca_gpu_dev_verbs_put(qp, r, l, size));
}

__global__ void doca_api_p(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr r,
                           uint64_t v)
{
    doca_gpu_dev_verbs_ticket_t t;

    doca_gpu_dev_verbs_p_thread<uint32_t, GPU, AUTO, CQ_ANY>(qp, r, (uint32_t)v, &t, OPT);
    doca_gpu_dev_verbs_p_thread<uint8_t>(qp, r, (uint8_t)v, &t);
    doca_gpu_dev_verbs_p_warp<uint64_t, GPU, AUTO, CQ_ANY>(qp, r, v, &t, OPT);
    doca_gpu_dev_verbs_p_warp<uint16_t>(qp, r, (uint16_t)v, &t);
    doca_gpu_dev_verbs_p<uint64_t, GPU, AUTO, THREAD, CQ_ANY>(qp, r, v, &t, OPT);
    doca_gpu_dev_verbs_p<uint32_t, GPU, AUTO, WARP>(qp, r, (uint32_t)v, &t);
    doca_gpu_dev_verbs_p(qp, r, v, &t);
    doca_gpu_dev_verbs_p<uint64_t, GPU, AUTO, THREAD, CQ_ANY>(qp, r, v, OPT);
    doca_gpu_dev_verbs_p<uint8_t>(qp, r, (uint8_t)v);
    doca_gpu_dev_verbs_p(qp, r, v);
    RETURNS(void, doca_gpu_dev_verbs_p_thread(qp, r, v, &t));
    RETURNS(void, doca_gpu_dev_verbs_p_warp(qp, r, v, &t));
    RETURNS(void, doca_gpu_dev_verbs_p(qp, r, v, &t));
    RETURNS(void, doca_gpu_dev_verbs_p(qp, r, v));
}

__global__ void doca_api_put_signal(struct doca_gpu_dev_verbs_qp *qp,
                                    struct doca_gpu_dev_verbs_addr r,
                                    struct doca_gpu_dev_verbs_addr l, size_t size,
                                    struct doca_gpu_dev_verbs_addr sr,
                                    struct doca_gpu_dev_verbs_addr sl, uint64_t v)
{
    doca_gpu_dev_verbs_ticket_t t;

    doca_gpu_dev_verbs_put_signal_thread<ADD, GPU, AUTO, CQ_ANY>(qp, r, l, size, sr, sl, 1, &t,
                                                                 OPT);
    doca_gpu_dev_verbs_put_signal_thread<ADD>(qp, r, l, size, sr, sl, 1, &t);
    doca_gpu_dev_verbs_put_signal_warp<ADD, GPU, AUTO, CQ_ANY>(qp, r, l, size, sr, sl, 1, &t, OPT);
    doca_gpu_dev_verbs_put_signal_warp<ADD, EXCL>(qp, r, l, size, sr, sl, 1, &t);
    doca_gpu_dev_verbs_put_signal<ADD, GPU, AUTO, THREAD, CQ_ANY>(qp, r, l, size, sr, sl, 1, &t,
                                                                  OPT);
    doca_gpu_dev_verbs_put_signal<ADD, GPU, AUTO, WARP>(qp, r, l, size, sr, sl, 1, &t);
    doca_gpu_dev_verbs_put_signal<ADD, GPU, AUTO, THREAD, CQ_ANY>(qp, r, l, size, sr, sl, 1, OPT);
    doca_gpu_dev_verbs_put_signal<ADD>(qp, r, l, size, sr, sl, 1);
    doca_gpu_dev_verbs_p_signal<uint64_t, ADD, GPU, AUTO, CQ_ANY>(qp, r, v, sr, sl, 1, &t, OPT);
    doca_gpu_dev_verbs_p_signal<uint32_t, ADD>(qp, r, (uint32_t)v, sr, sl, 1, &t);
    doca_gpu_dev_verbs_p_signal<uint64_t, ADD, GPU, AUTO, CQ_ANY>(qp, r, v, sr, sl, 1, OPT);
    doca_gpu_dev_verbs_p_signal<uint8_t, ADD>(qp, r, (uint8_t)v, sr, sl, 1);
    RETURNS(void, doca_gpu_dev_verbs_put_signal_thread<ADD>(qp, r, l, size, sr, sl, 1, &t));
    RETURNS(void, doca_gpu_dev_verbs_put_signal_warp<ADD>(qp, r, l, size, sr, sl, 1, &t));
    RETURNS(void, doca_gpu_dev_verbs_put_signal<ADD>(qp, r, l, size, sr, sl, 1, &t));
    RETURNS(void, doca_gpu_dev_verbs_put_signal<ADD>(qp, r, l, size, sr, sl, 1));
    RETURNS(void, doca_gpu_dev_verbs_p_signal<uint64_t, ADD>(qp, r, v, sr, sl, 1, &t));
    RETURNS(void, doca_gpu_dev_verbs_p_signal<uint64_t, ADD>(qp, r, v, sr, sl, 1));
}

__global__ void doca_api_signal(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr sr,
                                struct doca_gpu_dev_verbs_addr sl)
{
    doca_gpu_dev_verbs_ticket_t t;

    doca_gpu_dev_verbs_signal_thread<ADD, GPU, AUTO, CQ_ANY>(qp, sr, sl, 1, &t, OPT);
    doca_gpu_dev_verbs_signal_thread<ADD>(qp, sr, sl, 1, &t);
    doca_gpu_dev_verbs_signal_warp<ADD, GPU, AUTO, CQ_ANY>(qp, sr, sl, 1, &t, OPT);
    doca_gpu_dev_verbs_signal_warp<ADD, CTA>(qp, sr, sl, 1, &t);
    doca_gpu_dev_verbs_signal<ADD, GPU, AUTO, THREAD, CQ_ANY>(qp, sr, sl, 1, &t, OPT);
    doca_gpu_dev_verbs_signal<ADD, GPU, AUTO, WARP>(qp, sr, sl, 1, &t);
    doca_gpu_dev_verbs_signal<ADD>(qp, sr, sl, 1, &t);
    /* Without a ticket the fourth template argument is cq_type (no exec_scope). */
    doca_gpu_dev_verbs_signal<ADD, GPU, AUTO, CQ_ANY>(qp, sr, sl, 1, OPT);
    doca_gpu_dev_verbs_signal<ADD, GPU, AUTO, CQ_64B>(qp, sr, sl, 1);
    doca_gpu_dev_verbs_signal<ADD>(qp, sr, sl, 1);
    RETURNS(void, doca_gpu_dev_verbs_signal_thread<ADD>(qp, sr, sl, 1, &t));
    RETURNS(void, doca_gpu_dev_verbs_signal_warp<ADD>(qp, sr, sl, 1, &t));
    RETURNS(void, doca_gpu_dev_verbs_signal<ADD>(qp, sr, sl, 1, &t));
    RETURNS(void, doca_gpu_dev_verbs_signal<ADD>(qp, sr, sl, 1));
}

__global__ void doca_api_get(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr r,
                             struct doca_gpu_dev_verbs_addr l, size_t size,
                             struct doca_gpu_dev_verbs_addr d, int *out)
{
    doca_gpu_dev_verbs_ticket_t t;

    doca_gpu_dev_verbs_get_thread<GPU, AUTO, MCST_ON, BLK_ON, CQ_ANY>(qp, r, l, size, d, &t, OPT);
    doca_gpu_dev_verbs_get_thread<GPU, AUTO>(qp, r, l, size, d, &t);
    doca_gpu_dev_verbs_get_warp<GPU, AUTO, MCST_OFF, BLK_OFF, CQ_ANY>(qp, r, l, size, d, &t, OPT);
    doca_gpu_dev_verbs_get_warp<EXCL, AUTO, MCST_ON>(qp, r, l, size, d, &t);
    doca_gpu_dev_verbs_get<GPU, AUTO, THREAD, MCST_OFF, BLK_OFF, CQ_ANY>(qp, r, l, size, d, &t,
                                                                         OPT);
    doca_gpu_dev_verbs_get<GPU, AUTO, WARP, MCST_ON, BLK_ON>(qp, r, l, size, d, &t);
    doca_gpu_dev_verbs_get(qp, r, l, size, d, &t);
    /* Ours returns the blocking wait's status; DOCA's returns nothing (a statement either way). */
    *out = doca_gpu_dev_verbs_get<GPU, AUTO, THREAD, MCST_ON, BLK_ON>(qp, r, l, size, d, &t);
    doca_gpu_dev_verbs_mcst<GPU, AUTO, CQ_ANY>(qp, d, &t, OPT);
    doca_gpu_dev_verbs_mcst(qp, d, &t);
    RETURNS(void, doca_gpu_dev_verbs_mcst(qp, d, &t));
    RETURNS(int, doca_gpu_dev_verbs_get_thread(qp, r, l, size, d, &t));
    RETURNS(int, doca_gpu_dev_verbs_get_warp(qp, r, l, size, d, &t));
}

__global__ void doca_api_waits(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr d,
                               doca_gpu_dev_verbs_ticket_t t, int *out)
{
    doca_priv_gpu_dev_verbs_get_wait<GPU, AUTO, MCST_ON, CQ_ANY>(qp, d, t);
    doca_gpu_dev_verbs_get_wait<GPU, AUTO, MCST_ON, CQ_ANY>(qp, d, t);
    doca_gpu_dev_verbs_get_wait<GPU, AUTO, MCST_OFF>(qp, d, t);
    doca_gpu_dev_verbs_get_wait(qp, d, t);
    doca_gpu_dev_verbs_get_wait<GPU, AUTO, MCST_ON, CQ_ANY>(qp, d);
    doca_gpu_dev_verbs_get_wait(qp, d);
    doca_gpu_dev_verbs_wait<GPU, AUTO, CQ_ANY>(qp, t);
    doca_gpu_dev_verbs_wait<EXCL>(qp, t);
    doca_gpu_dev_verbs_wait(qp, t);
    doca_gpu_dev_verbs_wait<GPU, AUTO, CQ_ANY>(qp);
    doca_gpu_dev_verbs_wait(qp);
    doca_gpu_dev_verbs_fence<GPU, AUTO, CQ_ANY>(qp);
    doca_gpu_dev_verbs_fence<EXCL>(qp);
    doca_gpu_dev_verbs_fence(qp);
    /* The waits return 0 or -EIO (DOCA's return nothing). */
    *out = doca_gpu_dev_verbs_wait(qp) | doca_gpu_dev_verbs_get_wait(qp, d);
    RETURNS(int, doca_priv_gpu_dev_verbs_get_wait(qp, d, t));
    RETURNS(int, doca_gpu_dev_verbs_get_wait(qp, d, t));
    RETURNS(int, doca_gpu_dev_verbs_wait(qp, t));
    RETURNS(void, doca_gpu_dev_verbs_fence(qp));
}
