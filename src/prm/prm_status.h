/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one place that turns a DevX command's completion (status byte and
 * syndrome word of the output mailbox) into a doca_error_t and into words.
 * Host code building commands and softmlx5 answering them both use it.
 */
#ifndef PRM_STATUS_H
#define PRM_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "doca_error.h"

/*
 * The doca_error_t for a command status (PRM_CMD_STAT_*): DOCA_SUCCESS for
 * OK, DOCA_ERROR_UNKNOWN for a status the PRM does not define.
 */
doca_error_t prm_cmd_status_to_doca(uint8_t status);

/* Short name of a command status ("BAD_PARAM"), or "UNKNOWN_STATUS". */
const char *prm_cmd_status_name(uint8_t status);

/* Name of a command opcode ("CREATE_CQ"), or "UNKNOWN_OPCODE". */
const char *prm_cmd_opcode_name(uint16_t opcode);

/*
 * Writes one line describing a command's completion into buf (always NUL
 * terminated when n > 0, truncated if too short), e.g.
 *   "CREATE_CQ failed: status BAD_PARAM (0x3), syndrome 0x12ab34"
 * or "CREATE_CQ succeeded" for status OK. An unknown opcode is shown as
 * "opcode 0x123". Returns what snprintf returns.
 */
int prm_cmd_status_describe(char *buf, size_t n, uint16_t opcode, uint8_t status,
                            uint32_t syndrome);

#endif /* PRM_STATUS_H */
