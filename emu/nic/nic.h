/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One software ConnectX device inside a process. Every context opened on it
 * shares it, as contexts share a real NIC: the object tables, the memory keys
 * and the wire endpoint belong to the device.
 *
 * Numbers handed out:
 *   endpoint id  1..255, unique on the host (see wire/), also the port LID
 *                on an InfiniBand link
 *   QPN / CQN / SRQN  (endpoint id << 16) | table index, so a peer finds the
 *                endpoint of a QP from its number
 *   memory key   (table index << 8) | 8-bit variant, as mlx5 mkeys are
 */
#ifndef EMU_NIC_H
#define EMU_NIC_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nic/config.h"
#include "nic/table.h"

#define EMU_OBJ_INDEX_BITS 16
#define EMU_OBJ_INDEX_MASK ((1u << EMU_OBJ_INDEX_BITS) - 1)

struct emu_wire;

struct emu_nic {
    struct ibv_device ibdev; /* first: ibv_device pointers lead back here */
    int index;
    uint64_t node_guid; /* host order */
    uint32_t ipv4;      /* host order */
    enum emu_link link;
    int port_count;

    pthread_mutex_t lock; /* contexts, tables (except mkeys), wire start */
    int open_contexts;
    uint16_t endpoint_id; /* 0 until the wire endpoint exists */
    struct emu_wire *wire;

    struct emu_table pds;
    struct emu_table cqs;
    struct emu_table qps;
    struct emu_table srqs;

    /* Memory keys: writers (register/deregister) exclude every access through a key. */
    pthread_rwlock_t mkey_lock;
    struct emu_table mkeys;
    uint8_t mkey_variant;
};

/* The device with this index (0..count-1), or NULL when not configured. */
struct emu_nic *emu_nic_get(int index);

/* The device behind an ibv_device from our list. */
static inline struct emu_nic *emu_nic_of(struct ibv_device *dev)
{
    return (struct emu_nic *)dev;
}

/* Counts a context; the first one brings the wire endpoint up. errno-style result. */
int emu_nic_open(struct emu_nic *nic);
void emu_nic_close(struct emu_nic *nic);

/* The GID at index 0 of a port: ::ffff:<ipv4> on RoCE v2, fe80::<guid> on InfiniBand. */
void emu_nic_gid(const struct emu_nic *nic, union ibv_gid *gid);

/* Builds an object number (QPN, CQN...) from a table index. */
static inline uint32_t emu_nic_obj_num(const struct emu_nic *nic, uint32_t index)
{
    return ((uint32_t)nic->endpoint_id << EMU_OBJ_INDEX_BITS) | index;
}

#endif /* EMU_NIC_H */

/* True when dev is one of softmlx5's devices. */
bool emu_nic_owns_device(const struct ibv_device *dev);
