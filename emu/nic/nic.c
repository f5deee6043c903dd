/* SPDX-License-Identifier: BSD-3-Clause */
#include "nic.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/emu_log.h"
#include "nic/caps.h"
#include "wire/wire.h"

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
    emu_table_init(&nic->pds, 1u << EMU_LOG_MAX_PD, 1);
    emu_table_init(&nic->cqs, 1u << EMU_LOG_MAX_CQ, 1);
    emu_table_init(&nic->qps, 1u << EMU_LOG_MAX_QP, 1);
    emu_table_init(&nic->srqs, 1u << EMU_LOG_MAX_SRQ, 1);
    /* mkey index 0 is never used, so key 0 (a common uninitialised value) never matches. */
    emu_table_init(&nic->mkeys, 1u << EMU_LOG_MAX_MKEY, 1);
}

/*
 * The child of fork() gets a copy of the devices without their progress
 * threads and with the parent's endpoint. As with rdma-core, what the parent
 * opened is not the child's to use; devices the child opens are new ones,
 * with endpoints of their own.
 */
static void nics_after_fork_in_child(void)
{
    const struct emu_config *cfg = emu_config_get();

    for (int i = 0; i < cfg->device_count; i++) {
        if (nics[i].wire != NULL)
            emu_wire_abandon(nics[i].wire);
        nic_init_one(&nics[i], i, cfg);
    }
}

static void nics_init(void)
{
    const struct emu_config *cfg = emu_config_get();

    for (int i = 0; i < cfg->device_count; i++)
        nic_init_one(&nics[i], i, cfg);
    pthread_atfork(NULL, NULL, nics_after_fork_in_child);
}

struct emu_nic *emu_nic_get(int index)
{
    pthread_once(&nics_once, nics_init);
    if (index < 0 || index >= emu_config_get()->device_count)
        return NULL;
    return &nics[index];
}

int emu_nic_open(struct emu_nic *nic)
{
    int err = 0;

    pthread_mutex_lock(&nic->lock);
    if (nic->open_contexts == 0 && nic->wire == NULL)
        err = emu_wire_start(nic);
    if (err == 0)
        nic->open_contexts++;
    pthread_mutex_unlock(&nic->lock);
    return err;
}

void emu_nic_close(struct emu_nic *nic)
{
    pthread_mutex_lock(&nic->lock);
    nic->open_contexts--;
    pthread_mutex_unlock(&nic->lock);
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
