/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Same-host shared memory with a peer (proto.h, single copy): the peer's
 * shared file, mapped, and writes into the peer's process.
 *
 * A single-copy offer may name a file of the offering process in `dma_len`
 * (its descriptor number + 1). A side that proved it can read the peer's
 * memory (the probe word) may also open that descriptor through
 * /proc/<pid>/fd, which the kernel allows under the same ptrace check, and
 * map it shared. What the file holds is the owner's business (the engine's
 * direct writes); the wire only maps it, and unmaps it with the connection.
 * The mapping is not inherited by a child of fork(), whose connections are
 * not its own.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "wire/wire_int.h"

/* The sizes of shared file the wire maps. */
#define SHARE_MIN_BYTES 4096
#define SHARE_MAX_BYTES (1 << 20)

void wire_share_map(struct emu_conn *conn, int pid, const struct emu_wire_hdr *h)
{
    uint32_t fd_plus1 = be32toh(h->dma_len);
    char path[64];
    struct stat st;
    void *p;
    int fd;

    if (fd_plus1 == 0 || fd_plus1 > INT32_MAX || conn->peer_share != NULL)
        return;
    snprintf(path, sizeof(path), "/proc/%d/fd/%u", pid, fd_plus1 - 1);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        EMU_LOG_DBG("device %s: cannot open the peer's shared file %s: %m", conn->wire->name, path);
        return;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < SHARE_MIN_BYTES ||
        st.st_size > SHARE_MAX_BYTES) {
        EMU_LOG_DBG("device %s: the peer's shared file %s is not one to map", conn->wire->name,
                    path);
        close(fd);
        return;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        EMU_LOG_DBG("device %s: cannot map the peer's shared file: %m", conn->wire->name);
        return;
    }
    if (madvise(p, (size_t)st.st_size, MADV_DONTFORK) != 0) {
        munmap(p, (size_t)st.st_size);
        return;
    }
    conn->peer_share_len = (size_t)st.st_size;
    __atomic_store_n(&conn->peer_share, p, __ATOMIC_RELEASE);
}

void wire_share_unmap(struct emu_conn *conn)
{
    if (conn->peer_share != NULL)
        munmap(conn->peer_share, conn->peer_share_len);
    conn->peer_share = NULL;
}

void *emu_conn_peer_share(const struct emu_conn *conn, size_t *len)
{
    void *p = __atomic_load_n(&conn->peer_share, __ATOMIC_ACQUIRE);

    *len = p != NULL ? conn->peer_share_len : 0;
    return p;
}

int emu_conn_push(struct emu_conn *conn, const struct iovec *local, int nlocal, uint64_t remote,
                  size_t len)
{
    struct iovec r = {(void *)(uintptr_t)remote, len};
    ssize_t put;

    if (conn->pull_pid <= 0 || nlocal > EMU_WIRE_MAX_IOV)
        return EINVAL;
    do
        put = process_vm_writev(conn->pull_pid, local, (unsigned long)nlocal, &r, 1, 0);
    while (put < 0 && errno == EINTR);
    if (put < 0)
        return errno;
    if ((size_t)put != len)
        return EFAULT;
    __atomic_add_fetch(&conn->wire->pushed, len, __ATOMIC_RELAXED);
    return 0;
}
