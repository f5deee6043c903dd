/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints, rdma_cm's synchronous interface: rdma_create_ep makes an id
 * without a channel from an rdma_getaddrinfo result (passive: bound, with
 * the QP attributes kept for its requests; active: address and route
 * resolved, with its QP), rdma_get_request waits for a request on such a
 * listener and gives the new id its own synchronous channel and QP,
 * rdma_destroy_ep undoes rdma_create_ep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/emu_log.h"
#include "rdmacm/cm.h"

#define CM_EXPORT __attribute__((visibility("default")))

static enum rdma_port_space cm_ep_port_space(const struct rdma_addrinfo *res)
{
    if (res->ai_port_space != 0)
        return (enum rdma_port_space)res->ai_port_space;
    return res->ai_qp_type == IBV_QPT_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
}

/* A passive endpoint keeps its QP attributes for the ids rdma_get_request gives. */
static int cm_ep_keep_qp_attr(struct rdma_cm_id *pub, struct ibv_pd *pd,
                              const struct ibv_qp_init_attr *attr)
{
    struct cm_id *id = (struct cm_id *)pub;

    id->ep_pd = pd;
    if (attr == NULL)
        return 0;
    id->ep_qp_attr = malloc(sizeof(*attr));
    if (id->ep_qp_attr == NULL)
        return CM_REFUSE_AS("rdma_create_ep", ENOMEM, "out of memory");
    *id->ep_qp_attr = *attr;
    return 0;
}

CM_EXPORT int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
                             struct ibv_qp_init_attr *qp_init_attr)
{
    struct rdma_cm_id *ep;
    int ret;

    if (id == NULL || res == NULL)
        return CM_REFUSE(EINVAL, "no %s", id == NULL ? "id pointer" : "address information");
    if (rdma_create_id(NULL, &ep, NULL, cm_ep_port_space(res)) != 0)
        return -1;
    if (qp_init_attr != NULL)
        qp_init_attr->qp_type = ep->qp_type; /* the endpoint's, as rdma_cm sets it */
    if (res->ai_flags & RAI_PASSIVE) {
        ret = res->ai_src_addr == NULL ? CM_REFUSE(EINVAL, "a passive endpoint needs a source")
                                       : rdma_bind_addr(ep, res->ai_src_addr);
        if (ret == 0)
            ret = cm_ep_keep_qp_attr(ep, pd, qp_init_attr);
    } else {
        ret = res->ai_dst_addr == NULL
                      ? CM_REFUSE(EINVAL, "an active endpoint needs a destination")
                      : rdma_resolve_addr(ep, res->ai_src_addr, res->ai_dst_addr, 2000);
        if (ret == 0)
            ret = rdma_resolve_route(ep, 2000);
        if (ret == 0 && qp_init_attr != NULL)
            ret = rdma_create_qp(ep, pd, qp_init_attr);
    }
    if (ret != 0) {
        int err = errno;

        rdma_destroy_id(ep);
        errno = err;
        return -1;
    }
    *id = ep;
    return 0;
}

CM_EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
    bool live;

    pthread_mutex_lock(&cm_lock);
    live = cm_id_of(id) != NULL;
    pthread_mutex_unlock(&cm_lock);
    if (!live) {
        CM_REFUSE(EINVAL, "no id, or one already destroyed");
        return;
    }
    rdma_destroy_qp(id); /* nothing where there is no QP or SRQ */
    rdma_destroy_srq(id);
    rdma_destroy_id(id);
}

CM_EXPORT int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
    struct cm_id *l = (struct cm_id *)listen;
    struct rdma_cm_event *event;
    struct ibv_qp_init_attr attr;
    struct rdma_cm_id *child;
    bool usable;

    if (id == NULL)
        return CM_REFUSE(EINVAL, "no id pointer");
    pthread_mutex_lock(&cm_lock);
    usable = cm_id_of(listen) != NULL && l->sync && l->state == CM_LISTEN;
    pthread_mutex_unlock(&cm_lock);
    if (!usable)
        return CM_REFUSE(EINVAL, "a listening id made without a channel is needed");
    for (;;) {
        if (cm_sync_wait(l) != 0)
            return -1;
        event = listen->event;
        if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
            break;
        EMU_LOG_INFO("librdmacm: rdma_get_request: %s on the listener skipped",
                     rdma_event_str(event->event));
    }
    listen->event = NULL;
    child = event->id;
    if (rdma_migrate_id(child, NULL) != 0) {
        rdma_ack_cm_event(event);
        return -1;
    }
    child->event = event;
    if (l->ep_qp_attr != NULL) {
        attr = *l->ep_qp_attr;
        if (rdma_create_qp(child, l->ep_pd, &attr) != 0) {
            int err = errno;

            rdma_reject(child, NULL, 0);
            rdma_destroy_id(child);
            errno = err;
            return -1;
        }
    }
    *id = child;
    return 0;
}
