#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turns transmit checksum offload off on a network interface (ethtool -K IF tx off, with no
ethtool installed): a veth otherwise hands its peer UDP and TCP frames whose checksums are left
to a NIC that does not exist, which a packet socket or softmlx5's port then reads unfinished.
    tx_csum_off.py IFNAME"""
import array
import fcntl
import socket
import struct
import sys

SIOCETHTOOL = 0x8946
ETHTOOL_STXCSUM = 0x17


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    value = array.array("B", struct.pack("II", ETHTOOL_STXCSUM, 0))
    ifreq = struct.pack("16sP", sys.argv[1].encode(), value.buffer_info()[0]).ljust(40, b"\0")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s, SIOCETHTOOL, ifreq)


if __name__ == "__main__":
    main()
