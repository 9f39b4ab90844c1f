#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Validate one JSON output against tests/schema/storpulse.schema.json and the rules of
# docs/json.md that a JSON Schema cannot say: no key names a unit other than the schema's
# (`_usec`, `_ns`, `_ms`, `_per_sec` ...) and none leaves its unit out (a bare `seconds` or
# `time`, a `*_size` without `_bytes`), and no non-integer number carries more than 10
# significant digits (read from the printed text, not the parsed float).
#   check-json-schema.py DEFINITION FILE [--lines]
# --lines: FILE holds one document per line. Exit 0 valid, 1 with a message per problem.
import json
import os
import re
import sys

import jsonschema  # Debian: python3-jsonschema (build-aux/install-deps.sh --test)

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema",
                      "storpulse.schema.json")
BAD_KEY = re.compile(r"(_usec|_ns|_ms|_sec|_per_sec|_msec|_kb|_mb|usec|_size|^seconds|^time)$")
# md's own units, named as md names them (docs/json.md)
ALLOWED = {"sync_speed_min_kib_per_second", "sync_speed_max_kib_per_second"}


def digits(text):
    mant = text.lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    return len(mant.rstrip("0")) if "." in text.split("e")[0] else len(mant)


def check_doc(text, definition, validator, where):
    problems = []

    def on_float(s):
        if digits(s) > 10:
            problems.append(f"{where}: number {s} has more than 10 significant digits")
        return float(s)

    doc = json.loads(text, parse_float=on_float)

    def walk(o, path):
        if isinstance(o, dict):
            for k, v in o.items():
                if BAD_KEY.search(k) and k not in ALLOWED:
                    problems.append(f"{where}: key {path}.{k} names a unit outside the schema, or none")
                walk(v, f"{path}.{k}")
        elif isinstance(o, list):
            for i, v in enumerate(o):
                walk(v, f"{path}[{i}]")

    walk(doc, "$")
    for e in validator.iter_errors(doc):
        problems.append(f"{where}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    return problems


def main():
    if len(sys.argv) < 3:
        print(__doc__ or "usage: check-json-schema.py DEFINITION FILE [--lines]", file=sys.stderr)
        return 2
    definition, path = sys.argv[1], sys.argv[2]
    schema = json.load(open(SCHEMA))
    if definition not in schema["definitions"]:
        print(f"no definition {definition} in {SCHEMA}", file=sys.stderr)
        return 2
    sub = {"$ref": f"#/definitions/{definition}", "definitions": schema["definitions"]}
    validator = jsonschema.Draft7Validator(sub)
    text = open(path, encoding="utf-8").read()
    docs = [(l, f"{path}:{i + 1}") for i, l in enumerate(text.splitlines()) if l.strip()] \
        if "--lines" in sys.argv else [(text, path)]
    if not docs:
        print(f"{path}: empty", file=sys.stderr)
        return 1
    problems = []
    for t, where in docs:
        problems += check_doc(t, definition, validator, where)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
