#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs softmlx5's Ethernet port test on the loopback interface of a fresh network namespace
# (unshare -n): the port's own frames come back to it, so no peer and no iproute2 are needed.
# Skipped (77) without root or unshare.
#   eth_lo.sh RUN TEST_PROGRAM [ARGS...]  (ARGS after the program's "lo"; ETH_LO_MODE=lo_bench
#   runs the throughput loop instead)
set -u
run=$1 prog=$2
shift 2
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (a network namespace, a packet socket)"; exit 77; }
command -v unshare >/dev/null || { echo "skipped: unshare (util-linux) is missing"; exit 77; }
unshare -n true 2>/dev/null || { echo "skipped: cannot create a network namespace"; exit 77; }
exec unshare -n -- "$run" --eth lo -- "$prog" "${ETH_LO_MODE:-lo}" "$@"
