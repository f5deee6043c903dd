/* SPDX-License-Identifier: BSD-3-Clause */
/* Connections between devices: connect, frame send, payload receive, rejection. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "nic/nic.h"
#include "wire/wire.h"

#define CONN_RBUF_SIZE (256u << 10)
/* Bytes of the following frames read together with a payload (at most one bulk read's worth). */
#define CONN_RX_SPILL  4096u
#define CONN_SOCKBUF   (8 << 20)

uint64_t emu_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Big socket buffers (forced when allowed), no Nagle, and a receive timeout for payloads. */
static void conn_tune(int fd, bool tcp)
{
    int size = CONN_SOCKBUF, one = 1;
    struct timeval tv;

    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    if (tcp)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    tv.tv_sec = (time_t)(emu_config_get()->retry_timeout_ms / 1000);
    tv.tv_usec = (suseconds_t)(emu_config_get()->retry_timeout_ms % 1000) * 1000;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Wraps a connected socket, registers it with the progress thread; errno-style. */
int emu_wire_conn_add(struct emu_wire *wire, int fd, bool tcp, struct emu_conn **conn_out)
{
    struct emu_conn *conn = calloc(1, sizeof(*conn));
    struct epoll_event ev = {.events = EPOLLIN};

    if (conn == NULL || (conn->rbuf = malloc(CONN_RBUF_SIZE)) == NULL) {
        free(conn);
        close(fd);
        return ENOMEM;
    }
    conn_tune(fd, tcp);
    conn->wire = wire;
    conn->fd = fd;
    conn->local = !tcp;
    /* Only emu_wire_connect asks for the connection back: it dials. Set before any frame arrives.
     */
    conn->dialer = conn_out != NULL;
    conn->refs = 1; /* the wire's list */
    pthread_mutex_init(&conn->send_lock, NULL);
    pthread_mutex_lock(&wire->lock);
    conn->next = wire->conns;
    wire->conns = conn;
    if (conn_out != NULL) {
        conn->refs++;
        *conn_out = conn;
    }
    pthread_mutex_unlock(&wire->lock);
    ev.data.ptr = conn;
    if (epoll_ctl(wire->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        EMU_LOG_ERR("device %s: cannot watch a wire connection: %m", wire->nic->ibdev.name);
    return 0;
}

void emu_conn_get(struct emu_conn *conn)
{
    pthread_mutex_lock(&conn->wire->lock);
    conn->refs++;
    pthread_mutex_unlock(&conn->wire->lock);
}

void emu_conn_put(struct emu_conn *conn)
{
    struct emu_wire *wire = conn->wire;
    bool last;

    pthread_mutex_lock(&wire->lock);
    last = --conn->refs == 0;
    pthread_mutex_unlock(&wire->lock);
    if (!last)
        return;
    close(conn->fd);
    pthread_mutex_destroy(&conn->send_lock);
    free(conn->rbuf);
    free(conn);
}

static bool wire_is_local(const struct emu_nic *nic, uint32_t ipv4)
{
    return ipv4 == 0 || ipv4 == nic->ipv4 || (ipv4 >> 24) == 127;
}

static int wire_dial(struct emu_nic *nic, uint32_t ipv4, uint16_t ep, bool *tcp)
{
    union {
        struct sockaddr_un un;
        struct sockaddr_in in;
    } addr;
    socklen_t len;
    int fd;

    *tcp = !wire_is_local(nic, ipv4);
    if (*tcp) {
        memset(&addr.in, 0, sizeof(addr.in));
        addr.in.sin_family = AF_INET;
        addr.in.sin_addr.s_addr = htonl(ipv4);
        addr.in.sin_port = htons((uint16_t)(EMU_WIRE_TCP_PORT_BASE + ep));
        len = sizeof(addr.in);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    } else {
        len = emu_wire_endpoint_addr(&addr.un, nic->ipv4, ep);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    }
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&addr, len) != 0) {
        int err = errno;

        close(fd);
        return -err;
    }
    return fd;
}

int emu_wire_connect(struct emu_nic *nic, uint32_t ipv4, uint16_t ep, struct emu_conn **conn_out)
{
    struct emu_wire *wire = nic->wire;
    struct emu_wire_hdr hello;
    struct emu_conn *conn;
    bool tcp;
    int fd, err;

    if (wire_is_local(nic, ipv4))
        ipv4 = nic->ipv4;
    pthread_mutex_lock(&wire->lock);
    for (conn = wire->conns; conn != NULL; conn = conn->next) {
        if (conn->identified && !__atomic_load_n(&conn->dead, __ATOMIC_ACQUIRE) &&
            conn->peer_ipv4 == ipv4 && conn->peer_ep == ep) {
            conn->refs++;
            pthread_mutex_unlock(&wire->lock);
            *conn_out = conn;
            return 0;
        }
    }
    pthread_mutex_unlock(&wire->lock);

    fd = wire_dial(nic, ipv4, ep, &tcp);
    if (fd < 0) {
        EMU_LOG_ERR("device %s: cannot connect to endpoint %u at %u.%u.%u.%u (%s): %s; is the "
                    "peer process running?",
                    nic->ibdev.name, ep, ipv4 >> 24, (ipv4 >> 16) & 0xff, (ipv4 >> 8) & 0xff,
                    ipv4 & 0xff, tcp ? "TCP" : "abstract Unix socket", strerror(-fd));
        return -fd;
    }
    err = emu_wire_conn_add(wire, fd, tcp, &conn);
    if (err != 0)
        return err;
    conn->peer_ipv4 = ipv4;
    conn->peer_ep = ep;
    memset(&hello, 0, sizeof(hello));
    hello.magic = htobe32(EMU_WIRE_MAGIC);
    hello.version = EMU_WIRE_VERSION;
    hello.type = EMU_WIRE_HELLO;
    hello.src_qpn = htobe32(nic->endpoint_id);
    hello.imm = htobe32(nic->ipv4);
    /* Over TCP the peer is on another host: no process of ours to read. */
    if (!tcp && emu_config_get()->single_copy)
        emu_wire_pull_offer(&hello);
    err = emu_conn_send(conn, &hello, NULL, 0);
    if (err != 0) {
        emu_conn_put(conn);
        return err;
    }
    pthread_mutex_lock(&wire->lock);
    conn->identified = true;
    pthread_mutex_unlock(&wire->lock);
    *conn_out = conn;
    return 0;
}

int emu_conn_send(struct emu_conn *conn, const struct emu_wire_hdr *hdr, const struct iovec *iov,
                  int iovcnt)
{
    struct iovec vec[1 + 32];
    struct msghdr msg;
    int n = 1, err = 0;

    if (iovcnt > 32)
        return EINVAL;
    vec[0].iov_base = (void *)hdr;
    vec[0].iov_len = sizeof(*hdr);
    for (int i = 0; i < iovcnt; i++)
        if (iov[i].iov_len != 0)
            vec[n++] = iov[i];
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = vec;
    msg.msg_iovlen = (size_t)n;
    pthread_mutex_lock(&conn->send_lock);
    while (msg.msg_iovlen > 0) {
        ssize_t sent = sendmsg(conn->fd, &msg, MSG_NOSIGNAL);

        if (sent < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            break;
        }
        /* Partial send: skip what went out. */
        while (msg.msg_iovlen > 0 && (size_t)sent >= msg.msg_iov->iov_len) {
            sent -= (ssize_t)msg.msg_iov->iov_len;
            msg.msg_iov++;
            msg.msg_iovlen--;
        }
        if (msg.msg_iovlen > 0) {
            msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + sent;
            msg.msg_iov->iov_len -= (size_t)sent;
        }
    }
    pthread_mutex_unlock(&conn->send_lock);
    if (err != 0)
        EMU_LOG_DBG("wire send to endpoint %u failed: %s", conn->peer_ep, strerror(err));
    return err;
}

int emu_conn_recv(struct emu_conn *conn, const struct iovec *iov_in, int iovcnt)
{
    struct iovec iov[65];
    int n = 0;

    if (iovcnt > 64)
        return EINVAL;
    for (int i = 0; i < iovcnt; i++) {
        size_t take = conn->rlen - conn->roff;

        iov[n] = iov_in[i];
        if (take > iov[n].iov_len)
            take = iov[n].iov_len;
        /* First from what the last read already brought in. */
        memcpy(iov[n].iov_base, conn->rbuf + conn->roff, take);
        conn->roff += take;
        iov[n].iov_base = (char *)iov[n].iov_base + take;
        iov[n].iov_len -= take;
        if (iov[n].iov_len != 0)
            n++;
    }
    /*
     * Then straight from the socket into the destination. What follows the
     * payload on the stream (the next frames) lands in the emptied receive
     * buffer in the same call, which saves a read per frame.
     */
    size_t want = 0;
    int total = n;

    for (int i = 0; i < n; i++)
        want += iov[i].iov_len;
    if (want > 0 && conn->roff == conn->rlen) {
        conn->roff = conn->rlen = 0;
        iov[total++] = (struct iovec){conn->rbuf, CONN_RX_SPILL};
    }
    for (struct iovec *v = iov; want > 0;) {
        ssize_t got = readv(conn->fd, v, total - (int)(v - iov));
        size_t left;

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got == 0 ? ECONNRESET : errno;
        left = (size_t)got < want ? (size_t)got : want;
        conn->rlen += (size_t)got - left; /* readv fills in order: only after the payload */
        want -= left;
        while (left > 0 && left >= v->iov_len) {
            left -= v->iov_len;
            v++;
        }
        if (left > 0) {
            v->iov_base = (char *)v->iov_base + left;
            v->iov_len -= left;
        }
    }
    return 0;
}

int emu_conn_discard(struct emu_conn *conn, size_t len)
{
    char scratch[4096];

    while (len > 0) {
        struct iovec v = {scratch, len < sizeof(scratch) ? len : sizeof(scratch)};
        int err = emu_conn_recv(conn, &v, 1);

        if (err != 0)
            return err;
        len -= v.iov_len;
    }
    return 0;
}

/*
 * The probe word a peer reads to prove it can read this process: random, so
 * that a peer naming another process's pid cannot make us pull from that
 * process (its word would not hold our value at our address).
 */
static uint64_t wire_probe_word;
static pthread_once_t wire_single_copy_once = PTHREAD_ONCE_INIT;

static void wire_probe_setup(void)
{
    uint64_t v = 0;

    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
        v = emu_now_ns() ^ ((uint64_t)getpid() << 32);
    wire_probe_word = v | 1; /* never 0: an offer with value 0 reads as no offer */
}

void emu_wire_single_copy_init(void)
{
    pthread_once(&wire_single_copy_once, wire_probe_setup);
    if (!emu_config_get()->single_copy)
        return;
    /*
     * Under Yama's ptrace_scope 1 only ancestors may read us; peers are
     * siblings or unrelated processes. Called at every wire start, not once:
     * a child forked after its parent started a wire does not inherit the
     * exception. Without Yama (EINVAL) nothing is needed: same-user
     * processes may already.
     */
    if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0 && errno != EINVAL)
        EMU_LOG_INFO("PR_SET_PTRACER failed (%m): peers may fall back to socket copies");
}

