/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ex_udp_swap (examples/common/ex_udp_swap.h), the answer every echo of
 * issue 14 makes in place (the example's kernel and CPU threads, the
 * packet-socket baseline): what it answers, what it leaves alone, and that
 * an answer's checksums stay valid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ex_udp_swap.h"

static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0, 0x0a};
static const uint8_t mac_b[6] = {0x02, 0, 0, 0, 0, 0x0b};
static const uint8_t ip_a[4] = {10, 1, 2, 2};
static const uint8_t ip_b[4] = {10, 1, 2, 1};

/* The one's complement sum of n bytes (n even here), folded, not inverted. */
static uint32_t sum16(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

/* Whether the IPv4 header's and the UDP checksums of frame are right. */
static int checksums_ok(const uint8_t *frame)
{
    const uint8_t *ip = frame + 14, *udp = ip + 20;
    uint32_t udp_len = (uint32_t)udp[4] << 8 | udp[5];
    uint32_t pseudo = 0;

    if (sum16(ip, 20, 0) != 0xffff)
        return 0;
    pseudo = sum16(ip + 12, 8, 0);
    pseudo += 17 + udp_len;
    return sum16(udp, udp_len, pseudo) == 0xffff;
}

/* An Ethernet / IPv4 / UDP frame from B (sport) to A (dport) with payload bytes; its length. */
static uint32_t make_frame(uint8_t *f, uint16_t sport, uint16_t dport, uint32_t payload)
{
    uint8_t *ip = f + 14, *udp = ip + 20;
    uint32_t ip_len = 20 + 8 + payload, sum;

    memcpy(f, mac_a, 6);
    memcpy(f + 6, mac_b, 6);
    f[12] = 0x08;
    f[13] = 0x00;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (uint8_t)(ip_len >> 8);
    ip[3] = (uint8_t)ip_len;
    ip[4] = 0x12;
    ip[5] = 0x34;
    ip[6] = 0x40; /* don't fragment */
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, ip_b, 4);
    memcpy(ip + 16, ip_a, 4);
    sum = ~sum16(ip, 20, 0) & 0xffff;
    ip[10] = (uint8_t)(sum >> 8);
    ip[11] = (uint8_t)sum;
    udp[0] = (uint8_t)(sport >> 8);
    udp[1] = (uint8_t)sport;
    udp[2] = (uint8_t)(dport >> 8);
    udp[3] = (uint8_t)dport;
    udp[4] = (uint8_t)((8 + payload) >> 8);
    udp[5] = (uint8_t)(8 + payload);
    udp[6] = 0;
    udp[7] = 0;
    for (uint32_t i = 0; i < payload; i++)
        udp[8 + i] = (uint8_t)(i * 7 + 3);
    sum = ~sum16(udp, 8 + payload, sum16(ip + 12, 8, 0) + 17 + 8 + payload) & 0xffff;
    if (sum == 0)
        sum = 0xffff;
    udp[6] = (uint8_t)(sum >> 8);
    udp[7] = (uint8_t)sum;
    return 14 + ip_len;
}

static void test_answer(void **state)
{
    static const uint32_t payloads[] = {0, 1, 7, 18, 100, 1472};
    uint8_t f[1600], orig[1600];

    (void)state;
    for (size_t k = 0; k < sizeof(payloads) / sizeof(payloads[0]); k++) {
        uint32_t len = make_frame(f, 40000, 5005, payloads[k]);

        assert_true(checksums_ok(f));
        memcpy(orig, f, len);
        assert_int_equal(ex_udp_swap(f, len, 5005), payloads[k] + 1);
        /* Back to B, from A's port 5005 to B's port, the same payload. */
        assert_memory_equal(f, mac_b, 6);
        assert_memory_equal(f + 6, mac_a, 6);
        assert_memory_equal(f + 26, ip_a, 4);
        assert_memory_equal(f + 30, ip_b, 4);
        assert_int_equal((uint32_t)f[34] << 8 | f[35], 5005);
        assert_int_equal((uint32_t)f[36] << 8 | f[37], 40000);
        assert_memory_equal(f + 42, orig + 42, payloads[k]);
        assert_true(checksums_ok(f));
    }
}

/* A frame longer than its IPv4 packet (a NIC's padding to 60 bytes) is answered, padding kept. */
static void test_padded(void **state)
{
    uint8_t f[64];
    uint32_t len = make_frame(f, 40000, 5005, 0);

    (void)state;
    assert_int_equal(len, 42);
    memset(f + len, 0, sizeof(f) - len);
    assert_int_equal(ex_udp_swap(f, 60, 5005), 1);
    assert_true(checksums_ok(f));
}

static void test_left_alone(void **state)
{
    uint8_t f[256], orig[256];
    uint32_t len;

    (void)state;
    /* Another port. */
    len = make_frame(f, 40000, 5006, 10);
    memcpy(orig, f, len);
    assert_int_equal(ex_udp_swap(f, len, 5005), 0);
    assert_memory_equal(f, orig, len);
    /* A fragment: more fragments set, then an offset. */
    len = make_frame(f, 40000, 5005, 10);
    f[20] = 0x20;
    memcpy(orig, f, len);
    assert_int_equal(ex_udp_swap(f, len, 5005), 0);
    assert_memory_equal(f, orig, len);
    f[20] = 0x00;
    f[21] = 0x10;
    assert_int_equal(ex_udp_swap(f, len, 5005), 0);
    /* Not UDP (TCP), not IPv4 (ARP's ethertype, an IPv6 version nibble). */
    len = make_frame(f, 40000, 5005, 10);
    f[23] = 6;
    assert_int_equal(ex_udp_swap(f, len, 5005), 0);
    len = make_frame(f, 40000, 5005, 10);
    f[13] = 0x06;
    assert_int_equal(ex_udp_swap(f, len, 5005), 0);
    len = make_frame(f, 40000, 5005, 10);
    f[14] = 0x65;
    assert_int_equal(ex_udp_swap(f, len, 5005), 0);
    /* Truncated: shorter than its IPv4 length, than the headers; a UDP length past the packet. */
    len = make_frame(f, 40000, 5005, 10);
    assert_int_equal(ex_udp_swap(f, len - 1, 5005), 0);
    assert_int_equal(ex_udp_swap(f, 41, 5005), 0);
    f[39] = 100;
    assert_int_equal(ex_udp_swap(f, len, 5005), 0);
    /* Swapped twice: the datagram again. */
    len = make_frame(f, 40000, 5005, 10);
    memcpy(orig, f, len);
    assert_int_equal(ex_udp_swap(f, len, 5005), 11);
    assert_int_equal(ex_udp_swap(f, len, 40000), 11);
    assert_memory_equal(f, orig, len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_answer),
            cmocka_unit_test(test_padded),
            cmocka_unit_test(test_left_alone),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
