# SPDX-License-Identifier: MIT
# An LV that loses a PV: a linear LV spanning a virtio disk and a scsi_debug disk whose disk is
# pulled (its table now maps to a device that no longer exists) has lost data: failed; a raid1
# LV over the same two PVs, one leg dead, is degraded, naming the leg.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
a=$(disk 1)
run modprobe -a dm_mod dm_raid raid1
run modprobe scsi_debug dev_size_mb=48 num_tgts=1 max_luns=1 delay=0
udevadm settle --timeout=30
sd=
for m in /sys/block/sd*/device/model; do
        [[ -e $m && "$(cat "$m")" == scsi_debug* ]] && sd=$(basename "$(dirname "$(dirname "$m")")")
done
[[ -n $sd ]] || fail "no scsi_debug disk"
run pvcreate -q /dev/$a /dev/$sd
run vgcreate -q vgl /dev/$a /dev/$sd
# extents of 4 MiB: the 64 MiB disk holds 15, the 48 MiB scsi_debug disk 11. span takes 12 + 8
# by explicit ranges (so it really spans both PVs), leaving 3 on each for mir's two legs
# (1 extent rimage + 1 extent rmeta per leg)
run lvcreate -q -y -n span -l 20 vgl /dev/$a:0-11 /dev/$sd:0-7
run lvcreate -q -y -n mir --type raid1 -m1 -L 4M --nosync vgl /dev/$a /dev/$sd
udevadm settle --timeout=30
dmsetup table vgl-span
dmsetup status vgl-mir
check lv-before "both LVs ok while every PV is there" "
eq(lv('vgl', 'span')['verdict'], 'ok', 'span verdict')
eq(lv('vgl', 'mir')['verdict'], 'ok', 'mir verdict')
"
smm=$(cat /sys/block/$sd/dev)
log "pull $sd ($smm)"
echo 1 >/sys/block/$sd/device/delete
udevadm settle --timeout=30
dd if=/dev/urandom of=/dev/vgl/mir bs=4k count=16 oflag=direct status=none 2>/dev/null || true
wait_until 20 "dm-raid marks the leg dead" sh -c "dmsetup status vgl-mir | grep -q ' AD \| DA '"
dmsetup table vgl-span
dmsetup status vgl-mir
dmsetup table vgl-span | grep -q "$smm" || fail "kernel: vgl-span's table no longer maps to $smm"
check lv-lost "span (maps to the vanished $smm) failed; mir degraded naming its dead leg" "
s = lv('vgl', 'span')
eq(s['verdict'], 'failed', 'span verdict')
eq(s['state'], 'failed', 'span state')
m = lv('vgl', 'mir')
eq(m['verdict'], 'degraded', 'mir verdict')
eq(m['degraded'], 1, 'mir degraded legs')
ok('faulty' in m['member_states'].values() or 'missing' in m['member_states'].values(),
   'a leg named faulty/missing: %r' % m['member_states'])
"
vgchange -an vgl >/dev/null 2>&1 || dmsetup remove_all >/dev/null 2>&1 || true
