/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5 64-byte completion queue entry (CQE64): layout, opcodes, error
 * syndromes, accessors for pollers and builders for the software NIC. Shared
 * by host C, CUDA device code and softmlx5; includes nothing host-only.
 *
 * Ownership: the last byte (op_own) holds the CQE opcode [7:4], the format
 * [3:2], the solicited bit [1] and the owner bit [0]. The producer writes
 * every other byte first and op_own last; a poller reads op_own first and
 * the rest only after an acquire ordering on that read. Neither ordering is
 * done here: the helpers below are plain loads and stores, and the
 * barriers, whose scope depends on where the CQ lives, belong to the caller.
 */
#ifndef DOCA_GPUNETIO_IMPL_PRM_MLX5_CQE_H
#define DOCA_GPUNETIO_IMPL_PRM_MLX5_CQE_H

#include <stdint.h>

#include "../gdaki_platform.h"

/* Last: a public header included above removes it at its end. */
#include "../gdaki_macros.h"

/* CQE opcodes (op_own [7:4]). */
enum prm_cqe_opcode {
    PRM_CQE_OPCODE_REQ = 0x0,
    PRM_CQE_OPCODE_RESP_WR_IMM = 0x1,
    PRM_CQE_OPCODE_RESP_SEND = 0x2,
    PRM_CQE_OPCODE_RESP_SEND_IMM = 0x3,
    PRM_CQE_OPCODE_RESP_SEND_INV = 0x4,
    PRM_CQE_OPCODE_RESIZE_CQ = 0x5,
    PRM_CQE_OPCODE_NO_PACKET = 0x6,
    PRM_CQE_OPCODE_SIG_ERR = 0xc,
    PRM_CQE_OPCODE_REQ_ERR = 0xd,
    PRM_CQE_OPCODE_RESP_ERR = 0xe,
    PRM_CQE_OPCODE_INVALID = 0xf, /* never written by the NIC: marks a free entry */
};

/* Error syndromes of REQ_ERR / RESP_ERR CQEs. */
enum prm_cqe_syndrome {
    PRM_CQE_SYNDROME_LOCAL_LENGTH_ERR = 0x01,
    PRM_CQE_SYNDROME_LOCAL_QP_OP_ERR = 0x02,
    PRM_CQE_SYNDROME_LOCAL_PROT_ERR = 0x04,
    PRM_CQE_SYNDROME_WR_FLUSH_ERR = 0x05,
    PRM_CQE_SYNDROME_MW_BIND_ERR = 0x06,
    PRM_CQE_SYNDROME_BAD_RESP_ERR = 0x10,
    PRM_CQE_SYNDROME_LOCAL_ACCESS_ERR = 0x11,
    PRM_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR = 0x12,
    PRM_CQE_SYNDROME_REMOTE_ACCESS_ERR = 0x13,
    PRM_CQE_SYNDROME_REMOTE_OP_ERR = 0x14,
    PRM_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR = 0x15,
    PRM_CQE_SYNDROME_RNR_RETRY_EXC_ERR = 0x16,
    PRM_CQE_SYNDROME_REMOTE_ABORTED_ERR = 0x22,
};

/* CQE format (op_own [3:2]). Only PRM_CQE_FORMAT_NONE is produced by CQs we create. */
enum prm_cqe_format {
    PRM_CQE_FORMAT_NONE = 0x0,
    PRM_CQE_FORMAT_INLINE_32 = 0x1,  /* up to 32 bytes of received data scattered into the CQE */
    PRM_CQE_FORMAT_INLINE_64 = 0x2,  /* up to 64 bytes, 128-byte CQEs only */
    PRM_CQE_FORMAT_COMPRESSED = 0x3, /* a title CQE followed by mini-CQE arrays */
};

enum {
    PRM_CQE_OWNER_MASK = 0x01,
    PRM_CQE_SE_MASK = 0x02,
    PRM_CQE_FORMAT_SHIFT = 2,
    PRM_CQE_FORMAT_MASK = 0x3 << 2,
    PRM_CQE_OPCODE_SHIFT = 4,
};

