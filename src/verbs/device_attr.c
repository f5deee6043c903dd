/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device capabilities: QUERY_HCA_CAP (general and general-2 groups) and
 * port 1, kept by the device object and answered by doca_verbs_query_device.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdk.h"
#include "prm/prm_cmd.h"
#include "prm/prm_hca_cap.h"
#include "verbs_internal.h"

doca_error_t verbs_query_cap_group(struct ibv_context *ctx, unsigned int type, uint8_t *out)
{
    uint8_t in[PRM_QUERY_HCA_CAP_IN_SIZE] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_CAP);
    PRM_SET(in, PRM_CMD_OP_MOD, PRM_HCA_CAP_OP_MOD(type, 1));
    return verbs_devx_general(ctx, in, sizeof(in), out, PRM_QUERY_HCA_CAP_OUT_SIZE);
}

doca_error_t verbs_query_caps(struct ibv_context *ctx, struct verbs_caps *caps)
{
    const struct core_ibv_ops *ibv;
    struct ibv_port_attr port;
    uint8_t *out;
    void *cap;
    doca_error_t err = verbs_rdma(&ibv, NULL);
    int rc;

    if (err != DOCA_SUCCESS)
        return err;
    out = calloc(1, PRM_QUERY_HCA_CAP_OUT_SIZE);
    if (out == NULL) {
        DOCA_LOG_ERR("out of memory for the QUERY_HCA_CAP mailbox");
        return DOCA_ERROR_NO_MEMORY;
    }
    cap = PRM_AT(out, PRM_QUERY_HCA_CAP_OUT_CAPABILITY);
    memset(caps, 0, sizeof(*caps));
    err = verbs_query_cap_group(ctx, PRM_HCA_CAP_TYPE_GENERAL, out);
    if (err != DOCA_SUCCESS)
        goto free_out;
    caps->log_max_qp = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_QP);
    caps->log_max_qp_sz = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_QP_SZ);
    caps->log_max_cq = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_CQ);
    caps->log_max_cq_sz = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_CQ_SZ);
    caps->log_max_srq = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_SRQ);
    caps->log_max_srq_sz = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_SRQ_SZ);
    caps->log_max_pd = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_PD);
    caps->log_max_mkey = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_MKEY);
    caps->log_max_ra_req_qp = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_REQ_QP);
    caps->log_max_ra_res_qp = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_RA_RES_QP);
    caps->log_max_msg = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_LOG_MAX_MSG);
    caps->num_ports = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_NUM_PORTS);
    caps->max_wqe_sz_sq = (uint32_t)PRM_GET(cap, PRM_HCA_CAP_MAX_WQE_SZ_SQ);
    caps->max_wqe_sz_rq = (uint32_t)PRM_GET(cap, PRM_HCA_CAP_MAX_WQE_SZ_RQ);
    caps->rc = PRM_GET(cap, PRM_HCA_CAP_RC) != 0;
    caps->atomic = PRM_GET(cap, PRM_HCA_CAP_ATOMIC) != 0;
    caps->cq_oi = PRM_GET(cap, PRM_HCA_CAP_CQ_OI) != 0;
    caps->lag_tx_port_affinity = PRM_GET(cap, PRM_HCA_CAP_LAG_TX_PORT_AFFINITY) != 0;
    caps->init2_lag_tx_port_affinity = PRM_GET(cap, PRM_HCA_CAP_INIT2_LAG_TX_PORT_AFFINITY) != 0;
    caps->rts2rts_lag_tx_port_affinity =
            PRM_GET(cap, PRM_HCA_CAP_RTS2RTS_LAG_TX_PORT_AFFINITY) != 0;
    caps->num_lag_ports = (uint8_t)PRM_GET(cap, PRM_HCA_CAP_NUM_LAG_PORTS);
    if (PRM_GET(cap, PRM_HCA_CAP_HCA_CAP_2)) {
        err = verbs_query_cap_group(ctx, PRM_HCA_CAP_TYPE_GENERAL_2, out);
        if (err != DOCA_SUCCESS)
            goto free_out;
        caps->no_dbr_ext = PRM_GET(cap, PRM_HCA_CAP2_SEND_DBR_MODE_NO_DBR_EXT) != 0;
    }
    if (caps->num_ports == 0)
        caps->num_ports = 1;
    memset(&port, 0, sizeof(port));
    /* The exported symbol takes rdma-core's compat layout, a prefix of ibv_port_attr. */
    rc = ibv->query_port(ctx, 1, (struct _compat_ibv_port_attr *)(void *)&port);
    if (rc != 0) {
        DOCA_LOG_ERR("ibv_query_port(port 1) failed: %s (errno %d)", strerror(rc), rc);
        err = DOCA_ERROR_DRIVER;
        goto free_out;
    }
    caps->pkey_table_size = port.pkey_tbl_len != 0 ? port.pkey_tbl_len : 1;

