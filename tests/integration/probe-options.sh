#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Options out of range give a usage error naming the option (exit 1), before any target is
# touched; a block size that is not a multiple of a target's logical block size (a 4096-byte
# sector loop device) is caught after opening it and names the option too.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

make_random_file "$SCRATCH/disk.img" 16
dev=$(attach_loop "$SCRATCH/disk.img")
tap_ok $? "loop device $dev"

# expect_usage OPTION ARGS...: exit 1, stderr names OPTION
expect_usage() {
        local opt=$1 rc
        shift
        bounded 30 "$CTL" probe --no-progress "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
        rc=$?
        diag <"$SCRATCH/err"
        tap_ok $((rc != 1)) "$*: exit 1 (got $rc)"
        check "$*: message names $opt" grep -qF -- "$opt" "$SCRATCH/err"
}

expect_usage --queue-depth --queue-depth=0 "$dev"
expect_usage --queue-depth --queue-depth=1025 "$dev"
expect_usage --rand-queue-depth --rand-queue-depth=0 "$dev"
expect_usage --rand-queue-depth --rand-queue-depth=1,0 "$dev"
expect_usage --rand-queue-depth --rand-queue-depth=1,100000 "$dev"
expect_usage --block-size --block-size=1000 "$dev"
expect_usage --block-size --block-size=0 "$dev"
expect_usage --block-size --block-size=2G "$dev"
expect_usage --rand-block-size --rand-block-size=100 "$dev"
expect_usage --rand-block-size --rand-block-size=4T "$dev"
expect_usage --seq-bytes --seq-bytes=lots "$dev"
expect_usage --seq-bytes --seq-bytes=2P "$dev"
expect_usage --seq-bytes --seq-bytes=99999999999999999999999 "$dev"
expect_usage --rand-seconds --rand-seconds=-1 "$dev"
expect_usage --rand-seconds --rand-seconds=2days "$dev"
expect_usage --timeout --timeout=0 "$dev"
expect_usage --timeout --timeout=1000000 "$dev"
expect_usage --queue-depth --queue-depth=512 --block-size=1G "$dev"
expect_usage --bogus --bogus "$dev"
expect_usage PATH --json

# 4096-byte logical blocks: 512-byte-multiple sizes that are not 4 KiB multiples.
dev4k=$(attach_loop "$SCRATCH/disk.img" --sector-size 4096)
if [ -n "$dev4k" ] && [ "$(blockdev --getss "$dev4k")" = 4096 ]; then
        expect_usage --block-size --block-size=6K --rand-count 10 "$dev4k"
        check "4Kn --block-size: says logical block size 4096" grep -q "4096" "$SCRATCH/err"
        expect_usage --rand-block-size --rand-block-size=512 --rand-count 10 "$dev4k"
        bounded 60 "$CTL" probe --json --no-progress --seq-bytes 1M --rand-count 50 "$dev4k" \
                >"$SCRATCH/out" 2>"$SCRATCH/err"
        tap_ok $? "4Kn: default sizes probe fine"
        check "4Kn: logical_block_size_bytes 4096 reported" json_true "$SCRATCH/out" \
                'j["logical_block_size_bytes"] == 4096 and j["errors"] == 0'
else
        tap_ok 0 "4Kn # SKIP losetup --sector-size not supported"
fi

"$CTL" probe --help >"$SCRATCH/help"
tap_ok $? "--help exits 0"
check "--help documents exit code 3 for stalls" grep -q "stalled" "$SCRATCH/help"
for o in --seq-bytes --block-size --queue-depth --rand-block-size --rand-queue-depth \
        --rand-seconds --timeout --json; do
        check "--help lists $o" grep -qF -- "$o" "$SCRATCH/help"
done
finish
