/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues of the standard verbs, as libmlx5 makes them: a ring of
 * CQE64s and a doorbell record in host memory, handed to the device; polling
 * parses CQEs (owner bit, opcode, WQE counter -> wr_id) from the ring.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp_transport.h"
#include "engine/engine.h"

#define EMU_EXPORT __attribute__((visibility("default")))

static enum ibv_wc_status cq_status(uint8_t syndrome)
{
    switch (syndrome) {
    case PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR:
        return IBV_WC_LOC_LEN_ERR;
    case PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR:
        return IBV_WC_LOC_QP_OP_ERR;
    case PRM_CQE_SYNDROME_LOCAL_PROT_ERR:
        return IBV_WC_LOC_PROT_ERR;
    case PRM_CQE_SYNDROME_WR_FLUSH_ERR:
        return IBV_WC_WR_FLUSH_ERR;
    case PRM_CQE_SYNDROME_MW_BIND_ERR:
        return IBV_WC_MW_BIND_ERR;
    case PRM_CQE_SYNDROME_BAD_RESP_ERR:
        return IBV_WC_BAD_RESP_ERR;
    case PRM_CQE_SYNDROME_LOCAL_ACCESS_ERR:
        return IBV_WC_LOC_ACCESS_ERR;
    case PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
        return IBV_WC_REM_INV_REQ_ERR;
    case PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR:
        return IBV_WC_REM_ACCESS_ERR;
    case PRM_CQE_SYNDROME_REMOTE_OP_ERR:
        return IBV_WC_REM_OP_ERR;
    case PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
        return IBV_WC_RETRY_EXC_ERR;
    case PRM_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
        return IBV_WC_RNR_RETRY_EXC_ERR;
    case PRM_CQE_SYNDROME_REMOTE_ABORTED_ERR:
        return IBV_WC_REM_ABORT_ERR;
    default:
        return IBV_WC_GENERAL_ERR;
    }
}

static enum ibv_wc_opcode cq_req_opcode(uint8_t wqe_opcode)
{
    switch (wqe_opcode) {
    case PRM_WQE_OPCODE_RDMA_WRITE:
    case PRM_WQE_OPCODE_RDMA_WRITE_IMM:
        return IBV_WC_RDMA_WRITE;
    case PRM_WQE_OPCODE_RDMA_READ:
        return IBV_WC_RDMA_READ;
    case PRM_WQE_OPCODE_ATOMIC_CS:
    case PRM_WQE_OPCODE_ATOMIC_MASKED_CS:
        return IBV_WC_COMP_SWAP;
    case PRM_WQE_OPCODE_ATOMIC_FA:
    case PRM_WQE_OPCODE_ATOMIC_MASKED_FA:
        return IBV_WC_FETCH_ADD;
    default:
        return IBV_WC_SEND;
    }
}

static struct emu_qp *cq_qp(struct emu_cq *cq, uint32_t qpn)
{
    struct emu_qp *qp = cq->last_qp;

    if (qp != NULL && qp->qpn == qpn)
        return qp;
    pthread_mutex_lock(&cq->nic->lock);
    qp = emu_qp_lookup(cq->nic, qpn);
    pthread_mutex_unlock(&cq->nic->lock);
    /* Not an XRC target's: it has no CQ of its own whose destroy_qp would forget it. */
    cq->last_qp = qp != NULL && qp->p.xrcd != NULL ? NULL : qp;
    return qp;
}

/*
 * The SRQ a receive CQE's WQE came from: the QP's, or the XRC SRQ the CQE
 * names (an XRC target takes its receives from any SRQ of its domain).
 */
static struct emu_srq *cq_recv_srq(struct emu_cq *cq, const struct emu_qp *qp,
                                   const struct prm_cqe64 *cqe)
{
    struct emu_srq *srq;

    if (qp->p.srq != NULL || !qp->tp->xrc)
        return qp->p.srq;
    pthread_mutex_lock(&cq->nic->lock);
    srq = emu_srq_lookup(cq->nic, be32toh(cqe->srqn_uidx) & 0xffffff);
    pthread_mutex_unlock(&cq->nic->lock);
    return srq;
}

