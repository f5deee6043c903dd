/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UDP echo's answer, made in place: an Ethernet II / IPv4 / UDP frame to
 * a given destination port gets its MAC addresses, IPv4 addresses and UDP
 * ports swapped, so it goes back to its sender with the same payload. A swap
 * leaves both checksums valid (the IPv4 header sum and the UDP pseudo-header
 * sum are sums of the same 16-bit words), so nothing is recomputed.
 *
 * C11, C++ and CUDA: the GPU echo's kernel, its CPU threads and the packet
 * socket baseline (bench/eth/pkt_echo.c) all answer through this one
 * function.
 */
#ifndef EX_UDP_SWAP_H
#define EX_UDP_SWAP_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define EX_UDP_FN __host__ __device__ static inline
#else
#define EX_UDP_FN static inline
#endif

enum {
    EX_ETH_HDR_LEN = 14,
    EX_IPV4_MIN_HDR_LEN = 20,
    EX_UDP_HDR_LEN = 8,
    EX_ETHERTYPE_IPV4 = 0x0800,
    EX_IPPROTO_UDP = 17,
};

EX_UDP_FN void ex_udp_swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t t = a[i];

        a[i] = b[i];
        b[i] = t;
    }
}

/*
 * When frame (len bytes) is an unfragmented IPv4 UDP datagram to port
 * (host order) whose lengths fit in len, swaps it into its answer and
 * returns the UDP payload's length + 1; otherwise returns 0 and leaves the
 * frame as it was.
 */
EX_UDP_FN uint32_t ex_udp_swap(uint8_t *frame, uint32_t len, uint16_t port)
{
    uint8_t *ip = frame + EX_ETH_HDR_LEN;
    uint32_t ihl, ip_len, udp_len;
    uint8_t *udp;

    if (len < EX_ETH_HDR_LEN + EX_IPV4_MIN_HDR_LEN + EX_UDP_HDR_LEN)
        return 0;
    if (((uint32_t)frame[12] << 8 | frame[13]) != EX_ETHERTYPE_IPV4 || (ip[0] >> 4) != 4 ||
        ip[9] != EX_IPPROTO_UDP)
        return 0;
    ihl = (uint32_t)(ip[0] & 0xf) * 4;
    ip_len = (uint32_t)ip[2] << 8 | ip[3];
    /* More fragments, or an offset: a fragment is not a datagram to answer. */
    if (ihl < EX_IPV4_MIN_HDR_LEN || ((ip[6] & 0x3f) | ip[7]) != 0 ||
        ip_len < ihl + EX_UDP_HDR_LEN || EX_ETH_HDR_LEN + ip_len > len)
        return 0;
    udp = ip + ihl;
    udp_len = (uint32_t)udp[4] << 8 | udp[5];
    if (((uint32_t)udp[2] << 8 | udp[3]) != port || udp_len < EX_UDP_HDR_LEN ||
        udp_len > ip_len - ihl)
        return 0;
    ex_udp_swap_bytes(frame, frame + 6, 6);
    ex_udp_swap_bytes(ip + 12, ip + 16, 4);
    ex_udp_swap_bytes(udp, udp + 2, 2);
    return udp_len - EX_UDP_HDR_LEN + 1;
}

#undef EX_UDP_FN

#endif /* EX_UDP_SWAP_H */
