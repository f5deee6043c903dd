/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bit-field access to big-endian PRM command buffers.
 *
 * The PRM describes a command as a table of big-endian 32-bit words; a field
 * is a run of bits inside one word (or a 64-bit value spanning two words).
 * Here a field is written as three numbers, mirroring the PRM tables:
 *
 *     #define PRM_CQC_LOG_CQ_SIZE 0x0c, 24, 5
 *             (byte offset of the word, bit position of the field's least
 *              significant bit inside the word, width in bits)
 *
 * A 64-bit field is written with bit position 0 and width 64 at the offset of
 * its first (most significant) word. A structure nested in a command (a CQ
 * context inside CREATE_CQ) is addressed with PRM_AT(buf, byte offset).
 *
 *     PRM_SET(in, PRM_CMD_OPCODE, PRM_CMD_CREATE_CQ);
 *     PRM_SET(PRM_AT(in, PRM_CREATE_CQ_IN_CQC), PRM_CQC_LOG_CQ_SIZE, 7);
 *     uint32_t cqn = PRM_GET(out, PRM_CREATE_CQ_OUT_CQN);
 *
 * PRM_SET keeps only the low `width` bits of the value; callers validate
 * ranges before building a command.
 */
#ifndef PRM_BITS_H
#define PRM_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PRM_AT(buf, offset) ((void *)((uint8_t *)(buf) + (offset)))

/*
 * A field's width, checked at compile time: PRM_SET/PRM_GET handle widths up
 * to 32 and exactly 64; wider byte arrays (GIDs, MACs) go through PRM_OFFSET
 * and memcpy.
 */
#define PRM_APPLY(macro, args)           macro args
#define PRM_WIDTH_OF(offset, lsb, width) (width)
#define PRM_CHECK_WIDTH(...)                                           \
    (void)sizeof(char[(PRM_APPLY(PRM_WIDTH_OF, (__VA_ARGS__)) <= 32 || \
                       PRM_APPLY(PRM_WIDTH_OF, (__VA_ARGS__)) == 64)   \
                              ? 1                                      \
                              : -1])

#define PRM_SET(buf, field, value) \
    (PRM_CHECK_WIDTH(field), prm_set_field((buf), field, (uint64_t)(value)))
#define PRM_GET(buf, field) (PRM_CHECK_WIDTH(field), prm_get_field((buf), field))

/* Byte offset of a field's word, for fields that are byte arrays (GIDs, MACs). */
#define PRM_OFFSET(field) prm_field_offset(field)

static inline uint32_t prm_load_be32(const void *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return __builtin_bswap32(v);
}

static inline void prm_store_be32(void *p, uint32_t host)
{
    uint32_t v = __builtin_bswap32(host);

    memcpy(p, &v, sizeof(v));
}

static inline uint64_t prm_field_mask(unsigned int width)
{
    return width >= 64 ? ~0ULL : ((1ULL << width) - 1);
}

static inline void prm_set_field(void *buf, size_t offset, unsigned int lsb, unsigned int width,
                                 uint64_t value)
{
    uint8_t *word = (uint8_t *)buf + offset;

    if (width == 64) {
        prm_store_be32(word, (uint32_t)(value >> 32));
        prm_store_be32(word + 4, (uint32_t)value);
        return;
    }
    uint32_t mask = (uint32_t)(prm_field_mask(width) << lsb);
    uint32_t old = prm_load_be32(word);

    prm_store_be32(word, (old & ~mask) | (((uint32_t)value << lsb) & mask));
}

static inline uint64_t prm_get_field(const void *buf, size_t offset, unsigned int lsb,
                                     unsigned int width)
{
    const uint8_t *word = (const uint8_t *)buf + offset;

    if (width == 64)
        return ((uint64_t)prm_load_be32(word) << 32) | prm_load_be32(word + 4);
    return (prm_load_be32(word) >> lsb) & prm_field_mask(width);
}

static inline size_t prm_field_offset(size_t offset, unsigned int lsb, unsigned int width)
{
    (void)lsb;
    (void)width;
    return offset;
}

#endif /* PRM_BITS_H */
