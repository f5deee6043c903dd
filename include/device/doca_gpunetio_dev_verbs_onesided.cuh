/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO device API, high level: one-sided put, p, put_signal,
 * p_signal, signal, get, mcst, get_wait, wait and fence, with DOCA's names,
 * template parameters and argument orders (the *_thread and *_warp
 * variants, and each operation with an out_ticket and without), over the
 * C data-path core (gdaki_verbs_onesided.h).
 *
 * Warp scope: the 32 lanes of a converged warp call together, each with its
 * own addresses; each lane's size is at most DOCA_GPUNETIO_VERBS_MAX_TRANSFER_SIZE.
 * Unlike DOCA's, p_warp, put_signal_warp and signal_warp post (DOCA's set
 * the ticket to 0 and post nothing).
 * Sharing modes: EXCLUSIVE (one thread, or one warp in warp scope, uses the
 * QP), CTA, GPU.
 *
 * cq_type (the last template parameter of each): the core reads the CQ's
 * kind from its descriptor, as DOCA does for CQ_UNKNOWN; every WQE asks for
 * a CQE whatever the code_opt. Waits return 0, or -EIO when the completion
 * (or one before it) is an error; they never spin on an error CQE.
 */
#ifndef DOCA_GPUNETIO_DEV_VERBS_ONESIDED_CUH
#define DOCA_GPUNETIO_DEV_VERBS_ONESIDED_CUH

#include "doca_gpunetio_dev_verbs_cq.cuh"
#include "doca_gpunetio_dev_verbs_qp.cuh"
#include "impl/gdaki_verbs_onesided.h"

#include "impl/dgn_params.h"

/* The get modes, as DOCA defaults them (local to this header). */
#define DGN_MCST_PARAM \
    enum doca_gpu_dev_verbs_mcst_mode mcst_mode = DOCA_GPUNETIO_VERBS_MCST_DISABLED
#define DGN_BLK_PARAM \
    enum doca_gpu_dev_verbs_blocking_mode blocking_mode = DOCA_GPUNETIO_VERBS_BLOCKING_MODE_DISABLED

/*
 * Runs post (a lambda taking the handler word) for a post of qp with
 * nic_handler: with the constant GDAKI_NIC_GPU_DB when the QP rings that
 * way, so that this copy has no handler or scope tests left between its
 * fences, with nic_handler itself otherwise.
 */
template <typename Post>
__device__ static __forceinline__ auto dgn_post(struct doca_gpu_dev_verbs_qp *qp,
                                                enum doca_gpu_dev_verbs_nic_handler nic_handler,
                                                Post post)
{
    if (gdaki_nic_resolve(qp, nic_handler) == GDAKI_NIC_GPU_DB)
        return post(GDAKI_NIC_GPU_DB);
    return post((uint32_t)nic_handler);
}

/* ---- put ---- */

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_put_thread(struct doca_gpu_dev_verbs_qp *qp,
                              struct doca_gpu_dev_verbs_addr raddr,
                              struct doca_gpu_dev_verbs_addr laddr, size_t size,
                              doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_put(qp, raddr, laddr, size, resource_sharing_mode, nic, code_opt);
    });
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_put_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                            struct doca_gpu_dev_verbs_addr laddr, size_t size,
                            doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_transfer_warp(qp, PRM_WQE_OPCODE_RDMA_WRITE, raddr, laddr, size,
                                   resource_sharing_mode, nic, code_opt);
    });
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_put(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                       struct doca_gpu_dev_verbs_addr laddr, size_t size,
                       doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    if (exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP)
        doca_gpu_dev_verbs_put_warp<resource_sharing_mode, nic_handler, cq_type>(
                qp, raddr, laddr, size, out_ticket, code_opt);
    else
        doca_gpu_dev_verbs_put_thread<resource_sharing_mode, nic_handler, cq_type>(
                qp, raddr, laddr, size, out_ticket, code_opt);
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_put(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                       struct doca_gpu_dev_verbs_addr laddr, size_t size, DGN_CODE_OPT)
{
    doca_gpu_dev_verbs_ticket_t ticket;

    doca_gpu_dev_verbs_put<resource_sharing_mode, nic_handler, exec_scope, cq_type>(
            qp, raddr, laddr, size, &ticket, code_opt);
}

/*
 * ---- put_immediate: put as one RDMA write with immediate whose immediate
 * adds sig_val to signal sig_id of the receiver's signal map (thread scope;
 * the receiver's service applies it: doca_gpunetio_signal.h) ----
 */

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_immediate(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, uint32_t sig_id, uint32_t sig_val,
        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_put_imm(qp, raddr, laddr, size, gdaki_signal_imm(sig_id, sig_val),
                             resource_sharing_mode, nic, code_opt);
    });
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_put_immediate(struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_addr raddr,
                                 struct doca_gpu_dev_verbs_addr laddr, size_t size, uint32_t sig_id,
                                 uint32_t sig_val, DGN_CODE_OPT)
{
    doca_gpu_dev_verbs_ticket_t ticket;

    doca_gpu_dev_verbs_put_immediate<resource_sharing_mode, nic_handler, cq_type>(
            qp, raddr, laddr, size, sig_id, sig_val, &ticket, code_opt);
}

