#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The web page in real headless Chromium against the test server, driven over the DevTools
protocol (page-cdp.js: Node with the `ws` package) at a desktop (1200 px) and a phone (390 px)
width, with axe-core run in the page at each: no accessibility violation. Screenshots are kept
(ARTIFACT_DIR/http-page-{desktop,phone,spare,faulty}.png).

The server's "now" is fixed (--now), so is the page's Date.now() (page-cdp.js), and Chromium
runs in TZ=Asia/Kolkata (UTC+05:30, an offset
that is not whole hours), so every time on the page is known in advance; nothing here reads the
wall clock. Expected values, by hand:
- md-raid1-recover: md0 (raid1, degraded) over vda and vdb; vdb is md's `spare` with a slot and
  recovery_start below the size, i.e. rebuilding (docs/json.md); vda in_sync, and slow from the
  server's --slow-member vda, which also makes md0's performance "degraded, culprit vda" and the
  disks' (no baseline) "learning"; sync_completed 45056/522240 = 8.6 %.
- The server's samples are 8 runs an hour apart, the last 1 h before now = 2026-12-06T07:00:00Z,
  i.e. 04:30..11:30 at +05:30: 7 h, so the axis steps 2 h (the first step giving <= 4 ticks)
  with ticks 06:00, 08:00, 10:00 local, and says "time (UTC+05:30)".
- Baseline band = median +- 3 MAD of the server's baseline: sequential 2.3e8 +- 4.5e7 B/s =
  1.85e8..2.75e8 (176..262 MiB/s), random p99 250 +- 60 us = 190..310 us, IOPS 9000 +- 1200.
- Events: now - 30, 45, 50, 60, 120 s with syslog levels 5, 3, 4, 2, 6.
- md-raid1-spare: vdc `spare` without a slot (a plain spare); md-raid10-degraded: vde `faulty`
  (the fixtures' dev-*/state, from the kernel).
Usage: http-page.py SERVER [ARTIFACT_DIR]"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
lib = __import__("http-lib")
ok = lib.ok

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = sys.argv[1]
ARTIFACTS = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
NOW = 1796540400  # 2026-12-06T07:00:00Z
NODE_MODULES = os.path.join(
    os.environ.get("STORPULSE_NODE_CACHE") or
    os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "storpulse"),
    "node_modules")
chromium, node = shutil.which("chromium"), shutil.which("node")
if not chromium or not node:
    print("Bail out! chromium or node is not installed (build-aux/install-deps.sh --test)")
    sys.exit(1)
if not os.path.exists(os.path.join(NODE_MODULES, "axe-core", "axe.min.js")):
    print(f"Bail out! axe-core is not in {NODE_MODULES} (build-aux/install-deps.sh --test)")
    sys.exit(1)
pinned = json.load(open(os.path.join(HERE, "..", "a11y", "package-lock.json")))
pinned = pinned["packages"]["node_modules/axe-core"]["version"]


def run_pages(visits):
    """visits: [(name, width, url)]; returns {name: result} from page-cdp.js."""
    args = [node, os.path.join(HERE, "page-cdp.js"), chromium, NODE_MODULES, ARTIFACTS,
            str(NOW * 1000)]
    args += [f"{n},{w},{u}" for n, w, u in visits]
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=240, env=dict(os.environ, TZ="Asia/Kolkata"))
        err = p.stderr if p.returncode != 0 else None
    except subprocess.TimeoutExpired:
        err = "page-cdp.js ran over 240 s"
    if err is not None:
        ok(False, "Chromium loaded every page", err)
        for s in servers.values():
            s.stop()
        lib.done()
    return {r["name"]: r for r in json.loads(p.stdout)}


def text(fragment):
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def chart_of(dom, volume, title):
    m = re.search(r'<figure class="chart"><figcaption>' + re.escape(f"{volume} {title}") +
                  r'.*?</figure>', dom, re.S)
    return m.group(0) if m else ""


servers = {name: lib.Server(SERVER, "--now", str(NOW), *args, root=root)
           for name, root, args in [("recover", "md-raid1-recover", ["--slow-member", "vda"]),
                                    ("spare", "md-raid1-spare", []),
                                    ("faulty", "md-raid10-degraded", [])]}
url = {name: f"http://{s.addr}/" for name, s in servers.items()}
pages = run_pages([("http-page-desktop", 1200, url["recover"]),
                   ("http-page-phone", 390, url["recover"]),
                   ("http-page-spare", 1200, url["spare"]),
                   ("http-page-faulty", 390, url["faulty"])])

for name, r in pages.items():
    ok('data-loaded="1"' in r["dom"], f"{name}: the page loaded its data")
    ok(r["scrollWidth"] <= r["innerWidth"],
       f"{name}: no horizontal scrolling at {r['width']} px "
       f"(document {r['scrollWidth']} px wide)")
    ok(r["axe"]["version"] == pinned and r["axe"]["violations"] == [],
       f"{name}: axe-core {r['axe']['version']} (pinned {pinned}): no violations "
       f"({r['axe']['passes']} rules passed)", json.dumps(r["axe"]["violations"], indent=1))
    ok(os.path.getsize(r["screenshot"]) > 10000, f"{name}: screenshot kept at {r['screenshot']}")

