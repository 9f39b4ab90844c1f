#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One device request per probe read: a loop device with direct I/O over a file in /dev/shm
# (memory-backed, so only the engines' own cost counts) is probed with 1 MiB sequential reads,
# and the kernel's count of completed reads on the device (/sys/block/loopN/stat, field 1) is
# compared with the number of reads the probe issued. Buffers of scattered 4 KiB pages make the
# block layer split each 1 MiB read at the queue's max_segments (two requests per read); the
# probe's huge-page buffers keep it to one. That needs transparent huge pages (not `never`):
# without them the ratio is printed but not asserted. Speed is never asserted.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || skip_all "/dev/shm is not tmpfs"
make_scratch

# The backing file lives in /dev/shm; the scratch directory (cleaned up by probe-lib) only
# records its name, so a failed run still removes it.
shm=$(mktemp /dev/shm/storpulse-probe-requests.XXXXXX) || exit 1
trap 'cleanup_shm' EXIT
cleanup_shm() {
        local dev back
        while read -r dev back; do
                [ "$back" = "$shm" ] && losetup -d "$dev" 2>/dev/null
        done < <(losetup -l -n -O NAME,BACK-FILE 2>/dev/null)
        rm -f "$shm"
        cleanup
}

mib=128
make_random_file "$shm" "$mib"
dev=$(attach_loop "$shm" --read-only --direct-io=on)
tap_ok $? "loop device $dev over $shm (read-only, direct-io=on)"
name=$(basename "$dev")
dio=$(cat "/sys/block/$name/loop/dio" 2>/dev/null || echo 0)
diag <<<"$dev: dio=$dio max_segments=$(cat /sys/block/"$name"/queue/max_segments) max_sectors_kb=$(cat /sys/block/"$name"/queue/max_sectors_kb)"

thp=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
diag <<<"transparent huge pages: ${thp:-not supported by this kernel}"

# 128 reads of 1 MiB at QD4, then 64 random 4 KiB reads at QD1 (one request each: no
# split is possible below a page).
rand=64
reads=$((mib + rand))
read -r before _ <"/sys/block/$name/stat"
bounded 120 "$CTL" probe --json --no-progress --seq-bytes="${mib}M" --block-size=1M \
        --queue-depth=4 --rand-block-size=4K --rand-queue-depth=1 --rand-count=$rand "$dev" \
        >"$SCRATCH/out.json" 2>"$SCRATCH/err"
rc=$?
[ "$rc" -eq 0 ] || diag <"$SCRATCH/err"
tap_ok $rc "probe of $dev: exit 0"
read -r after _ <"/sys/block/$name/stat"
check "probe read $mib MiB sequentially in 1 MiB reads" \
        json_true "$SCRATCH/out.json" "j['sequential']['ios'] == $mib and j['sequential']['block_size_bytes'] == 1 << 20"
requests=$((after - before))
ratio=$(awk -v r="$requests" -v n="$reads" 'BEGIN { printf "%.3f", r / n }')
diag <<<"device requests: $requests for $reads probe reads ($ratio per read)"
check "the device saw at least one request per read" test "$requests" -ge "$reads"

if [ "$dio" != 1 ]; then
        echo "ok $((TAP_N + 1)) # SKIP the loop device did not enable direct I/O: its requests do not follow the probe's reads"
        TAP_N=$((TAP_N + 1))
elif [ -z "$thp" ] || [ "$thp" = never ]; then
        echo "ok $((TAP_N + 1)) # SKIP transparent huge pages ${thp:+are 'never'}${thp:-unsupported}: 1 MiB reads into 4 KiB pages may be split, requests per read not asserted"
        TAP_N=$((TAP_N + 1))
else
        check "at most 1.1 device requests per probe read ($ratio)" \
                awk -v r="$requests" -v n="$reads" 'BEGIN { exit !(r <= 1.1 * n) }'
fi
finish
