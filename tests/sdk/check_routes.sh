#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_routes.sh NM LIBRARY CC SOURCE_DIR IBVERBS_INCLUDE_DIR: every function the shared
# library exports (the public host API), but doca_error.h's two and the capability snapshot's
# (it calls the public doca_* queries, which are routed themselves), has exactly one SDK route
# (DGN_SDK_ROUTE or DGN_SDK_ROUTE_VOID) of its name in src/verbs/, src/gpunetio/ or src/eth/,
# counted after preprocessing so that routes inside the getter and setter generators count too.
set -euo pipefail
nm=$1 lib=$2 cc=$3 src=$4 ibv=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$nm" -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' |
    grep -v '^doca_error_get_\(name\|descr\)$' | grep -v '^dgn_cap_snapshot' | sort >"$work/exported"
for f in "$src"/src/verbs/*.c "$src"/src/gpunetio/*.c "$src"/src/eth/*.c; do
    "$cc" -std=c11 -D_GNU_SOURCE -I"$src/include" -I"$src/include/device" \
        -I"$src/include/device/impl" -I"$src/src" -I"$ibv" -E -P "$f"
done | tr -s ' \n' ' ' | grep -o 'core_sdk_site dgn_sdk_site_ = { *("[a-z0-9_]*")' |
    grep -o '"[a-z0-9_]*"' | tr -d '"' | sort >"$work/routed"

if [ "$(wc -l <"$work/exported")" -lt 200 ]; then
    echo "FAIL: $lib exports only $(wc -l <"$work/exported") functions"
    exit 1
fi
if ! diff -u "$work/exported" "$work/routed"; then
    echo "FAIL: exported functions (-) without an SDK route, routes (+) of no exported function"
    exit 1
fi
echo "ok: $(wc -l <"$work/routed") public functions, one SDK route each"
