/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO host API: the GPU context, GPU-visible memory, and the
 * export of DOCA Verbs QPs to the data path (a CUDA kernel, or CPU threads
 * running the same data-path core), with the NIC handler that rings their
 * doorbells.
 *
 * Conventions are those of doca_verbs.h: every call returns a doca_error_t
 * and logs one line saying what was wrong; a NULL object or output pointer is
 * DOCA_ERROR_INVALID_VALUE; nothing is written to outputs on failure. The
 * CUDA driver is loaded at run time: where it is missing, calls that need it
 * answer DOCA_ERROR_NOT_SUPPORTED naming it.
 *
 * CPU execution: doca_gpu_verbs_export_qp() with gpu_dev NULL builds the
 * descriptor in host memory for CPU threads, which drive it with the same
 * data-path core (include/device/impl/gdaki_verbs.h) a kernel uses.
 */
#ifndef DOCA_GPUNETIO_H
#define DOCA_GPUNETIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doca_compat.h"
#include "doca_gpunetio_config.h"
#include "doca_gpunetio_semaphore.h"
#include "doca_error.h"
#include "doca_gpunetio_verbs_def.h"
#include "doca_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- GPU context ---------------------------------------------------------------------------- */

/*
 * Opens the GPU at PCIe bus id gpu_bus_id ("8a:00.0" or "0000:8A:00.0", any
 * case) and makes its primary CUDA context current on the calling thread.
 * Errors: INVALID_VALUE (no GPU has that bus id: the line lists those
 * present), NOT_SUPPORTED (compute capability below 8.0, or no CUDA driver),
 * DRIVER (the driver fails, or is older than the CUDA version this library
 * was built for: the line names both). A second create of the same GPU
 * returns the same context, counted: each create needs its destroy.
 */
DOCA_STABLE doca_error_t doca_gpu_create(const char *gpu_bus_id, doca_gpu_t **gpu_dev);
/*
 * Releases a context (the last release frees it). BAD_STATE while memory
 * allocated from it or QPs exported with it still exist.
 */
DOCA_STABLE doca_error_t doca_gpu_destroy(doca_gpu_t *gpu_dev);

/* ---- Memory --------------------------------------------------------------------------------- */

enum doca_gpu_mem_type {
    DOCA_GPU_MEM_TYPE_GPU = 0,     /* GPU memory; no CPU pointer */
    DOCA_GPU_MEM_TYPE_GPU_CPU = 1, /* GPU memory the CPU maps too (needs GDRCopy) */
    DOCA_GPU_MEM_TYPE_CPU_GPU = 2, /* pinned host memory the GPU maps */
    /* GPU memory the CPU maps through a NIC's Data Direct function (NOT_SUPPORTED: none here) */
    DOCA_GPU_MEM_TYPE_GPU_CPU_DATA_DIRECT = 3,
};

/*
 * Allocates size bytes aligned to alignment (a power of two; 0 means 256
 * for GPU memory, the page size for host memory). memptr_gpu receives the
 * address kernels use; memptr_cpu (may be NULL for GPU memory) the address
 * the CPU uses. Errors: INVALID_VALUE (size 0, alignment not a power of two,
 * unknown type), NOT_SUPPORTED (GPU_CPU without GDRCopy), NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_gpu_mem_alloc(doca_gpu_t *gpu_dev, size_t size, size_t alignment,
                                            enum doca_gpu_mem_type mtype, void **memptr_gpu,
                                            void **memptr_cpu);
/* Frees memory from doca_gpu_mem_alloc(); INVALID_VALUE for any other address. */
DOCA_STABLE doca_error_t doca_gpu_mem_free(doca_gpu_t *gpu_dev, void *memptr_gpu);
/*
 * A dma-buf file descriptor for [memptr_gpu, memptr_gpu + size) of GPU
 * memory (page-aligned range). NOT_SUPPORTED where the GPU or driver has no
 * dma-buf. The caller closes it.
 */
DOCA_STABLE doca_error_t doca_gpu_dmabuf_fd(doca_gpu_t *gpu_dev, void *memptr_gpu, size_t size,
                                            int *dmabuf_fd);
