#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The web page in real headless Chromium against the test server (md-raid1-recover with probe
history and a baseline): after the scripts ran, the DOM holds the volume tree (md0 over vda and
vdb), md0's health, a rebuild progress bar at the fixture's 8.6 %, charts (SVG polylines) with
the baseline drawn, and the events. Keeps a screenshot (meson-logs/http-page.png) as an artifact.
Usage: http-page.py SERVER [ARTIFACT_DIR]"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
lib = __import__("http-lib")
ok = lib.ok

SERVER = sys.argv[1]
ARTIFACTS = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
chromium = shutil.which("chromium")
if not chromium:
    print("Bail out! chromium is not installed (build-aux/install-deps.sh --test)")
    sys.exit(1)

s = lib.Server(SERVER)
url = f"http://{s.addr}/"
with tempfile.TemporaryDirectory() as profile:
    base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            f"--user-data-dir={profile}", "--virtual-time-budget=5000"]
    p = subprocess.run(base + ["--dump-dom", url], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, timeout=120)
    dom = p.stdout
    shot = os.path.join(ARTIFACTS, "http-page.png")
    subprocess.run(base + ["--window-size=1200,1400", f"--screenshot={shot}", url],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)

ok(p.returncode == 0 and 'data-loaded="1"' in dom, "the page loaded its data", dom[-2000:])
tree = re.search(r'<ul id="tree"[^>]*>(.*?)</ul>\s*</section>', dom, re.S)
tree = tree.group(1) if tree else ""
ok(re.search(r'<li class="h-degraded e-degraded" data-volume="md0">.*<ul>.*data-volume="vda".*'
             r'data-volume="vdb".*</ul>', tree, re.S) is not None,
   "tree: md0 (degraded) holds vda and vdb", tree[:1500])
ok(re.search(r'<li class="h-ok e-ok" data-volume="vda">', tree) is not None, "vda is ok")
ok("1 volume with problems: md0" in dom, "health at a glance names md0")
bar = re.search(r'<div class="sync" data-volume="md0">.*?role="progressbar"[^>]*'
                r'aria-valuenow="([0-9.]+)"[^>]*><div class="fill" style="width: ([0-9.]+)%;?"',
                dom, re.S)
ok(bar is not None and bar.group(1) == "8.6" and bar.group(2) == "8.6",
   "md0's rebuild progress bar at 8.6 %", dom[dom.find('id="syncs"'):][:800])
ok(re.search(r"recover · 8\.6 % · 3\.7 MiB/s · ETA 1 min 3 s", dom) is not None,
   "speed and ETA next to the bar")
ok(len(re.findall(r"<polyline", dom)) >= 2, "charts drawn (SVG polylines)")
ok('class="baseline"' in dom, "the baseline is drawn in md0's charts")
ok("md0: recover started" in dom, "recent events listed")
ok(os.path.exists(shot) and os.path.getsize(shot) > 10000, f"screenshot kept at {shot}")
ok(s.stop() == 0, "server exits 0")
lib.done()
