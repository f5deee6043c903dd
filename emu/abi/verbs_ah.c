/* SPDX-License-Identifier: BSD-3-Clause */
/* Address handles: kept as given (RC QPs take their path from ibv_modify_qp; UD is not offered). */
#include <errno.h>
#include <stdlib.h>

#include "abi/context.h"
#include "common/emu_log.h"
#include "nic/mr.h"

#define EMU_EXPORT __attribute__((visibility("default")))

struct emu_ah {
    struct ibv_ah ibv;
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
    ah->attr = *attr;
    return &ah->ibv;
}

EMU_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
    if (ah == NULL)
        return EINVAL;
    free(ah);
    return 0;
}
