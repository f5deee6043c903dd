#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pingpong.sh LAUNCHER PROGRAM [OPTION...]: runs one of Debian's ibverbs-utils
# ping-pongs (ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong,
# ibv_srq_pingpong, ibv_xsrq_pingpong), server and client, as two processes
# under softmlx5-run (RoCE, GID index 0) on a random TCP port, both with the
# OPTIONs given (-e: completion events); both must exit 0 and the client must
# print its closing line (its bandwidth; ibv_xsrq_pingpong's "success").
set -u
run=$1
pingpong=$2
shift 2
name=$(basename "$pingpong")
command -v "$pingpong" >/dev/null || { echo "skipped: $pingpong is not installed (ibverbs-utils)"; exit 77; }
port=$((20000 + RANDOM % 20000))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$run" -- "$pingpong" -g 0 -p "$port" "$@" >"$out/server" 2>&1 &
server=$!
for _ in $(seq 50); do
    ss -ltn 2>/dev/null | grep -q ":$port " && break
    sleep 0.1
done
"$run" -- "$pingpong" -g 0 -p "$port" "$@" 127.0.0.1 >"$out/client" 2>&1
client_rc=$?
wait "$server"
server_rc=$?
echo "--- server (exit $server_rc)"; cat "$out/server"
echo "--- client (exit $client_rc)"; cat "$out/client"
[ "$server_rc" -eq 0 ] && [ "$client_rc" -eq 0 ] && grep -qE "Mbit/sec|^success$" "$out/client" || {
    echo "$name${*:+ $*} under softmlx5: FAILED"
    exit 1
}
echo "$name${*:+ $*} under softmlx5: passed"
