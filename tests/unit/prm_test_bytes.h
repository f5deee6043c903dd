/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for golden-vector tests of PRM command layouts: the expected
 * mailbox is written as bytes at byte offsets taken from the PRM tables,
 * independently of the field macros under test.
 */
#ifndef PRM_TEST_BYTES_H
#define PRM_TEST_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* PUT_BYTES(buf, 0x1c, 0x07, 0x00, 0x00, 0x12): bytes 0x1c..0x1f of buf. */
#define PUT_BYTES(buf, off, ...)                                     \
    memcpy((uint8_t *)(buf) + (off), (const uint8_t[]){__VA_ARGS__}, \
           sizeof((const uint8_t[]){__VA_ARGS__}))

#endif /* PRM_TEST_BYTES_H */
