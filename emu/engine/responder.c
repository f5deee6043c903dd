/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder (receive side, receive lock held): checks each request
 * against the QP's state, PSN and remote access flags and the memory key,
 * places the payload into the target (or a receive WQE's buffers), then
 * answers with ACK, NAK, read data or the atomic's original value. A large
 * payload arrives over several readiness events: the target is held at the
 * header, the completion and the ACK follow in engine_request_done. A UC
 * QP's responder never answers: what it refuses is dropped and counted, and
 * a PSN gap (lost messages) starts a fresh message; UD datagrams go to
 * datagram.c, and a DCT's requests to dc.c, which loads the state of the
 * DCI that sent them. An XRC target QP executes a request only for an XRC
 * SRQ of its own domain (else an invalid-request NAK), whose PD the keys
 * must belong to and whose receive WQEs and CQ a message takes.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/caps.h"
#include "nic/gpu_ipc.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "nic/srq.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transport.h"
#include "wire/wire.h"
#include "nic/async_event.h"

static_assert(EMU_WIRE_GPU_HANDLE_LEN == EMU_GPU_IPC_HANDLE_LEN, "a GPU reference's handle");

/* A request whose payload is still arriving (engine_request_done answers it). */
#define RESP_PENDING 2

/*
 * An owed ACK leaves after this many frames or bytes at the latest (or when
 * the receive batch ends): few enough to keep the requester's window open.
 */
#define RESP_ACK_EVERY_FRAMES 32
#define RESP_ACK_EVERY_BYTES  (2u << 20)

void engine_ack_flush(struct emu_conn *conn)
{
    struct engine_conn *ec = emu_conn_user(conn);

    if (ec == NULL)
        return;
    /* An answer vouches for the writes before it: their GPU copies are complete first. */
    engine_gpu_settle(((struct emu_nic *)emu_wire_user(emu_conn_wire(conn)))->engine);
    for (int i = 0; i < ec->ack_count; i++) {
        struct emu_wire_hdr h;

        emu_wire_hdr_init(&h, EMU_WIRE_ACK, ec->acks[i].qpn, ec->acks[i].remote_qpn,
                          ec->acks[i].psn);
        emu_conn_send(conn, &h, NULL, 0, NULL, NULL);
    }
    ec->ack_count = 0;
    ec->ack_frames = 0;
    ec->ack_bytes = 0;
    ec->ack_now = false;
}

/* Lists conn's ACKs as owed: the loop sends them when due (engine_acks_due). */
static void ack_owe(struct emu_conn *conn, struct engine_conn *ec)
{
    struct emu_engine *e;

    if (!ec->owed_listed) {
        e = ((struct emu_nic *)emu_wire_user(emu_conn_wire(conn)))->engine;
        ec->owed_listed = true;
        ec->owed_ns = emu_now_ns();
        ec->owed_next = e->owed;
        __atomic_store_n(&e->owed, ec, __ATOMIC_RELAXED);
    }
}

void engine_batch_end(struct emu_conn *conn)
{
    struct engine_conn *ec = emu_conn_user(conn);

    if (ec == NULL || ec->ack_count == 0)
        return;
    if (ec->ack_now) {
        engine_ack_flush(conn);
        return;
    }
    /* Held back: the loop sends it when due, or a later answer takes it along. */
    ack_owe(conn, ec);
}

void engine_acks_forget(struct emu_engine *e, struct engine_conn *ec)
{
    for (struct engine_conn **pp = &e->owed; *pp != NULL; pp = &(*pp)->owed_next) {
        if (*pp == ec) {
            __atomic_store_n(pp, ec->owed_next, __ATOMIC_RELAXED);
            break;
        }
    }
    ec->owed_listed = false;
}

uint64_t engine_acks_due(struct emu_engine *e, uint64_t now, uint64_t max_age_ns)
{
    uint64_t oldest = 0;

    for (struct engine_conn *ec = e->owed, *next; ec != NULL; ec = next) {
        next = ec->owed_next;
        if (ec->ack_count == 0 || ec->ack_now || now - ec->owed_ns >= max_age_ns) {
            engine_acks_forget(e, ec);
            engine_ack_flush(ec->conn);
        } else if (now - ec->owed_ns > oldest) {
            oldest = now - ec->owed_ns;
        }
    }
    return oldest;
}

/*
 * The connection a connected QP's answers leave on: its own (qp->peer), which
 * its requests take too, so that what the QP sends reaches the peer in the
 * order it was sent, as on a NIC's one link. Two devices that dial each other
 * at once share two connections, and an ACK on the one the request came by
 * could arrive after a send the program posted once it saw the receive's
 * CQE. A DCT answers each DCI on the connection its request came by.
 */
static struct emu_conn *resp_out(const struct emu_qp *qp, struct emu_conn *in)
{
    if (qp->tp->dc == PRM_QP_DC_DCT || qp->peer == NULL || emu_conn_dead(qp->peer))
        return in;
    return qp->peer;
}

/*
 * Owes an ACK for psn (cumulative: it acknowledges every earlier request of
 * the QP too); now: the requester asked for it at once.
 */
static int resp_ack_defer(struct emu_qp *qp, struct emu_conn *in, uint32_t psn, uint32_t len,
                          bool now)
{
    struct emu_conn *conn = resp_out(qp, in);
    struct engine_conn *ec;
    int i;

    if (!qp->tp->acked)
        return 0;
    ec = engine_conn_of(conn);
    if (ec == NULL)
        return -1;
    ec->ack_now |= now;
    for (i = 0; i < ec->ack_count; i++)
        if (ec->acks[i].qpn == qp->qpn && ec->acks[i].remote_qpn == qp->attr.remote_qpn)
            break; /* a DCT owes ACKs to each of its DCIs */
    if (i == (int)(sizeof(ec->acks) / sizeof(ec->acks[0]))) {
        engine_ack_flush(conn);
        i = 0;
    }
    if (i == ec->ack_count) {
        ec->acks[i].qpn = qp->qpn;
        ec->acks[i].remote_qpn = qp->attr.remote_qpn;
        ec->ack_count++;
    }
    ec->acks[i].psn = psn;
    ec->ack_bytes += len;
    if (++ec->ack_frames >= RESP_ACK_EVERY_FRAMES || ec->ack_bytes >= RESP_ACK_EVERY_BYTES)
        engine_ack_flush(conn);
    /*
     * The end of the batch read from in does not cover this one: it is owed,
     * and an ACK asked for at once leaves at the end of the loop's turn, one
     * for the batch (and one settle of its GPU copies), not one a request.
     */
    if (conn != in)
        ack_owe(conn, ec);
    return 0;
}

/* An answer; the payload is released by release(arg) once it has left (NULL: copied). */
static int resp_answer(struct emu_qp *qp, struct emu_conn *in, uint8_t type, uint32_t psn,
                       const struct iovec *iov, uint32_t len, void (*release)(void *), void *arg)
{
    struct emu_conn *conn = resp_out(qp, in);
    struct emu_wire_hdr h;

    /* Answers leave in request order: owed ACKs go before this one. */
    engine_ack_flush(conn);
    emu_wire_hdr_init(&h, type, qp->qpn, qp->attr.remote_qpn, psn);
    h.payload_len = htobe32(len);
    emu_conn_send(conn, &h, iov, iov != NULL ? 1 : 0, release, arg);
    return 0;
}

/*
 * The IB spec's responder errors of class C (a remote access violation) and
 * B (an invalid request): the responder's QP enters the error state and its
 * owner hears of it through the affiliated async event ConnectX raises
 * (qp->lock held). An RNR or a receive that failed (operational) is not such
 * an error.
 */
static void resp_error_event(struct emu_qp *qp, uint8_t syndrome)
{
    enum ibv_event_type type;

    if (qp->tp->dc == PRM_QP_DC_DCT)
        return; /* a DCT serves other DCIs too: only the requester's DCI fails */
    if (syndrome == PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR)
        type = IBV_EVENT_QP_ACCESS_ERR;
    else if (syndrome == PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR)
        type = IBV_EVENT_QP_REQ_ERR;
    else
        return;
    emu_async_raise(qp->nic, qp->ibv.context, type, &qp->ibv);
    engine_qp_fail(qp, 0);
}

/* A refusal: NAK, or for a QP without acknowledgements (UC) the request is dropped, counted. */
static int resp_nak(struct emu_qp *qp, struct emu_conn *in, uint32_t psn, uint8_t syndrome)
{
    struct emu_conn *conn = resp_out(qp, in);
    struct emu_wire_hdr h;

    if (!qp->tp->acked) {
        EMU_LOG_DBG("QP 0x%x: request PSN 0x%x dropped (syndrome 0x%x)", qp->qpn, psn, syndrome);
        engine_drop(qp->nic, EMU_DROP_REFUSED);
        return 0;
    }
    engine_ack_flush(conn);
    emu_wire_hdr_init(&h, EMU_WIRE_NAK, qp->qpn, qp->attr.remote_qpn, psn);
    h.syndrome = syndrome;
    if (syndrome == EMU_WIRE_NAK_RNR)
        h.imm = htobe32(qp->attr.min_rnr_timer);
    emu_conn_send(conn, &h, NULL, 0, NULL, NULL);
    resp_error_event(qp, syndrome);
    return 0;
}

/*
 * ATOMIC: compare-swap, fetch-add and their masked forms on a 4- or 8-byte
 * target, which must be aligned to its size. The wire checked the frame's
 * lengths and operand widths (proto.h).
 */
static int resp_atomic(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                       const uint8_t *payload, uint32_t psn)
{
    uint64_t raddr = be64toh(h->raddr);
    uint32_t masks_len;
    struct engine_atomic_op a = {.op = h->op,
                                 .size = emu_wire_atomic_size(h->op, h->opmod, &masks_len),
                                 .swap_add = be64toh(h->swap_add),
                                 .compare = be64toh(h->compare)};
    struct engine_sgl t = {0};
    uint8_t orig[8];
    int err;

    if (a.size == 0)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
    if (masks_len != 0) {
        uint64_t m[2];

        memcpy(m, payload, sizeof(m));
        a.swap_mask = be64toh(m[0]);
        a.compare_mask = be64toh(m[1]);
        if (a.size == 4 && ((a.swap_mask | a.compare_mask) >> 32) != 0) {
            emu_wire_reject(conn, "4-byte atomic mask wider than 32 bits", psn);
            return -1;
        }
    }
    if (!qp->attr.remote_atomic)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    if ((raddr & (a.size - 1)) != 0)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
    if (engine_sgl_hold(&t, qp, be32toh(h->rkey), raddr, a.size, IBV_ACCESS_REMOTE_ATOMIC) !=
        EMU_MR_OK)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    err = engine_atomic_exec(&a, t.mr[0], raddr, orig);
    engine_sgl_release(&t);
    if (err != 0) {
        EMU_LOG_INFO("QP 0x%x: atomic target 0x%lx is not mapped: remote access error", qp->qpn,
                     (unsigned long)raddr);
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    }
    /* Kept, as IB's responder resources keep it, for a resent request to get it again. */
    qp->last_atomic.valid = true;
    qp->last_atomic.psn = psn;
    qp->last_atomic.size = (uint8_t)a.size;
    memcpy(qp->last_atomic.orig, orig, a.size);
    return resp_answer(qp, conn, EMU_WIRE_ATOMIC_RESP, psn, &(struct iovec){orig, a.size}, a.size,
                       NULL, NULL);
}

/* READ: the data goes from the held registration into the socket (keys held until it left). */
static int resp_read(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                     uint32_t psn)
{
    uint32_t len = be32toh(h->dma_len);
    struct engine_sgl t = {0};
    struct engine_sgl *held;
    uint8_t *bounce;

    if (!qp->attr.remote_read)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    if (len > (1u << EMU_LOG_MAX_MSG))
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
    if (len == 0)
        return resp_answer(qp, conn, EMU_WIRE_READ_RESP, psn, NULL, 0, NULL, NULL);
    if (engine_sgl_hold(&t, qp, be32toh(h->rkey), be64toh(h->raddr), len, IBV_ACCESS_REMOTE_READ) !=
        EMU_MR_OK)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    if (t.gpu) {
        bounce = malloc(len);
        if (bounce == NULL || engine_sgl_gather(&t, bounce) != 0) {
            free(bounce);
            engine_sgl_release(&t);
            return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_OP_ERR);
        }
        engine_sgl_release(&t);
        return resp_answer(qp, conn, EMU_WIRE_READ_RESP, psn, &(struct iovec){bounce, len}, len,
                           free, bounce);
    }
    if (engine_sgl_mapped(&t) != 0 || (held = engine_sgl_dup(&t)) == NULL) {
        EMU_LOG_INFO("QP 0x%x: read source 0x%lx (%u bytes) is not mapped: remote access error",
                     qp->qpn, (unsigned long)be64toh(h->raddr), len);
        engine_sgl_release(&t);
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    }
    return resp_answer(qp, conn, EMU_WIRE_READ_RESP, psn, &held->iov[0], len, engine_sgl_free,
                       held);
}

