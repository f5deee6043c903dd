#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The project's main job: installs what it needs, builds everything into
# build/, and runs the smoke demo (for now the environment doctor, which says
# what this machine offers GPU-initiated networking).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh build
build/bin/doca-gpunetio-doctor
