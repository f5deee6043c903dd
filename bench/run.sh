#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the softmlx5 benchmarks and appends their results, with the machine
# they ran on, to bench/results/softmlx5.csv; then, where a GPU can be used,
# the device data path's sink benchmark (bench/device/run.sh). Exits non-zero
# when a target is missed.
#   bench/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/bench/softmlx5_write_bw" ] || scripts/build.sh "$build"
mkdir -p bench/results
csv=bench/results/softmlx5.csv
rc=0
"$build/bin/softmlx5-run" -- "$build/bench/softmlx5_write_bw" --csv "$csv" || rc=1
"$build/bin/softmlx5-run" -- "$build/bench/softmlx5_write_lat" --csv "$csv" || rc=1
if [ -x "$build/bench/gdaki_sink_bench" ]; then
    dev_rc=0
    BUILD_DIR=$build bench/device/run.sh || dev_rc=$?
    [ "$dev_rc" = 0 ] || [ "$dev_rc" = 77 ] || rc=1
fi
exit $rc
