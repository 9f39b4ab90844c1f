#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/scrape: CPU time and latency per /metrics scrape of the HTTP endpoint (the test server
over generated fixture trees of 10, 100 and 1000 disks, with probe figures), side by side with
node_exporter (Debian's prometheus-node-exporter) scraping this machine, plus the server's RSS.
Prints ratios. Never run by CI. Usage: run.py BUILD_DIR [SCRAPES]"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

BUILD = sys.argv[1]
N_SCRAPES = int(sys.argv[2]) if len(sys.argv) > 2 else 200
SERVER = os.path.join(BUILD, "tests", "storpulse-http-test-server")
SRC = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "md-raid1-recover")
TICK = os.sysconf("SC_CLK_TCK")


def make_tree(root, n):
    """n virtio disks, each a copy of the fixture's vda."""
    vda = os.path.join(SRC, "sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda")
    os.makedirs(os.path.join(root, "sys/class/block"))
    os.makedirs(os.path.join(root, "run/udev/data"))
    os.makedirs(os.path.join(root, "proc"))
    for i in range(n):
        name = f"vd{i}"
        d = os.path.join(root, f"sys/devices/pci0000:00/0000:00:02.0/virtio{i}/block/{name}")
        shutil.copytree(vda, d, symlinks=True, ignore=shutil.ignore_patterns("holders"))
        os.makedirs(os.path.join(d, "holders"))
        with open(os.path.join(d, "dev"), "w") as f:
            f.write(f"254:{i * 16}\n")
        with open(os.path.join(d, "serial"), "w") as f:
            f.write(f"bench{i}\n")
        os.symlink(f"../../devices/pci0000:00/0000:00:02.0/virtio{i}/block/{name}",
                   os.path.join(root, "sys/class/block", name))
        shutil.copy(os.path.join(SRC, "run/udev/data/b254:0"),
                    os.path.join(root, f"run/udev/data/b254:{i * 16}"))


def cpu_seconds(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def scrape(url, pid):
    lat = []
    c0 = cpu_seconds(pid)
    size = 0
    for _ in range(N_SCRAPES):
        t = time.perf_counter()
        with urllib.request.urlopen(url, timeout=10) as r:
            size = len(r.read())
        lat.append(time.perf_counter() - t)
    cpu = (cpu_seconds(pid) - c0) / N_SCRAPES
    lat.sort()
    return cpu, lat[len(lat) // 2], lat[int(len(lat) * 0.99) - 1], size


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


port = free_port()
ne = subprocess.Popen(["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{port}"],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
ne_cpu, ne_p50, ne_p99, ne_size = scrape(f"http://127.0.0.1:{port}/metrics", ne.pid)
ne.terminate()
ne.wait()
print(f"node_exporter: {ne_cpu * 1e3:.3f} ms CPU/scrape, latency p50 {ne_p50 * 1e3:.2f} ms "
      f"p99 {ne_p99 * 1e3:.2f} ms, {ne_size} bytes")
for n in (10, 100, 1000):
    with tempfile.TemporaryDirectory() as root:
        make_tree(root, n)
        p = subprocess.Popen([SERVER, "--root", root, "--probes", "--listen", "127.0.0.1:0"],
                             stdout=subprocess.PIPE, text=True)
        addr = p.stdout.readline().split()[1]
        p.stdout.readline()
        cpu, p50, p99, size = scrape(f"http://{addr}/metrics", p.pid)
        rss = rss_kib(p.pid)
        p.terminate()
        p.wait()
    print(f"storpulse {n:4d} volumes: {cpu * 1e3:.3f} ms CPU/scrape, latency p50 "
          f"{p50 * 1e3:.2f} ms p99 {p99 * 1e3:.2f} ms, {size} bytes, RSS {rss} KiB; "
          f"vs node_exporter: CPU x{cpu / ne_cpu if ne_cpu else float('nan'):.2f}, "
          f"p50 x{p50 / ne_p50:.2f}")
