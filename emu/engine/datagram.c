/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD: the requester's datagram segment (destination QPN, Q_Key, address
 * vector) made into a datagram frame to the destination's device, and the
 * responder's side: the Q_Key check, the 40-byte GRH written before the
 * message in the receive buffer, and the completion's source QPN, SL and
 * LID. Nothing is answered: a datagram that cannot be placed is dropped
 * and counted (emu_rx_dropped).
 */
#include <endian.h>
#include <string.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/caps.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/mlx5_cqe.h"
#include "prm/mlx5_wqe.h"
#include "wire/wire.h"

/* The GRH area at the start of every UD receive buffer. */
#define DG_GRH_BYTES    40u
/* Transport headers a GRH's and an IPv4 header's length fields count: BTH, DETH, ICRC. */
#define DG_BTH_BYTES    12u
#define DG_DETH_BYTES   8u
#define DG_ICRC_BYTES   4u
#define DG_UDP_BYTES    8u
#define DG_IPV4_BYTES   20u
#define DG_NEXT_HDR_BTH 0x1b /* IB GRH next header: BTH */
#define DG_IP_PROTO_UDP 17

void engine_drop(struct emu_nic *nic, enum emu_drop why)
{
    __atomic_add_fetch(&nic->engine->dropped[why], 1, __ATOMIC_RELAXED);
}

uint32_t engine_dg_data_offset(void)
{
    return sizeof(struct prm_wqe_ctrl_seg) + sizeof(struct prm_wqe_datagram_seg);
}

uint8_t engine_dg_build(struct emu_qp *qp, const struct engine_wqe *w, struct emu_wire_hdr *h,
                        struct emu_conn **conn)
{
    const struct prm_wqe_datagram_seg *av =
            (const void *)(w->buf + sizeof(struct prm_wqe_ctrl_seg));
    uint32_t qkey, dqp, gfl, ep;
    uint64_t fields;
    union ibv_gid gid;
    bool grh;

    *conn = NULL;
    if (w->ds * PRM_WQE_DS_SIZE < engine_dg_data_offset()) {
        EMU_LOG_ERR("QP 0x%x: UD send WQE of %u DS has no datagram segment", qp->qpn, w->ds);
        return PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR;
    }
    qkey = be32toh(av->qkey);
    dqp = be32toh(av->dqp_dct) & PRM_CQE_QPN_MASK;
    gfl = be32toh(av->grh_gid_fl);
    grh = (gfl & PRM_WQE_AV_GRH) != 0;
    /* IB: a Q_Key with its high bit set stands for the QP's own (controlled) Q_Key. */
    if (qkey & PRM_WQE_QKEY_USE_QP)
        qkey = qp->attr.qkey;
    h->dst_qpn = htobe32(dqp);
    h->rkey = htobe32(qkey);
    h->flags |= EMU_WIRE_F_DATAGRAM;
    fields = ((uint64_t)av->tclass << EMU_WIRE_DG_TCLASS_SHIFT) |
             ((uint64_t)av->hop_limit << EMU_WIRE_DG_HOP_SHIFT) |
             ((uint64_t)(qp->nic->link == EMU_LINK_IB ? qp->nic->endpoint_id : 0)
              << EMU_WIRE_DG_SLID_SHIFT) |
             ((uint64_t)(av->stat_rate_sl & 0xf) << EMU_WIRE_DG_SL_SHIFT) |
             (grh ? EMU_WIRE_DG_GRH : 0) | (gfl & PRM_WQE_AV_FLOW_LABEL_MASK);
    h->raddr = htobe64(fields);
    emu_nic_gid(qp->nic, &gid);
    memcpy(&h->swap_add, gid.raw, 8);
    memcpy(&h->compare, gid.raw + 8, 8);
    ep = dqp >> EMU_OBJ_INDEX_BITS;
    /* An unreachable destination loses the datagram; the send completes all the same. */
    if (ep == 0 || ep > EMU_WIRE_MAX_ENDPOINTS ||
        emu_wire_connect(qp->nic->engine->wire, grh ? engine_gid_ipv4(av->rgid) : 0, (uint16_t)ep,
                         conn) != 0) {
        EMU_LOG_DBG("QP 0x%x: datagram to QPN 0x%x lost: no such endpoint", qp->qpn, dqp);
        *conn = NULL;
    }
    return 0;
}