enum {
    PRM_CQE_SIZE = 64,
    PRM_CQE_QPN_MASK = 0x00ffffff,
    /* flags_rqpn of a UD receive: what precedes the data [29:28], the sender's SL [27:24] */
    PRM_CQE_RQPN_L3_SHIFT = 28,
    PRM_CQE_RQPN_SL_SHIFT = 24,
    PRM_CQE_L3_NONE = 0x0, /* no GRH */
    PRM_CQE_L3_GRH = 0x1,  /* an IB GRH (IPv6 layout) */
    PRM_CQE_L3_IPV4 = 0x2, /* RoCE v2 over IPv4: the IPv4 header in the GRH's last 20 bytes */
};

/* A CQE64 as requester and responder completions use it. */
struct prm_cqe64 {
    uint8_t reserved0[2];
    gdaki_be16_t wqe_id; /* striding RQ: WQE index */
    uint8_t reserved4[13];
    uint8_t ml_path;
    uint8_t reserved18[4];
    gdaki_be16_t slid;
    gdaki_be32_t flags_rqpn; /* responder: GRH/packet flags [31:24], remote QPN [23:0] */
    uint8_t hds_ip_ext;
    uint8_t l4_hdr_type_etc;
    gdaki_be16_t vlan_info;
    gdaki_be32_t srqn_uidx;      /* SRQ number or user index */
    gdaki_be32_t imm_inval_pkey; /* immediate or invalidated rkey, in wire order */
    uint8_t app;
    uint8_t app_op;
    gdaki_be16_t app_info;
    gdaki_be32_t byte_cnt;
    gdaki_be64_t timestamp;
    gdaki_be32_t sop_drop_qpn; /* requester: WQE opcode [31:24]; QP number [23:0] */
    gdaki_be16_t wqe_counter;  /* index of the completed WQE (its control segment's index) */
    uint8_t signature;
    uint8_t op_own;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_cqe64) == PRM_CQE_SIZE, "CQE64 is 64 bytes");

/* The same 64 bytes in a REQ_ERR / RESP_ERR CQE. */
struct prm_cqe64_err {
    uint8_t reserved0[32];
    gdaki_be32_t srqn;
    uint8_t reserved1[16];
    uint8_t hw_err_synd;
    uint8_t hw_synd_type;
    uint8_t vendor_err_synd;
    uint8_t syndrome;
    gdaki_be32_t s_wqe_opcode_qpn; /* failed WQE's opcode [31:24]; QP number [23:0] */
    gdaki_be16_t wqe_counter;
    uint8_t signature;
    uint8_t op_own;
};
GDAKI_STATIC_ASSERT(sizeof(struct prm_cqe64_err) == PRM_CQE_SIZE, "error CQE64 is 64 bytes");

GDAKI_INLINE uint8_t prm_cqe_opcode(const struct prm_cqe64 *cqe)
{
    return (uint8_t)(cqe->op_own >> PRM_CQE_OPCODE_SHIFT);
}

GDAKI_INLINE uint8_t prm_cqe_owner(const struct prm_cqe64 *cqe)
{
    return cqe->op_own & PRM_CQE_OWNER_MASK;
}

GDAKI_INLINE uint8_t prm_cqe_se(const struct prm_cqe64 *cqe)
{
    return (cqe->op_own & PRM_CQE_SE_MASK) >> 1;
}

GDAKI_INLINE uint8_t prm_cqe_format(const struct prm_cqe64 *cqe)
{
    return (uint8_t)((cqe->op_own & PRM_CQE_FORMAT_MASK) >> PRM_CQE_FORMAT_SHIFT);
}

/* True for a compressed CQE (mini-CQEs follow), a format this project does not support. */
GDAKI_INLINE int prm_cqe_is_compressed(const struct prm_cqe64 *cqe)
{
    return prm_cqe_format(cqe) == PRM_CQE_FORMAT_COMPRESSED;
}