void emu_wire_pull_offer(struct emu_wire_hdr *h)
{
    h->compare = htobe64((uint64_t)getpid());
    h->raddr = htobe64((uint64_t)(uintptr_t)&wire_probe_word);
    h->swap_add = htobe64(wire_probe_word);
}

int emu_wire_pull_probe(const struct emu_wire_hdr *h)
{
    uint64_t pid = be64toh(h->compare), value = 0;
    struct iovec local = {&value, sizeof(value)};
    struct iovec remote = {(void *)(uintptr_t)be64toh(h->raddr), sizeof(value)};

    if (pid == 0 || pid > INT32_MAX || h->swap_add == 0 || !emu_config_get()->single_copy)
        return 0;
    if (process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(value)) {
        EMU_LOG_DBG("single-copy probe of process %lu failed: %m; the socket carries the data",
                    (unsigned long)pid);
        return 0;
    }
    return value == be64toh(h->swap_add) ? (int)pid : 0;
}

/* Skips `done` bytes of an iovec array (entries may be empty). */
static void wire_iov_advance(struct iovec **v, int *n, size_t done)
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
    struct iovec local[64], remote[EMU_WIRE_PULL_MAX_ENTRIES];
    struct iovec *l = local, *r = remote;
    size_t want = 0, got_total = 0;

    if (conn->pull_pid <= 0 || nlocal > 64 || nremote > (int)EMU_WIRE_PULL_MAX_ENTRIES)
        return EINVAL;
    memcpy(local, local_in, sizeof(*local) * (size_t)nlocal);
    memcpy(remote, remote_in, sizeof(*remote) * (size_t)nremote);
    for (int i = 0; i < nlocal; i++)
        want += local[i].iov_len;
    /* A read stops at the first page it cannot reach on either side: go on from there. */
    while (got_total < want) {
        ssize_t got = process_vm_readv(conn->pull_pid, l, (unsigned long)nlocal, r,
                                       (unsigned long)nremote, 0);

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got == 0 ? EFAULT : errno;
        got_total += (size_t)got;
        wire_iov_advance(&l, &nlocal, (size_t)got);
        wire_iov_advance(&r, &nremote, (size_t)got);
        if (nremote == 0 && got_total < want)
            return EFAULT;
    }
    __atomic_add_fetch(&conn->wire->pulled, got_total, __ATOMIC_RELAXED);
    return 0;
}

