/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, counter variants and the multi-QP submits they
 * ring with, with DOCA's names, template parameters and argument orders.
 *
 * A counter variant posts its operation on the main QP; the companion QP
 * then posts a WAIT for that operation's completion on the main QP's CQ and
 * the counter's 8-byte fetch-add (counter_val added at counter_raddr, old
 * value to counter_laddr), and both QPs are rung together. The counter
 * therefore moves only after the operation completed, with no thread
 * waiting for it. Thread scope. Over gdaki_counter_commit() of the C core.
 *
 * The multi-QP submits ring each QP as the single-QP submit does (the
 * doorbell ordered at the QP's NIC scope; sync_scope is accepted only), and
 * with AUTO each QP with its own handler. Unlike DOCA's, GPU_SM_BF rings too.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_COUNTER_CUH
#define DOCA_GPUNETIO_DEV_VERBS_COUNTER_CUH

#include "doca_gpunetio_dev_verbs_cq.cuh"
#include "doca_gpunetio_dev_verbs_qp.cuh"
#include "impl/gdaki_verbs_onesided.h"

#include "impl/dgn_params.h"

/* The parameters every multi-QP submit starts with (local to this header). */
#define DGN_MULTI_PARAMS                 \
    unsigned int num_qps, DGN_RSM_PARAM, \
            enum doca_gpu_dev_verbs_sync_scope sync_scope = DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU
/* The counter arguments of every counter variant, and the core's view of them. */
#define DGN_COUNTER_ARGS                                                                      \
    struct doca_gpu_dev_verbs_qp *companion_qp, struct doca_gpu_dev_verbs_addr counter_raddr, \
            struct doca_gpu_dev_verbs_addr counter_laddr, uint64_t counter_val
#define DGN_COUNTER_INIT                                        \
    {                                                           \
        companion_qp, counter_raddr, counter_laddr, counter_val \
    }

/* ---- Multi-QP submits: every WQE below prod_indices[i] of qps[i], qps[0] first ---- */

template <DGN_MULTI_PARAMS>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_db_multi_qps_no_dbr(struct doca_gpu_dev_verbs_qp **qps,
                                              uint64_t *prod_indices, DGN_CODE_OPT)
{
    gdaki_submit_qps(qps, prod_indices, num_qps, resource_sharing_mode,
                     DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR, code_opt);
}

template <DGN_MULTI_PARAMS>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_db_multi_qps(struct doca_gpu_dev_verbs_qp **qps, uint64_t *prod_indices,
                                       DGN_CODE_OPT)
{
    gdaki_submit_qps(qps, prod_indices, num_qps, resource_sharing_mode,
                     DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB, code_opt);
}

template <DGN_MULTI_PARAMS>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_proxy_multi_qps(struct doca_gpu_dev_verbs_qp **qps,
                                          uint64_t *prod_indices)
{
    gdaki_submit_qps(qps, prod_indices, num_qps, resource_sharing_mode,
                     DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY, 0);
}

template <DGN_MULTI_PARAMS, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_submit_multi_qps(struct doca_gpu_dev_verbs_qp **qps, uint64_t *prod_indices,
                                    DGN_CODE_OPT)
{
    gdaki_submit_qps(qps, prod_indices, num_qps, resource_sharing_mode, nic_handler, code_opt);
}

/* ---- Counter variants ---- */

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_counter(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, DGN_COUNTER_ARGS, DGN_CODE_OPT)
{
    const struct gdaki_counter c = DGN_COUNTER_INIT;

    gdaki_put_counter(qp, raddr, laddr, size, &c, resource_sharing_mode, nic_handler, code_opt);
}

template <typename T, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_p_counter(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                             T value, DGN_COUNTER_ARGS, DGN_CODE_OPT)
{
    const struct gdaki_counter c = DGN_COUNTER_INIT;

    static_assert(sizeof(T) <= 8, "p_counter() writes one value of at most 8 bytes");
    gdaki_p_counter(qp, raddr, &value, sizeof(T), &c, resource_sharing_mode, nic_handler, code_opt);
}

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_signal_counter(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val, DGN_COUNTER_ARGS, DGN_CODE_OPT)
{
    const struct gdaki_counter c = DGN_COUNTER_INIT;

    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    gdaki_put_signal_counter(qp, raddr, laddr, size, sig_raddr, sig_laddr, sig_val, &c,
                             resource_sharing_mode, nic_handler, code_opt);
}

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_signal_counter(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val, DGN_COUNTER_ARGS, DGN_CODE_OPT)
{
    const struct gdaki_counter c = DGN_COUNTER_INIT;

    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    gdaki_signal_counter(qp, sig_raddr, sig_laddr, sig_val, &c, resource_sharing_mode, nic_handler,
                         code_opt);
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_get_counter(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, DGN_COUNTER_ARGS, DGN_CODE_OPT)
{
    const struct gdaki_counter c = DGN_COUNTER_INIT;

    gdaki_get_counter(qp, raddr, laddr, size, &c, resource_sharing_mode, nic_handler, code_opt);
}

#undef DGN_MULTI_PARAMS
#undef DGN_COUNTER_ARGS
#undef DGN_COUNTER_INIT

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_COUNTER_CUH */