GDAKI_INLINE uint16_t prm_cqe_wqe_counter(const struct prm_cqe64 *cqe)
{
    return gdaki_be16toh(cqe->wqe_counter);
}

GDAKI_INLINE uint32_t prm_cqe_byte_cnt(const struct prm_cqe64 *cqe)
{
    return gdaki_be32toh(cqe->byte_cnt);
}

GDAKI_INLINE uint32_t prm_cqe_qpn(const struct prm_cqe64 *cqe)
{
    return gdaki_be32toh(cqe->sop_drop_qpn) & PRM_CQE_QPN_MASK;
}

/* Opcode of the send WQE a requester or error CQE completes. */
GDAKI_INLINE uint8_t prm_cqe_wqe_opcode(const struct prm_cqe64 *cqe)
{
    return (uint8_t)(gdaki_be32toh(cqe->sop_drop_qpn) >> 24);
}

/* Immediate data as it came on the wire (big-endian, like verbs' imm_data). */
GDAKI_INLINE gdaki_be32_t prm_cqe_imm(const struct prm_cqe64 *cqe)
{
    return cqe->imm_inval_pkey;
}

GDAKI_INLINE uint64_t prm_cqe_timestamp(const struct prm_cqe64 *cqe)
{
    return gdaki_be64toh(cqe->timestamp);
}

GDAKI_INLINE int prm_cqe_is_error(const struct prm_cqe64 *cqe)
{
    uint8_t opcode = prm_cqe_opcode(cqe);

    return opcode == PRM_CQE_OPCODE_REQ_ERR || opcode == PRM_CQE_OPCODE_RESP_ERR;
}

/* Error view of a CQE; only meaningful when prm_cqe_is_error(). */
GDAKI_INLINE const struct prm_cqe64_err *prm_cqe_err(const struct prm_cqe64 *cqe)
{
    return (const struct prm_cqe64_err *)(const void *)cqe;
}

GDAKI_INLINE uint8_t prm_cqe_syndrome(const struct prm_cqe64 *cqe)
{
    return prm_cqe_err(cqe)->syndrome;
}

GDAKI_INLINE uint8_t prm_cqe_vendor_syndrome(const struct prm_cqe64 *cqe)
{
    return prm_cqe_err(cqe)->vendor_err_synd;
}

/* Owner bit of the entry at counter `index` of a 2^log_cq_size ring: flips on every wrap. */
GDAKI_INLINE uint8_t prm_cqe_owner_for_index(uint64_t index, uint32_t log_cq_size)
{
    return (uint8_t)((index >> log_cq_size) & 1);
}

/*
 * Whether an op_own byte, read from the entry at consumer counter
 * consumer_index, marks a CQE that software may consume: a valid opcode and
 * the owner bit of the current pass over the ring.
 */
GDAKI_INLINE int prm_cqe_op_own_sw_owned(uint8_t op_own, uint64_t consumer_index,
                                         uint32_t log_cq_size)
{
    return (op_own >> PRM_CQE_OPCODE_SHIFT) != PRM_CQE_OPCODE_INVALID &&
           (op_own & PRM_CQE_OWNER_MASK) == prm_cqe_owner_for_index(consumer_index, log_cq_size);
}

/*
 * The same on a CQE in memory. op_own is read once through a volatile
 * pointer so a polling loop re-reads it; order the reads of the other fields
 * after it (acquire) before using them. Under ThreadSanitizer, which does not
 * model that fence, the read is itself an acquire load (gdaki_platform.h).
 */
GDAKI_INLINE int prm_cqe_sw_owned(const struct prm_cqe64 *cqe, uint64_t consumer_index,
                                  uint32_t log_cq_size)
{
#if GDAKI_TSAN
    uint8_t op_own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);
#else
    uint8_t op_own = *(const volatile uint8_t *)&cqe->op_own;
#endif

    return prm_cqe_op_own_sw_owned(op_own, consumer_index, log_cq_size);
}

