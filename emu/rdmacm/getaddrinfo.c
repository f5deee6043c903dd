/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_getaddrinfo and rdma_freeaddrinfo: the system resolver's addresses
 * (one per address, stream sockets' list) as rdma_addrinfo entries: a
 * passive entry's address is its source, an active entry's its destination
 * (with the hints' source, if any). No route or connect data: the handshake
 * finds the peer's GID itself. As rdma_cm does, a resolver failure is
 * returned as getaddrinfo's EAI_* code.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

static struct sockaddr *cm_addr_dup(const struct sockaddr *addr, socklen_t len)
{
    struct sockaddr *copy = malloc(len);

    if (copy != NULL)
        memcpy(copy, addr, len);
    return copy;
}

static struct rdma_addrinfo *cm_ai_new(const struct addrinfo *ai, const struct rdma_addrinfo *hints)
{
    struct rdma_addrinfo *r = calloc(1, sizeof(*r));
    bool passive = hints != NULL && (hints->ai_flags & RAI_PASSIVE);

    if (r == NULL)
        return NULL;
    r->ai_flags = hints != NULL ? hints->ai_flags : 0;
    r->ai_family = ai->ai_family;
    r->ai_qp_type = hints != NULL && hints->ai_qp_type ? hints->ai_qp_type : IBV_QPT_RC;
    r->ai_port_space = hints != NULL && hints->ai_port_space ? hints->ai_port_space : RDMA_PS_TCP;
    if (passive) {
        r->ai_src_len = ai->ai_addrlen;
        r->ai_src_addr = cm_addr_dup(ai->ai_addr, ai->ai_addrlen);
        if (r->ai_src_addr == NULL)
            goto fail;
    } else {
        r->ai_dst_len = ai->ai_addrlen;
        r->ai_dst_addr = cm_addr_dup(ai->ai_addr, ai->ai_addrlen);
        if (r->ai_dst_addr == NULL)
            goto fail;
        if (hints != NULL && hints->ai_src_addr != NULL && hints->ai_src_len > 0) {
            r->ai_src_len = hints->ai_src_len;
            r->ai_src_addr = cm_addr_dup(hints->ai_src_addr, hints->ai_src_len);
            if (r->ai_src_addr == NULL)
                goto fail;
        }
    }
    if (ai->ai_canonname != NULL) {
        char **name = passive ? &r->ai_src_canonname : &r->ai_dst_canonname;

        *name = strdup(ai->ai_canonname);
        if (*name == NULL)
            goto fail;
    }
    return r;
fail:
    r->ai_next = NULL;
    rdma_freeaddrinfo(r);
    return NULL;
}

CM_EXPORT int rdma_getaddrinfo(const char *node, const char *service,
                               const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
    struct addrinfo h = {.ai_socktype = SOCK_STREAM}, *list;
    struct rdma_addrinfo *head = NULL, **tail = &head;
    int ret;

    if (res == NULL || (node == NULL && service == NULL)) {
        CM_REFUSE(EINVAL, "%s", res == NULL ? "no result pointer" : "no node and no service");
        return EAI_NONAME;
    }
    if (hints != NULL) {
        h.ai_family = hints->ai_family;
        if (hints->ai_flags & RAI_PASSIVE)
            h.ai_flags |= AI_PASSIVE;
        if (hints->ai_flags & RAI_NUMERICHOST)
            h.ai_flags |= AI_NUMERICHOST;
        if (hints->ai_qp_type != 0 && hints->ai_qp_type != IBV_QPT_RC) {
            CM_REFUSE(EOPNOTSUPP, "QP type %d: softmlx5's librdmacm connects RC QPs",
                      hints->ai_qp_type);
            return EAI_SERVICE;
        }
    }
    ret = getaddrinfo(node, service, &h, &list);
    if (ret != 0) {
        EMU_LOG_INFO("librdmacm: rdma_getaddrinfo(%s, %s): %s", node ? node : "-",
                     service ? service : "-", gai_strerror(ret));
        errno = ret == EAI_SYSTEM ? errno : EADDRNOTAVAIL;
        return ret;
    }
    for (struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
            continue;
        *tail = cm_ai_new(ai, hints);
        if (*tail == NULL) {
            freeaddrinfo(list);
            rdma_freeaddrinfo(head);
            CM_REFUSE(ENOMEM, "out of memory");
            return EAI_MEMORY;
        }
        tail = &(*tail)->ai_next;
    }
    freeaddrinfo(list);
    if (head == NULL) {
        errno = EADDRNOTAVAIL;
        return EAI_NONAME;
    }
    *res = head;
    return 0;
}

CM_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
    while (res != NULL) {
        struct rdma_addrinfo *next = res->ai_next;

        free(res->ai_src_addr);
        free(res->ai_dst_addr);
        free(res->ai_src_canonname);
        free(res->ai_dst_canonname);
        free(res->ai_route);
        free(res->ai_connect);
        free(res);
        res = next;
    }
}
