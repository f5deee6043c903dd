/* SPDX-License-Identifier: BSD-3-Clause */
/* libibverbs entry points: device list, contexts, device, port and GID queries. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/context.h"
#include "nic/async_event.h"
#include "engine/engine.h"
#include "common/emu_log.h"
#include "nic/caps.h"
#include "nic/nic.h"

#define EMU_EXPORT __attribute__((visibility("default")))

/* rdma-core's sysfs GID type values, used by ibv_query_gid_type. */
enum emu_gid_type_sysfs {
    EMU_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
    EMU_GID_TYPE_SYSFS_ROCE_V2 = 1,
};

EMU_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
    int count = emu_config_get()->device_count;
    struct ibv_device **list = calloc((size_t)count + 1, sizeof(*list));

    if (list == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    for (int i = 0; i < count; i++)
        list[i] = &emu_nic_get(i)->ibdev;
    if (num_devices != NULL)
        *num_devices = count;
    return list;
}

EMU_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
    free(list);
}

EMU_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
    return device != NULL ? device->name : NULL;
}

EMU_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
    if (device == NULL || !emu_nic_owns_device(device)) {
        errno = EINVAL;
        return 0;
    }
    return htobe64(emu_nic_of(device)->node_guid);
}

EMU_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
    if (device == NULL || !emu_nic_owns_device(device))
        return -1;
    return emu_nic_of(device)->index;
}

EMU_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
    struct emu_context *ectx;
    struct ibv_context *ctx;
    int err;

    if (device == NULL || !emu_nic_owns_device(device)) {
        EMU_LOG_ERR("ibv_open_device: %p is not a device from ibv_get_device_list", device);
        errno = EINVAL;
        return NULL;
    }
    ectx = calloc(1, sizeof(*ectx));
    if (ectx == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    ectx->nic = emu_nic_of(device);
    err = emu_engine_open(ectx->nic);
    if (err != 0) {
        free(ectx);
        errno = err;
        return NULL;
    }
    ctx = &ectx->vctx.context;
    ctx->device = device;
    ctx->cmd_fd = -1;
    /* The device's asynchronous events for this context (nic/async_event.c). */
    ctx->async_fd = emu_async_open(ectx->nic, ctx);
    ctx->num_comp_vectors = 1;
    pthread_mutex_init(&ctx->mutex, NULL);
    ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
    ectx->vctx.sz = sizeof(ectx->vctx);
    emu_context_ops_init(ectx);
    return ctx;
}

EMU_EXPORT int ibv_close_device(struct ibv_context *context)
{
    struct emu_context *ectx;

    if (context == NULL || !emu_context_is_ours(context))
        return EINVAL;
    ectx = emu_context_of(context);
    emu_async_close(ectx->nic, context);
    pthread_mutex_destroy(&context->mutex);
    free(ectx);
    return 0;
}

int emu_context_is_ours(struct ibv_context *ctx)
{
    return ctx->abi_compat == __VERBS_ABI_IS_EXTENDED && emu_nic_owns_device(ctx->device);
}

static void emu_fill_device_attr(const struct emu_nic *nic, struct ibv_device_attr *attr)
{
    memset(attr, 0, sizeof(*attr));
    snprintf(attr->fw_ver, sizeof(attr->fw_ver), "%s", EMU_FW_VERSION);
    attr->node_guid = htobe64(nic->node_guid);
    attr->sys_image_guid = htobe64(nic->node_guid);
    attr->max_mr_size = 1ULL << 40;
    attr->page_size_cap = ~((1ULL << EMU_LOG_PAGE_SIZE) - 1);
    attr->vendor_id = EMU_VENDOR_ID;
    attr->vendor_part_id = EMU_VENDOR_PART_ID;
    attr->hw_ver = EMU_HW_VERSION;
    attr->max_qp = 1 << EMU_LOG_MAX_QP;
    attr->max_qp_wr = 1 << EMU_LOG_MAX_QP_SZ;
    attr->device_cap_flags = IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |
                             IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT |
                             IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN |
                             IBV_DEVICE_SRQ_RESIZE | IBV_DEVICE_N_NOTIFY_CQ | IBV_DEVICE_XRC;
    attr->max_sge = EMU_MAX_SGE;
    attr->max_sge_rd = EMU_MAX_SGE;
    attr->max_cq = 1 << EMU_LOG_MAX_CQ;
    attr->max_cqe = (1 << EMU_LOG_MAX_CQ_SZ) - 1;
    attr->max_mr = 1 << EMU_LOG_MAX_MKEY;
    attr->max_pd = 1 << EMU_LOG_MAX_PD;
    attr->max_qp_rd_atom = 1 << EMU_LOG_MAX_RA_QP;
    attr->max_qp_init_rd_atom = 1 << EMU_LOG_MAX_RA_QP;
    attr->max_res_rd_atom = attr->max_qp * attr->max_qp_rd_atom;
    attr->atomic_cap = IBV_ATOMIC_HCA;
    attr->max_ah = EMU_MAX_AH;
    attr->max_srq = 1 << EMU_LOG_MAX_SRQ;
    attr->max_srq_wr = (1 << EMU_LOG_MAX_SRQ_SZ) - 1;
    attr->max_srq_sge = EMU_MAX_SRQ_SGE;
    attr->max_pkeys = EMU_MAX_PKEYS;
    attr->local_ca_ack_delay = 16;
    attr->phys_port_cnt = (uint8_t)nic->port_count;
}

