#!/usr/bin/env python3
"""hostile_server.py MODE PORTFILE [SECONDS]: a hostile remote storage on 127.0.0.1.

It binds an ephemeral port, writes it to PORTFILE, answers every connection as MODE says
and stops by itself after SECONDS (default 60), whatever its clients do:
  http-flood     "HTTP/1.1 200 OK", then header lines without end
  http-chunked   200, chunked, 1 MiB chunks without end (past any cap)
  http-close     200, no length, bytes until the client closes
  http-length    200 with Content-Length: 3 GiB, then bytes without end
  redis-echo     a Redis that refuses AUTH echoing the password it was sent
"""
import socket
import sys
import threading
import time

mode, portfile = sys.argv[1], sys.argv[2]
life = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
stop_at = time.monotonic() + life


def read_request(c):
    data = b""
    while b"\r\n\r\n" not in data and time.monotonic() < stop_at:
        got = c.recv(65536)
        if not got:
            break
        data += got
    return data


def pump(c, head, piece):
    c.sendall(head)
    while time.monotonic() < stop_at:
        c.sendall(piece)


def serve(c):
    c.settimeout(max(0.1, stop_at - time.monotonic()))
    try:
        if mode == "redis-echo":
            while time.monotonic() < stop_at:
                data = c.recv(65536)
                if not data:
                    return
                args = data.split(b"\r\n")[2::2]  # *N, $len, arg, $len, arg ...
                if args and args[0].upper() == b"AUTH":
                    c.sendall(b"-WRONGPASS wrong password: " + args[-1] + b"\r\n")
                else:
                    c.sendall(b"$-1\r\n")
            return
        read_request(c)
        if mode == "http-flood":
            pump(c, b"HTTP/1.1 200 OK\r\n", b"X-Flood: " + b"y" * 60 + b"\r\n")
        elif mode == "http-chunked":
            chunk = b"x" * (1 << 20)
            pump(c, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                 b"100000\r\n" + chunk + b"\r\n")
        elif mode == "http-close":
            pump(c, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", b"x" * (1 << 20))
        elif mode == "http-length":
            pump(c, b"HTTP/1.1 200 OK\r\nContent-Length: 3221225472\r\n\r\n", b"x" * (1 << 20))
    except OSError:
        pass
    finally:
        c.close()


s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
s.settimeout(0.2)
with open(portfile + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename(portfile + ".tmp", portfile)
while time.monotonic() < stop_at:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    threading.Thread(target=serve, args=(c,), daemon=True).start()
s.close()
