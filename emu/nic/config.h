/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's configuration, read once from the environment that the
 * launcher (softmlx5-run) sets:
 *   SOFTMLX5_DEVICES   number of devices (1..8, default 1)
 *   SOFTMLX5_PORTS     ports per device (1..2, default 1)
 *   SOFTMLX5_NAMES     comma-separated device names (default mlx5_0, mlx5_1, ...)
 *   SOFTMLX5_ADDR      IPv4 address the devices use on the wire (default 127.0.0.1)
 *   SOFTMLX5_LINK      eth (RoCE v2, default) or ib (InfiniBand with LIDs)
 *   SOFTMLX5_RETRY_TIMEOUT_MS  how long an unanswered request waits before a
 *                      retry-exceeded completion (default 2000)
 *   SOFTMLX5_SINGLE_COPY  1 (default on hosts of more than two CPUs): devices
 *                      of this host move RDMA write
 *                      and send data with one copy (process_vm_readv), for
 *                      which the process lets any process of its user read
 *                      its memory (PR_SET_PTRACER_ANY: what every same-user
 *                      process may do anyway when Yama's ptrace_scope is 0);
 *                      0: the process keeps its ptrace protection and data
 *                      goes through the socket (two copies)
 */
#ifndef EMU_CONFIG_H
#define EMU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_MAX_DEVICES 8
#define EMU_MAX_PORTS   2
#define EMU_NAME_MAX    64

enum emu_link {
    EMU_LINK_ETH, /* RoCE v2 */
    EMU_LINK_IB,
};

struct emu_config {
    bool valid; /* false: a variable was bad; the device list is empty */
    int device_count;
    int port_count;
    char names[EMU_MAX_DEVICES][EMU_NAME_MAX];
    uint32_t ipv4; /* host byte order */
    enum emu_link link;
    unsigned int retry_timeout_ms;
    bool single_copy;
};

/* The configuration (parsed on first call; a bad variable is logged once). */
const struct emu_config *emu_config_get(void);

#endif /* EMU_CONFIG_H */
