/* SPDX-License-Identifier: BSD-3-Clause */
/* The DevX command dispatcher: mailbox checks, the opcode table, status, syndrome and the log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "devx/devx.h"
#include "devx/internal.h"
#include "devx/syndrome.h"
#include "nic/caps.h"
#include "nic/nic.h"
#include "prm/prm_cmd.h"
#include "prm/prm_cq.h"
#include "prm/prm_dct.h"
#include "prm/prm_eth.h"
#include "prm/prm_hca_cap.h"
#include "prm/prm_qp.h"
#include "prm/prm_srq.h"
#include "prm/prm_status.h"
#include "prm/prm_vport.h"

/* ALLOC_PD / DEALLOC_PD mailboxes: the header and the PD number. */
#define DEVX_PD_IN_SIZE  0x10
#define DEVX_PD_OUT_SIZE 0x10

struct devx_op {
    uint16_t opcode;
    size_t in_size; /* smallest input the command needs */
    size_t out_size;
    enum emu_devx_kind kind;
    enum emu_devx_obj obj;
    uint8_t (*handler)(struct devx_cmd *c);
};

static const struct devx_op devx_ops[] = {
        {PRM_CMD_QUERY_HCA_CAP, PRM_QUERY_HCA_CAP_IN_SIZE, PRM_QUERY_HCA_CAP_OUT_SIZE,
         EMU_DEVX_GENERAL, EMU_DEVX_OBJ_NONE, devx_query_hca_cap},
        {PRM_CMD_ALLOC_PD, DEVX_PD_IN_SIZE, DEVX_PD_OUT_SIZE, EMU_DEVX_CREATE, EMU_DEVX_OBJ_PD,
         devx_alloc_pd},
        {PRM_CMD_DEALLOC_PD, DEVX_PD_IN_SIZE, DEVX_PD_OUT_SIZE, EMU_DEVX_DESTROY, EMU_DEVX_OBJ_PD,
         devx_dealloc_pd},
        {PRM_CMD_CREATE_CQ, PRM_CREATE_CQ_IN_SIZE, PRM_CREATE_CQ_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_CQ, devx_create_cq},
        {PRM_CMD_DESTROY_CQ, PRM_DESTROY_CQ_IN_SIZE, PRM_DESTROY_CQ_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_CQ, devx_destroy_cq},
        {PRM_CMD_QUERY_CQ, PRM_QUERY_CQ_IN_SIZE, PRM_QUERY_CQ_OUT_SIZE, EMU_DEVX_QUERY,
         EMU_DEVX_OBJ_CQ, devx_query_cq},
        {PRM_CMD_CREATE_QP, PRM_CREATE_QP_IN_SIZE, PRM_CREATE_QP_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_QP, devx_create_qp},
        {PRM_CMD_DESTROY_QP, PRM_DESTROY_QP_IN_SIZE, PRM_DESTROY_QP_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_QP, devx_destroy_qp},
        {PRM_CMD_QUERY_QP, PRM_QUERY_QP_IN_SIZE, PRM_QUERY_QP_OUT_SIZE, EMU_DEVX_QUERY,
         EMU_DEVX_OBJ_QP, devx_query_qp},
        {PRM_CMD_RST2INIT_QP, PRM_RST2INIT_QP_IN_SIZE, PRM_RST2INIT_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_INIT2INIT_QP, PRM_INIT2INIT_QP_IN_SIZE, PRM_INIT2INIT_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_INIT2RTR_QP, PRM_INIT2RTR_QP_IN_SIZE, PRM_INIT2RTR_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_RTR2RTS_QP, PRM_RTR2RTS_QP_IN_SIZE, PRM_RTR2RTS_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_RTS2RTS_QP, PRM_RTS2RTS_QP_IN_SIZE, PRM_RTS2RTS_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_SQERR2RTS_QP, PRM_SQERR2RTS_QP_IN_SIZE, PRM_SQERR2RTS_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_2ERR_QP, PRM_2ERR_QP_IN_SIZE, PRM_2ERR_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_2RST_QP, PRM_2RST_QP_IN_SIZE, PRM_2RST_QP_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_QP, devx_modify_qp},
        {PRM_CMD_CREATE_RMP, PRM_CREATE_RMP_IN_SIZE, PRM_CREATE_RMP_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_SRQ, devx_create_rmp},
        {PRM_CMD_DESTROY_RMP, PRM_DESTROY_RMP_IN_SIZE, PRM_DESTROY_RMP_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_SRQ, devx_destroy_rmp},
        {PRM_CMD_QUERY_RMP, PRM_QUERY_RMP_IN_SIZE, PRM_QUERY_RMP_OUT_SIZE, EMU_DEVX_QUERY,
         EMU_DEVX_OBJ_SRQ, devx_query_rmp},
        {PRM_CMD_CREATE_DCT, PRM_CREATE_DCT_IN_SIZE, PRM_CREATE_DCT_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_DCT, devx_create_dct},
        {PRM_CMD_DESTROY_DCT, PRM_DESTROY_DCT_IN_SIZE, PRM_DESTROY_DCT_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_DCT, devx_destroy_dct},
        {PRM_CMD_QUERY_DCT, PRM_QUERY_DCT_IN_SIZE, PRM_QUERY_DCT_OUT_SIZE, EMU_DEVX_QUERY,
         EMU_DEVX_OBJ_DCT, devx_query_dct},
        /* Raw Ethernet (eth_*.c). */
        {PRM_CMD_ALLOC_TRANSPORT_DOMAIN, PRM_ALLOC_TRANSPORT_DOMAIN_IN_SIZE,
         PRM_ALLOC_TRANSPORT_DOMAIN_OUT_SIZE, EMU_DEVX_CREATE, EMU_DEVX_OBJ_TD, devx_alloc_td},
        {PRM_CMD_DEALLOC_TRANSPORT_DOMAIN, PRM_DEALLOC_TRANSPORT_DOMAIN_IN_SIZE,
         PRM_CMD_HDR_OUT_SIZE, EMU_DEVX_DESTROY, EMU_DEVX_OBJ_TD, devx_dealloc_td},
        {PRM_CMD_CREATE_TIS, PRM_CREATE_TIS_IN_SIZE, PRM_CREATE_TIS_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_TIS, devx_create_tis},
        {PRM_CMD_DESTROY_TIS, PRM_DESTROY_TIS_IN_SIZE, PRM_CMD_HDR_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_TIS, devx_destroy_tis},
        {PRM_CMD_CREATE_SQ, PRM_CREATE_SQ_IN_SIZE, PRM_CREATE_SQ_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_SQ, devx_create_sq},
        {PRM_CMD_MODIFY_SQ, PRM_MODIFY_SQ_IN_SIZE, PRM_MODIFY_SQ_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_SQ, devx_modify_sq},
        {PRM_CMD_QUERY_SQ, PRM_QUERY_SQ_IN_SIZE, PRM_QUERY_SQ_OUT_SIZE, EMU_DEVX_QUERY,
         EMU_DEVX_OBJ_SQ, devx_query_sq},
        {PRM_CMD_DESTROY_SQ, PRM_DESTROY_SQ_IN_SIZE, PRM_CMD_HDR_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_SQ, devx_destroy_sq},
        {PRM_CMD_CREATE_RQ, PRM_CREATE_RQ_IN_SIZE, PRM_CREATE_RQ_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_RQ, devx_create_rq},
        {PRM_CMD_MODIFY_RQ, PRM_MODIFY_RQ_IN_SIZE, PRM_MODIFY_RQ_OUT_SIZE, EMU_DEVX_MODIFY,
         EMU_DEVX_OBJ_RQ, devx_modify_rq},
        {PRM_CMD_QUERY_RQ, PRM_QUERY_RQ_IN_SIZE, PRM_QUERY_RQ_OUT_SIZE, EMU_DEVX_QUERY,
         EMU_DEVX_OBJ_RQ, devx_query_rq},
        {PRM_CMD_DESTROY_RQ, PRM_DESTROY_RQ_IN_SIZE, PRM_CMD_HDR_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_RQ, devx_destroy_rq},
        {PRM_CMD_CREATE_RQT, PRM_CREATE_RQT_IN_SIZE, PRM_CREATE_RQT_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_RQT, devx_create_rqt},
        {PRM_CMD_DESTROY_RQT, PRM_DESTROY_RQT_IN_SIZE, PRM_CMD_HDR_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_RQT, devx_destroy_rqt},
        {PRM_CMD_CREATE_TIR, PRM_CREATE_TIR_IN_SIZE, PRM_CREATE_TIR_OUT_SIZE, EMU_DEVX_CREATE,
         EMU_DEVX_OBJ_TIR, devx_create_tir},
        {PRM_CMD_DESTROY_TIR, PRM_DESTROY_TIR_IN_SIZE, PRM_CMD_HDR_OUT_SIZE, EMU_DEVX_DESTROY,
         EMU_DEVX_OBJ_TIR, devx_destroy_tir},
        {PRM_CMD_ALLOC_Q_COUNTER, PRM_ALLOC_Q_COUNTER_IN_SIZE, PRM_ALLOC_Q_COUNTER_OUT_SIZE,
         EMU_DEVX_CREATE, EMU_DEVX_OBJ_Q_COUNTER, devx_alloc_q_counter},
        {PRM_CMD_DEALLOC_Q_COUNTER, PRM_DEALLOC_Q_COUNTER_IN_SIZE, PRM_CMD_HDR_OUT_SIZE,
         EMU_DEVX_DESTROY, EMU_DEVX_OBJ_Q_COUNTER, devx_dealloc_q_counter},
        {PRM_CMD_QUERY_Q_COUNTER, PRM_QUERY_Q_COUNTER_IN_SIZE, PRM_QUERY_Q_COUNTER_OUT_SIZE,
         EMU_DEVX_QUERY, EMU_DEVX_OBJ_Q_COUNTER, devx_query_q_counter},
        {PRM_CMD_QUERY_NIC_VPORT_CONTEXT, PRM_QUERY_NIC_VPORT_CONTEXT_IN_SIZE,
         PRM_QUERY_NIC_VPORT_CONTEXT_OUT_SIZE, EMU_DEVX_GENERAL, EMU_DEVX_OBJ_NONE,
         devx_query_nic_vport},
};

