#!/usr/bin/python3.11
# SPDX-License-Identifier: GPL-2.0
"""httpclients: the clients an exporter meets, for tests/live/test_serve.sh.

  httpclients.py freeport                 a TCP port free on 127.0.0.1 now
  httpclients.py idle PORT WAIT           connect, send nothing: "closed S" once
                                          the server closes (S seconds), else
                                          "open" after WAIT seconds
  httpclients.py stall PORT N WAIT        N pipelined GET /metrics, nothing read
                                          (a small receive buffer): "closed" or
                                          "open" after WAIT seconds
  httpclients.py bigline PORT BYTES       a request line of BYTES: "status CODE"
                                          or "reset" (closed before a status)
  httpclients.py bighead PORT BYTES       headers of BYTES in all: the same
  httpclients.py flood SRC PORT N HOLD    N connections from address SRC:
                                          "connected N", then after HOLD seconds
                                          "open K" (those the server kept)
  httpclients.py trickle SRC PORT N WAIT  N connections from SRC, each a request
                                          line then a header every 2 s, never
                                          ending it: "connected N", then "cut N S"
                                          once the server closed all (S seconds),
                                          else "open K" after WAIT seconds
  httpclients.py scrape PORT N            N GET /metrics on one keep-alive
                                          connection: "ok N BYTES" (all 200)

Every address is the server's 127.0.0.1:PORT. Exits 1 on anything else
than what it prints.
"""
import http.client
import select
import socket
import sys
import threading
import time

HOST = "127.0.0.1"


def closed_within(s, wait):
    """Reads and discards until EOF or a reset (True), or wait seconds (False)"""
    end = time.monotonic() + wait
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return False
        r, _, _ = select.select([s], [], [], left)
        if not r:
            return False
        try:
            if not s.recv(1 << 16):
                return True
        except OSError:
            return True


def freeport():
    s = socket.socket()
    s.bind((HOST, 0))
    print(s.getsockname()[1])
    s.close()


def idle(port, wait):
    t0 = time.monotonic()
    s = socket.create_connection((HOST, port))
    if closed_within(s, wait):
        print("closed %.1f" % (time.monotonic() - t0))
    else:
        print("open")


def stall(port, n, wait):
    s = socket.socket()
    # a small window, so that the server's writes block soon
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((HOST, port))
    req = b"GET /metrics HTTP/1.1\r\nHost: kfit\r\n\r\n" * n
    s.settimeout(wait)
    try:
        s.sendall(req)
    except OSError:
        pass	# the server may stop reading first: what it does next is the test
    print("sent", flush=True)
    time.sleep(wait)
    # now read: what the server sent, then its close
    print("closed" if closed_within(s, 5) else "open")


def status_of(port, data):
    """Sends data while a thread reads the reply: the status, or None"""
    s = socket.create_connection((HOST, port))
    got = []

    def reader():
        buf = b""
        try:
            while b"\r\n" not in buf:
                d = s.recv(4096)
                if not d:
                    break
                buf += d
        except OSError:
            pass
        got.append(buf)

    t = threading.Thread(target=reader)
    t.start()
    try:
        s.sendall(data)
    except OSError:
        pass	# closed after answering: the reader has the answer
    t.join(30)
    s.close()
    line = got[0].split(b"\r\n")[0] if got else b""
    parts = line.split()
    if len(parts) >= 2 and parts[0].startswith(b"HTTP/"):
        return parts[1].decode()
    return None


def bigline(port, size):
    code = status_of(port, b"GET /" + b"a" * size + b" HTTP/1.1\r\nHost: kfit\r\n\r\n")
    print("status %s" % code if code else "reset")


def bighead(port, size):
    line = b"X-Filler: " + b"b" * 990 + b"\r\n"
    head = b"GET /metrics HTTP/1.1\r\nHost: kfit\r\n" + line * (size // len(line)) + b"\r\n"
    code = status_of(port, head)
    print("status %s" % code if code else "reset")


def connect_from(src, port, n, first=b""):
    """n connections from address src, each sending first; "connected N" said"""
    socks = []
    for _ in range(n):
        c = socket.socket()
        c.bind((src, 0))
        c.settimeout(10)
        c.connect((HOST, port))
        if first:
            c.sendall(first)
        socks.append(c)
    print("connected %d" % len(socks), flush=True)
    return socks


def flood(src, port, n, hold):
    socks = connect_from(src, port, n)
    time.sleep(hold)
    kept = 0
    for c in socks:
        kept += not closed_within(c, 0.01)
    print("open %d" % kept)


def trickle(src, port, n, wait):
    socks = connect_from(src, port, n, b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    t0 = time.monotonic()
    while socks and time.monotonic() - t0 < wait:
        time.sleep(2)
        left = []
        for c in socks:
            try:
                c.sendall(b"X-Slow: 1\r\n")
                if not closed_within(c, 0):
                    left.append(c)
            except OSError:
                pass
        socks = left
    if socks:
        print("open %d" % len(socks))
    else:
        print("cut %d %.1f" % (n, time.monotonic() - t0))


def scrape(port, n):
    c = http.client.HTTPConnection(HOST, port, timeout=30)
    total = 0
    for i in range(n):
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            print("scrape %d: status %d" % (i, r.status))
            sys.exit(1)
        total += len(body)
    print("ok %d %d" % (n, total))


def main(a):
    cmds = {
        "freeport": (freeport, []),
        "idle": (idle, [int, float]),
        "stall": (stall, [int, int, float]),
        "bigline": (bigline, [int, int]),
        "bighead": (bighead, [int, int]),
        "flood": (flood, [str, int, int, float]),
        "trickle": (trickle, [str, int, int, float]),
        "scrape": (scrape, [int, int]),
    }
    if not a or a[0] not in cmds or len(a) - 1 != len(cmds[a[0]][1]):
        sys.stderr.write(__doc__)
        sys.exit(2)
    fn, types = cmds[a[0]]
    fn(*[t(v) for t, v in zip(types, a[1:])])


if __name__ == "__main__":
    main(sys.argv[1:])
