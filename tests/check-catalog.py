#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every event storpulsed raises (daemon/manager/event.c) has exactly one entry in
units/storpulse.catalog under its MESSAGE_ID, and the catalog holds no stale ids. Prints TAP."""
import re
import sys

root = sys.argv[1]
src = open(f"{root}/daemon/manager/event.c", encoding="utf-8").read()
cat = open(f"{root}/units/storpulse.catalog", encoding="utf-8").read()
ids = dict(re.findall(r'"([\w-]+)",\s*"([0-9a-f]{32})"', src))
entries = re.findall(r"^-- ([0-9a-f]{32})\nSubject: (.+)$", cat, re.M)
n = 0
failed = 0


def check(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")


check(len(ids) > 0, f"{len(ids)} events in event.c")
cat_ids = [e[0] for e in entries]
for name, mid in sorted(ids.items()):
    check(cat_ids.count(mid) == 1, f"{name} ({mid}) has one catalog entry")
for mid in cat_ids:
    check(mid in ids.values(), f"catalog entry {mid} belongs to an event")
check(len(set(ids.values())) == len(ids), "MESSAGE_IDs are unique")
print(f"1..{n}")
sys.exit(1 if failed else 0)
