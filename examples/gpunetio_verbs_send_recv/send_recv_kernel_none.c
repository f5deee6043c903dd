/* SPDX-License-Identifier: BSD-3-Clause */
/* send_recv's kernel launcher in a build without CUDA: never reached (--exec gpu is refused there).
 */
#include "ex_common.h"
#include "send_recv.h"

int send_recv_gpu_run(struct doca_gpu_dev_verbs_qp *qp, const struct send_recv_job *job,
                      void *stream, struct send_recv_result *result)
{
    (void)qp;
    (void)job;
    (void)stream;
    (void)result;
    EX_ERR("this build has no CUDA: run with --exec cpu");
    return -1;
}
