/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's librdmacm calls on their own (run under softmlx5-run): each
 * refuses bad arguments and calls out of order with rdma_cm's errno and
 * return value, the calls it does not implement fail cleanly (rsockets:
 * ENOSYS, multicast and ECE: EOPNOTSUPP), and the address calls answer as
 * the kernel does (EADDRINUSE, EADDRNOTAVAIL), rdma_getaddrinfo,
 * rdma_get_devices, rdma_set_option, rdma_migrate_id, rdma_init_qp_attr and
 * rdma_event_str; destroyed ids and channels are refused (EINVAL), not
 * followed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: %s failed (errno %d: %s)\n", __FILE__, __LINE__, #cond, errno, \
                    strerror(errno));                                                              \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* A call that must fail with -1 and errno err. */
#define REFUSED(call, err)                     \
    do {                                       \
        errno = 0;                             \
        CHECK((call) == -1 && errno == (err)); \
    } while (0)

static struct sockaddr_in ipv4(const char *addr, uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

    a.sin_addr.s_addr = inet_addr(addr);
    return a;
}

static void test_refusals(struct rdma_event_channel *ch)
{
    struct rdma_conn_param param = {.qp_num = 1};
    struct sockaddr_in lo = ipv4("127.0.0.1", 0);
    struct rdma_cm_event *ev;
    struct ibv_qp_attr attr;
    struct rdma_cm_id *id;
    int mask;
    uint8_t tos = 0;

    REFUSED(rdma_create_id(ch, NULL, NULL, RDMA_PS_TCP), EINVAL);
    REFUSED(rdma_create_id(ch, &id, NULL, RDMA_PS_IPOIB), EOPNOTSUPP);
    /* A UD id takes UD QPs only, and has no connection to end. */
    CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_UDP) == 0);
    REFUSED(rdma_disconnect(id), EINVAL);
    CHECK(rdma_destroy_id(id) == 0);
    REFUSED(rdma_create_id(ch, &id, NULL, (enum rdma_port_space)0x1234), EINVAL);
    REFUSED(rdma_get_cm_event(NULL, &ev), EINVAL);
    REFUSED(rdma_get_cm_event(ch, NULL), EINVAL);
    REFUSED(rdma_ack_cm_event(NULL), EINVAL);
    REFUSED(rdma_destroy_id(NULL), EINVAL);
    REFUSED(rdma_bind_addr(NULL, (struct sockaddr *)&lo), EINVAL);

    CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
    REFUSED(rdma_bind_addr(id, NULL), EINVAL);
    REFUSED(rdma_connect(id, &param), EINVAL); /* no route resolved */
    REFUSED(rdma_accept(id, &param), EINVAL);  /* no connection request */
    REFUSED(rdma_reject(id, NULL, 0), EINVAL);
    REFUSED(rdma_disconnect(id), EINVAL);         /* not connected */
    REFUSED(rdma_resolve_route(id, 100), EINVAL); /* no address resolved */
    REFUSED(rdma_establish(id), EINVAL);
    REFUSED(rdma_resolve_addr(id, NULL, NULL, 100), EINVAL);
    attr.qp_state = IBV_QPS_INIT;
    REFUSED(rdma_init_qp_attr(id, &attr, &mask), EINVAL); /* no device yet */
    REFUSED(rdma_create_qp(id, NULL, NULL), EINVAL);

    /* Options: the common ones are taken, a wrong size or an unknown one is not. */
    CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) == 0);
    REFUSED(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 4), EINVAL);
    mask = 1;
    CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &mask, sizeof(int)) == 0);
    CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &mask, sizeof(int)) == 0);
    REFUSED(rdma_set_option(id, RDMA_OPTION_ID, 99, &mask, sizeof(int)), ENOSYS);
    REFUSED(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, NULL, 1), EINVAL);

    /* Bound: the id has the device of its address and the INIT attributes. */
    CHECK(rdma_bind_addr(id, (struct sockaddr *)&lo) == 0);
    CHECK(id->verbs != NULL && rdma_get_src_port(id) != 0);
    REFUSED(rdma_bind_addr(id, (struct sockaddr *)&lo), EINVAL); /* bound already */
    attr.qp_state = IBV_QPS_INIT;
    CHECK(rdma_init_qp_attr(id, &attr, &mask) == 0 && attr.port_num == 1 && (mask & IBV_QP_STATE));
    attr.qp_state = IBV_QPS_RTR;
    REFUSED(rdma_init_qp_attr(id, &attr, &mask), EINVAL); /* no peer yet */
    attr.qp_state = IBV_QPS_SQD;
    REFUSED(rdma_init_qp_attr(id, &attr, &mask), EINVAL);
    CHECK(rdma_destroy_id(id) == 0);
    /* A destroyed id is looked up, not followed: refused, as a stray pointer is. */
    REFUSED(rdma_destroy_id(id), EINVAL);
    REFUSED(rdma_resolve_addr((struct rdma_cm_id *)&lo, NULL, (struct sockaddr *)&lo, 100), EINVAL);
    CHECK(rdma_get_src_port((struct rdma_cm_id *)&lo) == 0);
    rdma_destroy_ep((struct rdma_cm_id *)&lo);
}

