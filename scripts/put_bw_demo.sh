#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gpunetio_verbs_put_bw's server and client on this machine, talking through
# softmlx5: on the GPU when the examples can use one here, otherwise with
# --exec cpu (CPU threads running the same data path, host memory). Prints
# the client's bandwidth table and the server's validation line; fails if
# either side fails or the server does not validate the data.
#
#   scripts/put_bw_demo.sh [EXAMPLE ARGS...]      e.g. -i 4096, -p 1, --exec cpu
#
# BUILD_DIR (default build) is the CMake build directory holding bin/.
#
# On the GPU both processes run under a private MPS daemon where
# nvidia-cuda-mps-control exists (scripts/mps.sh says why; GPUNETIO_MPS=0:
# never).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/mps.sh
. scripts/mps.sh

build=${BUILD_DIR:-build}
launcher=$build/bin/softmlx5-run
example=$build/bin/gpunetio_verbs_put_bw
probe=$build/bin/gpunetio_examples_gpu_probe
limit=${PUT_BW_DEMO_TIMEOUT:-300}

for f in "$launcher" "$example" "$probe"; do
    if [ ! -x "$f" ]; then
        echo "put_bw_demo: $f is missing: build first (cmake -S . -B $build && cmake --build $build)" >&2
        exit 1
    fi
done

tmp=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        sleep 0.5
        kill -9 "$server_pid" 2>/dev/null || true
    fi
    wait 2>/dev/null || true
    mps_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# GPU or CPU execution: the probe prints a usable GPU's bus id (exit 0) or why there is none (77).
mode=()
user_exec=0
for a in "$@"; do
    [ "$a" = "--exec" ] && user_exec=1
done
if [ $user_exec -eq 1 ]; then
    echo "== put_bw: execution as given on the command line"
elif probe_out=$("$probe" 2>&1); then
    bus=$(echo "$probe_out" | head -n 1)
    mode=(-g "$bus")
    if mps_start "$tmp/mps" "$probe"; then
        echo "== put_bw on GPU $bus (CUDA kernels, both processes under a private MPS daemon), through softmlx5"
    else
        echo "== put_bw on GPU $bus (CUDA kernels), through softmlx5"
        echo "   (no MPS: small puts wait for the other process's GPU time slice, about 2 ms each)"
    fi
else
    echo "== put_bw with --exec cpu (${probe_out#skipped: }), through softmlx5"
    mode=(--exec cpu)
fi

# Waits up to $limit s for pid; returns its exit status (124 if it had to be stopped).
wait_for() {
    local pid=$1 waited=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ $waited -ge $((limit * 10)) ]; then
            kill -9 "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            return 124
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    local rc=0
    wait "$pid" || rc=$?
    return $rc
}

# The server takes a free port (-P 0) and prints it.
"$launcher" -- "$example" "${mode[@]}" "$@" -P 0 >"$tmp/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 600); do
    port=$(sed -n 's/^Server listening on TCP port \([0-9]*\).*/\1/p' "$tmp/server.log")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "put_bw_demo: the server did not start:" >&2
    cat "$tmp/server.log" >&2
    exit 1
fi

# The client's table goes to the terminal as it is printed.
set +e
timeout --foreground -k 5 "$limit" "$launcher" -- "$example" "${mode[@]}" "$@" -c 127.0.0.1 -P "$port" 2>&1 |
    tee "$tmp/client.log"
client_rc=${PIPESTATUS[0]}
set -e
server_rc=0
wait_for "$server_pid" || server_rc=$?
server_pid=""

echo "== server"
cat "$tmp/server.log"
if [ "$server_rc" -ne 0 ] || [ "$client_rc" -ne 0 ]; then
    echo "put_bw_demo: FAILED (server exit $server_rc, client exit $client_rc)" >&2
    exit 1
fi
if ! grep -qF "Validation successful! Data received correctly from client." "$tmp/server.log"; then
    echo "put_bw_demo: FAILED: the server did not report a successful validation" >&2
    exit 1
fi
echo "put_bw_demo: OK"
