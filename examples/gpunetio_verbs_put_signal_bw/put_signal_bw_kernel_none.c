/* SPDX-License-Identifier: BSD-3-Clause */
/* put_signal_bw's kernels in a build without CUDA: never reached (--exec gpu is refused there). */
#include "ex_common.h"
#include "put_signal_bw.h"

int psb_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct psb_job *job, int warp, void *stream,
                double *elapsed_us)
{
    (void)qp;
    (void)job;
    (void)warp;
    (void)stream;
    (void)elapsed_us;
    EX_ERR("this build has no CUDA: run with --exec cpu");
    return -1;
}

int psb_gpu_tally(const uint64_t *slots, uint32_t nsig, int big_endian, uint32_t threads,
                  uint32_t lane_stride, uint64_t value, struct psb_tally *out)
{
    (void)slots;
    (void)nsig;
    (void)big_endian;
    (void)threads;
    (void)lane_stride;
    (void)value;
    (void)out;
    EX_ERR("this build has no CUDA: run with --exec cpu");
    return -1;
}
