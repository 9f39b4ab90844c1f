#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HTTP endpoint over the md-raid1-recover fixture, from the outside (curl, raw sockets):
content types and negotiation, gzip, HEAD, 404/405, path traversal, malformed and oversized
requests (4xx, no crash), 1000 concurrent connections and slowloris (answered or refused, memory
bounded, the server keeps serving), basic auth (sha-crypt and bcrypt hashes), TLS, IPv6, socket
activation, and `promtool check metrics` on the live output. Usage: http-server.py SERVER"""
import concurrent.futures
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import crypt  # noqa: E402  (libcrypt hashes; deprecated in Python, present in 3.11)
import gzip
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
lib = __import__("http-lib")
ok, curl, raw, status_of = lib.ok, lib.curl, lib.raw, lib.status_of

SERVER = sys.argv[1]
CTL = sys.argv[2]
SCHEMA_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "check-json-schema.py")


def headers_of(resp):
    head = resp.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    return {k.lower(): v.strip() for k, v in (h.split(":", 1) for h in head if ":" in h)}


def get(addr, path="/metrics", extra=b"", method=b"GET"):
    return raw(addr, method + b" " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n"
               b"Connection: close\r\n" + extra + b"\r\n")


def test_basics():
    s = lib.Server(SERVER, listen=("127.0.0.1:0", "[::1]:0"))
    a = s.addr
    r = get(a)
    h = headers_of(r)
    ok(status_of(r) == 200, "GET /metrics is 200")
    ok(h.get("content-type") == "text/plain; version=0.0.4; charset=utf-8",
       "0.0.4 content type", h)
    ok(b"\nstorpulse_volume_health{volume=\"md0\",state=\"degraded\"} 1\n" in r,
       "md0 degraded in the metrics")
    ok(h.get("x-content-type-options") == "nosniff", "nosniff on every response")

    prom3 = (b"Accept: application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,"
             b"application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;"
             b"escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n")
    r = get(a, extra=prom3)
    h = headers_of(r)
    ok(h.get("content-type") == "application/openmetrics-text; version=1.0.0; charset=utf-8",
       "Prometheus 3's Accept gets OpenMetrics", h)
    ok(r.endswith(b"# EOF\n"), "OpenMetrics ends in # EOF")
    r = get(a, extra=b"Accept: text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5\r\n")
    ok(headers_of(r).get("content-type", "").startswith("text/plain; version=0.0.4"),
       "text preferred by q-value gets text")

    r = get(a, extra=b"Accept-Encoding: gzip\r\n")
    h = headers_of(r)
    body = r.split(b"\r\n\r\n", 1)[1]
    ok(h.get("content-encoding") == "gzip", "gzip when asked")
    try:
        plain = gzip.decompress(body)
    except Exception as e:  # noqa: BLE001
        plain = str(e).encode()
    ok(plain.startswith(b"# HELP storpulse_build_info"), "gzip body decompresses to the text")
    ok(len(body) < len(plain) / 3, f"gzip compresses ({len(body)} of {len(plain)} bytes)")
    ok("gzip" not in headers_of(get(a, extra=b"Accept-Encoding: gzip;q=0, identity\r\n"))
       .get("content-encoding", ""), "gzip;q=0 is refused")

    rc, out = curl("--compressed", f"http://{a}/metrics")
    ok(rc == 0 and b"storpulse_build_info" in out, "curl --compressed")

    r = get(a, method=b"HEAD")
    h = headers_of(r)
    ok(status_of(r) == 200 and r.endswith(b"\r\n\r\n") and int(h.get("content-length", 0)) > 1000,
       "HEAD: headers and length, no body")
    for m in (b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"TRACE", b"BREW"):
        r = get(a, method=m)
        ok(status_of(r) == 405 and "GET" in headers_of(r).get("allow", ""), f"{m.decode()} is 405")
    r = raw(a, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
    ok(status_of(r) == 405, "POST with a body is 405")

    for p in ("/nope", "/api/v1/volumes/nope", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
              "/api/v1/volumes/..", "/api/v1/volumes/md0/../../../etc/passwd", "/web/app.js",
              "//etc/passwd", "/index.html%00.js", "/metrics/"):
        r = get(a, p)
        ok(status_of(r) in (400, 404) and b"root:" not in r, f"{p} is 404 (or 400)")

    r = get(a, "/api/v1/volumes")
    vols = json.loads(r.split(b"\r\n\r\n", 1)[1])
    ok(headers_of(r).get("content-type") == "application/json" and
       [v["name"] for v in vols] == ["md0", "vda", "vdb"], "/api/v1/volumes lists the fixture")
    want = json.loads(subprocess.run([CTL, "volumes", "--json", "--no-controller-cli", "--root",
                                      os.path.join(lib.fixtures(), "md-raid1-recover")],
                                     check=True, capture_output=True).stdout)
    # plus the daemon's probe verdict per volume, which a one-shot read does not have
    probe_problems = [v.pop("probe_problem", "absent") for v in vols]
    ok(vols == want and all(p is None or p in ("read-errors", "stalled", "probe-failed")
                            for p in probe_problems),
       "/api/v1/volumes equals the fixture's volumes --json, plus probe_problem")
    r = get(a, "/api/v1/volumes/md0")
    v = json.loads(r.split(b"\r\n\r\n", 1)[1])
    ok(v.get("sync_action") == "recover" and v.get("probe", {}).get("runs") == 8,
       "/api/v1/volumes/md0 with its probe record")
    r = get(a, "/api/v1/history")
    hist = json.loads(r.split(b"\r\n\r\n", 1)[1])
    ok(len(hist["volumes"]["md0"]["samples"]) == 8 and hist["events"][0]["event"] ==
       "rebuild-started", "/api/v1/history has samples and events")
    # one schema (docs/json.md): every API document validates, names and 10-digit numbers
    for path, definition in (("/api/v1/volumes", "volumes"), ("/api/v1/volumes/md0",
                             "volume_with_probe"), ("/api/v1/history", "history")):
        body = get(a, path).split(b"\r\n\r\n", 1)[1]
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            f.write(body)
            f.flush()
            p = subprocess.run([sys.executable, SCHEMA_CHECK, definition, f.name],
                               capture_output=True, text=True)
        ok(p.returncode == 0, f"{path} validates against the schema ({definition})", p.stderr)
    # md-raid1-recover: dev-vdb "spare" in slot 1, recovery under way: mdadm's "spare
    # rebuilding"; /metrics, the API and the CLI all say rebuilding
    metrics = get(a).decode()
    ok('storpulse_array_member_state{volume="md0",member="vdb",state="rebuilding"} 1' in metrics
       and v["member_states"]["vdb"] == "rebuilding" and want[0]["member_states"]["vdb"] ==
       "rebuilding", "vdb rebuilding in /metrics, the API and volumes --json")
    r = get(a, "/")
    h = headers_of(r)
    ok(status_of(r) == 200 and h.get("content-type") == "text/html; charset=utf-8", "/ is the page")
    ok("default-src 'none'" in h.get("content-security-policy", "") and
       h.get("x-frame-options") == "DENY" and h.get("referrer-policy") == "no-referrer",
       "security headers on the page", h)
    ok(status_of(get(a, "/app.js")) == 200 and status_of(get(a, "/style.css")) == 200,
       "page assets served")

    ok(any(x.startswith("[::1]:") for x in s.addrs), "listens on IPv6 too")
    v6 = [x for x in s.addrs if x.startswith("[::1]")][0]
    rc, out = curl("-g", f"http://{v6}/metrics")
    ok(rc == 0 and b"storpulse_build_info" in out, "IPv6 scrape")

    rc, out = curl(f"http://{a}/metrics")
    with tempfile.NamedTemporaryFile() as f:
        f.write(out)
        f.flush()
        p = subprocess.run(["promtool", "check", "metrics"], stdin=open(f.name, "rb"),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok(p.returncode == 0 and p.stdout.strip() == "", "promtool check metrics reports nothing",
       p.stdout)
    ok(s.alive(), "server alive after the basics")
    ok(s.stop() == 0, "server exits 0 on SIGTERM")


def test_abuse():
    s = lib.Server(SERVER, "--max-connections", "64", "--per-ip", "16", "--timeout", "2",
                   "--memory", "32768")
    a = s.addr
    rss0 = s.rss_kib()
    r = get(a, "/" + "a" * (1 << 20))
    ok(status_of(r) in (414, 431, 400), f"1 MB URL is refused with a 4xx ({status_of(r)})")
    r = get(a, extra=b"X-Big: " + b"b" * 100000 + b"\r\n")
    ok(400 <= status_of(r) < 500, f"100 kB header is refused with a 4xx ({status_of(r)})")
    for junk in (b"\x00\x01\x02garbage\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                 b"GET /metrics HTTP/1.1\r\n\r\n", b"GET  /metrics  HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
                 b"\r\n\r\n\r\n", b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"):
        r = raw(a, junk, timeout=4)
        st = status_of(r)
        ok(r == b"" or 400 <= st < 600 or st == 200, f"malformed {junk[:24]!r}: {st} or closed")
    ok(s.alive() and status_of(get(a)) == 200, "still serving after malformed requests")

    # slowloris: 16 connections from 127.0.0.1 that never finish their headers
    slow = []
    for _ in range(16):
        c = socket.create_connection(lib.hostport(a))
        c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        slow.append(c)
    r = get(a)
    ok(status_of(r) != 200, "the 17th connection from the same address is refused (per-IP limit)")
    r = raw(a, b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", source="127.0.0.2")
    ok(status_of(r) == 200, "another client address is served during slowloris")
    time.sleep(3.5)
    closed = 0
    for c in slow:
        c.settimeout(1)
        try:
            closed += c.recv(10) == b""
        except (ConnectionResetError, socket.timeout):
            closed += 1
        c.close()
    ok(closed == 16, f"slowloris connections closed by the idle timeout ({closed}/16)")

    # 1000 concurrent connections from many source addresses
    def one(i):
        try:
            r = raw(a, b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    timeout=10, source=f"127.0.{1 + i // 250}.{1 + i % 250}")
            return status_of(r)
        except OSError:
            return 0
    with concurrent.futures.ThreadPoolExecutor(200) as ex:
        res = list(ex.map(one, range(1000)))
    served = sum(1 for x in res if x == 200)
    other = [x for x in res if x not in (200, 0, -1)]
    ok(served > 0 and not other, f"1000 concurrent: {served} served, the rest refused, no errors")
    ok(s.alive() and status_of(get(a)) == 200, "still serving after the flood")
    rss1 = s.rss_kib()
    # Under ASan freed blocks wait in its quarantine (up to 256 MiB by default) instead of going
    # back to the allocator, so RSS grows with the number of requests served, not with a leak
    # (LeakSanitizer checks those); the bound is then that of the quarantine's first part.
    bound = 128 * 1024 if "ASAN_OPTIONS" in os.environ else 32 * 1024
    ok(rss1 - rss0 < bound, f"memory bounded (RSS {rss0} -> {rss1} KiB, bound {bound} KiB)")
    ok(s.stop() == 0, "server exits 0")


def test_auth():
    sha = crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_SHA512))
    bcr = crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 5))
    for name, h in (("sha-crypt", sha), ("bcrypt", bcr)):
        s = lib.Server(SERVER, "--auth-user", "prom", "--auth-hash", h)
        a = s.addr
        r = get(a)
        ok(status_of(r) == 401 and "basic" in headers_of(r).get("www-authenticate", "").lower(),
           f"{name}: no credentials is 401 with a challenge")
        rc, out = curl("-u", "prom:wrong", "-o", "/dev/null", "-w", "%{http_code}",
                       f"http://{a}/metrics")
        ok(out == b"401", f"{name}: wrong password is 401")
        rc, out = curl("-u", "other:s3cret", "-o", "/dev/null", "-w", "%{http_code}",
                       f"http://{a}/metrics")
        ok(out == b"401", f"{name}: wrong user is 401")
        for _ in range(2):
            rc, out = curl("-u", "prom:s3cret", f"http://{a}/metrics")
        ok(rc == 0 and b"storpulse_build_info" in out, f"{name}: right password is served")
        r = get(a, extra=b"Authorization: Basic !!!notbase64\r\n")
        ok(status_of(r) in (400, 401), f"{name}: garbage Authorization is 4xx")
        ok(s.stop() == 0, f"{name}: server exits 0")
    p = subprocess.run([SERVER, "--root", os.path.join(lib.fixtures(), "md-raid1-recover"), "--listen", "127.0.0.1:0",
                        "--auth-user", "u", "--auth-hash", "plaintext"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=10)
    ok(p.returncode != 0 and "hash" in p.stderr, "a password that is not a hash is refused",
       p.stderr)


def test_tls():
    with tempfile.TemporaryDirectory() as d:
        key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
        p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                            key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                            "-addext", "subjectAltName=IP:127.0.0.1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if p.returncode != 0:
            ok(False, "openssl made a certificate")
            return
        s = lib.Server(SERVER, "--tls-cert", cert, "--tls-key", key)
        a = s.addr
        rc, out = curl("--cacert", cert, f"https://{a}/metrics")
        ok(rc == 0 and b"storpulse_build_info" in out, "TLS scrape with the CA")
        rc, out = curl("--cacert", cert, "-D", "-", "-o", "/dev/null", f"https://{a}/")
        ok(b"strict-transport-security" in out.lower(), "HSTS over TLS")
        rc, out = curl(f"http://{a}/metrics")
        ok(rc != 0 or b"storpulse_build_info" not in out, "plain HTTP on the TLS port gets nothing")
        ok(s.alive(), "TLS server alive after a plain-text client")
        ok(s.stop() == 0, "TLS server exits 0")


def free_port():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def activated(port, listen=()):
    """The server under systemd-socket-activate listening on 127.0.0.1:port, which starts it at
    the first connection: that one (a /metrics scrape) is made while it starts. Returns the
    server and curl's (exit status, output) of that first scrape."""
    s = lib.Server(SERVER, listen=listen, wait=False,
                   wrapper=("systemd-socket-activate", "-l", f"127.0.0.1:{port}"))
    time.sleep(0.3)
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        fut = ex.submit(curl, "--retry", "50", "--retry-connrefused", "--retry-delay", "0",
                        f"http://127.0.0.1:{port}/metrics")
        s.wait_ready()
        return s, fut.result()


