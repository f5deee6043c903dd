/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO Ethernet device API, the helpers DOCA's samples call next to
 * the receive and send calls: the lane of a thread in its warp and the GPU's
 * global timer (ns).
 */
#ifndef DOCA_GPUNETIO_DEV_ETH_COMMON_CUH
#define DOCA_GPUNETIO_DEV_ETH_COMMON_CUH

#include <stdint.h>

#include "doca_gpunetio_eth_def.h"
#include "impl/gdaki_eth_common.h"

/* This thread's lane in its warp. */
__device__ static __forceinline__ uint32_t doca_gpu_dev_eth_get_lane_id()
{
    uint32_t lane;

    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

/* The GPU's global timer: nanoseconds. */
__device__ static __forceinline__ uint64_t doca_gpu_dev_eth_query_globaltimer()
{
    return gdaki_eth_now_ns();
}

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_ETH_COMMON_CUH */
