/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The seeds of fuzz target devx_cmd: command sequences built with the PRM
 * layouts of src/prm/, so that fuzzing starts from commands the device
 * accepts (QUERY_HCA_CAP, ALLOC_PD, CQs, RC QPs through every transition,
 * RMPs) and from a few it must refuse. Each seed is built on the fuzz
 * target's device, command by command, with the numbers the device answers
 * (PDN, CQN, QPN, RMPN); exactly the commands a seed expects to fail must
 * fail, and replaying the finished seed must give the same result.
 *
 *   devx_cmd_seeds --check DIR  also: each seed must be in DIR as built (CTest
 *                               test fuzz_devx_cmd_seeds on the committed corpus)
 *   devx_cmd_seeds --write DIR  writes the seeds to DIR; after a change of the
 *                               device's numbering or of a layout:
 *                               devx_cmd_seeds --write tests/fuzz/corpus/devx_cmd
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devx_cmd.h"
#include "prm/prm_bits.h"
#include "prm/prm_cmd.h"
#include "prm/prm_cq.h"
#include "prm/prm_hca_cap.h"
#include "prm/prm_qp.h"
#include "prm/prm_srq.h"

#define SEED_MAX 8192

/* Where the seeds put rings and doorbell records in the fuzz target's umems. */
#define CQ_RING_OFF(n) (0x1000u * (n))  /* 16 CQEs of 64 bytes */
#define QP_WQ_OFF(n)   (0x10000u * (n)) /* RQ (16 x 64 bytes) then SQ (16 x 64 bytes) */
#define RMP_WQ_OFF     0x30000u         /* 16 WQEs of 64 bytes */
#define CQ_DBR_OFF(n)  (0x40u * (n))
#define QP_DBR_OFF(n)  (0x400u + 0x40u * (n))
#define RMP_DBR_OFF    0x800u
#define LOG_QUEUE      4

struct seed {
    const char *name;
    int refused; /* commands that must fail; every other one must answer OK */
    int failed;  /* commands that failed while the seed was built */
    uint8_t bytes[SEED_MAX];
    size_t len;
};

static struct devx_fuzz_device dev;

/* Appends one record and runs the command; the answer's object number (CREATE commands). */
static uint32_t seed_cmd(struct seed *s, const uint8_t *in, size_t inlen, size_t outlen)
{
    uint8_t out[DEVX_FUZZ_MAX_MAILBOX];

    if (s->len + DEVX_FUZZ_REC_HDR + inlen > SEED_MAX || outlen > sizeof(out)) {
        fprintf(stderr, "seed %s: too long\n", s->name);
        exit(1);
    }
    s->bytes[s->len++] = (uint8_t)(inlen >> 8);
    s->bytes[s->len++] = (uint8_t)inlen;
    s->bytes[s->len++] = (uint8_t)(outlen >> 8);
    s->bytes[s->len++] = (uint8_t)outlen;
    memcpy(s->bytes + s->len, in, inlen);
    s->len += inlen;
    memset(out, 0, sizeof(out));
    if (!devx_fuzz_cmd(in, inlen, out, outlen)) {
        s->failed++;
        return 0;
    }
    return (uint32_t)PRM_GET(out, PRM_CREATE_QP_OUT_QPN); /* every CREATE answers at 0x08 */
}

/* A command with only a header and an object number (ALLOC_PD, destroy, query, 2ERR, 2RST). */
static uint32_t cmd_simple(struct seed *s, uint16_t opcode, uint32_t id, size_t inlen,
                           size_t outlen)
{
    uint8_t in[PRM_CMD_HDR_IN_SIZE] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, opcode);
    PRM_SET(in, PRM_DESTROY_QP_IN_QPN, id); /* the object number of every such command */
    return seed_cmd(s, in, inlen, outlen);
}

static uint32_t cmd_alloc_pd(struct seed *s)
{
    return cmd_simple(s, PRM_CMD_ALLOC_PD, 0, PRM_CMD_HDR_IN_SIZE, PRM_CMD_HDR_OUT_SIZE);
}