/*
 * Whether a shorter output mailbox (past the header) gets the answer's first
 * bytes: programs read the capability fields they know from a query cut to
 * their own layout (perftest's QUERY_HCA_CAP asks for 272 bytes).
 */
static bool devx_answer_may_be_cut(uint16_t opcode, size_t outlen)
{
    return opcode == PRM_CMD_QUERY_HCA_CAP && outlen > PRM_CMD_HDR_OUT_SIZE;
}

static const struct devx_op *devx_op_find(uint16_t opcode)
{
    for (size_t i = 0; i < sizeof(devx_ops) / sizeof(devx_ops[0]); i++)
        if (devx_ops[i].opcode == opcode)
            return &devx_ops[i];
    return NULL;
}

void emu_devx_cmd_classify(uint16_t opcode, struct emu_devx_cmd_info *info)
{
    const struct devx_op *op = devx_op_find(opcode);

    info->kind = op != NULL ? op->kind : EMU_DEVX_GENERAL;
    info->obj = op != NULL ? op->obj : EMU_DEVX_OBJ_NONE;
}

uint32_t emu_devx_cmd_obj_id(const void *in, size_t inlen)
{
    /* QUERY_Q_COUNTER names its counter at the end of its input, not in the first word. */
    if (inlen >= PRM_QUERY_Q_COUNTER_IN_SIZE &&
        PRM_GET(in, PRM_CMD_OPCODE) == PRM_CMD_QUERY_Q_COUNTER)
        return (uint32_t)PRM_GET(in, PRM_QUERY_Q_COUNTER_IN_COUNTER_SET_ID);
    return inlen >= PRM_CMD_HDR_IN_SIZE ? (uint32_t)PRM_GET(in, EMU_DEVX_OBJ_ID) : 0;
}

