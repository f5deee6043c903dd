#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packets per second received and echoed by gpunetio_eth_udp_echo (softmlx5 attached with --eth
# to a veth end in a network namespace), against a baseline measured in the same run on the same
# interface: softmlx5_pkt_echo, a CPU program answering through a packet socket. The load and
# the measure are the same for both: softmlx5_udp_flood in the other namespace keeps WINDOW
# datagrams in flight for SECONDS and counts the answers that come back intact (pps = intact
# answers / time). Two frame sizes: 64 bytes (18-byte payload, 60 bytes on the veth + the 4-byte
# FCS a wire would add) and 1500 bytes (a full 1500-byte IP packet: 1472-byte payload).
#
#   eth_udp_echo_64B_pps_vs_pkt_socket      the example vs the baseline, 64-byte frames
#   eth_udp_echo_1500B_pps_vs_pkt_socket    the same, 1500-byte frames
#
# Best of ROUNDS (default 3) runs each, alternating baseline and example. Target: this
# project's, half the baseline's rate (softmlx5's port is itself a packet socket, and the echo
# adds the NIC's queues and a second process's thread on the same cores).
#
#   bench/eth/echo_bench.sh [BUILD_DIR [CSV]]
#
# EXEC=cpu (default) runs the echo's data path on CPU threads, EXEC=gpu in persistent CUDA
# kernels (skipped, 77, where no GPU works; RINGS=host puts the queues' rings in pinned host
# memory, echo -m host: rows eth_udp_echo_gpu_hostrings_*). QUEUES (default 1), WINDOW (32),
# RUN_SECONDS (3).
# Results are appended to CSV (default bench/results/softmlx5.csv) by softmlx5_report, and
# printed as a table. Exits 77 without root or ip netns, non-zero when a run failed or a target
# was missed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
build=${1:-build}
csv=${2:-bench/results/softmlx5.csv}
rounds=${ROUNDS:-3}
queues=${QUEUES:-1}
window=${WINDOW:-32}
seconds=${RUN_SECONDS:-3}
exec_mode=${EXEC:-cpu}
rings=${RINGS:-gpu}
port=4791
launcher=$build/bin/softmlx5-run
example=$build/bin/gpunetio_eth_udp_echo
baseline=$build/bench/softmlx5_pkt_echo
flood=$build/bench/softmlx5_udp_flood
report=$build/bench/softmlx5_report
probe=$build/bin/gpunetio_examples_gpu_probe

# shellcheck source=tests/eth_ns/ns.sh
. tests/eth_ns/ns.sh
ethns_check
for f in "$baseline" "$flood" "$report"; do
    [ -x "$f" ] || { echo "echo_bench: $f is missing (build first)" >&2; exit 2; }
done
mode=(--exec cpu)
if [ "$exec_mode" = gpu ]; then
    bus=$("$probe") || { echo "echo_bench: $bus"; exit 77; }
    mode=(-g "$(echo "$bus" | head -n 1)" -m "$rings")
