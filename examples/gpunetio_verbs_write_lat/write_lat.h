/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_write_lat: what the host code and the kernel share.
 *
 * Message sizes: 10, 1 B and then 64 B doubling up to 16 KiB. Each side
 * has one receive buffer (the peer writes into it) and one send buffer, of
 * the largest size. In iteration i of a size the sender sets the last byte
 * of its message to write_lat_value(i) and writes it; the receiver knows
 * the message has landed when the last byte of its receive buffer turns to
 * that value. Consecutive values differ and none is 0, and each size's last
 * byte lies beyond every smaller size's message, so a stale byte never
 * looks like a new message.
 */
#ifndef WRITE_LAT_H
#define WRITE_LAT_H

#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio_verbs_def.h"
/* GDAKI_INLINE; last, as the public header above removes it at its end. */
#include "gdaki_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WRITE_LAT_NUM_SIZES  10
#define WRITE_LAT_MAX_SIZE   16384
/* How long a side waits for the peer's next message before giving up. */
#define WRITE_LAT_TIMEOUT_NS (30ull * 1000 * 1000 * 1000)

/* Message size number i (0..9): 1, 64, 128, ..., 16 KiB. */
GDAKI_INLINE uint32_t write_lat_size(int i)
{
    return i == 0 ? 1u : 64u << (i - 1);
}

GDAKI_INLINE uint8_t write_lat_value(uint32_t iteration)
{
    return (uint8_t)(iteration % 255u + 1u);
}

/* One size's ping-pong. Keys are big-endian, as the data path takes them. */
struct write_lat_job {
    uint64_t raddr;      /* the peer's receive buffer */
    uint8_t *send;       /* this side's send buffer (its address is the WQEs' laddr) */
    const uint8_t *recv; /* this side's receive buffer */
    uint32_t rkey_be;
    uint32_t lkey_be;
    uint32_t size;
    uint32_t iterations;
    uint32_t client; /* 1: writes first; 0: answers */
    uint32_t bf;     /* 1: submit with BlueFlame (NIC handler GPU_SM_BF) */
    uint64_t timeout_ns;
};

enum write_lat_status {
    WRITE_LAT_OK = 0,
    WRITE_LAT_CQE_ERROR = 1, /* a write completed in error */
    WRITE_LAT_TIMEOUT = 2,   /* the peer's message did not come */
    WRITE_LAT_STOPPED = 3,   /* a signal arrived (CPU execution) */
    WRITE_LAT_PEER_GONE = 4, /* the peer closed the out-of-band connection (CPU execution) */
};

struct write_lat_result {
    uint64_t elapsed_ns; /* the whole ping-pong of the size */
    uint32_t status;     /* enum write_lat_status */
    uint32_t iteration;  /* where it stopped, if not OK */
};

/* Runs a job in a one-thread kernel on stream and waits for it. 0, or -1 (logged). */
int write_lat_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct write_lat_job *job,
                      void *stream, struct write_lat_result *result);

#ifdef __cplusplus
}
#endif

#endif /* WRITE_LAT_H */
