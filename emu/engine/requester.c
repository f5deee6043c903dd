/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester: reads send WQEs from the ring in order, checks their local
 * keys, and sends each as one request frame, the payload going from
 * registered memory into the socket (held until it has left). It runs in
 * whichever thread rang the doorbell, or in the device's loop to resume
 * after a fence, a read limit, an RNR wait, a full transmit queue or a
 * WAIT.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/caps.h"
#include "nic/cq.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"
#include "wire/wire.h"

static_assert(sizeof(((struct engine_wqe *)0)->buf) >= PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE,
              "a WQE of the largest size fits the fetch buffer");

/* The most basic blocks one read-ahead copies (256 KiB: the deepest GPU ring of 4096 WQEs). */
#define SQ_AHEAD_MAX_BBS 4096u

/*
 * Basic block `index` of the send ring into dst. With ahead, from the
 * read-ahead copy, made again from index (`left` basic blocks published
 * from it, as far as the ring's end) when it does not hold index.
 */
static int wqe_bb(struct emu_qp *qp, uint32_t index, uint32_t left, bool ahead, uint8_t *dst)
{
    uint32_t mask = (1u << qp->p.log_sq_size) - 1;
    uintptr_t base = emu_qp_sq_base(qp);

    if (ahead && index - qp->sq_ahead.start >= qp->sq_ahead.count) {
        uint32_t n = (mask + 1) - (index & mask);

        n = n < left ? n : left;
        n = n < SQ_AHEAD_MAX_BBS ? n : SQ_AHEAD_MAX_BBS;
        if (qp->sq_ahead.buf == NULL) {
            uint32_t cap = mask + 1 < SQ_AHEAD_MAX_BBS ? mask + 1 : SQ_AHEAD_MAX_BBS;

            qp->sq_ahead.buf = malloc((size_t)cap << PRM_WQE_BB_SHIFT);
        }
        qp->sq_ahead.count = 0;
        if (qp->sq_ahead.buf != NULL &&
            emu_mem_read(true, base + ((uintptr_t)(index & mask) << PRM_WQE_BB_SHIFT),
                         qp->sq_ahead.buf, (size_t)n << PRM_WQE_BB_SHIFT) == 0) {
            qp->sq_ahead.start = index;
            qp->sq_ahead.count = n;
        }
    }
    if (ahead && index - qp->sq_ahead.start < qp->sq_ahead.count) {
        memcpy(dst, qp->sq_ahead.buf + ((size_t)(index - qp->sq_ahead.start) << PRM_WQE_BB_SHIFT),
               PRM_WQE_BB_SIZE);
        return 0;
    }
    return emu_mem_read(qp->p.wq_gpu, base + ((uintptr_t)(index & mask) << PRM_WQE_BB_SHIFT), dst,
                        PRM_WQE_BB_SIZE);
}

int engine_wqe_fetch(struct emu_qp *qp, uint32_t index, uint32_t avail, bool ahead,
                     struct engine_wqe *w)
{
    const struct prm_wqe_ctrl_seg *ctrl = (const void *)w->buf;
    uint32_t v;

    /* WQEs published are software's to change only after they complete: a copy stays good. */
    ahead = ahead && qp->p.wq_gpu;
    if (wqe_bb(qp, index, avail, ahead, w->buf) != 0)
        return EIO;
    v = be32toh(ctrl->opmod_idx_opcode);
    w->opcode = (uint8_t)v;
    w->opmod = (uint8_t)(v >> 24);
    w->ds = be32toh(ctrl->qpn_ds) & 0x3f;
    w->fm_ce_se = ctrl->fm_ce_se;
    w->imm = ctrl->imm;
    if (w->ds == 0) {
        EMU_LOG_ERR("QP 0x%x: send WQE %u has DS 0", qp->qpn, index & 0xffff);
        return EINVAL;
    }
    w->bbs = prm_wqe_bb_count(w->ds);
    if (w->bbs > avail || w->bbs > (1u << qp->p.log_sq_size)) {
        EMU_LOG_ERR("QP 0x%x: send WQE %u of %u basic blocks runs past the producer index "
                    "software published (%u basic blocks from it); ring the doorbell after the "
                    "whole WQE",
                    qp->qpn, index & 0xffff, w->bbs, avail);
        return EINVAL;
    }
    for (uint32_t i = 1; i < w->bbs; i++)
        if (wqe_bb(qp, index + i, avail - i, ahead, w->buf + i * PRM_WQE_BB_SIZE) != 0)
            return EIO;
    return 0;
}

/*
 * Checks and holds the data segments from byte offset `off` of the WQE.
 * Inline data is taken from the WQE copy. Returns 0 or a PRM syndrome.
 */
static uint8_t sq_gather(struct emu_qp *qp, struct engine_wqe *w, uint32_t off, int access,
                         struct engine_sgl *l)
{
    uint32_t end = w->ds * PRM_WQE_DS_SIZE;

