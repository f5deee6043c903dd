/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles: kept as given, and made into the address vector of a UD
 * send WQE's datagram segment (RC and UC QPs take their path from
 * ibv_modify_qp).
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
