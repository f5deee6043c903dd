/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Verbs: the host control path of GPU-initiated RDMA over mlx5 NICs.
 *
 * Every object (UMEM, UAR, CQ, SRQ, QP) is made with mlx5 DevX PRM commands
 * through rdma-core, which is loaded at run time: a call made where
 * rdma-core is missing answers DOCA_ERROR_NOT_SUPPORTED. The names, argument
 * orders and enumerator values are those of DOCA Verbs (the generation whose
 * device object is opened from an ibverbs PD), so programs written for DOCA
 * build against this header unchanged.
 *
 * Conventions of every call here:
 * - It returns DOCA_SUCCESS or a doca_error_t; on failure it logs one line
 *   saying what was wrong, and writes no output argument.
 * - A NULL object or output pointer answers DOCA_ERROR_INVALID_VALUE.
 * - Attribute objects (*_attr) are plain values the caller owns: an object
 *   created from them keeps a copy, so they may be destroyed right after.
 * - An object that others still use (a CQ under a QP, a UMEM under a CQ,
 *   QP or SRQ, a UAR under a CQ or QP, a device under anything) refuses to
 *   be destroyed with DOCA_ERROR_IN_USE and stays valid.
 * - A DevX command the device refuses is logged with the command's name,
 *   status and syndrome, and answers the status's doca_error_t.
 */
#ifndef DOCA_VERBS_H
#define DOCA_VERBS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doca_compat.h"
#include "doca_error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_context;
struct ibv_pd;

/* Opaque handles. */
typedef struct doca_dev doca_dev_t;
typedef struct doca_gpu doca_gpu_t;
typedef struct doca_verbs_qp_init_attr doca_verbs_qp_init_attr_t;
typedef struct doca_verbs_qp_attr doca_verbs_qp_attr_t;
typedef struct doca_verbs_qp_t doca_verbs_qp_t;
typedef struct doca_verbs_cq_attr doca_verbs_cq_attr_t;
typedef struct doca_verbs_cq_t doca_verbs_cq_t;
typedef struct doca_verbs_ah_attr_t doca_verbs_ah_attr_t;
typedef struct doca_verbs_umem doca_verbs_umem_t;
typedef struct doca_verbs_uar doca_verbs_uar_t;
typedef struct doca_verbs_comp_channel doca_verbs_comp_channel_t;
typedef struct doca_verbs_cc_group_t doca_verbs_cc_group_t;
struct doca_verbs_srq;
struct doca_verbs_srq_init_attr;
struct doca_verbs_device_attr;

/* Which kind of UAR page doca_verbs_uar_create() allocates. */
enum doca_verbs_uar_allocation_type {
    DOCA_VERBS_UAR_ALLOCATION_TYPE_BLUEFLAME = 0,
    DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE = 1,
    DOCA_VERBS_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED = 2,
};

/* The one QP type: reliable connected. */
#define DOCA_VERBS_QP_TYPE_RC 0x0

enum doca_verbs_qp_state {
    DOCA_VERBS_QP_STATE_RST = 0x0,
    DOCA_VERBS_QP_STATE_INIT = 0x1,
    DOCA_VERBS_QP_STATE_RTR = 0x2,
    DOCA_VERBS_QP_STATE_RTS = 0x3,
    DOCA_VERBS_QP_STATE_ERR = 0x4,
};

enum doca_verbs_addr_type {
    DOCA_VERBS_ADDR_TYPE_IPv4,
    DOCA_VERBS_ADDR_TYPE_IPv6,
    DOCA_VERBS_ADDR_TYPE_IB_GRH,
    DOCA_VERBS_ADDR_TYPE_IB_NO_GRH,
};

enum doca_verbs_mtu_size {
    DOCA_VERBS_MTU_SIZE_256_BYTES = 0x0,
    DOCA_VERBS_MTU_SIZE_512_BYTES = 0x1,
    DOCA_VERBS_MTU_SIZE_1K_BYTES = 0x2,
    DOCA_VERBS_MTU_SIZE_2K_BYTES = 0x3,
    DOCA_VERBS_MTU_SIZE_4K_BYTES = 0x4,
    DOCA_VERBS_MTU_SIZE_RAW_ETHERNET = 0x5, /* reserved: refused on RC QPs */
};

enum doca_verbs_cq_overrun {
    DOCA_VERBS_CQ_DISABLE_OVERRUN = 0,
    DOCA_VERBS_CQ_ENABLE_OVERRUN = 1,
};

/* The event state a CQ is created in (its context's `st`). */
enum doca_verbs_cq_state {
    DOCA_VERBS_CQ_ST_NO_ACTION,                            /* not armed */
    DOCA_VERBS_CQ_ST_SOLICITED_NOTIFICATION_REQUEST_ARMED, /* armed for a solicited or error CQE */
    DOCA_VERBS_CQ_ST_NOTIFICATION_REQUEST_ARMED,           /* armed for any CQE */
    DOCA_VERBS_CQ_ST_FIRED,                                /* fired: no event until armed */
};

enum doca_verbs_srq_type {
    DOCA_VERBS_SRQ_TYPE_LINKED_LIST,
    DOCA_VERBS_SRQ_TYPE_CONTIGUOUS,
};

/* Atomic operations a QP accepts as a responder (values are the PRM's). */
enum doca_verbs_qp_atomic_mode {
    DOCA_VERBS_QP_ATOMIC_MODE_NONE = 0x0,
    DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC = 0x1,
    DOCA_VERBS_QP_ATOMIC_MODE_ONLY_8BYTES = 0x2,
    DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_8BYTES = 0x3,
    DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_16BYTES = 0x4,
    DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_32BYTES = 0x5,
    DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_64BYTES = 0x6,
    DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_128BYTES = 0x7,
    DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_256BYTES = 0x8
};

/*
 * The data-placement order a QP asks for. This library places data in
 * order (IBTA) in every mode, which is stricter than the out-of-order modes
 * allow: programs written for them work, without their speed-up.
 */