    memset(l, 0, sizeof(*l));
    while (off + 4 <= end) {
        const struct prm_wqe_data_seg *d = (const void *)(w->buf + off);
        uint32_t bc = be32toh(d->byte_count);
        enum emu_mr_check r;

        if (bc & PRM_WQE_INLINE_SEG_FLAG) {
            uint32_t len = bc & ~PRM_WQE_INLINE_SEG_FLAG;

            if (off + 4 + len > end || !engine_sgl_inline(l, w->buf + off + 4, len))
                return PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
            off += prm_wqe_inline_ds(len) * PRM_WQE_DS_SIZE;
            continue;
        }
        if (off + sizeof(*d) > end)
            break;
        off += sizeof(*d);
        if (bc == 0)
            continue;
        if (l->count == ENGINE_SGL_MAX)
            return PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
        r = engine_sgl_hold(l, qp, be32toh(d->lkey), be64toh(d->addr), bc, access);
        if (r != EMU_MR_OK) {
            EMU_LOG_INFO("QP 0x%x: local key 0x%x, %u bytes at 0x%lx: %s", qp->qpn,
                         be32toh(d->lkey), bc, (unsigned long)be64toh(d->addr),
                         emu_mr_check_str(r));
            return PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
        }
    }
    return 0;
}

enum sq_step { SQ_DONE, SQ_STALL };

bool engine_needs_response(uint8_t opcode)
{
    return opcode == PRM_WQE_OPCODE_RDMA_READ || opcode == PRM_WQE_OPCODE_ATOMIC_CS ||
           opcode == PRM_WQE_OPCODE_ATOMIC_FA || opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS ||
           opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_FA;
}

uint32_t engine_wqe_remote_off(const struct emu_qp *qp)
{
    uint32_t off = (uint32_t)sizeof(struct prm_wqe_ctrl_seg);

    if (qp->tp->xrc)
        off += (uint32_t)sizeof(struct prm_wqe_xrc_seg);
    if (qp->tp->dc == PRM_QP_DC_DCI)
        off += (uint32_t)sizeof(struct prm_wqe_datagram_seg);
    return off;
}

uint32_t engine_atomic_seg_bytes(uint8_t opcode, uint8_t opmod)
{
    uint32_t masks_len, size = emu_wire_atomic_size(opcode, opmod, &masks_len);

    if (size == 0)
        return 0;
    /* Every atomic segment is 16 bytes but the 8-byte masked compare-swap's (four operands). */
    if (opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS && size == 8)
        return sizeof(struct prm_wqe_masked_cs64_seg);
    return sizeof(struct prm_wqe_atomic_seg);
}

/*
 * Adds the pending entry of the WQE (qp->lock held). Only a request that
 * goes on the wire takes a PSN: the responder expects them without gaps, and
 * WQEs that complete on the device alone (NOP, WAIT, DUMP, local errors)
 * never reach it.
 */
static struct emu_pending *sq_pending_add(struct emu_qp *qp, uint32_t index,
                                          const struct engine_wqe *w, uint32_t bytes, bool wire)
{
    struct emu_pending *e = &qp->pending[qp->pending_tail & (qp->pending_size - 1)];

    memset(e, 0, sizeof(*e));
    e->wqe_index = index;
    e->next_index = index + w->bbs;
    e->opcode = w->opcode;
    e->signaled = (w->fm_ce_se & PRM_WQE_CTRL_CE_MASK) >= PRM_WQE_CTRL_CQ_UPDATE;
    e->byte_count = bytes;
    e->psn = wire ? qp->next_psn++ : qp->next_psn;
    e->deadline_ns = emu_now_ns() + engine_retry_period_ns(qp);
    e->needs_response = wire && engine_needs_response(w->opcode);
    if (e->needs_response)
        qp->reads_in_flight++;
    qp->pending_tail++;
    engine_inflight(qp->nic->engine, 1);
    return e;
}

/* In ERR or (UC, UD) SQER the send queue flushes what it has not executed (qp->lock held). */
static bool sq_in_error(const struct emu_qp *qp)
{
    return qp->state == PRM_QP_STATE_ERR || qp->state == PRM_QP_STATE_SQER;
}

/*
 * The QP entered ERR (a response, a timer) or SQER while the WQE was being
 * prepared (qp->lock held): the WQE is flushed in its turn. A RESET cannot
 * come in between: it waits for the requester.
 */
static bool sq_flushed(struct emu_qp *qp, uint32_t index, const struct engine_wqe *w)
{
    if (!sq_in_error(qp))
        return false;
    engine_cqe_req_err(qp, index, w->opcode, PRM_CQE_SYNDROME_WR_FLUSH_ERR);
    return true;
}

