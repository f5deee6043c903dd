/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Doorbells. A standard-verbs post_send rings in the caller's thread, which
 * then runs the requester itself, as far as it can without waiting (the
 * fastest path: no wake-up). A doorbell on a UAR page is found by the loop
 * (emu_uar_poll) and rung the same way from there; the loop polls the pages
 * while QPs or CQs are rung through them.
 */
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/nic.h"
#include "nic/qp.h"
#include "prm/prm_qp.h"

bool emu_engine_sq_doorbell(struct emu_qp *qp, uint32_t producer)
{
    pthread_mutex_lock(&qp->lock);
    /* A QP in RESET has no send queue to ring: the doorbell is dropped, as by hardware. */
    if (qp->state == PRM_QP_STATE_RST) {
        pthread_mutex_unlock(&qp->lock);
        return false;
    }
    qp->sq_posted += (producer - qp->sq_posted) & 0xffff;
    pthread_mutex_unlock(&qp->lock);
    engine_sq_run(qp);
    return true;
}

void emu_engine_uar_watch(struct emu_nic *nic, bool on)
{
    struct emu_engine *e = nic->engine;

    if (on) {
        __atomic_add_fetch(&e->uar_watchers, 1, __ATOMIC_RELAXED);
        engine_kick(e);
    } else {
        __atomic_sub_fetch(&e->uar_watchers, 1, __ATOMIC_RELAXED);
    }
}
