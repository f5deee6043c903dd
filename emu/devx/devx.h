/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softmlx5's DevX command engine: the device side of mlx5 PRM command
 * mailboxes. libmlx5.so.1 (dv/) hands it the mailboxes of
 * mlx5dv_devx_general_cmd and mlx5dv_devx_obj_*; it answers as ConnectX
 * firmware does, with a status and a syndrome in the output mailbox.
 *
 * Supported: QUERY_HCA_CAP (general, Ethernet offload and general-2 groups),
 * ALLOC_PD / DEALLOC_PD, CREATE / DESTROY / QUERY_CQ, CREATE / DESTROY /
 * QUERY_QP (RC, UC, UD, DCI) and the transitions (RST2INIT, INIT2INIT, INIT2RTR, RTR2RTS,
 * RTS2RTS, SQERR2RTS, 2ERR, 2RST), CREATE / DESTROY / QUERY_RMP (shared
 * receive queues; QPs take them as rq_type SRQ), CREATE / DESTROY / QUERY_DCT
 * (DC targets, dct.c), and the raw Ethernet objects (eth_*.c:
 * ALLOC / DEALLOC_TRANSPORT_DOMAIN, CREATE / DESTROY_TIS, CREATE / MODIFY /
 * QUERY / DESTROY_SQ and _RQ, CREATE / DESTROY_RQT, CREATE / DESTROY_TIR,
 * ALLOC / QUERY / DEALLOC_Q_COUNTER, QUERY_NIC_VPORT_CONTEXT). Rings and doorbell records live in
 * umems (nic/umem.h); doorbells are rung on UAR pages (nic/uar.h).
 */
#ifndef EMU_DEVX_H
#define EMU_DEVX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emu_nic;

/* What a command does, for the DevX calls that must refuse the others. */
enum emu_devx_kind {
    EMU_DEVX_GENERAL, /* queries of the device, and opcodes the device does not know */
    EMU_DEVX_CREATE,
    EMU_DEVX_DESTROY,
    EMU_DEVX_MODIFY,
    EMU_DEVX_QUERY,
};

enum emu_devx_obj {
    EMU_DEVX_OBJ_NONE,
    EMU_DEVX_OBJ_PD,
    EMU_DEVX_OBJ_CQ,
    EMU_DEVX_OBJ_QP,
    EMU_DEVX_OBJ_SRQ, /* an RMP: the SRQ of the standard path */
    EMU_DEVX_OBJ_DCT, /* a DC target (CREATE_DCT) */
    EMU_DEVX_OBJ_TD,  /* raw Ethernet (eth_*.c): transport domain */
    EMU_DEVX_OBJ_TIS,
    EMU_DEVX_OBJ_SQ,
    EMU_DEVX_OBJ_RQ,
    EMU_DEVX_OBJ_RQT,
    EMU_DEVX_OBJ_TIR,
    EMU_DEVX_OBJ_Q_COUNTER,
};

struct emu_devx_cmd_info {
    enum emu_devx_kind kind;
    enum emu_devx_obj obj;
};

/* Byte offset and bits of the object number in object commands' inputs and CREATE outputs. */
#define EMU_DEVX_OBJ_ID 0x08, 0, 24

void emu_devx_cmd_classify(uint16_t opcode, struct emu_devx_cmd_info *info);

/* The number of the object an object command (modify, query) acts on, where it names it. */
uint32_t emu_devx_cmd_obj_id(const void *in, size_t inlen);

/*
 * Executes one command. The output mailbox is written as firmware writes it
 * (zeroed, then status, syndrome and the answer). Returns 0 when the status
 * is OK, EREMOTEIO when it is not (the out mailbox says why), EINVAL when
 * either mailbox is too short to hold its header (nothing is executed).
 * One log line names a failed command, its status and syndrome.
 */
int emu_devx_cmd(struct emu_nic *nic, const void *in, size_t inlen, void *out, size_t outlen);

/*
 * Destroys an object a CREATE command made (what the object handle's
 * destroy does). errno-style: the status mapped as the kernel maps it
 * (EBUSY while in use, EINVAL for an unknown object).
 */
int emu_devx_obj_destroy(struct emu_nic *nic, enum emu_devx_obj obj, uint32_t id);

/* The errno the kernel's command interface reports for a command status. */
int emu_devx_status_errno(uint8_t status);

/* True when the device advertises send queues without doorbell record (SOFTMLX5_NO_DBR=1). */
bool emu_devx_no_dbr_supported(void);

#endif /* EMU_DEVX_H */
