#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Registers, stack frame and local-memory spills of every sink kernel (one
# per high-level operation and sharing mode), as ptxas reports them under
# `nvcc -Xptxas -v`, as CSV on stdout. Needs nvcc, not a GPU.
#   bench/device/ptxas_report.sh [ARCH] [--check]
# --check: exit 1 when a library kernel (sink_*) spills or uses a stack frame.
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=sm_90
check=0
for a in "$@"; do
    case $a in
        --check) check=1 ;;
        *) arch=$a ;;
    esac
done
nvcc=${NVCC:-nvcc}
report=$("$nvcc" -arch="$arch" -std=c++17 -O3 -Iinclude/device -Xptxas -v \
    -c bench/device/sink_kernels.cu -o /dev/null 2>&1 | awk -v arch="$arch" '
    /Function properties for/ { name = $NF }
    /bytes stack frame/ { stack = $1; ss = $5; sl = $9 }
    /Used [0-9]+ registers/ {
        for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
        print name "," arch "," regs "," stack "," ss "," sl
    }' | sort)
[ -n "$report" ] || { echo "ptxas_report: no kernels reported (did nvcc fail?)" >&2; exit 2; }
echo "kernel,arch,registers,stack_bytes,spill_store_bytes,spill_load_bytes"
echo "$report"
if [ "$check" = 1 ]; then
    bad=$(echo "$report" | awk -F, '$1 ~ /^sink_/ && ($4 + $5 + $6) > 0 { print $1 }')
    if [ -n "$bad" ]; then
        echo "ptxas_report: these data-path kernels use local memory: $bad" >&2
        exit 1
    fi
fi