/* The same under DOCA 4.0's name. */
DOCA_STABLE doca_error_t doca_gpu_get_dmabuf_fd(doca_gpu_t *gpu_dev, void *memptr_gpu, size_t size,
                                                int *dmabuf_fd);

/* ---- QP export ------------------------------------------------------------------------------ */

/* A QP exported to the data path (opaque). */
struct doca_gpu_verbs_qp;

/* What the data path recorded of a QP's first error CQE. */
struct doca_gpu_verbs_qp_error_info {
    bool has_error;
    int syndrome; /* PRM CQE syndrome (0x05 flush, 0x13 remote access, ...) */
    int vendor_err_synd;
    int hw_err_synd;
    int hw_synd_type;
    int wqe_counter; /* index of the failed WQE */
};

/*
 * Builds the data-path descriptor of qp, whose SQ completes on cq_sq, with
 * NIC handler nic_handler (AUTO: the fastest this machine can do, logged).
 * gpu_qp_umem_dev_ptr is the GPU address of the QP's work-queue memory when
 * the caller placed it in GPU memory (NULL otherwise). send_dbr_mode_ext
 * must match how the QP was made (VALID_DBR; NO_DBR_HW for a NO_DBR_EXT QP;
 * NO_DBR_SW_EMULATED for one made with emulate_no_dbr_ext).
 * cq_rq and dbr_cpu_ptr (DOCA 5.0): the QP's receive CQ, a regular CQ in
 * host memory, and the QP's doorbell record in host memory, for a receive
 * queue of RDMA writes with immediate that a service drains
 * (doca_gpu_verbs_service_monitor_qp); every receive WQE (no scatter
 * entries) is handed to the NIC here. cq_rq alone (the QP's own receive
 * CQ, overrun-ignored, as deep as the receive queue): the data path owns
 * the receive queue (the two-sided device calls). Both NULL: no receive side.
 * cq_type is the CQ's kind (CQ_64B, CQ_64B_COLLAPSED) or CQ_UNKNOWN to take
 * it from cq_sq; enable_data_direct is accepted and changes nothing (DOCA's
 * maps a descriptor for the CPU through Data Direct on GDRCopy's paths only).
 * gpu_dev NULL builds the descriptor in host memory for CPU threads.
 * The CQ must have been made with DOCA_VERBS_CQ_ENABLE_OVERRUN (the data
 * path matches completions to WQEs and never returns CQ credits).
 * Errors: INVALID_VALUE (bad handler, a handler, mode or cq_type not matching
 * the QP, cq_sq not the QP's send CQ or made without overrun, an SQ larger than
 * DOCA_GPUNETIO_VERBS_MAX_SQ_WQE_NUM, rings in GPU memory with gpu_dev NULL,
 * cq_rq not the QP's receive CQ or without dbr_cpu_ptr, cq_rq for a QP
 * without its own receive queue), NOT_SUPPORTED (a handler this machine
 * cannot do, with the reason; CQ_64B_COLLAPSED_HOST; a service's receive
 * CQ or doorbell record in GPU memory), DRIVER, NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_export_qp(
        doca_gpu_t *gpu_dev, doca_verbs_qp_t *qp, enum doca_gpu_dev_verbs_nic_handler nic_handler,
        void *gpu_qp_umem_dev_ptr, doca_verbs_cq_t *cq_sq, doca_verbs_cq_t *cq_rq,
        void *dbr_cpu_ptr, enum doca_gpu_verbs_send_dbr_mode_ext send_dbr_mode_ext,
        enum doca_gpu_dev_verbs_cq_type cq_type, bool enable_data_direct,
        struct doca_gpu_verbs_qp **qp_out);
/*
 * Frees the descriptor (the QP itself stays; while exported, destroying it
 * answers IN_USE). gpu_dev must be the one it was exported with.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_unexport_qp(doca_gpu_t *gpu_dev,
                                                    struct doca_gpu_verbs_qp *qp);
/* The descriptor's address for the data path (GPU memory, or host memory for CPU execution). */
DOCA_STABLE doca_error_t doca_gpu_verbs_get_qp_dev(struct doca_gpu_verbs_qp *qp,
                                                   struct doca_gpu_dev_verbs_qp **qp_gpu);
