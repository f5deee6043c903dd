# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the scripts that run two GPU processes on one GPU through
# softmlx5 (scripts/put_bw_demo.sh, examples/tests/run_pair.sh).
#
# Without MPS the two processes' CUDA contexts are time-sliced: while one
# process's kernel runs, softmlx5's copies into the other's GPU memory wait
# for that process's slice (about 2 ms a put). mps_start runs both under a
# private MPS daemon instead, where the tools exist; mps_stop ends it.
#
#   mps_start DIR PROBE   DIR: a private folder for the daemon's pipes and log;
#                         PROBE: a program that makes a CUDA context (it starts
#                         the daemon's server). 0 and CUDA_MPS_* exported when
#                         the daemon runs, 1 otherwise (nothing left behind).
#                         GPUNETIO_MPS=0: never.
#   mps_stop              ends a daemon mps_start started (no-op otherwise).
#   mps_joined            0 when CUDA_MPS_PIPE_DIRECTORY names a running daemon
#                         (the test run's, tests/gpu_mps_fixture.sh), 1 otherwise.

mps_running=0

mps_start() {
    local dir=$1 probe=$2
    [ "${GPUNETIO_MPS:-1}" != 0 ] || return 1
    command -v nvidia-cuda-mps-control >/dev/null 2>&1 || return 1
    mkdir -p "$dir/pipe" "$dir/log"
    export CUDA_MPS_PIPE_DIRECTORY=$dir/pipe CUDA_MPS_LOG_DIRECTORY=$dir/log
    if nvidia-cuda-mps-control -d >/dev/null 2>&1 && "$probe" >/dev/null 2>&1; then
        mps_running=1
        return 0
    fi
    echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    return 1
}

mps_joined() {
    [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ]
}

mps_stop() {
    if [ $mps_running -eq 1 ]; then
        echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true
        mps_running=0
    fi
}
