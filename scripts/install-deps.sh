#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages the build and the tests need, when missing.
# Root installs with apt-get; anyone else is told the exact command.
set -euo pipefail

packages=(
    cmake make gcc g++ pkg-config   # build
    libibverbs-dev ibverbs-providers # rdma-core headers (the libraries are loaded at run time)
    libcmocka-dev                    # unit tests
    ibverbs-utils                    # ibv_{rc,uc,ud}_pingpong: softmlx5 acceptance tests
    perftest                         # ib_write_bw, ib_send_lat, ...: softmlx5 acceptance tests
    librdmacm1 librdmacm-dev         # softmlx5's rdma_cm tests (tests/emu/rdmacm, test_abi_rdmacm)
    rdmacm-utils                     # rping, ucmatose, rdma_server/rdma_client: the rdma_cm acceptance tests
    iproute2                         # ss, ip netns: the two-host softmlx5 test
    clang-format                     # format-check
    clang libclang-rt-dev            # libFuzzer and its sanitizer runtimes (scripts/fuzz.sh)
)

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing missing packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        apt_get=(sudo apt-get)
    else
        echo "not root and no sudo: run 'apt-get install -y ${missing[*]}' as root" >&2
        exit 1
    fi
else
    apt_get=(apt-get)
fi
export DEBIAN_FRONTEND=noninteractive
"${apt_get[@]}" update -qq
"${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
