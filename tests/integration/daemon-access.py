#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""storpulsed's own guards, from the outside, over a fixture root (no devices touched): one daemon
per runtime and state directory (a second start fails naming the first one's pid, and the first
stays reachable after the second exits); the control socket's two levels (ControlGroup= reads,
AdminGroup= or root changes; refusals and changes logged with uid and pid), tried as uid 65534
with only the one group; [HTTP] applied on reload (a new password in force at once, a bad
certificate keeps the old settings, a Listen= change says it waits for a restart).
Usage: daemon-access.py STORPULSED (root: it switches uids; skipped otherwise)"""
import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import crypt  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
lib = __import__("http-lib")
ok = lib.ok
STORPULSED = sys.argv[1]
NOBODY = 65534
READ_GROUP, ADMIN_GROUP = "users", "staff"  # in every Debian base system (gid 100, 50)

if os.getuid() != 0:
    lib.skip_all("needs root (switches to uid 65534 for the group tests)")
try:
    import grp
    GID = {g: grp.getgrnam(g).gr_gid for g in (READ_GROUP, ADMIN_GROUP)}
except KeyError as e:
    lib.skip_all(f"group {e} missing")


def start(d, conf, log):
    os.makedirs(d, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "LISTEN_FDS")}
    cmd = [STORPULSED, "--root", os.path.join(lib.fixtures(), "md-raid1-recover"), "--config",
           conf, "--runtime-dir", os.path.join(d, "run"), "--state-dir", os.path.join(d, "state")]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(log, "w"), env=env)


def wait_for(pred, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    return None


def control(sock, req, gid=None):
    """One request; as uid 65534 with only group gid when gid is given. Returns the reply."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            if gid is not None:
                os.setgroups([])
                os.setgid(gid)
                os.setuid(NOBODY)
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(20)
            s.connect(sock)
            s.sendall((json.dumps(req) + "\n").encode())
            for line in s.makefile():
                if json.loads(line).get("type") == "reply":
                    os.write(w, line.encode())
                    break
        except Exception as e:  # noqa: BLE001 (the child reports everything)
            os.write(w, json.dumps({"ok": False, "error": f"client: {e}"}).encode())
        os._exit(0)
    os.close(w)
    out = b""
    while b := os.read(r, 65536):
        out += b
    os.close(r)
    os.waitpid(pid, 0)
    try:
        return json.loads(out)
    except ValueError:
        return {"ok": False, "error": out.decode(errors="replace")}


def http_addr(log):
    with open(log) as f:
        m = re.search(r"HTTP endpoint on https?://(\S+) ", f.read())
    return m.group(1) if m else None


def scrape(addr, user, pw):
    auth = base64.b64encode(f"{user}:{pw}".encode())
    r = lib.raw(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                b"Authorization: Basic " + auth + b"\r\n\r\n", timeout=20)
    return lib.status_of(r)


