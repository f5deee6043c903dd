#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The CTest fixture gpu_mps (cmake/gpu_mps.cmake): one MPS daemon for a
# whole test run, so that the GPU processes of tests run at once share the
# GPU instead of taking time slices of it.
#   gpu_mps_fixture.sh start DIR PROBE   PROBE: prints a GPU's bus id, or exits 77
#   gpu_mps_fixture.sh stop DIR
# Always exits 0: without a daemon the tests run without MPS, and say so.
set -u
# shellcheck source=scripts/mps.sh
. "$(dirname "$0")/../scripts/mps.sh"
dir=$2
case "$1" in
start)
    if [ -d "$dir/pipe" ]; then # a daemon left by an interrupted run
        CUDA_MPS_PIPE_DIRECTORY=$dir/pipe nvidia-cuda-mps-control <<<quit >/dev/null 2>&1
        rm -rf "$dir"
    fi
    if [ "${GPUNETIO_MPS:-1}" = 0 ]; then
        why="GPUNETIO_MPS=0"
    elif ! command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
        why="no nvidia-cuda-mps-control"
    elif ! "$3" >/dev/null 2>&1; then
        why="no usable GPU"
    elif mps_start "$dir" "$3"; then
        echo "gpu tests: one MPS daemon for the whole run ($dir): concurrent tests' GPU processes" \
            "share the GPU (GPUNETIO_MPS=0: without)"
        exit 0
    else
        why="the daemon did not start"
    fi
    rm -rf "$dir"
    echo "gpu tests: no MPS daemon ($why): GPU processes of concurrent tests take time slices"
    ;;
stop)
    if [ -d "$dir/pipe" ]; then
        CUDA_MPS_PIPE_DIRECTORY=$dir/pipe nvidia-cuda-mps-control <<<quit >/dev/null 2>&1
        echo "gpu tests: MPS daemon stopped"
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start DIR PROBE | stop DIR" >&2
    exit 2
    ;;
esac
exit 0
