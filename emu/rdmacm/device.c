/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The devices the connection manager hands out: every device of softmlx5's
 * libibverbs, opened once for the process (as rdma-core's librdmacm does),
 * with port 1's GID, LID and MTU. An IP address belongs to the device whose
 * GID is that address (RoCE: ::ffff:<IPv4>); an address no device has (a
 * loopback address, or any address on InfiniBand, whose GIDs are not IP
 * addresses) goes to the first device. rdma_get_devices and
 * rdma_free_devices.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

static struct cm_device *cm_devs;
static int cm_ndevs = -1;
static int cm_devs_err;
static pthread_once_t cm_devs_once = PTHREAD_ONCE_INIT;

static int cm_device_open(struct ibv_device *ibdev, struct cm_device *dev)
{
    struct ibv_device_attr dattr;
    struct ibv_port_attr pattr;

    dev->verbs = ibv_open_device(ibdev);
    if (dev->verbs == NULL)
        return -1;
    if (ibv_query_device(dev->verbs, &dattr) != 0 || ibv_query_port(dev->verbs, 1, &pattr) != 0 ||
        ibv_query_gid(dev->verbs, 1, 0, &dev->gid) != 0) {
        ibv_close_device(dev->verbs);
        return -1;
    }
    dev->lid = pattr.lid;
    dev->link_layer = pattr.link_layer;
    dev->mtu = (uint8_t)pattr.active_mtu;
    dev->max_rd_atomic =
            (uint8_t)(dattr.max_qp_init_rd_atom > 255 ? 255 : dattr.max_qp_init_rd_atom);
    dev->max_dest_rd_atomic = (uint8_t)(dattr.max_qp_rd_atom > 255 ? 255 : dattr.max_qp_rd_atom);
    return 0;
}

static void cm_devices_init(void)
{
    struct ibv_device **list;
    int n = 0;

    list = ibv_get_device_list(&n);
    if (list == NULL) {
        cm_devs_err = errno ? errno : ENODEV;
        return;
    }
    cm_devs = calloc(n > 0 ? (size_t)n : 1, sizeof(*cm_devs));
    if (cm_devs == NULL) {
        cm_devs_err = ENOMEM;
        ibv_free_device_list(list);
        return;
    }
    cm_ndevs = 0;
    for (int i = 0; i < n; i++)
        if (cm_device_open(list[i], &cm_devs[cm_ndevs]) == 0)
            cm_ndevs++;
        else
            EMU_LOG_ERR("librdmacm: device %s cannot be opened (%s)", ibv_get_device_name(list[i]),
                        strerror(errno));
    ibv_free_device_list(list);
    if (cm_ndevs == 0)
        cm_devs_err = ENODEV;
}

int cm_devices_open(void)
{
    pthread_once(&cm_devs_once, cm_devices_init);
    if (cm_ndevs <= 0) {
        errno = cm_devs_err;
        return -1;
    }
    return 0;
}

int cm_addr_to_gid(const struct sockaddr *addr, union ibv_gid *gid)
{
    memset(gid, 0, sizeof(*gid));
    if (addr->sa_family == AF_INET) {
        gid->raw[10] = 0xff;
        gid->raw[11] = 0xff;
        memcpy(&gid->raw[12], &((const struct sockaddr_in *)addr)->sin_addr, 4);
        return 0;
    }
    if (addr->sa_family == AF_INET6) {
        memcpy(gid->raw, &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);
        return 0;
    }
    return -1;
}

struct cm_device *cm_device_of_addr(const struct sockaddr *addr)
{
    union ibv_gid gid;

    if (cm_devices_open() != 0)
        return NULL;
    if (cm_addr_to_gid(addr, &gid) == 0)
        for (int i = 0; i < cm_ndevs; i++)
            if (memcmp(cm_devs[i].gid.raw, gid.raw, 16) == 0)
                return &cm_devs[i];
    return &cm_devs[0];
}

void cm_id_set_device(struct cm_id *id, struct cm_device *dev)
{
    id->dev = dev;
    id->pub.verbs = dev->verbs;
    id->pub.port_num = 1;
    id->pub.route.addr.addr.ibaddr.sgid = dev->gid;
    id->pub.route.addr.addr.ibaddr.pkey = htons(0xffff);
    id->local.gid = dev->gid;
    id->local.lid = dev->lid;
    id->local.link_layer = dev->link_layer;
    id->local.mtu = dev->mtu;
}

CM_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
    struct ibv_context **list;

    if (cm_devices_open() != 0) {
        CM_REFUSE(errno, "no softmlx5 device can be opened");
        if (num_devices != NULL)
            *num_devices = 0;
        return NULL;
    }
    list = calloc((size_t)cm_ndevs + 1, sizeof(*list));
    if (list == NULL) {
        CM_REFUSE(ENOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < cm_ndevs; i++)
        list[i] = cm_devs[i].verbs;
    if (num_devices != NULL)
        *num_devices = cm_ndevs;
    return list;
}

CM_EXPORT void rdma_free_devices(struct ibv_context **list)
{
    free(list);
}
