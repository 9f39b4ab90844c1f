#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real Prometheus (Debian's prometheus) scraping a real storpulsed on loopback: storpulsed runs
over the md-raid1-recover fixture root with --listen 127.0.0.1:0, Prometheus scrapes it every
second, and its HTTP API must then return our series (the degraded md0, the recover progress,
the build info) with up == 1. Before that, the lazy start: libmicrohttpd is not loaded (nor an
HTTP thread started) until the first connection, and that first request is answered in full (no
503 while it starts). The same Prometheus loads contrib/prometheus/storpulse-rules.yml and
evaluates it every second: every rule must evaluate without an error, the fleet recording rules
give md0's site (a static target label) one array, degraded, and every PromQL expression of
grafana-dashboard.json must run without an error.
Usage: http-prometheus.py STORPULSED CONTRIB_PROMETHEUS_DIR"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
lib = __import__("http-lib")
ok = lib.ok

STORPULSED = sys.argv[1]
CONTRIB = os.path.abspath(sys.argv[2])
if not shutil.which("prometheus"):
    print("Bail out! prometheus is not installed (build-aux/install-deps.sh --test)")
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def query_status(port, q):
    """Run q; (status, error) as the query API answers, also for a 4xx."""
    u = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    try:
        with urllib.request.urlopen(u, timeout=5) as r:
            j = json.load(r)
    except urllib.error.HTTPError as e:
        try:
            j = json.load(e)
        except ValueError:
            return (f"HTTP {e.code}", "")
    except (OSError, ValueError) as e:
        return ("unreachable", str(e))
    return (j.get("status"), j.get("error", ""))


