#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Data flows one way (STYLE.md): a folder is a layer, and a file of a folder may include only
project headers of its own folder or of folders below it. The order is the one daemon/meson.build
includes the folders in. Every project source and header must sit in a known folder, every project
include must name one ("model/md.h", never a bare "md.h"), and every header a file includes must
exist; a file this check cannot place fails it. Prints TAP."""
import os
import re
import sys

# Lowest first; the same order as the subdir() calls in daemon/meson.build.
ORDER = ["basic", "model", "analysis", "sources", "probe", "core", "report", "http", "manager",
         "ctl"]
RANK = {d: i for i, d in enumerate(ORDER)}
GENERATED = {"config.h"}  # meson's configure_file(), above every layer


def meson_order(root):
    text = open(os.path.join(root, "daemon", "meson.build"), encoding="utf-8").read()
    return re.findall(r"^subdir\('([^']+)'\)", text, re.M)


def main(root):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    n = failed = 0

    def check(ok, what, hint=None):
        nonlocal n, failed
        n += 1
        if ok:
            print(f"ok {n} - {what}")
        else:
            failed += 1
            print(f"not ok {n} - {what}")
            if hint:
                print(f"#   {hint}")

    order = meson_order(root)
    check([d for d in ORDER if d in order] == order,
          f"daemon/meson.build includes the layers in data-flow order ({' '.join(order)})",
          f"expected the order of ORDER in {sys.argv[0]}")

    for top in ("include", "daemon"):
        base = os.path.join(root, top)
        for dirpath, _, names in sorted(os.walk(base)):
            for f in sorted(names):
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                parts = os.path.relpath(dirpath, base).split(os.sep)
                folder = parts[0] if parts != ["."] and len(parts) == 1 else None
                mine = RANK.get(folder)
                check(mine is not None, f"{rel} sits in a layer folder",
                      f"move it into one of {', '.join(ORDER)} (one level below {top}/)")
                if mine is None:
                    continue
                text = open(os.path.join(dirpath, f), encoding="utf-8").read()
                for dep in inc.findall(text):
                    if dep in GENERATED:
                        continue
                    dparts = dep.split("/")
                    if len(dparts) != 2 or dparts[0] not in RANK:
                        check(False, f"{rel} includes \"{dep}\" through its layer folder",
                              "write #include \"LAYER/name.h\"")
                        continue
                    exists = os.path.exists(os.path.join(root, "include", dep))
                    check(exists, f"{rel}: include/{dep} exists")
                    theirs = RANK[dparts[0]]
                    check(theirs <= mine, f"{rel} ({folder}) may include {dep}",
                          f"{folder} is below {dparts[0]}: pass a callback down instead")
    print(f"1..{n}")
    return 1 if failed or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
