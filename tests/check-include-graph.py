#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Data flows one way (STYLE.md): a header or source of layer N may include only project headers
of layers <= N. Every project header must have a layer here; a new module fails this test until
it is placed. Prints TAP."""
import os
import re
import sys

LAYERS = {
    # L0 base
    "macro.h": 0, "string-table.h": 0, "log.h": 0, "time-util.h": 0, "parse-util.h": 0, "fileio.h": 0,
    "sysfs.h": 0,
    # L1 models (pure parsers)
    "md.h": 1, "mdstat.h": 1, "dm.h": 1, "blockstat.h": 1, "controller.h": 1,
    "controller-cli.h": 1,
    # L2 inputs
    "probe-target.h": 2, "probe-engine.h": 2, "volume.h": 2, "dm-status.h": 2,
    "inventory.h": 2, "discovery.h": 2, "md-watch.h": 2,
    # L3 stats
    "histogram.h": 3,
    # L2/L3 probe logic sits on the histogram
    "probe.h": 3, "probe-runner.h": 3,
    # L4 analysis
    "rebuild.h": 4,
    # L5 report / L6 wiring
    "ctl.h": 6,
}

def main(root):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    n = failed = 0
    headers = sorted(os.listdir(os.path.join(root, "include")))
    for h in headers:
        if not h.endswith(".h"):
            continue
        n += 1
        if h not in LAYERS:
            failed += 1
            print(f"not ok {n} - include/{h} has a layer")
            print(f"#   add it to LAYERS in {sys.argv[0]}")
        else:
            print(f"ok {n} - include/{h} has a layer (L{LAYERS[h]})")
    for d in ("include", "daemon"):
        for f in sorted(os.listdir(os.path.join(root, d))):
            if not f.endswith((".c", ".h")) or f in ("main.c", "ctl-main.c"):
                continue
            mod = f[:-2] + ".h"
            if f.startswith("ctl-"):
                mod = "ctl.h"
            mine = LAYERS.get(mod)
            if mine is None:
                # sources without a header of their own (e.g. probe-engine-aio.c) take the
                # layer of the longest header name that prefixes them
                cands = [h for h in LAYERS if f[:-2].startswith(h[:-2])]
                if cands:
                    mine = LAYERS[max(cands, key=len)]
            if mine is None:
                continue
            text = open(os.path.join(root, d, f), encoding="utf-8").read()
            for dep in inc.findall(text):
                if dep not in LAYERS:
                    continue
                n += 1
                if LAYERS[dep] > mine:
                    failed += 1
                    print(f"not ok {n} - {d}/{f} (L{mine}) includes {dep} (L{LAYERS[dep]})")
                else:
                    print(f"ok {n} - {d}/{f} may include {dep}")
    print(f"1..{n}")
    return 1 if failed or n == 0 else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
