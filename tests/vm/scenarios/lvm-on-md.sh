# SPDX-License-Identifier: MIT
# LVM on top of md: a VG on a RAID1 array; the stack graph LV -> md0 -> disks, and a failed
# disk below shows on md0 while the LV above stays listed with md0 as its member.
# shellcheck disable=SC2016
source ../lib.sh
source ./lvm-common.sh
require_verb volumes
a=$(disk 3) b=$(disk 4)
modprobe -a md_mod raid1
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 /dev/$a /dev/$b </dev/null
udevadm settle --timeout=30
run pvcreate -qq /dev/md0
run vgcreate -qq vgmd /dev/md0
run lvcreate -qq --monitor n -y -L 16M -n data vgmd
udevadm settle --timeout=30
data=$(kname /dev/vgmd/data)
check lvm-on-md "LV on md0: stack graph" "
v = lv('vgmd', 'data')
eq(v['members'], ['md0'], 'LV members')
m = vol('md0')
ok('$data' in m['holders'], 'md0 holders include the LV (%r)' % m['holders'])
eq(sorted(m['members']), sorted(['$a', '$b']), 'md0 members')
eq(m['state'], 'ok', 'md0 state')
"
run mdadm /dev/md0 --fail /dev/$b
wait_until 20 "md0 degraded" md_is md0 degraded 1
check lvm-on-md-degraded "md0 under an LV degraded" "
m = vol('md0')
eq(m['state'], 'degraded', 'md0 state')
eq(m['degraded'], 1, 'md0 degraded')
v = lv('vgmd', 'data')
eq(v['members'], ['md0'], 'LV members')
"
