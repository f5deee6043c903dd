/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the DOCA Verbs tests: the first RDMA device (under
 * softmlx5-run, the software NIC), a PD and the DOCA Verbs device on it,
 * and objects made with few lines.
 */
#ifndef VERBS_TEST_H
#define VERBS_TEST_H

#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doca_verbs.h"

#define VT_SKIP 77

struct vt_dev {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    doca_dev_t *dev;
};

/* Opens the first device; exits 77 ("skipped: ...") when there is none. */
static inline void vt_open(struct vt_dev *d)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);

    if (list == NULL || n == 0) {
        printf("skipped: no RDMA device (run under softmlx5-run)\n");
        exit(VT_SKIP);
    }
    d->ctx = ibv_open_device(list[0]);
    ibv_free_device_list(list);
    if (d->ctx == NULL) {
        fprintf(stderr, "ibv_open_device failed\n");
        exit(1);
    }
    d->pd = ibv_alloc_pd(d->ctx);
    if (d->pd == NULL || doca_verbs_dev_open(d->pd, &d->dev) != DOCA_SUCCESS) {
        fprintf(stderr, "PD or doca_verbs_dev_open failed\n");
        exit(1);
    }
}

static inline void vt_close(struct vt_dev *d)
{
    if (doca_verbs_dev_close(d->dev) != DOCA_SUCCESS)
        fprintf(stderr, "doca_verbs_dev_close refused: objects leaked by the test\n");
    ibv_dealloc_pd(d->pd);
    ibv_close_device(d->ctx);
}

/* A CQ of `size` entries in internal memory, or NULL. */
static inline doca_verbs_cq_t *vt_cq(doca_dev_t *dev, uint32_t size)
{
    doca_verbs_cq_attr_t *attr = NULL;
    doca_verbs_cq_t *cq = NULL;

    if (doca_verbs_cq_attr_create(&attr) != DOCA_SUCCESS)
        return NULL;
    doca_verbs_cq_attr_set_cq_size(attr, size);
    if (doca_verbs_cq_create(dev, attr, &cq) != DOCA_SUCCESS)
        cq = NULL;
    doca_verbs_cq_attr_destroy(attr);
    return cq;
}

/* QP init attributes for an RC QP on cq (send and receive). */
static inline doca_verbs_qp_init_attr_t *vt_qp_attr(doca_dev_t *dev, doca_verbs_cq_t *cq,
                                                    uint32_t sq_wr, uint32_t rq_wr)
{
    doca_verbs_qp_init_attr_t *a = NULL;

    if (doca_verbs_qp_init_attr_create(&a) != DOCA_SUCCESS)
        return NULL;
    doca_verbs_qp_init_attr_set_pd(a, dev);
    doca_verbs_qp_init_attr_set_send_cq(a, cq);
    doca_verbs_qp_init_attr_set_receive_cq(a, cq);
    doca_verbs_qp_init_attr_set_sq_wr(a, sq_wr);
    doca_verbs_qp_init_attr_set_rq_wr(a, rq_wr);
    return a;
}

/*
 * Brings qp from RST to RTS, connected to remote_qpn at the peer whose GID
 * (RoCE) or LID (InfiniBand link layer) is given; remote read, write and
 * atomics allowed. 0, or the OR of the refused transitions' codes.
 */
