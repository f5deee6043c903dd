/* SPDX-License-Identifier: BSD-3-Clause */
/* Address handle attributes: the remote port a QP's primary path leads to. */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "verbs_internal.h"

#define VERBS_AH_DEFAULT_HOP_LIMIT 64

#define VERBS_AH_CHECK(ah)                                                              \
    do {                                                                                \
        if ((ah) == NULL) {                                                             \
            DOCA_LOG_ERR("ah_attr is NULL: make one with doca_verbs_ah_attr_create()"); \
            return DOCA_ERROR_INVALID_VALUE;                                            \
        }                                                                               \
    } while (0)

doca_error_t doca_verbs_ah_attr_create(doca_dev_t *net_dev, doca_verbs_ah_attr_t **ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_create, (net_dev, ah_attr), DOCA_ERROR_NOT_SUPPORTED);

    doca_verbs_ah_attr_t *ah;

    if (net_dev == NULL || ah_attr == NULL) {
        DOCA_LOG_ERR("net_dev (%p) and ah_attr (%p) must not be NULL", (void *)net_dev,
                     (void *)ah_attr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ah = calloc(1, sizeof(*ah));
    if (ah == NULL) {
        DOCA_LOG_ERR("out of memory for an AH attribute object");
        return DOCA_ERROR_NO_MEMORY;
    }
    ah->addr_type = DOCA_VERBS_ADDR_TYPE_IPv6;
    ah->hop_limit = VERBS_AH_DEFAULT_HOP_LIMIT;
    *ah_attr = ah;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_destroy(doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_destroy, (ah_attr), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    free(ah_attr);
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_gid(doca_verbs_ah_attr_t *ah_attr, struct doca_verbs_gid gid)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_gid, (ah_attr, gid), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    ah_attr->gid = gid;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_addr_type(doca_verbs_ah_attr_t *ah_attr,
                                              enum doca_verbs_addr_type addr_type)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_addr_type, (ah_attr, addr_type), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    if ((unsigned int)addr_type > DOCA_VERBS_ADDR_TYPE_IB_NO_GRH) {
        DOCA_LOG_ERR("addr_type %d is unknown: IPv4, IPv6, IB_GRH or IB_NO_GRH", (int)addr_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ah_attr->addr_type = addr_type;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_dlid(doca_verbs_ah_attr_t *ah_attr, uint32_t dlid)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_dlid, (ah_attr, dlid), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    if (dlid > UINT16_MAX) {
        DOCA_LOG_ERR("dlid 0x%x does not fit the 16-bit LID", dlid);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ah_attr->dlid = dlid;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_sl(doca_verbs_ah_attr_t *ah_attr, uint8_t sl)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_sl, (ah_attr, sl), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    if (sl > 15) {
        DOCA_LOG_ERR("sl %u: service levels are 0..15", (unsigned int)sl);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ah_attr->sl = sl;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_sgid_index(doca_verbs_ah_attr_t *ah_attr, uint8_t sgid_index)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_sgid_index, (ah_attr, sgid_index),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    ah_attr->sgid_index = sgid_index;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_static_rate(doca_verbs_ah_attr_t *ah_attr, uint8_t static_rate)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_static_rate, (ah_attr, static_rate),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    if (static_rate > 15) {
        DOCA_LOG_ERR("static_rate %u: the PRM rate code is 0..15 (0: port rate)",
                     (unsigned int)static_rate);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ah_attr->static_rate = static_rate;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_hop_limit(doca_verbs_ah_attr_t *ah_attr, uint8_t hop_limit)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_hop_limit, (ah_attr, hop_limit), DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    ah_attr->hop_limit = hop_limit;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_ah_attr_set_traffic_class(doca_verbs_ah_attr_t *ah_attr,
                                                  uint8_t traffic_class)
{
    DGN_SDK_ROUTE(doca_verbs_ah_attr_set_traffic_class, (ah_attr, traffic_class),
                  DOCA_ERROR_NOT_SUPPORTED);

    VERBS_AH_CHECK(ah_attr);
    ah_attr->traffic_class = traffic_class;
    return DOCA_SUCCESS;
}

struct doca_verbs_gid doca_verbs_ah_get_gid(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_gid, (ah_attr), (struct doca_verbs_gid){0});

    struct doca_verbs_gid zero;

    if (ah_attr != NULL)
        return ah_attr->gid;
    memset(&zero, 0, sizeof(zero));
    return zero;
}

enum doca_verbs_addr_type doca_verbs_ah_get_addr_type(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_addr_type, (ah_attr), (enum doca_verbs_addr_type)0);

    return ah_attr != NULL ? ah_attr->addr_type : DOCA_VERBS_ADDR_TYPE_IPv4;
}

uint32_t doca_verbs_ah_get_dlid(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_dlid, (ah_attr), 0);

    return ah_attr != NULL ? ah_attr->dlid : 0;
}

uint8_t doca_verbs_ah_get_sl(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_sl, (ah_attr), 0);

    return ah_attr != NULL ? ah_attr->sl : 0;
}

uint8_t doca_verbs_ah_get_sgid_index(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_sgid_index, (ah_attr), 0);

    return ah_attr != NULL ? ah_attr->sgid_index : 0;
}

uint8_t doca_verbs_ah_get_static_rate(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_static_rate, (ah_attr), 0);

    return ah_attr != NULL ? ah_attr->static_rate : 0;
}

uint8_t doca_verbs_ah_get_hop_limit(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_hop_limit, (ah_attr), 0);

    return ah_attr != NULL ? ah_attr->hop_limit : 0;
}

uint8_t doca_verbs_ah_get_traffic_class(const doca_verbs_ah_attr_t *ah_attr)
{
    DGN_SDK_ROUTE(doca_verbs_ah_get_traffic_class, (ah_attr), 0);

    return ah_attr != NULL ? ah_attr->traffic_class : 0;
}