static void cmd_query_hca_cap(struct seed *s, unsigned int type)
{
    uint8_t in[PRM_QUERY_HCA_CAP_IN_SIZE] = {0};

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_QUERY_HCA_CAP);
    PRM_SET(in, PRM_CMD_OP_MOD, PRM_HCA_CAP_OP_MOD(type, 1));
    seed_cmd(s, in, sizeof(in), PRM_QUERY_HCA_CAP_OUT_SIZE);
}

/* The n-th CQ of a seed: 16 CQEs, its doorbell record in the doorbell umem. */
static uint32_t cmd_create_cq(struct seed *s, uint32_t n)
{
    uint8_t in[PRM_CREATE_CQ_IN_SIZE] = {0};
    uint8_t *cqc = in + PRM_CREATE_CQ_IN_CQC;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_CQ);
    PRM_SET(cqc, PRM_CQC_CQE_SZ, PRM_CQC_CQE_SZ_64);
    PRM_SET(cqc, PRM_CQC_LOG_CQ_SIZE, LOG_QUEUE);
    PRM_SET(cqc, PRM_CQC_UAR_PAGE, dev.uar_page);
    PRM_SET(cqc, PRM_CQC_C_EQN, 0);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_VALID, 1);
    PRM_SET(cqc, PRM_CQC_DBR_UMEM_ID, dev.dbr_umem);
    PRM_SET(cqc, PRM_CQC_DBR_ADDR, CQ_DBR_OFF(n));
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_VALID, 1);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_ID, dev.ring_umem);
    PRM_SET(in, PRM_CREATE_CQ_IN_CQ_UMEM_OFFSET, CQ_RING_OFF(n));
    return seed_cmd(s, in, sizeof(in), PRM_CREATE_CQ_OUT_SIZE);
}

struct qp_shape {
    uint32_t n;   /* the seed's n-th QP */
    uint32_t pdn; /* PD, send and receive CQs */
    uint32_t cqn;
    uint32_t rmpn; /* with_rmp: receives through this RMP */
    bool with_rmp;
    bool no_dbr; /* send queue without doorbell record */
};

static uint32_t cmd_create_qp(struct seed *s, const struct qp_shape *q)
{
    uint8_t in[PRM_CREATE_QP_IN_SIZE] = {0};
    uint8_t *qpc = in + PRM_CREATE_QP_IN_QPC;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_QP);
    PRM_SET(qpc, PRM_QPC_ST, PRM_QP_ST_RC);
    PRM_SET(qpc, PRM_QPC_PM_STATE, PRM_QP_PM_STATE_MIGRATED);
    PRM_SET(qpc, PRM_QPC_PD, q->pdn);
    PRM_SET(qpc, PRM_QPC_LOG_SQ_SIZE, LOG_QUEUE);
    PRM_SET(qpc, PRM_QPC_UAR_PAGE, dev.uar_page);
    PRM_SET(qpc, PRM_QPC_SEND_DBR_MODE,
            q->no_dbr ? PRM_QP_SEND_DBR_MODE_NO_DBR_EXT : PRM_QP_SEND_DBR_MODE_DBR_VALID);
    PRM_SET(qpc, PRM_QPC_CQN_SND, q->cqn);
    PRM_SET(qpc, PRM_QPC_CQN_RCV, q->cqn);
    if (q->with_rmp) {
        PRM_SET(qpc, PRM_QPC_RQ_TYPE, PRM_QP_RQ_TYPE_SRQ);
        PRM_SET(qpc, PRM_QPC_SRQN_RMPN_XRQN, q->rmpn);
    } else {
        PRM_SET(qpc, PRM_QPC_RQ_TYPE, PRM_QP_RQ_TYPE_REGULAR);
        PRM_SET(qpc, PRM_QPC_LOG_RQ_SIZE, LOG_QUEUE);
        PRM_SET(qpc, PRM_QPC_LOG_RQ_STRIDE, 2); /* 64-byte receive WQEs */
    }
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_VALID, 1);
    PRM_SET(qpc, PRM_QPC_DBR_UMEM_ID, dev.dbr_umem);
    PRM_SET(qpc, PRM_QPC_DBR_ADDR, QP_DBR_OFF(q->n));
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_VALID, 1);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_ID, dev.ring_umem);
    PRM_SET(in, PRM_CREATE_QP_IN_WQ_UMEM_OFFSET, QP_WQ_OFF(q->n));
    return seed_cmd(s, in, sizeof(in), PRM_CREATE_QP_OUT_SIZE);
}

