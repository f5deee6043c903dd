/* SPDX-License-Identifier: BSD-3-Clause */
/* The stand-in SDK's libdoca_verbs.so (fake_sdk.h); it has no doca_verbs_qp_attr_create. */
#include <stddef.h>
#include <stdlib.h>

#include "doca_verbs.h"
#include "fake_sdk.h"

static struct fake_sdk_object *fake_new(uint32_t magic)
{
    struct fake_sdk_object *o = calloc(1, sizeof(*o));

    if (o != NULL)
        o->magic = magic;
    return o;
}

/* Frees an object of the stand-in, INVALID_VALUE for anything else. */
static doca_error_t fake_free(void *object, uint32_t magic)
{
    struct fake_sdk_object *o = object;

    if (o == NULL || o->magic != magic)
        return DOCA_ERROR_INVALID_VALUE;
    free(o);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_create(doca_verbs_cq_attr_t **cq_attr)
{
    fake_sdk_count();
    if (cq_attr == NULL)
        return DOCA_ERROR_INVALID_VALUE;
    *cq_attr = (doca_verbs_cq_attr_t *)(void *)fake_new(FAKE_SDK_CQ_ATTR_MAGIC);
    return *cq_attr != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

doca_error_t doca_verbs_cq_attr_set_cq_size(doca_verbs_cq_attr_t *cq_attr, uint32_t cq_size)
{
    struct fake_sdk_object *o = (struct fake_sdk_object *)(void *)cq_attr;

    fake_sdk_count();
    if (o == NULL || o->magic != FAKE_SDK_CQ_ATTR_MAGIC)
        return DOCA_ERROR_INVALID_VALUE;
    o->value = cq_size;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_destroy(doca_verbs_cq_attr_t *cq_attr)
{
    fake_sdk_count();
    return fake_free(cq_attr, FAKE_SDK_CQ_ATTR_MAGIC);
}

doca_error_t doca_verbs_qp_init_attr_create(doca_verbs_qp_init_attr_t **qp_init_attr)
{
    fake_sdk_count();
    if (qp_init_attr == NULL)
        return DOCA_ERROR_INVALID_VALUE;
    *qp_init_attr = (doca_verbs_qp_init_attr_t *)(void *)fake_new(FAKE_SDK_QP_INIT_ATTR_MAGIC);
    return *qp_init_attr != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

uint32_t doca_verbs_qp_init_attr_get_sq_wr(const doca_verbs_qp_init_attr_t *qp_init_attr)
{
    fake_sdk_count();
    return qp_init_attr != NULL ? FAKE_SDK_SQ_WR : 0;
}

doca_error_t doca_verbs_qp_init_attr_destroy(doca_verbs_qp_init_attr_t *qp_init_attr)
{
    fake_sdk_count();
    return fake_free(qp_init_attr, FAKE_SDK_QP_INIT_ATTR_MAGIC);
}

void doca_verbs_srq_get_wq(const struct doca_verbs_srq *verbs_srq, void **srq_buf,
                           uint32_t *srq_num_entries, uint32_t *rwqe_size_bytes)
{
    fake_sdk_count();
    *srq_buf = (void *)(uintptr_t)verbs_srq;
    *srq_num_entries = FAKE_SDK_SRQ_ENTRIES;
    *rwqe_size_bytes = FAKE_SDK_SRQ_STRIDE;
}
