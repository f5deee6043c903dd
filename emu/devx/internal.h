/* SPDX-License-Identifier: BSD-3-Clause */
/* What the DevX command handlers share: the command being executed and the per-device state. */
#ifndef EMU_DEVX_INTERNAL_H
#define EMU_DEVX_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prm/prm_bits.h"

struct emu_nic;
struct emu_cq;
struct emu_qp;
struct emu_srq;
struct emu_pd;
struct emu_umem;
struct emu_uar;

/* One command in execution. Handlers fill `out` past the header and return a status. */
struct devx_cmd {
    struct emu_nic *nic;
    const void *in;
    size_t inlen;
    void *out;
    size_t outlen;
    uint16_t opcode;
    uint16_t op_mod;
    uint32_t syndrome;  /* set with a failing status */
    const char *reason; /* what was wrong, for the log line */
};

/* Records a failure: returns status, so handlers write `return devx_fail(c, ...)`. */
static inline uint8_t devx_fail(struct devx_cmd *c, uint8_t status, uint32_t syndrome,
                                const char *reason)
{
    c->syndrome = syndrome;
    c->reason = reason;
    return status;
}

/* DevX objects of a device, beside the engine's tables; guarded by `lock`. */
struct devx_cq {
    struct emu_cq *cq;
    struct emu_umem *ring_umem;
    struct emu_umem *dbr_umem;
    uint32_t uar_page;
    uint32_t eqn;
    uint32_t dbr_umem_id;
    uint64_t dbr_offset;
    int qps; /* DevX QPs sending or receiving on it */
};

struct devx_qp {
    struct emu_qp *qp;
    struct emu_umem *wq_umem;
    struct emu_umem *dbr_umem;
    uint32_t pdn;
    uint32_t cqn_snd;
    uint32_t cqn_rcv;
    uint32_t uar_page;
    uint32_t dbr_umem_id;
    uint64_t dbr_offset;
    uint8_t send_dbr_mode;
    uint8_t rq_type;
    bool no_sq;
    uint8_t pm_state;
    uint8_t mtu;
    uint8_t log_msg_max;
};

struct devx_srq {
    struct emu_srq *srq;
    struct emu_umem *wq_umem;
    struct emu_umem *dbr_umem;
    uint32_t pdn;
    uint32_t wq_umem_id;
    uint64_t wq_offset;
    uint32_t dbr_umem_id;
    uint64_t dbr_offset;
    uint8_t wq_type;
};

/*
 * Objects by the table index of their number (CQN, QPN, SRQN &
 * EMU_OBJ_INDEX_MASK; a PDN is its own index, 1..65536): indices below
 * DEVX_MAP_INDEX_LIMIT, the 24 bits of a PRM object number.
 */
#define DEVX_MAP_INDEX_LIMIT (1u << 24)
struct devx_map {
    void **slots;
    uint32_t capacity;
};

/* errno-style (ENOMEM; EINVAL for an index of DEVX_MAP_INDEX_LIMIT or above). */
int devx_map_set(struct devx_map *m, uint32_t index, void *obj);
void *devx_map_get(const struct devx_map *m, uint32_t index);
void devx_map_remove(struct devx_map *m, uint32_t index);

struct devx_dev {
    pthread_mutex_t lock; /* serialises commands of the device */
    struct devx_map cqs;  /* struct devx_cq */
    struct devx_map qps;  /* struct devx_qp */
    struct devx_map pds;  /* PDs made by ALLOC_PD (struct emu_pd) */
    struct devx_map srqs; /* struct devx_srq (RMPs) */
    struct devx_map dcts; /* struct devx_dct (dct.c) */
};

/* The DevX state of a device (created on first use). */
struct devx_dev *devx_dev_of(struct emu_nic *nic);

/* The DevX CQ with this number, or NULL. */
struct devx_cq *devx_cq_find(struct devx_dev *d, uint32_t cqn);

/* The DevX QP with this number, or NULL. */
struct devx_qp *devx_qp_find(struct devx_dev *d, uint32_t qpn);

/* The DevX SRQ (RMP) with this number, or NULL. */
struct devx_srq *devx_srq_find(struct devx_dev *d, uint32_t srqn);