static uint16_t dg_csum(const uint8_t *p, unsigned int n)
{
    uint32_t sum = 0;

    for (unsigned int i = 0; i + 1 < n; i += 2)
        sum += ((uint32_t)p[i] << 8) | p[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/*
 * The 40 bytes before the message: on Ethernet (RoCE v2 over IPv4) the
 * IPv4 header in the last 20 (the first 20 zero), on InfiniBand the GRH
 * when the sender's address vector had one. Returns the CQE's L3 type.
 */
static uint8_t dg_grh(const struct emu_qp *qp, const struct emu_wire_hdr *h, uint32_t len,
                      uint8_t *grh)
{
    uint64_t f = be64toh(h->raddr);
    uint8_t tclass = (uint8_t)(f >> EMU_WIRE_DG_TCLASS_SHIFT);
    uint8_t hop = (uint8_t)(f >> EMU_WIRE_DG_HOP_SHIFT);
    uint8_t sgid[16];
    union ibv_gid dgid;

    memset(grh, 0, DG_GRH_BYTES);
    memcpy(sgid, &h->swap_add, 8);
    memcpy(sgid + 8, &h->compare, 8);
    emu_nic_gid(qp->nic, &dgid);
    if (qp->nic->link == EMU_LINK_ETH) {
        uint8_t *ip = grh + DG_GRH_BYTES - DG_IPV4_BYTES;
        uint32_t total =
                DG_IPV4_BYTES + DG_UDP_BYTES + DG_BTH_BYTES + DG_DETH_BYTES + len + DG_ICRC_BYTES;
        uint16_t sum;

        ip[0] = 0x45; /* version 4, 5 words */
        ip[1] = tclass;
        ip[2] = (uint8_t)(total >> 8);
        ip[3] = (uint8_t)total;
        ip[6] = 0x40; /* don't fragment */
        ip[8] = hop;
        ip[9] = DG_IP_PROTO_UDP;
        memcpy(ip + 12, sgid + 12, 4);
        memcpy(ip + 16, dgid.raw + 12, 4);
        sum = dg_csum(ip, DG_IPV4_BYTES);
        ip[10] = (uint8_t)(sum >> 8);
        ip[11] = (uint8_t)sum;
        return PRM_CQE_L3_IPV4;
    }
    if (!(f & EMU_WIRE_DG_GRH))
        return PRM_CQE_L3_NONE;
    {
        uint32_t word =
                (6u << 28) | ((uint32_t)tclass << 20) | (uint32_t)(f & EMU_WIRE_DG_FLOW_MASK);
        uint32_t paylen = DG_BTH_BYTES + DG_DETH_BYTES + len + DG_ICRC_BYTES;

        word = htobe32(word);
        memcpy(grh, &word, 4);
        grh[4] = (uint8_t)(paylen >> 8);
        grh[5] = (uint8_t)paylen;
        grh[6] = DG_NEXT_HDR_BTH;
        grh[7] = hop;
        memcpy(grh + 8, sgid, 16);
        memcpy(grh + 24, dgid.raw, 16);
    }
    return PRM_CQE_L3_GRH;
}

int engine_dg_request(struct emu_qp *qp, const struct emu_wire_hdr *h, const uint8_t *payload,
                      struct emu_wire_sink *sink)
{
    uint32_t len = be32toh(h->payload_len);
    uint8_t wqe[ENGINE_RECV_WQE_MAX];
    uint8_t msg[DG_GRH_BYTES + EMU_MTU_BYTES];
    struct engine_sgl t = {0};
    uint32_t first, rqpn;
    uint64_t f = be64toh(h->raddr);
    int64_t rindex;
    uint8_t synd, l3 = PRM_CQE_L3_NONE;

    /* A large payload (sink set) is beyond the MTU too: the sink stays empty, it is discarded. */
    if (sink != NULL || len > EMU_MTU_BYTES) {
        engine_drop(qp->nic, EMU_DROP_TOO_LONG);
        return 0;
    }
    pthread_mutex_lock(&qp->lock);
    if (!engine_resp_state_ok(qp->state)) {
        pthread_mutex_unlock(&qp->lock);
        engine_drop(qp->nic, EMU_DROP_NOT_READY);
        return 0;
    }
    if (be32toh(h->rkey) != qp->attr.qkey) {
        EMU_LOG_DBG("QP 0x%x: datagram from QPN 0x%x with Q_Key 0x%x (the QP's is 0x%x) dropped",
                    qp->qpn, be32toh(h->src_qpn), be32toh(h->rkey), qp->attr.qkey);
        pthread_mutex_unlock(&qp->lock);
        engine_drop(qp->nic, EMU_DROP_QKEY);
        return 0;
    }
    rindex = engine_recv_stride(qp) > sizeof(wqe) ? -1 : engine_recv_take(qp, wqe, &first);
    if (rindex < 0) {
        pthread_mutex_unlock(&qp->lock);
        engine_drop(qp->nic, EMU_DROP_NO_RECV);
        return 0;
    }
    synd = engine_recv_scatter(qp, wqe, first, DG_GRH_BYTES + len, &t);
    if (synd == 0) {
        l3 = dg_grh(qp, h, len, msg);
        if (len > 0)
            memcpy(msg + DG_GRH_BYTES, payload, len);
        if (engine_sgl_scatter(&t, msg, DG_GRH_BYTES + len) != 0)
            synd = PRM_CQE_SYNDROME_LOCAL_PROT_ERR;
    }
    engine_sgl_release(&t);
    if (synd != 0) {
        engine_recv_fail(qp, (uint32_t)rindex, synd);
    } else {
        rqpn = (be32toh(h->src_qpn) & PRM_CQE_QPN_MASK) | ((uint32_t)l3 << PRM_CQE_RQPN_L3_SHIFT) |
               ((uint32_t)((f >> EMU_WIRE_DG_SL_SHIFT) & 0xf) << PRM_CQE_RQPN_SL_SHIFT);
        engine_cqe_resp(qp,
                        h->type == EMU_WIRE_SEND_IMM ? PRM_CQE_OPCODE_RESP_SEND_IMM
                                                     : PRM_CQE_OPCODE_RESP_SEND,
                        (uint32_t)rindex, DG_GRH_BYTES + len, h->imm, rqpn,
                        (uint16_t)(f >> EMU_WIRE_DG_SLID_SHIFT),
                        (h->flags & EMU_WIRE_F_SOLICITED) != 0);
    }
    pthread_mutex_unlock(&qp->lock);
    return 0;
}