/* A WQE that executes on the device alone, or fails before it leaves: completes in order. */
static void sq_done_local(struct emu_qp *qp, uint32_t index, const struct engine_wqe *w,
                          uint32_t bytes, uint8_t syndrome)
{
    struct emu_pending *e;

    pthread_mutex_lock(&qp->lock);
    if (sq_flushed(qp, index, w)) {
        pthread_mutex_unlock(&qp->lock);
        return;
    }
    e = sq_pending_add(qp, index, w, bytes, false);
    e->done = true;
    e->syndrome = syndrome;
    engine_complete(qp);
    pthread_mutex_unlock(&qp->lock);
}

/*
 * Whether the responder should read the message from our memory (single
 * copy, proto.h): a same-host peer that proved it can, and only host
 * memory reached through keys (inline data lives in our WQE copy, GPU data
 * in a bounce buffer; both are gone once the WQE is executed).
 *
 * The keys are released when the frame has left, not at the ACK: a
 * deregistration then no longer waits for the peer's read. Reusing or
 * freeing a buffer before its WQE completes is already an error in verbs;
 * what it risks here is that the peer reads whatever our process holds at
 * those addresses then (or fails the request with a remote access error
 * when they are unmapped), and only into the target the peer checked.
 */
static bool sq_pull_ok(const struct emu_qp *qp, struct emu_conn *conn, const struct engine_sgl *l)
{
    /*
     * A datagram carries its message (the responder writes a GRH before it),
     * and so does a request of a QP without acknowledgements (UC): it
     * completes once it has left, and the program may then reuse its buffer.
     */
    if (!qp->tp->connected || !qp->tp->acked || l->bytes < ENGINE_PULL_MIN_BYTES ||
        l->count > (int)EMU_WIRE_PULL_MAX_ENTRIES || l->gpu || !emu_conn_peer_pulls(conn))
        return false;
    for (int i = 0; i < l->count; i++)
        if (l->mr[i] == NULL)
            return false;
    return true;
}

/*
 * Whether the message goes as a GPU reference (proto.h F_GPU), written into
 * ref: one GPU buffer that CUDA exported, to a process of this host that
 * refused none, from an acknowledged connected QP (the responder reads the
 * source before its ACK; verbs forbids reusing it before the completion).
 */
static bool sq_gpu_ref(const struct emu_qp *qp, struct emu_conn *conn, const struct engine_sgl *l,
                       struct emu_wire_hdr *h, uint8_t payload[EMU_WIRE_GPU_REF_LEN])
{
    const struct emu_mr *mr = l->mr[0];
    struct emu_gpu_ref ref;
    uint64_t at;

    if (!qp->tp->connected || !qp->tp->acked || l->count != 1 || mr == NULL || !mr->ipc ||
        !emu_config_get()->gpu_ipc || !emu_conn_gpu_refs(conn))
        return false;
    at = l->iova[0] - mr->iova;
    if (at + l->bytes > mr->ipc_room)
        return false;
    ref = mr->ipc_ref;
    ref.offset += at;
    emu_gpu_ref_encode(&ref, h, payload);
    return true;
}

/*
 * The request is done on the requester's side (qp->lock taken here): it
 * failed before the responder saw it (syndrome), or it left a QP that is
 * not acknowledged (UC, UD; syndrome 0).
 */
static void sq_request_done(struct emu_qp *qp, uint32_t psn, uint8_t syndrome)
{
    struct emu_pending *e;

    pthread_mutex_lock(&qp->lock);
    e = engine_pending_find(qp, psn);
    if (e != NULL) {
        if (e->needs_response)
            qp->reads_in_flight--;
        e->done = true;
        e->syndrome = syndrome;
    }
    engine_complete(qp);
    pthread_mutex_unlock(&qp->lock);
}

/*
 * Sends the request of one WQE; the keys of l are released here, when the
 * payload has left (or at once). A read or an atomic carries no data; an
 * atomic carries `extra` (its masks) instead.
 */
static void sq_send(struct emu_qp *qp, struct emu_conn *conn, uint32_t index, struct engine_wqe *w,
                    struct engine_sgl *l, struct emu_wire_hdr *h, const struct iovec *extra)
{
    bool carries = h->type != EMU_WIRE_READ_REQ && h->type != EMU_WIRE_ATOMIC;
    uint8_t list[EMU_WIRE_PULL_MAX_ENTRIES * EMU_WIRE_PULL_ENTRY];
    struct iovec one;
    const struct iovec *iov = extra;
    int iovcnt = extra->iov_len > 0 ? 1 : 0, err;
    void (*release)(void *) = NULL;
    struct emu_pending *e;
    void *arg = NULL;
    uint32_t psn, payload = carries ? l->bytes : (uint32_t)extra->iov_len;

