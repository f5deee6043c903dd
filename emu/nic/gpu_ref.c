/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire form of a GPU reference: the one encoder and decoder of the
 * F_GPU payload laid out in wire/proto.h.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "nic/gpu_ipc.h"

static void put_be32(uint8_t *p, uint32_t v)
{
    v = htobe32(v);
    memcpy(p, &v, sizeof(v));
}

static void put_be64(uint8_t *p, uint64_t v)
{
    v = htobe64(v);
    memcpy(p, &v, sizeof(v));
}

static uint32_t get_be32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return be32toh(v);
}

static uint64_t get_be64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return be64toh(v);
}

void emu_gpu_ref_encode(const struct emu_gpu_ref *ref, struct emu_wire_hdr *h,
                        uint8_t payload[EMU_WIRE_GPU_REF_LEN])
{
    memset(payload, 0, EMU_WIRE_GPU_REF_LEN);
    h->compare = htobe64((uint64_t)ref->kind);
    if (ref->kind == EMU_GPU_REF_VMM) {
        put_be32(payload + EMU_WIRE_GPU_VMM_PID, (uint32_t)ref->vmm.pid);
        put_be32(payload + EMU_WIRE_GPU_VMM_FD, (uint32_t)ref->vmm.fd);
        put_be64(payload + EMU_WIRE_GPU_VMM_SERIAL, ref->vmm.serial);
        put_be64(payload + EMU_WIRE_GPU_VMM_SIZE, ref->vmm.size);
    } else {
        memcpy(payload, ref->handle, EMU_WIRE_GPU_HANDLE_LEN);
    }
    put_be64(payload + EMU_WIRE_GPU_OFFSET, ref->offset);
}

int emu_gpu_ref_decode(const struct emu_wire_hdr *h, const uint8_t payload[EMU_WIRE_GPU_REF_LEN],
                       struct emu_gpu_ref *ref)
{
    uint64_t kind = be64toh(h->compare);

    memset(ref, 0, sizeof(*ref));
    ref->offset = get_be64(payload + EMU_WIRE_GPU_OFFSET);
    switch (kind) {
    case EMU_WIRE_GPU_KIND_IPC:
        ref->kind = EMU_GPU_REF_IPC;
        memcpy(ref->handle, payload, EMU_WIRE_GPU_HANDLE_LEN);
        return 0;
    case EMU_WIRE_GPU_KIND_VMM:
        ref->kind = EMU_GPU_REF_VMM;
        ref->vmm.pid = (int32_t)get_be32(payload + EMU_WIRE_GPU_VMM_PID);
        ref->vmm.fd = (int32_t)get_be32(payload + EMU_WIRE_GPU_VMM_FD);
        ref->vmm.serial = get_be64(payload + EMU_WIRE_GPU_VMM_SERIAL);
        ref->vmm.size = get_be64(payload + EMU_WIRE_GPU_VMM_SIZE);
        for (unsigned int i = EMU_WIRE_GPU_VMM_RESERVED; i < EMU_WIRE_GPU_HANDLE_LEN; i++)
            if (payload[i] != 0)
                return ENOTSUP;
        if (ref->vmm.pid <= 0 || ref->vmm.fd < 0 || ref->vmm.size == 0 ||
            ref->offset >= ref->vmm.size)
            return ENOTSUP;
        return 0;
    default:
        return ENOTSUP;
    }
}
