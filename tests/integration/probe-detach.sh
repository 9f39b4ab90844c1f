#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `losetup -d` while a probe runs. The kernel detaches a loop device that is still open lazily
# (autoclear on last close), so reads may keep succeeding; then the backing file is truncated,
# which makes the remaining reads fail. Either way the probe must not crash or hang: it ends
# within the bound, reports the I/O errors it saw (exit 3, errors > 0, offsets) or none (exit 0),
# consistently; the device is gone afterwards and probing it again is a clean refusal.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

random_loop 64

"$CTL" probe --json --no-progress --seq-bytes 0 --rand-seconds 4 --timeout 30 "$dev" \
        >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
child=$(wait_probe_open "$pid" "$dev")
tap_ok $? "the probe has $dev open (child ${child:-none})"
sleep 0.5
losetup -d "$dev"
tap_ok $? "losetup -d $dev while the probe runs"
sleep 1
truncate -s 1M "$img"
tap_ok $? "backing file truncated to 1 MiB while the probe runs"

# Wait, bounded: the probe has 4 s of work and a 30 s timeout; 60 s means it hung.
wait_bounded "$pid" "the probe"
diag <"$SCRATCH/err"
tap_ok $((rc != 0 && rc != 3)) "no crash: exit 0 or 3 (got $rc)"
check "one JSON object" json_true "$SCRATCH/out" "j['path'] == '$dev'"
if [ "$rc" -eq 3 ]; then
        check "exit 3: errors > 0 with offsets" json_true "$SCRATCH/out" \
                'j["errors"] > 0 and len(j["error_offsets"]) > 0 and j["state"] in ("error", "stalled")'
        check "exit 3: stderr lists I/O errors and offsets" grep -q "I/O errors: offset" "$SCRATCH/err"
else
        check "exit 0: state ok, errors 0" json_true "$SCRATCH/out" 'j["errors"] == 0 and j["state"] == "ok"'
fi
check "no sanitizer report" test -z "$(grep -E 'AddressSanitizer|runtime error' "$SCRATCH/err")"

# After the last close the device is really gone. A loop device freed by the detach can be taken
# at once by another test's `losetup -f` (meson runs tests in parallel): then it is no longer ours
# and the re-probe checks are skipped, saying so.
udevadm settle 2>/dev/null
back=$(losetup -n -O BACK-FILE "$dev" 2>/dev/null | sed 's/ *$//')
if [ -n "$back" ] && [ "$back" != "$img" ] && [ "$back" != "$img (deleted)" ]; then
        tap_ok 0 "$dev detached after the probe closed it # SKIP re-attached by another test to $back"
        tap_ok 0 "probing the detached $dev again # SKIP device reused"
        tap_ok 0 "probing the detached device names it and the reason # SKIP device reused"
else
        check "$dev detached after the probe closed it" test -z "$back"
        bounded 30 "$CTL" probe --no-progress --seq-bytes 1M --rand-count 10 "$dev" >/dev/null 2>"$SCRATCH/err2"
        rc=$?
        diag <"$SCRATCH/err2"
        tap_ok $((rc != 2)) "probing the detached $dev again: exit 2 (got $rc)"
        check "probing the detached device names it and the reason" grep -qE "$dev: .*(size 0|smaller)" "$SCRATCH/err2"
fi
finish
