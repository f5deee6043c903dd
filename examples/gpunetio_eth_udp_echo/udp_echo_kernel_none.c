/* SPDX-License-Identifier: BSD-3-Clause */
/* The echo's kernel calls in a build without CUDA: never reached (--exec gpu is refused there). */
#include "ex_common.h"
#include "udp_echo.h"

int echo_gpu_launch(const struct echo_job *job, void *stream)
{
    (void)job;
    (void)stream;
    EX_ERR("this build has no CUDA: run with --exec cpu");
    return -1;
}

int echo_gpu_done(void *stream)
{
    (void)stream;
    return 1;
}

int echo_gpu_wait(void *stream, unsigned timeout_s)
{
    (void)stream;
    (void)timeout_s;
    return 0;
}