fi
tmp=$(mktemp -d)
echo_pid=
cleanup() {
    [ -n "$echo_pid" ] && kill -KILL "$echo_pid" 2> /dev/null
    ethns_cleanup
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ethns_setup || { echo "echo_bench: could not set up the namespaces" >&2; exit 1; }

# One run: the echo (command in "$@", @IF@ for namespace A's interface) in namespace A, the
# flood of payload size $size from namespace B; prints the flood's pps, or nothing (the reason
# in $tmp/why).
one_run() {
    local cmd=() arg pps
    for arg in "$@"; do cmd+=("${arg//@IF@/$ETHNS_IF_A}"); done
    ip netns exec "$ETHNS_A" timeout -k 5 $((seconds + 60)) "${cmd[@]}" > "$tmp/echo" 2>&1 &
    echo_pid=$!
    for _ in $(seq 300); do
        grep -q ready "$tmp/echo" && break
        kill -0 "$echo_pid" 2> /dev/null || break
        sleep 0.1
    done
    if ! grep -q ready "$tmp/echo"; then
        echo "$(basename "${cmd[0]}") did not start: $(grep -m1 -E 'ERR|rror' "$tmp/echo")" \
            > "$tmp/why"
        kill -KILL "$echo_pid" 2> /dev/null
        wait "$echo_pid" 2> /dev/null
        echo_pid=
        return 1
    fi
    ip netns exec "$ETHNS_B" "$flood" -a "$ETHNS_IP_ECHO" -u "$port" -s "$size" -w "$window" \
        -t "$seconds" > "$tmp/flood" 2>&1
    kill -INT "$echo_pid" 2> /dev/null
    for _ in $(seq 100); do
        kill -0 "$echo_pid" 2> /dev/null || break
        sleep 0.1
    done
    kill -KILL "$echo_pid" 2> /dev/null
    wait "$echo_pid" 2> /dev/null
    echo_pid=
    pps=$(sed -n 's/^udp_flood: .* \([0-9]*\) pps.*/\1/p' "$tmp/flood")
    if [ -z "$pps" ] || grep -q 'bad [1-9]' "$tmp/flood"; then
        echo "$(cat "$tmp/flood")" > "$tmp/why"
        return 1
    fi
    echo "$pps"
}

rc=0
declare -A best_ex best_base
for size in 18 1472; do
    best_ex[$size]=
    best_base[$size]=
    for ((r = 1; r <= rounds; r++)); do
        vb=- ve=-
        if vb=$(one_run "$baseline" -i @IF@ -u "$port"); then
            [ -z "${best_base[$size]}" ] || [ "$vb" -gt "${best_base[$size]}" ] && best_base[$size]=$vb
        else
            echo "  baseline, payload $size, round $r: $(cat "$tmp/why")"
        fi
        if [ ! -x "$example" ]; then
            echo "gpunetio_eth_udp_echo is not built ($example)" > "$tmp/why.ex"
        elif ve=$(one_run "$launcher" --eth @IF@ -- "$example" -u "$port" -q "$queues" \
            "${mode[@]}"); then
            [ -z "${best_ex[$size]}" ] || [ "$ve" -gt "${best_ex[$size]}" ] && best_ex[$size]=$ve
        else
            cp "$tmp/why" "$tmp/why.ex"
            echo "  example, payload $size, round $r: $(cat "$tmp/why")"
        fi
        echo "  payload $size B, round $r: baseline ${vb:--} pps, example ${ve:--} pps"
    done
done

echo
echo "gpunetio_eth_udp_echo ($exec_mode execution$([ "$exec_mode" = gpu ] && echo ", rings in $rings memory")," \
    "$queues queue(s)) vs softmlx5_pkt_echo," \
    "window $window, best of $rounds x ${seconds} s:"
printf '%-7s %16s %18s %7s\n' frame "example (pps)" "pkt socket (pps)" ratio
for size in 18 1472; do
    frame=$([ "$size" = 18 ] && echo 64B || echo 1500B)
    ex=${best_ex[$size]}
    base=${best_base[$size]}
    ratio=$([ -n "$ex" ] && [ -n "$base" ] && awk -v a="$ex" -v b="$base" 'BEGIN { printf "%.2f", a / b }')
    printf '%-7s %16s %18s %7s\n' "$frame" "${ex:--}" "${base:--}" "${ratio:--}"
done
echo
for size in 18 1472; do
    frame=$([ "$size" = 18 ] && echo 64B || echo 1500B)
    name=eth_udp_echo_${frame}_pps_vs_pkt_socket
    [ "$exec_mode" = gpu ] && name=eth_udp_echo_gpu_${frame}_pps_vs_pkt_socket
    [ "$exec_mode" = gpu ] && [ "$rings" = host ] &&
        name=eth_udp_echo_gpu_hostrings_${frame}_pps_vs_pkt_socket
    ex=${best_ex[$size]}
    base=${best_base[$size]}
    if [ -n "$ex" ] && [ -n "$base" ]; then
        "$report" --csv "$csv" "$name" pps higher 0.5 "$base" "$ex" || rc=1
    else
        why=$(cat "$tmp/why.ex" 2> /dev/null || cat "$tmp/why" 2> /dev/null || echo "no run")
        "$report" --csv "$csv" --failed "$(echo "$why" | head -n 1)" "$name" pps higher 0.5 \
            "${base:-0}"
        rc=1
    fi
done
exit $rc
