/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles: kept as given, and made into the address vector of a UD
 * send WQE's datagram segment (RC and UC QPs take their path from
 * ibv_modify_qp); made from a received datagram's completion and GRH area
 * (ibv_init_ah_from_wc, ibv_create_ah_from_wc) to answer its sender.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "nic/mr.h"
#include "prm/mlx5_wqe.h"

#define EMU_EXPORT __attribute__((visibility("default")))

/* Marks our handles, so that a stray pointer in a work request is refused, not followed far. */
#define EMU_AH_MAGIC 0x41480000u

struct emu_ah {
    struct ibv_ah ibv;
    uint32_t magic;
    struct ibv_ah_attr attr;
};

EMU_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
    struct emu_ah *ah;

    if (pd == NULL || attr == NULL || !emu_context_is_ours(pd->context)) {
        errno = EINVAL;
        return NULL;
    }
    if (attr->port_num < 1 || attr->port_num > emu_nic_of_ctx(pd->context)->port_count) {
        EMU_LOG_ERR("ibv_create_ah: port %u does not exist", attr->port_num);
        errno = EINVAL;
        return NULL;
    }
    ah = calloc(1, sizeof(*ah));
    if (ah == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    ah->ibv.context = pd->context;
    ah->ibv.pd = pd;
    ah->magic = EMU_AH_MAGIC;
    ah->attr = *attr;
    return &ah->ibv;
}

int emu_verbs_ah_av(struct ibv_context *ctx, struct ibv_ah *ibah, struct prm_wqe_datagram_seg *av)
{
    const struct emu_ah *ah = (const struct emu_ah *)ibah;
    const struct ibv_ah_attr *a;

    if (ibah == NULL || ibah->context != ctx || ah->magic != EMU_AH_MAGIC)
        return EINVAL;
    a = &ah->attr;
    av->stat_rate_sl = a->sl & 0xf;
    av->fl_mlid = a->src_path_bits & 0x7f;
    av->rlid = htobe16(a->dlid);
    if (a->is_global) {
        av->dqp_dct |= htobe32(PRM_WQE_AV_EXTENDED);
        av->tclass = a->grh.traffic_class;
        av->hop_limit = a->grh.hop_limit;
        av->grh_gid_fl = htobe32(PRM_WQE_AV_GRH | ((uint32_t)a->grh.sgid_index << 20) |
                                 (a->grh.flow_label & PRM_WQE_AV_FLOW_LABEL_MASK));
        memcpy(av->rgid, a->grh.dgid.raw, sizeof(av->rgid));
    }
    return 0;
}

EMU_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
    if (ah == NULL)
        return EINVAL;
    ((struct emu_ah *)ah)->magic = 0;
    free(ah);
    return 0;
}

/*
 * The sender of a received datagram, from the 40-byte area before its
 * payload: RoCE v2 over IPv4 puts the IPv4 header in the last 20 bytes (the
 * first 20 zero), InfiniBand and IPv6 a GRH (IP version 6). Gives the
 * sender's GID (*sgid), the GID the datagram was sent to (*dgid) and the
 * traffic class and flow label; -1 for neither.
 */
static int ah_grh_parse(const struct ibv_grh *grh, union ibv_gid *sgid, union ibv_gid *dgid,
                        uint8_t *tclass, uint32_t *flow_label)
{
    static const uint8_t zero[20];
    const uint8_t *raw = (const uint8_t *)grh;
    const uint8_t *ip = raw + 20;
    uint32_t v;

    if (memcmp(raw, zero, sizeof(zero)) == 0 && ip[0] == 0x45) {
        memset(sgid, 0, sizeof(*sgid));
        memset(dgid, 0, sizeof(*dgid));
        sgid->raw[10] = sgid->raw[11] = dgid->raw[10] = dgid->raw[11] = 0xff;
        memcpy(sgid->raw + 12, ip + 12, 4); /* source address */
        memcpy(dgid->raw + 12, ip + 16, 4); /* destination address */
        *tclass = ip[1];
        *flow_label = 0;
        return 0;
    }
    v = be32toh(grh->version_tclass_flow);
    if ((v >> 28) != 6)
        return -1;
    *sgid = grh->sgid;
    *dgid = grh->dgid;
    *tclass = (uint8_t)(v >> 20);
    *flow_label = v & 0xfffff;
    return 0;
}

EMU_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
                                   struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
    struct ibv_port_attr port;
    union ibv_gid sgid, dgid, gid;
    uint8_t tclass;
    uint32_t flow;

    if (context == NULL || wc == NULL || ah_attr == NULL || !emu_context_is_ours(context)) {
        EMU_LOG_ERR("ibv_init_ah_from_wc: a context of a softmlx5 device, a completion and an "
                    "attribute buffer are needed");
        return EINVAL;
    }
    memset(ah_attr, 0, sizeof(*ah_attr));
    ah_attr->dlid = wc->slid;
    ah_attr->sl = wc->sl;
    ah_attr->src_path_bits = wc->dlid_path_bits;
    ah_attr->port_num = port_num;
    if (!(wc->wc_flags & IBV_WC_GRH))
        return 0; /* InfiniBand without a GRH: the LID is the address */
    if (grh == NULL || ah_grh_parse(grh, &sgid, &dgid, &tclass, &flow) != 0) {
        EMU_LOG_ERR("ibv_init_ah_from_wc: the completion has a GRH but the buffer given holds "
                    "none (pass the receive buffer's first 40 bytes)");
        return EINVAL;
    }
    if (ibv_query_port(context, port_num, &port) != 0) {
        EMU_LOG_ERR("ibv_init_ah_from_wc: port %u does not exist", port_num);
        return EINVAL;
    }
    /* Our GID the datagram was sent to: the source GID of the answer. */
    for (int i = 0; i < port.gid_tbl_len; i++) {
        if (ibv_query_gid(context, port_num, i, &gid) != 0 ||
            memcmp(gid.raw, dgid.raw, sizeof(gid.raw)) != 0)
            continue;
        ah_attr->is_global = 1;
        ah_attr->grh.dgid = sgid;
        ah_attr->grh.sgid_index = (uint8_t)i;
        ah_attr->grh.hop_limit = 0xff;
        ah_attr->grh.traffic_class = tclass;
        ah_attr->grh.flow_label = flow;
        return 0;
    }
    EMU_LOG_ERR("ibv_init_ah_from_wc: the datagram was sent to a GID port %u does not have",
                port_num);
    return ENOENT;
}

EMU_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
                                                struct ibv_grh *grh, uint8_t port_num)
{
    struct ibv_ah_attr attr;
    int err;

    if (pd == NULL) {
        EMU_LOG_ERR("ibv_create_ah_from_wc: no PD");
        errno = EINVAL;
        return NULL;
    }
    err = ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr);
    if (err != 0) {
        errno = err;
        return NULL;
    }
    return ibv_create_ah(pd, &attr);
}
