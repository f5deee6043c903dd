/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ALLOC_Q_COUNTER / QUERY_Q_COUNTER / DEALLOC_Q_COUNTER (out_of_buffer:
 * frames an RQ naming the counter dropped for want of a receive WQE) and
 * QUERY_NIC_VPORT_CONTEXT: the port's permanent address (the attached
 * interface's MAC, else one made from the node GUID) and its MTU as mlx5
 * firmware reports it (the interface's MTU + 22: Ethernet header, one VLAN
 * tag and the FCS).
 */
#include <string.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/caps.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"
#include "prm/prm_vport.h"

#define DEVX_VPORT_MTU_OVERHEAD 22 /* 14 (Ethernet) + 4 (VLAN) + 4 (FCS) */

uint8_t devx_alloc_q_counter(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t id = 0;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    for (uint32_t i = 1; i <= EMU_ETH_MAX_QCOUNTERS && id == 0; i++)
        if (!d->qcounter_used[i])
            id = i;
    if (id != 0) {
        d->qcounter_used[id] = true;
        __atomic_store_n(&d->qcounters[id], 0, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&d->lock);
    if (id == 0)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "all Q counters are allocated");
    PRM_SET(c->out, PRM_ALLOC_Q_COUNTER_OUT_COUNTER_SET_ID, id);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_dealloc_q_counter(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t id = (uint32_t)PRM_GET(c->in, PRM_DEALLOC_Q_COUNTER_IN_COUNTER_SET_ID);
    uint8_t status = PRM_CMD_STAT_OK;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    if (id == 0 || !d->qcounter_used[id])
        status = devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_QCOUNTER_UNKNOWN,
                           "no Q counter with this id was made by ALLOC_Q_COUNTER");
    else
        d->qcounter_used[id] = false;
    pthread_mutex_unlock(&d->lock);
    return status;
}

uint8_t devx_query_q_counter(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t id = (uint32_t)PRM_GET(c->in, PRM_QUERY_Q_COUNTER_IN_COUNTER_SET_ID);
    uint64_t v;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    if (id == 0 || !d->qcounter_used[id]) {
        pthread_mutex_unlock(&d->lock);
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_QCOUNTER_UNKNOWN,
                         "no Q counter with this id was made by ALLOC_Q_COUNTER");
    }
    if (PRM_GET(c->in, PRM_QUERY_Q_COUNTER_IN_CLEAR))
        v = __atomic_exchange_n(&d->qcounters[id], 0, __ATOMIC_RELAXED);
    else
        v = __atomic_load_n(&d->qcounters[id], __ATOMIC_RELAXED);
    pthread_mutex_unlock(&d->lock);
    PRM_SET(c->out, PRM_QUERY_Q_COUNTER_OUT_OUT_OF_BUFFER, (uint32_t)v);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_query_nic_vport(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    void *ctx = devx_out_at(c, PRM_QUERY_NIC_VPORT_CONTEXT_OUT_CTX);
    uint8_t mac[PRM_MAC_LEN];
    uint32_t mtu = EMU_MTU_BYTES;

    if (PRM_GET(c->in, PRM_QUERY_NIC_VPORT_CONTEXT_IN_OTHER_VPORT))
        return devx_fail(c, PRM_CMD_STAT_BAD_PARAM, DEVX_SYND_ETH_VPORT,
                         "other_vport: the device has no other vports");
    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    if (d->attached) {
        memcpy(mac, d->mac, sizeof(mac));
        mtu = d->mtu;
    } else {
        /* A locally administered unicast address from the GUID's low bytes. */
        mac[0] = 0x02;
        for (int i = 1; i < PRM_MAC_LEN; i++)
            mac[i] = (uint8_t)(c->nic->node_guid >> (8 * (PRM_MAC_LEN - 1 - i)));
    }
    pthread_mutex_unlock(&d->lock);
    PRM_SET(ctx, PRM_NIC_VPORT_CTX_MTU, mtu + DEVX_VPORT_MTU_OVERHEAD);
    PRM_SET(ctx, PRM_NIC_VPORT_CTX_ROCE_EN, c->nic->link == EMU_LINK_ETH);
    PRM_SET(ctx, PRM_NIC_VPORT_CTX_NODE_GUID, c->nic->node_guid);
    PRM_SET(ctx, PRM_NIC_VPORT_CTX_PORT_GUID, c->nic->node_guid);
    PRM_SET(ctx, PRM_NIC_VPORT_CTX_SYSTEM_IMAGE_GUID, c->nic->node_guid);
    memcpy((uint8_t *)ctx + PRM_NIC_VPORT_CTX_PERMANENT_ADDRESS_BYTES, mac, sizeof(mac));
    return PRM_CMD_STAT_OK;
}
