# SPDX-License-Identifier: MIT
# PVs on dm-linear slices of one disk, so a PV can be made to fail by loading an `error` table
# under it. A striped LV read until the kernel's stripe health shows D: failed, naming the
# stripe; a mirror LV (--type mirror) whose leg's PV errors, written until the leg shows D:
# degraded, naming the leg.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-dm-common.sh
require_verb volumes
d=$(disk 4)
run modprobe -a dm_mod dm_mirror dm_log
# the slices start 1 MiB in, so the disk itself shows no PV label (LVM would see duplicates)
q=$((($(blockdev --getsz /dev/$d) - 2048) / 4))
for i in 1 2 3 4; do
        run dmsetup create spv$i --table "0 $q linear /dev/$d $((2048 + (i - 1) * q))"
done
udevadm settle --timeout=30
run pvcreate -q /dev/mapper/spv1 /dev/mapper/spv2 /dev/mapper/spv3 /dev/mapper/spv4
run vgcreate -q vgx /dev/mapper/spv1 /dev/mapper/spv2 /dev/mapper/spv3 /dev/mapper/spv4
run lvcreate -q -y -n st -i 2 -I 64k -L 8M vgx /dev/mapper/spv1 /dev/mapper/spv2
run lvcreate -q -y --monitor n --type mirror -m 1 --mirrorlog core --nosync -n mi -L 4M vgx /dev/mapper/spv3 /dev/mapper/spv4
udevadm settle --timeout=30
dmsetup table vgx-st vgx-mi
dmsetup status vgx-st vgx-mi
dm_daemon_start
dm_check sm-ok "striped and mirror LVs ok" "
eq(lv('vgx', 'st')['verdict'], 'ok', 'st verdict')
eq(lv('vgx', 'mi')['verdict'], 'ok', 'mi verdict')
"
# error_table NAME: replace a dm device's table by an `error` target of the same size
error_table() {
        local n
        n=$(dmsetup table "$1" | awk '{ print $2 }')
        run dmsetup suspend "$1"
        run dmsetup load "$1" --table "0 $n error"
        run dmsetup resume "$1"
}
n2=$(dm_name_of spv2)
error_table spv2
log "read the striped LV until the stripe on $n2 shows D"
read_st() {
        dd if=/dev/vgx/st of=/dev/null bs=64k count=128 iflag=direct status=none 2>/dev/null
        status_shows vgx-st ' [AD]*D[AD]*$'
}
wait_until 30 "vgx-st stripe health D" read_st
dmsetup status vgx-st
dm_check st-dead "a stripe shows D: failed, naming it" "
s = lv('vgx', 'st')
eq(s['verdict'], 'failed', 'st verdict')
ok('$n2' in s['verdict_reason'], 'reason names $n2: %r' % s['verdict_reason'])
"
n4=$(dm_name_of spv4)
# the kernel reports the leg, LVM's mimage sub-LV on spv4: the reason names that device
m1=$(dm_name_of vgx-mi_mimage_1)
error_table spv4
log "write the mirror LV until its leg $m1 (on $n4) shows D"
write_mi() {
        dd if=/dev/urandom of=/dev/vgx/mi bs=64k count=16 oflag=direct status=none 2>/dev/null
        status_shows vgx-mi ' A[A-Z] | [A-Z]A '
        ! status_shows vgx-mi ' AA '
}
wait_until 30 "vgx-mi leg not A" write_mi
dmsetup status vgx-mi
dm_check mi-leg "mirror leg lost: degraded, naming it" "
m = lv('vgx', 'mi')
eq(m['verdict'], 'degraded', 'mi verdict')
ok('$m1' in m['verdict_reason'], 'reason names the leg $m1: %r' % m['verdict_reason'])
"
metrics_has 'storpulse_volume_health\{volume="[^"]+",(.*,)?state="degraded"\} 1' "a degraded series"
dm_daemon_stop
vgchange -an vgx >/dev/null 2>&1 || true
dmsetup remove_all >/dev/null 2>&1 || true