static inline int vt_connect(struct vt_dev *d, doca_verbs_qp_t *qp, uint32_t remote_qpn,
                             const uint8_t remote_gid[16], uint16_t remote_lid)
{
#define VT_A(bit) DOCA_VERBS_QP_ATTR_##bit
    doca_verbs_qp_attr_t *a = NULL;
    doca_verbs_ah_attr_t *ah = NULL;
    struct doca_verbs_gid gid;
    struct ibv_port_attr pa;
    int rc = 0;

    if (doca_verbs_qp_attr_create(&a) != DOCA_SUCCESS ||
        doca_verbs_ah_attr_create(d->dev, &ah) != DOCA_SUCCESS)
        return -1;
    doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_INIT);
    doca_verbs_qp_attr_set_pkey_index(a, 0);
    doca_verbs_qp_attr_set_port_num(a, 1);
    doca_verbs_qp_attr_set_allow_remote_write(a, 1);
    doca_verbs_qp_attr_set_allow_remote_read(a, 1);
    doca_verbs_qp_attr_set_atomic_mode(a, DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC);
    rc |= doca_verbs_qp_modify(qp, a,
                               VT_A(NEXT_STATE) | VT_A(PKEY_INDEX) | VT_A(PORT_NUM) |
                                       VT_A(ALLOW_REMOTE_WRITE) | VT_A(ALLOW_REMOTE_READ) |
                                       VT_A(ATOMIC_MODE));
    memcpy(gid.raw, remote_gid, 16);
    doca_verbs_ah_attr_set_gid(ah, gid);
    if (ibv_query_port(d->ctx, 1, &pa) == 0 && pa.link_layer == IBV_LINK_LAYER_INFINIBAND) {
        doca_verbs_ah_attr_set_addr_type(ah, DOCA_VERBS_ADDR_TYPE_IB_NO_GRH);
        doca_verbs_ah_attr_set_dlid(ah, remote_lid);
    }
    doca_verbs_qp_attr_set_ah_attr(a, ah);
    doca_verbs_ah_attr_destroy(ah);
    doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_RTR);
    doca_verbs_qp_attr_set_rq_psn(a, 0);
    doca_verbs_qp_attr_set_dest_qp_num(a, remote_qpn);
    doca_verbs_qp_attr_set_path_mtu(a, DOCA_VERBS_MTU_SIZE_1K_BYTES);
    doca_verbs_qp_attr_set_min_rnr_timer(a, 12);
    doca_verbs_qp_attr_set_max_dest_rd_atomic(a, 4);
    rc |= doca_verbs_qp_modify(qp, a,
                               VT_A(NEXT_STATE) | VT_A(RQ_PSN) | VT_A(DEST_QP_NUM) |
                                       VT_A(PATH_MTU) | VT_A(AH_ATTR) | VT_A(MIN_RNR_TIMER) |
                                       VT_A(MAX_DEST_RD_ATOMIC));
    doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_RTS);
    doca_verbs_qp_attr_set_sq_psn(a, 0);
    doca_verbs_qp_attr_set_ack_timeout(a, 14);
    doca_verbs_qp_attr_set_retry_cnt(a, 7);
    doca_verbs_qp_attr_set_rnr_retry(a, 7);
    doca_verbs_qp_attr_set_max_rd_atomic(a, 4);
    rc |= doca_verbs_qp_modify(qp, a,
                               VT_A(NEXT_STATE) | VT_A(SQ_PSN) | VT_A(ACK_TIMEOUT) |
                                       VT_A(RETRY_CNT) | VT_A(RNR_RETRY) | VT_A(MAX_QP_RD_ATOMIC));
    doca_verbs_qp_attr_destroy(a);
    return rc;
#undef VT_A
}

/* The local port's LID and first GID, for a peer's vt_connect(). */
static inline void vt_address(struct vt_dev *d, uint16_t *lid, uint8_t gid[16])
{
    struct ibv_port_attr pa;
    union ibv_gid g;

    *lid = ibv_query_port(d->ctx, 1, &pa) == 0 ? pa.lid : 0;
    memset(gid, 0, 16);
    if (ibv_query_gid(d->ctx, 1, 0, &g) == 0)
        memcpy(gid, g.raw, 16);
}

/*
 * The cq_context of the next event on a completion channel, waiting up to
 * timeout_ms; NULL when none came. Any answer but SUCCESS or AGAIN (with a
 * NULL context) counts in *bad.
 */
static inline void *vt_wait_cq_event(doca_verbs_comp_channel_t *ch, int timeout_ms, int *bad)
{
    struct timespec t = {0, 1000000};
    void *ctx = NULL;

    for (int waited = 0; waited <= timeout_ms; waited++) {
        doca_error_t err = doca_verbs_get_cq_comp_channel_event(ch, &ctx);

        if (err == DOCA_SUCCESS)
            return ctx;
        if (err != DOCA_ERROR_AGAIN || ctx != NULL)
            (*bad)++;
        nanosleep(&t, NULL);
    }
    return NULL;
}

#endif /* VERBS_TEST_H */
