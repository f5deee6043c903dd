/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended QP interface (struct ibv_qp_ex, the ibv_wr_* calls) of
 * standard-verbs QPs created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, and its
 * mlx5 view (struct mlx5dv_qp_ex). Between wr_start and wr_complete the QP's
 * post lock is held; each operation call (wr_send, wr_rdma_write, ...) opens
 * a work request from the QP's wr_id and wr_flags, and its data call
 * (wr_set_sge, wr_set_sge_list, wr_set_inline_data, _list) writes its mlx5
 * WQE into the ring with the WQE builder ibv_post_send uses
 * (emu_verbs_sq_put). wr_complete publishes the WQEs and rings the doorbell;
 * after any error since wr_start (a full queue: ENOMEM, a bad request:
 * EINVAL, an operation the QP does not offer: EOPNOTSUPP) it posts nothing,
 * as libmlx5 does, and returns that error. wr_abort posts nothing.
 */
#ifndef EMU_ABI_VERBS_QP_EX_H
#define EMU_ABI_VERBS_QP_EX_H

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nic/caps.h"
#include "nic/qp.h"
#include "prm/mlx5_wqe.h"

struct emu_qp_wr {
    struct emu_qp *qp;               /* the QP it builds for */
    struct ibv_send_wr wr;           /* the work request being built */
    struct ibv_sge sge[EMU_MAX_SGE]; /* its gather list, or its inline pieces */
    bool open;                       /* wr has its operation, its data is still to come */
    bool has_data;                   /* UD, DCI, XRC: its data came, its address may be to come */
    bool addressed;                  /* its destination came: wr_set_ud_addr, _dc_addr, _xrc_srqn */
    bool started;                    /* between wr_start and wr_complete / wr_abort */
    pthread_t owner;                 /* the thread that called wr_start */
    int err;                         /* the first error since wr_start */
    uint32_t start_producer;         /* sq_producer at wr_start: what an error rolls back to */
    struct mlx5dv_qp_ex dv;          /* mlx5dv_qp_ex_from_ibv_qp_ex's view (dv/dv_qp.c) */
    struct {                         /* a DCI wr: mlx5dv_wr_set_dc_addr's destination */
        struct ibv_ah *ah;
        uint32_t dctn;
        uint64_t key;
    } dc;
};

/* The operations the builder offers (IBV_QP_EX_WITH_*). */
#define EMU_QP_EX_SEND_OPS                                                                         \
    (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |        \
     IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/* 0, or EOPNOTSUPP (logged, naming `call`) for operations the device does not offer. */
int emu_verbs_qp_ex_check(uint64_t send_ops_flags, const char *call);
/* Gives a new QP its builder and the ibv_qp_ex calls; 0 or ENOMEM. */
int emu_verbs_qp_ex_init(struct emu_qp *qp);
void emu_verbs_qp_ex_free(struct emu_qp *qp);

static inline struct emu_qp *emu_qp_of_ex(struct ibv_qp_ex *qpx)
{
    return (struct emu_qp *)qpx;
}

/*
 * Records err as the builder's error (the first one since wr_start is kept)
 * and logs it, naming `call`: for calls the QP does not offer, including
 * libmlx5's mlx5dv_qp_ex calls (exported for libmlx5.so.1).
 */
void emu_qp_wr_fail(struct ibv_qp_ex *qpx, int err, const char *call);

/* A DCI work request's destination (mlx5dv_wr_set_dc_addr); written now if its data came first. */
void emu_qp_wr_set_dc_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t dctn, uint64_t key);

/* The datagram segment of a DCI's WQE from its work request's DC address; errno-style. */
int emu_qp_wr_dc_av(struct emu_qp *qp, struct prm_wqe_datagram_seg *av);

/* ibv_create_qp_ex for service type st (PRM_QP_ST_*, prm_qp_transport.h), as mlx5dv_create_qp's. */
struct ibv_qp *emu_verbs_create_qp_st(struct ibv_context *context, struct ibv_qp_init_attr_ex *a,
                                      uint8_t st);

#endif /* EMU_ABI_VERBS_QP_EX_H */
