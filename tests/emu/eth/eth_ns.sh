#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs softmlx5's Ethernet port test between two network namespaces joined by a veth pair:
# namespace A holds the port's interface (no address, so its kernel answers nothing) and runs
# the test program under the launcher with --eth; namespace B holds the other end (192.0.2.2,
# a permanent neighbour entry for the port's 192.0.2.1) and runs eth_peer.py, which the test
# drives over a Unix socket. Transmit checksum offload is off on both ends (tx_csum_off.py), so
# frames carry finished checksums. Skipped (77) without root or network namespaces.
#   eth_ns.sh RUN TEST_PROGRAM PEER_PY TX_CSUM_OFF_PY [ARGS...]  (ARGS after the program's "port")
set -u
run=$1 prog=$2 peer=$3 csum_off=$4
shift 4
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root to create network namespaces (ip netns)"
command -v ip >/dev/null || skip "iproute2's ip is missing"
command -v python3 >/dev/null || skip "python3 is missing"
tag=$$
a=smx5eth_a_$tag b=smx5eth_b_$tag
ifa=sxa$tag ifb=sxb$tag
sock=$(mktemp -u /tmp/smx5eth_$tag.XXXX.sock)
peer_pid=
cleanup() {
    [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null
    ip netns del "$a" 2>/dev/null
    ip netns del "$b" 2>/dev/null
    rm -f "$sock"
}
trap cleanup EXIT
ip netns add "$a" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$b" || skip "cannot create network namespaces"
ip link add "$ifa" type veth peer name "$ifb" || skip "cannot create a veth pair"
ip link set "$ifa" netns "$a"
ip link set "$ifb" netns "$b"
ip -n "$b" addr add 192.0.2.2/24 dev "$ifb"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "$ifa" up
ip -n "$b" link set "$ifb" up
ip netns exec "$a" python3 "$csum_off" "$ifa" || skip "cannot turn transmit checksum offload off"
ip netns exec "$b" python3 "$csum_off" "$ifb" || skip "cannot turn transmit checksum offload off"
mac_a=$(ip netns exec "$a" cat "/sys/class/net/$ifa/address")
ip -n "$b" neigh add 192.0.2.1 lladdr "$mac_a" dev "$ifb" nud permanent
ip netns exec "$b" python3 "$peer" "$sock" "$ifb" 192.0.2.1 &
peer_pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || { echo "eth_ns.sh: the peer did not start"; exit 1; }
ETH_TEST_PEER=$sock ETH_TEST_IF=$ifa ETH_TEST_IP=192.0.2.1 \
    ip netns exec "$a" "$run" --eth "$ifa" -- "$prog" port "$@"
rc=$?
# The peer has answered the test's last command (or never saw it: a skip); it goes now.
kill "$peer_pid" 2>/dev/null
wait "$peer_pid" 2>/dev/null
peer_pid=
exit $rc
