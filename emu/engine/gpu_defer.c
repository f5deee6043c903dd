/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes from peers' GPU memory, copied device to device without waiting
 * for each copy. A NIC acknowledges a write once its payload is placed; a
 * CUDA copy's wait costs several microseconds whatever its size, so the
 * engine issues the copies of a batch of writes and waits for them all at
 * once, before the first answer that vouches for them leaves (an ACK, a NAK
 * or any other answer, engine_ack_flush), before any request that reads or
 * completes to the program (responder.c), and at the end of each turn of
 * its loop. Until then the targets' keys stay held: a deregistration waits
 * for the copies, as ConnectX's waits for its DMA.
 */
#include <errno.h>

#include "common/emu_log.h"
#include "engine/engine_int.h"
#include "nic/nic.h"
#include "nic/qp.h"

/* t's keys join the set, each key once (rx_lock held); t is left empty. */
static void defer_keep_keys(struct engine_gpu_defer *d, struct engine_sgl *t)
{
    for (int i = 0; i < t->count; i++) {
        unsigned int k;

        for (k = 0; k < d->mr_n && d->mr[k] != t->mr[i]; k++)
            ;
        if (k < d->mr_n)
            emu_mr_put(t->mr[i]); /* held by the set already */
        else
            d->mr[d->mr_n++] = t->mr[i];
    }
    t->count = 0;
    t->bytes = 0;
}

static void defer_keep_writer(struct engine_gpu_defer *d, struct emu_qp *qp, struct emu_conn *out)
{
    for (unsigned int k = 0; k < d->writer_n; k++)
        if (d->writer[k].qp == qp && d->writer[k].out == out)
            return;
    d->writer[d->writer_n].qp = qp;
    d->writer[d->writer_n++].out = out;
}

int engine_gpu_write_defer(struct emu_qp *qp, struct emu_conn *out, struct engine_sgl *t,
                           const struct emu_gpu_ref *ref, uint32_t len)
{
    struct emu_engine *e = qp->nic->engine;
    struct engine_gpu_defer *d = &e->gpu_defer;
    int err;

    if (d->mr_n + (unsigned int)t->count > ENGINE_GPU_DEFER_MAX ||
        d->writer_n == ENGINE_GPU_DEFER_MAX)
        engine_gpu_settle(e);
    err = engine_sgl_copy_gpu_ref(t, ref, len, &d->ipc);
    if (err == ENOTSUP)
        return err; /* nothing was issued */
    /* Held until settled, also after a failure: earlier entries' copies may be running. */
    defer_keep_keys(d, t);
    if (err == 0)
        defer_keep_writer(d, qp, out);
    return err;
}

/* The ACKs out owes for qp are not sent: the writes they would vouch for are lost. */
static void defer_withdraw_acks(struct emu_qp *qp, struct emu_conn *out)
{
    struct engine_conn *ec = emu_conn_user(out);

    if (ec == NULL)
        return;
    for (int i = 0; i < ec->ack_count; i++) {
        if (ec->acks[i].qpn == qp->qpn && ec->acks[i].remote_qpn == qp->attr.remote_qpn) {
            ec->acks[i] = ec->acks[--ec->ack_count];
            i--;
        }
    }
}

void engine_gpu_settle(struct emu_engine *e)
{
    struct engine_gpu_defer *d = &e->gpu_defer;
    bool failed;

    if (d->writer_n == 0 && d->mr_n == 0)
        return;
    failed = emu_gpu_ipc_settle(&d->ipc) != 0;
    for (unsigned int k = 0; k < d->writer_n && failed; k++) {
        defer_withdraw_acks(d->writer[k].qp, d->writer[k].out);
        __atomic_store_n(&d->writer[k].qp->gpu_write_lost, true, __ATOMIC_RELEASE);
    }
    if (failed) {
        EMU_LOG_ERR("device %s: GPU to GPU copies of writes from %u QP(s) failed: the writes are "
                    "not acknowledged and their QPs fail",
                    e->nic->ibdev.name, d->writer_n);
        if (__atomic_exchange_n(&e->cq_errors, 1, __ATOMIC_ACQ_REL) == 0)
            engine_kick(e);
    }
    for (unsigned int k = 0; k < d->mr_n; k++)
        emu_mr_put(d->mr[k]);
    d->mr_n = 0;
    d->writer_n = 0;
}
