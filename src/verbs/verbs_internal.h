/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DOCA Verbs objects and what the files of src/verbs share: the DevX
 * command calls (one place logging a refused command through prm_status),
 * memory placement (host or GPU) and reference counts.
 *
 * Reference counts: an object counts the objects using it (`users`);
 * destroying one with users answers DOCA_ERROR_IN_USE. Counts are atomic so
 * that objects of one device may be made and destroyed from several threads;
 * one object is not to be destroyed while another thread uses it.
 */
#ifndef VERBS_INTERNAL_H
#define VERBS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/log.h"
#include "core/rdma.h"
#include "doca_verbs.h"

#define VERBS_PAGE_SIZE 4096u
#define VERBS_CQE_SIZE  64u
#define VERBS_SQ_STRIDE 64u /* send WQE basic block */
#define VERBS_RQ_UNIT   16u /* receive data segment */
#define VERBS_DBR_SIZE  64u /* room for a doorbell record (8 bytes used), one cache line */

/* What QUERY_HCA_CAP (general and general-2) and the port tell us, kept by the device. */
struct verbs_caps {
    uint8_t log_max_qp;
    uint8_t log_max_qp_sz;
    uint8_t log_max_cq;
    uint8_t log_max_cq_sz;
    uint8_t log_max_srq;
    uint8_t log_max_srq_sz;
    uint8_t log_max_pd;
    uint8_t log_max_mkey;
    uint8_t log_max_ra_req_qp;
    uint8_t log_max_ra_res_qp;
    uint8_t log_max_msg;
    uint8_t num_ports;
    uint16_t pkey_table_size;
    uint32_t max_wqe_sz_sq;
    uint32_t max_wqe_sz_rq;
    bool rc;
    bool atomic;
    bool cq_oi;
    bool no_dbr_ext;
    bool lag_tx_port_affinity;       /* a QP's LAG port can be chosen */
    bool init2_lag_tx_port_affinity; /* ... at RST->INIT (INIT->RTR otherwise) */
    bool rts2rts_lag_tx_port_affinity;
    uint8_t num_lag_ports;
};

struct doca_dev {
    struct ibv_pd *pd;
    struct ibv_context *ctx;
    uint32_t pdn;
    uint32_t eqn; /* completion event queue of vector 0 */
    struct verbs_caps caps;
    atomic_int users;
};

struct doca_verbs_device_attr {
    struct verbs_caps caps;
    uint32_t max_ah;
};

struct doca_verbs_umem {
    doca_dev_t *dev;
    struct mlx5dv_devx_umem *umem;
    void *addr;
    size_t size;
    bool gpu; /* GPU memory: the host reaches it through the CUDA driver only */
    atomic_int users;
};

struct doca_verbs_uar {
    doca_dev_t *dev;
    struct mlx5dv_devx_uar *uar;
    enum doca_verbs_uar_allocation_type type;
    atomic_int users;
};

/* Memory a CQ, QP or SRQ lives in: a caller's UMEM, or one the object made. */
struct verbs_buf {
    doca_verbs_umem_t *umem; /* the UMEM used (held: users incremented) */
    uint64_t offset;
    bool internal; /* umem and its host memory belong to the object */
};

struct doca_verbs_cq_attr {
    uint32_t cq_size;
    void *cq_context;
    doca_verbs_umem_t *umem;
    uint64_t umem_offset;
    doca_verbs_umem_t *dbr_umem;
    uint64_t dbr_umem_offset;
    doca_verbs_uar_t *uar;
    enum doca_verbs_cq_overrun overrun;
    uint8_t collapsed;
    doca_verbs_comp_channel_t *comp_channel;
    enum doca_verbs_cq_state st;
};

