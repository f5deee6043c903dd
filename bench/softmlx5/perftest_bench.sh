#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's unmodified perftest latency benchmarks on softmlx5 (server and
# client on this host, each under softmlx5-run) against a TCP loopback
# ping-pong of the same message size, measured in the same run
# (softmlx5_tcp_lat):
#
#   perftest_ib_send_lat_ud_2B_vs_tcp_pingpong   ib_send_lat -c UD: UD sends, a ping-pong
#   perftest_ib_send_lat_rc_2B_vs_tcp_pingpong   ib_send_lat: RC sends
#   perftest_ib_write_lat_rc_2B_vs_tcp_pingpong  ib_write_lat: RC writes, each side spinning
#                                                on its buffer
#   perftest_ib_write_lat_dc_2B_vs_tcp_pingpong  ib_write_lat -c DC: the same, DCI to DCT
#
# perftest's t_avg (the mean half round trip, as the TCP figure is) of 10,000
# iterations, the best of ROUNDS (default 3) runs; target <= 1.0. perftest
# busy-polls its CQ (send_lat) or spins on memory (write_lat). Results are
# appended to CSV (default bench/results/softmlx5.csv) by softmlx5_report.
#
#   bench/softmlx5/perftest_bench.sh [BUILD_DIR [CSV]]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
build=${1:-build}
csv=${2:-bench/results/softmlx5.csv}
launcher=$build/bin/softmlx5-run
report=$build/bench/softmlx5_report
tcp=$build/bench/softmlx5_tcp_lat
rounds=${ROUNDS:-3}
iters=10000
size=2 # perftest's latency default
port=${PERFTEST_PORT:-18780}
limit=60

for f in "$launcher" "$report" "$tcp"; do
    [ -x "$f" ] || { echo "perftest_bench: $f is missing (build first)" >&2; exit 2; }
done
command -v ib_send_lat > /dev/null ||
    { echo "perftest_bench: ib_send_lat not found (apt-get install perftest)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One server + client run: one_run PROGRAM [ARGS...]; prints the client's t_avg (us).
one_run() {
    local program=$1 spid crc src avg
    shift
    port=$((port + 1))
    timeout -k 2 "$limit" "$launcher" -- "$program" -d mlx5_0 -p "$port" -n "$iters" \
        -s "$size" "$@" > "$tmp/server" 2>&1 &
    spid=$!
    for _ in $(seq 100); do
        ss -ltn 2> /dev/null | grep -q ":$port " && break
        sleep 0.05
    done
    timeout -k 2 "$limit" "$launcher" -- "$program" -d mlx5_0 -p "$port" -n "$iters" \
        -s "$size" "$@" 127.0.0.1 > "$tmp/client" 2>&1
    crc=$?
    wait "$spid"
    src=$?
    # The row: #bytes #iterations t_min t_max t_typical t_avg ...
    avg=$(awk -v s="$size" '$1 == s && $2 ~ /^[0-9]+$/ { print $6; exit }' "$tmp/client")
    if [ "$crc" != 0 ] || [ "$src" != 0 ] || [ -z "$avg" ]; then
        echo "exit $crc/$src: $(grep -v '^ *$' "$tmp/client" | tail -n 1)" > "$tmp/why"
        return 1
    fi
    echo "$avg"
}

best_of() { # best_of PROGRAM [ARGS...]: the lowest t_avg of $rounds runs, or empty
    local best="" v
    for ((r = 0; r < rounds; r++)); do
        v=$(one_run "$@") || { echo ""; return 1; }
        best=$(awk -v a="$v" -v b="$best" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }')
    done
    echo "$best"
}

rc=0
result() { # result NAME VALUE BASELINE
    if [ -z "$2" ] || [ -z "$3" ]; then
        "$report" --csv "$csv" --failed "$(cat "$tmp/why" 2> /dev/null || echo "no run")" \
            "$1" us lower 1.0 "${3:-0}"
    else
        "$report" --csv "$csv" "$1" us lower 1.0 "$3" "$2"
    fi || rc=1
}

base=$("$tcp" "$size" "$iters") || { echo "TCP baseline failed" > "$tmp/why"; base=""; }
ud=$(best_of ib_send_lat -c UD)
send=$(best_of ib_send_lat)
write=$(best_of ib_write_lat)
dc=$(best_of ib_write_lat -c DC)
echo "  t_avg (us): UD send ${ud:-?}, RC send ${send:-?}, RC write ${write:-?}," \
    "DC write ${dc:-?}; TCP ${base:-?}"
result perftest_ib_send_lat_ud_2B_vs_tcp_pingpong "$ud" "$base"
result perftest_ib_send_lat_rc_2B_vs_tcp_pingpong "$send" "$base"
result perftest_ib_write_lat_rc_2B_vs_tcp_pingpong "$write" "$base"
result perftest_ib_write_lat_dc_2B_vs_tcp_pingpong "$dc" "$base"
exit $rc