EMU_EXPORT int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
    if (context == NULL || device_attr == NULL || !emu_context_is_ours(context))
        return EINVAL;
    emu_fill_device_attr(emu_nic_of_ctx(context), device_attr);
    return 0;
}

/* The extended query: the base attributes plus zeroed extensions, up to attr_size. */
static int emu_query_device_ex(struct ibv_context *context,
                               const struct ibv_query_device_ex_input *input,
                               struct ibv_device_attr_ex *attr, size_t attr_size)
{
    struct ibv_device_attr_ex full;

    if (input != NULL && input->comp_mask != 0)
        return EINVAL;
    if (attr_size < sizeof(attr->orig_attr))
        return EINVAL;
    memset(&full, 0, sizeof(full));
    emu_fill_device_attr(emu_nic_of_ctx(context), &full.orig_attr);
    full.max_dm_size = 0;
    full.phys_port_cnt_ex = (uint32_t)emu_nic_of_ctx(context)->port_count;
    memcpy(attr, &full, attr_size < sizeof(full) ? attr_size : sizeof(full));
    if (attr_size > sizeof(full))
        memset((char *)attr + sizeof(full), 0, attr_size - sizeof(full));
    return 0;
}

static bool emu_port_valid(struct ibv_context *context, uint8_t port)
{
    return port >= 1 && port <= emu_nic_of_ctx(context)->port_count;
}

int emu_query_port_attr(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
                        size_t size)
{
    struct ibv_port_attr full;
    const struct emu_nic *nic;

    if (context == NULL || attr == NULL || !emu_context_is_ours(context))
        return EINVAL;
    if (!emu_port_valid(context, port)) {
        EMU_LOG_ERR("query_port: port %u does not exist (the device has %d)", port,
                    emu_nic_of_ctx(context)->port_count);
        return EINVAL;
    }
    nic = emu_nic_of_ctx(context);
    memset(&full, 0, sizeof(full));
    full.state =
            __atomic_load_n(&nic->port_down, __ATOMIC_RELAXED) ? IBV_PORT_DOWN : IBV_PORT_ACTIVE;
    full.max_mtu = IBV_MTU_4096;
    full.active_mtu = IBV_MTU_4096;
    full.gid_tbl_len = EMU_GID_TABLE_LEN;
    full.max_msg_sz = 1u << EMU_LOG_MAX_MSG;
    full.pkey_tbl_len = 1;
    full.max_vl_num = 4;
    full.active_width = 2;  /* 4x */
    full.active_speed = 64; /* NDR-class */
    full.phys_state = 5;    /* LinkUp */
    if (nic->link == EMU_LINK_ETH) {
        full.link_layer = IBV_LINK_LAYER_ETHERNET;
        full.port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
    } else {
        full.link_layer = IBV_LINK_LAYER_INFINIBAND;
        full.lid = nic->endpoint_id;
        full.sm_lid = 1;
        full.port_cap_flags = IBV_PORT_CM_SUP;
    }
    memcpy(attr, &full, size < sizeof(full) ? size : sizeof(full));
    return 0;
}

static int emu_query_port_op(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
                             size_t size)
{
    return emu_query_port_attr(context, port, attr, size);
}

/* Binaries built before the extended query_port pass the older, shorter structure. */
EMU_EXPORT int(ibv_query_port)(struct ibv_context *context, uint8_t port_num,
                               struct _compat_ibv_port_attr *port_attr)
{
    return emu_query_port_attr(context, port_num, (struct ibv_port_attr *)port_attr,
                               offsetof(struct ibv_port_attr, flags));
}