enum doca_verbs_qp_ordering_semantic {
    DOCA_VERBS_QP_ORDERING_SEMANTIC_IBTA = 0x0,
    DOCA_VERBS_QP_ORDERING_SEMANTIC_OOO_RW = 0x1,
    DOCA_VERBS_QP_ORDERING_SEMANTIC_OOO_ALL = 0x2,
};

/* Whether the send queue keeps a doorbell record (DBR_VALID) or not. */
enum doca_verbs_qp_send_dbr_mode {
    DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID = 0x0,
    DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT = 0x1,
};

/*
 * Attribute-mask bits of doca_verbs_qp_modify(). What each RC transition
 * requires (R) and allows (O); NEXT_STATE is required except on INIT->INIT
 * and RTS->RTS, CURRENT_STATE is allowed everywhere:
 *   any->RST, any->ERR  nothing else
 *   RST->INIT   R: PKEY_INDEX PORT_NUM ALLOW_REMOTE_WRITE ALLOW_REMOTE_READ
 *               O: ATOMIC_MODE
 *   INIT->INIT  O: ALLOW_REMOTE_WRITE ALLOW_REMOTE_READ ATOMIC_MODE PKEY_INDEX PORT_NUM
 *   INIT->RTR   R: RQ_PSN DEST_QP_NUM PATH_MTU AH_ATTR MIN_RNR_TIMER
 *               O: MAX_DEST_RD_ATOMIC ALLOW_REMOTE_WRITE ALLOW_REMOTE_READ ATOMIC_MODE
 *                  PKEY_INDEX
 *   RTR->RTS    R: SQ_PSN ACK_TIMEOUT RETRY_CNT RNR_RETRY
 *               O: MAX_QP_RD_ATOMIC MIN_RNR_TIMER ALLOW_REMOTE_WRITE
 *   RTS->RTS    O: ALLOW_REMOTE_WRITE ALLOW_REMOTE_READ ATOMIC_MODE MIN_RNR_TIMER AH_ATTR
 */
#define DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE   (1 << 0)
#define DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ    (1 << 1)
#define DOCA_VERBS_QP_ATTR_PKEY_INDEX           (1 << 2)
#define DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER        (1 << 3)
#define DOCA_VERBS_QP_ATTR_PORT_NUM             (1 << 4)
#define DOCA_VERBS_QP_ATTR_NEXT_STATE           (1 << 5)
#define DOCA_VERBS_QP_ATTR_CURRENT_STATE        (1 << 6)
#define DOCA_VERBS_QP_ATTR_PATH_MTU             (1 << 7)
#define DOCA_VERBS_QP_ATTR_RQ_PSN               (1 << 8)
#define DOCA_VERBS_QP_ATTR_SQ_PSN               (1 << 9)
#define DOCA_VERBS_QP_ATTR_DEST_QP_NUM          (1 << 10)
#define DOCA_VERBS_QP_ATTR_ACK_TIMEOUT          (1 << 11)
#define DOCA_VERBS_QP_ATTR_RETRY_CNT            (1 << 12)
#define DOCA_VERBS_QP_ATTR_RNR_RETRY            (1 << 13)
#define DOCA_VERBS_QP_ATTR_AH_ATTR              (1 << 14)
#define DOCA_VERBS_QP_ATTR_ATOMIC_MODE          (1 << 15)
#define DOCA_VERBS_QP_ATTR_MAX_QP_RD_ATOMIC     (1 << 16)
#define DOCA_VERBS_QP_ATTR_MAX_DEST_RD_ATOMIC   (1 << 17)
#define DOCA_VERBS_QP_ATTR_CC_GROUP             (1 << 18) /* DOCA SDK only: NOT_SUPPORTED here */
#define DOCA_VERBS_QP_ATTR_LAG_TX_PORT_AFFINITY (1 << 19)

#define DOCA_VERBS_GID_BYTE_LENGTH 16

/* dmabuf_fd value of doca_verbs_umem_create() meaning "no dma-buf: plain registration". */
#define DOCA_VERBS_DMABUF_INVALID_FD 0xFFFFFFFF

struct doca_verbs_gid {
    uint8_t raw[DOCA_VERBS_GID_BYTE_LENGTH];
};

/* ---- Device ------------------------------------------------------------ */

/*
 * Opens the DOCA Verbs device of an ibverbs protection domain: reads the
 * device's capabilities (QUERY_HCA_CAP) and the PD number. The PD and its
 * context stay the caller's and must outlive the device object.
 * Errors: INVALID_VALUE (NULL), NOT_SUPPORTED (no rdma-core, or not an mlx5
 * DevX device), NO_MEMORY, or the refused command's code.
 */
DOCA_STABLE doca_error_t doca_verbs_dev_open(struct ibv_pd *verbs_pd, doca_dev_t **net_dev);

/* Closes a device object. IN_USE while objects made on it exist. */
DOCA_STABLE doca_error_t doca_verbs_dev_close(doca_dev_t *net_dev);

/* ---- Device attributes --------------------------------------------------- */

/*
 * Queries the capabilities of a device context (QUERY_HCA_CAP and port 1).
 * The result is the caller's, freed with doca_verbs_device_attr_free().
 * Errors: INVALID_VALUE, NOT_SUPPORTED, NO_MEMORY, DRIVER, or the refused
 * command's code.
 */
DOCA_STABLE doca_error_t doca_verbs_query_device(struct ibv_context *context,
                                                 struct doca_verbs_device_attr **verbs_device_attr);
DOCA_STABLE doca_error_t
doca_verbs_device_attr_free(struct doca_verbs_device_attr *verbs_device_attr);