def test_single_instance(d, conf):
    a = start(d, conf, os.path.join(d, "a.log"))
    sock = os.path.join(d, "run", "control")
    ok(wait_for(lambda: control(sock, {"command": "status"}).get("ok")), "first daemon answers")
    b = start(d, conf, os.path.join(d, "b.log"))
    try:
        rc = b.wait(20)
    except subprocess.TimeoutExpired:
        rc = None
        b.terminate()
        b.wait(10)
    with open(os.path.join(d, "b.log")) as f:
        blog = f.read()
    ok(rc == 2, f"a second daemon on the same directories exits 2 ({rc})", blog)
    ok(f"pid {a.pid}" in blog and "storpulsed.lock" in blog,
       "its message names the lock file and the first daemon's pid", blog)
    ok(os.path.exists(sock) and control(sock, {"command": "status"}).get("ok") is True,
       "the first daemon is still reachable after the second exited")
    c = subprocess.run([STORPULSED, "--root", os.path.join(lib.fixtures(), "md-raid1-recover"),
                        "--config", conf, "--runtime-dir", os.path.join(d, "run-other"),
                        "--state-dir", os.path.join(d, "state")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=20)
    ok(c.returncode == 2 and os.path.join(d, "state") in c.stderr,
       "another runtime directory but the same state directory: refused too", c.stderr)
    a.terminate()
    ok(a.wait(10) == 0, "first daemon exits 0")
    b = start(d, conf, os.path.join(d, "c.log"))
    ok(wait_for(lambda: control(sock, {"command": "status"}).get("ok")),
       "after it, a new daemon starts on the same directories (no stale lock)")
    b.terminate()
    b.wait(10)


def test_levels(d, conf):
    os.makedirs(d, exist_ok=True)
    for x in (d, os.path.dirname(d)):
        os.chmod(x, 0o755)  # uid 65534 reaches the socket
    log = os.path.join(d, "levels.log")
    p = start(d, conf, log)
    sock = os.path.join(d, "run", "control")
    wait_for(lambda: os.path.exists(sock))
    rd, ad = GID[READ_GROUP], GID[ADMIN_GROUP]
    ok(control(sock, {"command": "status"}, gid=rd).get("ok") is True,
       f"ControlGroup={READ_GROUP}: status")
    ok(control(sock, {"command": "report"}, gid=rd).get("ok") is True,
       f"ControlGroup={READ_GROUP}: report")
    for req in ({"command": "reload"}, {"command": "baseline-reset", "volumes": ["md0"]},
                {"command": "probe", "profile": "quick", "wait": False}):
        r = control(sock, req, gid=rd)
        ok(r.get("ok") is False and "permission denied" in r.get("error", ""),
           f"ControlGroup={READ_GROUP}: {req['command']} refused", r)
    ok(control(sock, {"command": "status"}, gid=GID["users"] + 100000).get("ok") is not True,
       "another group: nothing")
    r = control(sock, {"command": "reload"}, gid=ad)
    ok(r.get("ok") is True, f"AdminGroup={ADMIN_GROUP}: reload", r)
    p.terminate()
    p.wait(10)
    with open(log) as f:
        text = f.read()
    ok(re.search(rf"reload from uid {NOBODY} \(pid \d+\) refused", text) is not None,
       "the refusal is logged with uid and pid")
    ok(re.search(rf"reload by uid {NOBODY} \(pid \d+\)", text) is not None,
       "the change is logged with uid and pid")


def test_http_reload(d, conf_path, base):
    h1, h2 = (crypt.crypt(pw, crypt.mksalt(crypt.METHOD_SHA512)) for pw in ("one", "two"))

    port = lib.free_port()

    def write(extra, listen=f"127.0.0.1:{port}"):
        with open(conf_path, "w") as f:
            f.write(base + f"[HTTP]\nListen={listen}\nUser=prom\n" + extra)
    write(f"PasswordHash={h1}\n")
    log = os.path.join(d, "http.log")
    p = start(d, conf_path, log)
    sock = os.path.join(d, "run", "control")
    addr = wait_for(lambda: http_addr(log))
    ok(addr and scrape(addr, "prom", "one") == 200, f"password one is served ({addr})")
    write(f"PasswordHash={h2}\n")
    r = control(sock, {"command": "reload"})
    ok(r.get("ok") is True and "http_not_applied" not in r, "reload with a new hash", r)
    ok(scrape(addr, "prom", "two") == 200, "after the reload, password two is served")
    ok(scrape(addr, "prom", "one") == 401, "after the reload, password one is refused")
    bad = os.path.join(d, "bad.pem")
    with open(bad, "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\nnot one\n-----END CERTIFICATE-----\n")
    write(f"PasswordHash={h1}\nTLSCertificate={bad}\nTLSKey={bad}\n")
    r = control(sock, {"command": "reload"})
    ok("old settings" in r.get("http_not_applied", ""),
       "a bad certificate: the reload says the endpoint keeps its old settings", r)
    ok(scrape(addr, "prom", "two") == 200, "... and the old settings serve (password two)")
    write(f"PasswordHash={h2}\n", listen=f"127.0.0.1:{port} 127.0.0.1:{lib.free_port()}")
    p2 = control(sock, {"command": "reload"})
    ok("restart" in p2.get("http_not_applied", ""), "a Listen= change says it waits for a restart",
       p2)
    p.terminate()
    ok(p.wait(10) == 0, "daemon exits 0")


BASE = "[Daemon]\nLogLevel=debug\n[Schedule]\nBuiltin=no\n"
NO_HTTP = "[HTTP]\nEnable=no\n"  # not the default *:9977 of the machine
with tempfile.TemporaryDirectory() as d:
    conf = os.path.join(d, "a.conf")
    with open(conf, "w") as f:
        f.write(BASE + NO_HTTP)
    test_single_instance(os.path.join(d, "one"), conf)
    conf = os.path.join(d, "b.conf")
    with open(conf, "w") as f:
        f.write(BASE.replace("[Daemon]\n", f"[Daemon]\nControlGroup={READ_GROUP}\n"
                             f"AdminGroup={ADMIN_GROUP}\n") + NO_HTTP)
    test_levels(os.path.join(d, "two"), conf)
    test_http_reload(os.path.join(d, "three"), os.path.join(d, "c.conf"), BASE)
lib.done()
