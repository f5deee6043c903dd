/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User memory registrations (DevX UMEM): ranges of host or GPU memory that
 * DevX objects reference by umem id + offset for their rings and doorbell
 * records. A umem cannot be deregistered while an object uses it.
 */
#ifndef EMU_UMEM_H
#define EMU_UMEM_H

#include <stdbool.h>
#include <stdint.h>

struct emu_nic;

struct emu_umem {
    struct emu_nic *nic;
    uint32_t id;
    uintptr_t addr; /* host or GPU address of the first byte */
    uint64_t size;
    uint32_t access; /* IBV_ACCESS_* as given at registration */
    bool gpu;        /* addr is GPU memory, reached through the CUDA driver */
    int users;       /* objects whose rings or doorbell records live here */
};

/*
 * Registers [addr, addr + size) (gpu: GPU memory); errno-style: EFAULT when
 * host pages are not mapped with the protection access needs (mem.h).
 */
int emu_umem_register(struct emu_nic *nic, uintptr_t addr, uint64_t size, uint32_t access, bool gpu,
                      struct emu_umem **umem_out);

/* EBUSY while an object uses it; errno-style. */
int emu_umem_deregister(struct emu_umem *umem);

/* Outcomes of resolving (umem id, offset, length). */
enum emu_umem_check {
    EMU_UMEM_OK = 0,
    EMU_UMEM_BAD_ID,       /* no such umem on this device */
    EMU_UMEM_OUT_OF_RANGE, /* [offset, offset + len) not inside the umem */
};

/*
 * Takes a use of umem `id` for len bytes at offset: on EMU_UMEM_OK,
 * *addr_out is the address of the range, *gpu_out whether it is GPU memory,
 * and the umem cannot be deregistered until emu_umem_put().
 */
enum emu_umem_check emu_umem_get(struct emu_nic *nic, uint32_t id, uint64_t offset, uint64_t len,
                                 uintptr_t *addr_out, bool *gpu_out, struct emu_umem **umem_out);
void emu_umem_put(struct emu_umem *umem);

#endif /* EMU_UMEM_H */
