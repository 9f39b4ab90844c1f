# SPDX-License-Identifier: MIT
# RAID0 of two scsi_debug disks, one pulled (scsi_debug `delete`) while the array is written:
# the array has lost data: failed (md: array_state `broken` once I/O hit the gone member), never
# ok; once udev's `mdadm -If` stops it, it is gone from the inventory.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
run modprobe -a md_mod raid0
# one store per host: by default every scsi_debug disk shares one RAM store, and two disks
# showing the same md superblock make md refuse the second (EBUSY)
run modprobe scsi_debug dev_size_mb=32 add_host=2 num_tgts=1 max_luns=1 per_host_store=1 delay=0
udevadm settle --timeout=30
sds=()
for m in /sys/block/sd*/device/model; do
        [[ -e $m && "$(cat "$m")" == scsi_debug* ]] && sds+=("$(basename "$(dirname "$(dirname "$m")")")")
done
((${#sds[@]} == 2)) || fail "expected two scsi_debug disks, got ${sds[*]}"
a=${sds[0]} b=${sds[1]}
run mdadm --create /dev/md0 --run --metadata=1.2 --level=0 --raid-devices=2 --chunk=64 \
        /dev/$a /dev/$b </dev/null
udevadm settle --timeout=30
md_dump md0
check raid0-ok "raid0 of $a $b: ok, both members in sync" "
v = vol('md0')
eq(v['level'], 'raid0', 'level')
eq(v['state'], 'ok', 'state')
eq(v['verdict'], 'ok', 'verdict')
eq(v['raid_disks'], 2, 'raid_disks')
eq(v['member_states'], {'$a': 'in_sync', '$b': 'in_sync'}, 'member states')
"
log "pull $b (scsi_debug delete) with udev's queue held, so mdadm -If waits for our look"
udevadm control --stop-exec-queue
trap 'udevadm control --start-exec-queue' EXIT
echo 1 >/sys/block/$b/device/delete
st=$(md_attr md0 array_state)
log "kernel: md0 array_state $st right after the pull (md says in_sync until I/O reaches $b)"
check raid0-pulled "raid0 with a member pulled, before any I/O: failed, never ok" "
v = vol('md0')
eq(v['verdict'], 'failed', 'verdict (kernel array_state $st)')
eq(v['state'], 'failed', 'state')
"
dd if=/dev/urandom of=/dev/md0 bs=64k count=64 oflag=direct status=none 2>/dev/null || true
st=$(md_attr md0 array_state)
md_dump md0
check raid0-written "raid0 written after the pull: failed (kernel: $st)" "
v = vol('md0')
eq(v['md']['array_state'], '$st', 'array_state as the kernel')
eq(v['verdict'], 'failed', 'verdict')
eq(v['state'], 'failed', 'state')
"
log "let udev run mdadm -If $b, which stops the broken raid0"
udevadm control --start-exec-queue
udevadm settle --timeout=30
[[ -e /sys/block/md0/md ]] && { log "udev did not stop md0; stopping it as mdadm -If would"; mdadm --stop /dev/md0 >/dev/null 2>&1; }
wait_until 30 "md0 gone" test ! -e /sys/block/md0/md
check raid0-vanished "the stopped raid0 has vanished from the inventory" "
ok(not has_vol('md0'), 'md0 no longer listed')
"
