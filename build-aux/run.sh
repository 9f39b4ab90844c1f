#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's run command: install what is needed, build, and run storpulse on this machine's
# real block devices. Until the daemon lands it shows the volume tree (sysfs only) and then probes
# every whole disk once, read-only (O_RDONLY|O_DIRECT). Extra arguments go to `storpulsectl probe`.
# Exit status is the probe's: 0 ok, 2 some disk could not be probed (the reason is printed),
# 3 I/O errors or a stalled probe.
set -euo pipefail
cd "$(dirname "$0")/.."

build-aux/install-deps.sh
if [[ ! -f build/build.ninja ]]; then
        meson setup build >/dev/null
fi
ninja -C build >/dev/null

ctl=build/daemon/storpulsectl

echo "== volumes"
"$ctl" volumes

mapfile -t disks < <(lsblk -dpno NAME,TYPE,SIZE -b | awk '$2 == "disk" && $3 > 0 { print $1 }')
if ((${#disks[@]} == 0)); then
        echo "run: lsblk found no disk with a medium to probe" >&2
        exit 2
fi
echo
echo "== probe (read-only): ${disks[*]}"
exec "$ctl" probe "$@" "${disks[@]}"
