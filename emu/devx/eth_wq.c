/* SPDX-License-Identifier: BSD-3-Clause */
/* The rings and doorbell records of raw Ethernet SQs and RQs (PRM wq context), in umems. */
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/eth.h"
#include "nic/umem.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

#define DEVX_DBREC_SIZE 8

uint8_t devx_eth_wq_umems(struct devx_cmd *c, const void *wq, uint64_t ring_len,
                          struct emu_eth_ring *r, struct emu_umem **ring_umem,
                          struct emu_umem **dbr_umem)
{
    uint32_t ring_id = (uint32_t)PRM_GET(wq, PRM_WQ_WQ_UMEM_ID);
    uint64_t ring_off = PRM_GET(wq, PRM_WQ_WQ_UMEM_OFFSET);
    uint32_t dbr_id = PRM_GET(wq, PRM_WQ_DBR_UMEM_VALID) ? (uint32_t)PRM_GET(wq, PRM_WQ_DBR_UMEM_ID)
                                                         : ring_id;
    uint64_t dbr_off = PRM_GET(wq, PRM_WQ_DBR_ADDR);
    enum emu_umem_check k;

    if (!PRM_GET(wq, PRM_WQ_WQ_UMEM_VALID))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_UMEM_INVALID,
                         "wq_umem_valid is 0: the ring must be in a umem (no page lists)");
    if (dbr_off % DEVX_DBREC_SIZE != 0)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_DBR_ALIGN,
                         "dbr_addr is not 8-byte aligned");
    k = emu_umem_get(c->nic, ring_id, ring_off, ring_len, &r->ring, &r->ring_gpu, ring_umem);
    if (k == EMU_UMEM_BAD_ID)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_UMEM_ID,
                         "wq_umem_id names no registered umem");
    if (k != EMU_UMEM_OK)
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_UMEM_RANGE,
                         "the ring (wq_umem_offset + stride << log_wq_sz) overflows its umem");
    k = emu_umem_get(c->nic, dbr_id, dbr_off, DEVX_DBREC_SIZE, &r->dbrec, &r->dbrec_gpu, dbr_umem);
    if (k != EMU_UMEM_OK) {
        emu_umem_put(*ring_umem);
        if (k == EMU_UMEM_BAD_ID)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_DBR_UMEM_ID,
                             "dbr_umem_id names no registered umem");
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_DBR_RANGE,
                         "the doorbell record (dbr_addr + 8) overflows its umem");
    }
    return PRM_CMD_STAT_OK;
}
