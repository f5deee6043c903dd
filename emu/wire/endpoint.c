/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

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

int emu_wire_start(struct emu_nic *nic)
{
    struct emu_wire *wire = calloc(1, sizeof(*wire));
    int err;

    if (wire == NULL)
        return ENOMEM;
    wire->nic = nic;
    err = wire_bind_endpoint(nic, &wire->listen_fd);
    if (err != 0) {
        EMU_LOG_ERR("device %s: no wire endpoint could be reserved (%s); at most %d software "
                    "devices can run on one host",
                    nic->ibdev.name, strerror(err), EMU_WIRE_MAX_ENDPOINTS);
        free(wire);
        return err;
    }
    nic->wire = wire;
    EMU_LOG_DBG("device %s: wire endpoint %u", nic->ibdev.name, nic->endpoint_id);
    return 0;
}
