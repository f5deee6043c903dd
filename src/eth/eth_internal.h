/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of src/eth share: the DOCA core objects the Ethernet path
 * needs (devinfo and device registry in dev.c, contexts in ctx.c, memory
 * maps in mmap.c, buffer arrays in buf_arr.c), the device capabilities the
 * queues and their cap calls read (caps.c), queue memory (queue_mem.c), and
 * the queues (rxq.c, txq.c, what they share in queue.c) and steering (flow.c).
 *
 * These objects live in src/eth rather than src/core: src/core is the layer
 * below everything (errors, log, dlopen tables), while these are made of
 * DOCA Verbs devices, UMEMs and CQs (src/verbs) and GPU contexts and memory
 * (src/gpunetio).
 */
#ifndef ETH_INTERNAL_H
#define ETH_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/log.h"
#include "core/rdma.h"
#include "doca_buf_array.h"
#include "doca_ctx.h"
#include "doca_dev.h"
#include "doca_eth_rxq.h"
#include "doca_eth_rxq_gpu_data_path.h"
#include "doca_eth_txq.h"
#include "doca_eth_txq_gpu_data_path.h"
#include "doca_gpunetio.h"
#include "doca_gpunetio_eth_flow.h"
#include "doca_mmap.h"
#include "verbs/verbs_internal.h"

/* ---- Capabilities (caps.c) ------------------------------------------------------------------- */

struct eth_caps {
    bool eth_link;         /* port 1's link layer is Ethernet */
    bool eth_net_offloads; /* general cap: raw Ethernet queues (RQ/SQ/TIR/TIS) */
    bool nic_flow_table;   /* general cap: NIC receive steering */
    bool csum_cap;         /* Ethernet offloads: L3/L4 checksums */
    bool mac_valid;        /* QUERY_NIC_VPORT_CONTEXT answered */
    bool q_counters;       /* general cap max_qp_cnt > 0: ALLOC_Q_COUNTER */
    uint8_t mac[6];
    uint32_t mtu;            /* the vport's MTU (0: unknown) */
    uint8_t log_max_wq_sz;   /* WQEs of an RQ or SQ */
    uint8_t log_max_cq_sz;   /* CQEs of a CQ */
    uint8_t log_max_rqt_sz;  /* general cap log_max_rqt_size: RQs an RQT holds */
    uint8_t wqe_inline_mode; /* PRM_ETH_CAP_INLINE_MODE_* */
};

/* ---- Devices (dev.c) ------------------------------------------------------------------------- */

struct doca_devinfo {
    struct ibv_device *ibdev;
    char ibdev_name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
    pthread_mutex_t lock; /* the probe below */
    bool probed;
    doca_error_t probe_err;
    struct eth_caps caps;
};

/* A device doca_dev_open() opened: its context, PD and transport domain. */
struct eth_dev {
    doca_dev_t *dev;
    struct doca_devinfo info; /* a copy, valid while the device is open */
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    int refs;                   /* opens not yet closed (under the registry lock) */
    struct mlx5dv_devx_obj *td; /* transport domain, made with the first queue */
    uint32_t tdn;
    struct eth_dev *next;
};

/* The entry of a device doca_dev_open() made; NULL (logged naming `call`) for another. */
struct eth_dev *eth_dev_of(doca_dev_t *dev, const char *call);
/* The device's transport domain (made on first use). */
doca_error_t eth_dev_td(struct eth_dev *edev, uint32_t *tdn);
/* Probes the device once (opening a context when ctx is NULL) and gives its capabilities. */
doca_error_t eth_devinfo_caps(const struct doca_devinfo *devinfo, const struct eth_caps **caps);
/* Reads the capabilities of an open context (caps.c). */
doca_error_t eth_caps_query(struct ibv_context *ctx, struct eth_caps *caps);

/* ---- Contexts (ctx.c) ------------------------------------------------------------------------ */

struct eth_ctx_ops {
    const char *kind; /* "doca_eth_rxq" */
    doca_error_t (*start)(struct doca_ctx *ctx);
    doca_error_t (*stop)(struct doca_ctx *ctx);
};

struct doca_ctx {
    const struct eth_ctx_ops *ops;
    enum doca_ctx_states state;
    bool datapath_set; /* doca_ctx_set_datapath_on_gpu called */
    doca_gpu_t *gpu;   /* NULL: CPU threads run the data path */
};