/* A transition with a qpc; remote_qpn is the QP's peer (INIT2RTR). */
static void cmd_transition(struct seed *s, uint16_t opcode, uint32_t qpn, uint32_t remote_qpn,
                           uint32_t opt_mask)
{
    /* ::ffff:127.0.0.1, the device's own address (RoCE v2, IPv4-mapped). */
    static const uint8_t loopback_gid[PRM_ADS_RGID_RIP_LEN] = {
            [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1};
    uint8_t in[PRM_RST2INIT_QP_IN_SIZE] = {0};
    uint8_t *qpc = in + PRM_RST2INIT_QP_IN_QPC;
    uint8_t *ads = qpc + PRM_QPC_PRIMARY_ADDRESS_PATH;

    PRM_SET(in, PRM_CMD_OPCODE, opcode);
    PRM_SET(in, PRM_RST2INIT_QP_IN_QPN, qpn);
    PRM_SET(in, PRM_RST2INIT_QP_IN_OPT_PARAM_MASK, opt_mask);
    switch (opcode) {
    case PRM_CMD_RST2INIT_QP:
        PRM_SET(qpc, PRM_QPC_RRE, 1);
        PRM_SET(qpc, PRM_QPC_RWE, 1);
        PRM_SET(qpc, PRM_QPC_RAE, 1);
        PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
        break;
    case PRM_CMD_INIT2RTR_QP:
        PRM_SET(qpc, PRM_QPC_MTU, PRM_QP_MTU_4K);
        PRM_SET(qpc, PRM_QPC_LOG_MSG_MAX, 30);
        PRM_SET(qpc, PRM_QPC_LOG_RRA_MAX, 4);
        PRM_SET(qpc, PRM_QPC_REMOTE_QPN, remote_qpn);
        PRM_SET(qpc, PRM_QPC_NEXT_RCV_PSN, 0x100);
        PRM_SET(qpc, PRM_QPC_MIN_RNR_NAK, 12);
        PRM_SET(ads, PRM_ADS_GRH, 1);
        PRM_SET(ads, PRM_ADS_HOP_LIMIT, 64);
        memcpy(ads + PRM_OFFSET(PRM_ADS_RGID_RIP), loopback_gid, sizeof(loopback_gid));
        PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
        break;
    case PRM_CMD_RTR2RTS_QP:
        PRM_SET(qpc, PRM_QPC_LOG_SRA_MAX, 4);
        PRM_SET(qpc, PRM_QPC_NEXT_SEND_PSN, 0x100);
        PRM_SET(qpc, PRM_QPC_RETRY_COUNT, 7);
        PRM_SET(qpc, PRM_QPC_RNR_RETRY, 7);
        PRM_SET(ads, PRM_ADS_ACK_TIMEOUT, 14);
        break;
    default: /* INIT2INIT, RTS2RTS, SQERR2RTS: what opt_mask selects */
        PRM_SET(qpc, PRM_QPC_RRE, 1);
        PRM_SET(qpc, PRM_QPC_MIN_RNR_NAK, 6);
        PRM_SET(qpc, PRM_QPC_RETRY_COUNT, 3);
        PRM_SET(ads, PRM_ADS_ACK_TIMEOUT, 18);
        PRM_SET(ads, PRM_ADS_VHCA_PORT_NUM, 1);
        break;
    }
    seed_cmd(s, in, sizeof(in), PRM_RST2INIT_QP_OUT_SIZE);
}

static uint32_t cmd_create_rmp(struct seed *s, uint32_t pdn)
{
    uint8_t in[PRM_CREATE_RMP_IN_SIZE] = {0};
    uint8_t *rmpc = in + PRM_CREATE_RMP_IN_RMPC;
    uint8_t *wq = rmpc + PRM_RMPC_WQ;

    PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_RMP);
    PRM_SET(rmpc, PRM_RMPC_STATE, PRM_RMPC_STATE_RDY);
    PRM_SET(wq, PRM_WQ_WQ_TYPE, PRM_WQ_TYPE_LINKED_LIST);
    PRM_SET(wq, PRM_WQ_PD, pdn);
    PRM_SET(wq, PRM_WQ_LOG_WQ_STRIDE, 6); /* 64-byte WQEs */
    PRM_SET(wq, PRM_WQ_LOG_WQ_SZ, LOG_QUEUE);
    PRM_SET(wq, PRM_WQ_DBR_ADDR, RMP_DBR_OFF);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_DBR_UMEM_ID, dev.dbr_umem);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_VALID, 1);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_ID, dev.ring_umem);
    PRM_SET(wq, PRM_WQ_WQ_UMEM_OFFSET, RMP_WQ_OFF);
    return seed_cmd(s, in, sizeof(in), PRM_CREATE_RMP_OUT_SIZE);
}

