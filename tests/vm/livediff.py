#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The daemon's live view against a fresh read (issue 23, item 0), in the VM guest:
#   livediff.py --url http://127.0.0.1:PORT --ctl STORPULSECTL --step NAME [--settle S] [--tries N]
# One try: the kernel's own figures K0 (sysfs md/, /proc/mdstat, `dmsetup status`), a pause of --settle seconds
# (the daemon may take that long to notice), then the daemon's /api/v1/volumes, its /metrics,
# `storpulsectl status --json` and a one-shot `storpulsectl volumes --json`, then the kernel
# again (K1). When the kernel's discrete state (sync_action, array_state, degraded, member
# states, members, holders, dm status lines but for their moving x/y figures) changed between K0 and K1 the try proves nothing and is repeated.
# Otherwise:
#   - every volume of the one-shot read is in the daemon's view and equal field by field, but
#     for the moving figures (progress, completed sectors, speed, ETA), which instead must lie
#     within the kernel's readings K0..K1 (completed, progress) or be present exactly when the
#     one-shot read has them (speed, ETA); the daemon lists no volume the one-shot read lacks;
#   - both agree with the kernel: sync_action, degraded and member states as sysfs says;
#   - /metrics says the same sync_action, health, problem and member states as the API;
#   - `status --json` counts as problems the volumes the API calls degraded or failed.
# Exit 0 = equal, 1 = a difference (printed), 2 = usage or the daemon unreachable.
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

MOVING = {"sync_progress", "sync_completed_sectors", "sync_speed_bytes_per_second",
          "sync_eta_seconds"}


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def mdstat_progress():
    """{mdX: (done_kib, total_kib)} for arrays with a progress line in /proc/mdstat."""
    out, cur = {}, None
    for line in (read("/proc/mdstat", "") or "").splitlines():
        m = re.match(r"^(md\S+) :", line)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"\((\d+)/(\d+)\)", line)
        if cur and m:
            out[cur] = (int(m.group(1)), int(m.group(2)))
    return out


def kernel():
    """The kernel's discrete md state and progress, per array and per block device."""
    arrays, holders = {}, {}
    for name in sorted(os.listdir("/sys/block")):
        h = os.path.join("/sys/block", name, "holders")
        if os.path.isdir(h):
            holders[name] = sorted(os.listdir(h))
        md = os.path.join("/sys/block", name, "md")
        if not os.path.isdir(md):
            continue
        members = {}
        for d in sorted(os.listdir(md)):
            if d.startswith("dev-"):
                members[d[4:]] = read(os.path.join(md, d, "state"), "?")
        arrays[name] = dict(sync_action=read(os.path.join(md, "sync_action")),
                            reshape_direction=read(os.path.join(md, "reshape_direction")),
                            array_state=read(os.path.join(md, "array_state")),
                            degraded=read(os.path.join(md, "degraded")),
                            members=members)
    return dict(arrays=arrays, holders=holders, progress=mdstat_progress(), dm=dm_status())


