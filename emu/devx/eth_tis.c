/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ALLOC_TRANSPORT_DOMAIN / DEALLOC_TRANSPORT_DOMAIN and CREATE_TIS /
 * DESTROY_TIS (nic/eth.h). A TIS only ties SQs to a domain here: one port,
 * no LAG, no priorities to schedule.
 */
#include <stdlib.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/eth.h"
#include "nic/nic.h"
#include "prm/prm_cmd.h"
#include "prm/prm_eth.h"

/* A domain's table slot holds this marker; its references are counted apart. */
static int devx_td_marker;

uint8_t devx_alloc_td(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    int64_t index;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    index = emu_table_insert(&d->tds, &devx_td_marker);
    pthread_mutex_unlock(&d->lock);
    if (index < 0)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "the device has no free transport domain");
    PRM_SET(c->out, PRM_ALLOC_TRANSPORT_DOMAIN_OUT_TD, (uint32_t)index);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_dealloc_td(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t td = (uint32_t)PRM_GET(c->in, PRM_DEALLOC_TRANSPORT_DOMAIN_IN_TD);
    uint8_t status = PRM_CMD_STAT_OK;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    if (!emu_eth_td_valid(d, td))
        status = devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TD_UNKNOWN,
                           "no transport domain with this number was allocated");
    else if (emu_eth_td_refs(d, td) != 0)
        status = devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_ETH_BUSY,
                           "TIRs or TISes still belong to this domain; destroy them first");
    else
        emu_table_remove(&d->tds, td);
    pthread_mutex_unlock(&d->lock);
    return status;
}

uint8_t devx_create_tis(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    const void *tisc = devx_in_at(c, PRM_CREATE_TIS_IN_TISC);
    struct emu_eth_tis *t;
    int64_t index = -1;
    bool td_ok;

    if (d == NULL || (t = calloc(1, sizeof(*t))) == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    t->td = (uint32_t)PRM_GET(tisc, PRM_TISC_TRANSPORT_DOMAIN);
    pthread_mutex_lock(&d->lock);
    td_ok = emu_eth_td_valid(d, t->td);
    if (td_ok)
        index = emu_table_insert(&d->tiss, t);
    if (index >= 0) {
        t->tisn = (uint32_t)index;
        emu_eth_td_ref(d, t->td, 1);
    }
    pthread_mutex_unlock(&d->lock);
    if (index < 0) {
        free(t);
        if (!td_ok)
            return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TD,
                             "transport_domain names no domain made by ALLOC_TRANSPORT_DOMAIN");
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "the device has no free TIS");
    }
    PRM_SET(c->out, PRM_CREATE_TIS_OUT_TISN, t->tisn);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_destroy_tis(struct devx_cmd *c)
{
    struct eth_dev *d = emu_eth_dev(c->nic);
    uint32_t tisn = (uint32_t)PRM_GET(c->in, PRM_DESTROY_TIS_IN_TISN);
    struct emu_eth_tis *t;

    if (d == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&d->lock);
    t = emu_eth_tis_find(d, tisn);
    if (t == NULL || t->refs != 0) {
        pthread_mutex_unlock(&d->lock);
        return t == NULL ? devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_ETH_TIS_UNKNOWN,
                                     "no TIS with this number was made by CREATE_TIS")
                         : devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_ETH_BUSY,
                                     "SQs still send through this TIS; destroy them first");
    }
    emu_eth_td_ref(d, t->td, -1);
    emu_table_remove(&d->tiss, tisn);
    pthread_mutex_unlock(&d->lock);
    free(t);
    return PRM_CMD_STAT_OK;
}
