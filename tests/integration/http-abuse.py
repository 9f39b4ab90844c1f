#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HTTP endpoint under abuse that must not blind it, from the outside (real sockets, several
source addresses on loopback): a dripping slowloris (16 connections from each of 127.0.0.2-7,
one byte every 4 s each, reconnecting when closed) while 127.0.0.1 scrapes: every scrape is
answered; a stream of wrong passwords from one address (a deliberately slow sha-crypt hash)
while another address scrapes with the right one: every scrape is answered and the flooding
address is told to slow down (429) with a Retry-After that is its real remaining back-off; TLS below 1.2 and CBC ciphers are refused. Usage:
http-abuse.py SERVER [drip|password_flood|tls_priorities...]"""
import concurrent.futures
import os
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import crypt  # noqa: E402  (libcrypt hashes; deprecated in Python, present in 3.11)

sys.path.insert(0, os.path.dirname(__file__))
lib = __import__("http-lib")
ok, curl, raw, status_of = lib.ok, lib.curl, lib.raw, lib.status_of

SERVER = sys.argv[1]
SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
# How long a scrape may wait before it counts as not answered: far beyond any answer (a scrape
# takes milliseconds), far below the attack's length. Not a speed assertion: a blinded server
# never answers within the attack, however long one waits.
PATIENCE = 10


def scrape_loop(a, rounds, pause, extra=b"", source="127.0.0.1"):
    res = []
    for _ in range(rounds):
        time.sleep(pause)
        res.append(status_of(raw(a, SCRAPE + extra + b"\r\n", timeout=PATIENCE, source=source)))
    return res


def test_drip():
    s = lib.Server(SERVER, "--max-connections", "64", "--per-ip", "16")
    a = s.addr
    d = lib.Dripper(a, [f"127.0.0.{i}" for i in range(2, 8)], per_source=16, interval=4).start()
    res = scrape_loop(a, 12, 3)
    d.stop()
    answered = sum(1 for x in res if x == 200)
    ok(answered == len(res), f"dripping slowloris (96 connections from 6 addresses): "
       f"{answered}/{len(res)} scrapes from 127.0.0.1 answered", res)
    ok(s.alive() and status_of(raw(a, SCRAPE + b"\r\n")) == 200, "still serving after the drip")
    ok(s.stop() == 0, "server exits 0")


def test_password_flood():
    # sha-crypt with many rounds: one check takes a noticeable while, as yescrypt does
    slow = crypt.crypt("s3cret", "$6$rounds=2000000$abcdefghijklmnop$")
    s = lib.Server(SERVER, "--auth-user", "prom", "--auth-hash", slow, "--per-ip", "16")
    a = s.addr
    right = b"Authorization: Basic " + __import__("base64").b64encode(b"prom:s3cret") + b"\r\n"
    wrong = b"Authorization: Basic " + __import__("base64").b64encode(b"prom:nope") + b"\r\n"
    r = raw(a, SCRAPE + right + b"\r\n", timeout=60)
    ok(status_of(r) == 200, "right password: served (first check)")
    stop = threading.Event()
    codes = []

    def flood():
        while not stop.is_set():
            codes.append(status_of(raw(a, SCRAPE + wrong + b"\r\n", timeout=60,
                                       source="127.0.0.2")))
            time.sleep(0.01)
    with concurrent.futures.ThreadPoolExecutor(16) as ex:
        futs = [ex.submit(flood) for _ in range(16)]
        time.sleep(2)
        res = scrape_loop(a, 8, 1, extra=right)
        stop.set()
        for f in futs:
            f.result()
    answered = sum(1 for x in res if x == 200)
    ok(answered == len(res), f"16 streams of wrong passwords from 127.0.0.2: {answered}/{len(res)} "
       f"scrapes with the right password from 127.0.0.1 answered", res)
    ok(401 in codes and 429 in codes, f"the flooding address gets 401, then 429 "
       f"({codes.count(401)} x 401, {codes.count(429)} x 429)")
    ok(s.stop() == 0, "server exits 0")


def retry_after(resp):
    for line in resp.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"retry-after:"):
            return int(line.split(b":", 1)[1])
    return None


def test_retry_after():
    # Wrong passwords one at a time from one address: after 5 failures in a row it is backed off
    # for a time that doubles (1 s, 2 s, 4 s, ...). Each 429's Retry-After must be that remaining
    # back-off: waiting it out (or longer, on a busy machine) always gets a check again (401,
    # never another 429), and as the back-off grows the value does too (> 1).
    s = lib.Server(SERVER, "--auth-user", "prom", "--auth-hash", crypt.crypt("s3cret", "$6$ab$"))
    a = s.addr
    wrong = b"Authorization: Basic " + __import__("base64").b64encode(b"prom:nope") + b"\r\n"
    ask = lambda: raw(a, SCRAPE + wrong + b"\r\n", timeout=30, source="127.0.0.3")  # noqa: E731
    first = [status_of(ask()) for _ in range(6)]
    ok(first[:5] == [401] * 5 and first[5] == 429, "five wrong passwords get 401, then 429", first)
    seen, honest = [], True
    r = ask()
    while status_of(r) == 429 and len(seen) < 4:
        ra = retry_after(r)
        seen.append(ra)
        if ra is None or not 1 <= ra <= 60:
            break
        time.sleep(ra + 0.2)
        after = status_of(ask())  # a check again: one more failure, a doubled back-off
        honest = honest and after == 401
        r = ask()
    ok(len(seen) == 4 and honest, f"waiting out each Retry-After ({seen}) gets a check again (401)")
    ok(any(x is not None and x > 1 for x in seen),
       "Retry-After grows with the back-off (not always 1)", seen)
    ok(s.stop() == 0, "server exits 0")


def tls_handshake(addr, **kw):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_ciphers(kw.get("ciphers", "ALL:@SECLEVEL=0"))
    if "version" in kw:
        ctx.minimum_version = ctx.maximum_version = kw["version"]
    try:
        with ctx.wrap_socket(__import__("socket").create_connection(lib.hostport(addr), 5)) as t:
            return t.version(), t.cipher()[0]
    except (ssl.SSLError, OSError):
        return None


def test_tls_priorities():
    with tempfile.TemporaryDirectory() as d:
        key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                        key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        s = lib.Server(SERVER, "--tls-cert", cert, "--tls-key", key)
        a = s.addr
        v = tls_handshake(a)
        ok(v is not None and v[0] in ("TLSv1.3", "TLSv1.2"), f"a default client gets {v}")
        v = tls_handshake(a, version=ssl.TLSVersion.TLSv1_2)
        ok(v is not None, f"TLS 1.2 is accepted ({v})")
        for ver in (ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1):
            v = tls_handshake(a, version=ver)
            ok(v is None, f"{ver.name} is refused ({v})")
        for c in ("AES128-SHA", "ECDHE-RSA-AES128-SHA", "AES256-GCM-SHA384"):
            v = tls_handshake(a, version=ssl.TLSVersion.TLSv1_2, ciphers=c + ":@SECLEVEL=0")
            ok(v is None, f"TLS 1.2 with only {c} (CBC or no forward secrecy) is refused ({v})")
        ok(s.stop() == 0, "TLS server exits 0")


for t in sys.argv[2:] or ("drip", "password_flood", "retry_after", "tls_priorities"):
    globals()["test_" + t]()
lib.done()
