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
 *   SOFTMLX5_SINGLE_COPY  1: devices of this host move RDMA write and send
 *                      data with one copy (process_vm_readv from the
 *                      requester's process), for which the process lets any
 *                      process of its user read its memory
 *                      (PR_SET_PTRACER_ANY); only this setting allows that.
 *                      0: off, data goes through the socket (two copies).
 *                      Unset: on only where the OS already lets the
 *                      process's peers read it without loosening anything
 *                      (no Yama LSM, or Yama's ptrace_scope 0, and the
 *                      process dumpable); otherwise off. One INFO line per process says which
 *                      and why.
 *   SOFTMLX5_LOOP_RT   1 (default): each device's loop thread asks for the
 *                      lowest real-time priority, which it gets where the
 *                      process may (engine/loop.c); 0: normal priority
 *   SOFTMLX5_ETH      a network interface: device 0's port 1 is attached to it
 *                      (engine/eth_port.c: raw Ethernet SQs and RQs send and
 *                      receive its frames); needs an Ethernet link
 *   SOFTMLX5_NAMES is checked by emu_config_names (config_names.h): no more
 *   names than devices, none empty or too long, no name twice.
 */
#ifndef EMU_CONFIG_H
#define EMU_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
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
    bool single_copy;        /* same-host single copy is offered and accepted */
    bool single_copy_forced; /* SOFTMLX5_SINGLE_COPY=1: PR_SET_PTRACER_ANY is allowed */
    bool loop_rt;            /* SOFTMLX5_LOOP_RT (default 1): the device loop asks for SCHED_RR */
    bool gpu_ipc; /* SOFTMLX5_GPU_IPC (default 1): GPU messages to same-host peers by reference */
    char eth_ifname[16]; /* SOFTMLX5_ETH (IFNAMSIZ): device 0's port on this interface, or "" */
};

/* The configuration (parsed on first call; a bad variable is logged once). */
const struct emu_config *emu_config_get(void);

/* What the single-copy default depends on, as read from the OS (or given by a test). */
struct emu_single_copy_inputs {
    long setting;   /* SOFTMLX5_SINGLE_COPY: -1 unset, 0 or 1 */
    int yama_scope; /* /proc/sys/kernel/yama/ptrace_scope; EMU_YAMA_ABSENT, EMU_YAMA_UNREADABLE */
    int dumpable;   /* prctl(PR_GET_DUMPABLE): 1 lets same-user processes read this one */
};

#define EMU_YAMA_ABSENT     (-1) /* no Yama LSM: the file does not exist */
#define EMU_YAMA_UNREADABLE (-2) /* the file exists but gives no value 0..3 */

/*
 * Decides single copy from in: sets cfg->single_copy and
 * cfg->single_copy_forced and writes the one line that says which path is
 * used and why into why (NUL terminated).
 */
void emu_config_single_copy(const struct emu_single_copy_inputs *in, struct emu_config *cfg,
                            char *why, size_t n);

#endif /* EMU_CONFIG_H */
