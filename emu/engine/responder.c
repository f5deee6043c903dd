/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder (progress thread): checks each request against the QP's
 * state, PSN and remote access flags and the memory key, places the payload
 * straight into the target (or a receive WQE's buffers), then answers with
 * ACK, NAK, read data or the atomic's original value.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/caps.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "wire/wire.h"

#define RESP_MAX_SGE   32
#define RESP_LKEY_STOP 0x100u /* data segment that ends a receive WQE (mlx5's invalid lkey) */

struct resp_target {
    struct iovec iov[RESP_MAX_SGE];
    struct emu_mr *mr[RESP_MAX_SGE];
    uint64_t iova[RESP_MAX_SGE];
    int count, held;
    bool gpu;
};

static void resp_release(struct emu_nic *nic, struct resp_target *t)
{
    for (int i = 0; i < t->held; i++)
        emu_mr_put(nic);
    t->held = 0;
}

/* Moves a GPU target's payload from the host bounce buffer into place. */
static int resp_bounce_out(struct resp_target *t, const uint8_t *bounce)
{
    uint32_t at = 0;
    int err = 0;

    for (int i = 0; err == 0 && i < t->count; i++) {
        if (t->mr[i]->gpu)
            err = emu_mr_write(t->mr[i], t->iova[i], bounce + at, t->iov[i].iov_len);
        else
            memcpy(t->iov[i].iov_base, bounce + at, t->iov[i].iov_len);
        at += (uint32_t)t->iov[i].iov_len;
    }
    return err;
}

/* Receives len bytes of payload into the held target (host directly, GPU through a bounce). */
static int resp_recv_into(struct emu_conn *conn, struct resp_target *t, uint32_t len)
{
    uint8_t *bounce;
    int err;

    if (!t->gpu)
        return emu_conn_recv(conn, t->iov, t->count);
    bounce = malloc(len ? len : 1);
    if (bounce == NULL)
        return ENOMEM;
    err = emu_conn_recv(conn, &(struct iovec){bounce, len}, 1);
    if (err == 0)
        err = resp_bounce_out(t, bounce);
    free(bounce);
    return err;
}

/* The requester's buffers of a pull request (F_PULL), in the requester's process. */
struct resp_pull {
    struct iovec iov[EMU_WIRE_PULL_MAX_ENTRIES];
    int count;
};

/*
 * Reads a pull request's list (its payload; the progress thread checked its
 * length) and checks that it adds up to the message length. -1: malformed,
 * the connection is dropped.
 */
static int resp_pull_list(struct emu_conn *conn, const struct emu_wire_hdr *h, struct resp_pull *p)
{
    uint8_t raw[EMU_WIRE_PULL_MAX_ENTRIES * EMU_WIRE_PULL_ENTRY];
    uint32_t n = be32toh(h->payload_len);
    uint64_t total = 0;

    if (emu_conn_recv(conn, &(struct iovec){raw, n}, 1) != 0)
        return -1;
    p->count = (int)(n / EMU_WIRE_PULL_ENTRY);
    for (int i = 0; i < p->count; i++) {
        uint64_t addr, len;

        memcpy(&addr, raw + i * EMU_WIRE_PULL_ENTRY, 8);
        memcpy(&len, raw + i * EMU_WIRE_PULL_ENTRY + 8, 8);
        len = be64toh(len);
        /* Bounded per entry so that the sum cannot wrap. */
        if (len == 0 || len > (1u << EMU_LOG_MAX_MSG)) {
            emu_wire_reject(conn, "bad pull list entry length", len);
            return -1;
        }
        total += len;
        p->iov[i].iov_base = (void *)(uintptr_t)be64toh(addr);
        p->iov[i].iov_len = (size_t)len;
    }
    if (total != be32toh(h->dma_len)) {
        emu_wire_reject(conn, "pull list does not add up to the message length", total);
        return -1;
    }
    return 0;
}

/* Reads a pull request's data from the requester into the held target; errno-style. */
static int resp_pull_into(struct emu_conn *conn, struct resp_target *t, const struct resp_pull *p,
                          uint32_t len)
{
    uint8_t *bounce;
    int err;

    if (!t->gpu)
        return emu_conn_pull(conn, t->iov, t->count, p->iov, p->count);
    /* The kernel cannot write GPU memory: one host copy, as for socket payloads. */
    bounce = malloc(len);
    if (bounce == NULL)
        return ENOMEM;
    err = emu_conn_pull(conn, &(struct iovec){bounce, len}, 1, p->iov, p->count);
    if (err == 0)
        err = resp_bounce_out(t, bounce);
    free(bounce);
    return err;
}

/* Drops the rest of a refused request: its payload, or nothing for a pull request. */
static void resp_skip(struct emu_conn *conn, bool pull, uint32_t len)
{
    if (!pull)
        emu_conn_discard(conn, len);
}

/* Holds [iova, iova+len) through key for the access; adds it to the target. */
static enum emu_mr_check resp_hold(struct emu_qp *qp, struct resp_target *t, uint32_t key,
                                   uint64_t iova, uint32_t len, int access)
{
    struct emu_mr *mr;
    enum emu_mr_check r = emu_mr_get(qp->nic, key, qp->p.pd->pdn, iova, len, access, &mr);

    if (r != EMU_MR_OK)
        return r;
    t->held++;
    t->gpu |= mr->gpu;
    t->mr[t->count] = mr;
    t->iova[t->count] = iova;
    t->iov[t->count].iov_base = emu_mr_host_ptr(mr, iova);
    t->iov[t->count++].iov_len = len;
    return EMU_MR_OK;
}

/*
 * An owed ACK leaves after this many frames or bytes at the latest (or when
 * the receive batch ends): few enough to keep the requester's window open.
 */
#define RESP_ACK_EVERY_FRAMES 32
#define RESP_ACK_EVERY_BYTES  (2u << 20)

void emu_engine_ack_flush(struct emu_conn *conn)
{
    for (int i = 0; i < conn->ack_count; i++) {
        struct emu_wire_hdr h;

        engine_hdr_init(&h, EMU_WIRE_ACK, conn->acks[i].qpn, conn->acks[i].remote_qpn,
                        conn->acks[i].psn);
        emu_conn_send(conn, &h, NULL, 0);
    }
    conn->ack_count = 0;
    conn->ack_frames = 0;
    conn->ack_bytes = 0;
}

/* Owes an ACK for psn (cumulative: it acknowledges every earlier request of the QP too). */
static int resp_ack_defer(struct emu_qp *qp, struct emu_conn *conn, uint32_t psn, uint32_t len)
{
    int i;

    for (i = 0; i < conn->ack_count; i++)
        if (conn->acks[i].qpn == qp->qpn)
            break;
    if (i == (int)(sizeof(conn->acks) / sizeof(conn->acks[0]))) {
        emu_engine_ack_flush(conn);
        i = 0;
    }
    if (i == conn->ack_count) {
        conn->acks[i].qpn = qp->qpn;
        conn->acks[i].remote_qpn = qp->attr.remote_qpn;
        conn->ack_count++;
    }
    conn->acks[i].psn = psn;
    /* A few frames per ACK: enough to save work, few enough to keep the requester's window open. */
    conn->ack_bytes += len;
    if (++conn->ack_frames >= RESP_ACK_EVERY_FRAMES || conn->ack_bytes >= RESP_ACK_EVERY_BYTES)
        emu_engine_ack_flush(conn);
    return 0;
}

static int resp_reply(struct emu_qp *qp, struct emu_conn *conn, uint8_t type, uint32_t psn,
                      uint8_t syndrome, const struct iovec *iov, int iovcnt, uint32_t len)
{
    struct emu_wire_hdr h;

    /* Responses leave in request order: owed ACKs go before this one. */
    emu_engine_ack_flush(conn);

    engine_hdr_init(&h, type, qp->qpn, qp->attr.remote_qpn, psn);
    h.syndrome = syndrome;
    h.payload_len = htobe32(len);
    if (syndrome == EMU_WIRE_NAK_RNR)
        h.imm = htobe32(qp->attr.min_rnr_timer);
    emu_conn_send(conn, &h, iov, iovcnt);
    return 0;
}

/* The next receive WQE (RQ or SRQ) copied into wqe; its index, or -1 when none is posted. */
static int64_t resp_take_recv(struct emu_qp *qp, uint8_t *wqe, uint32_t *first_seg)
{
    uint32_t stride = emu_qp_rq_stride(qp);

    if (qp->p.srq != NULL) {
        *first_seg = 16; /* after the SRQ next segment */
        return emu_srq_take(qp->p.srq, wqe);
    }
    *first_seg = 0;
    if (qp->p.rq_size_zero || ((engine_rq_posted(qp) - qp->rq_consumer) & 0xffff) == 0)
        return -1;
    emu_mem_read(qp->p.wq_gpu,
                 qp->p.wq + (uintptr_t)(qp->rq_consumer & ((1u << qp->p.log_rq_size) - 1)) * stride,
                 wqe, stride);
    return qp->rq_consumer++ & 0xffff;
}

static uint32_t resp_wqe_stride(const struct emu_qp *qp)
{
    return qp->p.srq != NULL ? (16u << qp->p.srq->p.log_stride) : emu_qp_rq_stride(qp);
}

/* A SEND or WRITE_IMM's receive WQE: scatter list held for len bytes. Returns 0 or a syndrome. */
static uint8_t resp_scatter(struct emu_qp *qp, const uint8_t *wqe, uint32_t first, uint32_t len,
                            struct resp_target *t)
{
    uint32_t stride = resp_wqe_stride(qp);
    uint32_t left = len;

    for (uint32_t off = first; off + 16 <= stride && left > 0 && t->count < RESP_MAX_SGE;
         off += 16) {
        const struct prm_wqe_data_seg *d = (const void *)(wqe + off);
        uint32_t bc = be32toh(d->byte_count), take;

        /* mlx5's terminator; key 0x100 itself can be a real key, so the length decides too. */
        if (be32toh(d->lkey) == RESP_LKEY_STOP && bc == 0)
            break;
        take = bc < left ? bc : left;
        if (take == 0)
            continue;
        if (resp_hold(qp, t, be32toh(d->lkey), be64toh(d->addr), take, IBV_ACCESS_LOCAL_WRITE) !=
            EMU_MR_OK)
            return PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
        left -= take;
    }
    return left == 0 ? 0 : PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR;
}

/* The responder side of a receive-consuming request failed: error CQE, QP to ERR. */
static void resp_fail_recv(struct emu_qp *qp, uint32_t wqe_index, uint8_t syndrome)
{
    engine_cqe_resp_err(qp, wqe_index, syndrome);
    emu_engine_qp_fail(qp, 0);
}

/* An atomic request, decoded: operands in host order (proto.h). */
struct resp_atomic_op {
    uint8_t op;    /* PRM_WQE_OPCODE_ATOMIC_* */
    uint32_t size; /* operand bytes: 4 or 8 */
    uint64_t swap_add, compare, swap_mask, compare_mask;
};

/* x + y where a set bit i of boundary keeps the carry out of bit i from bit i + 1. */
static uint64_t resp_field_add(uint64_t x, uint64_t y, uint64_t boundary, uint32_t bits)
{
    uint64_t sum = 0, carry = 0;

    for (uint32_t i = 0; i < bits; i++) {
        uint64_t a = (x >> i) & 1, b = (y >> i) & 1;

        sum |= (a ^ b ^ carry) << i;
        carry = ((a & b) | (carry & (a ^ b))) & ~(boundary >> i) & 1;
    }
    return sum;
}

/* The new value of a target holding orig (host order, operand size). */
static uint64_t resp_atomic_apply(const struct resp_atomic_op *a, uint64_t orig)
{
    uint64_t mask = a->size == 8 ? ~0ull : 0xffffffffull, v;

    switch (a->op) {
    case PRM_WQE_OPCODE_ATOMIC_FA:
        v = orig + a->swap_add;
        break;
    case PRM_WQE_OPCODE_ATOMIC_CS:
        v = orig == a->compare ? a->swap_add : orig;
        break;
    case PRM_WQE_OPCODE_ATOMIC_MASKED_CS:
        v = ((orig ^ a->compare) & a->compare_mask) == 0
                    ? (orig & ~a->swap_mask) | (a->swap_add & a->swap_mask)
                    : orig;
        break;
    default: /* PRM_WQE_OPCODE_ATOMIC_MASKED_FA; compare is the field boundary */
        v = resp_field_add(orig, a->swap_add, a->compare, a->size * 8);
        break;
    }
    return v & mask;
}

/*
 * Executes the atomic on the held target (device-wide atomic lock held);
 * *orig_raw receives the original contents as stored (big-endian).
 */
static void resp_atomic_exec(const struct resp_atomic_op *a, struct resp_target *t, uint64_t raddr,
                             uint8_t *orig_raw)
{
    /*
     * GPU memory, or a host address not aligned to the operand (an MR whose
     * iova and address differ in alignment): read, modify, write, ordered by
     * the lock alone.
     */
    if (t->gpu || ((uintptr_t)t->iov[0].iov_base & (a->size - 1)) != 0) {
        uint8_t raw[8];
        uint64_t orig, next;

        emu_mr_read(t->mr[0], raddr, raw, a->size);
        memcpy(orig_raw, raw, a->size);
        if (a->size == 4) {
            uint32_t w;

            memcpy(&w, raw, 4);
            orig = be32toh(w);
            next = resp_atomic_apply(a, orig);
            w = htobe32((uint32_t)next);
            memcpy(raw, &w, 4);
        } else {
            uint64_t w;

            memcpy(&w, raw, 8);
            orig = be64toh(w);
            next = resp_atomic_apply(a, orig);
            w = htobe64(next);
            memcpy(raw, &w, 8);
        }
        if (next != orig)
            emu_mr_write(t->mr[0], raddr, raw, a->size);
        return;
    }
    /* Host memory: a compare-exchange keeps the update atomic for the CPU too. */
    if (a->size == 4) {
        uint32_t *p = t->iov[0].iov_base, old = __atomic_load_n(p, __ATOMIC_SEQ_CST), next;

        do
            next = htobe32((uint32_t)resp_atomic_apply(a, be32toh(old)));
        while (!__atomic_compare_exchange_n(p, &old, next, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST));
        memcpy(orig_raw, &old, 4);
    } else {
        uint64_t *p = t->iov[0].iov_base, old = __atomic_load_n(p, __ATOMIC_SEQ_CST), next;

        do
            next = htobe64(resp_atomic_apply(a, be64toh(old)));
        while (!__atomic_compare_exchange_n(p, &old, next, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST));
        memcpy(orig_raw, &old, 8);
    }
}

/*
 * ATOMIC: compare-swap, fetch-add and their masked forms on a 4- or 8-byte
 * target, which must be aligned to its size. The progress thread checked
 * the frame's lengths and operand widths (proto.h).
 */
static int resp_atomic(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                       uint32_t psn)
{
    uint64_t raddr = be64toh(h->raddr);
    uint32_t len = be32toh(h->payload_len), masks_len;
    struct resp_atomic_op a = {.op = h->op,
                               .size = emu_wire_atomic_size(h->op, h->opmod, &masks_len),
                               .swap_add = be64toh(h->swap_add),
                               .compare = be64toh(h->compare),
                               .swap_mask = 0,
                               .compare_mask = 0};
    struct resp_target t = {0};
    uint8_t orig[8];

    if (a.size == 0) {
        if (emu_conn_discard(conn, len) != 0)
            return -1;
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, NULL,
                          0, 0);
    }
    if (masks_len != 0) {
        uint64_t m[2];

        if (emu_conn_recv(conn, &(struct iovec){m, sizeof(m)}, 1) != 0)
            return -1;
        a.swap_mask = be64toh(m[0]);
        a.compare_mask = be64toh(m[1]);
        if (a.size == 4 && ((a.swap_mask | a.compare_mask) >> 32) != 0) {
            emu_wire_reject(conn, "4-byte atomic mask wider than 32 bits", psn);
            return -1;
        }
    }
    if (!qp->attr.remote_atomic)
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, NULL, 0,
                          0);
    if ((raddr & (a.size - 1)) != 0)
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, NULL,
                          0, 0);
    if (resp_hold(qp, &t, be32toh(h->rkey), raddr, a.size, IBV_ACCESS_REMOTE_ATOMIC) != EMU_MR_OK)
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, NULL, 0,
                          0);
    /*
     * As on ConnectX, the target is big-endian in memory and the original
     * value goes back as stored. The device-wide lock orders atomics of this
     * device.
     */
    emu_engine_atomic_lock();
    resp_atomic_exec(&a, &t, raddr, orig);
    emu_engine_atomic_unlock();
    resp_release(qp->nic, &t);
    return resp_reply(qp, conn, EMU_WIRE_ATOMIC_RESP, psn, 0, &(struct iovec){orig, a.size}, 1,
                      a.size);
}

