/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibv_wr_* work-request builders of extended QPs (see verbs_qp_ex.h):
 * operation calls fill one struct ibv_send_wr, data calls complete it and
 * write its WQE with the send path of ibv_post_send, wr_complete rings.
 */
#include "abi/verbs_qp_ex.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi/context.h"
#include "abi/verbs_int.h"
#include "common/emu_log.h"
#include "prm/prm_qp_transport.h"

#define EMU_EXPORT __attribute__((visibility("default")))

static struct emu_qp_wr *qp_wr(struct ibv_qp_ex *qpx)
{
    return emu_qp_of_ex(qpx)->wr;
}

/*
 * True when the calling thread is the one between wr_start and wr_complete.
 * `started` and `owner` are read atomically: another thread's wr_start reads
 * them while the builder's thread may be writing them.
 */
static bool qp_wr_mine(const struct emu_qp_wr *w)
{
    return __atomic_load_n(&w->started, __ATOMIC_ACQUIRE) &&
           pthread_equal(__atomic_load_n(&w->owner, __ATOMIC_RELAXED), pthread_self());
}

/* True while the calling thread builds between wr_start and wr_complete; logs otherwise. */
static bool qp_wr_building(const struct emu_qp_wr *w, const char *call)
{
    if (qp_wr_mine(w))
        return true;
    EMU_LOG_ERR("%s: called outside ibv_wr_start .. ibv_wr_complete; ignored", call);
    return false;
}

void emu_qp_wr_fail(struct ibv_qp_ex *qpx, int err, const char *call)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    if (!qp_wr_building(w, call))
        return;
    EMU_LOG_ERR("%s: %s on QP 0x%x; the work requests since ibv_wr_start will not be posted", call,
                strerror(err), emu_qp_of_ex(qpx)->qpn);
    if (w->err == 0)
        w->err = err;
}

/* Writes the open work request's WQE (its data, if any, is in w->wr.sg_list). */
static void qp_wr_write(struct ibv_qp_ex *qpx)
{
    struct emu_qp_wr *w = qp_wr(qpx);
    int err;

    w->open = false;
    if (w->err != 0)
        return;
    err = emu_verbs_sq_put(emu_qp_of_ex(qpx), &w->wr);
    if (err == ENOMEM)
        emu_qp_wr_fail(qpx, err, "ibv_wr_* (the send queue is full)");
    else if (err != 0)
        w->err = err; /* emu_verbs_sq_put logged why */
}

/*
 * Opens a work request of opcode from the QP's wr_id and wr_flags; one still
 * open is written first, without data. NULL when the call is refused. As
 * with libmlx5, every operation the device offers may be built, whether or
 * not send_ops_flags named it.
 */
static struct ibv_send_wr *qp_wr_open(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
                                      const char *call)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    if (!qp_wr_building(w, call))
        return NULL;
    if (w->open)
        qp_wr_write(qpx);
    memset(&w->wr, 0, sizeof(w->wr));
    w->wr.wr_id = qpx->wr_id;
    w->wr.send_flags = qpx->wr_flags;
    w->wr.opcode = opcode;
    w->wr.sg_list = w->sge;
    w->open = true;
    w->has_data = false;
    w->addressed = false;
    return &w->wr;
}

/*
 * Whether the QP's work requests name a destination of their own: UD's
 * address, a DCI's DCT (mlx5's), XRC's SRQ.
 */
static bool qp_wr_needs_addr(const struct emu_qp *qp)
{
    return !qp->tp->connected || qp->tp->dc == PRM_QP_DC_DCI || qp->tp->xrc;
}

/*
 * The open work request has its data. A UD, DCI or XRC one is written once
 * it has its destination too: ibv_wr_set_ud_addr / mlx5dv_wr_set_dc_addr /
 * ibv_wr_set_xrc_srqn may come before or after the data.
 */
static void qp_wr_data_done(struct ibv_qp_ex *qpx)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    w->has_data = true;
    if (qp_wr_needs_addr(emu_qp_of_ex(qpx)) && !w->addressed)
        return;
    qp_wr_write(qpx);
}

static void qp_wr_start(struct ibv_qp_ex *qpx)
{
    struct emu_qp *qp = emu_qp_of_ex(qpx);
    struct emu_qp_wr *w = qp->wr;

    if (qp_wr_mine(w)) {
        EMU_LOG_ERR("ibv_wr_start: QP 0x%x is already between ibv_wr_start and "
                    "ibv_wr_complete in this thread; ignored",
                    qp->qpn);
        return;
    }
    pthread_mutex_lock(&qp->post_lock);
    __atomic_store_n(&w->owner, pthread_self(), __ATOMIC_RELAXED);
    __atomic_store_n(&w->started, true, __ATOMIC_RELEASE);
    w->open = false;
    w->err = 0;
    w->start_producer = qp->sq_producer;
}