/* The requester's buffers of a pull request (F_PULL), in the requester's process. */
struct resp_pull {
    struct iovec iov[EMU_WIRE_PULL_MAX_ENTRIES];
    int count;
};

/*
 * Decodes a pull request's list (its payload; the wire checked its length)
 * and checks that it adds up to the message length. -1: malformed, the
 * connection is dropped.
 */
static int resp_pull_list(struct emu_conn *conn, const struct emu_wire_hdr *h, const uint8_t *raw,
                          struct resp_pull *p)
{
    uint32_t n = be32toh(h->payload_len);
    uint64_t total = 0;

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
static int resp_pull_into(struct emu_conn *conn, struct engine_sgl *t, const struct resp_pull *p,
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
        err = engine_sgl_scatter(t, bounce, len);
    free(bounce);
    return err;
}

/*
 * Copies an F_GPU request's message from the requester's GPU memory into the
 * held target: a WRITE's without a wait (gpu_defer.c; t is left empty),
 * any other's complete on return, as its CQE follows.
 */
static int resp_gpu_ref_into(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                             struct engine_sgl *t, const uint8_t *raw, uint32_t len)
{
    struct emu_gpu_ref ref;
    int err;

    if (len == 0)
        return 0;
    if (emu_gpu_ref_decode(h, raw, &ref) != 0) {
        EMU_LOG_DBG("QP 0x%x: a GPU reference of kind %llu that this device cannot use: the "
                    "bytes are asked for",
                    qp->qpn, (unsigned long long)be64toh(h->compare));
        return ENOTSUP;
    }
    /*
     * A VMM allocation's descriptor is taken from the process at the other
     * end of the connection (its pid as this process sees it), never from
     * one a frame names.
     */
    if (ref.kind == EMU_GPU_REF_VMM) {
        ref.vmm.pid = emu_conn_peer_pid(conn);
        if (ref.vmm.pid <= 0) {
            EMU_LOG_INFO("QP 0x%x: the process at the other end of the connection is not known "
                         "(SO_PEERCRED): its CUDA VMM reference cannot be opened, the bytes are "
                         "asked for",
                         qp->qpn);
            return ENOTSUP;
        }
    }
    if (h->type == EMU_WIRE_WRITE)
        err = engine_gpu_write_defer(qp, resp_out(qp, conn), t, &ref, len);
    else
        err = engine_sgl_copy_gpu_ref(t, &ref, len, NULL);
    if (err == 0)
        __atomic_add_fetch(&qp->nic->engine->gpu_ref_bytes, len, __ATOMIC_RELAXED);
    return err;
}

/* What a data request completes with, once its payload is in place. */
static int resp_data_complete(struct emu_qp *qp, struct emu_conn *conn,
                              const struct emu_wire_hdr *h, int64_t rindex, uint32_t len,
                              uint32_t psn)
{
    bool now = (h->flags & EMU_WIRE_F_ACK_REQ) != 0;
    int rc = 0;

    if (h->type != EMU_WIRE_WRITE) {
        uint8_t op = h->type == EMU_WIRE_WRITE_IMM  ? PRM_CQE_OPCODE_RESP_WR_IMM
                     : h->type == EMU_WIRE_SEND_IMM ? PRM_CQE_OPCODE_RESP_SEND_IMM
                                                    : PRM_CQE_OPCODE_RESP_SEND;

        /*
         * An ACK asked for at once leaves before the receive's CQE, as a NIC
         * acknowledges before software can react: this side's program may
         * exit as soon as it sees the CQE (ibv_srq_pingpong's server did,
         * and its client's last send then failed with retry-exceeded).
         */
        if (now) {
            rc = resp_ack_defer(qp, conn, psn, len, true);
            engine_ack_flush(resp_out(qp, conn));
        }
        engine_cqe_resp(qp, op, (uint32_t)rindex, len, h->imm,
                        be32toh(h->src_qpn) & PRM_CQE_QPN_MASK, 0,
                        (h->flags & EMU_WIRE_F_SOLICITED) != 0);
        if (now)
            return rc;
    }
    return resp_ack_defer(qp, conn, psn, len, now);
}

/*
 * The target could not be written (unmapped, or the requester unreadable):
 * NAK, the link lives. A send's own receive buffer failing is the
 * responder's operational error; a keyed target's, a remote access error.
 */
static int resp_data_failed(struct emu_qp *qp, struct emu_conn *conn, uint8_t type, int64_t rindex,
                            uint32_t psn, int err)
{
    bool into_recv = type == EMU_WIRE_SEND || type == EMU_WIRE_SEND_IMM;

    EMU_LOG_INFO("QP 0x%x: placing the payload of PSN 0x%x failed (%s): remote access error",
                 qp->qpn, psn, strerror(err));
    if (rindex >= 0)
        engine_recv_fail(qp, (uint32_t)rindex, PRM_CQE_SYNDROME_LOCAL_PROT_ERR);
    return resp_nak(qp, conn, psn,
                    err == EFAULT && !into_recv ? PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR
                                                : PRM_CQE_SYNDROME_REMOTE_OP_ERR);
}

/*
 * WRITE, WRITE_IMM, SEND, SEND_IMM: payload placed, then ACK (or NAK).
 * Returns 0, 1 (RNR, or lost: the same PSN is expected again), RESP_PENDING (a large
 * payload is arriving into *sink), or -1.
 */
static int resp_data(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                     const uint8_t *payload, struct emu_wire_sink *sink, uint32_t psn)
{
    bool pull = (h->flags & EMU_WIRE_F_PULL) != 0;
    bool gpu_ref = (h->flags & EMU_WIRE_F_GPU) != 0;
    uint32_t len = pull || gpu_ref ? be32toh(h->dma_len) : be32toh(h->payload_len);
    bool is_write = h->type == EMU_WIRE_WRITE || h->type == EMU_WIRE_WRITE_IMM;
    bool uses_recv = h->type != EMU_WIRE_WRITE;
    uint8_t wqe[ENGINE_RECV_WQE_MAX];
    struct engine_sgl t = {0};
    struct resp_pull p;
    uint32_t first = 0;
    int64_t rindex = -1;
    uint8_t synd = 0;
    int err;

    if (pull && resp_pull_list(conn, h, payload, &p) != 0)
        return -1;
    if (is_write && !qp->attr.remote_write)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    if (is_write && len > 0 &&
        engine_sgl_hold(&t, qp, be32toh(h->rkey), be64toh(h->raddr), len,
                        IBV_ACCESS_REMOTE_WRITE) != EMU_MR_OK)
        return resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR);
    if (uses_recv) {
        if (engine_recv_stride(qp) > sizeof(wqe)) {
            synd = PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
        } else {
            rindex = engine_recv_take(qp, wqe, &first);
            if (rindex < 0 && !qp->tp->acked) {
                /* Without acknowledgements there is no RNR: the message is lost. */
                engine_sgl_release(&t);
                engine_drop(qp->nic, EMU_DROP_NO_RECV);
                return 0;
            }
            if (rindex < 0) {
                /* Receiver not ready: the requester retries from this PSN. */
                engine_sgl_release(&t);
                qp->resp_discard = true;
                resp_nak(qp, conn, psn, EMU_WIRE_NAK_RNR);
                return 1;
            }
            if (!is_write)
                synd = engine_recv_scatter(qp, wqe, first, len, &t);
        }
    }
    if (synd != 0) {
        engine_sgl_release(&t);
        if (rindex >= 0)
            engine_recv_fail(qp, (uint32_t)rindex, synd);
        return resp_nak(qp, conn, psn,
                        synd == PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR
                                ? PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR
                                : PRM_CQE_SYNDROME_REMOTE_OP_ERR);
    }
    if (sink != NULL && !pull && !gpu_ref) {
        /* Large: the wire reads the payload into the target as it arrives. */
        struct engine_rx rx = {.qpn = qp->qpn,
                               .srqn = qp->rx_srq != NULL ? qp->rx_srq->srqn : 0,
                               .psn = psn,
                               .len = len,
                               .rindex = rindex,
                               .sgl = t};

        return engine_rx_start(conn, &rx, sink) == 0 ? RESP_PENDING : -1;
    }
    if (pull)
        err = len > 0 ? resp_pull_into(conn, &t, &p, len) : 0;
    else if (gpu_ref)
        err = resp_gpu_ref_into(qp, conn, h, &t, payload, len);
    else
        err = engine_sgl_scatter(&t, payload, len);
    /* Written as asked: the requester may write there directly next time (direct.c). */
    if (err == 0 && h->type == EMU_WIRE_WRITE && len > 0 && qp->tp->acked && !qp->tp->xrc)
        engine_direct_grant(qp, conn, &t);
    engine_sgl_release(&t);
    if (err == ESRCH) {
        /*
         * The requester's process exited before we read the message from it
         * (single copy): lost, as a message a NIC had not sent yet. Nobody
         * waits for its answer, and the receive stays for the next message.
         */
        EMU_LOG_DBG("QP 0x%x: the sender of PSN 0x%x exited before its payload was read: "
                    "dropped",
                    qp->qpn, psn);
        if (rindex >= 0)
            engine_recv_untake(qp, (uint32_t)rindex);
        engine_drop(qp->nic, EMU_DROP_GONE);
        return 1; /* its PSN is still the one expected */
    }
    if (err == ENOTSUP) {
        /* A GPU reference we cannot open: the requester resends the bytes (proto.h). */
        if (rindex >= 0)
            engine_recv_untake(qp, (uint32_t)rindex);
        qp->resp_discard = true;
        resp_nak(qp, conn, psn, EMU_WIRE_NAK_RESEND);
        return 1;
    }
    if (err != 0)
        return resp_data_failed(qp, conn, h->type, rindex, psn, err);
    return resp_data_complete(qp, conn, h, rindex, len, psn);
}

