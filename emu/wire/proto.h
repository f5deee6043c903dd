/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire protocol between software devices: a stream of frames, each a
 * 64-byte big-endian header followed by payload_len bytes of payload. One
 * connection carries the traffic of every QP pair of two devices; the
 * connecting side opens with HELLO naming its endpoint.
 *
 *   WRITE, WRITE_IMM, SEND, SEND_IMM  request with payload (the message)
 *   READ_REQ                          request, dma_len bytes wanted, no payload
 *   READ_RESP                         response, payload = the bytes read
 *   ATOMIC                            request, PRM opcode and opmod in `op`/`opmod`, operands in
 *                                     swap_add/compare (masked compare-swap: masks as payload)
 *   ATOMIC_RESP                       response, payload = the original value (4 or 8 bytes)
 *   ACK                               response: request psn done
 *   NAK                               response: request psn failed with `syndrome`
 *                                     (a PRM CQE syndrome; RNR uses EMU_WIRE_NAK_RNR)
 *   PULL_OK                           same-host single-copy handshake (below)
 *   DC_CONNECT                        request, no payload: a DC initiator starts talking to
 *                                     DC target dst_qpn (below)
 *
 * Single copy on one host: the dialer's HELLO may offer its memory (pid in
 * `compare`, address of a probe word in `raddr`, the word's value in
 * `swap_add`). The acceptor tries to read that word with process_vm_readv
 * and answers PULL_OK: F_PULL_GRANTED when it read the expected value (the
 * dialer may then send it pull frames), plus its own offer the same way.
 * The dialer, having read the acceptor's word, answers PULL_OK with
 * F_PULL_GRANTED and no offer. A data request with F_PULL carries, instead
 * of the message, the list of the requester's buffers (EMU_WIRE_PULL_ENTRY
 * bytes each: big-endian address, big-endian length), and the message
 * length in `dma_len`; the responder reads the buffers from the requester's
 * process straight into the target, one copy instead of two.
 * Atomics (version 2): `op` is the send WQE's PRM opcode and `opmod` its
 * opcode modifier. ATOMIC_CS and ATOMIC_FA have opmod 0 and 8-byte operands;
 * ATOMIC_MASKED_CS and ATOMIC_MASKED_FA have opmod PRM_WQE_OPMOD_EXT_ATOMIC_4B
 * or _8B (4- or 8-byte operands). Operands travel as big-endian 64-bit
 * numbers (a 4-byte operand zero-extended): swap_add holds the swap value or
 * the addend, compare the compare value or, for masked fetch-add, the field
 * boundary; a masked compare-swap carries swap_mask then compare_mask (8
 * bytes each, big-endian) as its 16-byte payload. dma_len is the operand
 * size, and ATOMIC_RESP returns that many bytes: the target's original
 * contents as stored (big-endian). An op/opmod pair that names no atomic is
 * a valid frame that the responder refuses (NAK, invalid request).
 *
 * Unacknowledged requests (version 3): a data request with F_UNACKED comes
 * from a QP whose responder never answers (UC, UD); one that cannot be
 * placed is dropped, not refused. A datagram (F_DATAGRAM, a SEND or
 * SEND_IMM that is also F_UNACKED, never F_PULL) carries what the
 * receiver's GRH and completion report: `rkey` is the Q_Key, `swap_add`
 * and `compare` the sender's GID (16 bytes as stored), `raddr` the packed
 * EMU_WIRE_DG_* fields below (other bits zero), dma_len zero.
 *
 * Version 4 adds XRC requests and DC connections, and GPU references.
 *
 * GPU references (version 4): between two processes of one host (abstract
 * Unix socket), a WRITE, WRITE_IMM, SEND or SEND_IMM of an acknowledged
 * connected QP whose message is one GPU buffer may carry, with F_GPU, a
 * reference to it (EMU_WIRE_GPU_REF_LEN bytes, laid out below) instead of
 * the bytes, and the message length in dma_len: the responder opens the
 * allocation and copies GPU to GPU into its target, or answers
 * NAK EMU_WIRE_NAK_RESEND. The reference's kind is in `compare`
 * (big-endian): 0, what every F_GPU frame carried before kinds existed, is
 * a CUDA IPC handle. A responder answers a kind it does not know, or a
 * reference it cannot use, with NAK_RESEND, never by dropping the
 * connection; one that predates kinds reads a VMM reference as an IPC
 * handle that does not open, and answers NAK_RESEND too.
 *
 * XRC requests (version 4): a request (WRITE, WRITE_IMM, SEND, SEND_IMM,
 * READ_REQ, ATOMIC) with F_XRC comes from an XRC initiator QP and names, in
 * `xrc_srq`, the XRC SRQ it is for on the destination's device (the index
 * of its SRQN, whose endpoint is the destination QPN's); `xrc_srq` is zero
 * on every other frame.
 *
 * DC (version 4): before its first request to a DC target (dst_qpn), and
 * whenever it moves on to another one, a DC initiator (src_qpn) sends
 * DC_CONNECT with `psn` the PSN of the request that follows and `compare`
 * the DC access key it was given (big-endian 64 bits). The requests after
 * it are ordinary acknowledged ones; the target answers them from the state
 * the DC_CONNECT set up (expected PSN; refused when the key was wrong).
 *
 * Every field is checked on receipt (reserved bytes are zero; op and opmod
 * are zero outside ATOMIC); a frame that fails a check ends the connection.
 */
