/* SPDX-License-Identifier: BSD-3-Clause */
/* CQ attribute objects: plain values read by doca_verbs_cq_create(). */
#include <stdlib.h>

#include "core/sdk.h"
#include "verbs_internal.h"

#define VERBS_CQ_ATTR_CHECK(attr)                                                       \
    do {                                                                                \
        if ((attr) == NULL) {                                                           \
            DOCA_LOG_ERR("cq_attr is NULL: make one with doca_verbs_cq_attr_create()"); \
            return DOCA_ERROR_INVALID_VALUE;                                            \
        }                                                                               \
    } while (0)

doca_error_t doca_verbs_cq_attr_create(doca_verbs_cq_attr_t **verbs_cq_attr)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_create, (verbs_cq_attr), DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_cq_attr_t *attr;

    if (verbs_cq_attr == NULL) {
        DOCA_LOG_ERR("verbs_cq_attr is NULL: pass where to store the new object");
        return DOCA_ERROR_INVALID_VALUE;
    }
    attr = calloc(1, sizeof(*attr));
    if (attr == NULL) {
        DOCA_LOG_ERR("out of memory for a CQ attribute object");
        return DOCA_ERROR_NO_MEMORY;
    }
    attr->overrun = DOCA_VERBS_CQ_DISABLE_OVERRUN;
    *verbs_cq_attr = attr;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_destroy(doca_verbs_cq_attr_t *verbs_cq_attr)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_destroy, (verbs_cq_attr), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(verbs_cq_attr);
    free(verbs_cq_attr);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_cq_size(doca_verbs_cq_attr_t *cq_attr, uint32_t cq_size)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_cq_size, (cq_attr, cq_size), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    if (cq_size == 0) {
        DOCA_LOG_ERR("cq_size 0: a CQ holds at least one CQE");
        return DOCA_ERROR_INVALID_VALUE;
    }
    cq_attr->cq_size = cq_size;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_cq_context(doca_verbs_cq_attr_t *cq_attr, void *cq_context)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_cq_context, (cq_attr, cq_context),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    cq_attr->cq_context = cq_context;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_external_umem(doca_verbs_cq_attr_t *cq_attr,
                                                  doca_verbs_umem_t *external_umem,
                                                  uint64_t external_umem_offset)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_external_umem,
                  (cq_attr, external_umem, external_umem_offset), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    cq_attr->umem = external_umem;
    cq_attr->umem_offset = external_umem != NULL ? external_umem_offset : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_external_dbr_umem(doca_verbs_cq_attr_t *cq_attr,
                                                      doca_verbs_umem_t *external_dbr_umem,
                                                      uint64_t external_dbr_umem_offset)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_external_dbr_umem,
                  (cq_attr, external_dbr_umem, external_dbr_umem_offset), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    cq_attr->dbr_umem = external_dbr_umem;
    cq_attr->dbr_umem_offset = external_dbr_umem != NULL ? external_dbr_umem_offset : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_external_uar(doca_verbs_cq_attr_t *cq_attr,
                                                 doca_verbs_uar_t *external_uar)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_external_uar, (cq_attr, external_uar),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    cq_attr->uar = external_uar;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_cq_overrun(doca_verbs_cq_attr_t *cq_attr,
                                               enum doca_verbs_cq_overrun overrun)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_cq_overrun, (cq_attr, overrun), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    if (overrun != DOCA_VERBS_CQ_DISABLE_OVERRUN && overrun != DOCA_VERBS_CQ_ENABLE_OVERRUN) {
        DOCA_LOG_ERR("overrun %d is unknown: use DOCA_VERBS_CQ_DISABLE_OVERRUN or "
                     "DOCA_VERBS_CQ_ENABLE_OVERRUN",
                     (int)overrun);
        return DOCA_ERROR_INVALID_VALUE;
    }
    cq_attr->overrun = overrun;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_cq_collapsed(doca_verbs_cq_attr_t *cq_attr, uint8_t cc)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_cq_collapsed, (cq_attr, cc), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    if (cc > 1) {
        DOCA_LOG_ERR("cc %u: 0 (regular) or 1 (collapsed)", (unsigned int)cc);
        return DOCA_ERROR_INVALID_VALUE;
    }
    cq_attr->collapsed = cc;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_comp_channel(doca_verbs_cq_attr_t *cq_attr,
                                                 doca_verbs_comp_channel_t *comp_channel)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_comp_channel, (cq_attr, comp_channel),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    cq_attr->comp_channel = comp_channel;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_cq_attr_set_st(doca_verbs_cq_attr_t *cq_attr,
                                       enum doca_verbs_cq_state cq_state)
{
    DGN_SDK_ROUTE(doca_verbs_cq_attr_set_st, (cq_attr, cq_state), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_CQ_ATTR_CHECK(cq_attr);
    if ((unsigned int)cq_state > DOCA_VERBS_CQ_ST_FIRED) {
        DOCA_LOG_ERR("cq_state %d is not a doca_verbs_cq_state (NO_ACTION ... FIRED)",
                     (int)cq_state);
        return DOCA_ERROR_INVALID_VALUE;
    }
    cq_attr->st = cq_state;
    return DOCA_SUCCESS;
}
