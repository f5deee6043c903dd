/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP creation attributes: plain values read by doca_verbs_qp_create(). Ranges
 * that do not depend on the device are checked here; the device's limits at
 * creation.
 */
#include <stdlib.h>

#include "core/sdk.h"
#include "verbs_internal.h"

#define VERBS_QP_INIT_ATTR_CHECK(attr)                                                            \
    do {                                                                                          \
        if ((attr) == NULL) {                                                                     \
            DOCA_LOG_ERR("qp_init_attr is NULL: make one with doca_verbs_qp_init_attr_create()"); \
            return DOCA_ERROR_INVALID_VALUE;                                                      \
        }                                                                                         \
    } while (0)

/* A setter that stores its argument as is. */
#define VERBS_QP_INIT_ATTR_SETTER(name, type, field)                                         \
    doca_error_t doca_verbs_qp_init_attr_set_##name(doca_verbs_qp_init_attr_t *qp_init_attr, \
                                                    type value)                              \
    {                                                                                        \
        DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_##name, (qp_init_attr, value),             \
                      DOCA_ERROR_NOT_SUPPORTED);                                             \
        VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);                                              \
        qp_init_attr->field = value;                                                         \
        return DOCA_SUCCESS;                                                                 \
    }

/* A setter of a count that must not be zero; `why` completes the log line. */
#define VERBS_QP_INIT_ATTR_NONZERO_SETTER(name, why)                                         \
    doca_error_t doca_verbs_qp_init_attr_set_##name(doca_verbs_qp_init_attr_t *qp_init_attr, \
                                                    uint32_t name)                           \
    {                                                                                        \
        DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_##name, (qp_init_attr, name),              \
                      DOCA_ERROR_NOT_SUPPORTED);                                             \
        VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);                                              \
        if (name == 0) {                                                                     \
            DOCA_LOG_ERR(#name " 0: " why);                                                  \
            return DOCA_ERROR_INVALID_VALUE;                                                 \
        }                                                                                    \
        qp_init_attr->name = name;                                                           \
        return DOCA_SUCCESS;                                                                 \
    }

#define VERBS_QP_INIT_ATTR_GETTER(name, field)                                                 \
    uint32_t doca_verbs_qp_init_attr_get_##name(const doca_verbs_qp_init_attr_t *qp_init_attr) \
    {                                                                                          \
        DGN_SDK_ROUTE(doca_verbs_qp_init_attr_get_##name, (qp_init_attr), 0);                  \
        return qp_init_attr != NULL ? (uint32_t)qp_init_attr->field : 0;                       \
    }

#define VERBS_USER_INDEX_MAX 0xffffffu

doca_error_t doca_verbs_qp_init_attr_create(doca_verbs_qp_init_attr_t **verbs_qp_init_attr)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_create, (verbs_qp_init_attr), DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_qp_init_attr_t *attr;

    if (verbs_qp_init_attr == NULL) {
        DOCA_LOG_ERR("verbs_qp_init_attr is NULL: pass where to store the new object");
        return DOCA_ERROR_INVALID_VALUE;
    }
    attr = calloc(1, sizeof(*attr));
    if (attr == NULL) {
        DOCA_LOG_ERR("out of memory for a QP init attribute object");
        return DOCA_ERROR_NO_MEMORY;
    }
    attr->qp_type = DOCA_VERBS_QP_TYPE_RC;
    attr->send_max_sges = 1;
    attr->receive_max_sges = 1;
    attr->send_dbr_mode = DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID;
    *verbs_qp_init_attr = attr;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_init_attr_destroy(doca_verbs_qp_init_attr_t *qp_init_attr)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_destroy, (qp_init_attr), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);
    free(qp_init_attr);
    return DOCA_SUCCESS;
}

