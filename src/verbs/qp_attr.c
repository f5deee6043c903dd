/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP attributes for doca_verbs_qp_modify() and doca_verbs_qp_query(). The
 * setters refuse values outside a field's PRM width; the device's own limits
 * (ports, P_Key table, outstanding reads) are checked at modify time.
 */
#include <stdlib.h>

#include "core/sdk.h"
#include "verbs_internal.h"

#define VERBS_PSN_MAX   0xffffffu
#define VERBS_QPN_MAX   0xffffffu
#define VERBS_TIMER_MAX 31u /* ack_timeout, min_rnr_timer: 5 bits */
#define VERBS_RETRY_MAX 7u  /* retry_cnt, rnr_retry: 3 bits */

/* Whether value <= max; logs the refusal. */
static bool verbs_in_range(const char *name, uint64_t value, uint64_t max)
{
    if (value <= max)
        return true;
    DOCA_LOG_ERR("%s %llu is out of range: at most %llu", name, (unsigned long long)value,
                 (unsigned long long)max);
    return false;
}

#define VERBS_QP_ATTR_CHECK(attr)                                                       \
    do {                                                                                \
        if ((attr) == NULL) {                                                           \
            DOCA_LOG_ERR("qp_attr is NULL: make one with doca_verbs_qp_attr_create()"); \
            return DOCA_ERROR_INVALID_VALUE;                                            \
        }                                                                               \
    } while (0)

