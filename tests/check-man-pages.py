#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The man pages (docs/man/*.scd) against the code, so they stay complete as keys and verbs are
added: every key of every section of the config key table (daemon/manager/config.c) appears as
"*Key=*" under its "# [Section" heading of storpulse.conf(5); every long option of storpulsed
(daemon/manager/manager-main.c) appears as "*--opt*" in storpulsed(8); every verb of
storpulsectl (its `help` output and daemon/ctl/ctl-main.c's table) has a "## verb" section in
storpulsectl(1), every long option of daemon/ctl/*.c appears in that page, and every option
`storpulsectl help VERB` names appears in that verb's section.
  check-man-pages.py SRCROOT STORPULSECTL
"""
import glob
import re
import subprocess
import sys

src, ctl = sys.argv[1], sys.argv[2]
man = src + "/docs/man/"
errors = []


def read(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # C comments hold examples ({ "name", ... }) that are no table entries
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S) if path.endswith(".c") else text


def sections(text, level):
    """{heading: body} of the scdoc headings of one level ('#' or '##')."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^(#+) (.*)$", line)
        if m and len(m.group(1)) <= len(level):
            name = m.group(2).strip() if m.group(1) == level else None
            out.setdefault(name, "") if name else None
            continue
        if name:
            out[name] += line + "\n"
    return out


def long_options(c_text):
    """Names of every struct option table entry in C source text."""
    return re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*(?:no|required|optional)_argument', c_text)


# ---- storpulse.conf(5) against the key table ---------------------------------------------------
config = read(src + "/daemon/manager/config.c")
tables = {}
for m in re.finditer(r"static const ConfigKey (\w+)\[\] = \{(.*?)\n\};", config, re.S):
    tables[m.group(1)] = re.findall(r'\{\s*"(\w+)",\s*config_value_', m.group(2))
sect_table = re.search(r"static const ConfigSection sections\[\] = \{(.*?)\n\};", config, re.S)
pairs = re.findall(r'\{\s*"(\w+)",\s*(\w+),', sect_table.group(1)) if sect_table else []
if len(pairs) < 5 or not all(t in tables for _, t in pairs):
    errors.append(f"config.c: could not read the key table (sections {pairs})")
conf = sections(read(man + "storpulse.conf.5.scd"), "#")
nkeys = 0
for sect, table in pairs:
    heading = next((h for h in conf if h.startswith("[" + sect + "]") or h.startswith("[" + sect + " ")), None)
    if heading is None:
        errors.append(f"storpulse.conf.5.scd: no '# [{sect}]' section")
        continue
    for key in tables.get(table, []):
        nkeys += 1
        if f"*{key}=*" not in conf[heading]:
            errors.append(f"storpulse.conf.5.scd: [{sect}] {key}= is not documented")

# ---- storpulsed(8) against its options ---------------------------------------------------------
daemon_page = read(man + "storpulsed.8.scd")
daemon_opts = long_options(read(src + "/daemon/manager/manager-main.c"))
if len(daemon_opts) < 3:
    errors.append("manager-main.c: could not read storpulsed's options")
for opt in daemon_opts:
    if f"*--{opt}*" not in daemon_page:
        errors.append(f"storpulsed.8.scd: --{opt} is not documented")

# ---- storpulsectl(1) against the verbs and options ---------------------------------------------
def run_help(*args):
    r = subprocess.run([ctl, "help", *args], capture_output=True, text=True)
    if r.returncode != 0:
        errors.append(f"storpulsectl help {' '.join(args)}: exit status {r.returncode}")
    return r.stdout


top = run_help()
verbs = re.findall(r"^  ([a-z][a-z-]*) ", top.split("Verbs:", 1)[-1], re.M)
main_c = read(src + "/daemon/ctl/ctl-main.c")
table = re.search(r"\} verbs\[\] = \{(.*?)\n\};", main_c, re.S)
src_verbs = re.findall(r'\{\s*"([a-z][a-z-]*)",', table.group(1)) if table else []
if not verbs or set(verbs) != set(src_verbs):
    errors.append(f"verbs of `storpulsectl help` {verbs} differ from ctl-main.c's {src_verbs}")
ctl_page = read(man + "storpulsectl.1.scd")
ctl_sections = sections(ctl_page, "##")
nopts = 0
for verb in sorted(set(verbs) | set(src_verbs)):
    if verb not in ctl_sections:
        errors.append(f"storpulsectl.1.scd: no '## {verb}' section")
        continue
    if verb == "help":
        continue
    for opt in sorted(set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", run_help(verb)))):
        nopts += 1
        if f"*--{opt}*" not in ctl_sections[verb]:
            errors.append(f"storpulsectl.1.scd: '## {verb}' does not document --{opt} (from `help {verb}`)")
for path in sorted(glob.glob(src + "/daemon/ctl/*.c")):
    for opt in long_options(read(path)):
        nopts += 1
        if f"*--{opt}*" not in ctl_page:
            errors.append(f"storpulsectl.1.scd: --{opt} ({path.split('/')[-1]}) is not documented")
for opt in re.findall(r"\[--([a-z-]+)\]", top.split("\n", 1)[0]):
    if f"*--{opt}*" not in ctl_page:
        errors.append(f"storpulsectl.1.scd: global --{opt} is not documented")

for e in errors:
    print("FAIL:", e)
print(f"checked {nkeys} config keys, {len(daemon_opts)} storpulsed options, {len(verbs)} verbs, "
      f"{nopts} storpulsectl option uses")
sys.exit(1 if errors else 0)