/* Parses the next CQE into wc; 1, or 0 when the ring is empty (poll_lock held). */
static int cq_poll_one(struct emu_cq *cq, struct ibv_wc *wc)
{
    uint32_t mask = (1u << cq->p.log_size) - 1;
    struct prm_cqe64 *cqe =
            (struct prm_cqe64 *)(cq->p.ring + (uintptr_t)(cq->consumer & mask) * PRM_CQE_SIZE);
    uint8_t opcode;
    uint16_t counter;
    struct emu_srq *srq;
    struct emu_qp *qp;

    if (!prm_cqe_sw_owned(cqe, cq->consumer, cq->p.log_size))
        return 0;
    /* Acquire: read the CQE's fields only after its owner byte said it is ours. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    opcode = prm_cqe_opcode(cqe);
    counter = prm_cqe_wqe_counter(cqe);
    memset(wc, 0, sizeof(*wc));
    wc->qp_num = prm_cqe_qpn(cqe);
    qp = cq_qp(cq, wc->qp_num);
    cq->consumer++;
    /* Release: the CQE was read before the counter that hands the entry back to the device. */
    __atomic_store_n((uint32_t *)cq->p.dbrec, htobe32(cq->consumer & 0xffffff), __ATOMIC_RELEASE);
    if (qp == NULL) {
        wc->status = IBV_WC_GENERAL_ERR;
        return 1;
    }
    if (opcode == PRM_CQE_OPCODE_REQ || (opcode == PRM_CQE_OPCODE_REQ_ERR)) {
        uint32_t idx = counter & ((1u << qp->p.log_sq_size) - 1);

        wc->wr_id = qp->sq_wrid[idx];
        wc->opcode = cq_req_opcode(prm_cqe_wqe_opcode(cqe));
        wc->byte_len = opcode == PRM_CQE_OPCODE_REQ ? prm_cqe_byte_cnt(cqe) : 0;
        wc->status =
                opcode == PRM_CQE_OPCODE_REQ ? IBV_WC_SUCCESS : cq_status(prm_cqe_syndrome(cqe));
        wc->vendor_err = opcode == PRM_CQE_OPCODE_REQ ? 0 : prm_cqe_vendor_syndrome(cqe);
        /* Everything up to this WQE is complete: its slots are free again. */
        __atomic_store_n(&qp->sq_tail, qp->sq_wqe_next[idx], __ATOMIC_RELEASE);
        return 1;
    }
    srq = cq_recv_srq(cq, qp, cqe);
    if (srq != NULL) {
        wc->wr_id = srq->wrid[counter & ((1u << srq->p.log_size) - 1)];
        __atomic_add_fetch(&srq->tail, 1, __ATOMIC_RELEASE);
    } else {
        wc->wr_id = qp->rq_wrid[counter & ((1u << qp->p.log_rq_size) - 1)];
        __atomic_add_fetch(&qp->rq_tail, 1, __ATOMIC_RELEASE);
    }
    wc->src_qp = be32toh(cqe->flags_rqpn) & PRM_CQE_QPN_MASK;
    /* UD: what the receive buffer starts with, and the sender's SL and LID. */
    wc->sl = (uint8_t)((be32toh(cqe->flags_rqpn) >> PRM_CQE_RQPN_SL_SHIFT) & 0xf);
    wc->slid = be16toh(cqe->slid);
    wc->wc_flags = ((be32toh(cqe->flags_rqpn) >> PRM_CQE_RQPN_L3_SHIFT) & 0x3) != PRM_CQE_L3_NONE
                           ? IBV_WC_GRH
                           : 0;
    wc->byte_len = prm_cqe_byte_cnt(cqe);
    if (opcode == PRM_CQE_OPCODE_RESP_ERR) {
        wc->status = cq_status(prm_cqe_syndrome(cqe));
        wc->vendor_err = prm_cqe_vendor_syndrome(cqe);
        wc->opcode = IBV_WC_RECV;
        wc->byte_len = 0;
        return 1;
    }
    wc->status = IBV_WC_SUCCESS;
    wc->opcode = opcode == PRM_CQE_OPCODE_RESP_WR_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
    if (opcode == PRM_CQE_OPCODE_RESP_WR_IMM || opcode == PRM_CQE_OPCODE_RESP_SEND_IMM) {
        wc->wc_flags |= IBV_WC_WITH_IMM;
        wc->imm_data = prm_cqe_imm(cqe);
    }
    return 1;
}