struct doca_verbs_cq_t {
    doca_dev_t *dev;
    struct mlx5dv_devx_obj *obj;
    uint32_t cqn;
    uint32_t log_size;
    void *cq_context;
    struct verbs_buf ring;
    struct verbs_buf dbr;
    doca_verbs_uar_t *uar;
    bool internal_uar;
    bool collapsed;      /* every CQE is written to entry 0 */
    bool overrun_ignore; /* made with DOCA_VERBS_CQ_ENABLE_OVERRUN */
    uint32_t dp_base;    /* entry of the data path's CQE number 0 (verbs_cq_rebase) */
    uint8_t dp_owner;    /* the owner bit the NIC writes that CQE with */
    atomic_int users;
    /* Completion events (comp_channel.c) */
    doca_verbs_comp_channel_t *comp_channel;
    uint64_t event_cookie;      /* names this CQ in the channel's events */
    atomic_uint arm_sn;         /* arms so far: the doorbell's sequence number */
    atomic_uint events_unacked; /* delivered, not acknowledged yet */
};

struct doca_verbs_srq_init_attr {
    uint32_t srq_wr;
    uint32_t receive_max_sges;
    enum doca_verbs_srq_type type;
    struct ibv_pd *pd;
    doca_verbs_umem_t *umem;
    uint64_t umem_offset;
};

struct doca_verbs_srq {
    struct ibv_context *ctx;
    doca_dev_t *dev; /* opened on the attributes' PD, for the SRQ's memory */
    struct mlx5dv_devx_obj *obj;
    uint32_t srqn;
    uint32_t log_size;
    uint32_t stride;
    struct verbs_buf wq;
    void *buf; /* host address of the ring (or GPU address) */
    void *dbr;
    atomic_int users;
};

struct doca_verbs_ah_attr_t {
    struct doca_verbs_gid gid;
    enum doca_verbs_addr_type addr_type;
    uint32_t dlid;
    uint8_t sl;
    uint8_t sgid_index;
    uint8_t static_rate;
    uint8_t hop_limit;
    uint8_t traffic_class;
};

struct doca_verbs_qp_init_attr {
    doca_dev_t *pd_dev;
    doca_verbs_cq_t *send_cq;
    doca_verbs_cq_t *receive_cq;
    int sq_sig_all;
    uint32_t sq_wr;
    uint32_t rq_wr;
    uint32_t send_max_sges;
    uint32_t receive_max_sges;
    uint32_t max_inline_data;
    uint32_t user_index;
    uint32_t qp_type;
    doca_verbs_umem_t *umem;
    uint64_t umem_offset;
    doca_verbs_umem_t *dbr_umem;
    uint64_t dbr_umem_offset;
    doca_verbs_uar_t *uar;
    void *qp_context;
    struct doca_verbs_srq *srq;
    uint8_t core_direct_master;
    enum doca_verbs_qp_send_dbr_mode send_dbr_mode;
    bool emulate_no_dbr_ext;
    enum doca_verbs_qp_ordering_semantic ordering_semantic; /* recorded; placement is in order */
};

struct doca_verbs_qp_attr {
    enum doca_verbs_qp_state next_state;
    enum doca_verbs_qp_state current_state;
    enum doca_verbs_mtu_size path_mtu;
    uint32_t rq_psn;
    uint32_t sq_psn;
    uint32_t dest_qp_num;
    int allow_remote_write;
    int allow_remote_read;
    enum doca_verbs_qp_atomic_mode atomic_mode;
    struct doca_verbs_ah_attr_t ah;
    uint16_t pkey_index;
    uint16_t port_num;
    uint16_t ack_timeout;
    uint16_t retry_cnt;
    uint16_t rnr_retry;
    uint16_t min_rnr_timer;
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
    uint8_t lag_tx_port_affinity; /* DOCA_VERBS_QP_ATTR_LAG_TX_PORT_AFFINITY: 1..num_lag_ports */
    bool counter_set_id_set;      /* counter_set_id goes with every transition that carries it */
    uint8_t counter_set_id;
};

/* Where a QP's queues are, for the layers above (GPU handles, proxies). */
struct verbs_qp_layout {
    void *wq;              /* RQ then SQ */
    void *sq;              /* wq + rq_bytes */
    void *rq;              /* wq */
    uint32_t sq_wqebb_cnt; /* 64-byte basic blocks */
    uint32_t rq_wqe_cnt;
    uint32_t rq_stride;
    size_t sq_bytes;
    size_t rq_bytes;
    uint32_t *dbr; /* [0] receive counter, [1] send counter, big-endian */
    void *uar_reg; /* send doorbell / BlueFlame register */
    uint32_t uar_page_id;
    bool gpu; /* rings in GPU memory */
};