/* Getters: 0 for a NULL attribute object. */
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_qp(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t
doca_verbs_device_attr_get_max_qp_wr(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_sge(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_cq(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_cqe(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_mr(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_pd(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_ah(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t doca_verbs_device_attr_get_max_srq(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t
doca_verbs_device_attr_get_max_srq_wr(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint32_t
doca_verbs_device_attr_get_max_srq_sge(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint16_t
doca_verbs_device_attr_get_max_pkeys(const struct doca_verbs_device_attr *attr);
/* DOCA_SUCCESS when the device makes QPs of qp_type; NOT_SUPPORTED or INVALID_VALUE otherwise. */
DOCA_STABLE doca_error_t doca_verbs_device_attr_get_is_qp_type_supported(
        const struct doca_verbs_device_attr *attr, uint32_t qp_type);
/* 1 when send queues without doorbell record (NO_DBR_EXT) can be made. */
DOCA_STABLE uint8_t
doca_verbs_device_attr_get_send_dbr_mode_no_dbr_ext(const struct doca_verbs_device_attr *attr);
/* Outstanding RDMA reads/atomics a QP may initiate, and accept as responder. */
DOCA_STABLE uint8_t
doca_verbs_device_attr_get_max_qp_rd_atom(const struct doca_verbs_device_attr *attr);
DOCA_STABLE uint8_t
doca_verbs_device_attr_get_max_qp_init_rd_atom(const struct doca_verbs_device_attr *attr);
/* LAG: whether a QP's transmit port can be chosen, at which transitions, and over how many ports.
 */
DOCA_STABLE uint8_t doca_verbs_device_attr_get_is_lag_tx_port_affinity_supported(
        const struct doca_verbs_device_attr *verbs_device_attr);
DOCA_STABLE uint8_t
doca_verbs_device_attr_get_num_lag_ports(const struct doca_verbs_device_attr *verbs_device_attr);
DOCA_STABLE uint8_t doca_verbs_device_attr_get_is_init2_lag_tx_port_affinity_supported(
        const struct doca_verbs_device_attr *verbs_device_attr);
DOCA_STABLE uint8_t doca_verbs_device_attr_get_is_rts2rts_lag_tx_port_affinity_supported(
        const struct doca_verbs_device_attr *verbs_device_attr);

/*
 * The port's system-wide traffic class ("Global tclass=N" in the device's
 * sysfs tc/<port>/traffic_class), which should override a program's own.
 * NOT_FOUND when none is configured, NOT_PERMITTED, OPERATING_SYSTEM,
 * INVALID_VALUE (NULL, port 0).
 */
DOCA_STABLE doca_error_t doca_verbs_query_global_traffic_class(doca_dev_t *net_dev,
                                                               uint16_t port_num,
                                                               uint8_t *global_traffic_class);

/* ---- UMEM ---------------------------------------------------------------- */

/*
 * Registers [address, address + size) of host or GPU memory as a DevX
 * UMEM, which CQs, QPs and SRQs can hold their rings and doorbell records
 * in. With dmabuf_fd other than DOCA_VERBS_DMABUF_INVALID_FD the memory is
 * registered through that dma-buf (address is still the range's GPU
 * address; dmabuf_offset its offset in the dma-buf); otherwise plainly. gpu
 * names the GPU owning the memory and may be NULL. The memory stays the
 * caller's and must outlive the UMEM.
 * Errors: INVALID_VALUE (NULL address or output, size 0), NOT_SUPPORTED,
 * DRIVER (the registration failed; the line gives errno).
 */
DOCA_STABLE doca_error_t doca_verbs_umem_create(doca_dev_t *net_dev, doca_gpu_t *gpu, void *address,
                                                size_t size, uint32_t access_flags, int dmabuf_id,
                                                size_t dmabuf_offset, doca_verbs_umem_t **umem_obj);
/* Deregisters a UMEM. IN_USE while a CQ, QP or SRQ lives in it. */
DOCA_STABLE doca_error_t doca_verbs_umem_destroy(doca_verbs_umem_t *umem_obj);
DOCA_STABLE doca_error_t doca_verbs_umem_get_id(const doca_verbs_umem_t *umem_obj,
                                                uint32_t *umem_id);
DOCA_STABLE doca_error_t doca_verbs_umem_get_size(const doca_verbs_umem_t *umem_obj,
                                                  size_t *umem_size);
DOCA_STABLE doca_error_t doca_verbs_umem_get_address(const doca_verbs_umem_t *umem_obj,
                                                     void **umem_address);

/* ---- UAR ----------------------------------------------------------------- */

/*
 * Allocates a UAR page, where doorbells are rung. Errors: INVALID_VALUE
 * (unknown type), NOT_SUPPORTED, DRIVER (allocation refused).
 */
DOCA_STABLE doca_error_t doca_verbs_uar_create(doca_dev_t *net_dev,
                                               enum doca_verbs_uar_allocation_type allocation_type,
                                               doca_verbs_uar_t **uar_obj);
/* Frees a UAR. IN_USE while a CQ or QP rings its doorbells there. */
DOCA_STABLE doca_error_t doca_verbs_uar_destroy(doca_verbs_uar_t *uar_obj);
/* The UAR page number that CQ and QP contexts name. */
DOCA_STABLE doca_error_t doca_verbs_uar_id_get(const doca_verbs_uar_t *uar, uint32_t *id);
/* The send doorbell / BlueFlame register: where a 64-bit doorbell (or a WQE) is written. */
DOCA_STABLE doca_error_t doca_verbs_uar_reg_addr_get(const doca_verbs_uar_t *uar_obj,
                                                     void **reg_addr);
/* Doorbell register of send queues without doorbell record; NOT_SUPPORTED without them. */
DOCA_STABLE doca_error_t doca_verbs_uar_dbr_less_addr_get(const doca_verbs_uar_t *uar_obj,
                                                          void **dbr_less_addr);

/* ---- CQ attributes and CQ -------------------------------------------------- */

/* Makes / frees a CQ attribute object (defaults: no size, internal memory, no overrun). */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_create(doca_verbs_cq_attr_t **verbs_cq_attr);
DOCA_STABLE doca_error_t doca_verbs_cq_attr_destroy(doca_verbs_cq_attr_t *verbs_cq_attr);
/* Number of CQEs (rounded up to a power of two at creation). INVALID_VALUE for 0. */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_cq_size(doca_verbs_cq_attr_t *cq_attr,
                                                        uint32_t cq_size);
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_cq_context(doca_verbs_cq_attr_t *cq_attr,
                                                           void *cq_context);
/*
 * CQE ring in a caller's UMEM at an offset (64-byte aligned). Must be paired
 * with doca_verbs_cq_attr_set_external_dbr_umem(): doca_verbs_cq_create()
 * refuses one without the other. NULL umem clears the setting.
 */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_external_umem(doca_verbs_cq_attr_t *cq_attr,
                                                              doca_verbs_umem_t *external_umem,
                                                              uint64_t external_umem_offset);
/* Doorbell record (8 bytes, 8-byte aligned offset) in a caller's UMEM. */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_external_dbr_umem(
        doca_verbs_cq_attr_t *cq_attr, doca_verbs_umem_t *external_dbr_umem,
        uint64_t external_dbr_umem_offset);
/* UAR whose CQ doorbell arms the CQ; otherwise the CQ allocates its own. */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_external_uar(doca_verbs_cq_attr_t *cq_attr,
                                                             doca_verbs_uar_t *external_uar);
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_cq_overrun(doca_verbs_cq_attr_t *cq_attr,
                                                           enum doca_verbs_cq_overrun overrun);
/* cc 1: every CQE is written to entry 0 (collapsed CQ). */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_cq_collapsed(doca_verbs_cq_attr_t *cq_attr,
                                                             uint8_t cc);
/*
 * The completion channel the CQ's events go to (NULL: none). An event is
 * given once per arm: by the `st` below at creation, or by the arm
 * doorbell (a write of the doorbell record's arm word, then of the UAR's
 * CQ doorbell register, both from doca_verbs_cq_get_dbr_addr()).
 */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_comp_channel(
        doca_verbs_cq_attr_t *cq_attr, doca_verbs_comp_channel_t *comp_channel);
/* The event state the CQ starts in (default NO_ACTION). INVALID_VALUE outside the enum. */
DOCA_STABLE doca_error_t doca_verbs_cq_attr_set_st(doca_verbs_cq_attr_t *cq_attr,
                                                   enum doca_verbs_cq_state cq_state);

/*
 * Creates a CQ (CREATE_CQ). Without external UMEMs, the ring and doorbell
 * record are allocated in page-aligned host memory and registered. Every
 * CQE is marked invalid (opcode 0xf) before the CQ is made: through the
 * host, or with a CUDA copy when the ring is in GPU memory.
 * Errors: INVALID_VALUE (size 0 or above the device's maximum, only one
 * external UMEM, ring or record outside its UMEM), NOT_SUPPORTED,
 * NO_MEMORY, DRIVER, or the refused command's code.
 */
DOCA_STABLE doca_error_t doca_verbs_cq_create(doca_dev_t *net_dev, doca_verbs_cq_attr_t *cq_attr,
                                              doca_verbs_cq_t **cq);
/*
 * Destroys a CQ. IN_USE while a QP completes on it or while events handed
 * out for it are not acknowledged (doca_verbs_ack_cq_events()).
 */
DOCA_STABLE doca_error_t doca_verbs_cq_destroy(doca_verbs_cq_t *verbs_cq);
/* The CQE ring, its number of entries and the entry size (64). */
DOCA_STABLE doca_error_t doca_verbs_cq_get_wq(doca_verbs_cq_t *verbs_cq, void **cq_buf,
                                              uint32_t *cq_num_entries, uint8_t *cq_entry_size);
/*
 * The UAR's CQ doorbell register, and the doorbell record's consumer-index
 * and arm words. Any output may be NULL.
 */
DOCA_STABLE doca_error_t doca_verbs_cq_get_dbr_addr(doca_verbs_cq_t *verbs_cq,
                                                    uint64_t **uar_db_reg, uint32_t **ci_dbr,
                                                    uint32_t **arm_dbr);
DOCA_STABLE doca_error_t doca_verbs_cq_get_cqn(const doca_verbs_cq_t *verbs_cq, uint32_t *cqn);
/* The same two accessors under the names of later DOCA releases. */
DOCA_STABLE doca_error_t doca_verbs_cq_get_dbr_db_addr(doca_verbs_cq_t *verbs_cq,
                                                       uint64_t **uar_db_reg, uint32_t **ci_dbr,
                                                       uint32_t **arm_dbr);
DOCA_STABLE doca_error_t doca_verbs_cq_get_cq_num(const doca_verbs_cq_t *verbs_cq, uint32_t *cqn);
/* Replaces the user data events of this CQ carry (NULL allowed). */
DOCA_STABLE doca_error_t doca_verbs_cq_set_cq_context(doca_verbs_cq_t *verbs_cq, void *cq_context);

/* ---- Completion channels --------------------------------------------------- */

/*
 * A completion channel: DevX completion events of the CQs attached to it,
 * read without blocking. NOT_SUPPORTED when the device gives no DevX events.
 */
DOCA_STABLE doca_error_t doca_verbs_comp_channel_create(
        const doca_dev_t *net_dev, doca_verbs_comp_channel_t **verbs_comp_channel);
/* IN_USE while CQs made with it exist. */
DOCA_STABLE doca_error_t
doca_verbs_comp_channel_destroy(doca_verbs_comp_channel_t *verbs_comp_channel);
/*
 * The next event: *cq_context is the user data of the CQ that fired.
 * AGAIN (and *cq_context NULL) when there is none. Each event is to be
 * acknowledged with doca_verbs_ack_cq_events() before the CQ is destroyed.
 */
DOCA_STABLE doca_error_t doca_verbs_get_cq_comp_channel_event(
        doca_verbs_comp_channel_t *verbs_comp_channel, void **cq_context);
/* Acknowledges nevents events of this CQ. INVALID_VALUE for 0 or more than were handed out. */
DOCA_STABLE doca_error_t doca_verbs_ack_cq_events(doca_verbs_cq_t *verbs_cq, unsigned int nevents);

/* ---- SRQ ----------------------------------------------------------------- */

DOCA_STABLE doca_error_t
doca_verbs_srq_init_attr_create(struct doca_verbs_srq_init_attr **verbs_srq_init_attr);
DOCA_STABLE doca_error_t
doca_verbs_srq_init_attr_destroy(struct doca_verbs_srq_init_attr *verbs_srq_init_attr);
/* Receive WQEs (rounded up to a power of two). INVALID_VALUE for 0. */
DOCA_STABLE doca_error_t doca_verbs_srq_init_attr_set_srq_wr(struct doca_verbs_srq_init_attr *attr,
                                                             uint32_t srq_wr);
DOCA_STABLE uint32_t
doca_verbs_srq_init_attr_get_srq_wr(const struct doca_verbs_srq_init_attr *attr);
DOCA_STABLE doca_error_t doca_verbs_srq_init_attr_set_receive_max_sges(
        struct doca_verbs_srq_init_attr *attr, uint32_t receive_max_sges);
DOCA_STABLE uint32_t
doca_verbs_srq_init_attr_get_receive_max_sges(const struct doca_verbs_srq_init_attr *attr);
DOCA_STABLE doca_error_t doca_verbs_srq_init_attr_set_type(struct doca_verbs_srq_init_attr *attr,
                                                           enum doca_verbs_srq_type srq_type);
DOCA_STABLE enum doca_verbs_srq_type
doca_verbs_srq_init_attr_get_type(const struct doca_verbs_srq_init_attr *attr);
DOCA_STABLE doca_error_t doca_verbs_srq_init_attr_set_pd(struct doca_verbs_srq_init_attr *attr,
                                                         struct ibv_pd *pd);
DOCA_STABLE struct ibv_pd *
doca_verbs_srq_init_attr_get_pd(const struct doca_verbs_srq_init_attr *attr);
/* WQE ring and doorbell record in a caller's UMEM (the record follows the ring). */
DOCA_STABLE doca_error_t doca_verbs_srq_init_attr_set_external_umem(
        struct doca_verbs_srq_init_attr *attr, doca_verbs_umem_t *external_umem,
        uint64_t external_umem_offset);
DOCA_STABLE doca_error_t doca_verbs_srq_init_attr_get_external_umem(
        const struct doca_verbs_srq_init_attr *attr, doca_verbs_umem_t **external_umem,
        uint64_t *external_umem_offset);

/*
 * Creates a shared receive queue on the context of the PD set in the
 * attributes: an RMP (CREATE_RMP), the PRM form of a basic SRQ whose ring and
 * doorbell record are in a UMEM; doca_verbs_srq_get_srqn() gives its RMP
 * number, which QPs name. Errors: INVALID_VALUE (no PD, PD of another
 * context, bad sizes), NOT_SUPPORTED (the device makes no RMPs over DevX),
 * NO_MEMORY, DRIVER, or the refused command's code.
 */
DOCA_STABLE doca_error_t doca_verbs_srq_create(struct ibv_context *verbs_context,
                                               struct doca_verbs_srq_init_attr *verbs_srq_init_attr,
                                               struct doca_verbs_srq **verbs_srq);
/* Destroys an SRQ. IN_USE while a QP receives through it. */
DOCA_STABLE doca_error_t doca_verbs_srq_destroy(struct doca_verbs_srq *verbs_srq);
/* The SRQ number; 0 for NULL. */
DOCA_STABLE uint32_t doca_verbs_srq_get_srqn(const struct doca_verbs_srq *verbs_srq);
/* The WQE ring, its entries and the WQE size; outputs untouched for NULL srq. */
DOCA_STABLE void doca_verbs_srq_get_wq(const struct doca_verbs_srq *verbs_srq, void **srq_buf,
                                       uint32_t *srq_num_entries, uint32_t *rwqe_size_bytes);
/* The doorbell record; NULL for NULL srq. */
DOCA_STABLE void *doca_verbs_srq_get_dbr_addr(const struct doca_verbs_srq *verbs_srq);

/* ---- Address handle attributes ---------------------------------------------- */

/*
 * Makes / frees the address of a remote port, used by INIT->RTR and
 * RTS->RTS. Defaults: addr_type IPv6 (RoCE v2), hop_limit 64, all else 0.
 */
DOCA_STABLE doca_error_t doca_verbs_ah_attr_create(doca_dev_t *net_dev,
                                                   doca_verbs_ah_attr_t **ah_attr);
DOCA_STABLE doca_error_t doca_verbs_ah_attr_destroy(doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_gid(doca_verbs_ah_attr_t *ah_attr,
                                                    struct doca_verbs_gid gid);
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_addr_type(doca_verbs_ah_attr_t *ah_attr,
                                                          enum doca_verbs_addr_type addr_type);
/* Destination LID (IB): below 0x10000. */
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_dlid(doca_verbs_ah_attr_t *ah_attr, uint32_t dlid);
/* Service level: 0..15. */
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_sl(doca_verbs_ah_attr_t *ah_attr, uint8_t sl);
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_sgid_index(doca_verbs_ah_attr_t *ah_attr,
                                                           uint8_t sgid_index);
/* PRM static rate code: 0..15. */
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_static_rate(doca_verbs_ah_attr_t *ah_attr,
                                                            uint8_t static_rate);
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_hop_limit(doca_verbs_ah_attr_t *ah_attr,
                                                          uint8_t hop_limit);
DOCA_STABLE doca_error_t doca_verbs_ah_attr_set_traffic_class(doca_verbs_ah_attr_t *ah_attr,
                                                              uint8_t traffic_class);
/* Getters (zero values for NULL). */
DOCA_STABLE struct doca_verbs_gid doca_verbs_ah_get_gid(const doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE enum doca_verbs_addr_type
doca_verbs_ah_get_addr_type(const doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE uint32_t doca_verbs_ah_get_dlid(const doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE uint8_t doca_verbs_ah_get_sl(const doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE uint8_t doca_verbs_ah_get_sgid_index(const doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE uint8_t doca_verbs_ah_get_static_rate(const doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE uint8_t doca_verbs_ah_get_hop_limit(const doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE uint8_t doca_verbs_ah_get_traffic_class(const doca_verbs_ah_attr_t *ah_attr);

/* ---- QP init attributes ---------------------------------------------------- */

/*
 * Makes / frees the creation attributes of a QP. Defaults: RC, one send and
 * one receive SGE, no inline data, DBR_VALID, internal memory and UAR.
 */
DOCA_STABLE doca_error_t
doca_verbs_qp_init_attr_create(doca_verbs_qp_init_attr_t **verbs_qp_init_attr);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_destroy(doca_verbs_qp_init_attr_t *qp_init_attr);
/* The device whose PD the QP belongs to (must be the device it is created on). */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_pd(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                        doca_dev_t *net_dev);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_send_cq(
        doca_verbs_qp_init_attr_t *qp_init_attr, doca_verbs_cq_t *send_cq);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_receive_cq(
        doca_verbs_qp_init_attr_t *qp_init_attr, doca_verbs_cq_t *receive_cq);
/* Non-zero: every send WQE asks for a CQE (the caller's WQEs carry the flag). */
DOCA_STABLE doca_error_t
doca_verbs_qp_init_attr_set_sq_sig_all(doca_verbs_qp_init_attr_t *qp_init_attr, int sq_sig_all);
/* Send / receive work requests; rounded up to powers of two. rq_wr 0: no receive queue. */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_sq_wr(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                           uint32_t sq_wr);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_rq_wr(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                           uint32_t rq_wr);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_send_max_sges(
        doca_verbs_qp_init_attr_t *qp_init_attr, uint32_t send_max_sges);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_receive_max_sges(
        doca_verbs_qp_init_attr_t *qp_init_attr, uint32_t receive_max_sges);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_max_inline_data(
        doca_verbs_qp_init_attr_t *qp_init_attr, uint32_t max_inline_data);
/* 24-bit user index written into the QP's CQEs. */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_user_index(
        doca_verbs_qp_init_attr_t *qp_init_attr, uint32_t user_index);
/* DOCA_VERBS_QP_TYPE_RC only. */
DOCA_STABLE doca_error_t
doca_verbs_qp_init_attr_set_qp_type(doca_verbs_qp_init_attr_t *qp_init_attr, uint32_t qp_type);
/*
 * Work queue (RQ, then SQ) in a caller's UMEM at an offset (64-byte
 * aligned). Must be paired with doca_verbs_qp_init_attr_set_external_umem_dbr().
 */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_external_umem(
        doca_verbs_qp_init_attr_t *qp_init_attr, doca_verbs_umem_t *external_umem,
        uint64_t external_umem_offset);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_get_external_umem(
        const doca_verbs_qp_init_attr_t *qp_init_attr, doca_verbs_umem_t **external_umem,
        uint64_t *external_umem_offset);
/* Doorbell record (8 bytes, 8-byte aligned offset) in a caller's UMEM. */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_external_umem_dbr(
        doca_verbs_qp_init_attr_t *qp_init_attr, doca_verbs_umem_t *external_umem,
        uint64_t external_umem_offset);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_external_uar(
        doca_verbs_qp_init_attr_t *qp_init_attr, doca_verbs_uar_t *external_uar);
DOCA_STABLE doca_error_t
doca_verbs_qp_init_attr_set_qp_context(doca_verbs_qp_init_attr_t *qp_init_attr, void *qp_context);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_srq(doca_verbs_qp_init_attr_t *qp_init_attr,
                                                         struct doca_verbs_srq *srq);
/* Core-direct master QP; doca_verbs_qp_create() answers NOT_SUPPORTED where the device can't. */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_core_direct_master(
        doca_verbs_qp_init_attr_t *qp_init_attr, uint8_t core_direct_master);
/* NO_DBR_EXT needs the device's support (or emulate_no_dbr_ext). */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_send_dbr_mode(
        doca_verbs_qp_init_attr_t *qp_init_attr, enum doca_verbs_qp_send_dbr_mode send_dbr_mode);
DOCA_STABLE doca_error_t
doca_verbs_qp_init_attr_get_send_dbr_mode(const doca_verbs_qp_init_attr_t *qp_init_attr,
                                          enum doca_verbs_qp_send_dbr_mode *send_dbr_mode);
/*
 * With send_dbr_mode NO_DBR_EXT on a device without it: make the QP with a
 * doorbell record and let the data path behave as without one.
 */
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_emulate_no_dbr_ext(
        doca_verbs_qp_init_attr_t *qp_init_attr, bool emulate_no_dbr_ext);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_get_emulate_no_dbr_ext(
        const doca_verbs_qp_init_attr_t *qp_init_attr, bool *emulate_no_dbr_ext);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_set_ordering_semantic(
        doca_verbs_qp_init_attr_t *verbs_qp_init_attr,
        enum doca_verbs_qp_ordering_semantic ordering_semantic);
DOCA_STABLE doca_error_t doca_verbs_qp_init_attr_get_ordering_semantic(
        const doca_verbs_qp_init_attr_t *verbs_qp_init_attr,
        enum doca_verbs_qp_ordering_semantic *ordering_semantic);
/* Getters of the sizes (0 for NULL); doca_verbs_qp_query() fills them. */
DOCA_STABLE uint32_t
doca_verbs_qp_init_attr_get_sq_wr(const doca_verbs_qp_init_attr_t *qp_init_attr);
DOCA_STABLE uint32_t
doca_verbs_qp_init_attr_get_rq_wr(const doca_verbs_qp_init_attr_t *qp_init_attr);
DOCA_STABLE uint32_t
doca_verbs_qp_init_attr_get_send_max_sges(const doca_verbs_qp_init_attr_t *qp_init_attr);
DOCA_STABLE uint32_t
doca_verbs_qp_init_attr_get_receive_max_sges(const doca_verbs_qp_init_attr_t *qp_init_attr);
DOCA_STABLE uint32_t
doca_verbs_qp_init_attr_get_max_inline_data(const doca_verbs_qp_init_attr_t *qp_init_attr);
DOCA_STABLE uint32_t
doca_verbs_qp_init_attr_get_qp_type(const doca_verbs_qp_init_attr_t *qp_init_attr);

/* ---- QP attributes ----------------------------------------------------------- */

/* Makes / frees a QP attribute object (all zero). */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_create(doca_verbs_qp_attr_t **verbs_qp_attr);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_destroy(doca_verbs_qp_attr_t *qp_attr);
/* Setters; each refuses values outside the field's range with INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_next_state(doca_verbs_qp_attr_t *qp_attr,
                                                           enum doca_verbs_qp_state next_state);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_current_state(
        doca_verbs_qp_attr_t *qp_attr, enum doca_verbs_qp_state current_state);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_path_mtu(doca_verbs_qp_attr_t *qp_attr,
                                                         enum doca_verbs_mtu_size path_mtu);
/* PSNs and QP numbers are 24-bit. */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_rq_psn(doca_verbs_qp_attr_t *qp_attr,
                                                       uint32_t rq_psn);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_sq_psn(doca_verbs_qp_attr_t *qp_attr,
                                                       uint32_t sq_psn);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_dest_qp_num(doca_verbs_qp_attr_t *qp_attr,
                                                            uint32_t dest_qp_num);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_allow_remote_write(doca_verbs_qp_attr_t *qp_attr,
                                                                   int allow_remote_write);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_allow_remote_read(doca_verbs_qp_attr_t *qp_attr,
                                                                  int allow_remote_read);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_atomic_mode(
        doca_verbs_qp_attr_t *qp_attr, enum doca_verbs_qp_atomic_mode allow_atomic_type);
/* Copies the address handle's values (the AH object may be destroyed afterwards). */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_ah_attr(doca_verbs_qp_attr_t *qp_attr,
                                                        doca_verbs_ah_attr_t *ah_attr);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_pkey_index(doca_verbs_qp_attr_t *qp_attr,
                                                           uint16_t pkey_index);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_port_num(doca_verbs_qp_attr_t *qp_attr,
                                                         uint16_t port_num);
/* 0..31 (4.096 us * 2^ack_timeout). */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_ack_timeout(doca_verbs_qp_attr_t *qp_attr,
                                                            uint16_t ack_timeout);
/* 0..7 each. */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_retry_cnt(doca_verbs_qp_attr_t *qp_attr,
                                                          uint16_t retry_cnt);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_rnr_retry(doca_verbs_qp_attr_t *qp_attr,
                                                          uint16_t rnr_retry);
/* 0..31 (IB encoded). */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_min_rnr_timer(doca_verbs_qp_attr_t *qp_attr,
                                                              uint16_t min_rnr_timer);
/* Outstanding reads/atomics (rounded up to a power of two; checked against the device). */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_max_rd_atomic(doca_verbs_qp_attr_t *qp_attr,
                                                              uint8_t max_rd_atomic);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_max_dest_rd_atomic(doca_verbs_qp_attr_t *qp_attr,
                                                                   uint8_t max_dest_rd_atomic);
/*
 * The LAG port (1..num_lag_ports) the QP transmits on, with
 * DOCA_VERBS_QP_ATTR_LAG_TX_PORT_AFFINITY in the modify mask at RST->INIT
 * (INIT->RTR where the device cannot at INIT) or RTS->RTS; the modify
 * answers NOT_SUPPORTED on a device without LAG port affinity.
 */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_lag_tx_port_affinity(doca_verbs_qp_attr_t *qp_attr,
                                                                     uint8_t lag_tx_port_affinity);
/*
 * The Q-counter set (0..255, allocated with ALLOC_Q_COUNTER) the QP counts
 * in; sent with every later transition that carries a QP context (no mask bit).
 */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_counter_set_id(doca_verbs_qp_attr_t *qp_attr,
                                                               uint32_t counter_set_id);
/* Congestion-control groups need the DOCA SDK: NOT_SUPPORTED (as DOCA's open source answers). */
DOCA_STABLE doca_error_t doca_verbs_qp_attr_set_cc_group(doca_verbs_qp_attr_t *verbs_qp_attr,
                                                         doca_verbs_cc_group_t *cc_group);
/* Getters (zero for NULL); doca_verbs_qp_query() fills them. */
DOCA_STABLE enum doca_verbs_qp_state
doca_verbs_qp_attr_get_next_state(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE doca_error_t doca_verbs_qp_attr_get_current_state(
        doca_verbs_qp_attr_t *qp_attr, enum doca_verbs_qp_state *current_state);
DOCA_STABLE enum doca_verbs_mtu_size
doca_verbs_qp_attr_get_path_mtu(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint32_t doca_verbs_qp_attr_get_rq_psn(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint32_t doca_verbs_qp_attr_get_sq_psn(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint32_t doca_verbs_qp_attr_get_dest_qp_num(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE int doca_verbs_qp_attr_get_allow_remote_write(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE int doca_verbs_qp_attr_get_allow_remote_read(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE enum doca_verbs_qp_atomic_mode
doca_verbs_qp_attr_get_atomic_mode(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint16_t doca_verbs_qp_attr_get_pkey_index(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint16_t doca_verbs_qp_attr_get_port_num(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint16_t doca_verbs_qp_attr_get_ack_timeout(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint16_t doca_verbs_qp_attr_get_retry_cnt(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint16_t doca_verbs_qp_attr_get_rnr_retry(const doca_verbs_qp_attr_t *qp_attr);
DOCA_STABLE uint16_t doca_verbs_qp_attr_get_min_rnr_timer(const doca_verbs_qp_attr_t *qp_attr);

/* ---- QP ------------------------------------------------------------------ */

/*
 * Creates an RC QP in RST (CREATE_QP). The work queue buffer holds the RQ
 * (stride 16 * receive SGEs rounded up to a power of two) followed by the
 * SQ (64-byte basic blocks); without external UMEMs it is allocated in
 * page-aligned host memory with the doorbell record and registered.
 * Errors: INVALID_VALUE (missing CQ, sizes 0 or above the device's limits,
 * only one external UMEM, work queue outside its UMEM, PD of another
 * device), NOT_SUPPORTED (core-direct, NO_DBR_EXT the device lacks),
 * NO_MEMORY, DRIVER, or the refused command's code.
 */
DOCA_STABLE doca_error_t doca_verbs_qp_create(doca_dev_t *net_dev,
                                              doca_verbs_qp_init_attr_t *qp_init_attr,
                                              doca_verbs_qp_t **verbs_qp);
/* Destroys a QP (any state) and drops its uses of CQs, UMEMs, UAR and SRQ; IN_USE while exported.
 */
DOCA_STABLE doca_error_t doca_verbs_qp_destroy(doca_verbs_qp_t *verbs_qp);
/*
 * Moves the QP to another state with the attributes of attr selected by
 * attr_mask (the table above DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE). An
 * illegal transition, a missing required bit or a bit the transition does
 * not take answers INVALID_VALUE; a CURRENT_STATE other than the QP's
 * answers BAD_STATE; both before anything reaches the device.
 */
DOCA_STABLE doca_error_t doca_verbs_qp_modify(doca_verbs_qp_t *verbs_qp,
                                              doca_verbs_qp_attr_t *qp_attr, int attr_mask);
/*
 * Reads the QP's context back (QUERY_QP) into qp_attr, and its creation
 * attributes into qp_init_attr. attr_mask, when not NULL, receives the mask
 * of the attributes filled in.
 */
DOCA_STABLE doca_error_t doca_verbs_qp_query(doca_verbs_qp_t *verbs_qp,
                                             doca_verbs_qp_attr_t *qp_attr,
                                             doca_verbs_qp_init_attr_t *qp_init_attr,
#ifdef __cplusplus
                                             int *attr_mask = nullptr);
#else
                                             int *attr_mask);
#endif
/* The SQ and RQ rings, their entries and the receive WQE size. */
DOCA_STABLE doca_error_t doca_verbs_qp_get_wq(const doca_verbs_qp_t *verbs_qp, void **sq_buf,
                                              uint32_t *sq_num_entries, void **rq_buf,
                                              uint32_t *rq_num_entries, uint32_t *rwqe_size_bytes);
/* The doorbell record: word 0 the receive counter, word 1 the send counter (big-endian). */
DOCA_STABLE doca_error_t doca_verbs_qp_get_dbr_addr(const doca_verbs_qp_t *verbs_qp,
                                                    void **dbr_addr);
/* The send doorbell / BlueFlame register of the QP's UAR. */
DOCA_STABLE doca_error_t doca_verbs_qp_get_uar_addr(const doca_verbs_qp_t *verbs_qp,
                                                    void **uar_addr);
DOCA_STABLE doca_error_t doca_verbs_qp_get_qpn(const doca_verbs_qp_t *verbs_qp, uint32_t *qpn);
/* Whether the QP was made with a doorbell record to emulate NO_DBR_EXT; false for NULL. */
DOCA_STABLE bool doca_verbs_qp_get_emulate_no_dbr_ext(const doca_verbs_qp_t *verbs_qp);

/*
 * Calls removed in DOCA 3.0. Declared only so that a program written for
 * the 2.0 generation stops at the call with the replacement named (GCC and
 * Clang's error attribute), not at an implicit declaration or a link error.
 */
#if defined(__GNUC__) || defined(__clang__)
#define DOCA_VERBS_REMOVED(what) __attribute__((__error__("removed in DOCA 3.0: " what)))
int doca_verbs_qp_attr_set_allow_remote_atomic(const void *first, ...)
        DOCA_VERBS_REMOVED("use doca_verbs_qp_attr_set_atomic_mode(), with "
                           "DOCA_VERBS_QP_ATTR_ATOMIC_MODE in the modify mask");
int doca_verbs_qp_attr_get_allow_remote_atomic(const void *first, ...)
        DOCA_VERBS_REMOVED("use doca_verbs_qp_attr_get_atomic_mode()");
int doca_verbs_qp_init_attr_get_pd(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the doca_dev_t given to doca_verbs_qp_init_attr_set_pd()");
int doca_verbs_qp_attr_get_ah_attr(const void *first, ...) DOCA_VERBS_REMOVED(
        "keep the doca_verbs_ah_attr_t given to doca_verbs_qp_attr_set_ah_attr()");
int doca_verbs_qp_init_attr_set_external_dbr_umem(const void *first, ...)
        DOCA_VERBS_REMOVED("use doca_verbs_qp_init_attr_set_external_umem_dbr()");
int doca_verbs_qp_init_attr_get_external_uar(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the UAR given to doca_verbs_qp_init_attr_set_external_uar()");
int doca_verbs_qp_init_attr_get_send_cq(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the CQ given to doca_verbs_qp_init_attr_set_send_cq()");
int doca_verbs_qp_init_attr_get_receive_cq(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the CQ given to doca_verbs_qp_init_attr_set_receive_cq()");
int doca_verbs_qp_init_attr_get_sq_sig_all(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the value given to doca_verbs_qp_init_attr_set_sq_sig_all()");
int doca_verbs_qp_init_attr_get_user_index(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the value given to doca_verbs_qp_init_attr_set_user_index()");
int doca_verbs_qp_init_attr_get_qp_context(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the pointer given to doca_verbs_qp_init_attr_set_qp_context()");
int doca_verbs_qp_init_attr_get_srq(const void *first, ...)
        DOCA_VERBS_REMOVED("keep the SRQ given to doca_verbs_qp_init_attr_set_srq()");
int doca_verbs_qp_init_attr_get_core_direct_master(const void *first, ...) DOCA_VERBS_REMOVED(
        "keep the value given to doca_verbs_qp_init_attr_set_core_direct_master()");
#undef DOCA_VERBS_REMOVED
#endif

#ifdef __cplusplus
}
#endif

/* As DOCA's doca_verbs.h: the GPUNetIO host calls come with it. */
#include "doca_gpunetio.h"

#endif /* DOCA_VERBS_H */
