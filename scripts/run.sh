#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The project's main job: installs what it needs, builds everything into
# build/, has the environment doctor say what this machine offers
# GPU-initiated networking (as it is, then with the software NIC softmlx5
# under it), and runs gpunetio_verbs_put_bw's server and client through
# softmlx5: CUDA kernels when a GPU is usable here, CPU threads otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh build
echo "== this machine"
build/bin/doca-gpunetio-doctor
echo "== this machine with softmlx5"
build/bin/softmlx5-run -- build/bin/doca-gpunetio-doctor --require-rdma
scripts/put_bw_demo.sh
