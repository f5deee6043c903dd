/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive dispatch: the wire's callbacks. A frame names its destination QP;
 * requests go to the responder, responses to the completer. Also the
 * engine's state of each connection, and the buffers a large payload lands
 * in.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>

#include "common/emu_log.h"
#include "engine/engine_int.h"
#include "nic/mem.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/prm_qp_transport.h"
#include "wire/wire.h"

struct engine_conn *engine_conn_of(struct emu_conn *conn)
{
    struct engine_conn *ec = emu_conn_user(conn);

    if (ec == NULL) {
        ec = calloc(1, sizeof(*ec));
        if (ec == NULL) {
            EMU_LOG_ERR("out of memory for a wire connection's state; it is dropped");
            return NULL;
        }
        ec->conn = conn;
        emu_conn_set_user(conn, ec);
    }
    return ec;
}

/* The connection is gone: its state goes, with what it still held. */
static void engine_conn_free(struct emu_conn *conn)
{
    struct engine_conn *ec = emu_conn_user(conn);

    if (ec == NULL)
        return;
    if (ec->rx.active)
        engine_rx_finish(&ec->rx, ECONNRESET);
    if (ec->owed_listed)
        engine_acks_forget(((struct emu_nic *)emu_wire_user(emu_conn_wire(conn)))->engine, ec);
    engine_dc_conn_free(ec);
    emu_conn_set_user(conn, NULL);
    free(ec);
}

/* Points the sink at rx's memory (its bounce buffer for GPU memory); errno-style. */
static int rx_sink(struct engine_rx *rx, struct emu_wire_sink *sink)
{
    if (rx->sgl.gpu) {
        /* The kernel cannot write GPU memory: the payload lands in host memory first. */
        rx->bounce = malloc(rx->len);
        if (rx->bounce == NULL)
            return ENOMEM;
        sink->iov[0] = (struct iovec){rx->bounce, rx->len};
        sink->count = 1;
        sink->copy = NULL;
        return 0;
    }
    for (int i = 0; i < rx->sgl.count; i++)
        sink->iov[i] = rx->sgl.iov[i];
    sink->count = rx->sgl.count;
    /* Application memory may have been unmapped since it was checked: never fault. */
    sink->copy = emu_mem_host_copy_to;
    return 0;
}

int engine_rx_start(struct emu_conn *conn, const struct engine_rx *rx, struct emu_wire_sink *sink)
{
    struct engine_conn *ec = engine_conn_of(conn);
    struct engine_sgl sgl = rx->sgl;

    if (ec == NULL) {
        engine_sgl_release(&sgl);
        return -1;
    }
    ec->rx = *rx;
    ec->rx.active = true;
    if (rx_sink(&ec->rx, sink) != 0) {
        engine_rx_finish(&ec->rx, ENOMEM);
        return -1;
    }
    return 0;
}

int engine_rx_finish(struct engine_rx *rx, int err)
{
    if (err == 0 && rx->bounce != NULL)
        err = engine_sgl_scatter(&rx->sgl, rx->bounce, rx->len);
    free(rx->bounce);
    rx->bounce = NULL;
    engine_sgl_release(&rx->sgl);
    rx->active = false;
    return err;
}

static bool dispatch_is_response(uint8_t type)
{
    return type == EMU_WIRE_ACK || type == EMU_WIRE_NAK || type == EMU_WIRE_READ_RESP ||
           type == EMU_WIRE_ATOMIC_RESP;
}

static int dispatch_frame(struct emu_conn *conn, const struct emu_wire_hdr *h,
                          const uint8_t *payload, struct emu_wire_sink *sink)
{
    struct emu_nic *nic = emu_wire_user(emu_conn_wire(conn));
    uint32_t dst = be32toh(h->dst_qpn);
    struct emu_qp *qp;

    pthread_mutex_lock(&nic->lock);
    qp = emu_qp_lookup(nic, dst);
    pthread_mutex_unlock(&nic->lock);
    if (h->type == EMU_WIRE_DC_CONNECT)
        return engine_dc_connect(qp, conn, h);
    /* A DCI's request for a QPN that is no DCT (any more): NAKed. */
    if (!dispatch_is_response(h->type) && (qp == NULL || qp->tp->dc != PRM_QP_DC_DCT) &&
        engine_dc_unknown(qp, conn, h))
        return 0;
    if (qp == NULL) {
        if (dispatch_is_response(h->type)) /* the requester was destroyed meanwhile */
            return 0;
        /*
         * No such QP (any more: a peer destroys its QPs while ours still
         * resend): dropped and counted, as a NIC drops it. The connection
         * is every QP pair's between the two devices and stays; an RC
         * requester's retries then run out on that QP alone.
         */
        engine_drop(nic, EMU_DROP_NO_QP);
        return 0;
    }
    if (dispatch_is_response(h->type))
        return engine_response(qp, conn, h, payload, sink);
    return engine_request(qp, conn, h, payload, sink);
}

static int dispatch_payload_done(struct emu_conn *conn, const struct emu_wire_hdr *h, int err)
{
    if (dispatch_is_response(h->type))
        return engine_response_done(conn, h, err);
    return engine_request_done(conn, h, err);
}

static void dispatch_writable(struct emu_conn *conn)
{
    engine_tx_resume(emu_wire_user(emu_conn_wire(conn)), conn);
}

static void dispatch_conn_lost(struct emu_conn *conn)
{
    engine_conn_lost(emu_wire_user(emu_conn_wire(conn)), conn);
    engine_conn_free(conn);
}

const struct emu_wire_ops engine_wire_ops = {
        .frame = dispatch_frame,
        .payload_done = dispatch_payload_done,
        .batch_end = engine_batch_end,
        .writable = dispatch_writable,
        .conn_lost = dispatch_conn_lost,
};
