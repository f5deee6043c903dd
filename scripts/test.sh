#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The project's test command: installs what it needs, builds everything into
# build/ (CUDA code compiled when nvcc is present), runs every test, then does
# the same for the ASan + UBSan configuration in build-asan/, and checks the
# source formatting. Exits non-zero on any failure. GPU tests print
# "skipped: no CUDA device" and count as skipped where no GPU can be used.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/install-deps.sh

echo "== build/ (default configuration)"
scripts/build.sh build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer, host code)"
scripts/build.sh build-asan -DDGN_SANITIZE=ON -DDGN_CUDA=OFF
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "== format-check"
cmake --build build --target format-check

echo "all tests passed"