struct doca_verbs_qp_t {
    doca_dev_t *dev;
    struct mlx5dv_devx_obj *obj;
    uint32_t qpn;
    struct doca_verbs_qp_init_attr init; /* as created (sizes as asked) */
    enum doca_verbs_qp_state state;      /* as last set by doca_verbs_qp_modify() */
    uint8_t port_num;                    /* set at RST->INIT, used in address paths */
    struct verbs_qp_layout layout;
    uint32_t log_sq_size; /* in basic blocks */
    uint32_t log_rq_size;
    struct verbs_buf wq;
    struct verbs_buf dbr;
    doca_verbs_uar_t *uar;
    bool internal_uar;
    bool no_dbr;      /* made with send_dbr_mode NO_DBR_EXT */
    bool emulated;    /* NO_DBR_EXT asked, emulated with a doorbell record */
    atomic_int users; /* exports to the data path (src/gpunetio) */
};

/* ---- DevX commands (devx.c in dev.c) ---- */

/* rdma-core's tables; logs and answers NOT_SUPPORTED when rdma-core is missing. */
doca_error_t verbs_rdma(const struct core_ibv_ops **ibv, const struct core_mlx5dv_ops **mlx5);

/*
 * Runs a general command (queries). A device refusal is logged once, with
 * the command's name, status and syndrome, and mapped through prm_status;
 * a failure without a status (errno only) answers DRIVER.
 */
doca_error_t verbs_devx_general(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
                                size_t outlen);
doca_error_t verbs_devx_create(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
                               size_t outlen, struct mlx5dv_devx_obj **obj_out);
doca_error_t verbs_devx_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
                               size_t outlen);
doca_error_t verbs_devx_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
                              size_t outlen);
/* what: "CQ 0x12" for the log line. EBUSY answers IN_USE. */
doca_error_t verbs_devx_destroy(struct mlx5dv_devx_obj *obj, const char *what, uint32_t id);

/* Reads the general and general-2 capabilities of a context. */
doca_error_t verbs_query_caps(struct ibv_context *ctx, struct verbs_caps *caps);
/* QUERY_HCA_CAP of one group (PRM_HCA_CAP_TYPE_*, current values) into out's
 * PRM_QUERY_HCA_CAP_OUT_SIZE bytes. */
doca_error_t verbs_query_cap_group(struct ibv_context *ctx, unsigned int type, uint8_t *out);

/* ---- Memory (umem.c) ---- */

enum verbs_mem {
    VERBS_MEM_HOST,
    VERBS_MEM_GPU,
    VERBS_MEM_UNKNOWN, /* a dma-buf means GPU; otherwise the CUDA driver is asked, if usable */
};

/* Registers a UMEM over host or GPU memory. */
doca_error_t verbs_umem_make(doca_dev_t *dev, void *addr, size_t size, uint32_t access,
                             int dmabuf_fd, size_t dmabuf_offset, enum verbs_mem placement,
                             doca_verbs_umem_t **out);

/*
 * Allocates `size` bytes of zeroed page-aligned host memory and registers
 * it as a UMEM held by buf (internal). Undo with verbs_buf_release().
 */
doca_error_t verbs_buf_alloc(doca_dev_t *dev, size_t size, struct verbs_buf *buf);

/*
 * Uses a caller's UMEM for [offset, offset + len), aligned to `align`:
 * INVALID_VALUE (logged, naming `what`) when the range does not fit.
 */
doca_error_t verbs_buf_external(doca_verbs_umem_t *umem, uint64_t offset, size_t len, size_t align,
                                const char *what, struct verbs_buf *buf);
void verbs_buf_release(struct verbs_buf *buf);

/* Address of the first byte of buf (host or GPU address). */
static inline void *verbs_buf_addr(const struct verbs_buf *buf)
{
    return (uint8_t *)buf->umem->addr + buf->offset;
}

