/* SPDX-License-Identifier: BSD-3-Clause */
/* ALLOC_PD / DEALLOC_PD: protection domains made by DevX, in the same table as ibv_alloc_pd's. */
#include <stdlib.h>

#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/mr.h"
#include "nic/nic.h"
#include "prm/prm_cmd.h"

uint8_t devx_alloc_pd(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    struct emu_nic *nic = c->nic;
    struct emu_pd *pd = calloc(1, sizeof(*pd));
    int64_t index;

    if (pd == NULL)
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    pthread_mutex_lock(&nic->lock);
    index = emu_table_insert(&nic->pds, pd);
    pthread_mutex_unlock(&nic->lock);
    if (index < 0) {
        free(pd);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES,
                         "no free protection domain");
    }
    pd->nic = nic;
    pd->pdn = (uint32_t)index;
    pd->ibv.handle = pd->pdn;
    if (devx_map_set(&d->pds, pd->pdn, pd) != 0) {
        pthread_mutex_lock(&nic->lock);
        emu_table_remove(&nic->pds, pd->pdn);
        pthread_mutex_unlock(&nic->lock);
        free(pd);
        return devx_fail(c, PRM_CMD_STAT_NO_RESOURCES, DEVX_SYND_NO_RESOURCES, "out of memory");
    }
    PRM_SET(c->out, EMU_DEVX_OBJ_ID, pd->pdn);
    return PRM_CMD_STAT_OK;
}

uint8_t devx_dealloc_pd(struct devx_cmd *c)
{
    struct devx_dev *d = devx_dev_of(c->nic);
    struct emu_nic *nic = c->nic;
    uint32_t pdn = (uint32_t)PRM_GET(c->in, EMU_DEVX_OBJ_ID);
    struct emu_pd *pd = devx_map_get(&d->pds, pdn);

    if (pd == NULL)
        return devx_fail(c, PRM_CMD_STAT_BAD_RESOURCE, DEVX_SYND_PD_UNKNOWN,
                         "no protection domain with this number was made by ALLOC_PD");
    pthread_mutex_lock(&nic->lock);
    if (pd->users != 0) {
        pthread_mutex_unlock(&nic->lock);
        return devx_fail(c, PRM_CMD_STAT_RESOURCE_BUSY, DEVX_SYND_PD_BUSY,
                         "memory regions or queues still use the protection domain");
    }
    emu_table_remove(&nic->pds, pdn);
    pthread_mutex_unlock(&nic->lock);
    devx_map_remove(&d->pds, pdn);
    free(pd);
    return PRM_CMD_STAT_OK;
}
