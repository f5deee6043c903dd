/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive: bytes read from a connection's socket without blocking, frames
 * cut and checked, and handed to the owner. A small frame is delivered from
 * the receive buffer once it is whole; a large one's payload is read into
 * the sink the owner gives for it (straight from the socket, so it is copied
 * once), across as many readiness events as it takes to arrive.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "common/emu_log.h"
#include "wire/wire_int.h"

/* A bulk read: enough to batch many small frames; large payloads bypass the buffer. */
#define RX_CHUNK 8192u
/* Reads per event, for fairness between connections. */
#define RX_BATCH 64

/*
 * An ATOMIC request's operands (proto.h). An op/opmod pair that names no
 * atomic is left to the responder, which refuses it; its payload is bounded.
 */
static bool rx_check_atomic(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t len = be32toh(h->payload_len), masks_len;
    uint32_t size = emu_wire_atomic_size(h->op, h->opmod, &masks_len);

    if (size == 0) {
        if (len != 0 && len != EMU_WIRE_ATOMIC_MASKS_LEN) {
            emu_wire_reject(conn, "atomic payload of a bad length", len);
            return false;
        }
        return true;
    }
    if (len != masks_len) {
        emu_wire_reject(conn, "atomic payload does not match its opcode", len);
        return false;
    }
    if (be32toh(h->dma_len) != size) {
        emu_wire_reject(conn, "atomic length does not match its opcode", be32toh(h->dma_len));
        return false;
    }
    if (size == 4 && ((be64toh(h->swap_add) | be64toh(h->compare)) >> 32) != 0) {
        emu_wire_reject(conn, "4-byte atomic operand wider than 32 bits", h->op);
        return false;
    }
    return true;
}

/* A request an XRC initiator QP sends (F_XRC). */
static bool rx_is_request(uint8_t type)
{
    return (type >= EMU_WIRE_WRITE && type <= EMU_WIRE_READ_REQ) || type == EMU_WIRE_ATOMIC;
}

/* F_UNACKED only on data requests, never asking for an ACK; F_DATAGRAM as proto.h says. */
static bool rx_check_unacked(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    bool data = h->type >= EMU_WIRE_WRITE && h->type <= EMU_WIRE_SEND_IMM;
    bool send = h->type == EMU_WIRE_SEND || h->type == EMU_WIRE_SEND_IMM;

    if (h->flags & EMU_WIRE_F_UNACKED) {
        if (!data || (h->flags & EMU_WIRE_F_ACK_REQ)) {
            emu_wire_reject(conn, "unacknowledged flag on a frame that cannot have it", h->type);
            return false;
        }
    }
    if (!(h->flags & EMU_WIRE_F_DATAGRAM))
        return true;
    if (!send || !(h->flags & EMU_WIRE_F_UNACKED) || (h->flags & EMU_WIRE_F_PULL) ||
        h->dma_len != 0 || (be64toh(h->raddr) & EMU_WIRE_DG_RESERVED) != 0) {
        emu_wire_reject(conn, "malformed datagram", h->type);
        return false;
    }
    return true;
}

