/* SPDX-License-Identifier: BSD-3-Clause */
/* libibverbs entry points that need no device: strings, rates, fork, sysfs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi/context.h"
#include "common/emu_log.h"
#include "nic/caps.h"

#define EMU_EXPORT __attribute__((visibility("default")))

/* Exported by rdma-core but declared only in its private headers. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
const char *ibv_get_sysfs_path(void);
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

EMU_EXPORT const char *ibv_node_type_str(enum ibv_node_type node_type)
{
    static const char *const names[] = {"InfiniBand channel adapter",
                                        "InfiniBand switch",
                                        "InfiniBand router",
                                        "iWARP NIC",
                                        "usNIC",
                                        "usNIC UDP",
                                        "unspecified"};
    int i = (int)node_type - IBV_NODE_CA;

    return i >= 0 && (size_t)i < ARRAY_LEN(names) ? names[i] : "unknown";
}

EMU_EXPORT const char *ibv_port_state_str(enum ibv_port_state port_state)
{
    static const char *const names[] = {"PORT_NOP",   "PORT_DOWN",   "PORT_INIT",
                                        "PORT_ARMED", "PORT_ACTIVE", "PORT_ACTIVE_DEFER"};

    return (size_t)port_state < ARRAY_LEN(names) ? names[port_state] : "invalid state";
}

EMU_EXPORT const char *ibv_event_type_str(enum ibv_event_type event)
{
    static const char *const names[] = {"CQ error",
                                        "local work queue catastrophic error",
                                        "invalid request local work queue error",
                                        "local access violation work queue error",
                                        "communication established",
                                        "send queue drained",
                                        "path migrated",
                                        "path migration request error",
                                        "local catastrophic error",
                                        "port active",
                                        "port error",
                                        "LID change",
                                        "P_Key change",
                                        "SM change",
                                        "SRQ catastrophic error",
                                        "SRQ limit reached",
                                        "last WQE reached",
                                        "client reregistration",
                                        "GID table change",
                                        "WQ fatal"};

    return (size_t)event < ARRAY_LEN(names) ? names[event] : "unknown";
}

EMU_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
    static const char *const names[] = {"success",
                                        "local length error",
                                        "local QP operation error",
                                        "local EE context operation error",
                                        "local protection error",
                                        "Work Request Flushed Error",
                                        "memory management operation error",
                                        "bad response error",
                                        "local access error",
                                        "remote invalid request error",
                                        "remote access error",
                                        "remote operation error",
                                        "transport retry counter exceeded",
                                        "RNR retry counter exceeded",
                                        "local RDD violation error",
                                        "remote invalid RD request",
                                        "aborted error",
                                        "invalid EE context number",
                                        "invalid EE context state",
                                        "fatal error",
                                        "response timeout error",
                                        "general error",
                                        "TM error",
                                        "TM rendezvous error"};

    return (size_t)status < ARRAY_LEN(names) ? names[status] : "unknown";
}

/* ibv_rate values and their multiples of 2.5 Gb/s, in enum order from IBV_RATE_2_5_GBPS. */
static const struct {
    enum ibv_rate rate;
    int mult;
    int mbps;
} rate_table[] = {
        {IBV_RATE_2_5_GBPS, 1, 2500},     {IBV_RATE_5_GBPS, 2, 5000},
        {IBV_RATE_10_GBPS, 4, 10000},     {IBV_RATE_20_GBPS, 8, 20000},
        {IBV_RATE_30_GBPS, 12, 30000},    {IBV_RATE_40_GBPS, 16, 40000},
        {IBV_RATE_60_GBPS, 24, 60000},    {IBV_RATE_80_GBPS, 32, 80000},
        {IBV_RATE_120_GBPS, 48, 120000},  {IBV_RATE_14_GBPS, 5, 14062},
        {IBV_RATE_56_GBPS, 22, 56250},    {IBV_RATE_112_GBPS, 45, 112500},
        {IBV_RATE_168_GBPS, 67, 168750},  {IBV_RATE_25_GBPS, 10, 25781},
        {IBV_RATE_100_GBPS, 40, 103125},  {IBV_RATE_200_GBPS, 80, 206250},
        {IBV_RATE_300_GBPS, 120, 309375}, {IBV_RATE_28_GBPS, 11, 28125},
        {IBV_RATE_50_GBPS, 20, 53125},    {IBV_RATE_400_GBPS, 160, 425000},
        {IBV_RATE_600_GBPS, 240, 637500},
};

