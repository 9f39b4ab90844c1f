#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: install what the tests need, build with -Werror, run every suite
# (unit, integration, vm). Idempotent; the build directory is reused (and configured again).
#   build-aux/test.sh [BUILDDIR] [extra meson test args...]
set -euo pipefail
cd "$(dirname "$0")/.."

builddir=${1:-build}
shift || true

build-aux/install-deps.sh --test

# Test builds: -Werror and the man pages required. A build directory configured earlier (by
# build-aux/run.sh, before the test packages were installed) is configured again with these
# options, its cached lookups cleared, so meson finds promtool, scdoc and the rest afresh.
setup_opts=(--werror -Dman=enabled)
if [[ -f "$builddir/build.ninja" ]]; then
        meson configure --clearcache "$builddir" >/dev/null
        meson setup --reconfigure "$builddir" "${setup_opts[@]}" >/dev/null
else
        meson setup "$builddir" "${setup_opts[@]}" >/dev/null
fi
ninja -C "$builddir" >/dev/null

# meson's own summary is printed too; .ci/run counts from testlog.json.
meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@"