    pthread_mutex_lock(&qp->lock);
    if (sq_flushed(qp, index, w)) {
        pthread_mutex_unlock(&qp->lock);
        engine_sgl_release(l);
        return;
    }
    e = sq_pending_add(qp, index, w, l->bytes, true);
    psn = e->psn;
    /* Someone waits for this one, or the queue fills: the ACK may not be held back. */
    if (!qp->tp->acked)
        h->flags |= EMU_WIRE_F_UNACKED;
    else if (e->signaled || (qp->pending_tail - qp->pending_head) * 2 >= qp->pending_size)
        h->flags |= EMU_WIRE_F_ACK_REQ;
    pthread_mutex_unlock(&qp->lock);
    if (conn == NULL || emu_conn_dead(conn)) {
        /*
         * Lost with its link, as a packet to a peer that stopped answering:
         * its timer resends it, then fails it once the QP's retries are spent
         * (engine_timer_check), as a NIC does. A peer that exits right after
         * its last completion does not fail the request we just posted while
         * we still take our last completions.
         */
        engine_sgl_release(l);
        return;
    }
    h->psn = htobe32(psn);
    if (carries && sq_pull_ok(qp, conn, l)) {
        /* The payload is where the data is; the message length goes in dma_len. */
        for (int i = 0; i < l->count; i++) {
            uint64_t addr = htobe64((uint64_t)(uintptr_t)l->iov[i].iov_base);
            uint64_t len = htobe64((uint64_t)l->iov[i].iov_len);

            memcpy(list + i * EMU_WIRE_PULL_ENTRY, &addr, 8);
            memcpy(list + i * EMU_WIRE_PULL_ENTRY + 8, &len, 8);
        }
        one = (struct iovec){list, (size_t)l->count * EMU_WIRE_PULL_ENTRY};
        h->flags |= EMU_WIRE_F_PULL;
        h->dma_len = htobe32(l->bytes);
        iov = &one;
        iovcnt = 1;
        payload = (uint32_t)one.iov_len;
    } else if (carries && l->bytes > 0 && sq_gpu_ref(qp, conn, l, h, list)) {
        one = (struct iovec){list, EMU_WIRE_GPU_REF_LEN};
        h->flags |= EMU_WIRE_F_GPU;
        h->dma_len = htobe32(l->bytes);
        iov = &one;
        iovcnt = 1;
        payload = EMU_WIRE_GPU_REF_LEN;
    } else if (carries && l->gpu) {
        /* GPU data goes out through one host copy, freed once it has left. */
        void *bounce = malloc(l->bytes ? l->bytes : 1);

        if (bounce == NULL || engine_sgl_gather(l, bounce) != 0) {
            free(bounce);
            engine_sgl_release(l);
            sq_request_done(qp, psn, PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR);
            return;
        }
        one = (struct iovec){bounce, l->bytes};
        iov = &one;
        iovcnt = 1;
        release = free;
        arg = bounce;
    } else if (carries && l->app) {
        /*
         * Application memory is referenced, not copied: its keys stay held
         * until it left. It is checked first: a page unmapped since the
         * registration would end the send midway, and the stream with it.
         */
        bool mapped = engine_sgl_mapped(l) == 0;
        struct engine_sgl *held = mapped ? engine_sgl_dup(l) : NULL;

        if (held == NULL) {
            engine_sgl_release(l);
            sq_request_done(qp, psn,
                            mapped ? PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR
                                   : PRM_CQE_SYNDROME_LOCAL_PROT_ERR);
            return;
        }
        iov = held->iov;
        iovcnt = held->count;
        release = engine_sgl_free;
        arg = held;
        l->count = 0; /* now held's */
    } else if (carries) {
        iov = l->iov; /* inline data only: copied by the wire if it must wait */
        iovcnt = l->count;
    }
    h->payload_len = htobe32(payload);
    err = emu_conn_send(conn, h, iov, iovcnt, release, arg);
    engine_sgl_release(l);
    /*
     * Unacknowledged, the request is done once it left (or was lost with its
     * link); acknowledged and lost with its link, its timer resends it.
     */
    if (err == EFAULT)
        sq_request_done(qp, psn, PRM_CQE_SYNDROME_LOCAL_PROT_ERR);
    else if (!qp->tp->acked)
        sq_request_done(qp, psn, 0);
}

/*
 * An atomic WQE (ctrl, raddr, atomic segment, data segment): the request
 * header (operands as proto.h says) and, for a masked compare-swap, its
 * masks in `masks`. Returns 0 or a PRM syndrome; l is set either way.
 */
