/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The template and function parameters, with DOCA's defaults, that many
 * calls of the one-sided and counter headers share. No include guard: the
 * public headers that use it include it after their other headers, and
 * gdaki_macros_end.h removes these names at the end of each.
 */
#define DGN_RSM_PARAM                                                     \
    enum doca_gpu_dev_verbs_resource_sharing_mode resource_sharing_mode = \
            DOCA_GPUNETIO_VERBS_RESOURCE_SHARING_MODE_GPU
#define DGN_NIC_PARAM \
    enum doca_gpu_dev_verbs_nic_handler nic_handler = DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO
#define DGN_SCOPE_PARAM \
    enum doca_gpu_dev_verbs_exec_scope exec_scope = DOCA_GPUNETIO_VERBS_EXEC_SCOPE_THREAD
#define DGN_CODE_OPT  uint32_t code_opt = DOCA_GPUNETIO_VERBS_GPU_CODE_OPT_DEFAULT
/*
 * The CQ type every one-sided and counter template ends with. The core
 * reads the CQ's kind from its descriptor, so the argument only has to be
 * accepted.
 */
#define DGN_CQT_PARAM enum doca_gpu_dev_verbs_cq_type cq_type = DOCA_GPUNETIO_VERBS_CQ_UNKNOWN