void eth_ctx_init(struct doca_ctx *ctx, const struct eth_ctx_ops *ops);
/* SUCCESS while IDLE; BAD_STATE (logged naming call and the order) otherwise. */
doca_error_t eth_ctx_idle(const struct doca_ctx *ctx, const char *call);

/* ---- Memory maps (mmap.c) -------------------------------------------------------------------- */

#define ETH_MMAP_MAX_DEVS 8

struct eth_mmap_dev {
    doca_dev_t *dev;
    struct ibv_mr *mr; /* while started */
};

struct doca_mmap {
    void *addr;
    size_t len;
    bool range_set;
    bool gpu;      /* the range is GPU memory */
    int dmabuf_fd; /* -1: none (a dup of the caller's) */
    size_t dmabuf_offset;
    uint32_t access;
    bool started;
    uint32_t ndevs;
    struct eth_mmap_dev devs[ETH_MMAP_MAX_DEVS];
    atomic_int users; /* started queues and buffer arrays using it */
    atomic_int refs;  /* queues and buffer arrays configured with it (destroy: IN_USE) */
};

/* The memory key of mmap on dev (started map); false when dev was not added. */
bool eth_mmap_lkey(const struct doca_mmap *mmap, const doca_dev_t *dev, uint32_t *lkey);
/* Whether addr is GPU memory (asks the CUDA driver when usable). */
bool eth_addr_is_gpu(const void *addr);

/* ---- Queue memory (queue_mem.c) -------------------------------------------------------------- */

enum eth_mem_kind {
    ETH_MEM_HOST,   /* malloc'd host memory (CPU threads) */
    ETH_MEM_PINNED, /* pinned host memory mapped for the GPU */
    ETH_MEM_GPU,    /* GPU memory */
};

/* One registered allocation holding a queue's ring, its CQ's ring and both doorbell records. */
struct eth_qmem {
    enum eth_mem_kind kind;
    doca_gpu_t *gpu;
    void *gpu_ptr; /* address the data path uses (host address for ETH_MEM_HOST) */
    void *cpu_ptr; /* host address, NULL for GPU memory */
    size_t size;
    doca_verbs_umem_t *umem;
    uint64_t wq_off, cq_off, wq_dbr_off, cq_dbr_off;
};

doca_error_t eth_qmem_alloc(doca_dev_t *dev, doca_gpu_t *gpu, enum eth_mem_kind kind,
                            size_t wq_bytes, size_t cq_bytes, struct eth_qmem *m);
void eth_qmem_free(struct eth_qmem *m);
/* Writes len bytes at off (a store, or a CUDA copy into GPU memory). */
doca_error_t eth_qmem_write(const struct eth_qmem *m, uint64_t off, const void *src, size_t len);
/* A CQ of 1 << log_size entries in m (overrun ignored: the data path never arms it). */
doca_error_t eth_qmem_cq(doca_dev_t *dev, const struct eth_qmem *m, uint32_t log_size,
                         doca_verbs_cq_t **cq);
/* The descriptor in GPU memory (gpu) or host memory (gpu NULL); eth_desc_free undoes it. */
doca_error_t eth_desc_place(doca_gpu_t *gpu, const void *desc, size_t size, const char *what,
                            void **out);
void eth_desc_free(doca_gpu_t *gpu, void *desc);
/* The CUDA axis: compute capability and dma-buf of gpu; NOT_SUPPORTED naming the attribute. */
doca_error_t eth_gpu_check(doca_gpu_t *gpu, const char *call);

/* ---- Queues (rxq.c, txq.c) and steering (flow.c) ----------------------------------------------
 */

struct doca_eth_rxq {
    struct doca_ctx ctx; /* first: doca_eth_rxq_as_doca_ctx */
    struct eth_dev *edev;
    uint32_t max_burst;
    uint32_t max_pkt;
    enum doca_eth_rxq_type type;
    enum doca_gpu_mem_type mtype; /* rings of a GPU data path */
    struct doca_mmap *mmap;
    uint32_t pkt_offset;
    uint32_t pkt_size;
    /* Started: */
    struct eth_qmem mem;
    doca_verbs_cq_t *cq;
    struct mlx5dv_devx_obj *rq;
    uint32_t rqn;
    struct mlx5dv_devx_obj *tir;
    uint32_t tirn;
    void *pkt_map;                /* host packet buffer mapped for the GPU (GPU address), or NULL */
    struct mlx5dv_devx_obj *qcnt; /* its Q counter (out_of_buffer), or NULL */
    uint32_t qcnt_id;
    uint64_t drops_before; /* out_of_buffer of earlier starts */
    struct doca_gpu_eth_rxq *handle;
    atomic_int flows; /* flows steering to it */
};