/* ---- p: an inline put of one value of type T (at most 8 bytes) ---- */

template <typename T, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_p_thread(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                            T value, doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sizeof(T) <= 8, "p() writes one value of at most 8 bytes");
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_p(qp, raddr, &value, sizeof(T), resource_sharing_mode, nic, code_opt);
    });
}

template <typename T, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_p_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                          T value, doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sizeof(T) <= 8, "p() writes one value of at most 8 bytes");
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_p_warp(qp, raddr, &value, sizeof(T), resource_sharing_mode, nic, code_opt);
    });
}

template <typename T, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_p(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                     T value, doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    if (exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP)
        doca_gpu_dev_verbs_p_warp<T, resource_sharing_mode, nic_handler, cq_type>(
                qp, raddr, value, out_ticket, code_opt);
    else
        doca_gpu_dev_verbs_p_thread<T, resource_sharing_mode, nic_handler, cq_type>(
                qp, raddr, value, out_ticket, code_opt);
}

template <typename T, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_p(struct doca_gpu_dev_verbs_qp *qp,
                                                            struct doca_gpu_dev_verbs_addr raddr,
                                                            T value, DGN_CODE_OPT)
{
    doca_gpu_dev_verbs_ticket_t ticket;

    doca_gpu_dev_verbs_p<T, resource_sharing_mode, nic_handler, exec_scope, cq_type>(
            qp, raddr, value, &ticket, code_opt);
}

/*
 * ---- put_signal: put, then an 8-byte fetch-add of sig_val at sig_raddr (old value to
 * sig_laddr); the ticket is the signal's ----
 */

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_signal_thread(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_put_signal(qp, raddr, laddr, size, sig_raddr, sig_laddr, sig_val,
                                resource_sharing_mode, nic, code_opt);
    });
}

/* One put per lane, then lane 0's signal, after all of them: every lane gets its ticket. */
template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_signal_warp(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_put_signal_warp(qp, raddr, laddr, size, sig_raddr, sig_laddr, sig_val,
                                     resource_sharing_mode, nic, code_opt);
    });
}

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_signal(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    if (exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP)
        doca_gpu_dev_verbs_put_signal_warp<sig_op, resource_sharing_mode, nic_handler, cq_type>(
                qp, raddr, laddr, size, sig_raddr, sig_laddr, sig_val, out_ticket, code_opt);
    else
        doca_gpu_dev_verbs_put_signal_thread<sig_op, resource_sharing_mode, nic_handler, cq_type>(
                qp, raddr, laddr, size, sig_raddr, sig_laddr, sig_val, out_ticket, code_opt);
}

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_put_signal(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr sig_raddr,
        struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val, DGN_CODE_OPT)
{
    doca_gpu_dev_verbs_ticket_t ticket;

    doca_gpu_dev_verbs_put_signal<sig_op, resource_sharing_mode, nic_handler, exec_scope, cq_type>(
            qp, raddr, laddr, size, sig_raddr, sig_laddr, sig_val, &ticket, code_opt);
}

/* ---- p_signal (thread scope) ---- */

template <typename T, enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_p_signal(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                            T value, struct doca_gpu_dev_verbs_addr sig_raddr,
                            struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                            doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sizeof(T) <= 8, "p_signal() writes one value of at most 8 bytes");
    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_p_signal(qp, raddr, &value, sizeof(T), sig_raddr, sig_laddr, sig_val,
                              resource_sharing_mode, nic, code_opt);
    });
}

template <typename T, enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_p_signal(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                            T value, struct doca_gpu_dev_verbs_addr sig_raddr,
                            struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                            DGN_CODE_OPT)
{
    doca_gpu_dev_verbs_ticket_t ticket;

    doca_gpu_dev_verbs_p_signal<T, sig_op, resource_sharing_mode, nic_handler, cq_type>(
            qp, raddr, value, sig_raddr, sig_laddr, sig_val, &ticket, code_opt);
}

/* ---- signal ---- */

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_signal_thread(struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_addr sig_raddr,
                                 struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                                 doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_signal(qp, sig_raddr, sig_laddr, sig_val, resource_sharing_mode, nic,
                            code_opt);
    });
}