void emu_verbs_cq_clean(struct emu_cq *cq, uint32_t qpn)
{
    uint32_t mask = (1u << cq->p.log_size) - 1, end, freed = 0;

    pthread_mutex_lock(&cq->poll_lock);
    for (end = cq->consumer; end - cq->consumer <= mask; end++)
        if (!prm_cqe_sw_owned(
                    (const struct prm_cqe64 *)(cq->p.ring + (uintptr_t)(end & mask) * PRM_CQE_SIZE),
                    end, cq->p.log_size))
            break;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    /* From the newest back: the QP's entries go, the others move up by as many. */
    while (end != cq->consumer) {
        struct prm_cqe64 *c =
                (struct prm_cqe64 *)(cq->p.ring + (uintptr_t)(--end & mask) * PRM_CQE_SIZE);

        if (prm_cqe_qpn(c) == qpn) {
            freed++;
        } else if (freed > 0) {
            struct prm_cqe64 *d =
                    (struct prm_cqe64 *)(cq->p.ring +
                                         (uintptr_t)((end + freed) & mask) * PRM_CQE_SIZE);
            uint8_t owner = prm_cqe_owner(d);

            memcpy(d, c, sizeof(*d));
            prm_cqe_set_owner(d, owner);
        }
    }
    if (freed > 0) {
        cq->consumer += freed;
        __atomic_store_n((uint32_t *)cq->p.dbrec, htobe32(cq->consumer & 0xffffff),
                         __ATOMIC_RELEASE);
    }
    if (cq->last_qp != NULL && cq->last_qp->qpn == qpn)
        cq->last_qp = NULL;
    pthread_mutex_unlock(&cq->poll_lock);
}

int emu_verbs_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
    struct emu_cq *cq = (struct emu_cq *)ibcq;
    int n = 0;

    pthread_mutex_lock(&cq->poll_lock);
    while (n < num_entries && cq_poll_one(cq, &wc[n]) == 1)
        n++;
    pthread_mutex_unlock(&cq->poll_lock);
    if (n == 0) {
        /* Nothing yet: do the device's pending work here rather than wait for its thread. */
        emu_engine_poll(cq->nic);
        pthread_mutex_lock(&cq->poll_lock);
        while (n < num_entries && cq_poll_one(cq, &wc[n]) == 1)
            n++;
        pthread_mutex_unlock(&cq->poll_lock);
    }
    if (n == 0 && __atomic_load_n(&cq->overrun, __ATOMIC_RELAXED)) {
        errno = EOVERFLOW;
        return -1;
    }
    return n;
}

int emu_verbs_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
    struct emu_cq *cq = (struct emu_cq *)ibcq;

    emu_cq_arm(cq, solicited_only != 0, __atomic_load_n(&cq->consumer, __ATOMIC_RELAXED));
    return 0;
}

/* Extended polling on top of the same parser: the current CQE is kept in cq->cur. */
static int cq_ex_start(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
    struct emu_cq *cq = (struct emu_cq *)ibcq;

    if (attr->comp_mask != 0)
        return EINVAL;
    pthread_mutex_lock(&cq->poll_lock);
    if (cq_poll_one(cq, &cq->cur) == 0) {
        pthread_mutex_unlock(&cq->poll_lock);
        return ENOENT;
    }
    ibcq->wr_id = cq->cur.wr_id;
    ibcq->status = cq->cur.status;
    return 0;
}

static int cq_ex_next(struct ibv_cq_ex *ibcq)
{
    struct emu_cq *cq = (struct emu_cq *)ibcq;

    if (cq_poll_one(cq, &cq->cur) == 0)
        return ENOENT;
    ibcq->wr_id = cq->cur.wr_id;
    ibcq->status = cq->cur.status;
    return 0;
}