/* Writes len bytes at buf + off: a store on the host, a CUDA copy into GPU memory. */
doca_error_t verbs_buf_write(const struct verbs_buf *buf, uint64_t off, const void *src,
                             size_t len);

/* Reads len bytes at buf + off: a load on the host, a CUDA copy out of GPU memory. */
doca_error_t verbs_buf_read(const struct verbs_buf *buf, uint64_t off, void *dst, size_t len);

/* Marks every CQE of cq invalid and zeroes its doorbell record (cq.c; at creation and reset). */
doca_error_t verbs_cq_init_memory(doca_verbs_cq_t *cq);

/*
 * Moves cq->dp_base to the entry the NIC writes its next CQE to, and
 * dp_owner to that CQE's owner bit, found from the CQEs written since
 * dp_base (cq.c). Run before the ring is marked
 * invalid again when a QP's data-path tracking is reset: the NIC's CQ
 * producer does not go back to 0 with a QP, so CQE number 0 of the new
 * incarnation lands there.
 */
doca_error_t verbs_cq_rebase(doca_verbs_cq_t *cq);

/* ---- Completion channels (comp_channel.c) ---- */

/* Subscribes cq's completion events to ch (cq->obj made, cq->comp_channel set by the caller). */
doca_error_t verbs_comp_channel_attach(doca_verbs_comp_channel_t *ch, doca_verbs_cq_t *cq);
/* Forgets cq: its later or still queued events are dropped. */
void verbs_comp_channel_detach(doca_verbs_comp_channel_t *ch, doca_verbs_cq_t *cq);
/*
 * The CQ of the next event (non-blocking: AGAIN when there is none).
 * count: the event is to be acknowledged (doca_verbs_ack_cq_events()).
 */
doca_error_t verbs_comp_channel_next(doca_verbs_comp_channel_t *ch, bool count,
                                     doca_verbs_cq_t **cq_out);

/*
 * Arms cq for one event on its next solicited or error CQE, as software
 * arms a ConnectX CQ: the arm word of the doorbell record (a CUDA copy when
 * it is in GPU memory), then the UAR's CQ doorbell (cq.c).
 */
doca_error_t verbs_cq_arm_solicited(doca_verbs_cq_t *cq);

/* ---- Traffic class (traffic_class.c) ---- */

/* The N of a "Global tclass=N" line (0..255); NOT_FOUND without one. */
doca_error_t verbs_parse_traffic_class(const char *text, uint8_t *tclass);

/* ---- UAR (uar.c) ---- */

/* The UAR to use: the caller's (held), or a new one (internal). */
doca_error_t verbs_uar_take(doca_dev_t *dev, doca_verbs_uar_t *external, doca_verbs_uar_t **uar,
                            bool *internal);
void verbs_uar_drop(doca_verbs_uar_t *uar, bool internal);

/* The CQ doorbell (arm) register of a UAR page. */
void *verbs_uar_cq_db(const doca_verbs_uar_t *uar);

/* ---- Helpers ---- */

static inline uint32_t verbs_log2_ceil(uint64_t v)
{
    uint32_t log = 0;

    while (((uint64_t)1 << log) < v)
        log++;
    return log;
}

static inline uint64_t verbs_align_up(uint64_t v, uint64_t align)
{
    return (v + align - 1) / align * align;
}

/* The device holds one more object / one fewer. */
static inline void verbs_dev_hold(doca_dev_t *dev)
{
    atomic_fetch_add(&dev->users, 1);
}

static inline void verbs_dev_put(doca_dev_t *dev)
{
    atomic_fetch_sub(&dev->users, 1);
}

/* "RST", "INIT"... for log lines. */
const char *verbs_qp_state_name(enum doca_verbs_qp_state state);

/* A QP's layout (for later layers); false for NULL. */
bool verbs_qp_get_layout(const doca_verbs_qp_t *qp, struct verbs_qp_layout *layout);

/* Drops the uses a QP made of an SRQ (srq.c owns the count). */
void verbs_srq_hold(struct doca_verbs_srq *srq);
void verbs_srq_put(struct doca_verbs_srq *srq);
uint32_t verbs_srq_number(const struct doca_verbs_srq *srq);

#endif /* VERBS_INTERNAL_H */
