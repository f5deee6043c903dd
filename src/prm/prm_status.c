/* SPDX-License-Identifier: BSD-3-Clause */
/* Command status and opcode names, and their mapping to doca_error_t. */
#include "prm/prm_status.h"

#include <stdio.h>

#include "prm/prm_cmd.h"

struct prm_status_info {
    uint8_t status;
    const char *name;
    doca_error_t err;
};

static const struct prm_status_info prm_status_table[] = {
        {PRM_CMD_STAT_OK, "OK", DOCA_SUCCESS},
        {PRM_CMD_STAT_INTERNAL_ERR, "INTERNAL_ERR", DOCA_ERROR_DRIVER},
        {PRM_CMD_STAT_BAD_OP, "BAD_OP", DOCA_ERROR_NOT_SUPPORTED},
        {PRM_CMD_STAT_BAD_PARAM, "BAD_PARAM", DOCA_ERROR_INVALID_VALUE},
        {PRM_CMD_STAT_BAD_SYS_STATE, "BAD_SYS_STATE", DOCA_ERROR_BAD_STATE},
        {PRM_CMD_STAT_BAD_RESOURCE, "BAD_RESOURCE", DOCA_ERROR_NOT_FOUND},
        {PRM_CMD_STAT_RESOURCE_BUSY, "RESOURCE_BUSY", DOCA_ERROR_IN_USE},
        {PRM_CMD_STAT_EXCEED_LIM, "EXCEED_LIM", DOCA_ERROR_FULL},
        {PRM_CMD_STAT_BAD_RES_STATE, "BAD_RES_STATE", DOCA_ERROR_BAD_STATE},
        {PRM_CMD_STAT_BAD_INDEX, "BAD_INDEX", DOCA_ERROR_INVALID_VALUE},
        {PRM_CMD_STAT_NO_RESOURCES, "NO_RESOURCES", DOCA_ERROR_NO_MEMORY},
        {PRM_CMD_STAT_BAD_RESOURCE_STATE, "BAD_RESOURCE_STATE", DOCA_ERROR_BAD_STATE},
        {PRM_CMD_STAT_BAD_PKT, "BAD_PKT", DOCA_ERROR_INVALID_VALUE},
        {PRM_CMD_STAT_BAD_SIZE, "BAD_SIZE", DOCA_ERROR_INVALID_VALUE},
        {PRM_CMD_STAT_BAD_INPUT_LEN, "BAD_INPUT_LEN", DOCA_ERROR_INVALID_VALUE},
        {PRM_CMD_STAT_BAD_OUTPUT_LEN, "BAD_OUTPUT_LEN", DOCA_ERROR_INVALID_VALUE},
};

struct prm_opcode_info {
    uint16_t opcode;
    const char *name;
};

#define PRM_OPCODE_ENTRY(op) \
    {                        \
        PRM_CMD_##op, #op    \
    }

