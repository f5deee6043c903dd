/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ACKs of requests that come in on one connection while the QP answers
 * on another (two devices that dialled each other at once hold two; a
 * connected QP answers on its own, engine/responder.c resp_out): a burst of
 * writes that each ask for an ACK at once, read in one batch, gets one
 * cumulative ACK for the batch, as on the QP's own connection, not one a
 * write (each of which also waited for the device's GPU copies).
 *
 * The device is mlx5_0 in a network namespace of the process's own
 * (softmlx5_harness.h). This test plays the peer, endpoint ACK_FAKE_EP: it
 * accepts the connection the QP dials at RTR (the QP's own, where the ACKs
 * must arrive), then dials the device itself and sends, in one write, its
 * HELLO and ACK_BURST writes with EMU_WIRE_F_ACK_REQ. It checks that the
 * data landed, that the last ACK names the last PSN, and that at most two
 * ACKs came (one per batch; two should the device read the burst in two).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "softmlx5_harness.h"
#include "wire/proto.h"
#include "wire/wire.h"

#define ACK_FAKE_EP  250u
#define ACK_FAKE_QPN ((ACK_FAKE_EP << EMU_OBJ_INDEX_BITS) | 1u)
#define ACK_IOVA     0x5200000000ull
#define ACK_BURST    16u
#define ACK_LEN      16u
#define ACK_RQ_PSN   0x100u
#define ACK_WAIT_MS  2000

static int ack_unix_socket(void)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        sm5h_die("test_ack_other_conn: socket: %s", strerror(errno));
    return fd;
}

/* Reads whole frames from fd for up to ms; counts ACKs for qpn and keeps the last PSN. */
static void ack_read(int fd, uint32_t qpn, int ms, unsigned int *acks, uint32_t *last_psn)
{
    static uint8_t buf[1 << 16];
    size_t have = 0;
    uint64_t end = sm5h_now_ns() + (uint64_t)ms * 1000000u;

    while (sm5h_now_ns() < end && *last_psn != ACK_RQ_PSN + ACK_BURST - 1) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t n;

        if (poll(&p, 1, 10) <= 0)
            continue;
        n = recv(fd, buf + have, sizeof(buf) - have, MSG_DONTWAIT);
        if (n <= 0)
            sm5h_die("test_ack_other_conn: the device's connection ended (%zd)", n);
        have += (size_t)n;
        while (have >= sizeof(struct emu_wire_hdr)) {
            struct emu_wire_hdr h;
            size_t len;

            memcpy(&h, buf, sizeof(h));
            len = sizeof(h) + be32toh(h.payload_len);
            if (have < len)
                break;
            if (h.type == EMU_WIRE_ACK && be32toh(h.src_qpn) == qpn) {
                (*acks)++;
                *last_psn = be32toh(h.psn);
            }
            memmove(buf, buf + len, have - len);
            have -= len;
        }
    }
}

int main(void)
{
    static uint8_t out[sizeof(struct emu_wire_hdr) * (ACK_BURST + 1) + ACK_LEN * ACK_BURST];
    const struct sm5h_conn c = {.remote_qpn = ACK_FAKE_QPN,
                                .rq_psn = ACK_RQ_PSN,
                                .sq_psn = 0x200,
                                .retry_cnt = 7,
                                .rnr_retry = 7,
                                .max_rd_atomic = 1,
                                .timeout = 14};
    struct sm5h_dev dev;
    struct sockaddr_un addr;
    struct emu_wire_hdr h;
    struct ibv_mr *mr;
    struct ibv_qp *qp;
    unsigned int alen, acks = 0, bad = 0;
    uint32_t last_psn = 0;
    uint8_t *buf;
    size_t n = 0;
    int listen_fd, own_fd, other_fd, rc;

    rc = sm5h_open(&dev, 500);
    if (rc != 0)
        return rc;
    mr = sm5h_mr(&dev, 4096, ACK_IOVA, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
                 (void **)&buf);
    qp = sm5h_qp(&dev, sm5h_cq(&dev, 64), 16, 16, 1, 0);

    /* The peer's endpoint, which the QP dials at RTR: its own connection. */
    listen_fd = ack_unix_socket();
    alen = emu_wire_endpoint_addr(&addr, SM5H_IPV4, ACK_FAKE_EP);
    if (bind(listen_fd, (struct sockaddr *)&addr, alen) != 0 || listen(listen_fd, 4) != 0)
        sm5h_die("test_ack_other_conn: cannot listen as endpoint %u: %s", ACK_FAKE_EP,
                 strerror(errno));
    if (sm5h_qp_up(qp, &c, NULL) != 0)
        sm5h_die("test_ack_other_conn: the QP does not come up");
    own_fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (own_fd < 0)
        sm5h_die("test_ack_other_conn: the QP dialed, but accept fails: %s", strerror(errno));

    /* A second connection, dialled by the peer: the requests come in on it. */
    other_fd = ack_unix_socket();
    alen = emu_wire_endpoint_addr(&addr, SM5H_IPV4, dev.nic->endpoint_id);
    if (connect(other_fd, (struct sockaddr *)&addr, alen) != 0)
        sm5h_die("test_ack_other_conn: cannot dial the device: %s", strerror(errno));
    emu_wire_hdr_init(&h, EMU_WIRE_HELLO, ACK_FAKE_EP, 0, 0);
    h.imm = htobe32(SM5H_IPV4);
    memcpy(out + n, &h, sizeof(h));
    n += sizeof(h);
    for (uint32_t i = 0; i < ACK_BURST; i++) {
        emu_wire_hdr_init(&h, EMU_WIRE_WRITE, ACK_FAKE_QPN, qp->qp_num, ACK_RQ_PSN + i);
        h.flags = EMU_WIRE_F_ACK_REQ;
        h.rkey = htobe32(mr->rkey);
        h.raddr = htobe64(ACK_IOVA + (uint64_t)i * ACK_LEN);
        h.payload_len = htobe32(ACK_LEN);
        memcpy(out + n, &h, sizeof(h));
        n += sizeof(h);
        memset(out + n, (int)(0xa0 + i), ACK_LEN);
        n += ACK_LEN;
    }
    if (write(other_fd, out, n) != (ssize_t)n)
        sm5h_die("test_ack_other_conn: cannot write the burst: %s", strerror(errno));

    ack_read(own_fd, qp->qp_num, ACK_WAIT_MS, &acks, &last_psn);
    for (uint32_t i = 0; i < ACK_BURST * ACK_LEN; i++)
        bad += buf[i] != (uint8_t)(0xa0 + i / ACK_LEN);
    printf("%u writes on the other connection: %u ACKs on the QP's own, the last for PSN 0x%x; "
           "%u bytes wrong\n",
           ACK_BURST, acks, last_psn, bad);
    if (bad != 0 || last_psn != ACK_RQ_PSN + ACK_BURST - 1 || acks == 0 || acks > 2) {
        printf("test_ack_other_conn: FAILED (want the data, the last PSN, 1 or 2 ACKs)\n");
        return 1;
    }
    printf("test_ack_other_conn: passed\n");
    return 0;
}
