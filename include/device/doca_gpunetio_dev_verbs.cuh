/* SPDX-License-Identifier: BSD-3-Clause */
/* The whole DOCA GPUNetIO verbs device API. */
#ifndef DOCA_GPUNETIO_DEV_VERBS_CUH
#define DOCA_GPUNETIO_DEV_VERBS_CUH

#include "doca_gpunetio_dev_verbs_counter.cuh"
#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "doca_gpunetio_dev_verbs_twosided.cuh"

#include "impl/gdaki_macros_end.h"

#endif /* DOCA_GPUNETIO_DEV_VERBS_CUH */