VERBS_QP_INIT_ATTR_SETTER(pd, doca_dev_t *, pd_dev)
VERBS_QP_INIT_ATTR_SETTER(send_cq, doca_verbs_cq_t *, send_cq)
VERBS_QP_INIT_ATTR_SETTER(receive_cq, doca_verbs_cq_t *, receive_cq)
VERBS_QP_INIT_ATTR_SETTER(sq_sig_all, int, sq_sig_all)
VERBS_QP_INIT_ATTR_SETTER(rq_wr, uint32_t, rq_wr)
VERBS_QP_INIT_ATTR_SETTER(max_inline_data, uint32_t, max_inline_data)
VERBS_QP_INIT_ATTR_SETTER(external_uar, doca_verbs_uar_t *, uar)
VERBS_QP_INIT_ATTR_SETTER(qp_context, void *, qp_context)
VERBS_QP_INIT_ATTR_SETTER(srq, struct doca_verbs_srq *, srq)
VERBS_QP_INIT_ATTR_SETTER(emulate_no_dbr_ext, bool, emulate_no_dbr_ext)

VERBS_QP_INIT_ATTR_NONZERO_SETTER(sq_wr, "an RC QP needs at least one send WQE")

VERBS_QP_INIT_ATTR_NONZERO_SETTER(send_max_sges, "a send WQE carries at least one SGE")

VERBS_QP_INIT_ATTR_NONZERO_SETTER(receive_max_sges, "a receive WQE carries at least one SGE")

doca_error_t doca_verbs_qp_init_attr_set_user_index(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                    uint32_t user_index)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_user_index, (qp_init_attr, user_index),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);
    if (user_index > VERBS_USER_INDEX_MAX) {
        DOCA_LOG_ERR("user_index 0x%x does not fit 24 bits", user_index);
        return DOCA_ERROR_INVALID_VALUE;
    }
    qp_init_attr->user_index = user_index;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_init_attr_set_qp_type(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                 uint32_t qp_type)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_qp_type, (qp_init_attr, qp_type),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);
    if (qp_type != DOCA_VERBS_QP_TYPE_RC) {
        DOCA_LOG_ERR("qp_type %u: only DOCA_VERBS_QP_TYPE_RC (0) is implemented", qp_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    qp_init_attr->qp_type = qp_type;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_init_attr_set_external_umem(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                       doca_verbs_umem_t *external_umem,
                                                       uint64_t external_umem_offset)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_external_umem,
                  (qp_init_attr, external_umem, external_umem_offset), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);
    qp_init_attr->umem = external_umem;
    qp_init_attr->umem_offset = external_umem != NULL ? external_umem_offset : 0;
    return DOCA_SUCCESS;
}

doca_error_t
doca_verbs_qp_init_attr_get_external_umem(const doca_verbs_qp_init_attr_t *qp_init_attr,
                                          doca_verbs_umem_t **external_umem,
                                          uint64_t *external_umem_offset)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_get_external_umem,
                  (qp_init_attr, external_umem, external_umem_offset), DOCA_ERROR_NOT_SUPPORTED);

    if (qp_init_attr == NULL || external_umem == NULL || external_umem_offset == NULL) {
        DOCA_LOG_ERR("qp_init_attr (%p), external_umem (%p) and external_umem_offset (%p) must "
                     "not be NULL",
                     (const void *)qp_init_attr, (void *)external_umem,
                     (void *)external_umem_offset);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *external_umem = qp_init_attr->umem;
    *external_umem_offset = qp_init_attr->umem_offset;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_init_attr_set_external_umem_dbr(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                           doca_verbs_umem_t *external_umem,
                                                           uint64_t external_umem_offset)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_external_umem_dbr,
                  (qp_init_attr, external_umem, external_umem_offset), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);
    qp_init_attr->dbr_umem = external_umem;
    qp_init_attr->dbr_umem_offset = external_umem != NULL ? external_umem_offset : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_init_attr_set_core_direct_master(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                            uint8_t core_direct_master)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_core_direct_master,
                  (qp_init_attr, core_direct_master), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);
    if (core_direct_master > 1) {
        DOCA_LOG_ERR("core_direct_master %u: 0 or 1", (unsigned int)core_direct_master);
        return DOCA_ERROR_INVALID_VALUE;
    }
    qp_init_attr->core_direct_master = core_direct_master;
    return DOCA_SUCCESS;
}

