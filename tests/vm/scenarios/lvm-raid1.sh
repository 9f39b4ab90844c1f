# SPDX-License-Identifier: MIT
# LVM raid1 LV: during its initial sync (throttled), in sync, `lvchange --syncaction check`
# (aborted with the dm "idle" message), then a leg lost (its PV's dm table swapped to error).
# shellcheck disable=SC2016
source ../lib.sh
source ./lvm-common.sh
require_verb volumes
a=$(disk 1) b=$(disk 2)
run pvcreate -qq /dev/$a /dev/$b
run vgcreate -qq vg0 /dev/$a /dev/$b
run lvcreate -qq --monitor n -y --type raid1 -m 1 -L 64M --maxrecoveryrate 2M -n r1 vg0
udevadm settle --timeout=30
r1=$(kname /dev/vg0/r1)
wait_until 60 "vg0-r1 resync under way" dm_raid_sync_started vg0-r1
dmsetup status vg0-r1
dm_raid_is vg0-r1 resync || fail "vg0-r1: dm status shows $(dm_field vg0-r1 8), expected resync"
check lvm-raid1-sync "raid1 LV during its initial sync" "
v = lv('vg0', 'r1')
eq(v['name'], '$r1', 'kernel name')
eq(v['kind'], 'lvm', 'kind')
eq(v['level'], 'raid1', 'level')
eq(v['sync_action'], 'resync', 'sync_action')
inside(v['sync_progress'], 0, 1, 'sync_progress')
eq(sorted(v['members']), sorted(['$a', '$b']), 'members (below the rimages)')
eq(v['dm']['target'], 'raid', 'dm target')
eq(v['degraded'], 0, 'degraded')
for m in v['array_members']:
    eq(m['state'], 'syncing', 'leg %s state' % m['name'])
"
run lvchange -qq --maxrecoveryrate 0 vg0/r1
wait_until 120 "vg0-r1 in sync" dm_raid_in_sync vg0-r1
dmsetup status vg0-r1
check lvm-raid1-insync "raid1 LV in sync" "
v = lv('vg0', 'r1')
eq(v['sync_action'], 'idle', 'sync_action')
eq(v['state'], 'ok', 'state')
eq(v['degraded'], 0, 'degraded')
ok(v['sync_progress'] in (None, 1, 1.0), 'sync_progress 1 or unknown when idle (got %r)' % v['sync_progress'])
for m in v['array_members']:
    eq(m['state'], 'in_sync', 'leg %s state' % m['name'])
ok(not any(x.get('hidden') for x in V), 'no hidden sub-LV listed as a volume')
"
run lvchange -qq --maxrecoveryrate 2M vg0/r1
run lvchange -qq --syncaction check vg0/r1
wait_until 60 "vg0-r1 check under way" dm_raid_sync_started vg0-r1
dmsetup status vg0-r1
dm_raid_is vg0-r1 check || fail "vg0-r1: dm status shows $(dm_field vg0-r1 8), expected check"
check lvm-raid1-check "raid1 LV check (lvchange --syncaction check)" "
v = lv('vg0', 'r1')
eq(v['sync_action'], 'check', 'sync_action')
inside(v['sync_progress'], 0, 1, 'sync_progress')
eq(v['degraded'], 0, 'degraded')
"
run dmsetup message vg0-r1 0 idle
wait_until 30 "vg0-r1 check aborted" dm_raid_is vg0-r1 idle
dmsetup status vg0-r1
run lvchange -qq -an vg0/r1
run vgremove -qq -ff -y vg0
run pvremove -qq /dev/$a /dev/$b

log "leg lost: raid1 LV on two dm-linear PVs, one swapped to the error target"
c=$(disk 3) d=$(disk 4)
# Offset by 1 MiB so LVM does not also find the PV labels on the disks below (duplicates).
sz=$(($(blockdev --getsz /dev/$d) - 2048))
run dmsetup create leg0 --table "0 $sz linear /dev/$c 2048"
run dmsetup create leg1 --table "0 $sz linear /dev/$d 2048"
udevadm settle --timeout=30
leg1=$(kname /dev/mapper/leg1)
run pvcreate -qq /dev/mapper/leg0 /dev/mapper/leg1
run vgcreate -qq vg1 /dev/mapper/leg0 /dev/mapper/leg1
run lvcreate -qq --monitor n -y --type raid1 -m 1 --nosync -L 32M -n r2 vg1
udevadm settle --timeout=30
wait_until 30 "vg1-r2 in sync" dm_raid_in_sync vg1-r2
run dmsetup suspend leg1
run dmsetup reload leg1 --table "0 $sz error"
run dmsetup resume leg1
dd if=/dev/zero of=/dev/vg1/r2 bs=4k count=64 oflag=direct status=none
sync
wait_until 30 "vg1-r2 leg marked dead" bash -c "dmsetup status vg1-r2 | awk '{print \$6}' | grep -q D"
dmsetup status vg1-r2
check lvm-raid1-leg-lost "raid1 LV with a dead leg" "
v = lv('vg1', 'r2')
eq(v['state'], 'degraded', 'state')
eq(v['degraded'], 1, 'degraded')
states = {m['name']: m['state'] for m in v['array_members']}
eq(states.get('$leg1'), 'faulty', 'leg on $leg1 (error target) state; legs: %r' % states)
"
run dmsetup suspend leg1
run dmsetup reload leg1 --table "0 $sz linear /dev/$d 2048"
run dmsetup resume leg1
