/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU memory of CUDA's virtual memory management API (cuMemCreate +
 * cuMemMap) shared with other processes of this host, for gpu_ipc.c: the
 * exporter gives a POSIX file descriptor of the allocation
 * (cuMemExportToShareableHandle, once per allocation while registrations
 * hold it); the importer takes that descriptor out of the exporter's process
 * (pidfd_open + pidfd_getfd: ptrace permission over it), imports it and maps
 * it for the device of its current context.
 */
#ifndef EMU_GPU_VMM_H
#define EMU_GPU_VMM_H

#include <stdint.h>

#include "core/cuda_driver.h"
#include "nic/gpu_ipc.h"

/*
 * A VMM reference to addr (gpu_ipc.h emu_gpu_ipc_export): 0; ENOENT when
 * addr is no VMM mapping (or the driver has no VMM calls); ENOTSUP when it
 * is one that cannot be exported (no POSIX file descriptor handle type, a
 * range that is not one mapping of one allocation, the export refused),
 * with one INFO line per reason a process.
 */
int emu_gpu_vmm_export(const struct core_cuda_ops *cuda, uintptr_t addr, struct emu_gpu_ref *ref,
                       uint64_t *room);
/* Drops the export ref holds: the last one closes the descriptor and releases the allocation. */
void emu_gpu_vmm_unexport(const struct core_cuda_ops *cuda, const struct emu_gpu_ref *ref);

/*
 * Maps a peer's VMM allocation (ref->vmm.size bytes) at a new address
 * (*base), readable and writable by the device of the current context. 0,
 * or ENOTSUP (logged: the pidfd calls' refusal once a process, each CUDA
 * refusal each time).
 */
int emu_gpu_vmm_map(const struct core_cuda_ops *cuda, const struct emu_gpu_ref *ref,
                    core_cu_deviceptr *base);
/* Unmaps what emu_gpu_vmm_map mapped at base. */
void emu_gpu_vmm_unmap(const struct core_cuda_ops *cuda, core_cu_deviceptr base, uint64_t size);

#endif /* EMU_GPU_VMM_H */
