/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state machine of the PRM, in one table: which (from, to) pairs of
 * states (prm_qp.h encoding) are legal and which transition command makes
 * each. DOCA Verbs (src/verbs), softmlx5's DevX command engine, its
 * standard-verbs layer and its device model all decide legality here; each
 * keeps only the attribute rules of its own API.
 *
 *   RST2INIT_QP   RST  -> INIT        RTR2RTS_QP    RTR  -> RTS
 *   INIT2INIT_QP  INIT -> INIT        RTS2RTS_QP    RTS  -> RTS
 *   INIT2RTR_QP   INIT -> RTR         SQERR2RTS_QP  SQER -> RTS
 *   2ERR_QP       any  -> ERR         2RST_QP       any  -> RST
 *
 * The PRM has no command that enters SQD (only SQD_RTS_QP, which leaves
 * it), so SQD is reached by no transition and is left out, as on ConnectX.
 */
#ifndef PRM_QP_TRANSITION_H
#define PRM_QP_TRANSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A transition's source state when it starts from every state (2ERR_QP, 2RST_QP). */
#define PRM_QP_STATE_ANY 0xff

struct prm_qp_transition {
    uint16_t opcode; /* PRM_CMD_*_QP */
    uint8_t from;    /* PRM_QP_STATE_*, or PRM_QP_STATE_ANY */
    uint8_t to;      /* PRM_QP_STATE_* */
    uint16_t inlen;  /* input mailbox bytes (PRM_*_QP_IN_SIZE) */
    uint16_t outlen; /* output mailbox bytes (PRM_*_QP_OUT_SIZE) */
    bool has_qpc;    /* the input carries opt_param_mask and a QP context (rst2init_qp_in layout) */
};

/*
 * The transition that takes a QP from state `from` to state `to`, or NULL
 * when the PRM has none (or either is not a QP state). `from` is the
 * QP's actual state, never PRM_QP_STATE_ANY.
 */
const struct prm_qp_transition *prm_qp_transition_find(uint8_t from, uint8_t to);

/* The transition a command opcode makes, or NULL when the opcode is not a QP transition. */
const struct prm_qp_transition *prm_qp_transition_of_cmd(uint16_t opcode);

/* "RST", "INIT", "RTR", "RTS", "SQER", "ERR", "SQD", "SUSPENDED"; "any" for PRM_QP_STATE_ANY; else
 * "?". */
const char *prm_qp_state_name(uint8_t state);

/*
 * Writes the legal transitions, "any->RST, any->ERR, RST->INIT, ...", into
 * buf (always NUL terminated when n > 0, truncated if too short), for
 * refusal messages. Returns buf.
 */
const char *prm_qp_transition_list(char *buf, size_t n);

#endif /* PRM_QP_TRANSITION_H */
