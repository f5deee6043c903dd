/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data-path core of GPUNetIO verbs, in C: WQE preparation, the send
 * queue protocol, completion polling and the high-level one-sided
 * operations. Every function is static inline and compiles as CUDA device
 * code and as host C, so a CPU thread drives an exported QP with exactly the
 * code a kernel runs. The DOCA-compatible C++ templates of the .cuh headers
 * are a thin layer over it.
 */
#ifndef DOCA_GPUNETIO_IMPL_VERBS_H
#define DOCA_GPUNETIO_IMPL_VERBS_H

#include "../doca_gpunetio_verbs_def.h"
#include "gdaki_sync.h"
#include "gdaki_verbs_cq.h"
#include "gdaki_verbs_onesided.h"
#include "gdaki_verbs_rq.h"
#include "gdaki_verbs_sq.h"
#include "gdaki_verbs_twosided.h"
#include "gdaki_verbs_wqe.h"

/* Last: a public header included above removes it at its end. */
#include "gdaki_macros.h"

#endif /* DOCA_GPUNETIO_IMPL_VERBS_H */