/* The handler export resolved (never AUTO). */
DOCA_STABLE doca_error_t doca_gpu_verbs_get_nic_handler(
        const struct doca_gpu_verbs_qp *qp, enum doca_gpu_dev_verbs_nic_handler *nic_handler);
/*
 * num_qps descriptors side by side in one array (GPU memory, or host
 * memory when the QPs were exported for the CPU); a NULL entry of qps leaves
 * its slot zeroed. The array starts from each QP's current state; the QPs'
 * own descriptors must not be used while it is.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_export_multi_qps_dev(
        doca_gpu_t *gpu_dev, struct doca_gpu_verbs_qp **qps, unsigned int num_qps,
        struct doca_gpu_dev_verbs_qp **out_qp_gpus);
DOCA_STABLE doca_error_t
doca_gpu_verbs_unexport_multi_qps_dev(doca_gpu_t *gpu_dev, struct doca_gpu_verbs_qp **qps,
                                      unsigned int num_qps, struct doca_gpu_dev_verbs_qp *qp_gpus);

/* ---- UAR for the GPU ------------------------------------------------------------------------ */

/*
 * Whether the UAR page holding db can be mapped for GPU stores (a real
 * UAR as I/O memory; a software NIC's UAR as ordinary host memory).
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_can_gpu_register_uar(void *db, bool *out_can_register);
/* Maps the UAR page of sq_db for the GPU (counted per page); uar_addr_gpu: sq_db's GPU address. */
DOCA_STABLE doca_error_t doca_gpu_verbs_export_uar(uint64_t *sq_db, uint64_t **uar_addr_gpu);
DOCA_STABLE doca_error_t doca_gpu_verbs_unexport_uar(uint64_t *uar_addr_gpu);

/* ---- Services ------------------------------------------------------------------------------ */

/* A library thread making forward progress on the QPs it monitors. */
typedef void *doca_gpu_verbs_service_t;

/* Starts the service's thread. INVALID_VALUE (NULL), NO_MEMORY, OPERATING_SYSTEM. */
DOCA_STABLE doca_error_t doca_gpu_verbs_create_service(doca_gpu_verbs_service_t *out_service);
/*
 * Adds an exported QP: a CPU_PROXY QP's doorbells are rung by the service
 * from then on (as doca_gpu_verbs_cpu_proxy_progress() would; both may
 * run); a QP exported with a receive side (cq_rq) has its receive CQ
 * drained, each signal immediate applied to the service's signal map
 * (doca_gpunetio_signal.h), each receive WQE handed back; a receive error
 * CQE stops that QP's draining with one line, not the other QPs'. A
 * monitored QP cannot be unexported or reset (IN_USE) until the service
 * is destroyed. IN_USE when another service monitors it; monitoring it
 * again is a no-op.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_service_monitor_qp(doca_gpu_verbs_service_t service,
                                                           struct doca_gpu_verbs_qp *qp);
/* Stops and joins the thread; its QPs are no longer monitored. */
DOCA_STABLE doca_error_t doca_gpu_verbs_destroy_service(doca_gpu_verbs_service_t service);

/* ---- What a GPU and NIC pair can do -------------------------------------------------------- */

/*
 * Each probes by doing it once (and undoing it): DOCA_SUCCESS means
 * supported, otherwise the error that doing it met. INVALID_VALUE for NULL.
 * GPU memory as UMEM (the rings and doorbell records of GPU-resident
 * queues), pinned host memory mapped for the GPU as UMEM, and a non-cached
 * UAR doorbell mapped for GPU stores (NIC handler GPU_SM_DB).
 */
DOCA_STABLE doca_error_t doca_gpu_nic_cap_is_gpu_mem_umem_supported(doca_gpu_t *gpu_dev,
                                                                    struct doca_dev *net_dev);
DOCA_STABLE doca_error_t doca_gpu_nic_cap_is_host_mem_umem_supported(doca_gpu_t *gpu_dev,
                                                                     struct doca_dev *net_dev);
