/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager's handshake between two softmlx5 librdmacm
 * processes: fixed-size messages on the TCP connection of an rdma_cm_id,
 * integers big-endian. A REQ (rdma_connect) and a REP (rdma_accept) carry
 * their side's QP number, first PSN, GID, LID, MTU and connection
 * parameters; RTU completes the handshake, REJ refuses it (with the IB CM's
 * reject reason), DREQ/DREP disconnect. For RDMA_PS_UDP (UD QPs) a REQ and a
 * REP are the IB CM's SIDR REQ and REP: they carry the QP number and, in the
 * PSN's place, the Q_Key; nothing follows them. Private data is limited as
 * the IB CM limits it (RDMA_PS_TCP, RDMA_PS_UDP). A message that fails
 * cm_msg_check ends the connection.
 */
#ifndef EMU_RDMACM_CM_MSG_H
#define EMU_RDMACM_CM_MSG_H

#include <stddef.h>
#include <stdint.h>

#define CM_MSG_MAGIC     0x534d434du /* "SMCM" */
#define CM_MSG_VERSION   1
#define CM_MSG_PDATA_MAX 224

/* Private data sizes (rdma_cm's, after its own header in the REQ). */
#define CM_PDATA_REQ      56
#define CM_PDATA_REP      196
#define CM_PDATA_REJ      148
#define CM_PDATA_RTU      224
#define CM_PDATA_DREQ     220
#define CM_PDATA_DREP     224
/* RDMA_PS_UDP: the SIDR REQ's and REP's (rdma_cm's header taken from the REQ's 216 bytes). */
#define CM_PDATA_SIDR_REQ 180
#define CM_PDATA_SIDR_REP 136

/* IB CM reject reasons used here. */
#define CM_REJ_INVALID_SERVICE_ID 8
#define CM_REJ_CONSUMER_DEFINED   28

enum cm_msg_type {
    CM_MSG_REQ = 1,
    CM_MSG_REP,
    CM_MSG_RTU,
    CM_MSG_REJ,
    CM_MSG_DREQ,
    CM_MSG_DREP,
};

struct cm_msg {
    uint32_t magic;
    uint8_t version;
    uint8_t type;
    uint8_t pdata_len;
    uint8_t reason; /* REJ */
    uint32_t qpn;
    uint32_t psn; /* UD (SIDR): the Q_Key */
    uint8_t gid[16];
    uint16_t lid;
    uint8_t link_layer;
    uint8_t mtu;
    uint8_t responder_resources;
    uint8_t initiator_depth;
    uint8_t retry_count;
    uint8_t rnr_retry_count;
    uint8_t flow_control;
    uint8_t srq;
    uint8_t reserved[2];
    uint8_t pdata[CM_MSG_PDATA_MAX];
};

_Static_assert(sizeof(struct cm_msg) == 268, "cm_msg is a fixed wire format");

/* The private data limit of a message type, either port space's (0 for an unknown type). */
size_t cm_msg_pdata_limit(enum cm_msg_type type);

/* 0 when a received message is well formed (its integers still big-endian), else -1. */
int cm_msg_check(const struct cm_msg *msg);

/* Converts the integer fields between host and wire order (the same swap both ways). */
void cm_msg_swap(struct cm_msg *msg);

/* The message type's name, for log lines. */
const char *cm_msg_name(unsigned type);

#endif /* EMU_RDMACM_CM_MSG_H */
