# SPDX-License-Identifier: MIT
# RAID5 grown from 3 to 4 members: during the reshape size_bytes is the kernel's current size
# and the new geometry stands beside it (raid_disks 4, raid_disks_old 3, size after the
# reshape); after it, the new size. Progress against the kernel's at the same moment.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-common.sh
require_verb volumes
a=$(disk 1) b=$(disk 2) c=$(disk 3) d=$(disk 4)
modprobe -a md_mod raid456
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=5 --raid-devices=3 \
        --chunk=64 /dev/$a /dev/$b /dev/$c </dev/null
udevadm settle --timeout=30
old=$(($(cat /sys/block/md0/size) * 512))
comp=$(md_attr md0 component_size)
run mdadm /dev/md0 --add /dev/$d
md_throttle 1500
run mdadm --grow /dev/md0 --raid-devices=4 --backup-file="$SCRATCH/grow.bak"
wait_until 60 "reshape under way" md_is md0 sync_action reshape
wait_until 60 "reshape progress" md_sync_started md0
md_dump md0
now=$(($(cat /sys/block/md0/size) * 512))
log "kernel: size $now bytes during the reshape (before $old), raid_disks $(md_attr md0 raid_disks)"
sync_check grow-running "reshape: progress against the kernel's" md0
# the snapshot sync_check took, the reshape running through it (mdstat before and after)
checkfile "$SCRATCH/grow-running.json" "reshape: current size, new geometry beside it" "
v = vol('md0')
eq(v['sync_action'], 'reshape', 'sync_action')
eq(v['size_bytes'], $now, 'size_bytes = the kernel size now')
eq(v['raid_disks'], 4, 'raid_disks (new)')
eq(v['md']['raid_disks_old'], 3, 'raid_disks_old')
eq(v['md']['size_bytes_after_reshape'], 3 * $comp * 1024, 'size after = 3 data disks x component_size')
eq(v['verdict'], 'ok', 'verdict')
"
md_wait_idle md0 240
wait_until 30 "md0 grown" test "$(($(cat /sys/block/md0/size) * 512))" -gt "$old"
new=$(($(cat /sys/block/md0/size) * 512))
check grow-done "reshape done: the new size" "
v = vol('md0')
eq(v['size_bytes'], $new, 'size_bytes = the kernel size after')
eq(v['raid_disks'], 4, 'raid_disks')
eq(v['md']['raid_disks_old'], None, 'no old geometry any more')
eq(v['md']['reshape_position_sectors'], None, 'no reshape position')
"
mdadm --stop /dev/md0 >/dev/null 2>&1 || true
