/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Atomics as the responder executes them: compare-swap, fetch-add and their
 * masked forms on 4- and 8-byte big-endian targets (as ConnectX stores
 * them), ordered device-wide by one lock, and checked to be mapped before
 * they touch host memory.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "engine/engine_int.h"
#include "nic/mem.h"
#include "nic/mr.h"
#include "prm/mlx5_wqe.h"

/* Orders the atomics of every device of the process with respect to each other. */
static pthread_mutex_t atomic_order = PTHREAD_MUTEX_INITIALIZER;

/* x + y where a set bit i of boundary keeps the carry out of bit i from bit i + 1. */
static uint64_t atomic_field_add(uint64_t x, uint64_t y, uint64_t boundary, uint32_t bits)
{
    uint64_t sum = 0, carry = 0;

    for (uint32_t i = 0; i < bits; i++) {
        uint64_t a = (x >> i) & 1, b = (y >> i) & 1;

        sum |= (a ^ b ^ carry) << i;
        carry = ((a & b) | (carry & (a ^ b))) & ~(boundary >> i) & 1;
    }
    return sum;
}

/* The new value of a target holding orig (host order, operand size). */
static uint64_t atomic_apply(const struct engine_atomic_op *a, uint64_t orig)
{
    uint64_t mask = a->size == 8 ? ~0ull : 0xffffffffull, v;

    switch (a->op) {
    case PRM_WQE_OPCODE_ATOMIC_FA:
        v = orig + a->swap_add;
        break;
    case PRM_WQE_OPCODE_ATOMIC_CS:
        v = orig == a->compare ? a->swap_add : orig;
        break;
    case PRM_WQE_OPCODE_ATOMIC_MASKED_CS:
        v = ((orig ^ a->compare) & a->compare_mask) == 0
                    ? (orig & ~a->swap_mask) | (a->swap_add & a->swap_mask)
                    : orig;
        break;
    default: /* PRM_WQE_OPCODE_ATOMIC_MASKED_FA; compare is the field boundary */
        v = atomic_field_add(orig, a->swap_add, a->compare, a->size * 8);
        break;
    }
    return v & mask;
}

int engine_atomic_exec(const struct engine_atomic_op *a, struct emu_mr *mr, uint64_t raddr,
                       uint8_t *orig_raw)
{
    void *host = emu_mr_host_ptr(mr, raddr);
    int err = 0;

    pthread_mutex_lock(&atomic_order);
    if (host != NULL && emu_mem_host_writable(host, a->size) != 0) {
        err = EFAULT; /* unmapped or made read-only since it was registered: untouched */
    } else if (host == NULL || ((uintptr_t)host & (a->size - 1)) != 0) {
        /*
         * GPU memory, or a host address not aligned to the operand (an MR
         * whose iova and address differ in alignment): read, modify, write,
         * ordered by the lock alone.
         */
        uint8_t raw[8];
        uint64_t orig, next;

        err = emu_mr_read(mr, raddr, raw, a->size);
        if (err == 0) {
            memcpy(orig_raw, raw, a->size);
            if (a->size == 4) {
                uint32_t w;

                memcpy(&w, raw, 4);
                orig = be32toh(w);
                next = atomic_apply(a, orig);
                w = htobe32((uint32_t)next);
                memcpy(raw, &w, 4);
            } else {
                uint64_t w;

                memcpy(&w, raw, 8);
                orig = be64toh(w);
                next = atomic_apply(a, orig);
                w = htobe64(next);
                memcpy(raw, &w, 8);
            }
            if (next != orig)
                err = emu_mr_write(mr, raddr, raw, a->size);
        }
    } else if (a->size == 4) {
        /* Host memory: a compare-exchange keeps the update atomic for the CPU too. */
        uint32_t *p = host, old = __atomic_load_n(p, __ATOMIC_SEQ_CST), next;

        do
            next = htobe32((uint32_t)atomic_apply(a, be32toh(old)));
        while (!__atomic_compare_exchange_n(p, &old, next, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST));
        memcpy(orig_raw, &old, 4);
    } else {
        uint64_t *p = host, old = __atomic_load_n(p, __ATOMIC_SEQ_CST), next;

        do
            next = htobe64(atomic_apply(a, be64toh(old)));
        while (!__atomic_compare_exchange_n(p, &old, next, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST));
        memcpy(orig_raw, &old, 8);
    }
    pthread_mutex_unlock(&atomic_order);
    return err;
}
