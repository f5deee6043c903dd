/* SPDX-License-Identifier: BSD-3-Clause */
#include "prm/prm_qp_transition.h"

#include <stdio.h>

#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"

#define T_QPC(op, f, t)                                                               \
    {                                                                                 \
        PRM_CMD_##op##_QP, PRM_QP_STATE_##f, PRM_QP_STATE_##t, PRM_##op##_QP_IN_SIZE, \
                PRM_##op##_QP_OUT_SIZE, true                                          \
    }
#define T_ANY(op, t)                                                                  \
    {                                                                                 \
        PRM_CMD_##op##_QP, PRM_QP_STATE_ANY, PRM_QP_STATE_##t, PRM_##op##_QP_IN_SIZE, \
                PRM_##op##_QP_OUT_SIZE, false                                         \
    }

/* The order is the one refusal messages list them in. */
static const struct prm_qp_transition prm_qp_transitions[] = {
        T_ANY(2RST, RST),           T_ANY(2ERR, ERR),
        T_QPC(RST2INIT, RST, INIT), T_QPC(INIT2INIT, INIT, INIT),
        T_QPC(INIT2RTR, INIT, RTR), T_QPC(RTR2RTS, RTR, RTS),
        T_QPC(RTS2RTS, RTS, RTS),   T_QPC(SQERR2RTS, SQER, RTS),
};

#define PRM_QP_TRANSITION_COUNT (sizeof(prm_qp_transitions) / sizeof(prm_qp_transitions[0]))

static bool prm_qp_state_known(uint8_t state)
{
    switch (state) {
    case PRM_QP_STATE_RST:
    case PRM_QP_STATE_INIT:
    case PRM_QP_STATE_RTR:
    case PRM_QP_STATE_RTS:
    case PRM_QP_STATE_SQER:
    case PRM_QP_STATE_ERR:
    case PRM_QP_STATE_SQD:
    case PRM_QP_STATE_SUSPENDED:
        return true;
    default:
        return false;
    }
}

const struct prm_qp_transition *prm_qp_transition_find(uint8_t from, uint8_t to)
{
    if (!prm_qp_state_known(from) || !prm_qp_state_known(to))
        return NULL;
    for (size_t i = 0; i < PRM_QP_TRANSITION_COUNT; i++) {
        const struct prm_qp_transition *t = &prm_qp_transitions[i];

        if (t->to == to && (t->from == PRM_QP_STATE_ANY || t->from == from))
            return t;
    }
    return NULL;
}

const struct prm_qp_transition *prm_qp_transition_of_cmd(uint16_t opcode)
{
    for (size_t i = 0; i < PRM_QP_TRANSITION_COUNT; i++)
        if (prm_qp_transitions[i].opcode == opcode)
            return &prm_qp_transitions[i];
    return NULL;
}

const char *prm_qp_state_name(uint8_t state)
{
    switch (state) {
    case PRM_QP_STATE_RST:
        return "RST";
    case PRM_QP_STATE_INIT:
        return "INIT";
    case PRM_QP_STATE_RTR:
        return "RTR";
    case PRM_QP_STATE_RTS:
        return "RTS";
    case PRM_QP_STATE_SQER:
        return "SQER";
    case PRM_QP_STATE_ERR:
        return "ERR";
    case PRM_QP_STATE_SQD:
        return "SQD";
    case PRM_QP_STATE_SUSPENDED:
        return "SUSPENDED";
    case PRM_QP_STATE_ANY:
        return "any";
    default:
        return "?";
    }
}

const char *prm_qp_transition_list(char *buf, size_t n)
{
    size_t used = 0;

    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < PRM_QP_TRANSITION_COUNT && used < n; i++) {
        const struct prm_qp_transition *t = &prm_qp_transitions[i];
        int w = snprintf(buf + used, n - used, "%s%s->%s", i != 0 ? ", " : "",
                         prm_qp_state_name(t->from), prm_qp_state_name(t->to));

        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}