int engine_request_done(struct emu_conn *conn, const struct emu_wire_hdr *h, int err)
{
    struct engine_conn *ec = emu_conn_user(conn);
    struct emu_nic *nic = emu_wire_user(emu_conn_wire(conn));
    struct engine_rx rx;
    struct emu_srq *srq;
    struct emu_qp *qp;
    int rc = 0;

    if (ec == NULL || !ec->rx.active)
        return 0; /* the payload was discarded: the request was answered at its header */
    engine_gpu_settle(nic->engine); /* its CQE follows the deferred writes' copies */
    rx = ec->rx;
    err = engine_rx_finish(&ec->rx, err);
    pthread_mutex_lock(&nic->lock);
    qp = emu_qp_lookup(nic, rx.qpn);
    srq = rx.srqn != 0 ? emu_srq_lookup(nic, rx.srqn) : NULL;
    pthread_mutex_unlock(&nic->lock);
    if (qp == NULL || (qp->p.xrcd != NULL && srq == NULL))
        return 0; /* destroyed meanwhile (an XRC target's SRQ: its receive WQE with it) */
    pthread_mutex_lock(&qp->lock);
    qp->rx_srq = srq;
    if (qp->tp->dc == PRM_QP_DC_DCT) /* answers go to the DCI that sent it */
        qp->attr.remote_qpn = be32toh(h->src_qpn);
    /* Reset meanwhile (RST, INIT): nothing is owed. In ERR the receive WQE is flushed. */
    if (qp->state == PRM_QP_STATE_RST || qp->state == PRM_QP_STATE_INIT)
        rc = 0;
    else if (err != 0)
        rc = resp_data_failed(qp, conn, h->type, rx.rindex, rx.psn, err);
    else if (qp->state == PRM_QP_STATE_ERR && rx.rindex >= 0)
        engine_cqe_resp_err(qp, (uint32_t)rx.rindex, PRM_CQE_SYNDROME_WR_FLUSH_ERR);
    else if (qp->state != PRM_QP_STATE_ERR)
        rc = resp_data_complete(qp, conn, h, rx.rindex, rx.len, rx.psn);
    pthread_mutex_unlock(&qp->lock);
    return rc < 0 ? -1 : 0;
}

