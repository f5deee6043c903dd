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

struct emu_engine;
struct uar_dev;
struct umem_dev;
struct devx_dev;
struct emu_uar;
struct async_dev;
struct eth_dev;

struct emu_nic {
    struct ibv_device ibdev; /* first: ibv_device pointers lead back here */
    int index;
    uint64_t node_guid; /* host order */
    uint32_t ipv4;      /* host order */
    enum emu_link link;
    int port_count;
    bool port_down; /* emu_port_set_state: ports reported down (traffic is not stopped) */

    pthread_mutex_t lock;      /* tables (except mkeys), engine start */
    uint16_t endpoint_id;      /* 0 until the wire endpoint exists */
    struct emu_engine *engine; /* the device's loop and wire, from the first open (engine.h) */
    /*
     * The state of the device's other parts, each made on first use by its
     * own file: everything per device hangs off the device, so the fork
     * handler's reset (emu_nic_reset) drops it all at once.
     */
    struct uar_dev *uars;          /* nic/uar.c */
    struct umem_dev *umems;        /* nic/umem.c */
    struct devx_dev *devx;         /* devx/cmd.c */
    struct emu_uar *dv_shared_uar; /* dv/dv_context.c: the UAR of mlx5dv_init_obj QPs */
    struct async_dev *async;       /* nic/async_event.c */
    struct eth_dev *eth;           /* nic/eth.c: raw Ethernet queues, TIRs, steering, the port */

    struct emu_table pds;
    struct emu_table cqs;
    struct emu_table qps;
    struct emu_table srqs;
    struct emu_table xrcds; /* nic/xrcd.c */

    /* Memory keys: the table under mkey_lock; a held key counts in its emu_mr's users. */
    pthread_rwlock_t mkey_lock;
    pthread_mutex_t mkey_idle_lock; /* with mkey_idle: a deregistration waits for users == 0 */
    pthread_cond_t mkey_idle;
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

/*
 * The state a part of a device keeps in *slot (nic->uars, ...): made on
 * first use, size bytes zeroed then init(part) run once; NULL when out of
 * memory. Dropped with the device by emu_nic_reset.
 */
void *emu_nic_part(void **slot, size_t size, void (*init)(void *part));

/* In the child of fork(): the device as if never opened (the engine's fork handler calls it). */
void emu_nic_reset(struct emu_nic *nic);

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
