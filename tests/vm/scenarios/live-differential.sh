# SPDX-License-Identifier: MIT
# The daemon's live view against a fresh read at every step (issue 23, item 0): storpulsed runs
# through md's lifecycle while, 1 s after each change, its /api/v1/volumes, /metrics and status
# are held against a one-shot `storpulsectl volumes --json` and both against the kernel's own
# figures (tests/vm/livediff.py): two checks on arrays sharing disks (one delayed behind the
# other), a check stopped, a recovery mid-way, frozen by the administrator and let go on, a
# recovery interrupted by a second failure, a member removed, a --replace to its end, a RAID5
# reshape mid-way, and a RAID0 whose member vanished. Disks: 1-2 partitioned (two arrays on
# them), 3-6 whole.
# shellcheck disable=SC2016
source ../lib.sh
source ./live-common.sh
trap 'kill $dpid 2>/dev/null; md_unthrottle; md_stop_all' EXIT

modprobe -a md_mod raid0 raid1 raid456
a=$(disk 1) b=$(disk 2) c=$(disk 3) d=$(disk 4) e=$(disk 5) f=$(disk 6)
step start

# two arrays on partitions of the same two disks: md resyncs them one after the other
# an MBR with two 24 MiB partitions of type fd (Debian's root has no sfdisk; blockdev rereads)
mbr() {
        python3 -c 'import struct, sys
e = b"".join(struct.pack("<B3sB3sII", 0, b"\0\0\0", 0xfd, b"\0\0\0", 2048 + i * 49152, 49152)
             for i in range(2))
sys.stdout.buffer.write(bytes(446) + e + bytes(32) + b"\x55\xaa")' | dd of="$1" bs=512 count=1 oflag=direct status=none
}
for x in $a $b; do
        mbr /dev/$x || fail "partition table on $x"
        udevadm settle --timeout=30
        wait_until 20 "partitions of $x read" blockdev --rereadpt /dev/$x
done
udevadm settle --timeout=30
p() { ls /sys/block/$1 | grep -E "^$1p?$2$"; }
run mdadm --create /dev/md1 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$(p $a 1) /dev/$(p $b 1) </dev/null
run mdadm --create /dev/md2 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$(p $a 2) /dev/$(p $b 2) </dev/null
udevadm settle --timeout=30
step two-arrays-idle
md_throttle 300
# whichever array's check starts first runs; the other waits ("delayed")
echo check >/sys/block/md1/md/sync_action
echo check >/sys/block/md2/md/sync_action
one_delayed() {
        md_is md1 sync_action check && md_is md2 sync_action check &&
                { md_is md1 sync_completed delayed || md_is md2 sync_completed delayed; }
}
wait_until 30 "one check running, the other delayed" one_delayed
if md_is md1 sync_completed delayed; then first=md2 second=md1; else first=md1 second=md2; fi
md_dump $first
md_dump $second
step two-checks-one-delayed
sleep 2
step two-checks-later
echo idle >/sys/block/$first/md/sync_action
wait_until 30 "$second checking" md_sync_started $second
step check-stopped-other-runs
echo idle >/sys/block/$second/md/sync_action
wait_until 30 "$second idle" md_is $second sync_action idle
step checks-stopped
run mdadm --stop /dev/md1
run mdadm --stop /dev/md2
udevadm settle --timeout=30
step arrays-stopped

# RAID5 over c d e: a recovery mid-way, interrupted by a second failure
run mdadm --create /dev/md3 --run --assume-clean --metadata=1.2 --level=5 --raid-devices=3 \
        --chunk=64 /dev/$c /dev/$d /dev/$e </dev/null
udevadm settle --timeout=30
run mdadm /dev/md3 --fail /dev/$e
run mdadm /dev/md3 --remove /dev/$e
step raid5-degraded-removed
run mdadm --zero-superblock /dev/$e
run mdadm /dev/md3 --add /dev/$e
wait_until 30 "md3 recovering" md_sync_started md3
step raid5-recover-mid
sleep 2
step raid5-recover-later
# an administrator freezes the recovery, then lets it go on: md restarts it from its checkpoint
echo frozen >/sys/block/md3/md/sync_action
wait_until 30 "md3 frozen" md_is md3 sync_action frozen
md_dump md3
step raid5-recover-frozen
echo idle >/sys/block/md3/md/sync_action
wait_until 30 "md3 recovering again" md_is md3 sync_action recover
md_dump md3
step raid5-recover-unfrozen
echo faulty >/sys/block/md3/md/dev-$c/state
wait_until 30 "md3 stopped recovering" md_is md3 sync_action idle
md_dump md3
step raid5-recover-interrupted
run mdadm --stop /dev/md3
udevadm settle --timeout=30
wipe_disks 3 4 5

# RAID1 over c d with spare e: a member replaced to the end, then removed
run mdadm --create /dev/md4 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$c /dev/$d </dev/null
run mdadm /dev/md4 --add /dev/$e
udevadm settle --timeout=30
step raid1-spare
md_throttle 4000
run mdadm /dev/md4 --replace /dev/$c
wait_until 30 "md4 replacing" md_sync_started md4
step raid1-replace-mid
md_wait_idle md4 120
wait_until 30 "$c faulty after the replace" grep -q faulty /sys/block/md4/md/dev-$c/state
step raid1-replace-done
run mdadm /dev/md4 --remove /dev/$c
udevadm settle --timeout=30
step raid1-member-removed
run mdadm --stop /dev/md4
udevadm settle --timeout=30
wipe_disks 3 4 5

# RAID5 grown from 3 to 4 members: the reshape mid-way
run mdadm --create /dev/md5 --run --assume-clean --metadata=1.2 --level=5 --raid-devices=3 \
        --chunk=64 /dev/$c /dev/$d /dev/$e </dev/null
run mdadm /dev/md5 --add /dev/$f
udevadm settle --timeout=30
md_throttle 1500
run mdadm --grow /dev/md5 --raid-devices=4 --backup-file="$SCRATCH/grow.bak"
wait_until 60 "md5 reshaping" md_is md5 sync_action reshape
wait_until 60 "md5 reshape progress" md_sync_started md5
step raid5-reshape-mid
sleep 2
step raid5-reshape-later
md_wait_idle md5 240
step raid5-reshape-done
run mdadm --stop /dev/md5
udevadm settle --timeout=30
wipe_disks 3 4 5 6

# RAID0 over two dm-linear devices, one of them lost under it (removed with --force while md6
# holds it: its table becomes error, as a vanished disk reads), then written: md calls it broken
modprobe dm_mod
for x in 3 4; do
        dev=/dev/$(disk $x)
        run dmsetup create lin$x --table "0 $(blockdev --getsz "$dev") linear $dev 0"
done
udevadm settle --timeout=30
run mdadm --create /dev/md6 --run --metadata=1.2 --level=0 --raid-devices=2 --chunk=64 \
        /dev/mapper/lin3 /dev/mapper/lin4 </dev/null
udevadm settle --timeout=30
step raid0-ok
dmsetup remove --force lin4 || true # busy (md6 holds it): its table becomes error
dd if=/dev/urandom of=/dev/md6 bs=64k count=64 oflag=direct status=none 2>/dev/null || true
md_dump md6
step raid0-member-vanished
mdadm --stop /dev/md6 >/dev/null 2>&1 || true
dmsetup remove --force lin3 >/dev/null 2>&1 || true
dmsetup remove --force lin4 >/dev/null 2>&1 || true
udevadm settle --timeout=30
step raid0-stopped
kill -0 $dpid || fail "storpulsed died"