static uint8_t sq_atomic(struct emu_qp *qp, struct engine_wqe *w, struct emu_wire_hdr *h,
                         uint64_t masks[2], uint32_t *masks_len, struct engine_sgl *l)
{
    const uint32_t off_seg = engine_wqe_remote_off(qp) + sizeof(struct prm_wqe_raddr_seg);
    const struct prm_wqe_raddr_seg *ra = (const void *)(w->buf + engine_wqe_remote_off(qp));
    const uint8_t *seg = w->buf + off_seg;
    uint32_t size = emu_wire_atomic_size(w->opcode, w->opmod, masks_len);
    uint32_t seg_bytes = engine_atomic_seg_bytes(w->opcode, w->opmod);
    uint8_t synd;

    memset(l, 0, sizeof(*l));
    if (size == 0) {
        EMU_LOG_ERR("QP 0x%x: atomic WQE with opcode 0x%x and opmod 0x%x: this device executes "
                    "4- and 8-byte atomics only",
                    qp->qpn, w->opcode, w->opmod);
        return PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
    }
    h->type = EMU_WIRE_ATOMIC;
    h->op = w->opcode;
    h->opmod = w->opmod;
    h->raddr = ra->raddr;
    h->rkey = ra->rkey;
    h->dma_len = htobe32(size);
    masks[0] = masks[1] = 0;
    if (w->opcode == PRM_WQE_OPCODE_ATOMIC_CS || w->opcode == PRM_WQE_OPCODE_ATOMIC_FA) {
        const struct prm_wqe_atomic_seg *a = (const void *)seg;

        h->swap_add = a->swap_add;
        h->compare = a->compare;
    } else if (w->opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS && size == 4) {
        const struct prm_wqe_masked_cs32_seg *a = (const void *)seg;

        h->swap_add = htobe64(be32toh(a->swap));
        h->compare = htobe64(be32toh(a->compare));
        masks[0] = htobe64(be32toh(a->swap_mask));
        masks[1] = htobe64(be32toh(a->compare_mask));
    } else if (w->opcode == PRM_WQE_OPCODE_ATOMIC_MASKED_CS) {
        const struct prm_wqe_masked_cs64_seg *a = (const void *)seg;

        h->swap_add = a->swap;
        h->compare = a->compare;
        masks[0] = a->swap_mask;
        masks[1] = a->compare_mask;
    } else if (size == 4) {
        const struct prm_wqe_masked_fa32_seg *a = (const void *)seg;

        h->swap_add = htobe64(be32toh(a->add));
        h->compare = htobe64(be32toh(a->field_boundary));
    } else {
        const struct prm_wqe_masked_fa64_seg *a = (const void *)seg;

        h->swap_add = a->add;
        h->compare = a->field_boundary;
    }
    /* The original value comes back into the local buffer: exactly the operand size. */
    synd = sq_gather(qp, w, off_seg + seg_bytes, IBV_ACCESS_LOCAL_WRITE, l);
    if (synd == 0 && l->bytes != size)
        synd = PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
    return synd;
}

void engine_wait_arm(struct emu_qp *qp, bool on)
{
    if (qp->wait_active == on)
        return;
    qp->wait_active = on;
    /* Sequentially consistent: emu_cq_push reads the count after it moved the producer. */
    __atomic_add_fetch(&qp->nic->engine->waiting, on ? 1 : -1, __ATOMIC_SEQ_CST);
}

enum sq_wait { SQ_WAIT_READY, SQ_WAIT_STALL, SQ_WAIT_BAD };

/*
 * WAIT: whether CQ obj_num of this device has written max_index CQEs
 * (counters compared modulo 2^24, as a signed difference). While it has not,
 * the QP stays armed: every CQE written on the device then makes the
 * device loop run this SQ again (engine_waits).
 */
static enum sq_wait sq_wait_check(struct emu_qp *qp, const struct engine_wqe *w)
{
    const struct prm_wqe_wait_seg *ws = (const void *)(w->buf + sizeof(struct prm_wqe_ctrl_seg));
    uint32_t cqn = be32toh(ws->obj_num), target = be32toh(ws->max_index) & 0xffffff;
    uint32_t produced = 0;
    struct emu_cq *cq;
    enum sq_wait r;

    if (w->opmod != 0 || w->ds * PRM_WQE_DS_SIZE < sizeof(struct prm_wqe_ctrl_seg) + sizeof(*ws)) {
        EMU_LOG_ERR("QP 0x%x: WAIT WQE with opmod 0x%x and DS %u: this device waits on CQs only "
                    "(opmod 0, a wait segment)",
                    qp->qpn, w->opmod, w->ds);
        return SQ_WAIT_BAD;
    }
    /* Armed before the producer is read: a CQE written after the read finds the QP armed. */
    pthread_mutex_lock(&qp->lock);
    engine_wait_arm(qp, true);
    pthread_mutex_unlock(&qp->lock);
    pthread_mutex_lock(&qp->nic->lock);
    cq = emu_cq_lookup(qp->nic, cqn);
    if (cq != NULL) {
        pthread_mutex_lock(&cq->lock);
        produced = cq->producer;
        pthread_mutex_unlock(&cq->lock);
    }
    pthread_mutex_unlock(&qp->nic->lock);
    if (cq == NULL) {
        EMU_LOG_ERR("QP 0x%x: WAIT on CQ 0x%x, which this device does not have", qp->qpn, cqn);
        r = SQ_WAIT_BAD;
    } else {
        r = (int32_t)(((produced - target) & 0xffffff) << 8) >= 0 ? SQ_WAIT_READY : SQ_WAIT_STALL;
    }
    if (r != SQ_WAIT_STALL) {
        pthread_mutex_lock(&qp->lock);
        engine_wait_arm(qp, false);
        pthread_mutex_unlock(&qp->lock);
    }
    return r;
}

