#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: install what the tests need, build with -Werror, run every suite
# (unit, integration, vm). Idempotent; the build directory is reused.
#   build-aux/test.sh [BUILDDIR] [extra meson test args...]
set -euo pipefail
cd "$(dirname "$0")/.."

builddir=${1:-build}
shift || true

build-aux/install-deps.sh --test

if [[ ! -f "$builddir/build.ninja" ]]; then
        meson setup "$builddir" --werror >/dev/null
fi
ninja -C "$builddir" >/dev/null

# meson's own summary is printed too; .ci/run counts from testlog.json.
meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@"
