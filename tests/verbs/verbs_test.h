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

#endif /* VERBS_TEST_H */