/* One signal per lane. */
template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_signal_warp(struct doca_gpu_dev_verbs_qp *qp,
                               struct doca_gpu_dev_verbs_addr sig_raddr,
                               struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                               doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(sig_op == DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD, "the signal operation is ADD");
    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_signal_warp(qp, sig_raddr, sig_laddr, sig_val, resource_sharing_mode, nic,
                                 code_opt);
    });
}

template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_signal(struct doca_gpu_dev_verbs_qp *qp,
                          struct doca_gpu_dev_verbs_addr sig_raddr,
                          struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val,
                          doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    if (exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP)
        doca_gpu_dev_verbs_signal_warp<sig_op, resource_sharing_mode, nic_handler, cq_type>(
                qp, sig_raddr, sig_laddr, sig_val, out_ticket, code_opt);
    else
        doca_gpu_dev_verbs_signal_thread<sig_op, resource_sharing_mode, nic_handler, cq_type>(
                qp, sig_raddr, sig_laddr, sig_val, out_ticket, code_opt);
}

/* Without a ticket: thread scope only (no exec_scope parameter, as DOCA's). */
template <enum doca_gpu_dev_verbs_signal_op sig_op, DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_signal(struct doca_gpu_dev_verbs_qp *qp,
                          struct doca_gpu_dev_verbs_addr sig_raddr,
                          struct doca_gpu_dev_verbs_addr sig_laddr, uint64_t sig_val, DGN_CODE_OPT)
{
    doca_gpu_dev_verbs_ticket_t ticket;

    doca_gpu_dev_verbs_signal_thread<sig_op, resource_sharing_mode, nic_handler, cq_type>(
            qp, sig_raddr, sig_laddr, sig_val, &ticket, code_opt);
}

/*
 * ---- get: RDMA read; mcst ENABLED adds a dump on daddr after the reads;
 * blocking ENABLED waits for the ticket. Returns the wait's status (0 when
 * not blocking); DOCA's return nothing ----
 */

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_MCST_PARAM, DGN_BLK_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ int doca_gpu_dev_verbs_get_thread(
        struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
        struct doca_gpu_dev_verbs_addr laddr, size_t size, struct doca_gpu_dev_verbs_addr daddr,
        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    int status = 0;

    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        return gdaki_get(qp, raddr, laddr, size, daddr,
                         mcst_mode == DOCA_GPUNETIO_VERBS_MCST_ENABLED,
                         blocking_mode == DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED, &status,
                         resource_sharing_mode, nic, code_opt);
    });
    return status;
}