EMU_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
    for (size_t i = 0; i < ARRAY_LEN(rate_table); i++)
        if (rate_table[i].rate == rate)
            return rate_table[i].mult;
    return -1;
}

EMU_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
    for (size_t i = 0; i < ARRAY_LEN(rate_table); i++)
        if (rate_table[i].mult == mult)
            return rate_table[i].rate;
    return IBV_RATE_MAX;
}

EMU_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
    for (size_t i = 0; i < ARRAY_LEN(rate_table); i++)
        if (rate_table[i].rate == rate)
            return rate_table[i].mbps;
    return -1;
}

EMU_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
    for (size_t i = 0; i < ARRAY_LEN(rate_table); i++)
        if (rate_table[i].mbps == mbps)
            return rate_table[i].rate;
    return IBV_RATE_MAX;
}

/* The software NIC reaches memory through the process, so fork needs no protection. */
static int fork_initialized;

EMU_EXPORT int ibv_fork_init(void)
{
    fork_initialized = 1;
    return 0;
}

EMU_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
    return fork_initialized ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
}

EMU_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
    return 0;
}

EMU_EXPORT int ibv_dofork_range(void *base, size_t size)
{
    return 0;
}

/* Attributes the sysfs directory of a software device would hold. */
static int emu_sysfs_attr(const struct emu_nic *nic, const char *file, char *buf, size_t size)
{
    if (strcmp(file, "board_id") == 0)
        return snprintf(buf, size, "%s", EMU_BOARD_ID);
    if (strcmp(file, "fw_ver") == 0)
        return snprintf(buf, size, "%s", EMU_FW_VERSION);
    if (strcmp(file, "hca_type") == 0)
        return snprintf(buf, size, "MT%d", EMU_VENDOR_PART_ID);
    if (strcmp(file, "hw_rev") == 0)
        return snprintf(buf, size, "0x%x", EMU_HW_VERSION);
    if (strcmp(file, "node_type") == 0)
        return snprintf(buf, size, "1: CA");
    if (strcmp(file, "node_desc") == 0)
        return snprintf(buf, size, "softmlx5 %s", nic->ibdev.name);
    if (strcmp(file, "node_guid") == 0 || strcmp(file, "sys_image_guid") == 0)
        return snprintf(buf, size, "%04x:%04x:%04x:%04x", (unsigned)(nic->node_guid >> 48),
                        (unsigned)(nic->node_guid >> 32) & 0xffff,
                        (unsigned)(nic->node_guid >> 16) & 0xffff,
                        (unsigned)nic->node_guid & 0xffff);
    return -1;
}

EMU_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
    char path[512];
    ssize_t len;
    int fd;

    if (dir == NULL || file == NULL || buf == NULL || size == 0) {
        EMU_LOG_ERR("ibv_read_sysfs_file: a directory, a file and a buffer are required");
        errno = EINVAL;
        return -1;
    }
    for (int i = 0;; i++) {
        struct emu_nic *nic = emu_nic_get(i);

        if (nic == NULL)
            break;
        if (strcmp(dir, nic->ibdev.ibdev_path) == 0) {
            int n = emu_sysfs_attr(nic, file, buf, size);

            if (n < 0)
                errno = ENOENT;
            return n;
        }
    }
    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    len = read(fd, buf, size);
    close(fd);
    if (len > 0 && buf[len - 1] == '\n')
        buf[--len] = '\0';
    else if (len >= 0 && (size_t)len < size)
        buf[len] = '\0';
    else if (len > 0) {
        /* The file does not fit with its terminator: refused rather than left unterminated. */
        errno = EOVERFLOW;
        return -1;
    }
    return (int)len;
}

/* rdma-core's call takes no argument and names the sysfs mount point (librdmacm calls it). */
EMU_EXPORT const char *ibv_get_sysfs_path(void)
{
    return "/sys";
}
