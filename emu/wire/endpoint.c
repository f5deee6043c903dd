/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/emu_log.h"
#include "nic/nic.h"
#include "wire/wire.h"

unsigned int emu_wire_endpoint_addr(void *out, uint32_t ipv4, uint16_t id)
{
    struct sockaddr_un *addr = out;
    int n;

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    /* Abstract namespace: leading NUL, no file in the file system. */
    n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "softmlx5/%08x/%u", ipv4, id);
    return (unsigned int)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Binds the first free endpoint name; the bound socket is the reservation. */
static int wire_bind_endpoint(struct emu_nic *nic, int *fd_out)
{
    struct sockaddr_un addr;

    for (uint16_t id = 1; id <= EMU_WIRE_MAX_ENDPOINTS; id++) {
        unsigned int len = emu_wire_endpoint_addr(&addr, nic->ipv4, id);
        /* Non-blocking: another thread may have taken the connection an event announced. */
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        if (fd < 0)
            return errno;
        if (bind(fd, (struct sockaddr *)&addr, len) == 0) {
            if (listen(fd, 64) != 0) {
                int err = errno;
                close(fd);
                return err;
            }
            nic->endpoint_id = id;
            *fd_out = fd;
            return 0;
        }
        close(fd);
        if (errno != EADDRINUSE)
            return errno;
    }
    return EADDRINUSE;
}

/* TCP listener for devices of other hosts, on the device address (not on loopback ones). */
static int wire_listen_tcp(struct emu_nic *nic, int *fd_out)
{
    struct sockaddr_in sin;
    int one = 1;
    int fd;

    *fd_out = -1;
    if ((nic->ipv4 >> 24) == 127)
        return 0;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(nic->ipv4);
    sin.sin_port = htons((uint16_t)(EMU_WIRE_TCP_PORT_BASE + nic->endpoint_id));
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(fd, 64) != 0) {
        int err = errno;

        EMU_LOG_ERR("device %s: cannot listen on TCP port %d of SOFTMLX5_ADDR: %s", nic->ibdev.name,
                    EMU_WIRE_TCP_PORT_BASE + nic->endpoint_id, strerror(err));
        close(fd);
        return err;
    }
    *fd_out = fd;
    return 0;
}

static int wire_epoll_add(struct emu_wire *wire, int fd, void *ptr)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ptr};

    return epoll_ctl(wire->epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : errno;
}

int emu_wire_start(struct emu_nic *nic)
{
    struct emu_wire *wire = calloc(1, sizeof(*wire));
    int err;

    if (wire == NULL)
        return ENOMEM;
    emu_wire_single_copy_init();
    wire->nic = nic;
    wire->tcp_fd = -1;
    wire->epfd = -1;
    wire->wake_fd = -1;
    pthread_mutex_init(&wire->lock, NULL);
    pthread_mutex_init(&wire->rx_lock, NULL);
    err = wire_bind_endpoint(nic, &wire->listen_fd);
    if (err != 0) {
        EMU_LOG_ERR("device %s: no wire endpoint could be reserved (%s); at most %d software "
                    "devices can run on one host",
                    nic->ibdev.name, strerror(err), EMU_WIRE_MAX_ENDPOINTS);
        free(wire);
        return err;
    }
    err = wire_listen_tcp(nic, &wire->tcp_fd);
    if (err != 0)
        goto close_listen;
    wire->epfd = epoll_create1(EPOLL_CLOEXEC);
    wire->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wire->epfd < 0 || wire->wake_fd < 0) {
        err = errno;
        EMU_LOG_ERR("device %s: cannot create the progress thread's epoll/eventfd: %s",
                    nic->ibdev.name, strerror(err));
        goto close_fds;
    }
    /* The listeners and the wake fd are told apart by their data pointers. */
    err = wire_epoll_add(wire, wire->listen_fd, &wire->listen_fd);
    if (err == 0 && wire->tcp_fd >= 0)
        err = wire_epoll_add(wire, wire->tcp_fd, &wire->tcp_fd);
    if (err == 0)
        err = wire_epoll_add(wire, wire->wake_fd, &wire->wake_fd);
    if (err == 0)
        err = pthread_create(&wire->thread, NULL, emu_wire_progress, wire);
    if (err != 0) {
        EMU_LOG_ERR("device %s: cannot start the progress thread: %s", nic->ibdev.name,
                    strerror(err));
        goto close_fds;
    }
    pthread_detach(wire->thread);
    nic->wire = wire;
    EMU_LOG_DBG("device %s: wire endpoint %u", nic->ibdev.name, nic->endpoint_id);
    return 0;

close_fds:
    if (wire->epfd >= 0)
        close(wire->epfd);
    if (wire->wake_fd >= 0)
        close(wire->wake_fd);
    if (wire->tcp_fd >= 0)
        close(wire->tcp_fd);
close_listen:
    close(wire->listen_fd);
    nic->endpoint_id = 0;
    free(wire);
    return err;
}

void emu_wire_abandon(struct emu_wire *wire)
{
    /* Closing the child's descriptors leaves the parent's endpoint and connections intact. */
    for (struct emu_conn *conn = wire->conns; conn != NULL; conn = conn->next)
        close(conn->fd);
    close(wire->epfd);
    close(wire->wake_fd);
    if (wire->tcp_fd >= 0)
        close(wire->tcp_fd);
    close(wire->listen_fd);
}

uint64_t emu_wire_rejected_frames(struct ibv_device *device)
{
    struct emu_nic *nic;

    if (device == NULL || !emu_nic_owns_device(device))
        return 0;
    nic = emu_nic_of(device);
    return nic->wire ? __atomic_load_n(&nic->wire->rejected, __ATOMIC_RELAXED) : 0;
}

uint64_t emu_wire_pulled_bytes(struct ibv_device *device)
{
    struct emu_nic *nic;

    if (device == NULL || !emu_nic_owns_device(device))
        return 0;
    nic = emu_nic_of(device);
    return nic->wire ? __atomic_load_n(&nic->wire->pulled, __ATOMIC_RELAXED) : 0;
}
