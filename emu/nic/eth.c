/* SPDX-License-Identifier: BSD-3-Clause */
/* The raw Ethernet objects' tables (eth.h): numbers, lookups, transport domain references. */
#include "eth.h"

#include <stdlib.h>
#include <string.h>

#include "nic/nic.h"

static void eth_dev_init(void *part)
{
    struct eth_dev *d = part;

    pthread_mutex_init(&d->lock, NULL);
    emu_table_init(&d->wqs, EMU_ETH_WQ_MAX, EMU_ETH_WQ_FIRST);
    emu_table_init(&d->tirs, 1u << EMU_ETH_LOG_MAX_OBJ, 1);
    emu_table_init(&d->tiss, 1u << EMU_ETH_LOG_MAX_OBJ, 1);
    emu_table_init(&d->rqts, 1u << EMU_ETH_LOG_MAX_OBJ, 1);
    emu_table_init(&d->tds, 1u << 10, 1);
}

struct eth_dev *emu_eth_dev(struct emu_nic *nic)
{
    return emu_nic_part((void **)&nic->eth, sizeof(struct eth_dev), eth_dev_init);
}

/* The table index of an SQ or RQ number of this device, or 0 when it is not one. */
static uint32_t eth_wq_index(struct emu_nic *nic, uint32_t num)
{
    uint32_t index = num & EMU_OBJ_INDEX_MASK;

    if ((num >> EMU_OBJ_INDEX_BITS) != nic->endpoint_id || index < EMU_ETH_WQ_FIRST)
        return 0;
    return index;
}

struct emu_eth_sq *emu_eth_sq_find(struct eth_dev *d, struct emu_nic *nic, uint32_t sqn)
{
    uint32_t index = eth_wq_index(nic, sqn);

    if (index == 0 || d->wq_is_sq == NULL || !d->wq_is_sq[index])
        return NULL;
    return emu_table_get(&d->wqs, index);
}

struct emu_eth_rq *emu_eth_rq_find(struct eth_dev *d, struct emu_nic *nic, uint32_t rqn)
{
    uint32_t index = eth_wq_index(nic, rqn);

    if (index == 0 || d->wq_is_sq == NULL || d->wq_is_sq[index])
        return NULL;
    return emu_table_get(&d->wqs, index);
}

struct emu_eth_tir *emu_eth_tir_find(struct eth_dev *d, uint32_t tirn)
{
    return tirn == 0 ? NULL : emu_table_get(&d->tirs, tirn);
}

struct emu_eth_tis *emu_eth_tis_find(struct eth_dev *d, uint32_t tisn)
{
    return tisn == 0 ? NULL : emu_table_get(&d->tiss, tisn);
}

struct emu_eth_rqt *emu_eth_rqt_find(struct eth_dev *d, uint32_t rqtn)
{
    return rqtn == 0 ? NULL : emu_table_get(&d->rqts, rqtn);
}

bool emu_eth_td_valid(struct eth_dev *d, uint32_t td)
{
    return td != 0 && emu_table_get(&d->tds, td) != NULL;
}

uint32_t emu_eth_wq_insert(struct eth_dev *d, struct emu_nic *nic, void *wq, bool is_sq)
{
    int64_t index;

    if (d->wq_is_sq == NULL &&
        (d->wq_is_sq = calloc(EMU_ETH_WQ_FIRST + EMU_ETH_WQ_MAX, sizeof(bool))) == NULL)
        return 0;
    index = emu_table_insert(&d->wqs, wq);
    if (index < 0)
        return 0;
    d->wq_is_sq[index] = is_sq;
    return emu_nic_obj_num(nic, (uint32_t)index);
}

void emu_eth_wq_remove(struct eth_dev *d, uint32_t num)
{
    uint32_t index = num & EMU_OBJ_INDEX_MASK;

    emu_table_remove(&d->wqs, index);
}

void emu_eth_td_ref(struct eth_dev *d, uint32_t td, int delta)
{
    if (td >= d->td_refs_cap) {
        uint32_t cap = td + 64;
        int *refs = realloc(d->td_refs, cap * sizeof(int));

        if (refs == NULL)
            return;
        memset(refs + d->td_refs_cap, 0, (cap - d->td_refs_cap) * sizeof(int));
        d->td_refs = refs;
        d->td_refs_cap = cap;
    }
    d->td_refs[td] += delta;
}

int emu_eth_td_refs(struct eth_dev *d, uint32_t td)
{
    return td < d->td_refs_cap ? d->td_refs[td] : 0;
}

uint64_t emu_eth_port_counter(struct ibv_device *device, int which)
{
    struct emu_nic *nic;
    struct eth_dev *d;

    if (device == NULL || !emu_nic_owns_device(device) || which < 0 ||
        which >= EMU_ETH_COUNTER_COUNT)
        return 0;
    nic = emu_nic_of(device);
    d = __atomic_load_n(&nic->eth, __ATOMIC_ACQUIRE);
    return d != NULL ? __atomic_load_n(&d->counters[which], __ATOMIC_RELAXED) : 0;
}