bool engine_resp_state_ok(uint8_t state)
{
    return state == PRM_QP_STATE_RTR || state == PRM_QP_STATE_RTS || state == PRM_QP_STATE_SQD ||
           state == PRM_QP_STATE_SQER;
}

/*
 * A request resent by a requester that timed out before our answer reached
 * it (qp->lock held). Writes and sends are not executed again but
 * acknowledged again; reads are answered again; an atomic is not repeated:
 * the last one's result is sent again, an older one is dropped (the
 * requester then fails it with retry-exceeded). A payload still to come is
 * discarded.
 */
static int resp_duplicate(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                          uint32_t psn)
{
    EMU_LOG_DBG("QP 0x%x: duplicate request type %u, PSN 0x%x (expecting 0x%x)", qp->qpn, h->type,
                psn, qp->expected_psn);
    if (h->type == EMU_WIRE_READ_REQ)
        return resp_read(qp, conn, h, psn);
    if (h->type != EMU_WIRE_ATOMIC)
        return resp_ack_defer(qp, conn, qp->expected_psn - 1, 0, true);
    if (qp->last_atomic.valid && qp->last_atomic.psn == psn)
        return resp_answer(qp, conn, EMU_WIRE_ATOMIC_RESP, psn,
                           &(struct iovec){qp->last_atomic.orig, qp->last_atomic.size},
                           qp->last_atomic.size, NULL, NULL);
    return 0;
}

