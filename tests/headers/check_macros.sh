#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_macros.sh INCLUDE_DIR CC CXX [NVCC]: a user's code that includes any
# one public header must see none of the implementation's macros (names
# beginning gdaki_, prm_ or DGN_, in either case). Every header is
# preprocessed the ways a user's program is compiled: C headers as C11 and
# C++; device headers as the host and the GPU pass of a CUDA compile (with
# nvcc when given, and with the C++ compiler defining what nvcc defines).
set -euo pipefail
inc=$1 cc=$2 cxx=$3 nvcc=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
leak='^#define (gdaki_|GDAKI_|prm_|PRM_|dgn_|DGN_)'
failed=0 checked=0

check() { # check HEADER DESCRIPTION COMMAND...: COMMAND prints the macros
    local header=$1 how=$2 found
    shift 2
    found=$("$@" | grep -E "$leak" | awk '{print $2}' | tr '\n' ' ' || true)
    checked=$((checked + 1))
    if [ -n "$found" ]; then
        echo "FAIL: $header ($how) leaves macros to the user: $found"
        failed=$((failed + 1))
    fi
}

cd "$inc"
while IFS= read -r header; do
    printf '#include "%s"\n' "$header" >"$work/user.h"
    flags=(-I"$inc" -I"$inc/device")
    case $header in
    *.cuh)
        check "$header" "CUDA host pass" "$cxx" -std=c++17 -x c++ -dM -E -D__CUDACC__ "${flags[@]}" "$work/user.h"
        check "$header" "CUDA device pass" "$cxx" -std=c++17 -x c++ -dM -E -D__CUDACC__ \
            -D__CUDA_ARCH__=900 "${flags[@]}" "$work/user.h"
        if [ -n "$nvcc" ]; then
            cp "$work/user.h" "$work/user.cu"
            check "$header" "nvcc" "$nvcc" -E -Xcompiler -dM "${flags[@]}" "$work/user.cu"
        fi
        ;;
    *)
        check "$header" "C11" "$cc" -std=c11 -x c -dM -E "${flags[@]}" "$work/user.h"
        check "$header" "C++" "$cxx" -std=c++17 -x c++ -dM -E "${flags[@]}" "$work/user.h"
        ;;
    esac
done < <(find . -path ./device/impl -prune -o \( -name '*.h' -o -name '*.cuh' \) -print | sed 's|^\./||' | sort)
echo "$checked preprocessings of the public headers, $failed leaking"
[ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]