/* Checks the fields every frame must get right; the engine checks QPNs and keys. */
static bool rx_check_hdr(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    uint32_t len = be32toh(h->payload_len);

    if (be32toh(h->magic) != EMU_WIRE_MAGIC) {
        emu_wire_reject(conn, "bad magic", be32toh(h->magic));
        return false;
    }
    if (h->version != EMU_WIRE_VERSION) {
        emu_wire_reject(conn, "unsupported version", h->version);
        return false;
    }
    if (h->type < EMU_WIRE_HELLO || h->type >= EMU_WIRE_TYPE_END) {
        emu_wire_reject(conn, "unknown frame type", h->type);
        return false;
    }
    if (len > EMU_WIRE_MAX_PAYLOAD) {
        emu_wire_reject(conn, "payload too long", len);
        return false;
    }
    if ((h->flags & EMU_WIRE_F_XRC) ? !rx_is_request(h->type) || (h->flags & EMU_WIRE_F_UNACKED)
                                    : h->xrc_srq != 0) {
        emu_wire_reject(conn, "XRC SRQ on a frame that cannot have one", h->type);
        return false;
    }
    if (h->type != EMU_WIRE_ATOMIC && (h->op != 0 || h->opmod != 0)) {
        emu_wire_reject(conn, "atomic opcode on a frame that is no atomic", h->type);
        return false;
    }
    switch (h->type) {
    case EMU_WIRE_ATOMIC:
        if (!rx_check_atomic(conn, h))
            return false;
        break;
    case EMU_WIRE_HELLO:
    case EMU_WIRE_READ_REQ:
    case EMU_WIRE_ACK:
    case EMU_WIRE_NAK:
    case EMU_WIRE_PULL_OK:
    case EMU_WIRE_DC_CONNECT:
        if (len != 0) {
            emu_wire_reject(conn, "payload on a frame type that has none", len);
            return false;
        }
        break;
    case EMU_WIRE_ATOMIC_RESP:
        if (len != 4 && len != 8) {
            emu_wire_reject(conn, "atomic response is not 4 or 8 bytes", len);
            return false;
        }
        break;
    default:
        break;
    }
    /*
     * The side that dialed knows its peer from the start; the acceptor's
     * PULL_OK may come back before the dialing thread marks it identified.
     */
    if (h->type != EMU_WIRE_HELLO && !conn->dialer && !conn->identified) {
        emu_wire_reject(conn, "frame before HELLO", h->type);
        return false;
    }
    if (!rx_check_unacked(conn, h))
        return false;
    if (h->flags & EMU_WIRE_F_PULL) {
        bool data = h->type == EMU_WIRE_WRITE || h->type == EMU_WIRE_WRITE_IMM ||
                    h->type == EMU_WIRE_SEND || h->type == EMU_WIRE_SEND_IMM;

        /* Only a peer whose memory we proved readable may ask us to read it. */
        if (!data || conn->pull_pid == 0) {
            emu_wire_reject(conn, "pull frame not allowed here", h->type);
            return false;
        }
        if (len == 0 || len % EMU_WIRE_PULL_ENTRY != 0 ||
            len > EMU_WIRE_PULL_MAX_ENTRIES * EMU_WIRE_PULL_ENTRY) {
            emu_wire_reject(conn, "bad pull list length", len);
            return false;
        }
        if (be32toh(h->dma_len) > EMU_WIRE_MAX_PAYLOAD) {
            emu_wire_reject(conn, "pull message too long", be32toh(h->dma_len));
            return false;
        }
    }
    if (h->flags & EMU_WIRE_F_GPU) {
        bool data = h->type >= EMU_WIRE_WRITE && h->type <= EMU_WIRE_SEND_IMM;

        /* A process of another host cannot name our GPU's memory. */
        if (!data || !conn->local ||
            (h->flags & (EMU_WIRE_F_PULL | EMU_WIRE_F_UNACKED | EMU_WIRE_F_DATAGRAM)) ||
            len != EMU_WIRE_GPU_REF_LEN || be32toh(h->dma_len) > EMU_WIRE_MAX_PAYLOAD) {
            emu_wire_reject(conn, "malformed GPU reference frame", h->type);
            return false;
        }
    }
    return true;
}

/* Copies n bytes of payload from the receive buffer into the sink (or nowhere). */
static void rx_sink_put(struct wire_rx_payload *p, const uint8_t *src, size_t n)
{
    while (n > 0 && p->at < p->sink.count && p->err == 0) {
        struct iovec *v = &p->sink.iov[p->at];
        size_t take = n < v->iov_len ? n : v->iov_len;

        if (p->sink.copy != NULL)
            p->err = p->sink.copy(v->iov_base, src, take);
        else
            memcpy(v->iov_base, src, take);
        v->iov_base = (uint8_t *)v->iov_base + take;
        v->iov_len -= take;
        if (v->iov_len == 0)
            p->at++;
        src += take;
        n -= take;
    }
}

/* Advances the sink past n bytes the socket wrote into it. */
static void rx_sink_skip(struct wire_rx_payload *p, size_t n)
{
    while (n > 0 && p->at < p->sink.count) {
        struct iovec *v = &p->sink.iov[p->at];
        size_t take = n < v->iov_len ? n : v->iov_len;

        v->iov_base = (uint8_t *)v->iov_base + take;
        v->iov_len -= take;
        if (v->iov_len == 0)
            p->at++;
        n -= take;
    }
}

/*
 * Moves the current large frame's payload into its sink: 1 when it is all
 * there, 0 when the socket has no more for now, -1 to drop the connection.
 */