def dm_status():
    """{dm name: status line} from `dmsetup status`, the figures that move on their own (a
    resync's x/y, thin and snapshot usage) blanked: what is left changes only with the state."""
    if not os.path.exists("/dev/mapper/control"):
        return {}
    p = subprocess.run(["dmsetup", "status"], capture_output=True, text=True, timeout=30)
    out = {}
    for line in p.stdout.splitlines():
        name, _, rest = line.partition(": ")
        out[name] = re.sub(r"\b\d+/\d+\b", "N/N", rest)
    return out


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def ctl(path, *args):
    p = subprocess.run([path, *args], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, STORPULSE_CONTROLLER_TEST="1"))
    if p.returncode != 0:
        raise RuntimeError(f"storpulsectl {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def metrics_values(text):
    """{(family, frozenset(labels)): value}"""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+)\{([^}]*)\} (\S+)$", line)
        if not m:
            continue
        labels = frozenset(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def metric(vals, family, **labels):
    return vals.get((family, frozenset(labels.items())))


def compare(k0, k1, api, oneshot, prom, status):
    errs = []
    by_name = {v["name"]: v for v in api}
    names_o = {v["name"] for v in oneshot}
    for v in api:
        if v["name"] not in names_o:
            errs.append(f"{v['name']}: in the daemon's view, not in a fresh read")
    for o in oneshot:
        n = o["name"]
        d = by_name.get(n)
        if d is None:
            errs.append(f"{n}: in a fresh read, not in the daemon's view")
            continue
        for key in sorted(set(o) | set(d)):
            if key in MOVING:
                continue
            if key == "md" and isinstance(o.get(key), dict) and isinstance(d.get(key), dict):
                # the reshape position moves like the progress: the daemon's may be behind the
                # fresh read's (read later), never ahead, and both have one or neither. Behind
                # is lower when md reshapes forwards (a grow), higher when it works backwards
                # (md/reshape_direction: a shrink, or a reshape that moves the data offset up)
                od, dd = dict(o[key]), dict(d[key])
                op, dp = od.pop("reshape_position_sectors", None), dd.pop("reshape_position_sectors", None)
                back = (k0["arrays"].get(n) or {}).get("reshape_direction") == "backwards"
                if (op is None) != (dp is None) or (op is not None and (dp < op if back else dp > op)):
                    errs.append(f"{n}.md.reshape_position_sectors: daemon {dp} vs fresh read {op}"
                                f" (reshaping {'backwards' if back else 'forwards'})")
                if od != dd:
                    errs.append(f"{n}.md: daemon {json.dumps(dd)} != fresh read {json.dumps(od)}")
                continue
            if key == "dm" and isinstance(o.get(key), dict) and isinstance(d.get(key), dict):
                # a dm-raid resync's position moves the same way
                od, dd = json.loads(json.dumps(o[key])), json.loads(json.dumps(d[key]))
                op = (od.get("raid") or {}).pop("sync_done_sectors", None)
                dp = (dd.get("raid") or {}).pop("sync_done_sectors", None)
                if (op is None) != (dp is None) or (op is not None and dp > op):
                    errs.append(f"{n}.dm.raid.sync_done_sectors: daemon {dp} vs fresh read {op}")
                # so do thin-pool and snapshot usage (no dm event per allocated block; blanked
                # as N/N in the kernel's status above): behind, never ahead, both or neither
                for t, f in (("thin_pool", "data_usage_ratio"), ("thin_pool", "metadata_usage_ratio"),
                             ("snapshot", "usage_ratio")):
                    op, dp = (od.get(t) or {}).pop(f, None), (dd.get(t) or {}).pop(f, None)
                    if (op is None) != (dp is None) or (op is not None and dp > op):
                        errs.append(f"{n}.dm.{t}.{f}: daemon {dp} vs fresh read {op}")
                if od != dd:
                    errs.append(f"{n}.dm: daemon {json.dumps(dd)} != fresh read {json.dumps(od)}")
                continue
            if o.get(key) != d.get(key):
                errs.append(f"{n}.{key}: daemon {json.dumps(d.get(key))} "
                            f"!= fresh read {json.dumps(o.get(key))}")
        if o.get("kind") != "md" or n not in k0["arrays"]:
            continue
        ka = k0["arrays"][n]
        for who, v in (("daemon", d), ("fresh read", o)):
            act = v.get("sync_action")
            if act != ka["sync_action"]:
                errs.append(f"{n}: {who} sync_action {act!r}, kernel {ka['sync_action']!r}")
            kd = int(ka["degraded"]) if (ka["degraded"] or "").isdigit() else None
            if v.get("degraded") != kd:
                errs.append(f"{n}: {who} degraded {v.get('degraded')!r}, kernel {ka['degraded']}")
            got = sorted((m.get("name") for m in v.get("array_members") or []))
            if got != sorted(ka["members"]):
                errs.append(f"{n}: {who} members {got}, kernel {sorted(ka['members'])}")
        # progress: the daemon's and the fresh read's completed sectors within the kernel's
        # mdstat readings before and after (KiB x 2)
        p0, p1 = k0["progress"].get(n), k1["progress"].get(n)
        for who, v in (("daemon", d), ("fresh read", o)):
            x = v.get("sync_completed_sectors")
            if p0 and p1 and x is not None and ka["sync_action"] not in ("idle", "frozen"):
                lo, hi = 2 * min(p0[0], p1[0]), 2 * max(p0[0], p1[0])
                if not lo <= x <= hi:
                    errs.append(f"{n}: {who} sync_completed_sectors {x} outside the kernel's "
                                f"[{lo}, {hi}] (mdstat before/after)")
        for key in ("sync_progress", "sync_completed_sectors", "sync_speed_bytes_per_second",
                    "sync_eta_seconds"):
            if (o.get(key) is None) != (d.get(key) is None):
                errs.append(f"{n}.{key}: daemon {d.get(key)!r}, fresh read {o.get(key)!r}")
        # /metrics: the same facts as the API
        act = d.get("sync_action") or "idle"
        if metric(prom, "storpulse_sync_action", volume=n, action=act) not in (1.0, None):
            errs.append(f"{n}: /metrics storpulse_sync_action{{action={act!r}}} is not 1")
        for m in d.get("array_members") or []:
            st = (d.get("member_states") or {}).get(m.get("name"))
            if st and metric(prom, "storpulse_array_member_state", volume=n,
                             member=m.get("name"), state=st) not in (1.0, None):
                errs.append(f"{n}: /metrics member {m.get('name')} not in state {st!r} "
                            f"as the API says")
    for d in api:
        st = d.get("state")
        if st and metric(prom, "storpulse_volume_health", volume=d["name"], state=st) == 0.0:
            errs.append(f"{d['name']}: /metrics storpulse_volume_health{{state={st!r}}} is 0")
    probs = sum(1 for d in api if d.get("state") in ("degraded", "failed"))
    sp = status.get("problems") if isinstance(status, dict) else None
    if isinstance(sp, list):
        sp = len(sp)
    if isinstance(sp, int) and sp < probs:
        errs.append(f"status: {sp} problems, the API has {probs} degraded or failed volumes")
    return errs


def discrete(k):
    return {n: {x: a[x] for x in ("sync_action", "array_state", "degraded", "members")}
            for n, a in k["arrays"].items()}, k["holders"], k["dm"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--ctl", required=True)
    ap.add_argument("--step", required=True)
    ap.add_argument("--settle", type=float, default=1.0)
    ap.add_argument("--tries", type=int, default=8)
    a = ap.parse_args()
    errs = []
    for attempt in range(1, a.tries + 1):
        k0 = kernel()
        time.sleep(a.settle)
        try:
            api = json.loads(fetch(a.url + "/api/v1/volumes"))
            prom = metrics_values(fetch(a.url + "/metrics"))
            status = ctl(a.ctl, "status", "--json")
        except Exception as e:  # noqa: BLE001 - the daemon unreachable is a failure
            print(f"livediff {a.step}: the daemon does not answer: {e}", file=sys.stderr)
            return 2
        if isinstance(api, dict):
            api = api.get("volumes", [])
        oneshot = ctl(a.ctl, "volumes", "--json")
        k1 = kernel()
        if discrete(k0) != discrete(k1):
            print(f"  livediff {a.step}: the kernel changed during try {attempt}, again")
            continue
        errs = compare(k0, k1, api, oneshot, prom, status)
        if not errs:
            arr = ", ".join(f"{n} {x['sync_action']} deg {x['degraded']}"
                            for n, x in k0["arrays"].items())
            print(f"  ok: livediff {a.step}: the daemon's view equals a fresh read "
                  f"({len(oneshot)} volumes; kernel: {arr or 'no md'})")
            return 0
        break
    else:
        print(f"livediff {a.step}: the kernel never held still over {a.tries} tries",
              file=sys.stderr)
        return 1
    print(f"FAIL: livediff {a.step}: the daemon's view differs ({len(errs)}):", file=sys.stderr)
    for e in errs:
        print("  " + e, file=sys.stderr)
    print("  kernel: " + json.dumps(k0["arrays"]), file=sys.stderr)
    print("  mdstat:\n" + (read("/proc/mdstat", "") or ""), file=sys.stderr)
    return 1


sys.exit(main())
