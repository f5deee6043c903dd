/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire: how a software device reaches the devices of other processes.
 * Each device owns an endpoint with a host-unique id (1..255) and listens on
 * the abstract Unix socket "softmlx5/<ipv4 hex>/<id>"; binding that name is
 * what reserves the id, and the kernel frees it when the process ends.
 */
#ifndef EMU_WIRE_H
#define EMU_WIRE_H

#include <stdint.h>

struct emu_nic;

#define EMU_WIRE_MAX_ENDPOINTS 255

struct emu_wire {
    struct emu_nic *nic;
    int listen_fd; /* abstract Unix socket of this endpoint */
};

/* Reserves an endpoint id for the device and starts its wire. errno-style result. */
int emu_wire_start(struct emu_nic *nic);

/* Fills a sockaddr_un for endpoint `id` at address `ipv4`; returns its length. */
unsigned int emu_wire_endpoint_addr(void *sockaddr_un, uint32_t ipv4, uint16_t id);

#endif /* EMU_WIRE_H */
