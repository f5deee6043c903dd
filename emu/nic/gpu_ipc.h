/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU memory of another process of this host, reached through CUDA IPC: a
 * requester names its GPU source by a reference (the allocation's IPC handle
 * and an offset in it) instead of sending the bytes, and the responder copies
 * them GPU to GPU into its target, one device-to-device copy instead of GPU
 * to host, socket, host to GPU.
 */
#ifndef EMU_GPU_IPC_H
#define EMU_GPU_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "nic/mem.h"

#define EMU_GPU_IPC_HANDLE_LEN 64u

struct emu_gpu_ref {
    uint8_t handle[EMU_GPU_IPC_HANDLE_LEN]; /* cuIpcGetMemHandle of the allocation */
    uint64_t offset;                        /* of the first byte, in the allocation */
};

/*
 * A reference to GPU address addr for other processes; *room: the bytes from
 * addr to the end of its allocation. 0, or ENOTSUP when CUDA cannot export
 * it (no driver, VMM or pool allocations).
 */
int emu_gpu_ipc_export(uintptr_t addr, struct emu_gpu_ref *ref, uint64_t *room);

/*
 * Copies len bytes at ref into GPU address dst, complete on return. The
 * peer's allocation is opened once and kept open (the last
 * EMU_GPU_IPC_OPEN_MAX allocations: an older one is closed). 0; ENOTSUP
 * when it cannot be opened in this process (the sender should send the
 * bytes); EIO when the copy failed.
 */
int emu_gpu_ipc_copy(const struct emu_gpu_ref *ref, uintptr_t dst, size_t len);

#define EMU_GPU_IPC_OPEN_MAX 64

/*
 * Copies issued and waited for later (nic/mem.h's emu_mem_defer): the
 * allocations they read stay open until they are settled.
 */
struct emu_gpu_ipc_defer {
    struct emu_mem_defer mem;
    uint64_t held; /* bit i: the table's entry i is read by a copy of this set */
};
/* As emu_gpu_ipc_copy, but the copy may still be running on return (0). */
int emu_gpu_ipc_copy_defer(struct emu_gpu_ipc_defer *d, const struct emu_gpu_ref *ref,
                           uintptr_t dst, size_t len);
/* Every copy of d complete: 0, or EIO when one failed. */
int emu_gpu_ipc_settle(struct emu_gpu_ipc_defer *d);

#endif /* EMU_GPU_IPC_H */