doca_error_t
doca_verbs_qp_init_attr_set_send_dbr_mode(doca_verbs_qp_init_attr_t *qp_init_attr,
                                          enum doca_verbs_qp_send_dbr_mode send_dbr_mode)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_send_dbr_mode, (qp_init_attr, send_dbr_mode),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(qp_init_attr);
    if (send_dbr_mode != DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID &&
        send_dbr_mode != DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT) {
        DOCA_LOG_ERR("send_dbr_mode %d: DBR_VALID (0) or NO_DBR_EXT (1)", (int)send_dbr_mode);
        return DOCA_ERROR_INVALID_VALUE;
    }
    qp_init_attr->send_dbr_mode = send_dbr_mode;
    return DOCA_SUCCESS;
}

doca_error_t
doca_verbs_qp_init_attr_get_send_dbr_mode(const doca_verbs_qp_init_attr_t *qp_init_attr,
                                          enum doca_verbs_qp_send_dbr_mode *send_dbr_mode)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_get_send_dbr_mode, (qp_init_attr, send_dbr_mode),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (qp_init_attr == NULL || send_dbr_mode == NULL) {
        DOCA_LOG_ERR("qp_init_attr (%p) and send_dbr_mode (%p) must not be NULL",
                     (const void *)qp_init_attr, (void *)send_dbr_mode);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *send_dbr_mode = qp_init_attr->send_dbr_mode;
    return DOCA_SUCCESS;
}

doca_error_t
doca_verbs_qp_init_attr_get_emulate_no_dbr_ext(const doca_verbs_qp_init_attr_t *qp_init_attr,
                                               bool *emulate_no_dbr_ext)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_get_emulate_no_dbr_ext,
                  (qp_init_attr, emulate_no_dbr_ext), DOCA_ERROR_NOT_SUPPORTED);

    if (qp_init_attr == NULL || emulate_no_dbr_ext == NULL) {
        DOCA_LOG_ERR("qp_init_attr (%p) and emulate_no_dbr_ext (%p) must not be NULL",
                     (const void *)qp_init_attr, (void *)emulate_no_dbr_ext);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *emulate_no_dbr_ext = qp_init_attr->emulate_no_dbr_ext;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_init_attr_set_ordering_semantic(
        doca_verbs_qp_init_attr_t *verbs_qp_init_attr,
        enum doca_verbs_qp_ordering_semantic ordering_semantic)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_set_ordering_semantic,
                  (verbs_qp_init_attr, ordering_semantic), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_INIT_ATTR_CHECK(verbs_qp_init_attr);
    if ((unsigned int)ordering_semantic > DOCA_VERBS_QP_ORDERING_SEMANTIC_OOO_ALL) {
        DOCA_LOG_ERR("ordering_semantic %d: IBTA (0), OOO_RW (1) or OOO_ALL (2)",
                     (int)ordering_semantic);
        return DOCA_ERROR_INVALID_VALUE;
    }
    verbs_qp_init_attr->ordering_semantic = ordering_semantic;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_init_attr_get_ordering_semantic(
        const doca_verbs_qp_init_attr_t *verbs_qp_init_attr,
        enum doca_verbs_qp_ordering_semantic *ordering_semantic)
{
    DGN_SDK_ROUTE(doca_verbs_qp_init_attr_get_ordering_semantic,
                  (verbs_qp_init_attr, ordering_semantic), DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_qp_init_attr == NULL || ordering_semantic == NULL) {
        DOCA_LOG_ERR("verbs_qp_init_attr (%p) and ordering_semantic (%p) must not be NULL",
                     (const void *)verbs_qp_init_attr, (void *)ordering_semantic);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *ordering_semantic = verbs_qp_init_attr->ordering_semantic;
    return DOCA_SUCCESS;
}

VERBS_QP_INIT_ATTR_GETTER(sq_wr, sq_wr)
VERBS_QP_INIT_ATTR_GETTER(rq_wr, rq_wr)
VERBS_QP_INIT_ATTR_GETTER(send_max_sges, send_max_sges)
VERBS_QP_INIT_ATTR_GETTER(receive_max_sges, receive_max_sges)
VERBS_QP_INIT_ATTR_GETTER(max_inline_data, max_inline_data)
VERBS_QP_INIT_ATTR_GETTER(qp_type, qp_type)
