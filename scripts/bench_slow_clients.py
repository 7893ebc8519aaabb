#!/usr/bin/env python3
"""Normal requests while thousands of slow clients hold connections open.

Starts `vetro serve` on a fresh SQLite database, opens SLOW connections that
each send half a request head and then nothing (reopening any the server
closes, so the count stays up), and meanwhile times GET /v1/environments on
one keep-alive connection. Prints the slow connections held, the latency
percentiles of the normal requests and the server's peak RSS.

    cargo build --release -p vetro-cli
    scripts/bench_slow_clients.py                    # 10,000 slow clients, 20 s
    scripts/bench_slow_clients.py --slow 2000 --seconds 5

Bounded: the run lasts --seconds after the slow clients are connected.
"""

import argparse
import http.client
import os
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HALF_HEAD = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "


def start_server(binary, work):
    db = f"sqlite://{work}/slow.db"
    token = subprocess.run([binary, "token", "create", "--db", db, "--project", "p", "--user", "u"],
                           check=True, capture_output=True, text=True).stdout.strip()
    out = open(f"{work}/serve.out", "w+")
    proc = subprocess.Popen([binary, "serve", "--db", db, "--listen", "127.0.0.1:0", "--workers", "0",
                             "--rate-limit", "0"], stdout=out, stderr=open(f"{work}/serve.log", "w"))
    for _ in range(200):
        out.seek(0)
        text = out.read()
        if "listening on http://" in text:
            addr = text.split("listening on http://")[1].split()[0]
            host, port = addr.rsplit(":", 1)
            return proc, token, (host, int(port))
        time.sleep(0.05)
    proc.kill()
    sys.exit("bench_slow_clients: the server did not start")


def open_slow(addr, sel):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(addr)
    except BlockingIOError:
        pass
    sel.register(s, selectors.EVENT_WRITE, "connecting")
    return s


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "vetro"))
    ap.add_argument("--slow", type=int, default=10_000, help="slow connections to hold open")
    ap.add_argument("--seconds", type=float, default=20.0, help="how long to measure")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.slow + 64 > hard:
        sys.exit(f"bench_slow_clients: the open-files limit ({hard}) is too low for {args.slow} connections")
    work = tempfile.mkdtemp(prefix="vetro-slow-")
    proc, token, addr = start_server(os.path.abspath(args.binary), work)
    sel = selectors.DefaultSelector()
    held = set()
    reopened = 0
    peak_rss = 0.0
    try:
        for _ in range(args.slow):
            held.add(open_slow(addr, sel))
        conn = http.client.HTTPConnection(*addr, timeout=10)
        times, errors = [], 0
        end = time.monotonic() + args.seconds
        next_request = time.monotonic()
        while time.monotonic() < end:
            for key, _ in sel.select(timeout=0.005):
                s = key.fileobj
                if key.data == "connecting":
                    try:
                        s.send(HALF_HEAD)
                        sel.modify(s, selectors.EVENT_READ, "waiting")
                    except OSError:
                        sel.unregister(s)
                        held.discard(s)
                        s.close()
                        held.add(open_slow(addr, sel))
                        reopened += 1
                else:
                    # The server answered or closed: the client comes back.
                    try:
                        data = s.recv(4096)
                    except OSError:
                        data = b""
                    if not data:
                        sel.unregister(s)
                        held.discard(s)
                        s.close()
                        held.add(open_slow(addr, sel))
                        reopened += 1
            if time.monotonic() >= next_request:
                t = time.perf_counter()
                try:
                    conn.request("GET", "/v1/environments", headers={"X-Auth-Token": token})
                    r = conn.getresponse()
                    r.read()
                    if r.status != 200:
                        errors += 1
                except (OSError, http.client.HTTPException):
                    errors += 1
                    conn.close()
                    conn = http.client.HTTPConnection(*addr, timeout=10)
                times.append(time.perf_counter() - t)
                next_request = time.monotonic() + 0.01
                peak_rss = max(peak_rss, rss_mb(proc.pid))
        times.sort()
        pct = lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1000
        print(f"slow connections held: {len(held)} (reopened after the server closed them: {reopened})")
        print(f"normal requests: {len(times)}, errors {errors}; latency p50 {pct(0.5):.1f} ms, "
              f"p99 {pct(0.99):.1f} ms, max {times[-1] * 1000:.1f} ms")
        print(f"server peak RSS: {peak_rss:.0f} MiB; alive: {proc.poll() is None}")
        return 0 if proc.poll() is None and pct(0.99) < 100 and errors == 0 else 1
    finally:
        for s in held:
            s.close()
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
