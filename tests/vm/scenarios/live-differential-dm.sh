# SPDX-License-Identifier: MIT
# The daemon's live view against a fresh read at every step of device-mapper's life (issue 23,
# item 0; tests/vm/livediff.py, as live-differential does for md): 1 s after each change the
# daemon's /api/v1/volumes, /metrics and status equal a one-shot `storpulsectl volumes --json`.
# Most of these changes send no uevent, and the daemon runs with DmRaidPollInterval=1min (the
# full re-read, 5 s by default, which would otherwise catch up with slow steps by chance): what
# it shows within the second comes from the dm event counters (one DM_LIST_DEVICES ioctl every
# 0.5 s). Steps: a thin pool out of data space, a snapshot
# overflowing to Invalid, a multipath path failed and reinstated, a dm-raid1 LV resyncing,
# synced, and a leg lost under it. Disks: 1 thin, 2 snapshot, 3 multipath, 4-5 raid1.
# shellcheck disable=SC2016
source ../lib.sh
LIVE_DAEMON_CONF=DmRaidPollInterval=1min
source ./live-common.sh
trap 'kill $dpid 2>/dev/null; vgchange -an >/dev/null 2>&1; dmsetup remove_all --force >/dev/null 2>&1' EXIT
status_shows() { # DMNAME REGEX
        dmsetup status "$1" 2>/dev/null | grep -Eq "$2"
}

run modprobe -a dm_mod dm_thin_pool dm_snapshot dm_multipath dm_round_robin dm_raid raid1
echo 300 >/sys/module/dm_thin_pool/parameters/no_space_timeout
a=$(disk 1) b=$(disk 2) c=$(disk 3) d=$(disk 4) e=$(disk 5)

# a thin pool (writes to new blocks fail when full) and a thin LV bigger than it
run pvcreate -q /dev/$a
run vgcreate -q vgt /dev/$a
run lvcreate -q -y --monitor n --type thin-pool -L 8M -n pool vgt
run lvchange -q --errorwhenfull y vgt/pool
run lvcreate -q -y --monitor n -V 32M -T vgt/pool -n thin
# a snapshot of 4 MiB of an origin of 16 MiB
run pvcreate -q /dev/$b
run vgcreate -q vgs /dev/$b
run lvcreate -q -y -n origin -L 16M vgs
run lvcreate -q -y --monitor n -s -n snap -L 4M vgs/origin
# multipath over two linear paths to disk 3
sz=$(blockdev --getsz /dev/$c)
run dmsetup create mpl1 --table "0 $sz linear /dev/$c 0"
run dmsetup create mpl2 --table "0 $sz linear /dev/$c 0"
udevadm settle --timeout=30
p1=$(cat /sys/block/"$(basename "$(readlink -f /dev/mapper/mpl1)")"/dev)
p2=$(cat /sys/block/"$(basename "$(readlink -f /dev/mapper/mpl2)")"/dev)
run dmsetup create mp --table "0 $sz multipath 3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 $p1 1 $p2 1"
udevadm settle --timeout=30
step dm-created

dd if=/dev/urandom of=/dev/vgt/thin bs=1M count=12 oflag=direct status=none 2>/dev/null || true
wait_until 20 "vgt-pool-tpool out_of_data_space" status_shows vgt-pool-tpool out_of_data_space
dmsetup status vgt-pool-tpool
step thin-pool-full

dd if=/dev/urandom of=/dev/vgs/origin bs=1M count=8 oflag=direct status=none
wait_until 20 "vgs-snap Invalid" status_shows vgs-snap Invalid
step snapshot-invalid

run dmsetup message mp 0 fail_path "$p1"
status_shows mp "$p1 F" || fail "kernel: $p1 not failed"
step multipath-path-failed
run dmsetup message mp 0 reinstate_path "$p1"
status_shows mp "$p1 A" || fail "kernel: $p1 not reinstated"
step multipath-path-reinstated

# dm-raid1 over two PVs on dm-linear devices over disks 4 and 5 (a table to switch to error
# under it), its initial resync throttled so that a step sees it running
for x in $d $e; do
        run dmsetup create "r$x" --table "0 $(blockdev --getsz /dev/$x) linear /dev/$x 0"
done
udevadm settle --timeout=30
# (LVM would see each PV twice, on the disk and on its linear device: --devices names them)
devs=/dev/mapper/r$d,/dev/mapper/r$e
run pvcreate -q --devices "$devs" "/dev/mapper/r$d" "/dev/mapper/r$e"
run vgcreate -q --devices "$devs" vgr "/dev/mapper/r$d" "/dev/mapper/r$e"
run lvcreate -q -y --devices "$devs" --monitor n --type raid1 -m1 -L 32M --maxrecoveryrate 512k \
        -n mir vgr
udevadm settle --timeout=30
wait_until 30 "vgr-mir resyncing" status_shows vgr-mir " resync "
dmsetup status vgr-mir
step raid1-resync-mid
run lvchange -q --devices "$devs" --maxrecoveryrate 0 vgr/mir
wait_until 120 "vgr-mir in sync" status_shows vgr-mir " AA .* idle "
dmsetup status vgr-mir
step raid1-synced
run dmsetup suspend --noflush "r$e"
run dmsetup load "r$e" --table "0 $(blockdev --getsz /dev/$e) error"
run dmsetup resume "r$e"
dd if=/dev/urandom of=/dev/vgr/mir bs=4k count=16 oflag=direct status=none 2>/dev/null || true
wait_until 20 "dm-raid marks the leg dead" status_shows vgr-mir " (AD|DA) "
dmsetup status vgr-mir
step raid1-leg-lost
kill -0 "$dpid" || fail "storpulsed died"
grep -q "device-mapper event counters" "$SCRATCH/daemon.log" &&
        fail "the daemon could not read the dm event counters (daemon.log)"
log "every step: the daemon's view equals a fresh read"