/* op_own byte of an uncompressed, unsolicited CQE. */
GDAKI_INLINE uint8_t prm_cqe_make_op_own(uint8_t opcode, uint8_t owner)
{
    return (uint8_t)((opcode << PRM_CQE_OPCODE_SHIFT) | (owner & PRM_CQE_OWNER_MASK));
}

/* Sets the owner bit, keeping the rest of op_own. */
GDAKI_INLINE void prm_cqe_set_owner(struct prm_cqe64 *cqe, uint8_t owner)
{
    cqe->op_own = (uint8_t)((cqe->op_own & ~PRM_CQE_OWNER_MASK) | (owner & PRM_CQE_OWNER_MASK));
}

/* Zeroes every byte but op_own. */
GDAKI_INLINE void prm_cqe_clear_body(struct prm_cqe64 *cqe)
{
    uint8_t *bytes = (uint8_t *)cqe;

    for (unsigned int i = 0; i < sizeof(*cqe) - sizeof(cqe->op_own); i++)
        bytes[i] = 0;
}

/*
 * Builders for the software NIC. Each writes every byte but op_own and
 * returns the op_own byte to publish. Storing that byte, last and after a
 * release ordering of the other stores, is the caller's job.
 */

/* Requester completion of the send WQE wqe_counter (opcode wqe_opcode) on QP qpn. */
GDAKI_INLINE uint8_t prm_cqe_fill_req(struct prm_cqe64 *cqe, uint8_t wqe_opcode, uint32_t qpn,
                                      uint16_t wqe_counter, uint32_t byte_cnt, uint8_t owner)
{
    prm_cqe_clear_body(cqe);
    cqe->byte_cnt = gdaki_htobe32(byte_cnt);
    cqe->sop_drop_qpn = gdaki_htobe32(((uint32_t)wqe_opcode << 24) | (qpn & PRM_CQE_QPN_MASK));
    cqe->wqe_counter = gdaki_htobe16(wqe_counter);
    return prm_cqe_make_op_own(PRM_CQE_OPCODE_REQ, owner);
}

/*
 * Responder completion (opcode one of PRM_CQE_OPCODE_RESP_*) of receive WQE
 * wqe_counter; imm is stored as given (wire order).
 */
GDAKI_INLINE uint8_t prm_cqe_fill_resp(struct prm_cqe64 *cqe, uint8_t opcode, uint32_t qpn,
                                       uint16_t wqe_counter, uint32_t byte_cnt, gdaki_be32_t imm,
                                       uint8_t owner)
{
    prm_cqe_clear_body(cqe);
    cqe->imm_inval_pkey = imm;
    cqe->byte_cnt = gdaki_htobe32(byte_cnt);
    cqe->sop_drop_qpn = gdaki_htobe32(qpn & PRM_CQE_QPN_MASK);
    cqe->wqe_counter = gdaki_htobe16(wqe_counter);
    return prm_cqe_make_op_own(opcode, owner);
}

/* Error completion (opcode PRM_CQE_OPCODE_REQ_ERR or _RESP_ERR) of WQE wqe_counter. */
GDAKI_INLINE uint8_t prm_cqe_fill_error(struct prm_cqe64 *cqe, uint8_t opcode, uint8_t syndrome,
                                        uint8_t vendor_syndrome, uint8_t wqe_opcode, uint32_t qpn,
                                        uint16_t wqe_counter, uint8_t owner)
{
    struct prm_cqe64_err *err = (struct prm_cqe64_err *)(void *)cqe;

    prm_cqe_clear_body(cqe);
    err->syndrome = syndrome;
    err->vendor_err_synd = vendor_syndrome;
    /* Same word and offset as sop_drop_qpn: written through the CQE64 view. */
    cqe->sop_drop_qpn = gdaki_htobe32(((uint32_t)wqe_opcode << 24) | (qpn & PRM_CQE_QPN_MASK));
    cqe->wqe_counter = gdaki_htobe16(wqe_counter);
    return prm_cqe_make_op_own(opcode, owner);
}

#endif /* DOCA_GPUNETIO_IMPL_PRM_MLX5_CQE_H */
