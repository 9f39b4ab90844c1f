# SPDX-License-Identifier: MIT
# RAID5 of 3 losing one member (degraded), then a second one while it is being written: two of
# three gone is more than raid5's tolerance of one: failed, whatever array_state says (md marks
# the array MD_BROKEN; it prints `broken` only when the state would otherwise be clean).
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
a=$(disk 1) b=$(disk 2) c=$(disk 3)
modprobe -a md_mod raid456
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=5 --raid-devices=3 \
        --chunk=64 /dev/$a /dev/$b /dev/$c </dev/null
udevadm settle --timeout=30
echo faulty >/sys/block/md0/md/dev-$b/state
wait_until 10 "md0 degraded 1" md_is md0 degraded 1
md_dump md0
check raid5-one-gone "raid5 with one of 3 gone: degraded" "
v = vol('md0')
eq(v['degraded'], 1, 'degraded (kernel 1)')
eq(v['verdict'], 'degraded', 'verdict')
eq(v['state'], 'degraded', 'state')
eq(v['member_states']['$b'], 'faulty', '$b faulty')
"
log "write md0 while $c fails"
dd if=/dev/urandom of=/dev/md0 bs=64k count=400 oflag=direct status=none 2>/dev/null &
w=$!
sleep 0.5
# md fails the write with EBUSY once the array is MD_BROKEN, but marks the member faulty
echo faulty >/sys/block/md0/md/dev-$c/state || true
wait $w || true
wait_until 10 "md0 degraded 2" md_is md0 degraded 2
md_dump md0
check raid5-two-gone "raid5 with two of 3 gone: failed" "
v = vol('md0')
eq(v['degraded'], 2, 'degraded (kernel 2)')
eq(v['raid_disks'], 3, 'raid_disks')
eq(v['verdict'], 'failed', 'verdict')
eq(v['state'], 'failed', 'state')
eq(v['member_states']['$a'], 'in_sync', '$a still in sync')
"
mdadm --stop /dev/md0 >/dev/null 2>&1 || true