void emu_wire_reject(struct emu_conn *conn, const char *why, uint64_t value)
{
    struct emu_wire *wire = conn->wire;

    if (__atomic_fetch_add(&wire->rejected, 1, __ATOMIC_RELAXED) == 0)
        EMU_LOG_ERR("device %s: malformed wire frame (%s, value 0x%lx); the connection is "
                    "dropped (further malformed frames are counted, not logged)",
                    wire->nic->ibdev.name, why, (unsigned long)value);
    __atomic_store_n(&conn->dead, true, __ATOMIC_RELEASE);
}

void emu_wire_kick(struct emu_nic *nic)
{
    uint64_t one = 1;

    if (nic->wire != NULL && write(nic->wire->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        EMU_LOG_ERR("device %s: cannot wake the progress thread: %m", nic->ibdev.name);
}

void emu_wire_quiesce(struct emu_nic *nic)
{
    struct emu_wire *wire = nic->wire;

    if (wire == NULL)
        return;
    /* Every lookup of a QP by the receive side happens under rx_lock. */
    pthread_mutex_lock(&wire->rx_lock);
    pthread_mutex_unlock(&wire->rx_lock);
}

void emu_wire_uar_watch(struct emu_nic *nic, int delta)
{
    if (nic->wire == NULL)
        return;
    __atomic_add_fetch(&nic->wire->uar_watchers, delta, __ATOMIC_RELAXED);
    emu_wire_kick(nic);
}
