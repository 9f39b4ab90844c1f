#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Read-only proof: a loop device attached read-write (so a write would land) over a file of
# random data is probed many times with varied options, directly and through its backing file;
# the backing file's SHA-256 is identical before and after, and the kernel counted zero writes
# on the device meanwhile (/sys/block/loopN/stat, fields 5-8; compared with their values before
# the probes: a loop device's counters survive a detach, and an earlier test may have written
# through the same loopN).
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

random_loop 64 "(read-write)"
check "$dev is writable (ro=0), so the proof means something" test "$(blockdev --getro "$dev")" = 0
before=$(sha256sum <"$img")
name=$(basename "$dev")
read -r _ _ _ _ w_ios0 _ w_sectors0 _ <"/sys/block/$name/stat"

n=0
for opts in "" "--block-size=4K --queue-depth=1" "--block-size=128K --queue-depth=32" \
        "--rand-block-size=512 --rand-queue-depth=1,64" "--rand-block-size=1M --rand-queue-depth=4" \
        "--seq-bytes=200M" "--seq-bytes=0 --rand-count=5000"; do
        for target in "$dev" "$img"; do
                # shellcheck disable=SC2086
                bounded 120 "$CTL" probe --no-progress --rand-seconds 0.3 $opts "$target" \
                        >/dev/null 2>"$SCRATCH/err"
                rc=$?
                [ "$rc" -eq 0 ] || diag <"$SCRATCH/err"
                tap_ok $rc "probe $opts $target: exit 0"
                n=$((n + 1))
        done
done
after=$(sha256sum <"$img")
check "backing file SHA-256 unchanged after $n probes" test "$before" = "$after"
read -r _ _ _ _ w_ios w_merges w_sectors _ <"/sys/block/$name/stat"
diag <<<"/sys/block/$name/stat: writes=$w_ios merged=$w_merges sectors=$w_sectors (before: $w_ios0, $w_sectors0)"
check "kernel counted 0 writes on $dev" test "$w_ios" -eq "$w_ios0" -a "$w_sectors" -eq "$w_sectors0"
finish
