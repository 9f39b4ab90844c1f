#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's run command: install what is needed, build, and run storpulse on this machine's
# real block devices. Until the daemon lands this probes every whole disk once, read-only.
set -euo pipefail
cd "$(dirname "$0")/.."

build-aux/install-deps.sh
if [[ ! -f build/build.ninja ]]; then
        meson setup build >/dev/null
fi
ninja -C build >/dev/null

mapfile -t disks < <(lsblk -dpno NAME,TYPE | awk '$2 == "disk" { print $1 }')
if ((${#disks[@]} == 0)); then
        echo "run: no block devices found by lsblk" >&2
        exit 2
fi
exec build/daemon/storpulsectl probe "$@" "${disks[@]}"