/*
 * An XRC target QP's request: the SRQ it names when that is an XRC SRQ of
 * the QP's domain; else NULL (logged), which the responder refuses.
 */
static struct emu_srq *resp_xrc_srq(struct emu_qp *qp, const struct emu_wire_hdr *h)
{
    uint32_t srqn = emu_nic_obj_num(qp->nic, be16toh(h->xrc_srq));
    struct emu_srq *srq;

    pthread_mutex_lock(&qp->nic->lock);
    srq = emu_srq_lookup(qp->nic, srqn);
    if (srq != NULL && srq->p.xrcd != qp->p.xrcd)
        srq = NULL;
    pthread_mutex_unlock(&qp->nic->lock);
    if (srq == NULL)
        EMU_LOG_INFO("XRC target QP 0x%x: request PSN 0x%x names SRQ 0x%x, which is no XRC SRQ "
                     "of the QP's domain: invalid request",
                     qp->qpn, be32toh(h->psn), srqn);
    return srq;
}

int engine_request(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                   const uint8_t *payload, struct emu_wire_sink *sink)
{
    /* Of another service type (and an XRC initiator QP takes no requests at all). */
    if (((h->flags & EMU_WIRE_F_UNACKED) != 0) == qp->tp->acked ||
        ((h->flags & EMU_WIRE_F_DATAGRAM) != 0) == qp->tp->connected ||
        ((h->flags & EMU_WIRE_F_XRC) != 0) != qp->tp->xrc || (qp->tp->xrc && qp->p.xrcd == NULL)) {
        /* A request of another service type (a UC QP's peer is an RC QP, say): dropped. */
        EMU_LOG_DBG("QP 0x%x (%s): request type %u with flags 0x%x of another service type "
                    "dropped",
                    qp->qpn, qp->tp->name, h->type, h->flags);
        engine_drop(qp->nic, EMU_DROP_MISMATCH);
        return 0;
    }
    if (!qp->tp->connected)
        return engine_dg_request(qp, h, payload, sink);
    if (qp->tp->dc == PRM_QP_DC_DCT)
        return engine_dct_request(qp, conn, h, payload, sink);
    return engine_resp_connected(qp, conn, h, payload, sink);
}

