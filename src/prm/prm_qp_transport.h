/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP service types (qpc.st) a device implements, in one table: whether
 * the responder acknowledges requests (RC, XRC, DCI) or not (UC, UD),
 * whether the QP is connected to one remote QP from INIT2RTR on (RC, UC,
 * XRC) or each send WQE names its destination in a datagram segment (UD),
 * whether each request names the receiving XRC SRQ (XRC: the send WQE's XRC
 * segment), and which send WQE opcodes its send queue executes (IB: UC has
 * no reads or atomics, UD sends only, XRC and DCI all of RC's). DC
 * (Dynamically Connected) has two: the DCI, a send queue that is connected
 * to one DCT at a time, named by each send WQE's datagram segment (reliable
 * like RC), and the DCT, a receive side that answers any DCI. Every layer
 * that decides such a thing asks here.
 */
#ifndef PRM_QP_TRANSPORT_H
#define PRM_QP_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A DCT is no QP in the PRM (CREATE_DCT makes it); the device keeps it as a
 * QP of this service type, which no qpc.st names.
 */
#define PRM_QP_ST_DCT 0xfe

enum prm_qp_dc {
    PRM_QP_DC_NONE,
    PRM_QP_DC_DCI, /* connected to the DCT its next send WQE names, once the last ones completed */
    PRM_QP_DC_DCT, /* no send queue; takes requests of any DCI that gave its DC access key */
};

struct prm_qp_transport {
    uint8_t st;       /* PRM_QP_ST_* */
    const char *name; /* "RC", "UC", "UD", "XRC", "DCI", "DCT" */
    bool acked;       /* requests are acknowledged and complete on their answer */
    bool connected;   /* one remote QP at a time: set by INIT2RTR (RC, UC, XRC) or by DC */
    bool xrc;         /* send WQEs carry an XRC segment: each request names an XRC SRQ */
    uint8_t dc;       /* enum prm_qp_dc */
    uint64_t opcodes; /* bit (1 << PRM_WQE_OPCODE_*) of each opcode the send queue executes */
};

/* The service type st, or NULL when the device does not implement it. */
const struct prm_qp_transport *prm_qp_transport_of(uint8_t st);

/* Whether the send queue of transport t executes WQE opcode `opcode`. */
bool prm_qp_transport_allows(const struct prm_qp_transport *t, uint8_t opcode);

/* "RC, UC, UD, XRC, DCI, DCT": the implemented service types, for refusal messages. Returns buf. */
const char *prm_qp_transport_list(char *buf, unsigned int n);

#endif /* PRM_QP_TRANSPORT_H */