/* Ends the building: the lock wr_start took is given back. */
static void qp_wr_end(struct emu_qp *qp)
{
    __atomic_store_n(&qp->wr->started, false, __ATOMIC_RELEASE);
    qp->wr->open = false;
    pthread_mutex_unlock(&qp->post_lock);
}

static int qp_wr_complete(struct ibv_qp_ex *qpx)
{
    struct emu_qp *qp = emu_qp_of_ex(qpx);
    struct emu_qp_wr *w = qp->wr;
    int err;

    if (!qp_wr_building(w, "ibv_wr_complete"))
        return EINVAL;
    if (w->open)
        qp_wr_write(qpx);
    err = w->err != 0 ? w->err : emu_verbs_sq_ready(qp, "ibv_wr_complete");
    if (err != 0)
        qp->sq_producer = w->start_producer; /* never published: the WQEs are dropped */
    else
        emu_verbs_sq_ring(qp);
    qp_wr_end(qp);
    return err;
}

static void qp_wr_abort(struct ibv_qp_ex *qpx)
{
    struct emu_qp *qp = emu_qp_of_ex(qpx);

    if (!qp_wr_building(qp->wr, "ibv_wr_abort"))
        return;
    qp->sq_producer = qp->wr->start_producer;
    qp_wr_end(qp);
}

/* Operations. */
static void qp_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode, uint32_t rkey,
                       uint64_t remote_addr, __be32 imm, const char *call)
{
    struct ibv_send_wr *wr = qp_wr_open(qpx, opcode, call);

    if (wr == NULL)
        return;
    wr->wr.rdma.rkey = rkey;
    wr->wr.rdma.remote_addr = remote_addr;
    wr->imm_data = imm;
}

static void qp_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
    qp_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0, "ibv_wr_rdma_write");
}

static void qp_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
                                 __be32 imm)
{
    qp_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm, "ibv_wr_rdma_write_imm");
}

static void qp_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
    qp_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0, "ibv_wr_rdma_read");
}

static void qp_wr_send(struct ibv_qp_ex *qpx)
{
    qp_wr_open(qpx, IBV_WR_SEND, "ibv_wr_send");
}

static void qp_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
    struct ibv_send_wr *wr = qp_wr_open(qpx, IBV_WR_SEND_WITH_IMM, "ibv_wr_send_imm");

    if (wr != NULL)
        wr->imm_data = imm;
}

static void qp_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode, uint32_t rkey,
                         uint64_t remote_addr, uint64_t compare_add, uint64_t swap,
                         const char *call)
{
    struct ibv_send_wr *wr = qp_wr_open(qpx, opcode, call);

    if (wr == NULL)
        return;
    wr->wr.atomic.rkey = rkey;
    wr->wr.atomic.remote_addr = remote_addr;
    wr->wr.atomic.compare_add = compare_add;
    wr->wr.atomic.swap = swap;
}

static void qp_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
                                 uint64_t compare, uint64_t swap)
{
    qp_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap,
                 "ibv_wr_atomic_cmp_swp");
}

static void qp_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
                                   uint64_t add)
{
    qp_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0,
                 "ibv_wr_atomic_fetch_add");
}

/*
 * Data: the open work request, to be completed with count entries of list
 * and written; NULL (the error recorded) without one, or for a list that is
 * missing or longer than the device's gather lists.
 */
static struct ibv_send_wr *qp_wr_data(struct ibv_qp_ex *qpx, size_t count, const void *list,
                                      const char *call)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    if (!qp_wr_building(w, call))
        return NULL;
    if (!w->open) {
        emu_qp_wr_fail(qpx, EINVAL, call); /* no operation call before it */
        return NULL;
    }
    if (count > EMU_MAX_SGE || (count > 0 && list == NULL)) {
        w->open = false;
        emu_qp_wr_fail(qpx, EINVAL, call);
        return NULL;
    }
    w->wr.num_sge = (int)count;
    return &w->wr;
}

static void qp_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge, const struct ibv_sge *list)
{
    struct ibv_send_wr *wr = qp_wr_data(qpx, num_sge, list, "ibv_wr_set_sge_list");

    if (wr == NULL)
        return;
    memcpy(wr->sg_list, list, num_sge * sizeof(*list));
    wr->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
    qp_wr_data_done(qpx);
}

