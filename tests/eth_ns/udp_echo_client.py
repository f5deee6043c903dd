#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The plain-socket peer of the UDP echo tests: sends COUNT datagrams to ADDR:PORT from an
ordinary UDP socket, the payload sizes taken in turn from SIZES, at most WINDOW of them waiting
for their answer, and checks that every answer comes back from ADDR:PORT with exactly the bytes
sent. Each payload of 8 bytes or more starts with its sequence number; the rest is a pattern of
the sequence number and the offset. Shorter payloads (no room for it) are matched against the
oldest outstanding datagram of that size on the same socket. With --flows K the datagrams go
round-robin over K sockets (K source ports: K flows for the echo's queues to be spread over).

    udp_echo_client.py --addr ADDR --port PORT [--count N] [--sizes 18,1472] [--window W]
                       [--flows K] [--timeout S]

Prints one line,
    udp_echo_client: sent S echoed E lost L bad B (sizes ...)
and exits 0 when every datagram came back intact, 1 otherwise (the first bad answers are
described on stderr), 2 on a bad command line."""
import argparse
import collections
import select
import socket
import sys
import time


def payload(seq, size):
    """The datagram number seq carries: its sequence number, then a pattern."""
    head = seq.to_bytes(8, "little") if size >= 8 else b""
    return head + bytes((seq * 131 + i * 7 + 1) & 0xFF for i in range(len(head), size))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--addr", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--sizes", default="0,1,7,18,100,512,1472")
    p.add_argument("--window", type=int, default=16)
    p.add_argument("--flows", type=int, default=1)
    p.add_argument("--timeout", type=float, default=3.0,
                   help="seconds without an answer after which what is outstanding is lost")
    a = p.parse_args()
    try:
        sizes = [int(s) for s in a.sizes.split(",")]
    except ValueError:
        p.error("--sizes: a comma-separated list of payload lengths")
    if not sizes or min(sizes) < 0 or max(sizes) > 65507 or a.window < 1 or a.count < 0 \
            or not 1 <= a.flows <= 64:
        p.error("sizes 0..65507, window >= 1, count >= 0, flows 1..64")

    socks = []
    for _ in range(a.flows):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        sock.connect((a.addr, a.port))
        sock.setblocking(False)
        socks.append(sock)
    outstanding = collections.OrderedDict()  # seq -> payload
    short = collections.defaultdict(collections.deque)  # (flow, size) -> seqs without a header
    sent = echoed = lost = bad = 0
    complaints = 0
    last_answer = time.monotonic()

    def complain(msg):
        nonlocal complaints
        if complaints < 10:
            print("udp_echo_client: " + msg, file=sys.stderr)
        complaints += 1

    while sent < a.count or outstanding:
        while sent < a.count and len(outstanding) < a.window:
            size = sizes[sent % len(sizes)]
            data = payload(sent, size)
            try:
                socks[sent % a.flows].send(data)
            except BlockingIOError:
                break
            outstanding[sent] = data
            if size < 8:
                short[(sent % a.flows, size)].append(sent)
            sent += 1
        ready, _, _ = select.select(socks, [], [], 0.05)
        for sock in ready:
            flow = socks.index(sock)
            while True:
                try:
                    data, src = sock.recvfrom(65535)
                except BlockingIOError:
                    break
                last_answer = time.monotonic()
                if src != (a.addr, a.port):
                    bad += 1
                    complain(f"an answer from {src[0]}:{src[1]}, not {a.addr}:{a.port}")
                    continue
                if len(data) >= 8:
                    seq = int.from_bytes(data[:8], "little")
                elif short[(flow, len(data))]:
                    seq = short[(flow, len(data))].popleft()
                else:
                    seq = None
                want = outstanding.pop(seq, None)
                if want is None:
                    bad += 1
                    complain(f"an answer of {len(data)} bytes that matches no datagram in flight")
                elif data != want:
                    bad += 1
                    diff = next((i for i in range(min(len(data), len(want)))
                                 if data[i] != want[i]), min(len(data), len(want)))
                    complain(f"datagram {seq} ({len(want)} bytes) came back as {len(data)} bytes, "
                             f"first difference at byte {diff}")
                else:
                    echoed += 1
        if outstanding and time.monotonic() - last_answer > a.timeout:
            lost += len(outstanding)
            complain(f"{len(outstanding)} datagrams got no answer within {a.timeout} s "
                     f"(first: {next(iter(outstanding))})")
            outstanding.clear()
            short.clear()
            last_answer = time.monotonic()
    print(f"udp_echo_client: sent {sent} echoed {echoed} lost {lost} bad {bad} "
          f"(sizes {','.join(map(str, sizes))})", flush=True)
    return 0 if echoed == sent and lost == 0 and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
