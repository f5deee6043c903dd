/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_get_srq_num: an SRQ's number, which a DC initiator's peer (perftest
 * -c DC exchanges it) and XRC senders name.
 */
#include <errno.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "nic/srq.h"

int emu_verbs_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
    if (ibsrq == NULL || srq_num == NULL || !emu_context_is_ours(ibsrq->context)) {
        EMU_LOG_ERR("ibv_get_srq_num: %p is not an SRQ of a softmlx5 device", (void *)ibsrq);
        return EINVAL;
    }
    *srq_num = ((const struct emu_srq *)ibsrq)->srqn;
    return 0;
}
