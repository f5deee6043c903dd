/* SPDX-License-Identifier: BSD-3-Clause */
/* write_bw's kernel launcher in a build without CUDA: never reached (--exec gpu is refused there).
 */
#include "ex_common.h"
#include "write_bw.h"

int write_bw_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct write_bw_job *job, void *stream,
                     double *elapsed_us)
{
    (void)qp;
    (void)job;
    (void)stream;
    (void)elapsed_us;
    EX_ERR("this build has no CUDA: run with --exec cpu");
    return -1;
}
