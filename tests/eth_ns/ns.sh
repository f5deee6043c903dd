# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Two network namespaces joined by a veth pair, for the Ethernet echo's tests and benchmark
# (sourced by tests/eth_ns/echo_test.sh and bench/eth/echo_bench.sh):
#
#   namespace A (ETHNS_A), interface ETHNS_IF_A: no IP address, so the kernel there answers
#       nothing; the echo (softmlx5 attached to it with --eth, or the packet-socket baseline)
#       owns it. Its MAC is ETHNS_MAC_A.
#   namespace B (ETHNS_B), interface ETHNS_IF_B: ETHNS_IP_B (10.x.y.1/24) and a permanent
#       neighbour entry for the echo's address ETHNS_IP_ECHO (10.x.y.2) -> ETHNS_MAC_A, so
#       that a plain UDP socket there sends to the echo without ARP.
#
# Transmit checksum offload is off on both ends (examples/tests/tx_csum_off.py): a veth would
# otherwise hand its peer UDP frames whose checksum is left to a NIC that does not exist. IPv6
# is off on both ends, so that no router solicitation or MLD report reaches the echo.
# Names carry a tag (the caller's pid by default), so that tests can run in parallel.
#
#   ethns_check              prints "skipped: ..." and exits 77 when not root or ip netns is
#                            unavailable
#   ethns_setup [TAG]        creates both; on failure prints why and returns 1. First removes
#                            the namespaces a run killed outright (ctest's timeout) left behind:
#                            those whose tag is the pid of a process that no longer exists
#   ethns_cleanup            kills what still runs in them and deletes both (also what is
#                            left of a failed setup)
#   ethns_a CMD...           runs CMD in namespace A (ethns_b: in B)

ETHNS_SKIP=77
ETHNS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ETHNS_CSUM_OFF=$ETHNS_DIR/../../examples/tests/tx_csum_off.py

ethns_check() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "skipped: the namespace tests need root (ip netns, veth, a packet socket)"
        exit $ETHNS_SKIP
    fi
    if ! command -v ip > /dev/null; then
        echo "skipped: iproute2's ip is not installed"
        exit $ETHNS_SKIP
    fi
    if ! ip netns list > /dev/null 2>&1; then
        echo "skipped: ip netns is unavailable here"
        exit $ETHNS_SKIP
    fi
    if ! command -v python3 > /dev/null; then
        echo "skipped: python3 is not installed"
        exit $ETHNS_SKIP
    fi
}

ethns_a() {
    ip netns exec "$ETHNS_A" "$@"
}

ethns_b() {
    ip netns exec "$ETHNS_B" "$@"
}

ethns_cleanup() {
    local ns pid
    for ns in "${ETHNS_A:-}" "${ETHNS_B:-}"; do
        [ -n "$ns" ] || continue
        # What is still running in a namespace of ours was started by the caller.
        for pid in $(ip netns pids "$ns" 2> /dev/null); do
            kill -KILL "$pid" 2> /dev/null
        done
        ip netns del "$ns" 2> /dev/null
    done
    return 0
}

# One step of the setup; prints the command that failed.
ethns_step() {
    local out
    if ! out=$("$@" 2>&1); then
        echo "ethns: '$*' failed: $out" >&2
        return 1
    fi
}

# Namespaces of ours whose creator is gone (it was killed before its cleanup ran).
ethns_reap() {
    local ns pid tag
    for ns in $(ip netns list 2> /dev/null | sed -n 's/^\(dgneth[0-9]*[ab]\).*/\1/p'); do
        tag=${ns#dgneth}
        tag=${tag%[ab]}
        kill -0 "$tag" 2> /dev/null && continue
        for pid in $(ip netns pids "$ns" 2> /dev/null); do
            kill -KILL "$pid" 2> /dev/null
        done
        ip netns del "$ns" 2> /dev/null
    done
}

ethns_setup() {
    local tag=${1:-$$} ns
    ethns_reap
    ETHNS_A=dgneth${tag}a
    ETHNS_B=dgneth${tag}b
    ETHNS_IF_A=ea$tag
    ETHNS_IF_B=eb$tag
    # 10.x.y.0/24 from the tag: any will do (each pair of namespaces is alone), a distinct one
    # keeps a stray packet of one test out of another's.
    ETHNS_NET=10.$((100 + tag / 256 % 128)).$((tag % 256))
    ETHNS_IP_B=$ETHNS_NET.1
    ETHNS_IP_ECHO=$ETHNS_NET.2
    ethns_step ip netns add "$ETHNS_A" || return 1
    ethns_step ip netns add "$ETHNS_B" || return 1
    ethns_step ip link add "$ETHNS_IF_A" type veth peer name "$ETHNS_IF_B" || return 1
    ethns_step ip link set "$ETHNS_IF_A" netns "$ETHNS_A" || return 1
    ethns_step ip link set "$ETHNS_IF_B" netns "$ETHNS_B" || return 1
    for ns in "$ETHNS_A" "$ETHNS_B"; do
        ip -n "$ns" link set lo up
    done
    # Before the links come up: no IPv6 address, no solicitation (a kernel without IPv6 has
    # no such keys: nothing to turn off).
    ethns_a sysctl -qw "net.ipv6.conf.$ETHNS_IF_A.disable_ipv6=1" 2> /dev/null
    ethns_b sysctl -qw "net.ipv6.conf.$ETHNS_IF_B.disable_ipv6=1" 2> /dev/null
    ethns_step ethns_a python3 "$ETHNS_CSUM_OFF" "$ETHNS_IF_A" || return 1
    ethns_step ethns_b python3 "$ETHNS_CSUM_OFF" "$ETHNS_IF_B" || return 1
    ethns_step ip -n "$ETHNS_A" link set "$ETHNS_IF_A" up || return 1
    ethns_step ip -n "$ETHNS_B" addr add "$ETHNS_IP_B/24" dev "$ETHNS_IF_B" || return 1
    ethns_step ip -n "$ETHNS_B" link set "$ETHNS_IF_B" up || return 1
    ETHNS_MAC_A=$(ip -n "$ETHNS_A" -o link show "$ETHNS_IF_A" |
        sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
    [ -n "$ETHNS_MAC_A" ] || { echo "ethns: no MAC on $ETHNS_IF_A" >&2; return 1; }
    ethns_step ip -n "$ETHNS_B" neigh replace "$ETHNS_IP_ECHO" lladdr "$ETHNS_MAC_A" \
        dev "$ETHNS_IF_B" nud permanent || return 1
}
