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

/*
 * Copies between the device's buffer and memory at addr; errno-style result.
 * Host memory is copied with memcpy: these are for the device's own
 * structures (rings, doorbell records, CQEs), which the program keeps mapped
 * while the object exists. A registration's contents go through the
 * emu_mem_host_* helpers below (host) or these (GPU).
 */
int emu_mem_read(bool gpu, uintptr_t addr, void *dst, size_t len);
int emu_mem_write(bool gpu, uintptr_t addr, const void *src, size_t len);
/*
 * Writes to GPU memory, in order: each span's bytes are in place before the
 * next span's are written (a CQE's body before its owner byte), all complete
 * on return, for the cost of one wait. At most EMU_MEM_SEQ_MAX spans, all in
 * the first one's GPU context; errno-style.
 */
#define EMU_MEM_SEQ_MAX 4
struct emu_mem_span {
    uintptr_t addr;
    const void *src;
    size_t len;
};
int emu_mem_gpu_write_seq(const struct emu_mem_span *spans, unsigned int n);
/*
 * Many copies between host buffers and GPU memory, in order on one stream
 * (the first one's GPU context), all complete on return: one wait for the
 * lot (a batch of received frames, or of frames to send). errno-style.
 */
struct emu_mem_copy {
    uintptr_t gpu;
    void *host;
    size_t len;
};
int emu_mem_gpu_write_many(const struct emu_mem_copy *c, unsigned int n);
int emu_mem_gpu_read_many(const struct emu_mem_copy *c, unsigned int n);
/* GPU memory to GPU memory (dst's context, a stream of the pool), complete on return. */
int emu_mem_gpu_copy(uintptr_t dst, uintptr_t src, size_t len);

/*
 * GPU-to-GPU copies issued now and waited for later, all at once: the
 * device's answer to many writes costs one wait instead of one each. A copy
 * that continues the last one of its context (source and destination both
 * right after it) is merged into it, so the writes of adjacent slots become
 * one copy. Copies of one context run in order, on one stream per context
 * (at most EMU_MEM_DEFER_LANES contexts at once: a further one settles the
 * others first). The owner serialises calls on one set.
 */
#define EMU_MEM_DEFER_LANES 4
struct mem_stream;
struct emu_mem_defer {
    struct {
        struct mem_stream *s;
        uintptr_t dst, src; /* the copy not issued yet (len 0: none) */
        size_t len;
    } lane[EMU_MEM_DEFER_LANES];
    unsigned int n;
    bool failed; /* an issue failed: settling reports EIO */
};
/* Queues the copy (0), or EIO when it cannot be issued (logged). */
int emu_mem_gpu_copy_defer(struct emu_mem_defer *d, uintptr_t dst, uintptr_t src, size_t len);
/* Every queued copy complete: 0, or EIO when one of them failed (logged). The set is empty again.
 */
int emu_mem_gpu_settle(struct emu_mem_defer *d);
/* Makes a context that can reach GPU address addr current in this thread; false: none. */
bool emu_mem_gpu_bind(uintptr_t addr);

