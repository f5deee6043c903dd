#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fuzz.sh [SECONDS]: builds the libFuzzer targets of tests/fuzz/ with clang
# into build-fuzz/ (DGN_FUZZ=ON: ASan + UBSan + libFuzzer) and runs each one
# for SECONDS (default 60) on its committed seeds, tests/fuzz/corpus/<target>/.
# Fails when a target crashes, reports a sanitizer error or a leak, times out
# on an input or runs out of memory; the input that did it is kept in
# build-fuzz/fuzz/work/<target>/findings/ (reproduce with
# build-fuzz/fuzz/fuzz_<target> FILE).
#
# The committed corpus is only read: the inputs a run adds go to the scratch
# corpus build-fuzz/fuzz/work/<target>/corpus/, emptied at each run unless
# FUZZ_KEEP_CORPUS=1 (then successive runs build on each other).
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_CC / FUZZ_CXX
# (default clang / clang++), FUZZ_TARGETS (names to run, default all).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
dir=${FUZZ_BUILD_DIR:-build-fuzz}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || {
    echo "usage: $0 [SECONDS]" >&2
    exit 2
}

CC=${FUZZ_CC:-clang} CXX=${FUZZ_CXX:-clang++} cmake -S . -B "$dir" -DDGN_FUZZ=ON -DDGN_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j "$(nproc)" --target fuzz-targets

status=0
ran=0
for bin in "$dir"/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then
        continue
    fi
    seeds=tests/fuzz/corpus/$name
    if [ ! -d "$seeds" ] || [ -z "$(ls -A "$seeds")" ]; then
        echo "fuzz $name: no seeds in $seeds" >&2
        status=1
        continue
    fi
    work=$dir/fuzz/work/$name
    [ "${FUZZ_KEEP_CORPUS:-0}" = 1 ] || rm -rf "$work"
    rm -rf "$work/findings"
    mkdir -p "$work/corpus" "$work/findings"
    echo "== fuzz $name: ${seconds} s from $(ls "$seeds" | wc -l) seeds ($(du -sb "$seeds" | cut -f1) bytes)"
    # New inputs go to the first corpus directory, the scratch one; the seeds are only read.
    rc=0
    "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -max_len=16384 \
        -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
        -artifact_prefix="$work/findings/" "$work/corpus" "$seeds" >"$work/log" 2>&1 || rc=$?
    if [ "$rc" -eq 77 ] && grep -q '^skipped:' "$work/log"; then
        echo "fuzz $name: $(grep '^skipped:' "$work/log")"
        continue
    fi
    ran=$((ran + 1))
    if [ "$rc" -ne 0 ]; then
        tail -n 80 "$work/log"
        echo "fuzz $name: FAILED (exit $rc); the input is in $work/findings/, the log in $work/log"
        status=1
        continue
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    added=$(sed -n 's/^stat::new_units_added: *//p' "$work/log")
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/log" | tail -n 1)
    echo "fuzz $name: passed, ${runs:-?} inputs run, ${added:-?} new in $work/corpus ($cov)"
done
[ "$ran" -gt 0 ] || [ "$status" -ne 0 ] || echo "fuzz: no target ran"
exit "$status"