static int resp_read(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                     uint32_t psn)
{
    uint32_t len = be32toh(h->dma_len);
    struct resp_target t = {0};
    void *bounce = NULL;
    int err;

    if (!qp->attr.remote_read)
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, NULL, 0,
                          0);
    if (len > (1u << EMU_LOG_MAX_MSG))
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, NULL,
                          0, 0);
    if (len == 0)
        return resp_reply(qp, conn, EMU_WIRE_READ_RESP, psn, 0, NULL, 0, 0);
    if (resp_hold(qp, &t, be32toh(h->rkey), be64toh(h->raddr), len, IBV_ACCESS_REMOTE_READ) !=
        EMU_MR_OK)
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, NULL, 0,
                          0);
    if (t.gpu) {
        bounce = malloc(len);
        if (bounce == NULL || emu_mr_read(t.mr[0], t.iova[0], bounce, len) != 0) {
            free(bounce);
            resp_release(qp->nic, &t);
            return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_OP_ERR, NULL, 0,
                              0);
        }
        t.iov[0].iov_base = bounce;
    }
    err = resp_reply(qp, conn, EMU_WIRE_READ_RESP, psn, 0, t.iov, 1, len);
    free(bounce);
    resp_release(qp->nic, &t);
    return err;
}

/* WRITE, WRITE_IMM, SEND, SEND_IMM: payload placed, then ACK (or NAK). */
static int resp_data(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                     uint32_t psn)
{
    bool pull = (h->flags & EMU_WIRE_F_PULL) != 0;
    uint32_t len = pull ? be32toh(h->dma_len) : be32toh(h->payload_len);
    struct resp_pull p;
    bool is_write = h->type == EMU_WIRE_WRITE || h->type == EMU_WIRE_WRITE_IMM;
    bool uses_recv = h->type != EMU_WIRE_WRITE;
    uint8_t wqe[16u << 9];
    struct resp_target t = {0};
    uint32_t first = 0;
    int64_t rindex = -1;
    uint8_t synd = 0;
    int err;

    /* The list is read first, whatever happens next: the stream goes on after it. */
    if (pull && resp_pull_list(conn, h, &p) != 0)
        return -1;
    if (is_write && !qp->attr.remote_write) {
        resp_skip(conn, pull, len);
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, NULL, 0,
                          0);
    }
    if (is_write && len > 0 &&
        resp_hold(qp, &t, be32toh(h->rkey), be64toh(h->raddr), len, IBV_ACCESS_REMOTE_WRITE) !=
                EMU_MR_OK) {
        resp_skip(conn, pull, len);
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR, NULL, 0,
                          0);
    }
    if (uses_recv) {
        if (resp_wqe_stride(qp) > sizeof(wqe)) {
            synd = PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
        } else {
            rindex = resp_take_recv(qp, wqe, &first);
            if (rindex < 0) {
                /* Receiver not ready: the requester retries from this PSN. */
                resp_release(qp->nic, &t);
                resp_skip(conn, pull, len);
                qp->resp_discard = true;
                resp_reply(qp, conn, EMU_WIRE_NAK, psn, EMU_WIRE_NAK_RNR, NULL, 0, 0);
                return 1;
            }
            if (!is_write)
                synd = resp_scatter(qp, wqe, first, len, &t);
        }
    }
    if (synd != 0) {
        resp_release(qp->nic, &t);
        resp_skip(conn, pull, len);
        if (rindex >= 0)
            resp_fail_recv(qp, (uint32_t)rindex, synd);
        return resp_reply(qp, conn, EMU_WIRE_NAK, psn,
                          synd == PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR
                                  ? PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR
                                  : PRM_CQE_SYNDROME_REMOTE_OP_ERR,
                          NULL, 0, 0);
    }
    if (pull) {
        err = len > 0 ? resp_pull_into(conn, &t, &p, len) : 0;
        resp_release(qp->nic, &t);
        if (err != 0) {
            /*
             * The requester's buffers could not be read (unmapped: EFAULT;
             * its process gone or no longer readable: ESRCH, EPERM). Only the
             * checked target was written; the request fails, not the link.
             */
            EMU_LOG_INFO("QP 0x%x: reading %u bytes from the requester failed: %s", qp->qpn, len,
                         strerror(err));
            if (rindex >= 0)
                resp_fail_recv(qp, (uint32_t)rindex, PRM_CQE_SYNDROME_REMOTE_ABORTED_ERR);
            return resp_reply(qp, conn, EMU_WIRE_NAK, psn,
                              err == EFAULT ? PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR
                                            : PRM_CQE_SYNDROME_REMOTE_OP_ERR,
                              NULL, 0, 0);
        }
    } else {
        err = len > 0 ? resp_recv_into(conn, &t, len) : 0;
        resp_release(qp->nic, &t);
        if (err != 0)
            return -1;
    }
    if (uses_recv) {
        uint8_t op = h->type == EMU_WIRE_WRITE_IMM  ? PRM_CQE_OPCODE_RESP_WR_IMM
                     : h->type == EMU_WIRE_SEND_IMM ? PRM_CQE_OPCODE_RESP_SEND_IMM
                                                    : PRM_CQE_OPCODE_RESP_SEND;

        engine_cqe_resp(qp, op, (uint32_t)rindex, len, h->imm, be32toh(h->src_qpn),
                        (h->flags & EMU_WIRE_F_SOLICITED) != 0);
    }
    return resp_ack_defer(qp, conn, psn, len);
}