/*
 * An XRC WQE's XRC segment: the request names the SRQ on the destination's
 * device. An SRQN of another device can name no SRQ of the target QP's
 * domain: the WQE fails as the target's NAK would fail it.
 */
static uint8_t sq_xrc(struct emu_qp *qp, const struct engine_wqe *w, struct emu_wire_hdr *h)
{
    const struct prm_wqe_xrc_seg *x = (const void *)(w->buf + sizeof(struct prm_wqe_ctrl_seg));
    uint32_t srqn = be32toh(x->xrc_srqn) & 0xffffff;

    if ((srqn >> EMU_OBJ_INDEX_BITS) != ((qp->attr.remote_qpn & 0xffffff) >> EMU_OBJ_INDEX_BITS)) {
        EMU_LOG_ERR("QP 0x%x: XRC SRQ 0x%x is not on the device of target QP 0x%x: remote "
                    "invalid request",
                    qp->qpn, srqn, qp->attr.remote_qpn);
        return PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
    }
    h->flags |= EMU_WIRE_F_XRC;
    h->xrc_srq = htobe16((uint16_t)(srqn & EMU_OBJ_INDEX_MASK));
    return 0;
}

/*
 * The request header of a WQE and its local memory; 0 or a PRM syndrome (l
 * set either way). A UD send's destination device comes in *dg (a
 * reference, or NULL).
 */
static uint8_t sq_build(struct emu_qp *qp, struct engine_wqe *w, struct emu_wire_hdr *h,
                        uint64_t masks[2], uint32_t *masks_len, struct engine_sgl *l,
                        struct emu_conn **dg)
{
    const uint32_t off_raddr = engine_wqe_remote_off(qp);
    const struct prm_wqe_raddr_seg *ra = (const void *)(w->buf + off_raddr);

    memset(l, 0, sizeof(*l));
    if (qp->tp->xrc) {
        uint8_t synd = sq_xrc(qp, w, h);

        if (synd != 0)
            return synd;
    }
    switch (w->opcode) {
    case PRM_WQE_OPCODE_RDMA_WRITE:
    case PRM_WQE_OPCODE_RDMA_WRITE_IMM:
        h->type = w->opcode == PRM_WQE_OPCODE_RDMA_WRITE ? EMU_WIRE_WRITE : EMU_WIRE_WRITE_IMM;
        h->raddr = ra->raddr;
        h->rkey = ra->rkey;
        return sq_gather(qp, w, off_raddr + sizeof(*ra), 0, l);
    case PRM_WQE_OPCODE_SEND:
    case PRM_WQE_OPCODE_SEND_IMM: {
        uint8_t synd;

        h->type = w->opcode == PRM_WQE_OPCODE_SEND ? EMU_WIRE_SEND : EMU_WIRE_SEND_IMM;
        if (qp->tp->connected)
            return sq_gather(qp, w, off_raddr, 0, l);
        synd = engine_dg_build(qp, w, h, dg);
        return synd != 0 ? synd : sq_gather(qp, w, engine_dg_data_offset(), 0, l);
    }
    case PRM_WQE_OPCODE_RDMA_READ: {
        uint8_t synd;

        h->type = EMU_WIRE_READ_REQ;
        h->raddr = ra->raddr;
        h->rkey = ra->rkey;
        synd = sq_gather(qp, w, off_raddr + sizeof(*ra), IBV_ACCESS_LOCAL_WRITE, l);
        h->dma_len = htobe32(l->bytes);
        return synd;
    }
    case PRM_WQE_OPCODE_ATOMIC_CS:
    case PRM_WQE_OPCODE_ATOMIC_FA:
    case PRM_WQE_OPCODE_ATOMIC_MASKED_CS:
    case PRM_WQE_OPCODE_ATOMIC_MASKED_FA:
        return sq_atomic(qp, w, h, masks, masks_len, l);
    default: /* the transport table let no other opcode through */
        return PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
    }
}

/*
 * Whether the WRITE WQE at index may be placed straight into a same-host
 * peer's memory (direct.c; qp->lock held, the QP in RTS): only while nothing
 * of the QP is outstanding, so every earlier request has been executed by
 * the responder and this one lands after them; not for a WQE executed again
 * after a rewind, which keeps the PSN it had. Stays true once the lock is
 * let go: the pending ring only empties meanwhile, and only the requester
 * (the caller) adds to it or rewinds.
 */