static void cq_ex_end(struct ibv_cq_ex *ibcq)
{
    pthread_mutex_unlock(&((struct emu_cq *)ibcq)->poll_lock);
}

#define CUR(ibcq) (((struct emu_cq *)(ibcq))->cur)
static enum ibv_wc_opcode cq_ex_opcode(struct ibv_cq_ex *c)
{
    return CUR(c).opcode;
}
static uint32_t cq_ex_vendor_err(struct ibv_cq_ex *c)
{
    return CUR(c).vendor_err;
}
static uint32_t cq_ex_byte_len(struct ibv_cq_ex *c)
{
    return CUR(c).byte_len;
}
static __be32 cq_ex_imm(struct ibv_cq_ex *c)
{
    return CUR(c).imm_data;
}
static uint32_t cq_ex_qp_num(struct ibv_cq_ex *c)
{
    return CUR(c).qp_num;
}
static uint32_t cq_ex_src_qp(struct ibv_cq_ex *c)
{
    return CUR(c).src_qp;
}
static unsigned int cq_ex_wc_flags(struct ibv_cq_ex *c)
{
    return CUR(c).wc_flags;
}
static uint32_t cq_ex_slid(struct ibv_cq_ex *c)
{
    return CUR(c).slid;
}
static uint8_t cq_ex_sl(struct ibv_cq_ex *c)
{
    return CUR(c).sl;
}
static uint8_t cq_ex_dlid_path_bits(struct ibv_cq_ex *c)
{
    return CUR(c).dlid_path_bits;
}
#undef CUR

#define EMU_CQ_WC_FLAGS                                                     \
    (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | \
     IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |      \
     IBV_WC_EX_WITH_DLID_PATH_BITS)

static struct emu_cq *cq_make(struct ibv_context *context, int cqe, void *cq_context,
                              struct ibv_comp_channel *channel, const char *call)
{
    struct emu_nic *nic;
    struct emu_cq_params p = {0};
    struct emu_cq *cq;
    uint32_t log = 1;
    void *ring;
    int err = 0;

    if (context == NULL || !emu_context_is_ours(context)) {
        errno = EINVAL;
        return NULL;
    }
    nic = emu_nic_of_ctx(context);
    if (cqe < 1 || cqe > (1 << EMU_LOG_MAX_CQ_SZ) - 1) {
        EMU_LOG_ERR("%s: %d entries asked; the device allows 1..%d", call, cqe,
                    (1 << EMU_LOG_MAX_CQ_SZ) - 1);
        errno = EINVAL;
        return NULL;
    }
    while ((1 << log) < cqe + 1)
        log++;
    if (posix_memalign(&ring, 4096, (size_t)PRM_CQE_SIZE << log) != 0) {
        errno = ENOMEM;
        return NULL;
    }
    /* Every entry starts invalid: nothing is software's until the device writes it. */
    for (uint32_t i = 0; i < (1u << log); i++)
        ((struct prm_cqe64 *)ring)[i].op_own = PRM_CQE_OPCODE_INVALID << PRM_CQE_OPCODE_SHIFT;
    p.log_size = log;
    p.ring = (uintptr_t)ring;
    p.dbrec = (uintptr_t)calloc(1, 64);
    if (p.dbrec == 0 || (err = emu_cq_create(nic, &p, &cq)) != 0) {
        free((void *)p.dbrec);
        free(ring);
        errno = p.dbrec == 0 ? ENOMEM : err;
        return NULL;
    }
    cq->ring_alloc = ring;
    cq->dbrec_alloc = (void *)p.dbrec;
    cq->ibv.context = context;
    cq->ibv.channel = channel;
    cq->ibv.cq_context = cq_context;
    cq->ibv.handle = cq->cqn;
    cq->ibv.cqe = (int)(1u << log) - 1;
    pthread_mutex_init(&cq->ibv.mutex, NULL);
    pthread_cond_init(&cq->ibv.cond, NULL);
    if (channel != NULL) {
        /* The channel's pipe gets the CQ itself as the token (ibv_get_cq_event reads it). */
        cq->channel = channel;
        cq->channel_target.fd = emu_channel_write_fd(channel);
        cq->channel_target.token = (uintptr_t)cq;
        cq->channel_target.format = EMU_CQ_EVENT_TOKEN;
        cq->channel_target.kinds = EMU_CQ_EV_COMPLETION;
        emu_cq_attach(nic, cq->cqn, &cq->channel_target);
        pthread_mutex_lock(&context->mutex);
        channel->refcnt++;
        pthread_mutex_unlock(&context->mutex);
    }
    cq->ibv.start_poll = cq_ex_start;
    cq->ibv.next_poll = cq_ex_next;
    cq->ibv.end_poll = cq_ex_end;
    cq->ibv.read_opcode = cq_ex_opcode;
    cq->ibv.read_vendor_err = cq_ex_vendor_err;
    cq->ibv.read_byte_len = cq_ex_byte_len;
    cq->ibv.read_imm_data = cq_ex_imm;
    cq->ibv.read_qp_num = cq_ex_qp_num;
    cq->ibv.read_src_qp = cq_ex_src_qp;
    cq->ibv.read_wc_flags = cq_ex_wc_flags;
    cq->ibv.read_slid = cq_ex_slid;
    cq->ibv.read_sl = cq_ex_sl;
    cq->ibv.read_dlid_path_bits = cq_ex_dlid_path_bits;
    return cq;
}

