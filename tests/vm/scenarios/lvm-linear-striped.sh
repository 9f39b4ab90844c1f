# SPDX-License-Identifier: MIT
# LVM linear and striped LVs on two virtio disks: kind, dm target, members and holders.
# shellcheck disable=SC2016
source ../lib.sh
source ./lvm-common.sh
require_verb volumes
a=$(disk 1) b=$(disk 2)
run pvcreate -qq /dev/$a /dev/$b
run vgcreate -qq vg0 /dev/$a /dev/$b
run lvcreate -qq --monitor n -y -L 16M -n lin vg0 /dev/$a
run lvcreate -qq --monitor n -y -i 2 -I 64k -L 32M -n str vg0
udevadm settle --timeout=30
lin=$(kname /dev/vg0/lin) str=$(kname /dev/vg0/str)
log "lin=$lin str=$str"
dmsetup table
check lvm-linear-striped "linear and striped LVs with their PVs" "
v = lv('vg0', 'lin')
eq(v['kind'], 'lvm', 'lin kind')
eq(v['name'], '$lin', 'lin kernel name')
eq(v['dm']['target'], 'linear', 'lin dm target')
eq(v['members'], ['$a'], 'lin members')
eq(v['size_bytes'], 16 << 20, 'lin size')
eq(v['state'], 'ok', 'lin state')
s = lv('vg0', 'str')
eq(s['kind'], 'lvm', 'str kind')
eq(s['dm']['target'], 'striped', 'str dm target')
eq(sorted(s['members']), sorted(['$a', '$b']), 'str members')
eq(s['size_bytes'], 32 << 20, 'str size')
ok('$lin' in vol('$a')['holders'] and '$str' in vol('$a')['holders'], '$a holders: lin and str')
ok('$str' in vol('$b')['holders'], '$b holders: str')
"
run lvremove -qq -y vg0/lin
udevadm settle --timeout=30
check lvm-linear-removed "a removed LV is gone" "
ok(not has_vol('$lin') or vol('$lin').get('dm', {}).get('lv_name') != 'lin', 'lin no longer listed')
"
