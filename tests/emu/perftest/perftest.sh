#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# perftest.sh LAUNCHER PROGRAM [OPTION...]: one of Debian's perftest
# benchmarks (ib_write_bw, ib_send_lat, ...), unmodified, server and client
# as two processes under softmlx5-run on a random TCP port, both with the
# OPTIONs given; both must exit 0 and the client must print at least one
# result row (message size, iterations, figures).
set -u
run=$1
program=$2
shift 2
name=$(basename "$program")
command -v "$program" >/dev/null || { echo "skipped: $program is not installed (perftest)"; exit 77; }
port=$((20000 + RANDOM % 20000))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

timeout 120 "$run" -- "$program" -d mlx5_0 -p "$port" "$@" >"$out/server" 2>&1 &
server=$!
for _ in $(seq 50); do
    ss -ltn 2>/dev/null | grep -q ":$port " && break
    sleep 0.1
done
timeout 120 "$run" -- "$program" -d mlx5_0 -p "$port" "$@" 127.0.0.1 >"$out/client" 2>&1
client_rc=$?
wait "$server"
server_rc=$?
echo "--- server (exit $server_rc)"; cat "$out/server"
echo "--- client (exit $client_rc)"; cat "$out/client"
[ "$server_rc" -eq 0 ] && [ "$client_rc" -eq 0 ] &&
    grep -qE '^ +[0-9]+ +[0-9]+ +[0-9.]+' "$out/client" || {
    echo "$name${*:+ $*} under softmlx5: FAILED"
    exit 1
}
echo "$name${*:+ $*} under softmlx5: passed"
