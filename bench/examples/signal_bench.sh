#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The signal paths of the examples against their plain counterparts, in one
# run, on softmlx5 (server and client on this host, each under softmlx5-run):
#
#   put_signal_lat_1B_rtt_vs_write_lat       put_signal_lat -w 0 (a write, then a fetch-add
#                                            on the peer's signal) vs write_lat: <= 1.5
#   put_immediate_lat_1B_rtt_vs_write_lat    put_signal_lat -w 1 (a write with immediate, the
#                                            peer's service adding it to a signal map): <= 1.5
#   put_signal_bw_1B_rate_vs_put_bw          put_signal_bw -w 0 vs put_bw, message rate: >= 0.5
#   put_immediate_bw_1B_rate_vs_put_bw       put_signal_bw -w 1 vs put_bw: >= 0.5
#
# Latency: the 1-byte row's round trip; rate: the 1-byte row's Mpps; the
# best of ROUNDS (default 3) runs each. The rate targets are this project's
# (two WQEs per put_signal; one write with immediate and a service per
# put_immediate): half of put_bw's rate.
#
#   bench/examples/signal_bench.sh [BUILD_DIR [CSV]]
#
# EXEC=cpu (default) runs the data path on CPU threads, EXEC=gpu in CUDA
# kernels (both processes under a private MPS daemon where one starts).
# Results are appended to CSV (default bench/results/softmlx5.csv) by
# softmlx5_report. Exits non-zero when a target is missed or a run failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
build=${1:-build}
csv=${2:-bench/results/softmlx5.csv}
launcher=$build/bin/softmlx5-run
report=$build/bench/softmlx5_report
probe=$build/bin/gpunetio_examples_gpu_probe
rounds=${ROUNDS:-3}
limit=60 # seconds one side may take

# shellcheck source=scripts/mps.sh
. scripts/mps.sh
for f in "$launcher" "$report" "$build/bin/gpunetio_verbs_write_lat"; do
    [ -x "$f" ] || { echo "signal_bench: $f is missing (build first)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'mps_stop; rm -rf "$tmp"' EXIT
mode=(--exec cpu)
if [ "${EXEC:-cpu}" = gpu ]; then
    bus=$("$probe") || { echo "signal_bench: $bus" >&2; exit 77; }
    mode=(-g "$(echo "$bus" | head -n 1)")
    mps_start "$tmp/mps" "$probe" && echo "signal_bench: both sides under a private MPS daemon"
fi

# One server + client run of example $1 with arguments $2...; the client's output in $tmp/client.
one_run() {
    local example=$build/bin/gpunetio_verbs_$1 spid port="" crc src
    shift
    timeout -k 2 "$limit" "$launcher" -- "$example" "${mode[@]}" "$@" -P 0 > "$tmp/server" 2>&1 &
    spid=$!
    for _ in $(seq 300); do
        port=$(sed -n 's/^Server listening on TCP port \([0-9]*\).*/\1/p' "$tmp/server")
        [ -n "$port" ] && break
        kill -0 "$spid" 2> /dev/null || break
        sleep 0.05
    done
    [ -n "$port" ] || { wait "$spid"; echo "the server did not start" > "$tmp/why"; return 1; }
    timeout -k 2 "$limit" "$launcher" -- "$example" "${mode[@]}" "$@" -c 127.0.0.1 -P "$port" \
        > "$tmp/client" 2>&1
    crc=$?
    wait "$spid"
    src=$?
    if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
        echo "exit $crc/$src: $(grep -h ERR "$tmp/client" "$tmp/server" | head -n 1)" > "$tmp/why"
        return 1
    fi
}

# The best (lowest round trip, or highest rate) of $rounds runs: best_of COLUMN lower|higher EX ARGS.
best_of() {
    local column=$1 dir=$2 best="" v
    shift 2
    for ((r = 0; r < rounds; r++)); do
        one_run "$@" || { echo ""; return 1; }
        v=$(awk -v c="$column" '$1 == "1" && $2 ~ /^[0-9]+$/ { print $c; exit }' "$tmp/client")
        [ -n "$v" ] || { echo "no 1-byte row" > "$tmp/why"; echo ""; return 1; }
        if [ -z "$best" ] || awk -v a="$v" -v b="$best" -v d="$dir" \
            'BEGIN { exit !((d == "lower") ? a + 0 < b + 0 : a + 0 > b + 0) }'; then
            best=$v
        fi
    done
    echo "$best"
}

rc=0
# result NAME UNIT lower|higher TARGET VALUE BASELINE
result() {
    if [ -z "$5" ] || [ -z "$6" ]; then
        "$report" --csv "$csv" --failed "$(cat "$tmp/why" 2> /dev/null || echo "no run")" \
            "$1" "$2" "$3" "$4" "${6:-0}"
    else
        "$report" --csv "$csv" "$1" "$2" "$3" "$4" "$6" "$5"
    fi || rc=1
}

echo "== latency (1-byte round trip, us, best of $rounds; ${EXEC:-cpu} execution)"
wl=$(best_of 4 lower write_lat -i 1000)
psl=$(best_of 4 lower put_signal_lat -i 1000 -w 0)
pim=$(best_of 4 lower put_signal_lat -i 1000 -w 1)
echo "  write_lat ${wl:-?}, put_signal_lat ${psl:-?}, put_immediate ${pim:-?}"
result put_signal_lat_1B_rtt_vs_write_lat us lower 1.5 "$psl" "$wl"
result put_immediate_lat_1B_rtt_vs_write_lat us lower 1.5 "$pim" "$wl"

echo "== message rate (1-byte messages, Mpps, best of $rounds)"
pb=$(best_of 4 higher put_bw -i 2048)
psb=$(best_of 4 higher put_signal_bw -i 2048 -w 0)
pib=$(best_of 4 higher put_signal_bw -i 2048 -w 1)
echo "  put_bw ${pb:-?}, put_signal_bw ${psb:-?}, put_immediate ${pib:-?}"
result put_signal_bw_1B_rate_vs_put_bw Mpps higher 0.5 "$psb" "$pb"
result put_immediate_bw_1B_rate_vs_put_bw Mpps higher 0.5 "$pib" "$pb"
exit $rc
