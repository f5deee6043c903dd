/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Taking the capability snapshot (doca_gpunetio_cap_snapshot.h): the doca-eth
 * capability queries of every RDMA device and the CUDA properties of every
 * GPU, written as JSON with one member per line, so that two snapshots
 * compare line by line (cap_snapshot_compare.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cuda_driver.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "doca_dev.h"
#include "doca_eth_rxq.h"
#include "doca_eth_txq.h"
#include "doca_gpunetio_cap_snapshot.h"
#include "gpunetio/cap_snapshot.h"

/* CUdevice_attribute values the snapshot reads (cuda.h). */
enum {
    SNAP_CU_ATTR_MULTIPROCESSORS = 16,
    SNAP_CU_ATTR_CAN_MAP_HOST_MEMORY = 19,
    SNAP_CU_ATTR_UNIFIED_ADDRESSING = 41,
    SNAP_CU_ATTR_VMM = 102,
    SNAP_CU_ATTR_GPUDIRECT_RDMA = 116,
    SNAP_CU_ATTR_GPUDIRECT_RDMA_WRITES_ORDERING = 118,
};

/* The lowest compute capability the device data path runs on (the doctor says the same). */
#define SNAP_MIN_CC_MAJOR 8

/* A JSON string: quotes, with what JSON requires escaped. */
static void snap_str(struct core_strbuf *sb, const char *s)
{
    core_strbuf_printf(sb, "\"");
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            core_strbuf_printf(sb, "\\%c", c);
        else if (c < 0x20)
            core_strbuf_printf(sb, "\\u%04x", c);
        else
            core_strbuf_printf(sb, "%c", c);
    }
    core_strbuf_printf(sb, "\"");
}

/* One member line: indent, "key": and the value's text (already JSON), a comma unless last. */
static void snap_member(struct core_strbuf *sb, int indent, const char *key, const char *json,
                        bool last)
{
    core_strbuf_printf(sb, "%*s\"%s\": %s%s\n", indent, "", key, json, last ? "" : ",");
}

static void snap_member_str(struct core_strbuf *sb, int indent, const char *key, const char *s,
                            bool last)
{
    core_strbuf_printf(sb, "%*s\"%s\": ", indent, "", key);
    snap_str(sb, s);
    core_strbuf_printf(sb, "%s\n", last ? "" : ",");
}

static void snap_member_u64(struct core_strbuf *sb, int indent, const char *key, uint64_t v,
                            bool last)
{
    core_strbuf_printf(sb, "%*s\"%s\": %llu%s\n", indent, "", key, (unsigned long long)v,
                       last ? "" : ",");
}

/* A yes/no query's answer: "supported", or the error's name. */
static void snap_member_answer(struct core_strbuf *sb, int indent, const char *key,
                               doca_error_t err)
{
    snap_member_str(sb, indent, key, err == DOCA_SUCCESS ? "supported" : doca_error_get_name(err),
                    false);
}

/* A size query's answer: the number, or the error's name. */
static void snap_member_size(struct core_strbuf *sb, int indent, const char *key, doca_error_t err,
                             uint64_t v, bool last)
{
    if (err == DOCA_SUCCESS)
        snap_member_u64(sb, indent, key, v, last);
    else
        snap_member_str(sb, indent, key, doca_error_get_name(err), last);
}

static const struct {
    const char *name;
    enum doca_eth_rxq_type type;
} snap_rxq_types[] = {
        {"cyclic", DOCA_ETH_RXQ_TYPE_CYCLIC},
        {"managed_mempool", DOCA_ETH_RXQ_TYPE_MANAGED_MEMPOOL},
        {"regular", DOCA_ETH_RXQ_TYPE_REGULAR},
};

static const struct {
    const char *name;
    enum doca_eth_txq_type type;
} snap_txq_types[] = {
        {"regular", DOCA_ETH_TXQ_TYPE_REGULAR},
};