free_out:
    free(out);
    return err;
}

doca_error_t doca_verbs_query_device(struct ibv_context *context,
                                     struct doca_verbs_device_attr **verbs_device_attr)
{
    DGN_SDK_ROUTE(doca_verbs_query_device, (context, verbs_device_attr), DOCA_ERROR_NOT_SUPPORTED);

    const struct core_ibv_ops *ibv;
    struct doca_verbs_device_attr *attr;
    struct ibv_device_attr dattr;
    doca_error_t err;
    int rc;

    if (context == NULL || verbs_device_attr == NULL) {
        DOCA_LOG_ERR("context (%p) and verbs_device_attr (%p) must not be NULL", (void *)context,
                     (void *)verbs_device_attr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    err = verbs_rdma(&ibv, NULL);
    if (err != DOCA_SUCCESS)
        return err;
    attr = calloc(1, sizeof(*attr));
    if (attr == NULL) {
        DOCA_LOG_ERR("out of memory for the device attributes");
        return DOCA_ERROR_NO_MEMORY;
    }
    err = verbs_query_caps(context, &attr->caps);
    if (err != DOCA_SUCCESS) {
        free(attr);
        return err;
    }
    memset(&dattr, 0, sizeof(dattr));
    rc = ibv->query_device(context, &dattr);
    if (rc != 0) {
        DOCA_LOG_ERR("ibv_query_device failed: %s (errno %d)", strerror(rc), rc);
        free(attr);
        return DOCA_ERROR_DRIVER;
    }
    attr->max_ah = dattr.max_ah > 0 ? (uint32_t)dattr.max_ah : 0;
    *verbs_device_attr = attr;
    return DOCA_SUCCESS;
}

doca_error_t doca_verbs_device_attr_free(struct doca_verbs_device_attr *verbs_device_attr)
{
    DGN_SDK_ROUTE(doca_verbs_device_attr_free, (verbs_device_attr), DOCA_ERROR_NOT_SUPPORTED);

    if (verbs_device_attr == NULL) {
        DOCA_LOG_ERR("verbs_device_attr is NULL: pass the object doca_verbs_query_device() made");
        return DOCA_ERROR_INVALID_VALUE;
    }
    free(verbs_device_attr);
    return DOCA_SUCCESS;
}

static uint32_t verbs_pow2(uint8_t log)
{
    return log >= 32 ? UINT32_MAX : (uint32_t)1 << log;
}

#define VERBS_DEV_ATTR_GETTER(type, name, expr)                                       \
    type doca_verbs_device_attr_get_##name(const struct doca_verbs_device_attr *attr) \
    {                                                                                 \
        DGN_SDK_ROUTE(doca_verbs_device_attr_get_##name, (attr), (type)0);            \
        if (attr == NULL)                                                             \
            return 0;                                                                 \
        return (type)(expr);                                                          \
    }

static uint32_t verbs_max_sge(const struct verbs_caps *c)
{
    /* A send WQE carries a control and a remote-address segment before its data segments. */
    uint32_t sq = c->max_wqe_sz_sq > 32 ? (c->max_wqe_sz_sq - 32) / 16 : 0;
    uint32_t rq = c->max_wqe_sz_rq / 16;

    return sq < rq ? sq : rq;
}

VERBS_DEV_ATTR_GETTER(uint32_t, max_qp, verbs_pow2(attr->caps.log_max_qp))
VERBS_DEV_ATTR_GETTER(uint32_t, max_qp_wr, verbs_pow2(attr->caps.log_max_qp_sz))
VERBS_DEV_ATTR_GETTER(uint32_t, max_sge, verbs_max_sge(&attr->caps))
VERBS_DEV_ATTR_GETTER(uint32_t, max_cq, verbs_pow2(attr->caps.log_max_cq))
VERBS_DEV_ATTR_GETTER(uint32_t, max_cqe, verbs_pow2(attr->caps.log_max_cq_sz))
VERBS_DEV_ATTR_GETTER(uint32_t, max_mr, verbs_pow2(attr->caps.log_max_mkey))
VERBS_DEV_ATTR_GETTER(uint32_t, max_pd, verbs_pow2(attr->caps.log_max_pd))
VERBS_DEV_ATTR_GETTER(uint32_t, max_ah, attr->max_ah)
VERBS_DEV_ATTR_GETTER(uint32_t, max_srq, verbs_pow2(attr->caps.log_max_srq))
VERBS_DEV_ATTR_GETTER(uint32_t, max_srq_wr, verbs_pow2(attr->caps.log_max_srq_sz))
/* A receive WQE of an SRQ starts with a 16-byte next segment. */
VERBS_DEV_ATTR_GETTER(uint32_t, max_srq_sge,
                      attr->caps.max_wqe_sz_rq >= 16 ? attr->caps.max_wqe_sz_rq / 16 - 1 : 0)
VERBS_DEV_ATTR_GETTER(uint16_t, max_pkeys, attr->caps.pkey_table_size)
VERBS_DEV_ATTR_GETTER(uint8_t, send_dbr_mode_no_dbr_ext, attr->caps.no_dbr_ext ? 1 : 0)
VERBS_DEV_ATTR_GETTER(uint8_t, max_qp_rd_atom, verbs_pow2(attr->caps.log_max_ra_req_qp))
VERBS_DEV_ATTR_GETTER(uint8_t, max_qp_init_rd_atom, verbs_pow2(attr->caps.log_max_ra_res_qp))
VERBS_DEV_ATTR_GETTER(uint8_t, is_lag_tx_port_affinity_supported, attr->caps.lag_tx_port_affinity)
VERBS_DEV_ATTR_GETTER(uint8_t, num_lag_ports, attr->caps.num_lag_ports)
VERBS_DEV_ATTR_GETTER(uint8_t, is_init2_lag_tx_port_affinity_supported,
                      attr->caps.init2_lag_tx_port_affinity)
VERBS_DEV_ATTR_GETTER(uint8_t, is_rts2rts_lag_tx_port_affinity_supported,
                      attr->caps.rts2rts_lag_tx_port_affinity)

doca_error_t
doca_verbs_device_attr_get_is_qp_type_supported(const struct doca_verbs_device_attr *attr,
                                                uint32_t qp_type)
{
    DGN_SDK_ROUTE(doca_verbs_device_attr_get_is_qp_type_supported, (attr, qp_type),
                  DOCA_ERROR_NOT_SUPPORTED);

    if (attr == NULL) {
        DOCA_LOG_ERR("verbs_device_attr is NULL: query it with doca_verbs_query_device()");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (qp_type != DOCA_VERBS_QP_TYPE_RC) {
        DOCA_LOG_ERR("QP type %u is unknown: DOCA Verbs makes DOCA_VERBS_QP_TYPE_RC (0) QPs",
                     qp_type);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return attr->caps.rc ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}