struct doca_eth_txq {
    struct doca_ctx ctx; /* first: doca_eth_txq_as_doca_ctx */
    struct eth_dev *edev;
    uint32_t max_burst;
    bool l3_csum;
    bool l4_csum;
    enum doca_gpu_mem_type mtype;
    /* Started: */
    struct eth_qmem mem;
    doca_verbs_cq_t *cq;
    doca_verbs_uar_t *uar;
    void *uar_map; /* the doorbell register mapped for the GPU, or NULL */
    struct mlx5dv_devx_obj *tis;
    uint32_t tisn;
    struct mlx5dv_devx_obj *sq;
    uint32_t sqn;
    struct doca_gpu_eth_txq *handle;
};

/* ---- What both queues share (queue.c) ---------------------------------------------------------
 * q: the queue's context, its first member (NULL for a NULL queue); name: the queue parameter's
 * name ("eth_rxq"); call: the DOCA call, named in the lines logged.
 */

/* SUCCESS for a queue being configured: not NULL and its context IDLE. */
doca_error_t eth_queue_settable(const struct doca_ctx *q, const char *name, const char *call);
/* eth_queue_settable, and count (of unit: "packets") not 0. */
doca_error_t eth_queue_settable_count(const struct doca_ctx *q, const char *name, const char *call,
                                      uint32_t count, const char *unit);
/* eth_queue_settable, and type a memory type the rings of a GPU data path may go in. */
doca_error_t eth_queue_settable_mem_type(const struct doca_ctx *q, const char *name,
                                         const char *call, enum doca_gpu_mem_type type);
/* q, or NULL (logged) for a NULL queue. */
struct doca_ctx *eth_queue_as_ctx(struct doca_ctx *q, const char *name, const char *call);
/* The end of a destroy (q not NULL): BAD_STATE for a started queue; else drops the packet
 * buffer's mmap (NULL: none) and the device, and frees the queue. */
doca_error_t eth_queue_destroy(struct doca_ctx *q, struct eth_dev *edev, struct doca_mmap *mmap,
                               const char *call);
/* get_gpu_handle's check (q not NULL): BAD_STATE unless started with a handle. */
doca_error_t eth_queue_gpu_handle(const struct doca_ctx *q, const void *handle, const char *call);
/* doca_ctx_start's checks: the device has Ethernet queues (dir "receive" or "send", cap_call the
 * cap call that says so), and max_burst WQEs (rounded up to 1 << *log_n) fit its queues. */
doca_error_t eth_queue_check_eth(const struct eth_caps *caps, const char *dev_name, const char *dir,
                                 const char *cap_call);
doca_error_t eth_queue_check_burst(const struct eth_caps *caps, const char *dev_name,
                                   uint32_t max_burst, const char *cap_call, uint32_t *log_n);
/* Where the rings go: host memory for CPU threads (gpu NULL), else by the queue's mtype. */
enum eth_mem_kind eth_queue_mem_kind(const doca_gpu_t *gpu, enum doca_gpu_mem_type mtype);
/* "GPU", "pinned host" or "host", for the start's log line. */
const char *eth_mem_kind_name(enum eth_mem_kind kind);
/* The queue memory (wq_bytes of ring, a CQ of 1 << log_n entries) and its CQ. */
doca_error_t eth_queue_rings(struct eth_dev *edev, doca_gpu_t *gpu, enum eth_mem_kind kind,
                             size_t wq_bytes, uint32_t log_n, struct eth_qmem *mem,
                             doca_verbs_cq_t **cq, uint32_t *cqn);

/* The RQ's direct TIR (started queue) for flow.c. */
static inline struct mlx5dv_devx_obj *eth_rxq_tir(const struct doca_eth_rxq *rxq)
{
    return rxq->tir;
}

static inline uint32_t eth_log2_ceil(uint64_t v)
{
    uint32_t l = 0;

    while (((uint64_t)1 << l) < v)
        l++;
    return l;
}

#endif /* ETH_INTERNAL_H */