/* The doca-eth queries of one device, as the members of its object. */
static void snap_doca_device(struct core_strbuf *sb, const struct doca_devinfo *info)
{
    const int in = 8;
    char name[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
    char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
    char key[64];
    uint32_t u32 = 0;
    doca_error_t err;

    doca_devinfo_get_ibdev_name(info, name, sizeof(name));
    snap_member_str(sb, in, "device", name, false);
    err = doca_devinfo_get_iface_name(info, iface, sizeof(iface));
    snap_member_str(sb, in, "iface", err == DOCA_SUCCESS ? iface : doca_error_get_name(err), false);
    for (size_t t = 0; t < sizeof(snap_rxq_types) / sizeof(snap_rxq_types[0]); t++) {
        snprintf(key, sizeof(key), "rxq.%s.cpu", snap_rxq_types[t].name);
        snap_member_answer(sb, in, key,
                           doca_eth_rxq_cap_is_type_supported(info, snap_rxq_types[t].type,
                                                              DOCA_ETH_RXQ_DATA_PATH_TYPE_CPU));
        snprintf(key, sizeof(key), "rxq.%s.gpu", snap_rxq_types[t].name);
        snap_member_answer(sb, in, key,
                           doca_eth_rxq_cap_is_type_supported(info, snap_rxq_types[t].type,
                                                              DOCA_ETH_RXQ_DATA_PATH_TYPE_GPU));
    }
    err = doca_eth_rxq_cap_get_max_burst_size(info, &u32);
    snap_member_size(sb, in, "rxq.max_burst_size", err, u32, false);
    err = doca_eth_rxq_cap_get_max_packet_size(info, &u32);
    snap_member_size(sb, in, "rxq.max_packet_size", err, u32, false);
    err = doca_eth_rxq_cap_get_max_recv_buf_list_len(info, &u32);
    snap_member_size(sb, in, "rxq.max_recv_buf_list_len", err, u32, false);
    for (size_t t = 0; t < sizeof(snap_txq_types) / sizeof(snap_txq_types[0]); t++) {
        snprintf(key, sizeof(key), "txq.%s.cpu", snap_txq_types[t].name);
        snap_member_answer(sb, in, key,
                           doca_eth_txq_cap_is_type_supported(info, snap_txq_types[t].type,
                                                              DOCA_ETH_TXQ_DATA_PATH_TYPE_CPU));
        snprintf(key, sizeof(key), "txq.%s.gpu", snap_txq_types[t].name);
        snap_member_answer(sb, in, key,
                           doca_eth_txq_cap_is_type_supported(info, snap_txq_types[t].type,
                                                              DOCA_ETH_TXQ_DATA_PATH_TYPE_GPU));
    }
    err = doca_eth_txq_cap_get_max_burst_size(info, 1, 0, &u32);
    snap_member_size(sb, in, "txq.max_burst_size", err, u32, false);
    err = doca_eth_txq_cap_get_max_send_buf_list_len(info, &u32);
    snap_member_size(sb, in, "txq.max_send_buf_list_len", err, u32, false);
    snap_member_answer(sb, in, "txq.l3_chksum_offload",
                       doca_eth_txq_cap_is_l3_chksum_offload_supported(info));
    snap_member_answer(sb, in, "txq.l4_chksum_offload",
                       doca_eth_txq_cap_is_l4_chksum_offload_supported(info));
    {
        enum doca_eth_wait_on_time_type mode = DOCA_ETH_WAIT_ON_TIME_TYPE_NONE;

        err = doca_eth_txq_cap_get_wait_on_time_offload_supported(info, &mode);
        snap_member_str(sb, in, "txq.wait_on_time_offload",
                        err != DOCA_SUCCESS                         ? doca_error_get_name(err)
                        : mode == DOCA_ETH_WAIT_ON_TIME_TYPE_NATIVE ? "native"
                        : mode == DOCA_ETH_WAIT_ON_TIME_TYPE_DPDK   ? "dpdk"
                                                                    : "none",
                        true);
    }
}

static void snap_doca(struct core_strbuf *sb)
{
    struct doca_devinfo **list = NULL;
    uint32_t count = 0;
    doca_error_t err = doca_devinfo_create_list(&list, &count);

    core_strbuf_printf(sb, "  \"doca\": {\n");
    if (err != DOCA_SUCCESS && err != DOCA_ERROR_NOT_FOUND) {
        snap_member(sb, 4, "available", "false", false);
        snap_member_str(sb, 4, "reason", doca_error_get_name(err), true);
        core_strbuf_printf(sb, "  },\n");
        return;
    }
    snap_member(sb, 4, "available", "true", false);
    core_strbuf_printf(sb, "    \"devices\": [\n");
    for (uint32_t i = 0; i < count; i++) {
        core_strbuf_printf(sb, "      {\n");
        snap_doca_device(sb, list[i]);
        core_strbuf_printf(sb, "      }%s\n", i + 1 < count ? "," : "");
    }
    core_strbuf_printf(sb, "    ]\n  },\n");
    if (list != NULL)
        doca_devinfo_destroy_list(list);
}

/* An attribute as a member: a number or a boolean, null where the driver does not answer. */
static void snap_cu_attr(struct core_strbuf *sb, const struct core_cuda_ops *cuda,
                         core_cu_device dev, const char *key, int attribute, bool as_bool)
{
    int v = 0;

    if (cuda->cuDeviceGetAttribute(&v, attribute, dev) != CORE_CU_SUCCESS)
        snap_member(sb, 8, key, "null", false);
    else if (as_bool)
        snap_member(sb, 8, key, v ? "true" : "false", false);
    else
        snap_member_u64(sb, 8, key, (uint64_t)(unsigned)v, false);
}

static void snap_cuda_gpu(struct core_strbuf *sb, const struct core_cuda_ops *cuda, int ordinal)
{
    core_cu_device dev;
    char bus_id[32] = "", name[128] = "", cc[16];
    int major = 0, minor = 0;

    if (cuda->cuDeviceGet(&dev, ordinal) != CORE_CU_SUCCESS) {
        snprintf(bus_id, sizeof(bus_id), "ordinal %d", ordinal);
        snap_member_str(sb, 8, "bus_id", bus_id, false);
        snap_member(sb, 8, "opened", "false", true);
        return;
    }
    cuda->cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), dev);
    cuda->cuDeviceGetName(name, sizeof(name), dev);
    cuda->cuDeviceGetAttribute(&major, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MAJOR, dev);
    cuda->cuDeviceGetAttribute(&minor, CORE_CU_DEVICE_ATTR_COMPUTE_CAP_MINOR, dev);
    snprintf(cc, sizeof(cc), "%d.%d", major, minor);
    snap_member_str(sb, 8, "bus_id", bus_id, false);
    snap_member_u64(sb, 8, "ordinal", (uint64_t)ordinal, false);
    snap_member_str(sb, 8, "name", name, false);
    snap_member_str(sb, 8, "compute_capability", cc, false);
    snap_member(sb, 8, "gpunetio_capable", major >= SNAP_MIN_CC_MAJOR ? "true" : "false", false);
    snap_cu_attr(sb, cuda, dev, "multiprocessors", SNAP_CU_ATTR_MULTIPROCESSORS, false);
    snap_cu_attr(sb, cuda, dev, "dma_buf", CORE_CU_DEVICE_ATTR_DMA_BUF_SUPPORTED, true);
    snap_cu_attr(sb, cuda, dev, "gpudirect_rdma", SNAP_CU_ATTR_GPUDIRECT_RDMA, true);
    snap_cu_attr(sb, cuda, dev, "gpudirect_rdma_writes_ordering",
                 SNAP_CU_ATTR_GPUDIRECT_RDMA_WRITES_ORDERING, false);
    snap_cu_attr(sb, cuda, dev, "can_map_host_memory", SNAP_CU_ATTR_CAN_MAP_HOST_MEMORY, true);
    snap_cu_attr(sb, cuda, dev, "unified_addressing", SNAP_CU_ATTR_UNIFIED_ADDRESSING, true);
    snap_cu_attr(sb, cuda, dev, "virtual_memory_management", SNAP_CU_ATTR_VMM, true);
    snap_member(sb, 8, "opened", "true", true);
}

