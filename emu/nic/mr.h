/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains and memory keys. Every access the device makes through
 * a key, local or remote, is checked here first: the key exists, belongs to
 * the same protection domain, covers the whole range, and allows the access.
 * While an access is in progress the key cannot be deregistered, so no byte
 * outside a live registration is ever touched.
 */
#ifndef EMU_MR_H
#define EMU_MR_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

#include "nic/gpu_ipc.h"

struct emu_nic;

struct emu_pd {
    struct ibv_pd ibv;
    struct emu_nic *nic;
    uint32_t pdn;
    int users; /* MRs, QPs, SRQs created on it (guarded by nic->lock) */
};

struct emu_mr {
    struct ibv_mr ibv;
    struct emu_nic *nic;
    struct emu_pd *pd;
    uint32_t key;   /* lkey == rkey */
    uint64_t iova;  /* first address the key covers */
    uintptr_t addr; /* where iova lives in this process (host or GPU address) */
    uint64_t length;
    int access; /* IBV_ACCESS_* */
    bool gpu;   /* addr is GPU memory, reached through the CUDA driver */
    int users;  /* accesses in flight (atomic): deregistration waits for 0 */
    /*
     * GPU memory other processes of this host can open (CUDA IPC or a VMM
     * export, held until deregistration): addr's reference.
     */
    bool ipc;
    struct emu_gpu_ref ipc_ref;
    uint64_t ipc_room; /* bytes from addr to the end of its allocation */
};

/* Outcomes of a key check, each mapped by the caller to its PRM syndrome. */
enum emu_mr_check {
    EMU_MR_OK = 0,
    EMU_MR_BAD_KEY,      /* no such key */
    EMU_MR_BAD_PD,       /* key of another protection domain */
    EMU_MR_OUT_OF_RANGE, /* [iova, iova + len) not inside the registration */
    EMU_MR_NO_ACCESS,    /* the registration does not allow this access */
};

const char *emu_mr_check_str(enum emu_mr_check result);

struct emu_pd *emu_pd_of(struct ibv_pd *pd);

/*
 * Registers [addr, addr + length) reachable as [iova, iova + length);
 * errno-style result. gpu: addr is GPU memory.
 */
int emu_mr_register(struct emu_pd *pd, uintptr_t addr, uint64_t iova, uint64_t length, int access,
                    bool gpu, struct emu_mr **mr_out);

/* errno-style; EBUSY never happens: accesses in flight finish first. */
int emu_mr_deregister(struct emu_mr *mr);

/*
 * Checks an access of len bytes at iova through key, for a QP of protection
 * domain pdn. On EMU_MR_OK the registration is held until emu_mr_put(mr)
 * (any thread): its deregistration waits, so *mr_out stays valid. No lock is
 * held meanwhile, so a holder may take any other lock.
 */
enum emu_mr_check emu_mr_get(struct emu_nic *nic, uint32_t key, uint32_t pdn, uint64_t iova,
                             uint64_t len, int access, struct emu_mr **mr_out);
void emu_mr_put(struct emu_mr *mr);

/*
 * Copies into / out of a held registration at iova (already checked); errno-style:
 * EFAULT when host pages were unmapped or protected since (never a fault).
 */
int emu_mr_write(const struct emu_mr *mr, uint64_t iova, const void *src, size_t len);
int emu_mr_read(const struct emu_mr *mr, uint64_t iova, void *dst, size_t len);

/* Host address of iova in a held host registration (for atomics), NULL for GPU memory. */
void *emu_mr_host_ptr(const struct emu_mr *mr, uint64_t iova);

#endif /* EMU_MR_H */
