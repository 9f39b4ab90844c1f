#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/event-latency's table from the raw logs of one VM boot (see guest.sh):
commands.log (REALTIME REP fail|add), sysfs.log (REALTIME ATTR VALUE), mdadm.log
(REALTIME EVENT DEVICE MEMBER), journal.json (storpulsed's entries). All clocks are the guest's
CLOCK_REALTIME; journal entries carry journald's receive time (__REALTIME_TIMESTAMP)."""
import json, statistics, sys

d = sys.argv[1]
cmds = [(float(t), int(r), k) for t, r, k in (l.split() for l in open(f"{d}/commands.log"))]
sysfs = []
for l in open(f"{d}/sysfs.log"):
    p = l.split(maxsplit=2)
    if len(p) == 3:
        sysfs.append((float(p[0]), p[1], p[2].strip()))
mdadm = [(float(p[0]), p[1]) for p in (l.split() for l in open(f"{d}/mdadm.log")) if len(p) >= 2]
journal = []
for l in open(f"{d}/journal.json"):
    e = json.loads(l)
    if "STORPULSE_EVENT" in e:
        journal.append((int(e["__REALTIME_TIMESTAMP"]) / 1e6, e["STORPULSE_EVENT"]))

KINDS = {
    # kind: (kernel attribute test, storpulsed events, mdadm events)
    "fail": (lambda a, v: a in ("degraded",) or (a.endswith("/state") and "faulty" in v),
             ("member-failed", "degraded"), ("Fail",)),
    "add": (lambda a, v: a == "sync_action" and v == "recover",
            ("rebuild-started", "rebuild-resumed"), ("RebuildStarted",)),
}


def first(lst, t0, t1, pred):
    for x in lst:
        if t0 <= x[0] < t1 and pred(x):
            return x[0]
    return None


rows = {k: [] for k in KINDS}
for i, (t0, rep, kind) in enumerate(cmds):
    t1 = cmds[i + 1][0] if i + 1 < len(cmds) else float("inf")
    kt, sev, mev = KINDS[kind]
    k = first(sysfs, t0, t1, lambda x: kt(x[1], x[2]))
    s = first(journal, t0, t1, lambda x: x[1] in sev)
    m = first(mdadm, t0, t1, lambda x: x[1] in mev)
    rows[kind].append((rep, t0, k, s, m))
    ms = lambda a: "-" if a is None or k is None else f"{(a - k) * 1000:7.1f}"
    print(f"# rep {rep} {kind:4}: cmd->kernel {((k - t0) * 1000 if k else float('nan')):7.1f} ms, "
          f"kernel->storpulsed {ms(s)} ms, kernel->mdadm {ms(m)} ms", file=sys.stderr)

print(f"{'event':28} {'n':>2} {'cmd->kernel':>12} {'kernel->storpulsed':>19} "
      f"{'kernel->mdadm':>14} {'storpulsed/mdadm':>17} {'goal<=100ms':>11}")
ok = True
for kind, label in (("fail", "mdadm --fail -> failed"), ("add", "mdadm --add -> rebuild started")):
    r = [x for x in rows[kind] if x[2] is not None and x[3] is not None and x[4] is not None]
    if not r:
        print(f"{label:28} no complete repetition")
        ok = False
        continue
    ck = statistics.median((x[2] - x[1]) * 1000 for x in r)
    ks = statistics.median((x[3] - x[2]) * 1000 for x in r)
    km = statistics.median((x[4] - x[2]) * 1000 for x in r)
    cs = statistics.median((x[3] - x[1]) * 1000 for x in r)
    cm = statistics.median((x[4] - x[1]) * 1000 for x in r)
    ratio = ks / km if km > 0 else float("inf")
    verdict = "ok" if ks <= 100 else "MISSED"
    ok &= ks <= 100
    print(f"{label:28} {len(r):2} {ck:9.1f} ms {ks:16.1f} ms {km:11.1f} ms {ratio:17.2f} {verdict:>11}")
    print(f"{'':28}    from the command: storpulsed {cs:.1f} ms, mdadm {cm:.1f} ms, "
          f"ratio {cs / cm if cm > 0 else float('inf'):.2f}")
sys.exit(0 if ok else 1)