static void snap_cuda(struct core_strbuf *sb)
{
    const struct core_cuda_ops *cuda;
    doca_error_t err = core_cuda_get(&cuda);
    int version = 0, count = 0;

    core_strbuf_printf(sb, "  \"cuda\": {\n");
    if (err != DOCA_SUCCESS) {
        snap_member(sb, 4, "available", "false", false);
        snap_member_str(sb, 4, "reason", core_cuda_unavailable_reason(), true);
        core_strbuf_printf(sb, "  }\n");
        return;
    }
    cuda->cuDriverGetVersion(&version);
    if (cuda->cuDeviceGetCount(&count) != CORE_CU_SUCCESS)
        count = 0;
    snap_member(sb, 4, "available", "true", false);
    snap_member_u64(sb, 4, "driver_version", (uint64_t)(unsigned)version, false);
    core_strbuf_printf(sb, "    \"gpus\": [\n");
    for (int i = 0; i < count; i++) {
        core_strbuf_printf(sb, "      {\n");
        snap_cuda_gpu(sb, cuda, i);
        core_strbuf_printf(sb, "      }%s\n", i + 1 < count ? "," : "");
    }
    core_strbuf_printf(sb, "    ]\n  }\n");
}

doca_error_t dgn_cap_snapshot(char **json_out)
{
    struct core_strbuf sb = {0};
    char *text;

    if (json_out == NULL) {
        DOCA_LOG_ERR("dgn_cap_snapshot: json_out must not be NULL");
        return DOCA_ERROR_INVALID_VALUE;
    }
    core_strbuf_printf(&sb, "{\n");
    snap_member_u64(&sb, 2, "snapshot_version", CAP_SNAPSHOT_VERSION, false);
    snap_member_str(&sb, 2, "library", DGN_VERSION_STRING, false);
    snap_doca(&sb);
    snap_cuda(&sb);
    core_strbuf_printf(&sb, "}\n");
    text = core_strbuf_take(&sb);
    if (text == NULL) {
        DOCA_LOG_ERR("dgn_cap_snapshot: out of memory writing the snapshot");
        return DOCA_ERROR_NO_MEMORY;
    }
    *json_out = text;
    return DOCA_SUCCESS;
}
