#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the softmlx5 benchmarks (and the examples' signal paths,
# bench/examples/signal_bench.sh, and the Ethernet UDP echo against a
# packet-socket echo, bench/eth/echo_bench.sh) and appends their results, with the machine
# they ran on, to bench/results/softmlx5.csv, then prints this run's rows as
# a table; then, where a GPU can be used, the device data path's sink
# benchmark (bench/device/run.sh). Exits non-zero when a target is missed or
# a benchmark failed (each has a time limit: a stalled device fails, it does
# not hang).
#   bench/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
benches="write_bw write_lat write_lat_spin event_lat write_bibw"
for b in $benches report tcp_lat pkt_echo udp_flood; do
    [ -x "$build/bench/softmlx5_$b" ] || { scripts/build.sh "$build"; break; }
done
mkdir -p bench/results
csv=bench/results/softmlx5.csv
rows_before=$( [ -f "$csv" ] && wc -l < "$csv" || echo 0)
rc=0
for b in $benches; do
    echo "== softmlx5_$b"
    # The programs stop themselves (watchdog: 5 s without progress, 50 s in all); timeout is the backstop.
    timeout -k 5 90 "$build/bin/softmlx5-run" -- "$build/bench/softmlx5_$b" --csv "$csv" || rc=1
done
echo "== ibv_rc_pingpong"
bench/softmlx5/rc_pingpong_bench.sh "$build" "$csv" || rc=1
echo "== perftest latency (UD and RC) against TCP"
bench/softmlx5/perftest_bench.sh "$build" "$csv" || rc=1
echo "== the examples' signal paths (CPU execution)"
bench/examples/signal_bench.sh "$build" "$csv" || rc=1
echo "== the Ethernet UDP echo against a packet-socket echo (CPU execution; needs root)"
eth_rc=0
bench/eth/echo_bench.sh "$build" "$csv" || eth_rc=$?
[ "$eth_rc" = 0 ] || [ "$eth_rc" = 77 ] || rc=1

echo
echo "softmlx5 results of this run ($csv):"
tail -n +"$((rows_before + 1))" "$csv" | { grep -v '^date,' || true; } |
    awk -F, 'BEGIN { printf "%-50s %-8s %12s %12s %7s %-11s  %s\n",
                     "benchmark", "unit", "softmlx5", "baseline", "ratio", "target", "verdict" }
             { printf "%-50s %-8s %12s %12s %7s %-11s  %s\n", $5, $6, $7, $8, $9, $10, $11 }'

if [ -x "$build/bench/gdaki_sink_bench" ]; then
    dev_rc=0
    BUILD_DIR=$build bench/device/run.sh || dev_rc=$?
    [ "$dev_rc" = 0 ] || [ "$dev_rc" = 77 ] || rc=1
fi
exit $rc