static void devx_dev_init(void *part)
{
    pthread_mutex_init(&((struct devx_dev *)part)->lock, NULL);
}

/* Made by the first command (emu_devx_cmd refuses the command when that fails). */
struct devx_dev *devx_dev_of(struct emu_nic *nic)
{
    return emu_nic_part((void **)&nic->devx, sizeof(struct devx_dev), devx_dev_init);
}

int emu_devx_status_errno(uint8_t status)
{
    switch (status) {
    case PRM_CMD_STAT_OK:
        return 0;
    case PRM_CMD_STAT_RESOURCE_BUSY:
        return EBUSY;
    case PRM_CMD_STAT_EXCEED_LIM:
        return ENOMEM;
    case PRM_CMD_STAT_NO_RESOURCES:
        return EAGAIN;
    case PRM_CMD_STAT_BAD_OP:
    case PRM_CMD_STAT_BAD_PARAM:
    case PRM_CMD_STAT_BAD_RESOURCE:
    case PRM_CMD_STAT_BAD_RES_STATE:
    case PRM_CMD_STAT_BAD_INDEX:
    case PRM_CMD_STAT_BAD_RESOURCE_STATE:
    case PRM_CMD_STAT_BAD_PKT:
    case PRM_CMD_STAT_BAD_SIZE:
        return EINVAL;
    default:
        return EIO;
    }
}