DOCA_STABLE doca_error_t
doca_gpu_nic_cap_is_nic_handler_gpu_sm_db_supported(doca_gpu_t *gpu_dev, struct doca_dev *net_dev);

/* ---- CPU proxy ------------------------------------------------------------------------------ */

/*
 * One round of the CPU proxy of a QP exported with CPU_PROXY: reads the
 * producer index the data path published and, if it moved, writes the
 * doorbell record and rings the doorbell. out_progressed (may be NULL) says
 * whether it did. NOT_SUPPORTED for a QP with another handler (or
 * CPU_PROXY_FREE_FLOW, whose proxy the library runs itself).
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_cpu_proxy_progress(struct doca_gpu_verbs_qp *qp,
                                                           bool *out_progressed);
/* 1 when the QP's doorbells are rung by a CPU proxy (either kind). */
DOCA_STABLE doca_error_t doca_gpu_verbs_cpu_proxy_enabled(const struct doca_gpu_verbs_qp *qp,
                                                          uint8_t *out_enabled);

/* ---- CQ events ------------------------------------------------------------------------------ */

/*
 * Arms verbs_cq for one event on its next solicited or error CQE, for the
 * completion channel it was made with: the doorbell record's arm word (a
 * CUDA copy when the record is in GPU memory; gpu_dev may then be NULL
 * too: the copy runs on the current CUDA context) and the UAR's CQ doorbell.
 * INVALID_VALUE (NULL CQ), DRIVER.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_req_notify_cq(doca_gpu_t *gpu_dev,
                                                      doca_verbs_cq_t *verbs_cq);

/*
 * Asynchronous error events of exported QPs: the QPs' send CQs report
 * completion events (DevX) to one channel, armed for error (and solicited)
 * CQEs, so the host learns of a QP's failure without polling its CQ.
 */
typedef struct doca_gpu_net_event *doca_gpu_net_event_t;

/* NOT_SUPPORTED when the device gives no DevX events. */
DOCA_STABLE doca_error_t doca_gpu_net_event_create(doca_dev_t *net_dev,
                                                   doca_gpu_net_event_t *out_event);
/*
 * Subscribes the send CQs of qps and arms each once (a QP already
 * subscribed is skipped). While subscribed, a QP cannot be unexported
 * (IN_USE). INVALID_VALUE (NULL, num_qps 0, a CQ of another device),
 * BAD_STATE (a CQ that already reports to another completion channel; the
 * event object after a failed subscribe: destroy it), DRIVER.
 */
DOCA_STABLE doca_error_t doca_gpu_net_event_subscribe(doca_gpu_net_event_t event,
                                                      struct doca_gpu_verbs_qp *qps[],
                                                      unsigned int num_qps);
/*
 * Non-blocking: *out_qp is the QP whose CQ fired (once per arm), or NULL
 * with DOCA_SUCCESS when there is no event.
 */
DOCA_STABLE doca_error_t doca_gpu_net_event_get(doca_gpu_net_event_t event,
                                                struct doca_gpu_verbs_qp **out_qp);
/* Unsubscribes every QP and frees the event object. */
DOCA_STABLE doca_error_t doca_gpu_net_event_destroy(doca_gpu_net_event_t event);

/* ---- Semaphores ------------------------------------------------------------------------------ */

/*
 * A semaphore is an array of items, each a status (enum
 * doca_gpu_semaphore_status, FREE at start) and, if asked for, a block of
 * custom info, through which a kernel hands a batch to the CPU or another
 * kernel (device/doca_gpunetio_dev_sem.cuh). Create, set the item count,
 * the items' memory (default DOCA_GPU_MEM_TYPE_GPU) and the custom info,
 * start, then take the kernels' handle; stop before setting again; destroy
 * (a started one is stopped). The CPU reads and sets statuses and reaches
 * the custom info only in memory it can see (CPU_GPU, or GPU_CPU through
 * GDRCopy): NOT_SUPPORTED otherwise. Errors: INVALID_VALUE (NULL, 0 items,
 * an index past them, an unknown memory type), BAD_STATE (a setter on a
 * started semaphore, a call that needs one started, no item count at
 * start), NO_MEMORY, DRIVER.
 */
