/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The out-of-band TCP connection between an example's client and server:
 * what each side must know of the other before RDMA can flow (the example
 * and its iterations, the QP number, GID and LID, the remote buffers and
 * their keys), and the messages that pace the run. Every integer travels
 * big-endian. Every receive gives up on SIGINT/SIGTERM (ex_signal).
 */
#ifndef EX_OOB_H
#define EX_OOB_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "ex_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Results of the receives and exchanges below (each already logged). */
enum ex_oob_status {
    EX_OOB_OK = 0,
    EX_OOB_CLOSED = -1, /* the peer closed the connection */
    EX_OOB_SIGNAL = -2, /* SIGINT or SIGTERM arrived while waiting */
    EX_OOB_ERROR = -3,  /* a socket error, or a malformed or mismatching message */
};

/* Server: listens on port (0: a free one, printed) on every address and accepts one client. */
int ex_oob_server(uint16_t port, int *fd);
/* Client: connects to ip:port, retrying for a while if the server is not listening yet. */
int ex_oob_client(const char *ip, uint16_t port, int *fd);

int ex_oob_send(int fd, const void *buf, size_t len);
int ex_oob_recv(int fd, void *buf, size_t len);

/*
 * The first exchange: both sides send the example id and their -i, then
 * check the peer's. A mismatch is reported on both sides (EX_OOB_ERROR).
 */
int ex_oob_hello(int fd, const struct ex_info *ex, uint32_t iterations);

/*
 * Both sides send the value of option opt (e.g. "-w") and check the peer's:
 * a mismatch is reported on both sides as "<opt> mismatch: ..." (EX_OOB_ERROR).
 */
int ex_oob_agree(int fd, const char *opt, uint32_t mine);

/* What a QP's peer needs to connect to it. */
struct ex_qp_info {
    uint32_t qpn;
    uint32_t lid;
    uint8_t gid[16];
};

/* Sends mine, then receives the peer's. */
int ex_oob_exchange_qp(int fd, const struct ex_qp_info *mine, struct ex_qp_info *peer);

/* A registered buffer the peer writes into. */
struct ex_remote_buf {
    uint64_t addr;
    uint64_t len;
    uint32_t rkey; /* host order, as ibv_mr gives it */
};

int ex_oob_send_bufs(int fd, const struct ex_remote_buf *bufs, uint32_t count);
/* Receives exactly count descriptors (a different count is EX_OOB_ERROR). */
int ex_oob_recv_bufs(int fd, struct ex_remote_buf *bufs, uint32_t count);

/* Pacing messages. */
enum ex_oob_code {
    EX_OOB_CODE_READY = 0x52454459,      /* "REDY": my QP is connected */
    EX_OOB_CODE_RUNS_DONE = 0x444f4e45,  /* "DONE": all runs completed */
    EX_OOB_CODE_VALID_OK = 0x564f4b21,   /* "VOK!": the server validated the data */
    EX_OOB_CODE_VALID_FAIL = 0x56424144, /* "VBAD": it did not */
};

int ex_oob_send_code(int fd, uint32_t code);
int ex_oob_recv_code(int fd, uint32_t *code);
/* Both sides send READY and wait for the peer's. */
int ex_oob_barrier(int fd);

/*
 * The connection whose end means the peer is gone, for the waits of a run
 * that get no message from the peer otherwise (-1: none).
 */
void ex_oob_watch(int fd);
/* True once the watched connection was closed by the peer (a non-blocking peek). */
bool ex_oob_peer_gone(void);
/*
 * The same, waiting up to ms for it: after a failure that a dead peer
 * causes (an error CQE), its connection's end may arrive a moment later.
 */
bool ex_oob_peer_gone_within(int ms);
/* How long a failed run waits for the peer's end before it calls the failure its own. */
#define EX_OOB_GONE_MS 500

#ifdef __cplusplus
}
#endif

#endif /* EX_OOB_H */
