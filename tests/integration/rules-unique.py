#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""contrib/prometheus ships one rules file, storpulse-rules.yml: no other file there holds rule
groups, no alert or recording rule name appears twice in it (two alerts of one name with two
expressions would page twice, or not at all, depending on which fires), and every promtool test
file loads it and only it. Plain text (the files are ours): `- alert: NAME` / `- record: NAME`.
Usage: rules-unique.py CONTRIB_PROMETHEUS_DIR"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
lib = __import__("http-lib")
ok = lib.ok

d = sys.argv[1]
ymls = sorted(f for f in os.listdir(d) if f.endswith(".yml"))
with_groups = [f for f in ymls if re.search(r"^groups:", open(os.path.join(d, f)).read(), re.M)]
ok(with_groups == ["storpulse-rules.yml"], "one rules file: storpulse-rules.yml", with_groups)
text = open(os.path.join(d, "storpulse-rules.yml")).read()
names = re.findall(r"^\s*- (?:alert|record):\s*(\S+)\s*$", text, re.M)
dup = [n for n, c in collections.Counter(names).items() if c > 1]
ok(len(names) >= 20 and not dup, f"{len(names)} rule names, none twice", dup)
for f in [f for f in ymls if f.endswith(".test.yml")]:
    t = open(os.path.join(d, f)).read()
    m = re.search(r"^rule_files:\n((?:\s+- .*\n)+)", t, re.M)
    loads = re.findall(r"- (\S+)", m.group(1)) if m else []
    ok(loads == ["storpulse-rules.yml"], f"{f} loads storpulse-rules.yml", loads)
lib.done()