/* A QP brought to RTS, connected to remote_qpn (itself, or another QP of the seed). */
static void qp_to_rts(struct seed *s, uint32_t qpn, uint32_t remote_qpn)
{
    cmd_transition(s, PRM_CMD_RST2INIT_QP, qpn, 0, 0);
    cmd_transition(s, PRM_CMD_INIT2RTR_QP, qpn, remote_qpn, 0);
    cmd_transition(s, PRM_CMD_RTR2RTS_QP, qpn, 0, 0);
}

static void seed_query_hca_cap(struct seed *s)
{
    cmd_query_hca_cap(s, PRM_HCA_CAP_TYPE_GENERAL);
    cmd_query_hca_cap(s, PRM_HCA_CAP_TYPE_ETHERNET_OFFLOADS);
    cmd_query_hca_cap(s, PRM_HCA_CAP_TYPE_GENERAL_2);
}

static void seed_pd(struct seed *s)
{
    uint32_t pd = cmd_alloc_pd(s);

    cmd_simple(s, PRM_CMD_DEALLOC_PD, pd, PRM_CMD_HDR_IN_SIZE, PRM_CMD_HDR_OUT_SIZE);
}

static void seed_cq(struct seed *s)
{
    uint32_t cq = cmd_create_cq(s, 1);

    cmd_simple(s, PRM_CMD_QUERY_CQ, cq, PRM_QUERY_CQ_IN_SIZE, PRM_QUERY_CQ_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_CQ, cq, PRM_DESTROY_CQ_IN_SIZE, PRM_DESTROY_CQ_OUT_SIZE);
}

/* An RC QP through every transition, connected to itself. */
static void seed_qp_rc(struct seed *s)
{
    uint32_t pd = cmd_alloc_pd(s), cq = cmd_create_cq(s, 1);
    uint32_t qp = cmd_create_qp(s, &(struct qp_shape){.n = 1, .pdn = pd, .cqn = cq});

    cmd_simple(s, PRM_CMD_QUERY_QP, qp, PRM_QUERY_QP_IN_SIZE, PRM_QUERY_QP_OUT_SIZE);
    cmd_transition(s, PRM_CMD_RST2INIT_QP, qp, 0, 0);
    cmd_transition(s, PRM_CMD_INIT2INIT_QP, qp, 0,
                   PRM_QP_OPTPAR_RRE | PRM_QP_OPTPAR_PKEY_INDEX | PRM_QP_OPTPAR_PRI_PORT);
    cmd_transition(s, PRM_CMD_INIT2RTR_QP, qp, qp, 0);
    cmd_transition(s, PRM_CMD_RTR2RTS_QP, qp, 0, 0);
    cmd_transition(s, PRM_CMD_RTS2RTS_QP, qp, 0,
                   PRM_QP_OPTPAR_RNR_TIMEOUT | PRM_QP_OPTPAR_RETRY_COUNT |
                           PRM_QP_OPTPAR_ACK_TIMEOUT);
    cmd_simple(s, PRM_CMD_QUERY_QP, qp, PRM_QUERY_QP_IN_SIZE, PRM_QUERY_QP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_2ERR_QP, qp, PRM_2ERR_QP_IN_SIZE, PRM_2ERR_QP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_2RST_QP, qp, PRM_2RST_QP_IN_SIZE, PRM_2RST_QP_OUT_SIZE);
    qp_to_rts(s, qp, qp);
    cmd_simple(s, PRM_CMD_DESTROY_QP, qp, PRM_DESTROY_QP_IN_SIZE, PRM_DESTROY_QP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_CQ, cq, PRM_DESTROY_CQ_IN_SIZE, PRM_DESTROY_CQ_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DEALLOC_PD, pd, PRM_CMD_HDR_IN_SIZE, PRM_CMD_HDR_OUT_SIZE);
}

