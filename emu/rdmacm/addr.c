/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses of rdma_cm_ids: rdma_bind_addr binds the id's TCP socket to the
 * address and port given (so the kernel answers EADDRINUSE or
 * EADDRNOTAVAIL as rdma_cm would), rdma_resolve_addr picks the source
 * address the kernel's routing would use for the destination and the
 * softmlx5 device of that address, rdma_resolve_route makes the one path
 * record, rdma_listen listens on the socket. Resolution is immediate: its
 * event is queued before the call returns.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

static bool cm_addr_is_any(const struct sockaddr *addr)
{
    if (addr->sa_family == AF_INET)
        return ((const struct sockaddr_in *)addr)->sin_addr.s_addr == htonl(INADDR_ANY);
    return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)addr)->sin6_addr);
}

/* Makes the id's socket and binds it; the device follows the address unless it is a wildcard. */
static int cm_bind(struct cm_id *id, const struct sockaddr *addr)
{
    socklen_t len = cm_addr_len(addr);
    int one = 1;

    id->sock = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (id->sock < 0)
        return -1;
    setsockopt(id->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (id->afonly_set && addr->sa_family == AF_INET6)
        setsockopt(id->sock, IPPROTO_IPV6, IPV6_V6ONLY, &id->afonly, sizeof(id->afonly));
    if (bind(id->sock, addr, len) != 0) {
        int err = errno;

        cm_id_close_socket(id);
        errno = err;
        return -1;
    }
    len = sizeof(id->pub.route.addr.src_storage);
    getsockname(id->sock, &id->pub.route.addr.src_addr, &len);
    if (!cm_addr_is_any(addr))
        cm_id_set_device(id, cm_device_of_addr(addr));
    id->state = CM_BOUND;
    return 0;
}

static int cm_check_addr(const struct sockaddr *addr)
{
    return addr != NULL && (addr->sa_family == AF_INET || addr->sa_family == AF_INET6) ? 0 : -1;
}

CM_EXPORT int rdma_bind_addr(struct rdma_cm_id *pub, struct sockaddr *addr)
{
    struct cm_id *id;
    int ret = 0;

    if (cm_check_addr(addr) != 0)
        return CM_REFUSE(EINVAL, "an AF_INET or AF_INET6 address is required");
    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL)
        ret = CM_REFUSE(EINVAL, "no id");
    else if (id->state != CM_IDLE)
        ret = CM_REFUSE(EINVAL, "the id is already bound");
    else if (cm_bind(id, addr) != 0)
        ret = CM_REFUSE(errno, "cannot bind the address");
    pthread_mutex_unlock(&cm_lock);
    return ret;
}

/* The source address the kernel would use to reach dst, with the given port. */
static int cm_route_source(const struct sockaddr *dst, in_port_t port, struct sockaddr_storage *src)
{
    socklen_t len = sizeof(*src);
    int fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = -1;

    if (fd < 0)
        return -1;
    if (connect(fd, dst, cm_addr_len(dst)) == 0 &&
        getsockname(fd, (struct sockaddr *)src, &len) == 0) {
        cm_addr_set_port((struct sockaddr *)src, port);
        ret = 0;
    }
    close(fd);
    return ret;
}

/* Resolves dst from id (cm_lock held): 0, or a negative errno for the ADDR_ERROR event. */
static int cm_resolve(struct cm_id *id, const struct sockaddr *src, const struct sockaddr *dst)
{
    struct sockaddr_storage route_src;

    memcpy(&id->pub.route.addr.dst_storage, dst, cm_addr_len(dst));
    if (id->state == CM_IDLE) {
        if (src == NULL || cm_addr_is_any(src)) {
            if (cm_route_source(dst, src != NULL ? cm_addr_port(src) : 0, &route_src) != 0)
                return -errno;
            src = (const struct sockaddr *)&route_src;
        }
        if (cm_bind(id, src) != 0)
            return -errno;
    }
    if (id->dev == NULL)
        cm_id_set_device(id, cm_device_of_addr(&id->pub.route.addr.src_addr));
    if (id->dev == NULL)
        return -ENODEV;
    cm_addr_to_gid(dst, &id->pub.route.addr.addr.ibaddr.dgid);
    return 0;
}

