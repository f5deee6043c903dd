/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpunetio_verbs_put_signal_lat: what the host code and the kernel share.
 *
 * Message sizes, the 30 s give-up and the result of a run are
 * gpunetio_verbs_write_lat's (write_lat.h). Each side has one receive
 * buffer (the peer writes into it), one send buffer, and one 8-byte signal
 * per message size, the one of size number z at index z. A message is a
 * put of the size into the peer's receive buffer that adds 1 to the peer's
 * signal of the size: -w 0 with put_signal (the write, then an 8-byte
 * fetch-add on the peer's signal word, its old value into this side's
 * fetch slot), -w 1 with put_immediate (one RDMA write with immediate whose
 * immediate carries signal id z and the value 1; the peer's service adds
 * it to the slot its signal map has for id z). After the peer's message i
 * of a size, the signal of that size holds i + 1: in host order with -w 1,
 * big-endian with -w 0, as the NIC's fetch-adds keep a word.
 */
#ifndef PUT_SIGNAL_LAT_H
#define PUT_SIGNAL_LAT_H

#include <stddef.h>
#include <stdint.h>

#include "doca_gpunetio_verbs_dev.h"
#include "gdaki_platform.h"
/* GDAKI_INLINE (write_lat.h's last include). */
#include "write_lat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receive WQEs of a -w 1 QP: the ping-pong has one write with immediate in flight at a time. */
#define PUT_SIGNAL_LAT_RQ_WQES 64

/* One size's ping-pong. Keys are big-endian, as the data path takes them. */
struct put_signal_lat_job {
    struct doca_gpu_dev_verbs_addr raddr;     /* the peer's receive buffer */
    struct doca_gpu_dev_verbs_addr laddr;     /* this side's send buffer */
    struct doca_gpu_dev_verbs_addr sig_raddr; /* -w 0: the peer's signal of this size */
    struct doca_gpu_dev_verbs_addr sig_laddr; /* -w 0: this side's fetch slot */
    const uint64_t *signal; /* the signal this side polls: the peer's messages of this size */
    uint32_t sig_id;        /* -w 1: the id of this size's signal in the peer's map */
    uint32_t size;
    uint32_t iterations;
    uint32_t client;    /* 1: sends first; 0: answers */
    uint32_t immediate; /* 1: put_immediate (-w 1); 0: put_signal */
    uint64_t timeout_ns;
};

/* The count a signal word holds (raw: the word as loaded). */
GDAKI_INLINE uint64_t put_signal_lat_count(uint64_t raw, uint32_t immediate)
{
    return immediate ? raw : gdaki_be64toh(raw);
}

/* Runs a job in a one-thread kernel on stream and waits for it. 0, or -1 (logged). */
int put_signal_lat_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct put_signal_lat_job *job,
                           void *stream, struct write_lat_result *result);

#ifdef __cplusplus
}
#endif

#endif /* PUT_SIGNAL_LAT_H */
