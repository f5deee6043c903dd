/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User access regions: the pages software writes doorbells into. A software
 * UAR is one page of ordinary host memory (so that it can be registered for
 * GPU access as mapped host memory); the device watches the doorbell
 * registers inside it from its event loop.
 *
 * Layout of a UAR page (as mlx5):
 *   0x020  CQ arm doorbell (64-bit)
 *   0x800  send doorbell / BlueFlame register 0 (64-bit doorbell or a 64-byte WQE)
 *   0x900  BlueFlame register 1
 */
#ifndef EMU_UAR_H
#define EMU_UAR_H

#include <stdbool.h>
#include <stdint.h>

struct emu_nic;
struct emu_qp;
struct emu_cq;

#define EMU_UAR_PAGE_SIZE    4096
#define EMU_UAR_CQ_DB_OFFSET 0x020
#define EMU_UAR_SQ_DB_OFFSET 0x800
#define EMU_UAR_BF_SIZE      0x100

struct emu_uar {
    struct emu_nic *nic;
    uint32_t page_id;
    void *page;           /* EMU_UAR_PAGE_SIZE bytes, page aligned */
    struct emu_uar *next; /* nic's list of watched UARs (guarded by nic->lock) */
};

/* Allocates a UAR page and starts watching it; errno-style. */
int emu_uar_alloc(struct emu_nic *nic, struct emu_uar **uar_out);
void emu_uar_free(struct emu_uar *uar);

/*
 * What a doorbell does: the engine's requester is handed the QP's new
 * producer index; false when it dropped it (a QP in RESET): it is handed
 * over again when the QP can take it.
 */
typedef bool (*emu_uar_ring_fn)(struct emu_qp *qp, uint32_t producer);

/*
 * Called by the device's loop: reads every watched UAR's doorbell registers,
 * calls ring() for each QP whose producer moved and arms each CQ a CQ
 * doorbell asked to arm. Returns true when any doorbell was new (the caller
 * polls again soon), false when idle.
 */
bool emu_uar_poll(struct emu_nic *nic, emu_uar_ring_fn ring);

/* The UAR with this page id on this device, or NULL. Valid until emu_uar_free(). */
struct emu_uar *emu_uar_lookup(struct emu_nic *nic, uint32_t page_id);

/*
 * Watches qp's doorbells on uar (qp->p.uar): a doorbell naming the QP, or in
 * doorbell-record mode a change of its doorbell record, hands the new
 * producer index to the ring callback of emu_uar_poll(). Call emu_uar_qp_unbind() before
 * the QP is destroyed; freeing the UAR drops its bindings. errno-style.
 */
int emu_uar_qp_bind(struct emu_uar *uar, struct emu_qp *qp);
void emu_uar_qp_unbind(struct emu_qp *qp);

/*
 * The QP was reset: its producer starts from 0 again, so a doorbell of 0 + n
 * is new; its doorbell record is not trusted again until a doorbell names it.
 */
void emu_uar_qp_reset(struct emu_qp *qp);

/*
 * Watches cq's arm doorbells on uar (a DevX CQ's uar_page). Each write of
 * the CQ doorbell register (0x20: big-endian sn << 28 | cmd << 24 | ci in
 * the high word, the CQN in the low one) is one arm request; after a CQ
 * doorbell on the page, the arm word of every bound CQ's doorbell record
 * ([1]) is compared with the last arm taken, so an arm whose doorbell
 * another CQ's overwrote is not lost. A doorbell for a CQ not bound to the
 * page (a standard-verbs CQ driven through mlx5dv_init_obj) arms it too.
 * Call emu_uar_cq_unbind() before the CQ is destroyed. errno-style.
 */
int emu_uar_cq_bind(struct emu_uar *uar, struct emu_cq *cq);
void emu_uar_cq_unbind(struct emu_cq *cq);

/*
 * A send queue that is not a QP's (a raw Ethernet SQ, nic/eth.h) rung
 * through a UAR page: a doorbell naming `num` (checked after the page's
 * QPs), or a change of the send counter of its doorbell record (dbrec[1];
 * a GPU record only after a doorbell on its page), calls ring(obj, new
 * producer & 0xffff) from the device's loop, with the UAR lock held (ring
 * must not take locks that are held while binding or unbinding).
 * The binding must be removed before obj goes. errno-style.
 */
struct emu_uar_sq {
    uint32_t num;
    uintptr_t dbrec;
    bool dbrec_gpu;
    void (*ring)(void *obj, uint32_t producer);
    void *obj;
};
int emu_uar_sq_bind(struct emu_uar *uar, const struct emu_uar_sq *sq);
void emu_uar_sq_unbind(struct emu_nic *nic, void *obj);

#endif /* EMU_UAR_H */
