#!/usr/bin/env python3
"""Moves SIZE bytes over one loopback TCP connection between two processes, 1 MiB per call, and
prints the seconds it took (connect to last byte received). The raw-socket limit the fs get over
TCP is compared with: one copy into the kernel, one out, nothing else."""
import os
import socket
import sys
import time

def main():
    size = int(sys.argv[1])
    chunk = 1 << 20
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    pid = os.fork()
    if pid == 0:
        server.close()
        out = socket.create_connection(("127.0.0.1", port))
        buf = memoryview(bytearray(os.urandom(1024) * (chunk // 1024)))
        sent = 0
        while sent < size:
            n = min(chunk, size - sent)
            out.sendall(buf[:n])
            sent += n
        out.close()
        os._exit(0)
    start = time.monotonic()
    conn, _ = server.accept()
    buf = bytearray(chunk)
    view = memoryview(buf)
    got = 0
    while True:
        n = conn.recv_into(view)
        if n == 0:
            break
        got += n
    elapsed = time.monotonic() - start
    os.waitpid(pid, 0)
    if got != size:
        sys.exit("loopback_socket: received %d of %d bytes" % (got, size))
    print("%.4f" % elapsed)

if __name__ == "__main__":
    main()
