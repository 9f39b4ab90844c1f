# SPDX-License-Identifier: MIT
# Request-based multipath refuses bio-based paths, so a bio-mode multipath device (queue_mode
# bio, queue_if_no_path) over two dm-linear paths of one disk. One path failed (dmsetup message
# fail_path): degraded, naming it; both: failed, I/O queued; fail_if_no_path: failed, not
# queued; paths reinstated: ok again.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-dm-common.sh
require_verb volumes
c=$(disk 3)
run modprobe -a dm_mod dm_multipath dm_round_robin
sz=$(blockdev --getsz /dev/$c)
run dmsetup create mpl1 --table "0 $sz linear /dev/$c 0"
run dmsetup create mpl2 --table "0 $sz linear /dev/$c 0"
udevadm settle --timeout=30
p1=$(cat /sys/block/$(dm_name_of mpl1)/dev)
p2=$(cat /sys/block/$(dm_name_of mpl2)/dev)
n1=$(dm_name_of mpl1)
n2=$(dm_name_of mpl2)
run dmsetup create mp --table "0 $sz multipath 3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 $p1 1 $p2 1"
udevadm settle --timeout=30
mp=$(dm_name_of mp)
dmsetup table mp
dmsetup status mp
dm_daemon_start
dm_check mp-ok "both paths active: ok" "
eq(vol('$mp')['verdict'], 'ok', 'mp verdict')
"
run dmsetup message mp 0 fail_path $p1
dmsetup status mp
status_shows mp "$p1 F" || fail "kernel: $p1 not failed"
dm_check mp-one "one path failed: degraded, naming it" "
v = vol('$mp')
eq(v['verdict'], 'degraded', 'mp verdict')
ok('$n1' in v['verdict_reason'], 'reason names $n1: %r' % v['verdict_reason'])
ok('$n2' not in v['verdict_reason'], 'reason does not name $n2: %r' % v['verdict_reason'])
$(figures_check "vol('$mp')" mp)
"
metrics_has "storpulse_volume_health\\{volume=\"$mp\"(,[a-z]+=\"[^\"]*\")*,state=\"degraded\"\\} 1" "mp degraded"
event_has "$mp: .* is degraded" "degraded event"
run dmsetup message mp 0 fail_path $p2
dmsetup status mp
dm_check mp-all "every path failed, queue_if_no_path: failed, I/O queued" "
v = vol('$mp')
eq(v['verdict'], 'failed', 'mp verdict')
ok('queued' in v['verdict_reason'], 'reason says queued: %r' % v['verdict_reason'])
$(figures_check "vol('$mp')" mp)
eq(v['dm']['multipath']['queueing'], True, 'queueing (queue_if_no_path in the table)')
"
metrics_has "storpulse_volume_health\\{volume=\"$mp\"(,[a-z]+=\"[^\"]*\")*,state=\"failed\"\\} 1" "mp failed"
metrics_has "storpulse_multipath_queueing\\{volume=\"$mp\"[^}]*\\} 1" "mp queueing"
event_has "$mp: .* has failed \(.*queued" "failed event naming the queueing"
run dmsetup message mp 0 fail_if_no_path
dmsetup status mp
dmsetup table mp
dm_check mp-all-noq "every path failed, fail_if_no_path: failed, I/O fails" "
v = vol('$mp')
eq(v['verdict'], 'failed', 'mp verdict')
ok('queued' not in v['verdict_reason'], 'reason not queued: %r' % v['verdict_reason'])
"
run dmsetup message mp 0 reinstate_path $p1
run dmsetup message mp 0 reinstate_path $p2
dmsetup status mp
dm_check mp-back "paths reinstated: ok" "
eq(vol('$mp')['verdict'], 'ok', 'mp verdict')
"
event_has "$mp: .* recovered" "recovered event"
dm_daemon_stop
dmsetup remove mp mpl1 mpl2 >/dev/null 2>&1 || true