#ifndef EMU_WIRE_PROTO_H
#define EMU_WIRE_PROTO_H

#include <assert.h>
#include <endian.h>
#include <stdint.h>
#include <string.h>

#include "prm/mlx5_wqe.h"

#define EMU_WIRE_MAGIC         0x534d4c35u /* "SML5" */
#define EMU_WIRE_VERSION       4
#define EMU_WIRE_TCP_PORT_BASE 18500
/* Largest payload of one frame: the largest message (caps.h EMU_LOG_MAX_MSG). */
#define EMU_WIRE_MAX_PAYLOAD   (1u << 30)

enum emu_wire_type {
    EMU_WIRE_HELLO = 1,
    EMU_WIRE_WRITE,
    EMU_WIRE_WRITE_IMM,
    EMU_WIRE_SEND,
    EMU_WIRE_SEND_IMM,
    EMU_WIRE_READ_REQ,
    EMU_WIRE_READ_RESP,
    EMU_WIRE_ATOMIC,
    EMU_WIRE_ATOMIC_RESP,
    EMU_WIRE_ACK,
    EMU_WIRE_NAK,
    EMU_WIRE_PULL_OK,
    EMU_WIRE_DC_CONNECT,
    EMU_WIRE_TYPE_END,
};

/* NAK syndrome of "receiver not ready": no receive WQE; the requester retries. */
#define EMU_WIRE_NAK_RNR 0xff

/* flags */
#define EMU_WIRE_F_SOLICITED    0x01
#define EMU_WIRE_F_PULL         0x02 /* data request: payload is the list of buffers to read */
#define EMU_WIRE_F_PULL_GRANTED 0x04 /* PULL_OK: I read your probe word, send me pull frames */
/*
 * Data request: acknowledge at once (the requester waits for its completion:
 * a signalled WQE, or its queue is filling). Without it the responder may
 * hold the cumulative ACK back a little, so a stream of unsignalled writes
 * costs the requester no wake-up per write.
 */
#define EMU_WIRE_F_ACK_REQ      0x08
/* Data request of a QP without acknowledgements (UC, UD): never answered, dropped on failure. */
#define EMU_WIRE_F_UNACKED      0x10
/* A datagram (UD SEND/SEND_IMM): Q_Key, sender's GID and address fields as said above. */
#define EMU_WIRE_F_DATAGRAM     0x20
/* A request of an XRC initiator QP: xrc_srq names the XRC SRQ it is for. */
#define EMU_WIRE_F_XRC          0x40
/* Data request between processes of one host: payload is a reference to GPU memory (below). */
#define EMU_WIRE_F_GPU          0x80

/*
 * F_GPU's payload, EMU_WIRE_GPU_REF_LEN bytes whatever the kind (numbers
 * big-endian); the message length is in dma_len, the kind in `compare`:
 *
 *   bytes    kind 0 (EMU_WIRE_GPU_KIND_IPC)    kind 1 (EMU_WIRE_GPU_KIND_VMM)
 *   0..63    cuIpcGetMemHandle of the          0..3   the exporter's pid (as it sees
 *            allocation (as CUDA gives it)            itself; the responder takes the
 *                                                     descriptor from the connection's
 *                                                     peer process, SO_PEERCRED)
 *                                              4..7   the exported file descriptor
 *                                                     (a POSIX fd of the allocation,
 *                                                     in the exporter's process)
 *                                              8..15  the export's serial (unique
 *                                                     per export and process)
 *                                              16..23 the bytes mapped from the
 *                                                     allocation's start (a multiple
 *                                                     of its granularity)
 *                                              24..63 zero
 *   64..71   the message's offset from the allocation's start (both kinds)
 *
 * nic/gpu_ref.c is the one encoder and decoder of this layout.
 */
