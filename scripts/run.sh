#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The project's main job: installs what it needs, builds everything into
# build/, and runs the smoke demo: the environment doctor says what this
# machine offers GPU-initiated networking, first as it is, then with the
# software NIC (softmlx5) under it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh build
echo "== this machine"
build/bin/doca-gpunetio-doctor
echo "== this machine with softmlx5"
build/bin/softmlx5-run -- build/bin/doca-gpunetio-doctor --require-rdma
