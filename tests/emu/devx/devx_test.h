/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the DevX tests: checks, the first device, PRM command builders
 * for UARs, umems, CQs and RC QPs. Tests are ordinary rdma-core programs.
 */
#ifndef DEVX_TEST_H
#define DEVX_TEST_H

#include <errno.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prm/prm_cmd.h"
#include "prm/prm_cq.h"
#include "prm/prm_hca_cap.h"
#include "prm/prm_qp.h"

#define DT_SKIP 77

#define DT_CHECK(cond)                                                                         \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: check failed: %s (errno %d)\n", __FILE__, __LINE__, #cond, \
                    errno);                                                                    \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static inline struct ibv_context *dt_open(void)
{
    struct mlx5dv_context_attr attr = {.flags = MLX5DV_CONTEXT_FLAGS_DEVX};
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_context *ctx;

    DT_CHECK(list != NULL && list[0] != NULL);
    DT_CHECK(mlx5dv_is_supported(list[0]));
    ctx = mlx5dv_open_device(list[0], &attr);
    DT_CHECK(ctx != NULL);
    ibv_free_device_list(list);
    return ctx;
}

static inline uint8_t dt_status(const void *out)
{
    return (uint8_t)PRM_GET(out, PRM_CMD_STATUS);
}

static inline uint32_t dt_syndrome(const void *out)
{
    return (uint32_t)PRM_GET(out, PRM_CMD_SYNDROME);
}

/* A PD through ALLOC_PD; returns the PDN. */
static inline struct mlx5dv_devx_obj *dt_alloc_pd(struct ibv_context *ctx, uint32_t *pdn)
{
    uint8_t in[0x10] = {0}, out[0x10] = {0};
    struct mlx5dv_devx_obj *obj;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_ALLOC_PD);
    obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
    DT_CHECK(obj != NULL);
    *pdn = (uint32_t)prm_get_field(out, 0x08, 0, 24);
    return obj;
}

struct dt_cq_args {
    uint32_t log_size;
    uint32_t uar_page;
    uint32_t umem_id;
    uint64_t umem_offset;
    uint32_t dbr_umem_id;
    uint64_t dbr_offset;
};

/* CREATE_CQ into in (PRM_CREATE_CQ_IN_SIZE bytes). */
static inline void dt_build_create_cq(void *in, const struct dt_cq_args *a)
{
    void *cqc = PRM_AT(in, PRM_CREATE_CQ_IN_CQC);

    memset(in, 0, PRM_CREATE_CQ_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_CQ);
    PRM_SET(cqc, PRM_CQC_CQE_SZ, PRM_CQC_CQE_SZ_64);
    PRM_SET(cqc, PRM_CQC_LOG_CQ_SIZE, a->log_size);
    PRM_SET(cqc, PRM_CQC_UAR_PAGE, a->uar_page);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_VALID, 1);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_ID, a->dbr_umem_id);
    PRM_SET(cqc, PRM_CQC_DBR_ADDR, a->dbr_offset);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_VALID, 1);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_ID, a->umem_id);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_OFFSET, a->umem_offset);
}

struct dt_qp_args {
    uint32_t pdn;
    uint32_t cqn;
    uint32_t uar_page;
    uint32_t log_sq_size;
    uint32_t log_rq_size; /* with a 64-byte stride */
    uint32_t umem_id;
    uint64_t umem_offset;
    uint32_t dbr_umem_id;
    uint64_t dbr_offset;
};

/* CREATE_QP (RC) into in (PRM_CREATE_QP_IN_SIZE bytes). */
static inline void dt_build_create_qp(void *in, const struct dt_qp_args *a)
{
    void *qpc = PRM_AT(in, PRM_CREATE_QP_IN_QPC);

    memset(in, 0, PRM_CREATE_QP_IN_SIZE);
    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_QP);
    PRM_SET(qpc, PRM_QPC_ST, PRM_QP_ST_RC);
    PRM_SET(qpc, PRM_QPC_PM_STATE, PRM_QP_PM_STATE_MIGRATED);
    PRM_SET(qpc, PRM_QPC_PD, a->pdn);
    PRM_SET(qpc, PRM_QPC_UAR_PAGE, a->uar_page);
    PRM_SET(qpc, PRM_QPC_LOG_SQ_SIZE, a->log_sq_size);
    PRM_SET(qpc, PRM_QPC_LOG_RQ_SIZE, a->log_rq_size);
    PRM_SET(qpc, PRM_QPC_LOG_RQ_STRIDE, 2); /* 64-byte receive WQEs */
    PRM_SET(qpc, PRM_QPC_RQ_TYPE, PRM_QP_RQ_TYPE_REGULAR);
    PRM_SET(qpc, PRM_QPC_CQN_SND, a->cqn);
    PRM_SET(qpc, PRM_QPC_CQN_RCV, a->cqn);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_VALID, 1);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_ID, a->dbr_umem_id);
    PRM_SET(qpc, PRM_QPC_DBR_ADDR, a->dbr_offset);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_VALID, 1);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_ID, a->umem_id);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_OFFSET, a->umem_offset);
}

/* A QP transition command without attributes beyond the QPN (2ERR, 2RST, or a bare one). */
static inline int dt_qp_cmd(struct mlx5dv_devx_obj *qp, uint16_t opcode, uint32_t qpn, void *in,
                            size_t inlen, uint8_t *status)
{
    uint8_t out[0x10] = {0};
    int rc;

    PRM_SET(in, PRM_CMD_OPCODE, opcode);
    prm_set_field(in, 0x08, 0, 24, qpn);
    rc = mlx5dv_devx_obj_modify(qp, in, inlen, out, sizeof(out));
    *status = dt_status(out);
    return rc;
}

#endif /* DEVX_TEST_H */
