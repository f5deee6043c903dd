/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, counter variants: the operation goes on the
 * main QP; the companion QP then posts a WAIT for its completion on the main
 * QP's CQ and the counter's 8-byte fetch-add (counter_val added at
 * counter_raddr, old value to counter_laddr). The counter therefore moves
 * only after the operation completed, with no thread waiting for it. Thread
 * scope. Over gdaki_counter() of the C core.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_COUNTER_CUH
#define DOCA_GPUNETIO_DEV_VERBS_COUNTER_CUH

#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "impl/dgn_params.h"

#define DGN_COUNTER_ARGS                                                                      \
    struct doca_gpu_dev_verbs_qp *companion_qp, struct doca_gpu_dev_verbs_addr counter_raddr, \
            struct doca_gpu_dev_verbs_addr counter_laddr, uint64_t counter_val
#define DGN_COUNTER_POST(ticket)                                                       \
    gdaki_counter(qp, ticket, companion_qp, counter_raddr, counter_laddr, counter_val, \
                  resource_sharing_mode, nic_handler, code_opt)

template <DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_put_counter(struct doca_gpu_dev_verbs_qp *qp,
                               struct doca_gpu_dev_verbs_addr raddr,
                               struct doca_gpu_dev_verbs_addr laddr, size_t size, DGN_COUNTER_ARGS,
                               doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    *out_ticket = gdaki_put(qp, raddr, laddr, size, resource_sharing_mode, nic_handler, code_opt);
    DGN_COUNTER_POST(*out_ticket);
}

template <typename T, DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_p_counter(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                             T value, DGN_COUNTER_ARGS, doca_gpu_dev_verbs_ticket_t *out_ticket,
                             DGN_CODE_OPT)
{
    static_assert(sizeof(T) <= 8, "p_counter() writes one value of at most 8 bytes");
    *out_ticket =
            gdaki_p(qp, raddr, &value, sizeof(T), resource_sharing_mode, nic_handler, code_opt);
    DGN_COUNTER_POST(*out_ticket);
}

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_signal_counter(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val, DGN_COUNTER_ARGS,
        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    *out_ticket = gdaki_put_signal(qp, raddr, laddr, size, sig_raddr, sig_laddr, sig_val,
                                   resource_sharing_mode, nic_handler, code_opt);
    DGN_COUNTER_POST(*out_ticket);
}

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_signal_counter(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val, DGN_COUNTER_ARGS,
        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    *out_ticket = gdaki_signal(qp, sig_raddr, sig_laddr, sig_val, resource_sharing_mode,
                               nic_handler, code_opt);
    DGN_COUNTER_POST(*out_ticket);
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_get_counter(struct doca_gpu_dev_verbs_qp *qp,
                               struct doca_gpu_dev_verbs_addr raddr,
                               struct doca_gpu_dev_verbs_addr laddr, size_t size, DGN_COUNTER_ARGS,
                               doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    int status;

    *out_ticket = gdaki_get(qp, raddr, laddr, size, doca_gpu_dev_verbs_addr{0, 0}, 0, 0, &status,
                            resource_sharing_mode, nic_handler, code_opt);
    DGN_COUNTER_POST(*out_ticket);
}

#undef DGN_COUNTER_ARGS
#undef DGN_COUNTER_POST

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_COUNTER_CUH */
