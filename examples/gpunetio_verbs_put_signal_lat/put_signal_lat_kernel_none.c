/* SPDX-License-Identifier: BSD-3-Clause */
/* put_signal_lat's kernel launcher in a build without CUDA: never reached (--exec gpu is refused
 * there). */
#include "ex_common.h"
#include "put_signal_lat.h"

int put_signal_lat_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct put_signal_lat_job *job,
                           void *stream, struct write_lat_result *result)
{
    (void)qp;
    (void)job;
    (void)stream;
    (void)result;
    EX_ERR("this build has no CUDA: run with --exec cpu");
    return -1;
}
