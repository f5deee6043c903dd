/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every function of doca_gpunetio_dev_verbs_counter.cuh called with DOCA's
 * parameter lists: explicit template arguments in DOCA's order (num_qps
 * first for the multi-QP submits, the trailing cq_type), defaults omitted
 * and given, code_opt also as a literal 0 (no overload may make that
 * ambiguous), DOCA's void returns. Compiled only.
 */
#include <stdint.h>
#include <type_traits>

#include "doca_gpunetio_dev_verbs_counter.cuh"

#define GPU     DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU
#define EXCL    DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_EXCLUSIVE
#define AUTO    DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO
#define DB      DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_DB
#define PROXY   DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY
#define S_GPU   DOCA_GPUNETIO_VERBS_SYNC_SCOPE_GPU
#define S_SYS   DOCA_GPUNETIO_VERBS_SYNC_SCOPE_SYS
#define CQ_ANY  DOCA_GPUNETIO_VERBS_CQ_UNKNOWN
#define ADD     DOCA_GPUNETIO_VERBS_SIGNAL_OP_ADD
#define OPT     DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT
#define NO_RING DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_SKIP_DB_RINGING

#define RETURNS_VOID(...) \
    static_assert(std::is_same<decltype(__VA_ARGS__), void>::value, #__VA_ARGS__)

/* Two QPs rung together, as DOCA's counter variants ring them. */
__global__ void doca_api_multi_qps(struct doca_gpu_dev_verbs_qp *a, struct doca_gpu_dev_verbs_qp *b,
                                   uint64_t pa, uint64_t pb)
{
    constexpr unsigned int n = 2;
    struct doca_gpu_dev_verbs_qp *qps[n] = {a, b};
    uint64_t prods[n] = {pa, pb};

    doca_gpu_dev_verbs_submit_db_multi_qps_no_dbr<n, GPU, S_GPU>(qps, prods, OPT);
    doca_gpu_dev_verbs_submit_db_multi_qps_no_dbr<n>(qps, prods);
    doca_gpu_dev_verbs_submit_db_multi_qps<n, EXCL, S_SYS>(qps, prods, NO_RING);
    doca_gpu_dev_verbs_submit_db_multi_qps<n>(qps, prods);
    doca_gpu_dev_verbs_submit_proxy_multi_qps<n, GPU, S_GPU>(qps, prods);
    doca_gpu_dev_verbs_submit_proxy_multi_qps<n>(qps, prods);
    doca_gpu_dev_verbs_submit_multi_qps<n, GPU, S_GPU, AUTO, CQ_ANY>(qps, prods, OPT);
    doca_gpu_dev_verbs_submit_multi_qps<n, GPU, S_GPU, PROXY>(qps, prods);
    doca_gpu_dev_verbs_submit_multi_qps<n>(qps, prods);
    RETURNS_VOID(doca_gpu_dev_verbs_submit_db_multi_qps_no_dbr<n>(qps, prods));
    RETURNS_VOID(doca_gpu_dev_verbs_submit_db_multi_qps<n>(qps, prods));
    RETURNS_VOID(doca_gpu_dev_verbs_submit_proxy_multi_qps<n>(qps, prods));
    RETURNS_VOID(doca_gpu_dev_verbs_submit_multi_qps<n>(qps, prods));
}

__global__ void
doca_api_counter(struct doca_gpu_dev_verbs_qp *qp, struct doca_gpu_dev_verbs_qp *companion,
                 struct doca_gpu_dev_verbs_addr r, struct doca_gpu_dev_verbs_addr l, size_t size,
                 struct doca_gpu_dev_verbs_addr sr, struct doca_gpu_dev_verbs_addr sl,
                 struct doca_gpu_dev_verbs_addr cr, struct doca_gpu_dev_verbs_addr cl, uint64_t v)
{
    doca_gpu_dev_verbs_put_counter<GPU, AUTO, CQ_ANY>(qp, r, l, size, companion, cr, cl, 1, OPT);
    doca_gpu_dev_verbs_put_counter<EXCL, DB>(qp, r, l, size, companion, cr, cl, 1);
    doca_gpu_dev_verbs_put_counter(qp, r, l, size, companion, cr, cl, 1, 0);
    doca_gpu_dev_verbs_p_counter<uint64_t, GPU, AUTO, CQ_ANY>(qp, r, v, companion, cr, cl, 1, OPT);
    doca_gpu_dev_verbs_p_counter<uint32_t>(qp, r, (uint32_t)v, companion, cr, cl, 1);
    doca_gpu_dev_verbs_p_counter(qp, r, v, companion, cr, cl, 1, 0);
    doca_gpu_dev_verbs_put_signal_counter<ADD, GPU, AUTO, CQ_ANY>(qp, r, l, size, sr, sl, 1,
                                                                  companion, cr, cl, 1, OPT);
    doca_gpu_dev_verbs_put_signal_counter<ADD>(qp, r, l, size, sr, sl, 1, companion, cr, cl, 1);
    doca_gpu_dev_verbs_put_signal_counter<ADD>(qp, r, l, size, sr, sl, 1, companion, cr, cl, 1, 0);
    doca_gpu_dev_verbs_signal_counter<ADD, GPU, AUTO, CQ_ANY>(qp, sr, sl, 1, companion, cr, cl, 1,
                                                              OPT);
    doca_gpu_dev_verbs_signal_counter<ADD>(qp, sr, sl, 1, companion, cr, cl, 1);
    doca_gpu_dev_verbs_signal_counter<ADD>(qp, sr, sl, 1, companion, cr, cl, 1, 0);
    doca_gpu_dev_verbs_get_counter<GPU, AUTO, CQ_ANY>(qp, r, l, size, companion, cr, cl, 1, OPT);
    doca_gpu_dev_verbs_get_counter<EXCL>(qp, r, l, size, companion, cr, cl, 1);
    doca_gpu_dev_verbs_get_counter(qp, r, l, size, companion, cr, cl, 1, 0);
    RETURNS_VOID(doca_gpu_dev_verbs_put_counter(qp, r, l, size, companion, cr, cl, 1));
    RETURNS_VOID(doca_gpu_dev_verbs_p_counter(qp, r, v, companion, cr, cl, 1));
    RETURNS_VOID(doca_gpu_dev_verbs_put_signal_counter<ADD>(qp, r, l, size, sr, sl, 1, companion,
                                                            cr, cl, 1));
    RETURNS_VOID(doca_gpu_dev_verbs_signal_counter<ADD>(qp, sr, sl, 1, companion, cr, cl, 1));
    RETURNS_VOID(doca_gpu_dev_verbs_get_counter(qp, r, l, size, companion, cr, cl, 1));
}