EMU_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
                                        struct ibv_comp_channel *channel, int comp_vector)
{
    struct emu_cq *cq;

    if (context != NULL && emu_context_is_ours(context) &&
        (comp_vector < 0 || comp_vector >= context->num_comp_vectors)) {
        EMU_LOG_ERR("ibv_create_cq: completion vector %d does not exist (the device has %d)",
                    comp_vector, context->num_comp_vectors);
        errno = EINVAL;
        return NULL;
    }
    cq = cq_make(context, cqe, cq_context, channel, "ibv_create_cq");
    return cq != NULL ? ibv_cq_ex_to_cq(&cq->ibv) : NULL;
}

struct ibv_cq_ex *emu_verbs_create_cq_ex(struct ibv_context *context,
                                         struct ibv_cq_init_attr_ex *attr)
{
    struct emu_cq *cq;

    if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS ||
        attr->wc_flags & ~(uint64_t)EMU_CQ_WC_FLAGS) {
        EMU_LOG_ERR("ibv_create_cq_ex: comp_mask 0x%x / wc_flags 0x%lx ask for what this device "
                    "does not report (supported wc_flags 0x%x, e.g. no completion timestamps)",
                    attr->comp_mask, (unsigned long)attr->wc_flags, EMU_CQ_WC_FLAGS);
        errno = EOPNOTSUPP;
        return NULL;
    }
    cq = cq_make(context, (int)attr->cqe, attr->cq_context, attr->channel, "ibv_create_cq_ex");
    return cq != NULL ? &cq->ibv : NULL;
}

EMU_EXPORT int ibv_destroy_cq(struct ibv_cq *ibcq)
{
    struct emu_cq *cq = (struct emu_cq *)ibcq;
    struct ibv_comp_channel *channel;
    struct emu_async_closing closing;
    struct emu_nic *nic;
    void *ring, *dbrec;
    int err;

    if (ibcq == NULL)
        return EINVAL;
    nic = cq->nic;
    emu_verbs_async_quiesce(nic, EMU_ASYNC_CQ, cq, &closing);
    channel = cq->channel;
    ring = cq->ring_alloc;
    dbrec = cq->dbrec_alloc;
    /* Every event delivered must have been acknowledged, as with rdma-core. */
    pthread_mutex_lock(&ibcq->mutex);
    while (ibcq->comp_events_completed != __atomic_load_n(&cq->events_completed, __ATOMIC_RELAXED))
        pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
    pthread_mutex_unlock(&ibcq->mutex);
    err = emu_cq_destroy(cq);
    emu_async_gone(nic, &closing);
    if (err != 0)
        return err;
    if (channel != NULL) {
        pthread_mutex_lock(&channel->context->mutex);
        channel->refcnt--;
        pthread_mutex_unlock(&channel->context->mutex);
    }
    free(ring);
    free(dbrec);
    return 0;
}
