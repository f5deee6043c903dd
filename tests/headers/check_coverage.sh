#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_coverage.sh SOURCE_DIR: every DOCA device function named in
# tests/headers/doca_device_functions.txt is declared by a public device
# header and called by a compile test (tests/headers/*.cu), which is built
# with DOCA's parameter lists; prints the coverage.
set -euo pipefail
src=$1
list=$src/tests/headers/doca_device_functions.txt
total=0 declared=0 called=0 missing=""
while IFS= read -r name; do
    case $name in '#'* | '') continue ;; esac
    total=$((total + 1))
    if grep -qE "\b$name\s*(\(|<)" "$src"/include/device/*.cuh "$src"/include/device/*.h; then
        declared=$((declared + 1))
    else
        missing="$missing $name(not declared)"
        continue
    fi
    if grep -qE "\b$name\s*(\(|<)" "$src"/tests/headers/*.cu; then
        called=$((called + 1))
    else
        missing="$missing $name(not called)"
    fi
done <"$list"
echo "DOCA device functions: $total; declared: $declared; called with DOCA's parameters: $called"
[ -z "$missing" ] || { echo "FAIL:$missing"; exit 1; }