for name in ("http-page-desktop", "http-page-phone"):
    dom = pages[name]["dom"]
    w = pages[name]["width"]
    tree = re.search(r'<ul id="tree"[^>]*>(.*?)</ul>\s*</section>', dom, re.S)
    tree = tree.group(1) if tree else ""
    ok(re.search(r'<li class="h-degraded e-degraded" data-volume="md0">.*<ul>.*data-volume="vda".*'
                 r'data-volume="vdb".*</ul>', tree, re.S) is not None,
       f"{w} px: tree: md0 (degraded) holds vda and vdb", tree[:1500])
    ok("1 volume with problems: md0" in dom, f"{w} px: health at a glance names md0")
    ok('data-member="vda" data-state="in sync,slow"' in tree and
       'data-member="vdb" data-state="rebuilding"' in tree,
       f"{w} px: member states: vda in sync and slow, vdb rebuilding", tree[:2000])
    perf = dict(re.findall(r'data-volume="(\w+)"><span class="vol">.*?data-perf="\w+">([^<]*)<',
                           tree, re.S))
    ok(perf == {"md0": "performance: degraded, culprit vda", "vda": "performance: learning",
                "vdb": "performance: learning"}, f"{w} px: performance state per volume", perf)
    bar = re.search(r'<div class="sync" data-volume="md0">.*?role="progressbar"[^>]*'
                    r'aria-valuenow="([0-9.]+)"[^>]*><div class="fill" style="width: ([0-9.]+)%;?"',
                    dom, re.S)
    ok(bar is not None and bar.group(1) == "8.6" and bar.group(2) == "8.6",
       f"{w} px: md0's rebuild progress bar at 8.6 %", dom[dom.find('id="syncs"'):][:800])

    seq = chart_of(dom, "md0", "Sequential read")
    ok(re.findall(r'<text class="tick x"[^>]*>([^<]*)</text>', seq) == ["06:00", "08:00", "10:00"]
       and "time (UTC+05:30)" in seq,
       f"{w} px: time axis 06:00 08:00 10:00 in UTC+05:30", seq[:3000])
    ticks = re.findall(r'<text class="tick y"[^>]*>([^<]*)</text>', seq)
    ok('data-unit="MiB/s"' in seq and ">MiB/s</text>" in seq and ticks[:1] == ["0"] and
       len(ticks) >= 3, f"{w} px: value axis in MiB/s from 0 ({' '.join(ticks)})")
    band = re.search(r'<rect class="band"[^>]*data-low="([^"]+)" data-high="([^"]+)"', seq)
    ok(band is not None and float(band.group(1)) == 1.85e8 and float(band.group(2)) == 2.75e8 and
       "band ± 3 MAD (176–262)" in text(seq) and 'class="baseline"' in seq,
       f"{w} px: md0 sequential baseline 219 MiB/s with its band 176..262 MiB/s", seq[:3000])
    p99 = chart_of(dom, "md0", "Random read p99 latency")
    band = re.search(r'<rect class="band"[^>]*data-low="([^"]+)" data-high="([^"]+)"', p99)
    ok('data-unit="µs"' in p99 and band is not None and
       abs(float(band.group(1)) - 190e-6) < 1e-12 and abs(float(band.group(2)) - 310e-6) < 1e-12,
       f"{w} px: md0 p99 latency in µs with its band 190..310 µs", p99[:2000])
    iops = chart_of(dom, "md0", "Random read")
    ok('data-unit="kIOPS"' in iops and "band ± 3 MAD (7.80–10.2)" in text(iops),
       f"{w} px: md0 random IOPS in kIOPS with its band 7.8k..10.2k")
    vda = chart_of(dom, "vda", "Sequential read")
    ok(vda and 'class="band"' not in vda and "no baseline learned yet" in vda,
       f"{w} px: vda's charts say no baseline learned yet")
    ok(len(re.findall(r"<polyline", dom)) == 9, f"{w} px: 3 charts for each of 3 volumes")

    events = re.findall(r'<li class="event (sev-\w+)" data-priority="(\d)"><time datetime="([^"]+)">'
                        r'([^<]+)</time><span class="ago">([^<]+)</span><span class="sev">([^<]+)'
                        r'</span><span class="msg">([^<]+)</span>', dom)
    ok([e[2:6] for e in events] == [
        ("2026-12-06T06:59:30Z", "2026-12-06T12:29:30+05:30", "30 s ago", "notice"),
        ("2026-12-06T06:59:15Z", "2026-12-06T12:29:15+05:30", "45 s ago", "error"),
        ("2026-12-06T06:59:10Z", "2026-12-06T12:29:10+05:30", "50 s ago", "warning"),
        ("2026-12-06T06:59:00Z", "2026-12-06T12:29:00+05:30", "1 min ago", "critical"),
        ("2026-12-06T06:58:00Z", "2026-12-06T12:28:00+05:30", "2 min ago", "info")] and
       [e[0] for e in events] == ["sev-info", "sev-bad", "sev-warn", "sev-bad", "sev-info"],
       f"{w} px: events with ISO 8601 times (UTC offset) and severities", events)
    ok("1 critical · 1 error · 1 warning · 1 notice · 1 info" in dom,
       f"{w} px: event counts by severity")
    ok(pages[name]["errorsOnly"] == ["3", "2"],
       f"{w} px: 'error and worse' lists the error and the critical event",
       pages[name]["errorsOnly"])
    ok('<time id="updated" datetime="2026-12-06T07:00:00Z">2026-12-06T12:30:00+05:30</time>' in dom,
       f"{w} px: the data's time in the footer")

tree = pages["http-page-spare"]["dom"]
ok('data-member="vdc" data-state="spare"' in tree and 'data-member="vda" data-state="in sync"'
   in tree and 'data-perf="ok">performance: ok<' in tree, "md-raid1-spare: vdc is a spare, vda in "
   "sync, md0's performance ok")
tree = pages["http-page-faulty"]["dom"]
ok('data-member="vde" data-state="faulty"' in tree and 'class="member m-bad" data-member="vde"'
   in tree, "md-raid10-degraded: vde faulty (marked bad)")
for name, s in servers.items():
    ok(s.stop() == 0, f"server ({name}) exits 0")
lib.done()