CM_EXPORT int rdma_resolve_addr(struct rdma_cm_id *pub, struct sockaddr *src_addr,
                                struct sockaddr *dst_addr, int timeout_ms)
{
    struct cm_id *id;
    int status;
    bool sync;

    (void)timeout_ms; /* resolution is immediate */
    if (cm_check_addr(dst_addr) != 0 || (src_addr != NULL && cm_check_addr(src_addr) != 0))
        return CM_REFUSE(EINVAL, "AF_INET or AF_INET6 addresses are required");
    if (src_addr != NULL && src_addr->sa_family != dst_addr->sa_family)
        return CM_REFUSE(EINVAL, "the source and destination are of different families");
    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL || (id->state != CM_IDLE && id->state != CM_BOUND)) {
        pthread_mutex_unlock(&cm_lock);
        return CM_REFUSE(EINVAL, id == NULL ? "no id" : "the id is not idle or bound");
    }
    if (id->state == CM_BOUND && id->pub.route.addr.src_addr.sa_family != dst_addr->sa_family) {
        pthread_mutex_unlock(&cm_lock);
        return CM_REFUSE(EINVAL, "the id is bound to an address of another family");
    }
    status = cm_resolve(id, src_addr, dst_addr);
    if (status == 0)
        id->state = CM_ADDR_RESOLVED;
    cm_event_queue(id, status == 0 ? RDMA_CM_EVENT_ADDR_RESOLVED : RDMA_CM_EVENT_ADDR_ERROR,
                   status);
    sync = id->sync;
    pthread_mutex_unlock(&cm_lock);
    return sync ? cm_sync_wait(id) : 0;
}

CM_EXPORT int rdma_resolve_route(struct rdma_cm_id *pub, int timeout_ms)
{
    struct ibv_sa_path_rec *path;
    struct cm_id *id;
    bool sync;

    (void)timeout_ms;
    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL || id->state != CM_ADDR_RESOLVED) {
        pthread_mutex_unlock(&cm_lock);
        return CM_REFUSE(EINVAL, id == NULL ? "no id" : "the address is not resolved");
    }
    path = &id->path;
    memset(path, 0, sizeof(*path));
    path->sgid = id->pub.route.addr.addr.ibaddr.sgid;
    path->dgid = id->pub.route.addr.addr.ibaddr.dgid;
    path->slid = htons(id->dev->lid);
    path->pkey = htons(0xffff);
    path->hop_limit = 64;
    path->traffic_class = id->tos;
    path->reversible = 1;
    path->numb_path = 1;
    path->mtu_selector = 2; /* exactly */
    path->mtu = id->dev->mtu;
    path->rate_selector = 2;
    path->rate = IBV_RATE_100_GBPS;
    path->packet_life_time_selector = 2;
    path->packet_life_time = 14;
    id->pub.route.path_rec = path;
    id->pub.route.num_paths = 1;
    id->state = CM_ROUTE_RESOLVED;
    cm_event_queue(id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
    sync = id->sync;
    pthread_mutex_unlock(&cm_lock);
    return sync ? cm_sync_wait(id) : 0;
}

CM_EXPORT int rdma_listen(struct rdma_cm_id *pub, int backlog)
{
    struct sockaddr_in any = {.sin_family = AF_INET};
    struct cm_id *id;
    int ret = 0;

    pthread_mutex_lock(&cm_lock);
    id = cm_id_of(pub);
    if (id == NULL || (id->state != CM_IDLE && id->state != CM_BOUND))
        ret = CM_REFUSE(EINVAL, id == NULL ? "no id" : "the id is not idle or bound");
    else if (id->state == CM_IDLE && cm_bind(id, (struct sockaddr *)&any) != 0)
        ret = CM_REFUSE(errno, "cannot bind a wildcard address");
    else if (listen(id->sock, backlog > 0 ? backlog : SOMAXCONN) != 0)
        ret = CM_REFUSE(errno, "listen");
    else {
        id->state = CM_LISTEN;
        if (cm_progress_watch(id, EPOLLIN) != 0) {
            ret = CM_REFUSE(errno, "cannot watch the listener");
            id->state = CM_BOUND;
        }
    }
    pthread_mutex_unlock(&cm_lock);
    return ret;
}