static bool sq_direct_ok(struct emu_qp *qp, uint32_t index)
{
    if (qp->resending && (int32_t)(index - qp->resend_end) >= 0)
        qp->resending = false;
    return qp->pending_head == qp->pending_tail && !qp->resending;
}

/* Whether the WQE must wait before it executes (qp->lock held). */
static bool sq_must_wait(struct emu_qp *qp, const struct engine_wqe *w)
{
    uint32_t max_rd = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;

    if (qp->state != PRM_QP_STATE_RTS || qp->rnr_resume_ns != 0 ||
        ((w->fm_ce_se & PRM_WQE_CTRL_FM_MASK) != 0 && qp->reads_in_flight > 0) ||
        (engine_needs_response(w->opcode) && qp->reads_in_flight >= max_rd) ||
        qp->pending_tail - qp->pending_head == qp->pending_size)
        return true;
    if (qp->peer != NULL && emu_conn_tx_full(qp->peer)) {
        /* Resumed by the loop when the transmit queue drains (engine_tx_resume). */
        if (!qp->tx_stalled) {
            qp->tx_stalled = true;
            __atomic_add_fetch(&qp->nic->engine->tx_stalled, 1, __ATOMIC_RELAXED);
        }
        return true;
    }
    return false;
}

static enum sq_step sq_exec_one(struct emu_qp *qp, uint32_t index, uint32_t posted)
{
    const uint32_t off_raddr = sizeof(struct prm_wqe_ctrl_seg);
    struct engine_wqe w;
    struct engine_sgl l;
    struct emu_wire_hdr h;
    uint64_t masks[2];
    uint32_t masks_len = 0;
    struct emu_conn *dg = NULL, *conn;
    uint8_t synd, route = 0;
    bool direct, lost;

    if (engine_wqe_fetch(qp, index, posted - index, true, &w) != 0) {
        /* Unreadable or malformed: a local error, and nothing after it is trusted. */
        w.bbs = posted - index;
        w.opcode = 0;
        w.fm_ce_se = 0;
        qp->sq_consumer = posted;
        sq_done_local(qp, index, &w, 0, PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR);
        return SQ_DONE;
    }
    pthread_mutex_lock(&qp->lock);
    if (sq_in_error(qp)) {
        engine_wait_arm(qp, false);
        engine_cqe_req_err(qp, index, w.opcode, PRM_CQE_SYNDROME_WR_FLUSH_ERR);
        pthread_mutex_unlock(&qp->lock);
        qp->sq_consumer = index + w.bbs;
        return SQ_DONE;
    }
    if (sq_must_wait(qp, &w)) {
        pthread_mutex_unlock(&qp->lock);
        return SQ_STALL;
    }
    direct = qp->tp->acked && w.opcode == PRM_WQE_OPCODE_RDMA_WRITE && sq_direct_ok(qp, index);
    pthread_mutex_unlock(&qp->lock);
    if (!prm_qp_transport_allows(qp->tp, w.opcode)) {
        EMU_LOG_ERR("QP 0x%x: send WQE %u has opcode 0x%x, which %s QPs of this device do not "
                    "execute",
                    qp->qpn, index & 0xffff, w.opcode, qp->tp->name);
        qp->sq_consumer = index + w.bbs;
        sq_done_local(qp, index, &w, 0, PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR);
        return SQ_DONE;
    }
    if (w.opcode == PRM_WQE_OPCODE_WAIT) {
        enum sq_wait r = sq_wait_check(qp, &w);

        if (r == SQ_WAIT_STALL)
            return SQ_STALL;
        qp->sq_consumer = index + w.bbs;
        sq_done_local(qp, index, &w, 0, r == SQ_WAIT_BAD ? PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR : 0);
        return SQ_DONE;
    }
    if (qp->tp->dc == PRM_QP_DC_DCI && w.opcode != PRM_WQE_OPCODE_NOP &&
        w.opcode != PRM_WQE_OPCODE_DUMP) {
        bool stall = false, switched = false;

        route = engine_dci_route(qp, &w, &stall, &switched);
        if (stall)
            return SQ_STALL;
        /* A direct write would skip the DC access key check of a new connection. */
        direct = direct && !switched;
    }
    qp->sq_consumer = index + w.bbs;
    if (w.opcode == PRM_WQE_OPCODE_NOP) {
        sq_done_local(qp, index, &w, 0, 0);
        return SQ_DONE;
    }
    if (w.opcode == PRM_WQE_OPCODE_DUMP) {
        /* Its data segments are checked as a gather would check them; nothing moves. */
        synd = sq_gather(qp, &w, off_raddr, 0, &l);
        if (synd == 0 && l.bytes > (1u << EMU_LOG_MAX_MSG))
            synd = PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
        sq_done_local(qp, index, &w, l.bytes, synd);
        engine_sgl_release(&l);
        return SQ_DONE;
    }
    emu_wire_hdr_init(&h, 0, qp->qpn, qp->attr.remote_qpn, 0);
    h.flags = (w.fm_ce_se & PRM_WQE_CTRL_SOLICITED) ? EMU_WIRE_F_SOLICITED : 0;
    if (route != 0) {
        memset(&l, 0, sizeof(l));
        synd = route;
    } else {
        synd = sq_build(qp, &w, &h, masks, &masks_len, &l, &dg);
    }
    conn = qp->tp->connected ? qp->peer : dg;
    h.imm = w.imm;
    /* A datagram is one packet: at most the port's MTU. */
    if (synd == 0 && l.bytes > (qp->tp->connected ? 1u << EMU_LOG_MAX_MSG : EMU_MTU_BYTES))
        synd = PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
    lost = synd == 0 && (conn == NULL || emu_conn_dead(conn));
    if (synd != 0 || (lost && !qp->tp->acked)) {
        /* Unacknowledged with no way to its destination: lost, and complete all the same. */
        uint32_t bytes = synd == 0 ? l.bytes : 0;

        engine_sgl_release(&l);
        sq_done_local(qp, index, &w, bytes, synd);
    } else if (direct && !lost && engine_direct_write(qp, &h, &l)) {
        uint32_t bytes = l.bytes;

        engine_sgl_release(&l);
        sq_done_local(qp, index, &w, bytes, 0);
    } else {
        sq_send(qp, conn, index, &w, &l, &h, &(struct iovec){masks, masks_len});
    }
    if (dg != NULL)
        emu_conn_put(dg);
    return SQ_DONE;
}