#define EMU_WIRE_GPU_HANDLE_LEN   64u
#define EMU_WIRE_GPU_REF_LEN      (EMU_WIRE_GPU_HANDLE_LEN + 8u)
#define EMU_WIRE_GPU_KIND_IPC     0u
#define EMU_WIRE_GPU_KIND_VMM     1u
#define EMU_WIRE_GPU_VMM_PID      0u                      /* 4 bytes */
#define EMU_WIRE_GPU_VMM_FD       4u                      /* 4 bytes */
#define EMU_WIRE_GPU_VMM_SERIAL   8u                      /* 8 bytes */
#define EMU_WIRE_GPU_VMM_SIZE     16u                     /* 8 bytes */
#define EMU_WIRE_GPU_VMM_RESERVED 24u                     /* zero up to EMU_WIRE_GPU_HANDLE_LEN */
#define EMU_WIRE_GPU_OFFSET       EMU_WIRE_GPU_HANDLE_LEN /* 8 bytes */
/*
 * NAK syndrome of "resend it with the bytes": a responder that cannot open
 * the GPU reference of an F_GPU request (no CUDA here, a target not in GPU
 * memory, a kind it does not know, a reference it cannot use). The
 * requester sends no more F_GPU frames on that connection and resends from
 * this PSN at once, not counted as a retry.
 */
#define EMU_WIRE_NAK_RESEND       0xfe

/* A datagram's raddr: the sender's address vector as its GRH and the receiver's CQE show it. */
#define EMU_WIRE_DG_TCLASS_SHIFT 56           /* traffic class, 8 bits */
#define EMU_WIRE_DG_HOP_SHIFT    48           /* hop limit, 8 bits */
#define EMU_WIRE_DG_SLID_SHIFT   32           /* source LID, 16 bits */
#define EMU_WIRE_DG_SL_SHIFT     28           /* service level, 4 bits */
#define EMU_WIRE_DG_GRH          (1ull << 27) /* the sender's address vector had a GRH */
#define EMU_WIRE_DG_FLOW_MASK    0xfffffull   /* flow label, bits 19:0 */
#define EMU_WIRE_DG_RESERVED     (0x7full << 20)

/* A pull list: at most the send WQE's gather entries (caps.h EMU_MAX_SGE), 16 bytes each. */
#define EMU_WIRE_PULL_ENTRY       16u
#define EMU_WIRE_PULL_MAX_ENTRIES 30u

struct emu_wire_hdr {
    uint32_t magic; /* all multi-byte fields big-endian */
    uint8_t version;
    uint8_t type;
    uint8_t flags;
    uint8_t syndrome; /* NAK */
    uint32_t src_qpn; /* HELLO: endpoint id */
    uint32_t dst_qpn;
    uint32_t psn;
    uint32_t imm;         /* immediate as sent (already wire order); HELLO: IPv4; NAK RNR: timer */
    uint32_t payload_len; /* bytes following the header */
    uint32_t rkey;
    uint64_t raddr;
    uint32_t dma_len; /* READ_REQ: bytes to read */
    uint8_t op;       /* ATOMIC: PRM_WQE_OPCODE_ATOMIC_* (the WQE's opcode) */
    uint8_t opmod;    /* ATOMIC: the WQE's opcode modifier */
    uint16_t xrc_srq; /* F_XRC: index of the XRC SRQ at the destination; else 0 */
    uint64_t swap_add;
    uint64_t compare;
};
static_assert(sizeof(struct emu_wire_hdr) == 64, "wire header is 64 bytes");

/* The one frame-header builder: magic, version, type, QPNs and PSN set, the rest zero. */
static inline void emu_wire_hdr_init(struct emu_wire_hdr *h, uint8_t type, uint32_t src_qpn,
                                     uint32_t dst_qpn, uint32_t psn)
{
    memset(h, 0, sizeof(*h));
    h->magic = htobe32(EMU_WIRE_MAGIC);
    h->version = EMU_WIRE_VERSION;
    h->type = type;
    h->src_qpn = htobe32(src_qpn);
    h->dst_qpn = htobe32(dst_qpn);
    h->psn = htobe32(psn);
}

/* Payload of a masked compare-swap ATOMIC: swap_mask, compare_mask. */
#define EMU_WIRE_ATOMIC_MASKS_LEN 16u

/*
 * The operand size (4 or 8) of an ATOMIC frame's op and opmod, 0 when they
 * name no atomic; *masks_len: the payload that op carries.
 */
static inline uint32_t emu_wire_atomic_size(uint8_t op, uint8_t opmod, uint32_t *masks_len)
{
    *masks_len = 0;
    switch (op) {
    case PRM_WQE_OPCODE_ATOMIC_CS:
    case PRM_WQE_OPCODE_ATOMIC_FA:
        return opmod == 0 ? 8 : 0;
    case PRM_WQE_OPCODE_ATOMIC_MASKED_CS:
    case PRM_WQE_OPCODE_ATOMIC_MASKED_FA:
        if (opmod != PRM_WQE_OPMOD_EXT_ATOMIC_4B && opmod != PRM_WQE_OPMOD_EXT_ATOMIC_8B)
            return 0;
        if (op == PRM_WQE_OPCODE_ATOMIC_MASKED_CS)
            *masks_len = EMU_WIRE_ATOMIC_MASKS_LEN;
        return opmod == PRM_WQE_OPMOD_EXT_ATOMIC_4B ? 4 : 8;
    default:
        return 0;
    }
}

#endif /* EMU_WIRE_PROTO_H */