/* Two QPs connected to each other, on two CQs; left for the target to destroy. */
static void seed_qp_rc_pair(struct seed *s)
{
    uint32_t pd = cmd_alloc_pd(s), cq = cmd_create_cq(s, 1), cq2 = cmd_create_cq(s, 2);
    uint32_t qp = cmd_create_qp(s, &(struct qp_shape){.n = 1, .pdn = pd, .cqn = cq});
    uint32_t qp2 = cmd_create_qp(s, &(struct qp_shape){.n = 2, .pdn = pd, .cqn = cq2});

    qp_to_rts(s, qp, qp2);
    qp_to_rts(s, qp2, qp);
    cmd_simple(s, PRM_CMD_QUERY_QP, qp2, PRM_QUERY_QP_IN_SIZE, PRM_QUERY_QP_OUT_SIZE);
}

/* A send queue without doorbell record (offered under SOFTMLX5_NO_DBR=1, which the target sets). */
static void seed_qp_no_dbr(struct seed *s)
{
    uint32_t pd = cmd_alloc_pd(s), cq = cmd_create_cq(s, 1);
    uint32_t qp =
            cmd_create_qp(s, &(struct qp_shape){.n = 1, .pdn = pd, .cqn = cq, .no_dbr = true});

    qp_to_rts(s, qp, qp);
    cmd_simple(s, PRM_CMD_QUERY_QP, qp, PRM_QUERY_QP_IN_SIZE, PRM_QUERY_QP_OUT_SIZE);
}

/* A QP receiving from a shared receive queue (RMP). */
static void seed_qp_rmp(struct seed *s)
{
    uint32_t pd = cmd_alloc_pd(s), cq = cmd_create_cq(s, 1), rmp = cmd_create_rmp(s, pd);
    uint32_t qp;

    cmd_simple(s, PRM_CMD_QUERY_RMP, rmp, PRM_QUERY_RMP_IN_SIZE, PRM_QUERY_RMP_OUT_SIZE);
    qp = cmd_create_qp(
            s, &(struct qp_shape){.n = 1, .pdn = pd, .cqn = cq, .rmpn = rmp, .with_rmp = true});
    qp_to_rts(s, qp, qp);
    cmd_simple(s, PRM_CMD_DESTROY_QP, qp, PRM_DESTROY_QP_IN_SIZE, PRM_DESTROY_QP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_RMP, rmp, PRM_DESTROY_RMP_IN_SIZE, PRM_DESTROY_RMP_OUT_SIZE);
}

/* Objects in use cannot go: the CQ, the PD and the RMP of a QP. */
static void seed_busy(struct seed *s)
{
    uint32_t pd = cmd_alloc_pd(s), cq = cmd_create_cq(s, 1), rmp = cmd_create_rmp(s, pd);
    uint32_t qp = cmd_create_qp(
            s, &(struct qp_shape){.n = 1, .pdn = pd, .cqn = cq, .rmpn = rmp, .with_rmp = true});

    s->refused = 3;
    cmd_simple(s, PRM_CMD_DESTROY_CQ, cq, PRM_DESTROY_CQ_IN_SIZE, PRM_DESTROY_CQ_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DEALLOC_PD, pd, PRM_CMD_HDR_IN_SIZE, PRM_CMD_HDR_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_RMP, rmp, PRM_DESTROY_RMP_IN_SIZE, PRM_DESTROY_RMP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_QP, qp, PRM_DESTROY_QP_IN_SIZE, PRM_DESTROY_QP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_RMP, rmp, PRM_DESTROY_RMP_IN_SIZE, PRM_DESTROY_RMP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_CQ, cq, PRM_DESTROY_CQ_IN_SIZE, PRM_DESTROY_CQ_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DEALLOC_PD, pd, PRM_CMD_HDR_IN_SIZE, PRM_CMD_HDR_OUT_SIZE);
}

