/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct writes between two devices of one host. A NIC places an RDMA
 * write in the target's memory without waking anything there; over a
 * socket, the target's device loop must first be woken, which costs as
 * much as a TCP ping-pong's wake-up. So where single copy is on (the two
 * processes may read and write each other's memory), a small RDMA WRITE
 * is placed by the requester itself with process_vm_writev, and the
 * responder's program sees it without its device taking part.
 *
 * The responder decides what may be written so. Each device has a shared
 * page (a memfd, offered to same-host peers with the single-copy offer;
 * wire/share.c maps it) of grants: "QP q, connected to QP p, may write
 * [iova, iova + len) of key k, which lives at host address h". A grant is
 * made by the responder after it executed a WRITE through the socket (the
 * key, the range, the QP's state and access all checked), and revoked
 * before any of that can change: the key deregistered, the QP modified,
 * failed or destroyed. A requester uses a grant only while nothing of its
 * QP is outstanding (every earlier request executed at the responder, so
 * the direct write is ordered after them), for a WRITE without immediate
 * of less than ENGINE_PULL_MIN_BYTES of host memory; it then completes the
 * WQE itself. Direct writes take no PSN. Anything that goes wrong (no
 * grant, a fault on either side, a peer gone) sends the write through the
 * socket instead, where the responder checks it and answers as usual.
 *
 * The protocol between a requester using a grant and a responder revoking
 * it (both sequentially consistent): the requester counts itself in
 * (busy + 1), then checks the grant is still valid; the responder marks it
 * invalid, then waits until busy is 0. Either the requester sees the grant
 * invalid, or the responder sees it busy and waits for the write to end.
 */
#include <endian.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "nic/nic.h"
#include "nic/qp.h"

#define DIRECT_MAGIC    0x534d4c3544495231ull /* "SML5DIR1" */
#define DIRECT_SLOTS    1023u
#define DIRECT_PROBES   8u
/* How long a revocation waits for a peer's write before it gives the grant's slot up. */
#define DIRECT_DRAIN_NS 1000000000ull

enum { DIRECT_FREE = 0, DIRECT_VALID = 1, DIRECT_LOST = 2 };

struct direct_grant {
    uint32_t state; /* DIRECT_* */
    uint32_t busy;  /* requesters writing through the grant now */
    uint32_t qpn;   /* the responder's QP */
    uint32_t peer_qpn;
    uint32_t rkey;
    uint32_t reserved;
    uint64_t iova, len; /* what the key covers */
    uint64_t host;      /* where iova lives in the responder's process */
    uint64_t pad[2];
};

struct direct_page {
    uint64_t magic;
    uint64_t pid;
    uint32_t nslots;
    uint32_t reserved[11];
    struct direct_grant slot[DIRECT_SLOTS];
};
_Static_assert(sizeof(struct direct_grant) == 64, "a grant is 64 bytes");
_Static_assert(sizeof(struct direct_page) == 65536, "the page is 64 KiB");

static uint32_t direct_hash(uint32_t qpn, uint32_t rkey)
{
    return ((qpn * 0x9e3779b1u) ^ (rkey * 0x85ebca77u)) % DIRECT_SLOTS;
}

#define LOAD(field)       __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define STORE(field, val) __atomic_store_n(&(field), (val), __ATOMIC_RELAXED)

int engine_direct_init(struct emu_engine *e)
{
    struct direct_page *p;
    int fd = memfd_create("softmlx5-direct", MFD_CLOEXEC);

    if (fd < 0 || ftruncate(fd, sizeof(*p)) != 0) {
        EMU_LOG_INFO("device %s: no shared page for direct writes (%m): small writes take the "
                     "socket",
                     e->nic->ibdev.name);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || madvise(p, sizeof(*p), MADV_DONTFORK) != 0) {
        EMU_LOG_INFO("device %s: cannot map the shared page for direct writes (%m)",
                     e->nic->ibdev.name);
        if (p != MAP_FAILED)
            munmap(p, sizeof(*p));
        close(fd);
        return -1;
    }
    pthread_mutex_init(&e->direct_lock, NULL);
    p->pid = (uint64_t)getpid();
    p->nslots = DIRECT_SLOTS;
    __atomic_store_n(&p->magic, DIRECT_MAGIC, __ATOMIC_RELEASE);
    e->direct = p;
    e->direct_fd = fd;
    return fd;
}

/* Whether g is a valid grant of responder QP qpn to peer_qpn covering [iova, iova + len). */
static bool direct_covers(struct direct_grant *g, uint32_t qpn, uint32_t peer_qpn, uint32_t rkey,
                          uint64_t iova, uint64_t len)
{
    uint64_t start, size;

    if (__atomic_load_n(&g->state, __ATOMIC_SEQ_CST) != DIRECT_VALID || LOAD(g->qpn) != qpn ||
        LOAD(g->peer_qpn) != peer_qpn || LOAD(g->rkey) != rkey)
        return false;
    start = LOAD(g->iova);
    size = LOAD(g->len);
    return iova >= start && len <= size && iova - start <= size - len;
}

void engine_direct_grant(struct emu_qp *qp, struct emu_conn *conn, const struct engine_sgl *t)
{
    struct emu_engine *e = qp->nic->engine;
    struct direct_page *p = e->direct;
    const struct emu_mr *mr = t->mr[0];
    uint32_t h, peer = qp->attr.remote_qpn;
    struct direct_grant *free_slot = NULL;

    if (p == NULL || t->count != 1 || mr == NULL || mr->gpu || !emu_conn_peer_pulls(conn))
        return;
    h = direct_hash(qp->qpn, mr->key);
    pthread_mutex_lock(&e->direct_lock);
    for (uint32_t i = 0; i < DIRECT_PROBES; i++) {
        struct direct_grant *g = &p->slot[(h + i) % DIRECT_SLOTS];

        if (direct_covers(g, qp->qpn, peer, mr->key, mr->iova, mr->length))
            goto out; /* granted already */
        if (free_slot == NULL && LOAD(g->state) == DIRECT_FREE)
            free_slot = g;
    }
    if (free_slot != NULL) {
        STORE(free_slot->qpn, qp->qpn);
        STORE(free_slot->peer_qpn, peer);
        STORE(free_slot->rkey, mr->key);
        STORE(free_slot->iova, mr->iova);
        STORE(free_slot->len, mr->length);
        STORE(free_slot->host, (uint64_t)mr->addr);
        __atomic_store_n(&free_slot->state, DIRECT_VALID, __ATOMIC_SEQ_CST);
    }
out:
    pthread_mutex_unlock(&e->direct_lock);
}

/* Waits until no peer writes through g (revoked); a slot a peer never lets go of is retired. */
static void direct_drain(struct emu_engine *e, struct direct_grant *g)
{
    uint64_t start = 0;

    while (__atomic_load_n(&g->busy, __ATOMIC_SEQ_CST) != 0) {
        uint64_t now = emu_now_ns();

        if (start == 0)
            start = now;
        if (now - start > DIRECT_DRAIN_NS) {
            EMU_LOG_ERR("device %s: a peer has been writing through a revoked grant (QP 0x%x, "
                        "key 0x%x) for a second; its slot is retired",
                        e->nic->ibdev.name, LOAD(g->qpn), LOAD(g->rkey));
            __atomic_store_n(&g->state, DIRECT_LOST, __ATOMIC_SEQ_CST);
            return;
        }
        sched_yield();
    }
    __atomic_store_n(&g->state, DIRECT_FREE, __ATOMIC_SEQ_CST);
}

/* Revokes the grants of responder QP qpn (0: any) through key (0: any). */
static void direct_revoke(struct emu_nic *nic, uint32_t qpn, uint32_t key)
{
    struct emu_engine *e = nic->engine;
    struct direct_page *p = e != NULL ? e->direct : NULL;

    if (p == NULL)
        return;
    pthread_mutex_lock(&e->direct_lock);
    for (uint32_t i = 0; i < DIRECT_SLOTS; i++) {
        struct direct_grant *g = &p->slot[i];

        if (LOAD(g->state) != DIRECT_VALID || (qpn != 0 && LOAD(g->qpn) != qpn) ||
            (key != 0 && LOAD(g->rkey) != key))
            continue;
        /* Marked invalid first: a requester counted in after this sees it and goes no further. */
        __atomic_store_n(&g->state, DIRECT_LOST, __ATOMIC_SEQ_CST);
        direct_drain(e, g);
    }
    pthread_mutex_unlock(&e->direct_lock);
}

void engine_direct_revoke_qp(struct emu_qp *qp)
{
    direct_revoke(qp->nic, qp->qpn, 0);
}

void emu_engine_direct_revoke_key(struct emu_nic *nic, uint32_t key)
{
    direct_revoke(nic, 0, key);
}

/* The peer's grant page on conn, when it offered one of ours to use. */
static struct direct_page *direct_peer_page(struct emu_conn *conn)
{
    size_t len;
    struct direct_page *p = emu_conn_peer_share(conn, &len);

    if (p == NULL || len < sizeof(*p) ||
        __atomic_load_n(&p->magic, __ATOMIC_ACQUIRE) != DIRECT_MAGIC ||
        LOAD(p->nslots) != DIRECT_SLOTS)
        return NULL;
    return p;
}

bool engine_direct_write(struct emu_qp *qp, const struct emu_wire_hdr *h,
                         const struct engine_sgl *l)
{
    uint32_t rqpn = qp->attr.remote_qpn, rkey = be32toh(h->rkey), hash;
    uint64_t raddr = be64toh(h->raddr);
    struct direct_page *p;

    if (l->gpu || l->bytes == 0 || l->bytes >= ENGINE_PULL_MIN_BYTES ||
        (p = direct_peer_page(qp->peer)) == NULL)
        return false;
    hash = direct_hash(rqpn, rkey);
    for (uint32_t i = 0; i < DIRECT_PROBES; i++) {
        struct direct_grant *g = &p->slot[(hash + i) % DIRECT_SLOTS];
        bool done = false;

        if (!direct_covers(g, rqpn, qp->qpn, rkey, raddr, l->bytes))
            continue;
        __atomic_add_fetch(&g->busy, 1, __ATOMIC_SEQ_CST);
        /* Checked again once counted in: a revocation from now on waits for us. */
        if (direct_covers(g, rqpn, qp->qpn, rkey, raddr, l->bytes))
            done = emu_conn_push(qp->peer, l->iov, l->count,
                                 LOAD(g->host) + (raddr - LOAD(g->iova)), l->bytes) == 0;
        __atomic_sub_fetch(&g->busy, 1, __ATOMIC_SEQ_CST);
        return done;
    }
    return false;
}