static int rx_payload(struct emu_conn *conn)
{
    struct wire_rx_payload *p = &conn->rx;

    while (p->left > 0) {
        struct iovec vec[EMU_WIRE_MAX_IOV + 1];
        size_t avail = conn->rlen - conn->roff, want = 0;
        int n = 0;
        ssize_t got;

        if (avail > 0) {
            size_t take = avail < p->left ? avail : p->left;

            rx_sink_put(p, conn->rbuf + conn->roff, take);
            conn->roff += take;
            p->left -= take;
            continue;
        }
        conn->roff = conn->rlen = 0;
        /* Straight into the sink; what follows the payload lands in the emptied buffer. */
        for (int i = p->at; p->err == 0 && i < p->sink.count && want < p->left; i++) {
            vec[n] = p->sink.iov[i];
            if (vec[n].iov_len > p->left - want)
                vec[n].iov_len = p->left - want;
            want += vec[n++].iov_len;
        }
        vec[n++] = (struct iovec){conn->rbuf, RX_CHUNK};
        do
            got = readv(conn->fd, vec, n);
        while (got < 0 && errno == EINTR);
        if (got < 0 && errno == EFAULT && n > 1) {
            /* The sink is unmapped memory: the rest of the payload is discarded. */
            p->err = EFAULT;
            continue;
        }
        if (got < 0)
            return errno == EAGAIN ? 0 : -1;
        if (got == 0)
            return -1;
        if ((size_t)got <= want) {
            rx_sink_skip(p, (size_t)got);
            p->left -= (size_t)got;
        } else {
            rx_sink_skip(p, want);
            p->left -= want;
            conn->rlen = (size_t)got - want;
        }
    }
    return 1;
}

enum rx_state { RX_DROP = -1, RX_MORE, RX_EMPTY };

/*
 * Delivers every frame the buffer holds whole: RX_MORE when it needs more
 * bytes, RX_EMPTY when a payload drained the socket, RX_DROP.
 */
static enum rx_state rx_frames(struct emu_conn *conn)
{
    const struct emu_wire_ops *ops = conn->wire->cfg.ops;

    for (;;) {
        struct emu_wire_hdr h;
        uint32_t len;
        int r;

        if (conn->rx.active) {
            r = rx_payload(conn);
            if (r <= 0)
                return r < 0 ? RX_DROP : RX_EMPTY;
            conn->rx.active = false;
            if (ops->payload_done(conn, &conn->rx.h, conn->rx.err) != 0)
                return RX_DROP;
        }
        if (__atomic_load_n(&conn->dead, __ATOMIC_ACQUIRE)) /* rejected: nothing more is read */
            return RX_DROP;
        if (conn->rlen - conn->roff < sizeof(h))
            return RX_MORE;
        memcpy(&h, conn->rbuf + conn->roff, sizeof(h));
        if (!rx_check_hdr(conn, &h))
            return RX_DROP;
        len = be32toh(h.payload_len);
        if (len <= EMU_WIRE_SMALL_PAYLOAD) {
            const uint8_t *payload = conn->rbuf + conn->roff + sizeof(h);

            if (conn->rlen - conn->roff < sizeof(h) + len)
                return RX_MORE;
            conn->roff += sizeof(h) + len;
            if (h.type == EMU_WIRE_HELLO)
                r = wire_hello(conn, &h) ? 0 : -1;
            else if (h.type == EMU_WIRE_PULL_OK)
                r = wire_pull_ok(conn, &h) ? 0 : -1;
            else
                r = ops->frame(conn, &h, payload, NULL);
            if (r != 0)
                return RX_DROP;
            continue;
        }
        conn->roff += sizeof(h);
        memset(&conn->rx, 0, sizeof(conn->rx));
        conn->rx.h = h;
        conn->rx.left = len;
        conn->rx.active = true;
        if (ops->frame(conn, &h, NULL, &conn->rx.sink) != 0)
            return RX_DROP;
    }
}

bool wire_rx(struct emu_conn *conn)
{
    for (int reads = 0; reads < RX_BATCH; reads++) {
        bool drained = false;
        enum rx_state r;

        if (conn->roff == conn->rlen) {
            conn->roff = conn->rlen = 0;
        } else if (conn->roff > 0) {
            memmove(conn->rbuf, conn->rbuf + conn->roff, conn->rlen - conn->roff);
            conn->rlen -= conn->roff;
            conn->roff = 0;
        }
        /* A large frame in progress reads into its sink (rx_payload); otherwise, the buffer. */
        if (!conn->rx.active) {
            ssize_t n;

            do
                n = recv(conn->fd, conn->rbuf + conn->rlen, RX_CHUNK, MSG_DONTWAIT);
            while (n < 0 && errno == EINTR);
            if (n == 0 || (n < 0 && errno != EAGAIN))
                return false;
            if (n < 0)
                break;
            conn->rlen += (size_t)n;
            /* A short read took all there was: no second call just to hear EAGAIN. */
            drained = (size_t)n < RX_CHUNK;
        }
        r = rx_frames(conn);
        if (r == RX_DROP)
            return false;
        if (r == RX_EMPTY || (drained && r == RX_MORE && !conn->rx.active))
            break;
    }
    conn->wire->cfg.ops->batch_end(conn);
    return true;
}
