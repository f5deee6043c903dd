/* SPDX-License-Identifier: BSD-3-Clause */
#include "nic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "nic/caps.h"

/* CQ, QP and SRQ indices live in the low EMU_OBJ_INDEX_BITS of their numbers. */
_Static_assert(EMU_LOG_MAX_CQ <= EMU_OBJ_INDEX_BITS && EMU_LOG_MAX_QP <= EMU_OBJ_INDEX_BITS &&
                       EMU_LOG_MAX_SRQ <= EMU_OBJ_INDEX_BITS,
               "CQ, QP and SRQ tables fit the index bits of their numbers");

static struct emu_nic nics[EMU_MAX_DEVICES];
static pthread_once_t nics_once = PTHREAD_ONCE_INIT;

static void nic_init_one(struct emu_nic *nic, int index, const struct emu_config *cfg)
{
    struct ibv_device *dev = &nic->ibdev;

    memset(nic, 0, sizeof(*nic));
    nic->index = index;
    nic->ipv4 = cfg->ipv4;
    nic->link = cfg->link;
    nic->port_count = cfg->port_count;
    /* OUI, then the address and the device index: distinct per host and device. */
    nic->node_guid =
            (EMU_GUID_OUI << 40) | ((uint64_t)(cfg->ipv4 & 0xffffff) << 8) | (uint64_t)index;

    dev->node_type = IBV_NODE_CA;
    dev->transport_type = IBV_TRANSPORT_IB;
    snprintf(dev->name, sizeof(dev->name), "%s", cfg->names[index]);
    snprintf(dev->dev_name, sizeof(dev->dev_name), "uverbs%d", index);
    snprintf(dev->dev_path, sizeof(dev->dev_path), "/sys/class/infiniband_verbs/uverbs%d", index);
    snprintf(dev->ibdev_path, sizeof(dev->ibdev_path), "/sys/class/infiniband/%s",
             cfg->names[index]);

    pthread_mutex_init(&nic->lock, NULL);
    pthread_rwlock_init(&nic->mkey_lock, NULL);
    pthread_mutex_init(&nic->mkey_idle_lock, NULL);
    pthread_cond_init(&nic->mkey_idle, NULL);
    /*
     * Exactly the counts caps.h advertises (ibv_query_device and QUERY_HCA_CAP).
     * CQ, QP and SRQ numbers are (endpoint id << 16) | index, never 0 with the
     * id at least 1, so their 65,536 indices are all used. PD numbers and mkey
     * indices start at 1, so that 0 (a common uninitialised value) names
     * nothing: PDs and XRC domains 1..65536, mkeys (1..65536) << 8.
     */
    emu_table_init(&nic->pds, 1u << EMU_LOG_MAX_PD, 1);
    emu_table_init(&nic->cqs, 1u << EMU_LOG_MAX_CQ, 0);
    emu_table_init(&nic->qps, 1u << EMU_LOG_MAX_QP, 0);
    emu_table_init(&nic->srqs, 1u << EMU_LOG_MAX_SRQ, 0);
    emu_table_init(&nic->xrcds, 1u << EMU_LOG_MAX_XRCD, 1);
    emu_table_init(&nic->mkeys, 1u << EMU_LOG_MAX_MKEY, 1);
}

void *emu_nic_part(void **slot, size_t size, void (*init)(void *part))
{
    static pthread_mutex_t part_lock = PTHREAD_MUTEX_INITIALIZER;
    void *part = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

    if (part != NULL)
        return part;
    pthread_mutex_lock(&part_lock);
    part = *slot;
    if (part == NULL && (part = calloc(1, size)) != NULL) {
        init(part);
        __atomic_store_n(slot, part, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&part_lock);
    return part;
}

void emu_nic_reset(struct emu_nic *nic)
{
    nic_init_one(nic, nic->index, emu_config_get());
}

static void nics_init(void)
{
    const struct emu_config *cfg = emu_config_get();

    for (int i = 0; i < cfg->device_count; i++)
        nic_init_one(&nics[i], i, cfg);
}

struct emu_nic *emu_nic_get(int index)
{
    pthread_once(&nics_once, nics_init);
    if (index < 0 || index >= emu_config_get()->device_count)
        return NULL;
    return &nics[index];
}

void emu_nic_gid(const struct emu_nic *nic, union ibv_gid *gid)
{
    memset(gid, 0, sizeof(*gid));
    if (nic->link == EMU_LINK_ETH) {
        /* IPv4-mapped IPv6 address, as RoCE v2 GIDs are. */
        gid->raw[10] = 0xff;
        gid->raw[11] = 0xff;
        gid->raw[12] = (uint8_t)(nic->ipv4 >> 24);
        gid->raw[13] = (uint8_t)(nic->ipv4 >> 16);
        gid->raw[14] = (uint8_t)(nic->ipv4 >> 8);
        gid->raw[15] = (uint8_t)nic->ipv4;
        return;
    }
    /* Link-local subnet prefix and the port GUID. */
    gid->raw[0] = 0xfe;
    gid->raw[1] = 0x80;
    for (int i = 0; i < 8; i++)
        gid->raw[8 + i] = (uint8_t)(nic->node_guid >> (56 - 8 * i));
}

bool emu_nic_owns_device(const struct ibv_device *dev)
{
    pthread_once(&nics_once, nics_init);
    for (int i = 0; i < emu_config_get()->device_count; i++)
        if (dev == &nics[i].ibdev)
            return true;
    return false;
}
