/* SPDX-License-Identifier: BSD-3-Clause */
/* The handshake messages' limits, checks and byte order (cm_msg.h). */
#include "rdmacm/cm_msg.h"

#include <arpa/inet.h>

size_t cm_msg_pdata_limit(enum cm_msg_type type)
{
    switch (type) {
    case CM_MSG_REQ:
        return CM_PDATA_SIDR_REQ > CM_PDATA_REQ ? CM_PDATA_SIDR_REQ : CM_PDATA_REQ;
    case CM_MSG_REP:
        return CM_PDATA_REP;
    case CM_MSG_RTU:
        return CM_PDATA_RTU;
    case CM_MSG_REJ:
        return CM_PDATA_REJ;
    case CM_MSG_DREQ:
        return CM_PDATA_DREQ;
    case CM_MSG_DREP:
        return CM_PDATA_DREP;
    }
    return 0;
}

int cm_msg_check(const struct cm_msg *msg)
{
    size_t limit = cm_msg_pdata_limit((enum cm_msg_type)msg->type);

    if (ntohl(msg->magic) != CM_MSG_MAGIC || msg->version != CM_MSG_VERSION || limit == 0 ||
        msg->pdata_len > limit || msg->reserved[0] != 0 || msg->reserved[1] != 0)
        return -1;
    return 0;
}

void cm_msg_swap(struct cm_msg *msg)
{
    msg->magic = htonl(msg->magic);
    msg->qpn = htonl(msg->qpn);
    msg->psn = htonl(msg->psn);
    msg->lid = htons(msg->lid);
}

const char *cm_msg_name(unsigned type)
{
    static const char *const names[] = {"?", "REQ", "REP", "RTU", "REJ", "DREQ", "DREP"};

    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}
