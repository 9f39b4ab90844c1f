#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# vmcheck.py: assertions on storpulsectl JSON output inside the VM test bed.
#
#   vmcheck.py JSONFILE DESCRIPTION CODE
#
# JSONFILE is `storpulsectl volumes --json` output (a JSON array) or, for other verbs, any JSON
# document or JSON-lines file (then `J` is the list of documents). CODE is Python run with
# these names:
#   V                the parsed document (volumes: the array)
#   J                list of all JSON documents in the file (JSON lines)
#   vol(name)        the volume whose name, path or basename(path) is `name` (fails if none)
#   lv(vg, name)     the LVM volume with dm.vg_name/lv_name (fails if none)
#   has_vol(name)    True if such a volume exists
#   member(v, dev)   v's array_members entry for device `dev` (kernel name, e.g. "vdb")
#   eq(a, b, what)   a == b
#   ne(a, b, what)   a != b
#   inside(x, lo, hi, what)  lo < x < hi (strict)
#   ok(cond, what)   cond is true
# Exit status 0 when CODE runs through, 1 with a readable message (and the volume concerned)
# when an assertion fails, 2 for unusable input.
import json
import os
import sys


class Fail(Exception):
    pass


_context = []


def _show(v):
    _context.append(v)
    return v


def eq(a, b, what):
    if a != b:
        raise Fail(f"{what}: got {a!r}, expected {b!r}")


def ne(a, b, what):
    if a == b:
        raise Fail(f"{what}: got {a!r}, expected anything else")


def inside(x, lo, hi, what):
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not (lo < x < hi):
        raise Fail(f"{what}: got {x!r}, expected a number strictly between {lo} and {hi}")


def ok(cond, what):
    if not cond:
        raise Fail(what)


def main():
    if len(sys.argv) != 4:
        print("usage: vmcheck.py JSONFILE DESCRIPTION CODE", file=sys.stderr)
        return 2
    path, desc, code = sys.argv[1:]
    try:
        text = open(path).read()
    except OSError as e:
        print(f"vmcheck: {desc}: cannot read {path}: {e}", file=sys.stderr)
        return 2
    docs = []
    try:
        docs = [json.loads(text)]
    except ValueError:
        try:
            docs = [json.loads(l) for l in text.splitlines() if l.strip()]
        except ValueError as e:
            print(f"vmcheck: {desc}: {path} is not JSON: {e}\n--- content:\n{text[:4000]}",
                  file=sys.stderr)
            return 2
    V = docs[0] if len(docs) == 1 else docs
    vols = V if isinstance(V, list) else []

    def _match(v, name):
        p = v.get("path") or ""
        return v.get("name") == name or p == name or os.path.basename(p) == name

    def has_vol(name):
        return any(isinstance(v, dict) and _match(v, name) for v in vols)

    def vol(name):
        for v in vols:
            if isinstance(v, dict) and _match(v, name):
                return _show(v)
        names = [v.get("name") for v in vols if isinstance(v, dict)]
        raise Fail(f"no volume {name!r} in the output (volumes: {names})")

    def lv(vg, name):
        for v in vols:
            dm = v.get("dm") if isinstance(v, dict) else None
            if isinstance(dm, dict) and dm.get("vg_name") == vg and dm.get("lv_name") == name:
                return _show(v)
        raise Fail(f"no LVM volume {vg}/{name} in the output")

    def member(v, dev):
        for m in v.get("array_members") or []:
            if m.get("name") == dev:
                return m
        raise Fail(f"{v.get('name')}: no array member {dev!r} "
                   f"(array_members: {v.get('array_members')})")

    env = dict(V=V, J=docs, vol=vol, lv=lv, has_vol=has_vol, member=member, eq=eq, ne=ne,
               inside=inside, ok=ok)
    try:
        exec(code, env)
    except Fail as e:
        print(f"FAIL: {desc}: {e}", file=sys.stderr)
        for v in _context[-1:]:
            print("--- the volume concerned:", file=sys.stderr)
            print(json.dumps(v, indent=1, sort_keys=True), file=sys.stderr)
        return 1
    except Exception as e:  # a KeyError on a missing field is a failed expectation too
        print(f"FAIL: {desc}: {type(e).__name__}: {e}", file=sys.stderr)
        for v in _context[-1:]:
            print("--- the volume concerned:", file=sys.stderr)
            print(json.dumps(v, indent=1, sort_keys=True), file=sys.stderr)
        return 1
    print(f"  ok: {desc}")
    return 0


sys.exit(main())
