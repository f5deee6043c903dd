/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU memory of another process of this host: a requester names its GPU
 * source by a reference instead of sending the bytes, and the responder
 * copies them GPU to GPU into its target, one device-to-device copy instead
 * of GPU to host, socket, host to GPU. Two kinds of reference:
 *   IPC  memory of cuMemAlloc: the allocation's CUDA IPC handle, opened
 *        with cuIpcOpenMemHandle;
 *   VMM  memory of CUDA's virtual memory management API (cuMemCreate +
 *        cuMemMap) made with a POSIX file descriptor handle type: the
 *        exporter's pid and its file descriptor of the allocation, which the
 *        responder takes with pidfd_getfd (it needs ptrace permission over
 *        the exporter), imports and maps (gpu_vmm.h).
 */
#ifndef EMU_GPU_IPC_H
#define EMU_GPU_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "nic/mem.h"
#include "wire/proto.h"

#define EMU_GPU_IPC_HANDLE_LEN 64u

enum emu_gpu_ref_kind {
    EMU_GPU_REF_IPC = EMU_WIRE_GPU_KIND_IPC,
    EMU_GPU_REF_VMM = EMU_WIRE_GPU_KIND_VMM,
};

struct emu_gpu_ref {
    uint32_t kind; /* enum emu_gpu_ref_kind */
    union {
        uint8_t handle[EMU_GPU_IPC_HANDLE_LEN]; /* IPC: cuIpcGetMemHandle of the allocation */
        struct {
            int32_t pid;     /* the exporting process */
            int32_t fd;      /* its POSIX file descriptor of the allocation */
            uint64_t serial; /* unique per export in that process */
            uint64_t size;   /* bytes mapped from the allocation's start */
        } vmm;
    };
    uint64_t offset; /* of the first byte, from the allocation's start */
};

/*
 * A reference to GPU address addr for other processes; *room: the bytes from
 * addr to the end of its allocation (VMM: of its mapping). 0, or ENOTSUP
 * when it cannot be exported (no driver, a pool allocation, a VMM allocation
 * without a POSIX file descriptor handle type, a driver without the VMM
 * calls). A VMM reference holds the export (the file descriptor, once per
 * allocation, shared by its references) until emu_gpu_ipc_unexport.
 */
int emu_gpu_ipc_export(uintptr_t addr, struct emu_gpu_ref *ref, uint64_t *room);
/* Gives back what emu_gpu_ipc_export of ref holds (nothing for IPC). */
void emu_gpu_ipc_unexport(const struct emu_gpu_ref *ref);

/*
 * The wire form of a reference (wire/proto.h F_GPU): its kind into h's
 * `compare`, the rest into payload. Decoding answers 0, or ENOTSUP for a
 * kind this device does not know or a reference that cannot be right
 * (reserved bytes set, no pid, no file descriptor, an offset outside the
 * mapping): the responder then asks for the bytes.
 */
void emu_gpu_ref_encode(const struct emu_gpu_ref *ref, struct emu_wire_hdr *h,
                        uint8_t payload[EMU_WIRE_GPU_REF_LEN]);
int emu_gpu_ref_decode(const struct emu_wire_hdr *h, const uint8_t payload[EMU_WIRE_GPU_REF_LEN],
                       struct emu_gpu_ref *ref);

/*
 * Copies len bytes at ref into GPU address dst, complete on return. The
 * peer's allocation is opened once and kept open (the last
 * EMU_GPU_IPC_OPEN_MAX allocations, both kinds together: an older one is
 * closed or unmapped). 0; ENOTSUP when it cannot be opened in this process
 * (the sender should send the bytes); EIO when the copy failed.
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