DOCA_STABLE doca_error_t doca_gpu_semaphore_create(doca_gpu_t *gpu_dev,
                                                   struct doca_gpu_semaphore **semaphore);
DOCA_STABLE doca_error_t doca_gpu_semaphore_destroy(struct doca_gpu_semaphore *semaphore);
DOCA_STABLE doca_error_t doca_gpu_semaphore_set_memory_type(struct doca_gpu_semaphore *semaphore,
                                                            enum doca_gpu_mem_type mtype);
DOCA_STABLE doca_error_t doca_gpu_semaphore_set_items_num(struct doca_gpu_semaphore *semaphore,
                                                          uint32_t num_items);
/* nbytes of custom info per item (0: none) in memory of type mtype. */
DOCA_STABLE doca_error_t doca_gpu_semaphore_set_custom_info(struct doca_gpu_semaphore *semaphore,
                                                            uint32_t nbytes,
                                                            enum doca_gpu_mem_type mtype);
/* Allocates the items (every status FREE, the info zeroed) and the kernels' handle. */
DOCA_STABLE doca_error_t doca_gpu_semaphore_start(struct doca_gpu_semaphore *semaphore);
/* Frees what start allocated: handles taken before are no longer valid. */
DOCA_STABLE doca_error_t doca_gpu_semaphore_stop(struct doca_gpu_semaphore *semaphore);
/* The handle kernels pass to doca_gpu_dev_semaphore_* (GPU memory). */
DOCA_STABLE doca_error_t doca_gpu_semaphore_get_gpu_handle(
        struct doca_gpu_semaphore *semaphore_cpu, struct doca_gpu_semaphore_gpu **semaphore_gpu);
/* A release store: what the CPU wrote to the item's info before is seen with the status. */
DOCA_STABLE doca_error_t doca_gpu_semaphore_set_status(struct doca_gpu_semaphore *semaphore_cpu,
                                                       uint32_t idx,
                                                       enum doca_gpu_semaphore_status status);
/* An acquire load: the item's info is read after it. */
DOCA_STABLE doca_error_t doca_gpu_semaphore_get_status(struct doca_gpu_semaphore *semaphore_cpu,
                                                       uint32_t idx,
                                                       enum doca_gpu_semaphore_status *status);
/* The CPU address of item idx's custom info. */
DOCA_STABLE doca_error_t doca_gpu_semaphore_get_custom_info_addr(
        struct doca_gpu_semaphore *semaphore_cpu, uint32_t idx, void **custom_info);

/* ---- Errors, versions ------------------------------------------------------------------------ */

/*
 * Starts an exported QP's data-path tracking over, for a QP moved to RESET
 * (doca_verbs_qp_modify) that will be brought to RTS again: the
 * descriptor's counters and consumer index go back to 0, the recorded error
 * is cleared, the work queues and doorbell records are zeroed and every CQE
 * is marked invalid. No kernel may use the QP meanwhile. Arrays made by
 * doca_gpu_verbs_export_multi_qps_dev() keep their copies: make them again.
 * Errors: INVALID_VALUE (NULL), BAD_STATE (the QP is not in RESET), DRIVER.
 */
DOCA_STABLE doca_error_t
doca_gpu_verbs_reset_tracking_and_memory(struct doca_gpu_verbs_qp *qp_gverbs);
/*
 * The first error CQE the data path met on the QP (syndromes and the failed
 * WQE), and has_error also when the QP is in the ERR state without one.
 */
DOCA_STABLE doca_error_t doca_gpu_verbs_query_last_error(struct doca_gpu_verbs_qp *qp,
                                                         struct doca_gpu_verbs_qp_error_info *info);
DOCA_STABLE doca_error_t doca_gpu_verbs_get_library_version(uint32_t *version);
/* NOT_SUPPORTED for a version outside [minimum compatible, this library's]. */
DOCA_STABLE doca_error_t
doca_gpu_verbs_check_device_code_compatibility(uint32_t device_code_version);
DOCA_STABLE doca_error_t doca_gpu_verbs_check_host_code_compatibility(uint32_t host_code_version);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GPUNETIO_H */
