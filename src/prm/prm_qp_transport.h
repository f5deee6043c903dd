/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP service types (qpc.st) a device implements, in one table: whether
 * the responder acknowledges requests (RC, XRC) or not (UC, UD), whether the
 * QP is connected to one remote QP from INIT2RTR on (RC, UC, XRC) or each
 * send WQE names its destination in a datagram segment (UD), whether each
 * request names the receiving XRC SRQ (XRC: the send WQE's XRC segment), and
 * which send WQE opcodes its send queue executes (IB: UC has no reads or
 * atomics, UD sends only, XRC all of RC's). Every layer that decides such a
 * thing asks here.
 */
#ifndef PRM_QP_TRANSPORT_H
#define PRM_QP_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

struct prm_qp_transport {
    uint8_t st;       /* PRM_QP_ST_* */
    const char *name; /* "RC", "UC", "UD", "XRC" */
    bool acked;       /* requests are acknowledged and complete on their answer */
    bool connected;   /* one remote QP, set by INIT2RTR */
    bool xrc;         /* send WQEs carry an XRC segment: each request names an XRC SRQ */
    uint64_t opcodes; /* bit (1 << PRM_WQE_OPCODE_*) of each opcode the send queue executes */
};

/* The service type st, or NULL when the device does not implement it. */
const struct prm_qp_transport *prm_qp_transport_of(uint8_t st);

/* Whether the send queue of transport t executes WQE opcode `opcode`. */
bool prm_qp_transport_allows(const struct prm_qp_transport *t, uint8_t opcode);

/* "RC, UC, UD, XRC": the implemented service types, for refusal messages. Returns buf. */
const char *prm_qp_transport_list(char *buf, unsigned int n);

#endif /* PRM_QP_TRANSPORT_H */