bool emu_devx_no_dbr_supported(void)
{
    const char *v = getenv("SOFTMLX5_NO_DBR");

    return v != NULL && strcmp(v, "1") == 0;
}

static void devx_log_failure(const struct devx_cmd *c, uint8_t status)
{
    char line[160];

    prm_cmd_status_describe(line, sizeof(line), c->opcode, status, c->syndrome);
    EMU_LOG_ERR("device %s: %s (op_mod 0x%x): %s", c->nic->ibdev.name, line,
                (unsigned int)c->op_mod, c->reason != NULL ? c->reason : "no reason given");
}

int emu_devx_cmd(struct emu_nic *nic, const void *in, size_t inlen, void *out, size_t outlen)
{
    struct devx_cmd c = {.nic = nic, .in = in, .inlen = inlen, .out = out, .outlen = outlen};
    const struct devx_op *op;
    struct devx_dev *d;
    uint8_t status;

    /* Without room for the headers there is no command to answer (the kernel refuses it). */
    if (nic == NULL || in == NULL || out == NULL || inlen < PRM_CMD_HDR_IN_SIZE / 2 ||
        outlen < PRM_CMD_HDR_OUT_SIZE / 2) {
        EMU_LOG_ERR("DevX command with a %zu-byte input and a %zu-byte output mailbox: both "
                    "need at least 8 bytes",
                    inlen, outlen);
        return EINVAL;
    }
    c.opcode = (uint16_t)PRM_GET(in, PRM_CMD_OPCODE);
    c.op_mod = (uint16_t)PRM_GET(in, PRM_CMD_OP_MOD);
    memset(out, 0, outlen);
    op = devx_op_find(c.opcode);
    if (op == NULL)
        status = devx_fail(&c, PRM_CMD_STAT_BAD_OP, DEVX_SYND_BAD_OPCODE,
                           "the device does not implement this opcode");
    else if (inlen < op->in_size)
        status = devx_fail(&c, PRM_CMD_STAT_BAD_INPUT_LEN, DEVX_SYND_INPUT_LEN,
                           "input mailbox shorter than the command");
    else if (outlen < op->out_size && !devx_answer_may_be_cut(c.opcode, outlen))
        status = devx_fail(&c, PRM_CMD_STAT_BAD_OUTPUT_LEN, DEVX_SYND_OUTPUT_LEN,
                           "output mailbox shorter than the answer");
    else if ((d = devx_dev_of(nic)) == NULL)
        status = devx_fail(&c, PRM_CMD_STAT_INTERNAL_ERR, 0, "out of memory for the DevX state");
    else if (outlen < op->out_size && (c.out = calloc(1, op->out_size)) == NULL)
        status = devx_fail(&c, PRM_CMD_STAT_INTERNAL_ERR, 0, "out of memory for the answer");
    else {
        c.outlen = outlen < op->out_size ? op->out_size : outlen;
        pthread_mutex_lock(&d->lock);
        status = op->handler(&c);
        pthread_mutex_unlock(&d->lock);
        if (c.out != out) { /* the whole answer, cut to the caller's mailbox */
            memcpy(out, c.out, outlen);
            free(c.out);
        }
    }
    if (status != PRM_CMD_STAT_OK) {
        /* A failed command answers only its header. */
        memset(out, 0, outlen < PRM_CMD_HDR_OUT_SIZE ? outlen : PRM_CMD_HDR_OUT_SIZE);
        PRM_SET(out, PRM_CMD_STATUS, status);
        PRM_SET(out, PRM_CMD_SYNDROME, c.syndrome);
        devx_log_failure(&c, status);
        return EREMOTEIO;
    }
    EMU_LOG_DBG("device %s: %s (op_mod 0x%x) succeeded", nic->ibdev.name,
                prm_cmd_opcode_name(c.opcode), (unsigned int)c.op_mod);
    return 0;
}

