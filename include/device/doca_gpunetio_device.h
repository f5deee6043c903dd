/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA GPUNetIO's device API in one include: the verbs data path under a
 * CUDA compiler, its types (doca_gpunetio_verbs_dev.h) in C and C++.
 */
#ifndef DOCA_GPUNETIO_DEVICE_H
#define DOCA_GPUNETIO_DEVICE_H

#include "doca_gpunetio_eth_def.h"
#include "doca_gpunetio_verbs_dev.h"

#ifdef __CUDACC__
#include "doca_gpunetio_dev_eth_rxq.cuh"
#include "doca_gpunetio_dev_eth_txq.cuh"
#include "doca_gpunetio_dev_verbs_counter.cuh"
#include "doca_gpunetio_dev_verbs_cq.cuh"
#include "doca_gpunetio_dev_verbs_onesided.cuh"
#include "doca_gpunetio_dev_verbs_qp.cuh"
#endif

#endif /* DOCA_GPUNETIO_DEVICE_H */