/*
 * One read per lane. With MCST_ENABLED, lane 0 then posts one dump (its
 * daddr) and every lane's ticket is the dump's, which completes after all
 * the reads; blocking, every lane waits for its ticket.
 */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_MCST_PARAM, DGN_BLK_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_get_warp(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                            struct doca_gpu_dev_verbs_addr laddr, size_t size,
                            struct doca_gpu_dev_verbs_addr daddr,
                            doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    int status = 0;

    *out_ticket = dgn_post(qp, nic_handler, [&](uint32_t nic) {
        uint64_t ticket = gdaki_transfer_warp(qp, PRM_WQE_OPCODE_RDMA_READ, raddr, laddr, size,
                                              resource_sharing_mode, nic, code_opt);

        if (mcst_mode == DOCA_GPUNETIO_VERBS_MCST_ENABLED) {
            uint64_t dump = 0;

            if (gdaki_lane_id() == 0)
                dump = gdaki_dump(qp, daddr, resource_sharing_mode, nic, code_opt);
            ticket = __shfl_sync(DOCA_GPUNETIO_VERBS_WARP_FULL_MASK, dump, 0);
        }
        if (blocking_mode == DOCA_GPUNETIO_VERBS_BLOCKING_MODE_ENABLED)
            status = gdaki_wait(qp, ticket);
        return ticket;
    });
    return status;
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM, DGN_MCST_PARAM, DGN_BLK_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_get(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                       struct doca_gpu_dev_verbs_addr laddr, size_t size,
                       struct doca_gpu_dev_verbs_addr daddr,
                       doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    if (exec_scope == DOCA_GPUNETIO_VERBS_EXEC_SCOPE_WARP)
        return doca_gpu_dev_verbs_get_warp<resource_sharing_mode, nic_handler, mcst_mode,
                                           blocking_mode, cq_type>(qp, raddr, laddr, size, daddr,
                                                                   out_ticket, code_opt);
    return doca_gpu_dev_verbs_get_thread<resource_sharing_mode, nic_handler, mcst_mode,
                                         blocking_mode, cq_type>(qp, raddr, laddr, size, daddr,
                                                                 out_ticket, code_opt);
}

/*
 * Ours only: get without a dump address (MCST_DISABLED), with and without a
 * ticket. A DOCA call cannot pick them: its fifth argument, daddr, converts
 * neither to a ticket pointer nor to code_opt.
 */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM, DGN_MCST_PARAM, DGN_BLK_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_get(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                       struct doca_gpu_dev_verbs_addr laddr, size_t size,
                       doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    static_assert(mcst_mode == DOCA_GPUNETIO_VERBS_MCST_DISABLED,
                  "MCST_ENABLED needs the dump address: use the overload taking daddr");
    return doca_gpu_dev_verbs_get<resource_sharing_mode, nic_handler, exec_scope, mcst_mode,
                                  blocking_mode, cq_type>(
            qp, raddr, laddr, size, doca_gpu_dev_verbs_addr{0, 0}, out_ticket, code_opt);
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_SCOPE_PARAM, DGN_MCST_PARAM, DGN_BLK_PARAM,
          DGN_CQT_PARAM>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_get(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr raddr,
                       struct doca_gpu_dev_verbs_addr laddr, size_t size, DGN_CODE_OPT)
{
    doca_gpu_dev_verbs_ticket_t ticket;

    return doca_gpu_dev_verbs_get<resource_sharing_mode, nic_handler, exec_scope, mcst_mode,
                                  blocking_mode, cq_type>(qp, raddr, laddr, size, &ticket,
                                                          code_opt);
}

/* ---- mcst, get_wait, wait, fence ---- */

/*
 * A dump of one byte at daddr: once it completes, the data of every read
 * before it on the QP is in memory. As DOCA's, it always waits for a free
 * slot and rings; code_opt chooses nothing here (every WQE asks for a CQE).
 */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void
doca_gpu_dev_verbs_mcst(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr daddr,
                        doca_gpu_dev_verbs_ticket_t *out_ticket, DGN_CODE_OPT)
{
    (void)code_opt;
    *out_ticket = gdaki_dump(qp, daddr, resource_sharing_mode, nic_handler, 0);
}

/* Waits for a get's ticket; with MCST_ENABLED posts a dump on daddr first and waits for it. */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_MCST_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ int
doca_priv_gpu_dev_verbs_get_wait(struct doca_gpu_dev_verbs_qp *qp,
                                 struct doca_gpu_dev_verbs_addr daddr,
                                 doca_gpu_dev_verbs_ticket_t ticket)
{
    return gdaki_get_wait(qp, daddr, ticket, mcst_mode == DOCA_GPUNETIO_VERBS_MCST_ENABLED,
                          resource_sharing_mode, nic_handler);
}

template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_MCST_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_get_wait(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr daddr,
                            doca_gpu_dev_verbs_ticket_t ticket)
{
    return doca_priv_gpu_dev_verbs_get_wait<resource_sharing_mode, nic_handler, mcst_mode, cq_type>(
            qp, daddr, ticket);
}

/* get_wait for everything reserved so far: 0 at once (posting no dump) on a QP never used. */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_MCST_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ int
doca_gpu_dev_verbs_get_wait(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_addr daddr)
{
    return gdaki_get_wait_all(qp, daddr, mcst_mode == DOCA_GPUNETIO_VERBS_MCST_ENABLED,
                              resource_sharing_mode, nic_handler);
}

/* Waits for the WQE of ticket. */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ int doca_gpu_dev_verbs_wait(struct doca_gpu_dev_verbs_qp *qp,
                                                              doca_gpu_dev_verbs_ticket_t ticket)
{
    return gdaki_wait(qp, ticket);
}

/* Waits for everything reserved on the QP so far: 0 at once on a QP never used. */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ int doca_gpu_dev_verbs_wait(struct doca_gpu_dev_verbs_qp *qp)
{
    return gdaki_wait_all(qp);
}

/*
 * Orders every operation posted on the QP after this call after the
 * completion of every read and atomic posted before it (an RC QP already
 * keeps writes and signals in order; a later write is what could otherwise
 * gather a local buffer before an earlier read filled it). Posts one fenced
 * NOP (gdaki_qp_fence); DOCA's is a no-op.
 */
template <DGN_RSM_PARAM, DGN_NIC_PARAM, DGN_CQT_PARAM>
__device__ static __forceinline__ void doca_gpu_dev_verbs_fence(struct doca_gpu_dev_verbs_qp *qp)
{
    gdaki_qp_fence(qp, resource_sharing_mode, nic_handler, 0);
}

#undef DGN_MCST_PARAM
#undef DGN_BLK_PARAM

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_ONESIDED_CUH */
