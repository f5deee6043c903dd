/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the device reaches memory: host memory directly, GPU memory through
 * the CUDA driver (loaded at run time). Whether an address is GPU memory is
 * decided per registration.
 */
#ifndef EMU_MEM_H
#define EMU_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when addr is CUDA device memory (false when CUDA is absent). */
bool emu_mem_is_gpu(uintptr_t addr);

/* Copies between the device's buffer and memory at addr; errno-style result. */
int emu_mem_read(bool gpu, uintptr_t addr, void *dst, size_t len);
int emu_mem_write(bool gpu, uintptr_t addr, const void *src, size_t len);

#endif /* EMU_MEM_H */