static bool resp_state_ok(uint8_t state)
{
    return state == PRM_QP_STATE_RTR || state == PRM_QP_STATE_RTS || state == PRM_QP_STATE_SQD ||
           state == PRM_QP_STATE_SQER;
}

/*
 * A request resent by a requester that timed out before our answer reached
 * it (qp->lock held; released here). Writes and sends are not executed again
 * but acknowledged again; reads are answered again; an atomic is not
 * repeated and its result is not kept, so it is dropped (the requester then
 * fails it with retry-exceeded).
 */
static int resp_duplicate(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                          uint32_t psn)
{
    int rc = 0;

    EMU_LOG_DBG("QP 0x%x: duplicate request type %u, PSN 0x%x (expecting 0x%x)", qp->qpn, h->type,
                psn, qp->expected_psn);
    if (h->type == EMU_WIRE_READ_REQ)
        rc = resp_read(qp, conn, h, psn);
    else if (emu_conn_discard(conn, be32toh(h->payload_len)) != 0)
        rc = -1;
    else if (h->type != EMU_WIRE_ATOMIC)
        rc = resp_ack_defer(qp, conn, qp->expected_psn - 1, 0);
    pthread_mutex_unlock(&qp->lock);
    return rc < 0 ? -1 : 0;
}

static int resp_request(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t psn = be32toh(h->psn);
    int rc;

    pthread_mutex_lock(&qp->lock);
    if (resp_state_ok(qp->state) && (int32_t)(psn - qp->expected_psn) < 0 &&
        be32toh(h->src_qpn) == qp->attr.remote_qpn)
        return resp_duplicate(qp, conn, h, psn); /* unlocks */
    if (!resp_state_ok(qp->state) || psn != qp->expected_psn) {
        /* Not for now (QP not ready, or after a NAK before the retry): dropped, as on a link. */
        pthread_mutex_unlock(&qp->lock);
        return emu_conn_discard(conn, be32toh(h->payload_len)) == 0 ? 0 : -1;
    }
    if (be32toh(h->src_qpn) != qp->attr.remote_qpn) {
        pthread_mutex_unlock(&qp->lock);
        emu_wire_reject(conn, "request from a QP that is not the destination's remote QP",
                        be32toh(h->src_qpn));
        return -1;
    }
    qp->resp_discard = false;
    switch (h->type) {
    case EMU_WIRE_READ_REQ:
        rc = resp_read(qp, conn, h, psn);
        break;
    case EMU_WIRE_ATOMIC:
        rc = resp_atomic(qp, conn, h, psn);
        break;
    default:
        rc = resp_data(qp, conn, h, psn);
        break;
    }
    if (rc == 1) /* RNR: the same PSN is expected again */
        rc = 0;
    else if (rc == 0)
        qp->expected_psn++;
    pthread_mutex_unlock(&qp->lock);
    return rc;
}

int emu_engine_rx(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    struct emu_nic *nic = conn->wire->nic;
    uint32_t dst = be32toh(h->dst_qpn);
    bool response = h->type == EMU_WIRE_ACK || h->type == EMU_WIRE_NAK ||
                    h->type == EMU_WIRE_READ_RESP || h->type == EMU_WIRE_ATOMIC_RESP;
    struct emu_qp *qp;

    pthread_mutex_lock(&nic->lock);
    qp = emu_qp_lookup(nic, dst);
    pthread_mutex_unlock(&nic->lock);
    if (qp == NULL) {
        if (response) /* the requester was destroyed meanwhile */
            return emu_conn_discard(conn, be32toh(h->payload_len)) == 0 ? 0 : -1;
        emu_wire_reject(conn, "request for an unknown QPN", dst);
        return -1;
    }
    if (response)
        return engine_response(qp, conn, h);
    return resp_request(qp, conn, h);
}
