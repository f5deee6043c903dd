#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pingpong_netns.sh LAUNCHER PROGRAM [OPTION...]: the cross-host path of the
# wire. One of Debian's ping-pongs (ibv_rc_pingpong, ibv_uc_pingpong,
# ibv_ud_pingpong, ibv_srq_pingpong, ibv_xsrq_pingpong), server and client
# with the OPTIONs given, under softmlx5-run in two network namespaces
# joined by a veth pair (two test hosts made by this test), so the devices cannot share abstract Unix sockets
# and must connect over TCP to the address given to the launcher.
set -u
run=$1
pingpong=$2
shift 2
name=$(basename "$pingpong")
command -v "$pingpong" >/dev/null || { echo "skipped: $pingpong is not installed (ibverbs-utils)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skipped: network namespaces need root"; exit 77; }
command -v ip >/dev/null || { echo "skipped: iproute2's ip is missing"; exit 77; }

a=dgn$$a
b=dgn$$b
out=$(mktemp -d)
cleanup() {
    ip netns del "$a" 2>/dev/null
    ip netns del "$b" 2>/dev/null
    rm -rf "$out"
}
trap cleanup EXIT
ip netns add "$a" && ip netns add "$b" || { echo "skipped: cannot create network namespaces"; exit 77; }
ip link add "v$a" type veth peer name "v$b" || { echo "skipped: cannot create a veth pair"; exit 77; }
ip link set "v$a" netns "$a"
ip link set "v$b" netns "$b"
ip -n "$a" addr add 192.0.2.1/24 dev "v$a"
ip -n "$b" addr add 192.0.2.2/24 dev "v$b"
for ns in "$a" "$b"; do
    ip -n "$ns" link set lo up
done
ip -n "$a" link set "v$a" up
ip -n "$b" link set "v$b" up

port=18515
ip netns exec "$a" "$run" --addr 192.0.2.1 -- "$pingpong" -g 0 -p "$port" "$@" >"$out/server" 2>&1 &
server=$!
for _ in $(seq 50); do
    ip netns exec "$a" ss -ltn 2>/dev/null | grep -q ":$port " && break
    sleep 0.1
done
ip netns exec "$b" "$run" --addr 192.0.2.2 -- "$pingpong" -g 0 -p "$port" "$@" 192.0.2.1 \
    >"$out/client" 2>&1
client_rc=$?
wait "$server"
server_rc=$?
echo "--- server in $a (exit $server_rc)"; cat "$out/server"
echo "--- client in $b (exit $client_rc)"; cat "$out/client"
if [ "$server_rc" -eq 0 ] && [ "$client_rc" -eq 0 ] && grep -qE "Mbit/sec|^success$" "$out/client"; then
    echo "$name${*:+ $*} across two hosts over TCP: passed"
    exit 0
fi
echo "$name${*:+ $*} across two hosts over TCP: FAILED"
exit 1
