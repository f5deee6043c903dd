/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A lossy link for tests: data requests lost on their way, so that the
 * receivers' handling of lost packets (UC's PSN gaps, RC's retransmits) can
 * be seen. Off (nothing lost) unless a test asks.
 */
#include "wire/wire_int.h"

void emu_wire_lose(struct emu_wire *wire, uint32_t frames)
{
    __atomic_store_n(&wire->lose, frames, __ATOMIC_RELAXED);
}

bool wire_loses(struct emu_wire *wire, const struct emu_wire_hdr *h)
{
    uint32_t left = __atomic_load_n(&wire->lose, __ATOMIC_RELAXED);

    if (left == 0 || h->type < EMU_WIRE_WRITE || h->type > EMU_WIRE_SEND_IMM)
        return false;
    /* One frame per count, even when senders race. */
    while (left > 0 && !__atomic_compare_exchange_n(&wire->lose, &left, left - 1, false,
                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return left > 0;
}
