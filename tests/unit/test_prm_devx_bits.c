/* SPDX-License-Identifier: BSD-3-Clause */
/* prm_bits.h: big-endian field get/set over PRM command buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_bits.h"
#include "unit/prm_test_bytes.h"

#define F_TOP4   0x04, 28, 4
#define F_MID5   0x04, 24, 5 /* overlaps F_TOP4 on bit 28: read-only use */
#define F_LOW24  0x04, 0, 24
#define F_BIT31  0x08, 31, 1
#define F_BIT0   0x08, 0, 1
#define F_WORD   0x0c, 0, 32
#define F_QWORD  0x10, 0, 64
#define F_MIDDLE 0x18, 9, 7

static void test_set_writes_big_endian_bits_at_their_place(void **state)
{
    uint8_t buf[32] = {0};
    uint8_t exp[32] = {0};

    (void)state;
    PRM_SET(buf, F_TOP4, 0xa);
    PRM_SET(buf, F_LOW24, 0x123456);
    PRM_SET(buf, F_BIT31, 1);
    PRM_SET(buf, F_WORD, 0xdeadbeef);
    PRM_SET(buf, F_MIDDLE, 0x55);
    PUT_BYTES(exp, 0x04, 0xa0, 0x12, 0x34, 0x56);
    PUT_BYTES(exp, 0x08, 0x80, 0x00, 0x00, 0x00);
    PUT_BYTES(exp, 0x0c, 0xde, 0xad, 0xbe, 0xef);
    /* 0x55 << 9 = 0xaa00 */
    PUT_BYTES(exp, 0x18, 0x00, 0x00, 0xaa, 0x00);
    assert_memory_equal(buf, exp, sizeof(buf));
}

static void test_set_leaves_neighbouring_bits_untouched(void **state)
{
    uint8_t buf[32];
    uint8_t exp[32];

    (void)state;
    memset(buf, 0xff, sizeof(buf));
    memset(exp, 0xff, sizeof(exp));
    PRM_SET(buf, F_MIDDLE, 0);
    /* bits 9..15 of the word at 0x18 cleared: 0xffff01ff */
    PUT_BYTES(exp, 0x18, 0xff, 0xff, 0x01, 0xff);
    assert_memory_equal(buf, exp, sizeof(buf));

    PRM_SET(buf, F_BIT0, 0);
    PUT_BYTES(exp, 0x08, 0xff, 0xff, 0xff, 0xfe);
    assert_memory_equal(buf, exp, sizeof(buf));

    PRM_SET(buf, F_TOP4, 0x5);
    PUT_BYTES(exp, 0x04, 0x5f, 0xff, 0xff, 0xff);
    assert_memory_equal(buf, exp, sizeof(buf));
}

static void test_set_masks_values_wider_than_the_field(void **state)
{
    uint8_t buf[32] = {0};

    (void)state;
    PRM_SET(buf, F_TOP4, 0x1f3);
    assert_int_equal(PRM_GET(buf, F_TOP4), 0x3);
    assert_int_equal(PRM_GET(buf, F_LOW24), 0);
    PRM_SET(buf, F_LOW24, 0xff123456);
    assert_int_equal(PRM_GET(buf, F_LOW24), 0x123456);
    assert_int_equal(PRM_GET(buf, F_TOP4), 0x3);
    PRM_SET(buf, F_BIT0, 2);
    assert_int_equal(PRM_GET(buf, F_BIT0), 0);
    assert_int_equal(buf[0x0b], 0);
}

static void test_full_width_fields(void **state)
{
    uint8_t buf[32] = {0};
    uint8_t exp[32] = {0};

    (void)state;
    PRM_SET(buf, F_WORD, 0xffffffffu);
    assert_int_equal(PRM_GET(buf, F_WORD), 0xffffffffu);
    PRM_SET(buf, F_QWORD, 0x0102030405060708ull);
    PUT_BYTES(exp, 0x0c, 0xff, 0xff, 0xff, 0xff);
    PUT_BYTES(exp, 0x10, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08);
    assert_memory_equal(buf, exp, sizeof(buf));
    assert_true(PRM_GET(buf, F_QWORD) == 0x0102030405060708ull);
    PRM_SET(buf, F_QWORD, ~0ull);
    assert_true(PRM_GET(buf, F_QWORD) == ~0ull);
    assert_int_equal(buf[0x0f], 0xff);
    assert_int_equal(buf[0x18], 0);
}

static void test_get_reads_hand_written_words(void **state)
{
    uint8_t buf[32] = {0};

    (void)state;
    PUT_BYTES(buf, 0x04, 0xa1, 0x23, 0x45, 0x67);
    assert_int_equal(PRM_GET(buf, F_TOP4), 0xa);
    assert_int_equal(PRM_GET(buf, F_MID5), 0x01);
    assert_int_equal(PRM_GET(buf, F_LOW24), 0x234567);
    PUT_BYTES(buf, 0x18, 0x00, 0x00, 0xfe, 0x00);
    assert_int_equal(PRM_GET(buf, F_MIDDLE), 0x7f);
}

static void test_at_and_offset(void **state)
{
    uint8_t buf[64] = {0};

    (void)state;
    PRM_SET(PRM_AT(buf, 0x20), F_LOW24, 0xabcdef);
    assert_int_equal(buf[0x25], 0xab);
    assert_int_equal(buf[0x27], 0xef);
    assert_int_equal(PRM_GET(PRM_AT(buf, 0x20), F_LOW24), 0xabcdef);
    assert_int_equal(PRM_OFFSET(F_QWORD), 0x10);
    assert_int_equal(PRM_OFFSET(F_MIDDLE), 0x18);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_set_writes_big_endian_bits_at_their_place),
            cmocka_unit_test(test_set_leaves_neighbouring_bits_untouched),
            cmocka_unit_test(test_set_masks_values_wider_than_the_field),
            cmocka_unit_test(test_full_width_fields),
            cmocka_unit_test(test_get_reads_hand_written_words),
            cmocka_unit_test(test_at_and_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
