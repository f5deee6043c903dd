#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The far end of softmlx5's Ethernet port test: runs in network namespace B (the veth end with
an IPv4 address) and obeys the test program in namespace A over a Unix socket (a path: network
namespaces do not separate the file system). One command per line, one answer line each:

  info                       -> "ok MAC IPV4"
  send DPORT SPORT N SIZE... -> "ok": N UDP datagrams from SPORT to the port's address:DPORT,
                                payload byte j of datagram i = (i * 31 + j) & 0xff, sizes
                                cycling through SIZE...
  bind PORT                  -> "ok": a UDP socket on PORT from now on (before frames come)
  recv PORT N TIMEOUT_MS     -> "ok K HEX..." : the frames a packet socket on the interface saw
                                for UDP destination PORT (whole frames, hex), K of them, and
                                whether the UDP socket bound to PORT received each payload as
                                the kernel checked it ("udp=K2")
  quit

    eth_peer.py SOCKET_PATH IFNAME PORT_IPV4"""
import os
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def payload(i, size):
    return bytes(((i * 31 + j) & 0xFF) for j in range(size))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, ifname, port_ip = sys.argv[1:]
    mac = open(f"/sys/class/net/{ifname}/address").read().strip()
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.connect((port_ip, 9))
    my_ip = probe.getsockname()[0]
    probe.close()
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    raw.bind((ifname, 0))
    raw.setblocking(False)
    udp_socks = {}

    def udp_sock(port):
        if port not in udp_socks:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((my_ip, port))
            s.setblocking(False)
            udp_socks[port] = s
        return udp_socks[port]

    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    conn, _ = srv.accept()
    f = conn.makefile("rw")
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for line in f:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "quit":
            f.write("ok\n")
            f.flush()
            break
        if cmd == "info":
            f.write(f"ok {mac} {my_ip}\n")
        elif cmd == "bind":
            udp_sock(int(words[1]))
            f.write("ok\n")
        elif cmd == "send":
            dport, sport, n = int(words[1]), int(words[2]), int(words[3])
            sizes = [int(w) for w in words[4:]] or [64]
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((my_ip, sport))
            for i in range(n):
                s.sendto(payload(i, sizes[i % len(sizes)]), (port_ip, dport))
                time.sleep(0.002)
            s.close()
            f.write("ok\n")
        elif cmd == "recv":
            port, n, timeout = int(words[1]), int(words[2]), int(words[3]) / 1000.0
            us = udp_sock(port)
            frames, udp = [], []
            end = time.time() + timeout
            while time.time() < end and (len(frames) < n or len(udp) < n):
                r, _, _ = select.select([raw, us], [], [], max(0.0, end - time.time()))
                if raw in r:
                    while True:
                        try:
                            fr, addr = raw.recvfrom(65536)
                        except BlockingIOError:
                            break
                        if addr[2] == socket.PACKET_OUTGOING or len(fr) < 42:
                            continue
                        if fr[12:14] != b"\x08\x00" or fr[23] != 17:
                            continue
                        ihl = (fr[14] & 0xF) * 4
                        if struct.unpack("!H", fr[14 + ihl + 2:14 + ihl + 4])[0] == port:
                            frames.append(fr)
                if us in r:
                    while True:
                        try:
                            udp.append(us.recv(65536))
                        except BlockingIOError:
                            break
            f.write("ok %d udp=%d %s\n" % (len(frames), len(udp),
                                            " ".join(fr.hex() for fr in frames)))
        else:
            f.write("error unknown command\n")
        f.flush()
    conn.close()
    srv.close()
    os.unlink(path)


if __name__ == "__main__":
    main()