def test_socket_activation():
    port = free_port()
    s, (rc, out) = activated(port)
    ok(s.addrs == [f"127.0.0.1:{port}"], f"serves the passed socket only ({s.addrs})")
    ok(rc == 0 and b"storpulse_build_info" in out, "the first connection is served")
    rc, out = curl(f"http://127.0.0.1:{port}/metrics")
    ok(rc == 0 and b"storpulse_build_info" in out, "scrape over the activated socket")
    ok(s.stop() == 0, "activated server exits 0")

    # passed sockets are the endpoint: a --listen beside them (the config's Listen= under the
    # shipped units, whose seccomp filter forbids internet sockets) is not bound
    oport = free_port()
    s, (rc, out) = activated(port, listen=(f"127.0.0.1:{oport}",))
    ok(s.addrs == [f"127.0.0.1:{port}"], f"with --listen too, serves the passed socket only ({s.addrs})")
    ok(rc == 0 and b"storpulse_build_info" in out, "the passed socket is served")
    rc, out = curl(f"http://127.0.0.1:{oport}/metrics")
    ok(rc != 0, f"--listen 127.0.0.1:{oport} beside a passed socket is not bound (curl exit {rc})")
    ok(s.stop() == 0, "activated server exits 0")


def test_bad_listen():
    for bad in ("nope", "1.2.3.4", "127.0.0.1:99999", "[::1:80", "300.0.0.1:80"):
        p = subprocess.run([SERVER, "--root", os.path.join(lib.fixtures(), "md-raid1-recover"), "--listen", bad],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=10)
        ok(p.returncode != 0 and "listen address" in p.stderr, f"--listen {bad} is refused",
           p.stderr)


test_basics()
test_abuse()
test_auth()
test_tls()
test_socket_activation()
test_bad_listen()
lib.done()
