#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/http-abuse: storpulsed's HTTP endpoint (over the md-raid1-recover fixture, the shipped
[HTTP] limits) under 1000 concurrent keep-alive clients (asyncio, 16 from each of 63 loopback
addresses 127.1.x.y, each sending GET /metrics again as soon as the last answer is in, and
reconnecting when closed) plus the dripping slowloris of issue 24 (16 connections from each of
127.0.0.2-7, one byte every 4 s), for SECONDS. Meanwhile 127.0.0.1 scrapes once a second with a
10 s timeout, as Prometheus would (-1: connected, no answer; -2: not connected). Prints the scrapes' success rate and latency (p50, p99,
max), the load clients' answers, and the daemon's peak RSS (VmHWM). Never run by CI.
Usage: run.py STORPULSED [SECONDS] [CLIENTS]"""
import asyncio
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "integration"))
lib = __import__("http-lib")

DAEMON = sys.argv[1]
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 60
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"


async def keepalive_client(host, port, src, stop, stats):
    while not stop.is_set():
        try:
            r, w = await asyncio.open_connection(host, port, local_addr=(src, 0))
        except OSError:
            stats["connect_errors"] += 1
            await asyncio.sleep(0.1)
            continue
        try:
            while not stop.is_set():
                w.write(REQ)
                head = await r.readuntil(b"\r\n\r\n")
                m = re.search(rb"(?i)content-length: *(\d+)", head)
                await r.readexactly(int(m.group(1)) if m else 0)
                stats[int(head.split(b" ", 2)[1])] = stats.get(int(head.split(b" ", 2)[1]), 0) + 1
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            stats["closed"] += 1
        w.close()


def run_load(addr, stop_thread, stats):
    host, port = lib.hostport(addr)

    async def main():
        stop = asyncio.Event()
        tasks = [asyncio.create_task(keepalive_client(
            host, port, f"127.1.{i // 16}.{1 + i % 16}", stop, stats)) for i in range(CLIENTS)]
        while not stop_thread.is_set():
            await asyncio.sleep(0.2)
        stop.set()
        await asyncio.wait(tasks, timeout=15)
    asyncio.run(main())


def scrape(addr):
    t0 = time.monotonic()
    try:
        r = lib.raw(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    timeout=10, source="127.0.0.1")
    except OSError:
        return -2, time.monotonic() - t0  # not even connected within the timeout
    return lib.status_of(r), time.monotonic() - t0


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def vm(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def main():
    with tempfile.TemporaryDirectory() as d:
        conf = os.path.join(d, "c.conf")
        with open(conf, "w") as f:
            f.write("[Schedule]\nBuiltin=no\n")
        env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "LISTEN_FDS")}
        p = subprocess.Popen([DAEMON, "--root", os.path.join(lib.fixtures(), "md-raid1-recover"),
                              "--config", conf, "--runtime-dir", os.path.join(d, "run"),
                              "--state-dir", os.path.join(d, "state"), "--listen", "127.0.0.1:0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        addr = None
        while addr is None:
            line = p.stderr.readline()
            if not line:
                sys.exit("storpulsed did not start")
            m = re.search(r"HTTP endpoint on http://(\S+) ", line)
            addr = m.group(1) if m else None
        threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
        status, _ = scrape(addr)
        print(f"storpulsed pid {p.pid} at {addr}: first scrape {status}, "
              f"RSS {vm(p.pid, 'VmRSS')} KiB")
        stats = {"connect_errors": 0, "closed": 0}
        stop = threading.Event()
        load = threading.Thread(target=run_load, args=(addr, stop, stats))
        load.start()
        drip = lib.Dripper(addr, [f"127.0.0.{i}" for i in range(2, 8)], 16, 4).start()
        time.sleep(3)  # the load is up
        res = []
        t_end = time.monotonic() + SECONDS
        while time.monotonic() < t_end:
            t0 = time.monotonic()
            res.append(scrape(addr))
            time.sleep(max(0, 1 - (time.monotonic() - t0)))
        stop.set()
        drip.stop()
        load.join()
        hwm = vm(p.pid, "VmHWM")
        p.terminate()
        p.wait(10)
    ok = [t for s, t in res if s == 200]
    print(f"{SECONDS} s, {CLIENTS} keep-alive clients (127.1.x.y) + 96 dripping (127.0.0.2-7):")
    print(f"  scrapes from 127.0.0.1: {len(ok)}/{len(res)} answered 200 "
          f"({100 * len(ok) / max(len(res), 1):.1f} %), other: "
          f"{sorted(set(s for s, _ in res if s != 200))}")
    print(f"  latency p50 {1000 * pct(ok, 50):.1f} ms, p99 {1000 * pct(ok, 99):.1f} ms, "
          f"max {1000 * max(ok, default=float('nan')):.1f} ms")
    print(f"  load clients: {stats}  slowloris reconnects: {drip.reconnects}")
    print(f"  storpulsed peak RSS (VmHWM): {hwm} KiB")


main()
