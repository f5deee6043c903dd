/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester's side of responses (progress thread): ACKs complete
 * requests in order, read responses and atomic results land in the WQE's
 * local buffers, NAKs fail the QP or start an RNR wait. Also the retry
 * timers and the loss of a connection.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"
#include "wire/wire.h"

uint64_t engine_retry_period_ns(const struct emu_qp *qp)
{
    /* The retry timeout covers the first attempt and every retry. */
    return (uint64_t)emu_config_get()->retry_timeout_ms * 1000000ull / (qp->attr.retry_count + 1u);
}

uint64_t engine_rnr_delay_ns(uint8_t timer)
{
    /* IB RNR NAK timer field, in microseconds (0 means 655.36 ms). */
    static const uint32_t us[32] = {655360, 10,    20,    30,     40,     60,     80,     120,
                                    160,    240,   320,   480,    640,    960,    1280,   1920,
                                    2560,   3840,  5120,  7680,   10240,  15360,  20480,  30720,
                                    40960,  61440, 81920, 122880, 163840, 245760, 327680, 491520};

    return (uint64_t)us[timer & 31] * 1000ull;
}

/* Scatters len bytes of response payload into the WQE's local data segments. */
static int response_scatter(struct emu_qp *qp, struct emu_conn *conn, struct emu_pending *e,
                            uint32_t len, uint8_t *synd)
{
    uint8_t buf[PRM_WQE_MAX_DS * PRM_WQE_DS_SIZE];
    uint32_t mask = (1u << qp->p.log_sq_size) - 1, nbb = e->next_index - e->wqe_index;
    uint32_t off = sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_raddr_seg);
    uint32_t end, left = len;
    uint32_t ds;
    int err = 0;

    for (uint32_t i = 0; i < nbb; i++)
        emu_mem_read(qp->p.wq_gpu,
                     emu_qp_sq_base(qp) +
                             ((uintptr_t)((e->wqe_index + i) & mask) << PRM_WQE_BB_SHIFT),
                     buf + i * PRM_WQE_BB_SIZE, PRM_WQE_BB_SIZE);
    ds = be32toh(((struct prm_wqe_ctrl_seg *)(void *)buf)->qpn_ds) & 0x3f;
    end = ds * PRM_WQE_DS_SIZE;
    if (e->opcode != PRM_WQE_OPCODE_RDMA_READ)
        off += engine_atomic_seg_bytes(
                e->opcode,
                (uint8_t)(be32toh(((struct prm_wqe_ctrl_seg *)(void *)buf)->opmod_idx_opcode) >>
                          24));
    *synd = 0;
    for (; off + 16 <= end && left > 0 && err == 0; off += 16) {
        const struct prm_wqe_data_seg *d = (const void *)(buf + off);
        uint32_t take = be32toh(d->byte_count);
        uint64_t addr = be64toh(d->addr);
        struct emu_mr *mr;

        take = take < left ? take : left;
        if (take == 0)
            continue;
        /* Checked at execution; checked again, as it may have been deregistered since. */
        if (emu_mr_get(qp->nic, be32toh(d->lkey), qp->p.pd->pdn, addr, take, IBV_ACCESS_LOCAL_WRITE,
                       &mr) != EMU_MR_OK) {
            *synd = PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
            break;
        }
        if (!mr->gpu) {
            err = emu_conn_recv(conn, &(struct iovec){emu_mr_host_ptr(mr, addr), take}, 1);
        } else {
            void *bounce = malloc(take);

            err = bounce == NULL ? ENOMEM : emu_conn_recv(conn, &(struct iovec){bounce, take}, 1);
            if (err == 0)
                err = emu_mr_write(mr, addr, bounce, take);
            free(bounce);
        }
        emu_mr_put(qp->nic);
        left -= take;
    }
    if (err == 0 && left > 0)
        err = emu_conn_discard(conn, left);
    return err;
}

static void response_nak(struct emu_qp *qp, struct emu_pending *e, const struct emu_wire_hdr *h)
{
    EMU_LOG_DBG("QP 0x%x: NAK syndrome 0x%x for PSN 0x%x (RNR retries left %u)", qp->qpn,
                h->syndrome, e->psn, qp->rnr_retries_left);
    if (h->syndrome != EMU_WIRE_NAK_RNR) {
        e->done = true;
        e->syndrome = h->syndrome;
        if (e->needs_response)
            qp->reads_in_flight--;
        return;
    }
    if (qp->attr.rnr_retry != 7 && qp->rnr_retries_left == 0) {
        e->done = true;
        e->syndrome = PRM_CQE_SYNDROME_RNR_RETRY_EXC_ERR;
        if (e->needs_response)
            qp->reads_in_flight--;
        return;
    }
    if (qp->attr.rnr_retry != 7)
        qp->rnr_retries_left--;
    /* Resend from this request once the responder's timer expired (the requester rewinds). */
    qp->rnr_resume_ns = emu_now_ns() + engine_rnr_delay_ns((uint8_t)be32toh(h->imm));
    for (uint32_t i = qp->pending_head; i != qp->pending_tail; i++)
        qp->pending[i & (qp->pending_size - 1)].deadline_ns =
                qp->rnr_resume_ns + (uint64_t)emu_config_get()->retry_timeout_ms * 1000000ull;
    emu_wire_kick(qp->nic);
}