int engine_resp_connected(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h,
                          const uint8_t *payload, struct emu_wire_sink *sink)
{
    uint32_t psn = be32toh(h->psn);
    struct emu_srq *xrc_srq = NULL;
    int rc;

    if (qp->p.xrcd != NULL)
        xrc_srq = resp_xrc_srq(qp, h);
    pthread_mutex_lock(&qp->lock);
    qp->rx_srq = xrc_srq;
    if (qp->p.xrcd != NULL && xrc_srq == NULL && engine_resp_state_ok(qp->state) &&
        be32toh(h->src_qpn) == qp->attr.remote_qpn) {
        /* An SRQ not of the target's domain: the request is refused, as ConnectX does. */
        if (psn == qp->expected_psn)
            qp->expected_psn++;
        rc = resp_nak(qp, conn, psn, PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
        pthread_mutex_unlock(&qp->lock);
        return rc < 0 ? -1 : 0;
    }
    if (!qp->tp->acked && engine_resp_state_ok(qp->state) && psn != qp->expected_psn &&
        be32toh(h->src_qpn) == qp->attr.remote_qpn) {
        /*
         * UC: a PSN gap means messages were lost. Each message is one frame,
         * so this one starts a new message: the responder takes it and
         * expects the PSN after it (the lost ones are gone).
         */
        EMU_LOG_DBG("QP 0x%x: PSN 0x%x while expecting 0x%x: messages lost", qp->qpn, psn,
                    qp->expected_psn);
        engine_drop(qp->nic, EMU_DROP_PSN_GAP);
        qp->expected_psn = psn;
    }
    if (engine_resp_state_ok(qp->state) && (int32_t)(psn - qp->expected_psn) < 0 &&
        be32toh(h->src_qpn) == qp->attr.remote_qpn) {
        rc = resp_duplicate(qp, conn, h, psn);
        pthread_mutex_unlock(&qp->lock);
        return rc < 0 ? -1 : 0;
    }
    if (!engine_resp_state_ok(qp->state) || psn != qp->expected_psn) {
        /* Not for now (QP not ready, or after a NAK before the retry): dropped, as on a link. */
        pthread_mutex_unlock(&qp->lock);
        if (!qp->tp->acked)
            engine_drop(qp->nic, EMU_DROP_NOT_READY);
        return 0;
    }
    if (be32toh(h->src_qpn) != qp->attr.remote_qpn && !qp->tp->acked) {
        pthread_mutex_unlock(&qp->lock);
        engine_drop(qp->nic, EMU_DROP_MISMATCH);
        return 0;
    }
    if (be32toh(h->src_qpn) != qp->attr.remote_qpn) {
        pthread_mutex_unlock(&qp->lock);
        emu_wire_reject(conn, "request from a QP that is not the destination's remote QP",
                        be32toh(h->src_qpn));
        return -1;
    }
    qp->resp_discard = false;
    /*
     * The first request a QP in RTR takes: communication established, as
     * ConnectX reports it (not for a DCT, which stays in RTR).
     */
    if (qp->state == PRM_QP_STATE_RTR && !qp->comm_est && qp->tp->dc != PRM_QP_DC_DCT) {
        qp->comm_est = true;
        emu_async_raise(qp->nic, qp->ibv.context, IBV_EVENT_COMM_EST, &qp->ibv);
    }
    /* Anything but another GPU write reads or completes after the deferred ones: they end first. */
    if (h->type != EMU_WIRE_WRITE || !(h->flags & EMU_WIRE_F_GPU))
        engine_gpu_settle(qp->nic->engine);
    switch (h->type) {
    case EMU_WIRE_READ_REQ:
        rc = resp_read(qp, conn, h, psn);
        break;
    case EMU_WIRE_ATOMIC:
        rc = resp_atomic(qp, conn, h, payload, psn);
        break;
    default:
        rc = resp_data(qp, conn, h, payload, sink, psn);
        break;
    }
    if (rc == 1) /* RNR: the same PSN is expected again */
        rc = 0;
    else if (rc == 0 || rc == RESP_PENDING)
        qp->expected_psn++;
    pthread_mutex_unlock(&qp->lock);
    return rc < 0 ? -1 : 0;
}
