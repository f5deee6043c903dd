/* SPDX-License-Identifier: BSD-3-Clause */
#include "prm/prm_qp_transport.h"

#include <stdio.h>

#include "prm/mlx5_wqe.h"
#include "prm/prm_qp.h"

#define OP(name) (1ull << PRM_WQE_OPCODE_##name)

/* Executed on the device alone, on every service type. */
#define LOCAL_OPS (OP(NOP) | OP(WAIT) | OP(DUMP))
#define SEND_OPS  (OP(SEND) | OP(SEND_IMM))
#define WRITE_OPS (OP(RDMA_WRITE) | OP(RDMA_WRITE_IMM))
#define RESP_OPS \
    (OP(RDMA_READ) | OP(ATOMIC_CS) | OP(ATOMIC_FA) | OP(ATOMIC_MASKED_CS) | OP(ATOMIC_MASKED_FA))

static const struct prm_qp_transport prm_qp_transports[] = {
        {PRM_QP_ST_RC, "RC", true, true, false, PRM_QP_DC_NONE,
         LOCAL_OPS | SEND_OPS | WRITE_OPS | RESP_OPS},
        {PRM_QP_ST_UC, "UC", false, true, false, PRM_QP_DC_NONE, LOCAL_OPS | SEND_OPS | WRITE_OPS},
        {PRM_QP_ST_UD, "UD", false, false, false, PRM_QP_DC_NONE, LOCAL_OPS | SEND_OPS},
        {PRM_QP_ST_XRC, "XRC", true, true, true, PRM_QP_DC_NONE,
         LOCAL_OPS | SEND_OPS | WRITE_OPS | RESP_OPS},
        {PRM_QP_ST_DCI, "DCI", true, true, false, PRM_QP_DC_DCI,
         LOCAL_OPS | SEND_OPS | WRITE_OPS | RESP_OPS},
        {PRM_QP_ST_DCT, "DCT", true, true, false, PRM_QP_DC_DCT, 0},
};

#define PRM_QP_TRANSPORT_COUNT (sizeof(prm_qp_transports) / sizeof(prm_qp_transports[0]))

const struct prm_qp_transport *prm_qp_transport_of(uint8_t st)
{
    for (unsigned int i = 0; i < PRM_QP_TRANSPORT_COUNT; i++)
        if (prm_qp_transports[i].st == st)
            return &prm_qp_transports[i];
    return NULL;
}

bool prm_qp_transport_allows(const struct prm_qp_transport *t, uint8_t opcode)
{
    return opcode < 64 && (t->opcodes & (1ull << opcode)) != 0;
}

const char *prm_qp_transport_list(char *buf, unsigned int n)
{
    unsigned int used = 0;

    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (unsigned int i = 0; i < PRM_QP_TRANSPORT_COUNT && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i != 0 ? ", " : "",
                         prm_qp_transports[i].name);

        if (w < 0)
            break;
        used += (unsigned int)w;
    }
    return buf;
}
