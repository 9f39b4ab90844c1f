# SPDX-License-Identifier: MIT
# An old-style snapshot whose COW store overflows: the kernel marks it Invalid (its data is
# lost); before that its usage is a figure.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-dm-common.sh
require_verb volumes
b=$(disk 2)
run modprobe -a dm_mod dm_snapshot
run pvcreate -q /dev/$b
run vgcreate -q vgs /dev/$b
run lvcreate -q -y -n origin -L 16M vgs
run lvcreate -q -y --monitor n -s -n snap -L 4M vgs/origin
udevadm settle --timeout=30
dd if=/dev/urandom of=/dev/vgs/origin bs=1M count=1 oflag=direct status=none
dmsetup table vgs-snap
dmsetup status vgs-snap
dm_daemon_start
dm_check snap-used "snapshot valid, partly used: ok" "
eq(lv('vgs', 'snap')['verdict'], 'ok', 'snap verdict')
$(figures_check "lv('vgs', 'snap')" vgs-snap)
"
metrics_has 'storpulse_snapshot_usage_ratio\{volume="[^"]+",vg="vgs",lv="snap"\} 0\.[0-9]' "snapshot usage"
log "overflow the snapshot"
dd if=/dev/urandom of=/dev/vgs/origin bs=1M count=8 oflag=direct status=none
wait_until 20 "vgs-snap Invalid" status_shows vgs-snap Invalid
dmsetup status vgs-snap
dm_check snap-invalid "snapshot Invalid: failed" "
s = lv('vgs', 'snap')
eq(s['verdict'], 'failed', 'snap verdict')
ok('invalid' in s['verdict_reason'], 'reason: %r' % s['verdict_reason'])
eq(lv('vgs', 'origin')['state'], 'ok', 'origin still ok (state)')
$(figures_check "lv('vgs', 'snap')" vgs-snap)
"
metrics_has 'storpulse_volume_problem\{volume="[^"]+"(,[a-z]+="[^"]*")*\} 1' "a problem series"
event_has 'has failed \(.*invalid' "failed event naming the reason"
dm_daemon_stop
vgchange -an vgs >/dev/null 2>&1 || dmsetup remove_all >/dev/null 2>&1 || true