int emu_devx_obj_destroy(struct emu_nic *nic, enum emu_devx_obj obj, uint32_t id)
{
    uint8_t in[PRM_CMD_HDR_IN_SIZE] = {0};
    uint8_t out[PRM_CMD_HDR_OUT_SIZE] = {0};
    uint16_t opcode;
    int err;

    switch (obj) {
    case EMU_DEVX_OBJ_PD:
        opcode = PRM_CMD_DEALLOC_PD;
        break;
    case EMU_DEVX_OBJ_CQ:
        opcode = PRM_CMD_DESTROY_CQ;
        break;
    case EMU_DEVX_OBJ_QP:
        opcode = PRM_CMD_DESTROY_QP;
        break;
    case EMU_DEVX_OBJ_SRQ:
        opcode = PRM_CMD_DESTROY_RMP;
        break;
    case EMU_DEVX_OBJ_DCT:
        opcode = PRM_CMD_DESTROY_DCT;
        break;
    case EMU_DEVX_OBJ_TD:
        opcode = PRM_CMD_DEALLOC_TRANSPORT_DOMAIN;
        break;
    case EMU_DEVX_OBJ_TIS:
        opcode = PRM_CMD_DESTROY_TIS;
        break;
    case EMU_DEVX_OBJ_SQ:
        opcode = PRM_CMD_DESTROY_SQ;
        break;
    case EMU_DEVX_OBJ_RQ:
        opcode = PRM_CMD_DESTROY_RQ;
        break;
    case EMU_DEVX_OBJ_RQT:
        opcode = PRM_CMD_DESTROY_RQT;
        break;
    case EMU_DEVX_OBJ_TIR:
        opcode = PRM_CMD_DESTROY_TIR;
        break;
    case EMU_DEVX_OBJ_Q_COUNTER:
        opcode = PRM_CMD_DEALLOC_Q_COUNTER;
        break;
    default:
        return EINVAL;
    }
    PRM_SET(in, PRM_CMD_OPCODE, opcode);
    PRM_SET(in, EMU_DEVX_OBJ_ID, id);
    err = emu_devx_cmd(nic, in, sizeof(in), out, sizeof(out));
    if (err == EREMOTEIO)
        return emu_devx_status_errno((uint8_t)PRM_GET(out, PRM_CMD_STATUS));
    return err;
}