static int emu_gid_lookup(struct ibv_context *context, uint32_t port, uint32_t index,
                          union ibv_gid *gid)
{
    if (context == NULL || gid == NULL || !emu_context_is_ours(context) ||
        !emu_port_valid(context, (uint8_t)port) || index >= EMU_GID_TABLE_LEN)
        return EINVAL;
    emu_nic_gid(emu_nic_of_ctx(context), gid);
    return 0;
}

EMU_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
                             union ibv_gid *gid)
{
    int err = index < 0 ? EINVAL : emu_gid_lookup(context, port_num, (uint32_t)index, gid);

    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

static uint32_t emu_gid_type(struct ibv_context *context)
{
    return emu_nic_of_ctx(context)->link == EMU_LINK_ETH ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_IB;
}

EMU_EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
                                 struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
    struct ibv_gid_entry full;
    int err;

    if (flags != 0 || entry == NULL)
        return EINVAL;
    memset(&full, 0, sizeof(full));
    err = emu_gid_lookup(context, port_num, gid_index, &full.gid);
    if (err)
        return err;
    full.gid_index = gid_index;
    full.port_num = port_num;
    full.gid_type = emu_gid_type(context);
    memcpy(entry, &full, entry_size < sizeof(full) ? entry_size : sizeof(full));
    return 0;
}

EMU_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
                                        size_t max_entries, uint32_t flags, size_t entry_size)
{
    ssize_t n = 0;

    if (context == NULL || !emu_context_is_ours(context) || flags != 0 || entries == NULL ||
        entry_size == 0)
        return -EINVAL;
    for (int port = 1; port <= emu_nic_of_ctx(context)->port_count; port++) {
        for (uint32_t i = 0; i < EMU_GID_TABLE_LEN; i++) {
            if ((size_t)n >= max_entries)
                return -EINVAL;
            _ibv_query_gid_ex(context, (uint32_t)port, i,
                              (struct ibv_gid_entry *)((char *)entries + (size_t)n * entry_size), 0,
                              entry_size);
            n++;
        }
    }
    return n;
}

/* Not in the public headers: rdma-core exports it for its own tools. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
                       enum emu_gid_type_sysfs *type);

EMU_EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
                                  enum emu_gid_type_sysfs *type)
{
    union ibv_gid gid;

    if (type == NULL || emu_gid_lookup(context, port_num, index, &gid) != 0) {
        errno = EINVAL;
        return -1;
    }
    *type = emu_nic_of_ctx(context)->link == EMU_LINK_ETH ? EMU_GID_TYPE_SYSFS_ROCE_V2
                                                          : EMU_GID_TYPE_SYSFS_IB_ROCE_V1;
    return 0;
}

/* One partition key, the default full-membership key 0xffff. */
EMU_EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
                              __be16 *pkey)
{
    if (context == NULL || pkey == NULL || !emu_context_is_ours(context) ||
        !emu_port_valid(context, port_num) || index != 0) {
        errno = EINVAL;
        return -1;
    }
    *pkey = htobe16(0xffff);
    return 0;
}

EMU_EXPORT int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
    if (context == NULL || !emu_context_is_ours(context) || !emu_port_valid(context, port_num))
        return -EINVAL;
    return (be16toh(pkey) & 0x7fff) == 0x7fff ? 0 : -ENOENT;
}

void emu_device_ops_init(struct emu_context *ectx)
{
    ectx->vctx.query_port = emu_query_port_op;
    ectx->vctx.query_device_ex = emu_query_device_ex;
}

/*
 * Exported for tests and demos: the device's ports reported down (up = 0)
 * or active again, with the PORT_ERR / PORT_ACTIVE event ConnectX raises to
 * every context. Only the reported state changes: traffic is not stopped.
 * 0, or EINVAL for a device that is not softmlx5's.
 */
EMU_EXPORT int emu_port_set_state(struct ibv_device *device, int up);
EMU_EXPORT int emu_port_set_state(struct ibv_device *device, int up)
{
    struct emu_nic *nic;
    bool down = up == 0;

    if (device == NULL || !emu_nic_owns_device(device))
        return EINVAL;
    nic = emu_nic_of(device);
    if (__atomic_exchange_n(&nic->port_down, down, __ATOMIC_RELAXED) == down)
        return 0;
    for (int port = 1; port <= nic->port_count; port++)
        emu_async_raise_port(nic, down ? IBV_EVENT_PORT_ERR : IBV_EVENT_PORT_ACTIVE, port);
    return 0;
}
