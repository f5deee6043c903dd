#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the device data path's sink benchmark on this machine's GPU and
# writes one set of results per run under bench/results/device/:
#   STAMP.csv        rates per case and operation, with machine, GPU, driver, date
#   STAMP-ptxas.csv  registers, stack and spills of every kernel (nvcc -Xptxas -v)
#   STAMP.svg        the plot of the five cases per operation
# Extra arguments go to gdaki_sink_bench (its defaults are the issue's cases).
#   BUILD_DIR=build bench/device/run.sh [BENCH ARGS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target gdaki_sink_bench >/dev/null
out=bench/results/device
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
bench/device/ptxas_report.sh > "$out/$stamp-ptxas.csv"
rc=0
"$build/bench/gdaki_sink_bench" --csv "$out/$stamp.csv" "$@" || rc=$?
[ "$rc" = 77 ] && { rm -f "$out/$stamp-ptxas.csv"; exit 77; }
[ -s "$out/$stamp.csv" ] && bench/device/plot.py "$out/$stamp.csv" -o "$out/$stamp.svg"
exit $rc