static void qp_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
    struct ibv_sge sge = {.addr = addr, .length = length, .lkey = lkey};

    qp_wr_set_sge_list(qpx, 1, &sge);
}

/* Inline pieces travel as the gather list of an IBV_SEND_INLINE request, as with ibv_post_send. */
static void qp_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
                                       const struct ibv_data_buf *list)
{
    struct ibv_send_wr *wr = qp_wr_data(qpx, num_buf, list, "ibv_wr_set_inline_data_list");

    if (wr == NULL)
        return;
    for (size_t i = 0; i < num_buf; i++) {
        if (list[i].length > EMU_MAX_INLINE || (list[i].addr == NULL && list[i].length > 0)) {
            qp_wr(qpx)->open = false;
            emu_qp_wr_fail(qpx, EINVAL, "ibv_wr_set_inline_data_list");
            return;
        }
        wr->sg_list[i].addr = (uintptr_t)list[i].addr;
        wr->sg_list[i].length = (uint32_t)list[i].length;
        wr->sg_list[i].lkey = 0;
    }
    wr->send_flags |= IBV_SEND_INLINE;
    qp_wr_data_done(qpx);
}

static void qp_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
    struct ibv_data_buf buf = {.addr = addr, .length = length};

    qp_wr_set_inline_data_list(qpx, 1, &buf);
}

/* What RC QPs of this device do not offer: the error is recorded, wr_complete returns it. */
static void qp_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
                          const struct ibv_mw_bind_info *info)
{
    (void)mw, (void)rkey, (void)info;
    emu_qp_wr_fail(qpx, EOPNOTSUPP, "ibv_wr_bind_mw (no memory windows)");
}

static void qp_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
    (void)rkey;
    emu_qp_wr_fail(qpx, EOPNOTSUPP, "ibv_wr_local_inv (no memory windows)");
}

static void qp_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
    (void)rkey;
    emu_qp_wr_fail(qpx, EOPNOTSUPP, "ibv_wr_send_inv (no memory windows)");
}

static void qp_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
    (void)hdr, (void)hdr_sz, (void)mss;
    emu_qp_wr_fail(qpx, EOPNOTSUPP, "ibv_wr_send_tso (raw packet QPs only)");
}

/*
 * Whether the open work request may take a destination from `call`: not
 * when the QP names none that way (`allowed` false: `refused` says why), nor
 * when no operation waits for one.
 */
static bool qp_wr_addr_ok(struct ibv_qp_ex *qpx, bool allowed, const char *call,
                          const char *refused, const char *unwaited)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    if (!allowed) {
        emu_qp_wr_fail(qpx, EINVAL, refused);
        return false;
    }
    if (!qp_wr_building(w, call))
        return false;
    if (!w->open || w->addressed) {
        emu_qp_wr_fail(qpx, EINVAL, unwaited);
        return false;
    }
    return true;
}

/* The open work request has its destination: written now if its data came first. */
static void qp_wr_addressed(struct ibv_qp_ex *qpx)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    w->addressed = true;
    if (w->has_data)
        qp_wr_write(qpx);
}

static void qp_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    if (!qp_wr_addr_ok(qpx, !emu_qp_of_ex(qpx)->tp->connected, "ibv_wr_set_ud_addr",
                       "ibv_wr_set_ud_addr (a connected QP has no UD address)",
                       "ibv_wr_set_ud_addr (no send operation waits for one)"))
        return;
    w->wr.wr.ud.ah = ah;
    w->wr.wr.ud.remote_qpn = qpn;
    w->wr.wr.ud.remote_qkey = qkey;
    qp_wr_addressed(qpx);
}

void emu_qp_wr_set_dc_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t dctn, uint64_t key)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    if (!qp_wr_addr_ok(qpx, emu_qp_of_ex(qpx)->tp->dc == PRM_QP_DC_DCI, "mlx5dv_wr_set_dc_addr",
                       "mlx5dv_wr_set_dc_addr (not a DCI)",
                       "mlx5dv_wr_set_dc_addr (no send operation waits for one)"))
        return;
    w->dc.ah = ah;
    w->dc.dctn = dctn;
    w->dc.key = key;
    qp_wr_addressed(qpx);
}