/* A setter storing a value no larger than max. */
#define VERBS_QP_ATTR_SETTER(name, type, max)                                                     \
    doca_error_t doca_verbs_qp_attr_set_##name(doca_verbs_qp_attr_t *qp_attr, type value)         \
    {                                                                                             \
        DGN_SDK_ROUTE(doca_verbs_qp_attr_set_##name, (qp_attr, value), DOCA_ERROR_NOT_SUPPORTED); \
        VERBS_QP_ATTR_CHECK(qp_attr);                                                             \
        if (!verbs_in_range(#name, (uint64_t)value, (uint64_t)(max)))                             \
            return DOCA_ERROR_INVALID_VALUE;                                                      \
        qp_attr->name = value;                                                                    \
        return DOCA_SUCCESS;                                                                      \
    }

#define VERBS_QP_ATTR_GETTER(name, type)                                    \
    type doca_verbs_qp_attr_get_##name(const doca_verbs_qp_attr_t *qp_attr) \
    {                                                                       \
        DGN_SDK_ROUTE(doca_verbs_qp_attr_get_##name, (qp_attr), (type)0);   \
        return qp_attr != NULL ? (type)qp_attr->name : (type)0;             \
    }

doca_error_t doca_verbs_qp_attr_create(doca_verbs_qp_attr_t **verbs_qp_attr)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_create, (verbs_qp_attr), DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_qp_attr_t *attr;

    if (verbs_qp_attr == NULL) {
        DOCA_LOG_ERR("verbs_qp_attr is NULL: pass where to store the new object");
        return DOCA_ERROR_INVALID_VALUE;
    }
    attr = calloc(1, sizeof(*attr));
    if (attr == NULL) {
        DOCA_LOG_ERR("out of memory for a QP attribute object");
        return DOCA_ERROR_NO_MEMORY;
    }
    *verbs_qp_attr = attr;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_attr_destroy(doca_verbs_qp_attr_t *qp_attr)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_destroy, (qp_attr), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_ATTR_CHECK(qp_attr);
    free(qp_attr);
    return DOCA_SUCCESS;
}

VERBS_QP_ATTR_SETTER(next_state, enum doca_verbs_qp_state, DOCA_VERBS_QP_STATE_ERR)
VERBS_QP_ATTR_SETTER(current_state, enum doca_verbs_qp_state, DOCA_VERBS_QP_STATE_ERR)
VERBS_QP_ATTR_SETTER(path_mtu, enum doca_verbs_mtu_size, DOCA_VERBS_MTU_SIZE_4K_BYTES)
VERBS_QP_ATTR_SETTER(rq_psn, uint32_t, VERBS_PSN_MAX)
VERBS_QP_ATTR_SETTER(sq_psn, uint32_t, VERBS_PSN_MAX)
VERBS_QP_ATTR_SETTER(dest_qp_num, uint32_t, VERBS_QPN_MAX)
VERBS_QP_ATTR_SETTER(pkey_index, uint16_t, UINT16_MAX)
VERBS_QP_ATTR_SETTER(port_num, uint16_t, UINT8_MAX)
VERBS_QP_ATTR_SETTER(ack_timeout, uint16_t, VERBS_TIMER_MAX)
VERBS_QP_ATTR_SETTER(retry_cnt, uint16_t, VERBS_RETRY_MAX)
VERBS_QP_ATTR_SETTER(rnr_retry, uint16_t, VERBS_RETRY_MAX)
VERBS_QP_ATTR_SETTER(min_rnr_timer, uint16_t, VERBS_TIMER_MAX)
VERBS_QP_ATTR_SETTER(max_rd_atomic, uint8_t, UINT8_MAX)
VERBS_QP_ATTR_SETTER(max_dest_rd_atomic, uint8_t, UINT8_MAX)
VERBS_QP_ATTR_SETTER(atomic_mode, enum doca_verbs_qp_atomic_mode,
                     DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_256BYTES)
/* 0 is no port; the device's number of LAG ports is checked by doca_verbs_qp_modify(). */
VERBS_QP_ATTR_SETTER(lag_tx_port_affinity, uint8_t, 15)

doca_error_t doca_verbs_qp_attr_set_counter_set_id(doca_verbs_qp_attr_t *qp_attr,
                                                   uint32_t counter_set_id)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_set_counter_set_id, (qp_attr, counter_set_id),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_ATTR_CHECK(qp_attr);
    if (!verbs_in_range("counter_set_id", counter_set_id, UINT8_MAX))
        return DOCA_ERROR_INVALID_VALUE;
    qp_attr->counter_set_id = (uint8_t)counter_set_id;
    qp_attr->counter_set_id_set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_attr_set_cc_group(doca_verbs_qp_attr_t *verbs_qp_attr,
                                             doca_verbs_cc_group_t *cc_group)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_set_cc_group, (verbs_qp_attr, cc_group),
                  DOCA_ERROR_NOT_SUPPORTED);

    (void)cc_group;
    VERBS_QP_ATTR_CHECK(verbs_qp_attr);
    DOCA_LOG_ERR("congestion-control groups are a DOCA SDK feature, which this library does not "
                 "load: leave the QP in the device's default congestion control");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_verbs_qp_attr_set_allow_remote_write(doca_verbs_qp_attr_t *qp_attr,
                                                       int allow_remote_write)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_set_allow_remote_write, (qp_attr, allow_remote_write),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_ATTR_CHECK(qp_attr);
    qp_attr->allow_remote_write = allow_remote_write != 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_attr_set_allow_remote_read(doca_verbs_qp_attr_t *qp_attr,
                                                      int allow_remote_read)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_set_allow_remote_read, (qp_attr, allow_remote_read),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_ATTR_CHECK(qp_attr);
    qp_attr->allow_remote_read = allow_remote_read != 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_qp_attr_set_ah_attr(doca_verbs_qp_attr_t *qp_attr,
                                            doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_set_ah_attr, (qp_attr, ah_attr), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_QP_ATTR_CHECK(qp_attr);
    if (ah_attr == NULL) {
        DOCA_LOG_ERR("ah_attr is NULL: make one with doca_verbs_ah_attr_create()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    qp_attr->ah = *ah_attr;
    return DOCA_SUCCESS;
}

VERBS_QP_ATTR_GETTER(next_state, enum doca_verbs_qp_state)
VERBS_QP_ATTR_GETTER(path_mtu, enum doca_verbs_mtu_size)
VERBS_QP_ATTR_GETTER(rq_psn, uint32_t)
VERBS_QP_ATTR_GETTER(sq_psn, uint32_t)
VERBS_QP_ATTR_GETTER(dest_qp_num, uint32_t)
VERBS_QP_ATTR_GETTER(allow_remote_write, int)
VERBS_QP_ATTR_GETTER(allow_remote_read, int)
VERBS_QP_ATTR_GETTER(atomic_mode, enum doca_verbs_qp_atomic_mode)
VERBS_QP_ATTR_GETTER(pkey_index, uint16_t)
VERBS_QP_ATTR_GETTER(port_num, uint16_t)
VERBS_QP_ATTR_GETTER(ack_timeout, uint16_t)
VERBS_QP_ATTR_GETTER(retry_cnt, uint16_t)
VERBS_QP_ATTR_GETTER(rnr_retry, uint16_t)
VERBS_QP_ATTR_GETTER(min_rnr_timer, uint16_t)

doca_error_t doca_verbs_qp_attr_get_current_state(doca_verbs_qp_attr_t *qp_attr,
                                                  enum doca_verbs_qp_state *current_state)
{
    DGN_SDK_ROUTE(doca_verbs_qp_attr_get_current_state, (qp_attr, current_state),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (qp_attr == NULL || current_state == NULL) {
        DOCA_LOG_ERR("qp_attr (%p) and current_state (%p) must not be NULL", (void *)qp_attr,
                     (void *)current_state);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *current_state = qp_attr->current_state;
    return DOCA_SUCCESS;
}