static void test_addresses(struct rdma_event_channel *ch)
{
    struct sockaddr_in lo = ipv4("127.0.0.1", 0), absent = ipv4("192.0.2.77", 0);
    struct rdma_cm_id *a, *b, *sync;
    struct rdma_cm_event *ev;

    /* The kernel's answers: a port in use by a listener, an address this host does not have. */
    CHECK(rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) == 0);
    CHECK(rdma_create_id(ch, &b, NULL, RDMA_PS_TCP) == 0);
    CHECK(rdma_bind_addr(a, (struct sockaddr *)&lo) == 0);
    CHECK(rdma_listen(a, 1) == 0);
    lo.sin_port = rdma_get_src_port(a);
    REFUSED(rdma_bind_addr(b, (struct sockaddr *)&lo), EADDRINUSE);
    REFUSED(rdma_bind_addr(b, (struct sockaddr *)&absent), EADDRNOTAVAIL);
    REFUSED(rdma_listen(a, 1), EINVAL); /* listening already */
    CHECK(rdma_destroy_id(a) == 0);

    absent.sin_family = AF_UNIX;
    REFUSED(rdma_resolve_addr(b, NULL, (struct sockaddr *)&absent, 100), EINVAL);
    CHECK(rdma_destroy_id(b) == 0);

    /* A synchronous id (no channel): resolution waits for its event and keeps it in id->event. */
    CHECK(rdma_create_id(NULL, &sync, NULL, RDMA_PS_TCP) == 0);
    lo = ipv4("127.0.0.1", 9);
    CHECK(rdma_resolve_addr(sync, NULL, (struct sockaddr *)&lo, 100) == 0);
    CHECK(sync->event != NULL && sync->event->event == RDMA_CM_EVENT_ADDR_RESOLVED);
    CHECK(rdma_resolve_route(sync, 100) == 0);
    CHECK(sync->event != NULL && sync->event->event == RDMA_CM_EVENT_ROUTE_RESOLVED);
    /* Moved to a channel: its next events go there. */
    CHECK(rdma_migrate_id(sync, ch) == 0 && sync->channel == ch);
    REFUSED(rdma_migrate_id(NULL, ch), EINVAL);
    CHECK(rdma_destroy_id(sync) == 0);
    errno = 0;
    CHECK(rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN);
}

static void test_getaddrinfo(void)
{
    struct rdma_addrinfo hints = {.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP}, *res;
    struct sockaddr_in *sin;

    CHECK(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res) == 0);
    sin = (struct sockaddr_in *)res->ai_src_addr;
    CHECK(res->ai_family == AF_INET && res->ai_qp_type == IBV_QPT_RC && sin != NULL &&
          ntohs(sin->sin_port) == 7471 && res->ai_dst_addr == NULL);
    rdma_freeaddrinfo(res);
    hints.ai_flags = RAI_NUMERICHOST;
    CHECK(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res) == 0);
    CHECK(res->ai_dst_addr != NULL && res->ai_dst_len == sizeof(struct sockaddr_in) &&
          res->ai_src_addr == NULL && res->ai_port_space == RDMA_PS_TCP);
    rdma_freeaddrinfo(res);
    CHECK(rdma_getaddrinfo("not-an-address", "7471", &hints, &res) != 0);
    CHECK(rdma_getaddrinfo(NULL, NULL, &hints, &res) != 0);
    hints.ai_qp_type = IBV_QPT_UD;
    CHECK(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res) != 0);
}

static void test_unsupported(struct rdma_event_channel *ch)
{
    struct sockaddr_in mc = ipv4("224.0.0.1", 0);
    struct rdma_cm_id *id;

    CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
    REFUSED(rdma_join_multicast(id, (struct sockaddr *)&mc, NULL), EOPNOTSUPP);
    REFUSED(rdma_leave_multicast(id, (struct sockaddr *)&mc), EOPNOTSUPP);
    REFUSED(rdma_set_local_ece(id, NULL), EOPNOTSUPP);
    REFUSED(rdma_get_remote_ece(id, NULL), EOPNOTSUPP);
    CHECK(rdma_destroy_id(id) == 0);
    REFUSED(rsocket(AF_INET, SOCK_STREAM, 0), ENOSYS);
    REFUSED(rclose(3), ENOSYS);
    REFUSED(rpoll(NULL, 0, 0), ENOSYS);
}

int main(void)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct ibv_context **devs;
    struct rdma_cm_event *ev;
    struct rdma_cm_id *id;
    int n = 0;

    CHECK(ch != NULL && ch->fd >= 0);
    if (ch == NULL)
        return 1;
    devs = rdma_get_devices(&n);
    CHECK(devs != NULL && n >= 1 && devs[0] != NULL && devs[n] == NULL);
    rdma_free_devices(devs);
    CHECK(strcmp(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED") == 0);
    CHECK(strcmp(rdma_event_str((enum rdma_cm_event_type)99), "UNKNOWN EVENT") == 0);
    CHECK(fcntl(ch->fd, F_SETFL, O_NONBLOCK) == 0);
    test_refusals(ch);
    test_addresses(ch);
    test_getaddrinfo();
    test_unsupported(ch);
    rdma_destroy_event_channel(ch);
    /* A destroyed channel is refused, not followed. */
    REFUSED(rdma_get_cm_event(ch, &ev), EINVAL);
    REFUSED(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), EINVAL);
    rdma_destroy_event_channel(ch);
    if (failures != 0) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("softmlx5 librdmacm calls: passed\n");
    return 0;
}
