#!/usr/bin/env python3
"""Sends an NVMe/TCP ICReq to HOST:PORT and checks the answer is an ICResp (lab self-test).

The PDU layout (NVMe/TCP transport specification, ICReq/ICResp): common header type, flags,
header length, data offset, packet length (little endian); ICReq adds PDU format version,
host PDU data alignment, digest flags and MAXR2T. Exit 0 on an ICResp, 1 otherwise.
"""
import socket
import struct
import sys

host, port = sys.argv[1], int(sys.argv[2])
icreq = struct.pack("<BBBBI", 0x00, 0, 128, 0, 128) + struct.pack("<HBBI", 0, 0, 0, 0)
icreq += bytes(128 - len(icreq))
with socket.create_connection((host, port), timeout=30) as s:
    s.settimeout(30)
    s.sendall(icreq)
    answer = b""
    while len(answer) < 128:
        chunk = s.recv(128 - len(answer))
        if not chunk:
            break
        answer += chunk
if len(answer) < 8 or answer[0] != 0x01:
    print(f"no ICResp from {host}:{port}: got {answer[:8].hex() or 'nothing'}", file=sys.stderr)
    sys.exit(1)
pdu_type, _, hlen, _, plen = struct.unpack("<BBBBI", answer[:8])
print(f"ICResp from {host}:{port} (header {hlen} bytes, PDU {plen} bytes)")