/*
 * Application host memory, never a crash
 * --------------------------------------
 * ConnectX pins a registration's pages; we cannot, so the program may unmap
 * or mprotect them under a live registration. Every access the device makes
 * to application host memory (payloads, read data, atomic targets) is either
 * made by the kernel (readv/sendmsg/process_vm_readv straight into or out of
 * it: a fault is EFAULT) or goes through these helpers; a plain CPU load or
 * store to such memory could raise SIGSEGV/SIGBUS in the program. All return
 * 0 or EFAULT (len 0: 0), and none of them logs: the caller names the access.
 *
 * The copies are process_vm_writev/readv on our own pid: the kernel checks
 * and copies in one step with its fault-handling user copies, so an munmap
 * or mprotect racing the access cannot crash us, and it honours protections
 * (no FOLL_FORCE): copy_to a read-only page, or either copy of a PROT_NONE
 * page, is EFAULT. Our own pid needs no ptrace permission (same mm), so they
 * work under Yama and with SOFTMLX5_SINGLE_COPY=0. Cost: one system call
 * plus the copy (below); use them for bytes the CPU would otherwise copy (a
 * payload already read into the receive buffer, a GPU bounce, an atomic's
 * read-modify-write), and let the kernel move bulk data straight between the
 * socket and the target. Where a seccomp filter refuses process_vm_* (EPERM,
 * ENOSYS), they fall back, once logged, to a check then memcpy (a racing
 * munmap can then still crash).
 *
 * Measured, per call, on an H200 host (16 cores; a 2-core VM is about 2.5
 * times slower per system call):
 *               memcpy   copy_to   copy_from   mapped   writable
 *       8 B     3.5 ns    490 ns      490 ns   220 ns     210 ns
 *     4 KiB      27 ns    560 ns      550 ns   220 ns     220 ns
 *    64 KiB     1.7 us    3.6 us      3.5 us   0.8 us     0.8 us
 *     1 MiB      30 us     54 us       55 us   0.3 us      10 us
 * emu_mem_host_pinnable: 0.4 us for one mapping of any size with
 * PROCMAP_QUERY; 20-70 us through /proc/self/maps (grows with the number of
 * mappings the process has); mincore() 0.6 ms per 4 GiB.
 *
 * Rejected: a SIGSEGV/SIGBUS handler with sigsetjmp around memcpy (about
 * memcpy's cost, but the signal disposition is the program's: a handler it
 * installs later takes our faults, and sanitizers or runtimes that own the
 * signal break); checking then memcpy (a racing munmap still crashes, and
 * the check costs a system call anyway); /proc/self/mem (FOLL_FORCE writes
 * read-only pages); mincore() as the check (mapped PROT_NONE and read-only
 * pages pass it).
 */

/*
 * Every page of [addr, addr + len) is mapped and readable: the check before
 * the kernel reads the range on our behalf (a send straight from it, whose
 * failure midway would leave a frame half sent). A range that is to be
 * written wants emu_mem_host_writable. Ranges up to 64 KiB: MADV_POPULATE_READ (faults the pages in
 * for reading, as the send will; also catches pages that would SIGBUS);
 * larger ones: the process's memory map (PROCMAP_QUERY, Linux 6.11+: one
 * ioctl per mapping), else MADV_POPULATE_READ. Before Linux 5.14, mincore(),
 * which only sees whether pages are mapped.
 */
int emu_mem_host_mapped(const void *addr, size_t len);

/*
 * Before the CPU writes [addr, addr + len) itself (an atomic in place):
 * every page is mapped and writable (MADV_POPULATE_WRITE: faults the pages
 * in for writing, a private page gets its own copy, contents unchanged).
 * Before Linux 5.14, only whether pages are mapped.
 */
int emu_mem_host_writable(void *addr, size_t len);

/*
 * The registration check (ibv_reg_mr, DevX UMEM): EFAULT, as ConnectX's
 * pinning gives, unless every page of [addr, addr + len) is mapped, readable
 * and, for write, writable. Reads the process's memory map (PROCMAP_QUERY,
 * else /proc/self/maps, else mincore() in 16 MiB chunks, which only sees
 * whether pages are mapped): costs per mapping, not per page, and touches no
 * page (nothing is faulted in or changed). An unmapped 1 TiB fails at once.
 */
int emu_mem_host_pinnable(const void *addr, size_t len, bool write);

/*
 * Copies into / out of application host memory: EFAULT instead of a fault
 * (a part before the bad page may have been copied).
 */
int emu_mem_host_copy_to(void *dst_app, const void *src, size_t len);
int emu_mem_host_copy_from(void *dst, const void *src_app, size_t len);

#endif /* EMU_MEM_H */