def rules(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/rules", timeout=5) as r:
            return [rule for g in json.load(r)["data"]["groups"] for rule in g["rules"]]
    except (OSError, ValueError, KeyError):
        return []


def dashboard_exprs():
    """Every PromQL expression of the dashboard: the targets, and the template variables'
    label_values(EXPR, LABEL) queries (Grafana syntax) as EXPR."""
    with open(os.path.join(CONTRIB, "grafana-dashboard.json")) as f:
        d = json.load(f)
    out = []
    for v in d.get("templating", {}).get("list", []):
        m = re.fullmatch(r"label_values\((.+),\s*\w+\)", v.get("query", "")) if v.get("type") == "query" else None
        if m:
            out.append(m.group(1))
    for p in d["panels"]:
        out += [t["expr"] for t in p.get("targets", []) if t.get("expr")]
    return [e.replace("$instance", ".*") for e in out]


def query(port, q):
    u = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    try:
        with urllib.request.urlopen(u, timeout=5) as r:
            return json.load(r)["data"]["result"]
    except (OSError, ValueError, KeyError):
        return None


with tempfile.TemporaryDirectory() as d:
    env = dict(os.environ)
    env.pop("NOTIFY_SOCKET", None)
    env.pop("LISTEN_FDS", None)
    daemon = subprocess.Popen([STORPULSED, "--root", os.path.join(lib.fixtures(), "md-raid1-recover"),
                               "--config", "/dev/null", "--runtime-dir", os.path.join(d, "run"),
                               "--state-dir", os.path.join(d, "state"), "--listen", "127.0.0.1:0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    addr = None
    deadline = time.time() + 20
    while time.time() < deadline and addr is None:
        line = daemon.stderr.readline()
        if not line:
            break
        m = re.search(r"HTTP endpoint on http://(\S+) ", line)
        if m:
            addr = m.group(1)
    ok(addr is not None, f"storpulsed serves HTTP ({addr})")
    if addr is None:
        daemon.kill()
        lib.done()

    def mapped():
        with open(f"/proc/{daemon.pid}/maps") as f:
            return "libmicrohttpd" in f.read()

    time.sleep(0.5)  # a late start would have happened by now
    ok(not mapped(), "no libmicrohttpd in the daemon before its first connection")
    ok(len(os.listdir(f"/proc/{daemon.pid}/task")) == 1, "no HTTP thread before it either")
    t0 = time.time()
    try:
        with urllib.request.urlopen(f"http://{addr}/metrics", timeout=10) as r:
            first = (r.status, r.read().decode())
    except OSError as e:
        first = (str(e), "")
    ok(first[0] == 200 and "storpulse_build_info" in first[1],
       f"the first request is answered with the metrics ({first[0]}, "
       f"{(time.time() - t0) * 1000:.0f} ms)")
    ok(mapped(), "libmicrohttpd loaded by the first connection")

    pport = free_port()
    cfg = os.path.join(d, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - {os.path.join(CONTRIB, "storpulse-rules.yml")}
scrape_configs:
  - job_name: storpulse
    static_configs:
      - targets: ["{addr}"]
        labels:
          site: lab
""")
    prom = subprocess.Popen(["prometheus", f"--config.file={cfg}",
                             f"--storage.tsdb.path={os.path.join(d, 'tsdb')}",
                             f"--web.listen-address=127.0.0.1:{pport}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    res = {}
    want = {
        "up": 'up{job="storpulse"}',
        "degraded": 'storpulse_volume_health{volume="md0",state="degraded"}',
        "progress": 'storpulse_sync_progress_ratio{volume="md0"}',
        "recover": 'storpulse_sync_action{volume="md0",action="recover"}',
        "build": "storpulse_build_info",
        "member": 'storpulse_array_member_state{volume="md0",member="vdb",state="rebuilding"}',
    }
    deadline = time.time() + 60
    while time.time() < deadline:
        for k, q in want.items():
            r = query(pport, q)
            if r:
                res[k] = r
        if len(res) == len(want) and res["up"][0]["value"][1] == "1":
            break
        time.sleep(1)
    val = lambda k: float(res[k][0]["value"][1]) if k in res else None  # noqa: E731
    ok(val("up") == 1, "Prometheus scrapes storpulsed (up == 1)", res.get("up"))
    ok(val("degraded") == 1, "md0 degraded in Prometheus")
    ok(val("progress") is not None and abs(val("progress") - 45056 / 522240) < 1e-9,
       "recover progress 45056/522240 in Prometheus", res.get("progress"))
    ok(val("recover") == 1, "sync action recover in Prometheus")
    ok(val("member") == 1, "vdb rebuilding in Prometheus")
    ok("build" in res and res["build"][0]["metric"].get("version"), "build info with a version")
    r = query(pport, 'scrape_samples_scraped{job="storpulse"}')
    ok(r and float(r[0]["value"][1]) > 100, "the whole exposition was ingested")

    # the rules: loaded, each evaluated at least once after the scrapes, none with an error
    deadline = time.time() + 30
    while time.time() < deadline:
        rl = rules(pport)
        if rl and all(not r.get("lastEvaluation", "").startswith("0001") for r in rl):
            break
        time.sleep(1)
    ok(len(rl) >= 20, f"Prometheus loaded the rules file ({len(rl)} rules)")
    bad = [(r["name"], r.get("lastError")) for r in rl if r.get("health") != "ok"]
    ok(rl and not bad, "every rule evaluates without an error", bad)
    deadline = time.time() + 20
    while time.time() < deadline:
        deg = query(pport, 'site:storpulse_arrays_degraded:sum{site="lab"}')
        arr = query(pport, 'site:storpulse_arrays:count{site="lab"}')
        if deg and arr:
            break
        time.sleep(1)
    ok(deg and float(deg[0]["value"][1]) == 1, "fleet: one array degraded at site lab (md0)", deg)
    ok(arr and float(arr[0]["value"][1]) == 1, "fleet: one array at site lab", arr)
    exprs = dashboard_exprs()
    errs = [(e, query_status(pport, e)) for e in exprs]
    errs = [x for x in errs if x[1][0] != "success"]
    ok(len(exprs) >= 10 and not errs, f"the dashboard's {len(exprs)} expressions run without an error", errs)
    prom.terminate()
    prom.wait(10)
    daemon.terminate()
    ok(daemon.wait(10) == 0, "storpulsed exits 0 on SIGTERM")
lib.done()