int engine_response(struct emu_qp *qp, struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t psn = be32toh(h->psn), len = be32toh(h->payload_len);
    struct emu_pending *e;
    int err = 0;

    pthread_mutex_lock(&qp->lock);
    e = engine_pending_find(qp, psn);
    if (e == NULL || be32toh(h->src_qpn) != qp->attr.remote_qpn) {
        /* Stale (flushed, or before a rewind): nothing waits for it. */
        EMU_LOG_DBG("QP 0x%x: response type %u for PSN 0x%x matches no request", qp->qpn, h->type,
                    psn);
        pthread_mutex_unlock(&qp->lock);
        return emu_conn_discard(conn, len) == 0 ? 0 : -1;
    }
    switch (h->type) {
    case EMU_WIRE_ACK:
        if (e->needs_response) {
            emu_wire_reject(conn, "ACK for a read or atomic", psn);
            err = -1;
            break;
        }
        /* Cumulative: every earlier request is acknowledged too. */
        for (uint32_t i = qp->pending_head; i != qp->pending_tail; i++) {
            struct emu_pending *p = &qp->pending[i & (qp->pending_size - 1)];

            if (!p->needs_response && !p->done && (int32_t)(p->psn - psn) <= 0)
                p->done = true;
        }
        qp->rnr_retries_left = qp->attr.rnr_retry;
        qp->retries_left = qp->attr.retry_count;
        break;
    case EMU_WIRE_READ_RESP:
    case EMU_WIRE_ATOMIC_RESP: {
        uint8_t synd = 0;

        /* A read returns at most what was asked; an atomic exactly its operand size. */
        if (!e->needs_response || len > e->byte_count ||
            (h->type == EMU_WIRE_ATOMIC_RESP && len != e->byte_count) ||
            (h->type == EMU_WIRE_READ_RESP) != (e->opcode == PRM_WQE_OPCODE_RDMA_READ)) {
            emu_wire_reject(conn, "response that does not match its request", psn);
            err = -1;
            break;
        }
        err = response_scatter(qp, conn, e, len, &synd) == 0 ? 0 : -1;
        e->done = true;
        e->syndrome = synd;
        qp->reads_in_flight--;
        qp->rnr_retries_left = qp->attr.rnr_retry;
        qp->retries_left = qp->attr.retry_count;
        break;
    }
    case EMU_WIRE_NAK:
        response_nak(qp, e, h);
        break;
    default:
        break;
    }
    engine_complete(qp);
    pthread_mutex_unlock(&qp->lock);
    /* A fence, a read limit or an error may have held WQEs back. */
    emu_engine_sq_run(qp);
    return err;
}

/*
 * Calls check(qp, arg) for every QP of the device, with qp->lock held; when
 * it returns true the QP's send queue is run again afterwards (progress
 * thread: QPs cannot be freed meanwhile, emu_qp_destroy quiesces it).
 */
static void engine_each_qp(struct emu_nic *nic, bool (*check)(struct emu_qp *qp, void *arg),
                           void *arg)
{
    for (uint32_t i = 0;; i++) {
        struct emu_qp *qp;
        bool run;

        pthread_mutex_lock(&nic->lock);
        if (i >= nic->qps.capacity) {
            pthread_mutex_unlock(&nic->lock);
            return;
        }
        qp = emu_table_get(&nic->qps, i);
        pthread_mutex_unlock(&nic->lock);
        if (qp == NULL)
            continue;
        pthread_mutex_lock(&qp->lock);
        run = check(qp, arg);
        pthread_mutex_unlock(&qp->lock);
        if (run)
            emu_engine_sq_run(qp);
    }
}

/* Resends or fails the oldest unanswered request of qp once its time is up. */
static bool engine_timer_check(struct emu_qp *qp, void *arg)
{
    uint64_t now = *(const uint64_t *)arg;
    struct emu_pending *e;

    if (qp->rnr_resume_ns != 0)
        return now >= qp->rnr_resume_ns;
    if (qp->pending_head == qp->pending_tail)
        return false;
    e = &qp->pending[qp->pending_head & (qp->pending_size - 1)];
    if (e->done || now < e->deadline_ns)
        return false;
    if (qp->retries_left > 0) {
        /* A request the responder dropped (not ready yet): resend from it, as IB does. */
        qp->retries_left--;
        EMU_LOG_DBG("QP 0x%x: no response to PSN 0x%x yet: resending (%u retries left)", qp->qpn,
                    e->psn, qp->retries_left);
        qp->rnr_resume_ns = now;
        for (uint32_t j = qp->pending_head; j != qp->pending_tail; j++)
            qp->pending[j & (qp->pending_size - 1)].deadline_ns = now + engine_retry_period_ns(qp);
        return true;
    }
    EMU_LOG_ERR("QP 0x%x: no response to PSN 0x%x within %u ms: transport retry counter exceeded",
                qp->qpn, e->psn, emu_config_get()->retry_timeout_ms);
    emu_engine_qp_fail(qp, PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
    return true;
}

void emu_engine_timers(struct emu_nic *nic, uint64_t now)
{
    engine_each_qp(nic, engine_timer_check, &now);
}

static bool engine_wait_check(struct emu_qp *qp, void *arg)
{
    (void)arg;
    return qp->wait_active;
}

void emu_engine_waits(struct emu_nic *nic)
{
    engine_each_qp(nic, engine_wait_check, NULL);
}

/* Fails qp's outstanding work when it was waiting on the lost connection. */
static bool engine_conn_lost_check(struct emu_qp *qp, void *arg)
{
    struct emu_conn *conn = arg;

    if (qp->peer != conn || qp->pending_head == qp->pending_tail || qp->state == PRM_QP_STATE_ERR)
        return false;
    EMU_LOG_ERR("QP 0x%x: connection to endpoint %u lost with work outstanding: transport retry "
                "counter exceeded",
                qp->qpn, conn->peer_ep);
    emu_engine_qp_fail(qp, PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
    return true;
}

void emu_engine_conn_lost(struct emu_nic *nic, struct emu_conn *conn)
{
    engine_each_qp(nic, engine_conn_lost_check, conn);
}