/* Rewinds to the WQE an RNR NAK refused, once its timer expired (qp->lock held). */
static void sq_rnr_rewind(struct emu_qp *qp)
{
    uint32_t keep = qp->pending_head;

    while (keep != qp->pending_tail && qp->pending[keep & (qp->pending_size - 1)].done)
        keep++;
    if (keep == qp->pending_tail) {
        qp->rnr_resume_ns = 0;
        return;
    }
    if (!qp->resending || (int32_t)(qp->sq_consumer - qp->resend_end) > 0)
        qp->resend_end = qp->sq_consumer;
    qp->resending = true;
    qp->sq_consumer = qp->pending[keep & (qp->pending_size - 1)].wqe_index;
    qp->next_psn = qp->pending[keep & (qp->pending_size - 1)].psn;
    for (uint32_t i = keep; i != qp->pending_tail; i++) {
        const struct emu_pending *p = &qp->pending[i & (qp->pending_size - 1)];

        /* One answered already (out of order, by a peer) was counted out then. */
        if (p->needs_response && !p->done)
            qp->reads_in_flight--;
        engine_inflight(qp->nic->engine, -1);
    }
    qp->pending_tail = keep;
    qp->rnr_resume_ns = 0;
}

/* More basic blocks than this to execute make a burst (one WQE alone goes out at once). */
#define SQ_CORK_MIN_BBS 4

void engine_sq_run(struct emu_qp *qp)
{
    pthread_mutex_lock(&qp->lock);
    if (pthread_mutex_trylock(&qp->sq_lock) != 0) {
        /* The thread executing this SQ sees the flag before it lets go of it. */
        qp->sq_rerun = true;
        pthread_mutex_unlock(&qp->lock);
        return;
    }
    for (;;) {
        struct emu_conn *out = NULL;
        uint32_t posted;

        qp->sq_rerun = false;
        if (qp->rnr_resume_ns != 0 && emu_now_ns() >= qp->rnr_resume_ns &&
            qp->state == PRM_QP_STATE_RTS)
            sq_rnr_rewind(qp);
        posted = qp->sq_posted;
        /*
         * A burst's requests leave together, one system call for many. Not a
         * DCI's: it changes its peer midway (dc.c).
         */
        if (posted - qp->sq_consumer > SQ_CORK_MIN_BBS && qp->tp->connected &&
            qp->tp->dc != PRM_QP_DC_DCI && qp->peer != NULL) {
            out = qp->peer;
            emu_conn_get(out);
            emu_conn_cork(out);
        }
        pthread_mutex_unlock(&qp->lock);
        /* Signed: a consumer never passes the producer, whatever the WQEs claim. */
        while ((int32_t)(posted - qp->sq_consumer) > 0)
            if (sq_exec_one(qp, qp->sq_consumer, posted) == SQ_STALL)
                break;
        /* Before the rerun check: a QP the uncork's writable() resumes may be this one. */
        if (out != NULL) {
            emu_conn_uncork(out);
            emu_conn_put(out);
        }
        pthread_mutex_lock(&qp->lock);
        if (!qp->sq_rerun && (qp->sq_posted == posted || qp->sq_consumer != posted))
            break;
    }
    pthread_mutex_unlock(&qp->sq_lock);
    pthread_mutex_unlock(&qp->lock);
}