/* Command handlers (one file per object). */
uint8_t devx_query_hca_cap(struct devx_cmd *c);
uint8_t devx_alloc_pd(struct devx_cmd *c);
uint8_t devx_dealloc_pd(struct devx_cmd *c);
uint8_t devx_create_cq(struct devx_cmd *c);
uint8_t devx_destroy_cq(struct devx_cmd *c);
uint8_t devx_query_cq(struct devx_cmd *c);
uint8_t devx_create_qp(struct devx_cmd *c);
uint8_t devx_destroy_qp(struct devx_cmd *c);
uint8_t devx_query_qp(struct devx_cmd *c);
uint8_t devx_modify_qp(struct devx_cmd *c);
uint8_t devx_create_rmp(struct devx_cmd *c);
uint8_t devx_destroy_rmp(struct devx_cmd *c);
uint8_t devx_query_rmp(struct devx_cmd *c);
uint8_t devx_create_dct(struct devx_cmd *c);
uint8_t devx_destroy_dct(struct devx_cmd *c);
uint8_t devx_query_dct(struct devx_cmd *c);

/* Raw Ethernet (eth_*.c). */
uint8_t devx_alloc_td(struct devx_cmd *c);
uint8_t devx_dealloc_td(struct devx_cmd *c);
uint8_t devx_create_tis(struct devx_cmd *c);
uint8_t devx_destroy_tis(struct devx_cmd *c);
uint8_t devx_create_sq(struct devx_cmd *c);
uint8_t devx_modify_sq(struct devx_cmd *c);
uint8_t devx_query_sq(struct devx_cmd *c);
uint8_t devx_destroy_sq(struct devx_cmd *c);
uint8_t devx_create_rq(struct devx_cmd *c);
uint8_t devx_modify_rq(struct devx_cmd *c);
uint8_t devx_query_rq(struct devx_cmd *c);
uint8_t devx_destroy_rq(struct devx_cmd *c);
uint8_t devx_create_rqt(struct devx_cmd *c);
uint8_t devx_destroy_rqt(struct devx_cmd *c);
uint8_t devx_create_tir(struct devx_cmd *c);
uint8_t devx_destroy_tir(struct devx_cmd *c);
uint8_t devx_alloc_q_counter(struct devx_cmd *c);
uint8_t devx_dealloc_q_counter(struct devx_cmd *c);
uint8_t devx_query_q_counter(struct devx_cmd *c);
uint8_t devx_query_nic_vport(struct devx_cmd *c);

struct emu_eth_ring;
/*
 * The ring (ring_len bytes at wq_umem_id + wq_umem_offset) and doorbell
 * record (dbr_addr inside dbr_umem_id, or the ring's umem when
 * dbr_umem_valid is 0) of a PRM wq context; umems held in *ring_umem and
 * *dbr_umem on success (eth_wq.c).
 */
uint8_t devx_eth_wq_umems(struct devx_cmd *c, const void *wq, uint64_t ring_len,
                          struct emu_eth_ring *r, struct emu_umem **ring_umem,
                          struct emu_umem **dbr_umem);

/* Whether a raw Ethernet SQ or RQ may move from state `from` to `to` (eth_wq.c). */
bool devx_eth_wq_transition_ok(uint8_t from, uint8_t to);

struct emu_eth_wqc;
struct eth_dev;
/* CREATE_SQ / CREATE_RQ's checks of a wq context: log_wq_sz, the CQ (in *dcq) and the PD. */
uint8_t devx_eth_wq_check_cq(struct devx_cmd *c, const void *wq, uint32_t cqn,
                             struct devx_cq **dcq);
uint8_t devx_eth_wq_check_pd(struct devx_cmd *c, const void *wq);
/* The wq context into *w and the ring's size (r->log_stride: log_stride) as created. */
void devx_eth_wq_decode(const void *wq, uint32_t log_stride, struct emu_eth_wqc *w,
                        struct emu_eth_ring *r);
/* QUERY_SQ / QUERY_RQ: the wq context as created, and the counters hw and sw. */
void devx_eth_wq_encode(void *wq, const struct emu_eth_wqc *w, const struct emu_eth_ring *r,
                        uint32_t hw_counter, uint32_t sw_counter);
/*
 * The SQ (sq) or RQ number n of d, with d's lock held; NULL with the lock free and the failure
 * (no device, no such queue) in *status.
 */
void *devx_eth_wq_lock(struct devx_cmd *c, struct eth_dev *d, uint32_t n, bool sq, uint8_t *status);

/* Pointers into the mailboxes. */
static inline const void *devx_in_at(const struct devx_cmd *c, size_t offset)
{
    return (const uint8_t *)c->in + offset;
}

static inline void *devx_out_at(const struct devx_cmd *c, size_t offset)
{
    return (uint8_t *)c->out + offset;
}

#endif /* EMU_DEVX_INTERNAL_H */
