#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Write probes (`storpulsectl probe --write DIR`) on a real ext4 on a loop device: the writes land
# in DIR/.storpulse-write-probe only (the kernel counts them on the loop device; the file is
# 0600, preallocated to --write-size plus its marker block), and every target that is not a
# directory of ours is refused before anything is written: a block device named as the target
# (its data and its kernel write counters unchanged), a symlink, a foreign file or a hard link
# planted under the scratch name, tmpfs, a filesystem without the room. A second run reuses the
# file; another --write-size replaces it.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
command -v mkfs.ext4 >/dev/null || skip_all "mkfs.ext4 not installed (e2fsprogs)"
make_scratch

MNT=$SCRATCH/mnt
cleanup_mount() {
        umount "$MNT" 2>/dev/null
        umount "$SCRATCH/tmpfs" 2>/dev/null
        cleanup
}
trap cleanup_mount EXIT

truncate -s 256M "$SCRATCH/fs.img"
mkfs.ext4 -q -F "$SCRATCH/fs.img"
fsdev=$(attach_loop "$SCRATCH/fs.img" --direct-io=on)
mkdir "$MNT"
check "ext4 on $fsdev mounted" mount "$fsdev" "$MNT"
random_loop 16 "(read-write, must never be written)"
name=$(basename "$dev")
sum_before=$(sha256sum <"$img")
writes() { awk '{ print $5 + 0, $7 + 0 }' "/sys/block/$1/stat"; }
dev_writes_before=$(writes "$name")

probe_w() { # probe_w OUT TARGET [OPTIONS...]: a write probe, JSON to OUT, exit status in $rc
        local out=$1 target=$2
        shift 2
        bounded 120 "$CTL" probe --write --json --no-progress --rand-seconds 0.3 "$@" "$target" \
                >"$out" 2>"$SCRATCH/err"
        rc=$?
}

fsname=$(basename "$fsdev")
fs_before=$(writes "$fsname")
probe_w "$SCRATCH/ok.json" "$MNT"
[ "$rc" -eq 0 ] || diag <"$SCRATCH/err"
tap_ok $rc "write probe of an ext4 directory: exit 0"
check "kind scratch, state ok" json_true "$SCRATCH/ok.json" \
        'j["kind"] == "scratch" and j["state"] == "ok"'
check "the three write phases ran, no read phase" json_true "$SCRATCH/ok.json" \
        'all(j[p] and j[p]["ios"] > 0 for p in ("write_sequential", "write_random", "write_sync")) and not any(j[p] for p in ("sequential", "random", "random_deep"))'
check "write_sequential wrote the whole 64 MiB file once" json_true "$SCRATCH/ok.json" \
        'j["write_sequential"]["bytes"] == 64 << 20'
diag <<<"figures: $(json_get "$SCRATCH/ok.json" '"write %.1f MiB/s, write QD1 %.0f IOPS p99 %.3f ms, fdatasync p50 %.3f ms p99 %.3f ms" % (j["write_sequential"]["bytes_per_second"] / 2**20, j["write_random"]["iops"], j["write_random"]["latency_seconds"]["p99"] * 1e3, j["write_sync"]["latency_seconds"]["p50"] * 1e3, j["write_sync"]["latency_seconds"]["p99"] * 1e3)')"
f=$MNT/.storpulse-write-probe
check "scratch file is a 0600 regular file of 64 MiB + 4 KiB" \
        test "$(stat -c '%F %a %s' "$f")" = "regular file 600 $(((64 << 20) + 4096))"
check "preallocated: no hole" test "$(($(stat -c %b "$f") * 512))" -ge $((64 << 20))
read -r w_ios w_sec <<<"$(writes "$fsname")"
read -r b_ios b_sec <<<"$fs_before"
check "the kernel counted >= 64 MiB written on $fsdev" test $((w_sec - b_sec)) -ge $(((64 << 20) / 512))
ino=$(stat -c %i "$f")
probe_w "$SCRATCH/again.json" "$MNT"
tap_ok $rc "a second write probe: exit 0"
check "the second probe reused the file (same inode)" test "$(stat -c %i "$f")" = "$ino"
probe_w "$SCRATCH/size.json" "$MNT" --write-size 8M --seq-bytes 8M
tap_ok $rc "--write-size 8M: exit 0"
check "another --write-size replaced the file (8 MiB + 4 KiB)" \
        test "$(stat -c %s "$f")" = $(((8 << 20) + 4096))

# Refusals: exit 2, nothing written anywhere.
refused() { # refused WHAT TARGET PATTERN [OPTIONS...]
        local what=$1 target=$2 pattern=$3
        shift 3
        probe_w "$SCRATCH/refused.json" "$target" "$@"
        tap_ok "$([ "$rc" -eq 2 ] && echo 0 || echo 1)" "$what: refused with exit 2 (got $rc)"
        check "$what: says why ('$pattern')" grep -q "$pattern" "$SCRATCH/err"
        check "$what: JSON state unusable" json_true "$SCRATCH/refused.json" 'j["state"] == "unusable"'
}
refused "a block device as the target" "$dev" "not a directory"

mkdir "$MNT/planted"
ln -s "$dev" "$MNT/planted/.storpulse-write-probe"
refused "a symlink to a block device under the scratch name" "$MNT/planted" "did not create"
rm "$MNT/planted/.storpulse-write-probe"
read -r maj min <<<"$(stat -c '%t %T' "$dev")"
check "a node of $dev planted under the scratch name" \
        mknod "$MNT/planted/.storpulse-write-probe" b $((16#$maj)) $((16#$min))
refused "a block device node under the scratch name" "$MNT/planted" "did not create"
rm "$MNT/planted/.storpulse-write-probe"
head -c 1M /dev/urandom >"$MNT/planted/.storpulse-write-probe"
planted_sum=$(sha256sum <"$MNT/planted/.storpulse-write-probe")
refused "a foreign file under the scratch name" "$MNT/planted" "did not create"
check "the foreign file is unchanged" test "$(sha256sum <"$MNT/planted/.storpulse-write-probe")" = "$planted_sum"
rm "$MNT/planted/.storpulse-write-probe"
ln "$f" "$MNT/planted/.storpulse-write-probe"
refused "a hard link of another file under the scratch name" "$MNT/planted" "did not create" --write-size 8M
rm "$MNT/planted/.storpulse-write-probe"

refused "a directory without the room" "$MNT/planted" "too little free space" --write-size 300M
check "no scratch file left behind after the space refusal" test ! -e "$MNT/planted/.storpulse-write-probe"
mkdir "$SCRATCH/tmpfs"
mount -t tmpfs -o size=128M tmpfs "$SCRATCH/tmpfs"
refused "tmpfs" "$SCRATCH/tmpfs" "memory-backed"
check "nothing created on tmpfs" test ! -e "$SCRATCH/tmpfs/.storpulse-write-probe"

check "the block device's data is unchanged" test "$(sha256sum <"$img")" = "$sum_before"
check "the kernel counted 0 writes on $dev" test "$(writes "$name")" = "$dev_writes_before"
finish
