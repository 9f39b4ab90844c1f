# SPDX-License-Identifier: MIT
"""Shared helpers for the HTTP integration tests: TAP output, the test server started on
loopback with a fixture tree, raw-socket requests. Imported by tests/integration/http-*.py."""
import os
import socket
import subprocess
import sys
import threading
import time

N = 0
FAILED = 0


def ok(cond, desc, diag=None):
    global N, FAILED
    N += 1
    print(("ok" if cond else "not ok") + f" {N} - {desc}", flush=True)
    if not cond:
        FAILED += 1
        if diag:
            for line in str(diag).splitlines()[:40]:
                print("#   " + line)


def done():
    print(f"1..{N}")
    if N == 0:
        sys.exit(1)
    sys.exit(1 if FAILED else 0)


def skip_all(why):
    print(f"1..0 # SKIP {why}")
    sys.exit(77)


def fixtures():
    return os.environ.get("STORPULSE_FIXTURES",
                          os.path.join(os.path.dirname(__file__), "..", "fixtures"))


class Server:
    """The test server on an ephemeral loopback port; .addrs = ["127.0.0.1:PORT", ...]."""

    def __init__(self, binary, *args, root="md-raid1-recover", listen=("127.0.0.1:0",),
                 probes=True, wrapper=(), env=None, wait=True):
        cmd = list(wrapper) + [binary, "--root", os.path.join(fixtures(), root)]
        for l in listen:
            cmd += ["--listen", l]
        if probes:
            cmd.append("--probes")
        cmd += list(args)
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env)
        self.addrs = []
        if wait:
            self.wait_ready()

    def wait_ready(self):
        deadline = time.time() + 10
        while time.time() < deadline:
            line = self.p.stdout.readline()
            if not line:
                break
            if line.startswith("listening "):
                self.addrs.append(line.split()[1])
            if line.strip() == "ready":
                break
        if not self.addrs:
            err = self.p.stderr.read() if self.p.poll() is not None else ""
            raise RuntimeError(f"test server did not start: {err}")
        self.addr = self.addrs[0]
        return self

    def alive(self):
        return self.p.poll() is None

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return -1

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode


def hostport(addr):
    host, port = addr.rsplit(":", 1)
    return host.strip("[]"), int(port)


def raw(addr, data, timeout=5.0, source=None):
    """Send bytes, return everything the server answers until it closes (or the timeout)."""
    host, port = hostport(addr)
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if source:
        s.bind((source, 0))
    s.connect((host, port))
    out = b""
    try:
        # A server that refuses an oversized request answers and closes before it has read all
        # of it: the send then fails, but its answer is already here to read.
        try:
            s.sendall(data)
        except (ConnectionResetError, BrokenPipeError):
            pass
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError, BrokenPipeError):
        pass
    s.close()
    return out


def status_of(resp):
    try:
        return int(resp.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return -1


def curl(*args):
    """Run curl; returns (exit status, stdout bytes)."""
    r = subprocess.run(["curl", "-sS", "--max-time", "10"] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout


class Dripper:
    """A dripping slowloris: `per_source` connections from each source address, each sending one
    byte of a never-ending request head every `interval` seconds and reconnecting when the server
    closes it (as a real attacker would). Runs in a thread until stop()."""

    def __init__(self, addr, sources, per_source=16, interval=4.0):
        self.addr, self.sources, self.per, self.interval = addr, sources, per_source, interval
        self.head = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Drip: " + b"a" * 100000
        self.stopping = threading.Event()
        self.reconnects = 0
        self.t = threading.Thread(target=self._run, daemon=True)

    def _connect(self, src):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((src, 0))
        try:
            s.connect(hostport(self.addr))
        except BlockingIOError:
            pass
        return [s, src, 0]

    def _drip(self, c):
        try:
            if c[2] > 0 and c[0].recv(4096) is not None:
                return False  # the server answered or closed it
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            return False
        try:
            c[0].send(self.head[c[2]:c[2] + 1])
            c[2] += 1
            return True
        except (BlockingIOError, InterruptedError):
            return True  # still connecting (in the backlog): try at the next tick
        except OSError:
            return False

    def _run(self):
        conns = [self._connect(src) for src in self.sources for _ in range(self.per)]
        while not self.stopping.wait(self.interval):
            for i, c in enumerate(conns):
                if not self._drip(c):
                    c[0].close()
                    conns[i] = self._connect(c[1])
                    self.reconnects += 1
        for c in conns:
            c[0].close()

    def start(self):
        self.t.start()
        return self

    def stop(self):
        self.stopping.set()
        self.t.join()


def free_port():
    """A loopback TCP port free at the moment of asking."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
