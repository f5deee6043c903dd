/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Same-host single copy (proto.h): the probe word that proves a peer can
 * read this process, and the reads of a requester's buffers.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "wire/wire_int.h"

/*
 * The probe word a peer reads to prove it can read this process: random, so
 * that a peer naming another process's pid cannot make us pull from that
 * process (its word would not hold our value at our address).
 */
static uint64_t pull_probe_word;
static pthread_once_t pull_once = PTHREAD_ONCE_INIT;

static void pull_probe_setup(void)
{
    uint64_t v = 0;

    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
        v = emu_now_ns() ^ ((uint64_t)getpid() << 32);
    pull_probe_word = v | 1; /* never 0: an offer with value 0 reads as no offer */
}

void wire_pull_init(const struct emu_wire_config *cfg)
{
    pthread_once(&pull_once, pull_probe_setup);
    if (!cfg->single_copy || !cfg->may_set_ptracer)
        return;
    /*
     * Only when the user asked for single copy: under Yama's ptrace_scope 1
     * only ancestors may read us, and peers are siblings or unrelated
     * processes. Called at every wire start, not once: a child forked after
     * its parent started a wire does not inherit the exception.
     */
    if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0 && errno != EINVAL)
        EMU_LOG_INFO("PR_SET_PTRACER failed (%m): peers may fall back to socket copies");
}

void wire_pull_offer(const struct emu_wire *wire, struct emu_wire_hdr *h)
{
    h->compare = htobe64((uint64_t)getpid());
    h->raddr = htobe64((uint64_t)(uintptr_t)&pull_probe_word);
    h->swap_add = htobe64(pull_probe_word);
    if (wire->cfg.share_fd >= 0)
        h->dma_len = htobe32((uint32_t)wire->cfg.share_fd + 1);
}

int wire_pull_probe(struct emu_conn *conn, const struct emu_wire_hdr *h)
{
    const struct emu_wire *wire = conn->wire;
    uint64_t pid = be64toh(h->compare), value = 0;
    struct iovec local = {&value, sizeof(value)};
    struct iovec remote = {(void *)(uintptr_t)be64toh(h->raddr), sizeof(value)};

    if (pid == 0 || pid > INT32_MAX || h->swap_add == 0 || !wire->cfg.single_copy)
        return 0;
    if (process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(value)) {
        EMU_LOG_DBG("single-copy probe of process %lu failed: %m; the socket carries the data",
                    (unsigned long)pid);
        return 0;
    }
    if (value != be64toh(h->swap_add))
        return 0;
    wire_share_map(conn, (int)pid, h);
    return (int)pid;
}

/* Skips `done` bytes of an iovec array (entries may be empty). */
static void pull_iov_advance(struct iovec **v, int *n, size_t done)
{
    while (*n > 0 && done >= (*v)->iov_len) {
        done -= (*v)->iov_len;
        (*v)++;
        (*n)--;
    }
    if (*n > 0 && done > 0) {
        (*v)->iov_base = (char *)(*v)->iov_base + done;
        (*v)->iov_len -= done;
    }
}

int emu_conn_pull(struct emu_conn *conn, const struct iovec *local_in, int nlocal,
                  const struct iovec *remote_in, int nremote)
{
    struct iovec local[EMU_WIRE_MAX_IOV], remote[EMU_WIRE_PULL_MAX_ENTRIES];
    struct iovec *l = local, *r = remote;
    size_t want = 0, got_total = 0;

    if (conn->pull_pid <= 0 || nlocal > EMU_WIRE_MAX_IOV ||
        nremote > (int)EMU_WIRE_PULL_MAX_ENTRIES)
        return EINVAL;
    for (int i = 0; i < nlocal; i++) {
        local[i] = local_in[i];
        want += local[i].iov_len;
    }
    for (int i = 0; i < nremote; i++)
        remote[i] = remote_in[i];
    /* A read stops at the first page it cannot reach on either side: go on from there. */
    while (got_total < want) {
        ssize_t got = process_vm_readv(conn->pull_pid, l, (unsigned long)nlocal, r,
                                       (unsigned long)nremote, 0);

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got == 0 ? EFAULT : errno;
        got_total += (size_t)got;
        pull_iov_advance(&l, &nlocal, (size_t)got);
        pull_iov_advance(&r, &nremote, (size_t)got);
        if (nremote == 0 && got_total < want)
            return EFAULT;
    }
    __atomic_add_fetch(&conn->wire->pulled, got_total, __ATOMIC_RELAXED);
    return 0;
}
