#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build.sh [BUILD_DIR [CMAKE_ARGS...]]: configures and builds (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" "$@"
cmake --build "$dir" -j "$(nproc)"