int emu_qp_wr_dc_av(struct emu_qp *qp, struct prm_wqe_datagram_seg *av)
{
    uint64_t key;

    if (qp->wr == NULL || emu_verbs_ah_av(qp->ibv.context, qp->wr->dc.ah, av) != 0) {
        EMU_LOG_ERR("mlx5dv_wr_set_dc_addr: a DCI work request needs an address handle of the "
                    "QP's context");
        return EINVAL;
    }
    /* The DC access key takes the Q_Key's 8 bytes; the DCT number goes with the extended AV. */
    key = htobe64(qp->wr->dc.key);
    memcpy(av, &key, sizeof(key));
    av->dqp_dct |= htobe32(PRM_WQE_AV_EXTENDED | (qp->wr->dc.dctn & 0xffffff));
    return 0;
}

/* An XRC work request's SRQ at the target; written now if its data came first. */
static void qp_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t srqn)
{
    struct emu_qp_wr *w = qp_wr(qpx);

    if (!qp_wr_addr_ok(qpx, emu_qp_of_ex(qpx)->tp->xrc, "ibv_wr_set_xrc_srqn",
                       "ibv_wr_set_xrc_srqn (only an XRC QP names an XRC SRQ)",
                       "ibv_wr_set_xrc_srqn (no operation waits for one)"))
        return;
    w->wr.qp_type.xrc.remote_srqn = srqn;
    qp_wr_addressed(qpx);
}

static void qp_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
                               const void *atomic_wr)
{
    (void)rkey, (void)remote_addr, (void)atomic_wr;
    emu_qp_wr_fail(qpx, EOPNOTSUPP, "ibv_wr_atomic_write");
}

int emu_verbs_qp_ex_check(uint64_t send_ops_flags, const char *call)
{
    if (send_ops_flags & ~(uint64_t)EMU_QP_EX_SEND_OPS) {
        EMU_LOG_ERR("%s: send_ops_flags 0x%lx ask for operations this device does not offer "
                    "(supported 0x%x: write, write with immediate, send, send with immediate, "
                    "read, compare-swap, fetch-add)",
                    call, (unsigned long)send_ops_flags, EMU_QP_EX_SEND_OPS);
        return EOPNOTSUPP;
    }
    return 0;
}

int emu_verbs_qp_ex_init(struct emu_qp *qp)
{
    struct ibv_qp_ex *x = &qp->ibv_ex;

    qp->wr = calloc(1, sizeof(*qp->wr));
    if (qp->wr == NULL)
        return ENOMEM;
    qp->wr->qp = qp;
    x->comp_mask = 0;
    x->wr_atomic_cmp_swp = qp_wr_atomic_cmp_swp;
    x->wr_atomic_fetch_add = qp_wr_atomic_fetch_add;
    x->wr_bind_mw = qp_wr_bind_mw;
    x->wr_local_inv = qp_wr_local_inv;
    x->wr_rdma_read = qp_wr_rdma_read;
    x->wr_rdma_write = qp_wr_rdma_write;
    x->wr_rdma_write_imm = qp_wr_rdma_write_imm;
    x->wr_send = qp_wr_send;
    x->wr_send_imm = qp_wr_send_imm;
    x->wr_send_inv = qp_wr_send_inv;
    x->wr_send_tso = qp_wr_send_tso;
    x->wr_set_ud_addr = qp_wr_set_ud_addr;
    x->wr_set_xrc_srqn = qp_wr_set_xrc_srqn;
    x->wr_set_inline_data = qp_wr_set_inline_data;
    x->wr_set_inline_data_list = qp_wr_set_inline_data_list;
    x->wr_set_sge = qp_wr_set_sge;
    x->wr_set_sge_list = qp_wr_set_sge_list;
    x->wr_start = qp_wr_start;
    x->wr_complete = qp_wr_complete;
    x->wr_abort = qp_wr_abort;
    x->wr_atomic_write = qp_wr_atomic_write;
    return 0;
}

void emu_verbs_qp_ex_free(struct emu_qp *qp)
{
    free(qp->wr);
    qp->wr = NULL;
}

EMU_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
    struct emu_qp *qp = (struct emu_qp *)ibqp;

    if (ibqp == NULL || ibqp->context == NULL || !emu_context_is_ours(ibqp->context)) {
        EMU_LOG_ERR("ibv_qp_to_qp_ex: %p is not a QP of a softmlx5 device", (void *)ibqp);
        errno = EINVAL;
        return NULL;
    }
    if (qp->wr == NULL) {
        /*
         * As rdma-core: only a QP created with send_ops_flags has the
         * extended interface. Programs ask for every QP and look past a
         * NULL for those (perftest for its DC target): logged as INFO.
         */
        EMU_LOG_INFO("ibv_qp_to_qp_ex: QP 0x%x was not created with "
                     "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: no extended interface",
                     qp->qpn);
        errno = EINVAL;
        return NULL;
    }
    return &qp->ibv_ex;
}
