/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_send_recv: what the host code and the kernel share.
 *
 * A ping-pong of RDMA Sends between two kernels (or CPU threads), for
 * message sizes 1 B and then 64 B doubling up to 16 KiB (write_lat's). Each
 * side keeps one receive posted into its receive buffer and has one send
 * buffer. In iteration i the client sends, the server receives and sends
 * back; every message's first and last bytes are send_recv_value(i), and
 * each side checks what it received: the byte count the receive CQE gives
 * and those two bytes. A side posts its next receive before it sends, so
 * a message never finds the peer without one (no RNR retry on the way).
 */
#ifndef SEND_RECV_H
#define SEND_RECV_H

#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"
/* GDAKI_INLINE; last, as the public header above removes it at its end. */
#include "gdaki_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SEND_RECV_RQ_WQES 16
/* How long a side waits for the peer's next message before giving up. */
#define SEND_RECV_TIMEOUT_NS (30ull * 1000 * 1000 * 1000)

GDAKI_INLINE uint8_t send_recv_value(uint32_t iteration)
{
    return (uint8_t)(iteration % 255u + 1u);
}

/* One size's ping-pong. Keys are big-endian, as the data path takes them. */
struct send_recv_job {
    uint8_t *send;       /* this side's send buffer */
    const uint8_t *recv; /* this side's receive buffer */
    uint32_t lkey_send_be;
    uint32_t lkey_recv_be;
    uint32_t recv_len; /* bytes each receive takes: the largest message */
    uint32_t size;
    uint32_t iterations;
    uint32_t client;      /* 1: sends first; 0: answers */
    uint32_t post_first;  /* 1: post the first receive (the first size); 0: recv_ticket is posted */
    uint64_t recv_ticket; /* the receive posted by the previous size's run */
    uint64_t timeout_ns;
};

enum send_recv_status {
    SEND_RECV_OK = 0,
    SEND_RECV_CQE_ERROR = 1, /* a send or a receive completed in error */
    SEND_RECV_TIMEOUT = 2,   /* the peer's message did not come */
    SEND_RECV_BAD_DATA = 3,  /* a message arrived with the wrong length or bytes */
    SEND_RECV_STOPPED = 4,   /* a signal arrived (CPU execution) */
    SEND_RECV_PEER_GONE = 5, /* the peer closed the out-of-band connection (CPU execution) */
};

struct send_recv_result {
    uint64_t elapsed_ns; /* the whole ping-pong of the size */
    uint32_t status;     /* enum send_recv_status */
    uint32_t iteration;  /* where it stopped, if not OK */
    uint32_t got_bytes;  /* SEND_RECV_BAD_DATA: what the receive CQE said */
    uint64_t recv_ticket; /* the receive left posted for the next size */
};

/* Whether a received message of got bytes at buf is iteration i's message of size bytes. */
GDAKI_INLINE int send_recv_check(const volatile uint8_t *buf, uint32_t got, uint32_t size,
                                 uint32_t i)
{
    uint8_t v = send_recv_value(i);

    return got == size && buf[0] == v && buf[size - 1] == v;
}

/* Runs a job in a one-thread kernel on stream and waits for it. 0, or -1 (logged). */
int send_recv_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct send_recv_job *job,
                      void *stream, struct send_recv_result *result);

#ifdef __cplusplus
}
#endif

#endif /* SEND_RECV_H */
