#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's run command: install what is needed, build, show this machine's volumes and run
# storpulsed in the foreground on them: events and probe results are printed as they happen, and
# the built-in schedule probes the selected volumes (md, LVM, dm, controller volumes and whole
# disks; loop/RAM disks excluded) read-only (O_RDONLY|O_DIRECT), the first time a few seconds
# after start. Ctrl-C (or SIGTERM) stops it; RUN_SECONDS=N stops it after N seconds.
# The socket and state live in build/run and build/state, so a system-wide storpulsed is not
# disturbed; ask the running daemon with
#   STORPULSE_SOCKET=build/run/control build/daemon/storpulsectl status
# Extra arguments go to storpulsed (e.g. --config FILE to use your own configuration).
set -euo pipefail
cd "$(dirname "$0")/.."

build-aux/install-deps.sh
# An existing build/ (e.g. build-aux/test.sh's) is configured again, keeping its options: what
# meson found there (programs, libraries) may have changed since, and is looked up afresh.
if [[ -f build/build.ninja ]]; then
        meson configure --clearcache build >/dev/null
        meson setup --reconfigure build >/dev/null
else
        meson setup build >/dev/null
fi
ninja -C build >/dev/null

ctl=build/daemon/storpulsectl
mkdir -p build/run build/state

echo "== volumes"
"$ctl" volumes

conf=build/run/storpulse.conf
cat >"$conf" <<'CONF'
# written by build-aux/run.sh: the defaults, with the built-in schedule on and starting soon
[Schedule]
Builtin=yes
FirstDelay=3s
Interval=1h
CONF
echo
echo "== storpulsed (foreground${RUN_SECONDS:+, ${RUN_SECONDS}s}; Ctrl-C stops it)"
cmd=(build/daemon/storpulsed --config "$conf" --runtime-dir build/run --state-dir build/state "$@")
if [[ -n "${RUN_SECONDS:-}" ]]; then
        rc=0
        timeout -s TERM -k 30 "$RUN_SECONDS" "${cmd[@]}" || rc=$?
        # 124: stopped by the RUN_SECONDS timeout, which is the asked-for end
        [[ $rc -eq 124 ]] && rc=0
        exit $rc
fi
exec "${cmd[@]}"