static const struct prm_opcode_info prm_opcode_table[] = {
        PRM_OPCODE_ENTRY(QUERY_HCA_CAP),
        PRM_OPCODE_ENTRY(CREATE_MKEY),
        PRM_OPCODE_ENTRY(QUERY_MKEY),
        PRM_OPCODE_ENTRY(DESTROY_MKEY),
        PRM_OPCODE_ENTRY(CREATE_CQ),
        PRM_OPCODE_ENTRY(DESTROY_CQ),
        PRM_OPCODE_ENTRY(QUERY_CQ),
        PRM_OPCODE_ENTRY(MODIFY_CQ),
        PRM_OPCODE_ENTRY(CREATE_SRQ),
        PRM_OPCODE_ENTRY(DESTROY_SRQ),
        PRM_OPCODE_ENTRY(QUERY_SRQ),
        PRM_OPCODE_ENTRY(CREATE_QP),
        PRM_OPCODE_ENTRY(DESTROY_QP),
        PRM_OPCODE_ENTRY(RST2INIT_QP),
        PRM_OPCODE_ENTRY(INIT2RTR_QP),
        PRM_OPCODE_ENTRY(RTR2RTS_QP),
        PRM_OPCODE_ENTRY(RTS2RTS_QP),
        PRM_OPCODE_ENTRY(SQERR2RTS_QP),
        PRM_OPCODE_ENTRY(2ERR_QP),
        PRM_OPCODE_ENTRY(2RST_QP),
        PRM_OPCODE_ENTRY(QUERY_QP),
        PRM_OPCODE_ENTRY(SQD_RTS_QP),
        PRM_OPCODE_ENTRY(INIT2INIT_QP),
        PRM_OPCODE_ENTRY(QUERY_NIC_VPORT_CONTEXT),
        PRM_OPCODE_ENTRY(MODIFY_NIC_VPORT_CONTEXT),
        PRM_OPCODE_ENTRY(QUERY_HCA_VPORT_CONTEXT),
        PRM_OPCODE_ENTRY(QUERY_HCA_VPORT_GID),
        PRM_OPCODE_ENTRY(ALLOC_PD),
        PRM_OPCODE_ENTRY(DEALLOC_PD),
        PRM_OPCODE_ENTRY(ALLOC_TRANSPORT_DOMAIN),
        PRM_OPCODE_ENTRY(DEALLOC_TRANSPORT_DOMAIN),
        PRM_OPCODE_ENTRY(CREATE_TIR),
        PRM_OPCODE_ENTRY(DESTROY_TIR),
        PRM_OPCODE_ENTRY(CREATE_SQ),
        PRM_OPCODE_ENTRY(MODIFY_SQ),
        PRM_OPCODE_ENTRY(DESTROY_SQ),
        PRM_OPCODE_ENTRY(QUERY_SQ),
        PRM_OPCODE_ENTRY(CREATE_RQ),
        PRM_OPCODE_ENTRY(MODIFY_RQ),
        PRM_OPCODE_ENTRY(DESTROY_RQ),
        PRM_OPCODE_ENTRY(QUERY_RQ),
        PRM_OPCODE_ENTRY(CREATE_RMP),
        PRM_OPCODE_ENTRY(MODIFY_RMP),
        PRM_OPCODE_ENTRY(DESTROY_RMP),
        PRM_OPCODE_ENTRY(QUERY_RMP),
        PRM_OPCODE_ENTRY(CREATE_TIS),
        PRM_OPCODE_ENTRY(DESTROY_TIS),
        PRM_OPCODE_ENTRY(CREATE_FLOW_TABLE),
        PRM_OPCODE_ENTRY(DESTROY_FLOW_TABLE),
        PRM_OPCODE_ENTRY(CREATE_FLOW_GROUP),
        PRM_OPCODE_ENTRY(DESTROY_FLOW_GROUP),
        PRM_OPCODE_ENTRY(SET_FLOW_TABLE_ENTRY),
        PRM_OPCODE_ENTRY(DELETE_FLOW_TABLE_ENTRY),
        PRM_OPCODE_ENTRY(CREATE_GENERAL_OBJECT),
        PRM_OPCODE_ENTRY(DESTROY_GENERAL_OBJECT),
        PRM_OPCODE_ENTRY(CREATE_UMEM),
        PRM_OPCODE_ENTRY(DESTROY_UMEM),
};

static const struct prm_status_info *prm_status_lookup(uint8_t status)
{
    for (size_t i = 0; i < sizeof(prm_status_table) / sizeof(prm_status_table[0]); i++) {
        if (prm_status_table[i].status == status)
            return &prm_status_table[i];
    }
    return NULL;
}

doca_error_t prm_cmd_status_to_doca(uint8_t status)
{
    const struct prm_status_info *info = prm_status_lookup(status);

    return info != NULL ? info->err : DOCA_ERROR_UNKNOWN;
}

const char *prm_cmd_status_name(uint8_t status)
{
    const struct prm_status_info *info = prm_status_lookup(status);

    return info != NULL ? info->name : "UNKNOWN_STATUS";
}

static const char *prm_opcode_lookup(uint16_t opcode)
{
    for (size_t i = 0; i < sizeof(prm_opcode_table) / sizeof(prm_opcode_table[0]); i++) {
        if (prm_opcode_table[i].opcode == opcode)
            return prm_opcode_table[i].name;
    }
    return NULL;
}

const char *prm_cmd_opcode_name(uint16_t opcode)
{
    const char *name = prm_opcode_lookup(opcode);

    return name != NULL ? name : "UNKNOWN_OPCODE";
}

int prm_cmd_status_describe(char *buf, size_t n, uint16_t opcode, uint8_t status, uint32_t syndrome)
{
    const char *op = prm_opcode_lookup(opcode);
    char op_hex[24];

    if (op == NULL) {
        snprintf(op_hex, sizeof(op_hex), "opcode 0x%x", (unsigned int)opcode);
        op = op_hex;
    }
    if (status == PRM_CMD_STAT_OK)
        return snprintf(buf, n, "%s succeeded", op);
    return snprintf(buf, n, "%s failed: status %s (0x%x), syndrome 0x%x", op,
                    prm_cmd_status_name(status), (unsigned int)status, (unsigned int)syndrome);
}