/*
 * Refusals: an opcode the device does not implement, mailboxes too short for
 * the command and for the answer, a transition from the wrong state, objects
 * that do not exist.
 */
static void seed_refusals(struct seed *s)
{
    uint32_t cq, pd, qp;

    s->refused = 6;
    cmd_simple(s, PRM_CMD_CREATE_MKEY, 0, PRM_CMD_HDR_IN_SIZE, PRM_CMD_HDR_OUT_SIZE);
    cmd_simple(s, PRM_CMD_ALLOC_PD, 0, PRM_CMD_HDR_IN_SIZE / 2, PRM_CMD_HDR_OUT_SIZE);
    cq = cmd_create_cq(s, 1);
    pd = cmd_alloc_pd(s);
    qp = cmd_create_qp(s, &(struct qp_shape){.n = 1, .pdn = pd, .cqn = cq});
    cmd_simple(s, PRM_CMD_QUERY_QP, qp, PRM_QUERY_QP_IN_SIZE, PRM_CMD_HDR_OUT_SIZE);
    cmd_transition(s, PRM_CMD_RTR2RTS_QP, qp, 0, 0);
    cmd_simple(s, PRM_CMD_2ERR_QP, qp + 1, PRM_2ERR_QP_IN_SIZE, PRM_2ERR_QP_OUT_SIZE);
    cmd_simple(s, PRM_CMD_DESTROY_CQ, cq + 1, PRM_DESTROY_CQ_IN_SIZE, PRM_DESTROY_CQ_OUT_SIZE);
}

static const struct {
    const char *name;
    void (*build)(struct seed *s);
} seed_list[] = {
        {"query_hca_cap", seed_query_hca_cap},
        {"pd", seed_pd},
        {"cq", seed_cq},
        {"qp_rc", seed_qp_rc},
        {"qp_rc_pair", seed_qp_rc_pair},
        {"qp_no_dbr", seed_qp_no_dbr},
        {"qp_rmp", seed_qp_rmp},
        {"busy", seed_busy},
        {"refusals", seed_refusals},
};

/* Whether DIR/name holds exactly the seed. */
static bool seed_matches(const char *dir, const struct seed *s)
{
    static uint8_t file[SEED_MAX + 1];
    char path[4096];
    size_t n = 0;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, s->name);
    f = fopen(path, "rb");
    if (f != NULL) {
        n = fread(file, 1, sizeof(file), f);
        fclose(f);
    }
    return f != NULL && n == s->len && memcmp(file, s->bytes, n) == 0;
}

static bool seed_write(const char *dir, const struct seed *s)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, s->name);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(s->bytes, 1, s->len, f) != s->len || fclose(f) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    static struct seed s;
    const char *check = NULL, *write = NULL;
    int failures = 0, rc;

    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        check = argv[2];
    } else if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        write = argv[2];
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [--check DIR | --write DIR]\n", argv[0]);
        return 2;
    }
    rc = devx_fuzz_setup(&dev);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < sizeof(seed_list) / sizeof(seed_list[0]); i++) {
        const char *why = NULL;
        int replayed;

        memset(&s, 0, sizeof(s));
        s.name = seed_list[i].name;
        devx_fuzz_begin();
        seed_list[i].build(&s);
        devx_fuzz_end();
        replayed = devx_fuzz_run(s.bytes, s.len);
        if (s.failed != s.refused)
            why = "other commands failed than the seed expects (rerun with SOFTMLX5_LOG=7)";
        else if (replayed != s.failed)
            why = "replayed, other commands failed than while it was built";
        else if (check != NULL && !seed_matches(check, &s))
            why = "differs from the corpus: rewrite it with devx_cmd_seeds --write "
                  "tests/fuzz/corpus/devx_cmd";
        else if (write != NULL && !seed_write(write, &s))
            why = "cannot be written";
        printf("seed %-14s %5zu bytes, %d commands refused as expected: %s\n", s.name, s.len,
               s.refused, why == NULL ? "ok" : "FAILED");
        if (why != NULL) {
            fprintf(stderr,
                    "seed %s: %d commands failed building it, %d replaying it, %d "
                    "expected: %s\n",
                    s.name, s.failed, replayed, s.refused, why);
            failures++;
        }
    }
    return failures != 0;
}
