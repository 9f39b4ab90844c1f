# SPDX-License-Identifier: MIT
# Thin pools filled on the real kernel: one with error_if_no_space (writes to new blocks fail at
# once), one that queues (writers hang until no_space_timeout); both pools say
# out_of_data_space in their status and are failed, the queueing one says so; data usage is
# a /metrics figure, and the JSON's dm.thin_pool figures are the kernel's status line's.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-dm-common.sh
require_verb volumes
a=$(disk 1)
run modprobe -a dm_mod dm_thin_pool
# queued writes wait this long before the pool errors them: longer than the checks below
echo 300 >/sys/module/dm_thin_pool/parameters/no_space_timeout
run pvcreate -q /dev/$a
run vgcreate -q vgt /dev/$a
run lvcreate -q -y --monitor n --type thin-pool -L 8M -n pe vgt
run lvchange -q --errorwhenfull y vgt/pe
run lvcreate -q -y --monitor n -V 32M -T vgt/pe -n te
# queue_if_no_space is lvm2's default (errorwhenfull n)
run lvcreate -q -y --monitor n --type thin-pool -L 8M -n pq vgt
run lvcreate -q -y --monitor n -V 32M -T vgt/pq -n tq
udevadm settle --timeout=30
dmsetup ls --tree
dmsetup table
dmsetup status
dm_daemon_start
STORPULSE_CONTROLLER_TEST=1 ctl volumes || true
dm_check thin-before "pools and thin LVs ok while there is room" "
for n in ('pe', 'pq', 'te', 'tq'):
    eq(lv('vgt', n)['verdict'], 'ok', n + ' verdict')
$(figures_check "lv('vgt', 'pe')" vgt-pe-tpool)
"
log "fill pool pe (error_if_no_space)"
dd if=/dev/urandom of=/dev/vgt/te bs=1M count=12 oflag=direct status=none 2>&1 | head -n 2
wait_until 20 "vgt-pe-tpool out_of_data_space" status_shows vgt-pe-tpool out_of_data_space
dmsetup status vgt-pe-tpool
dm_check thin-full-error "pool pe out of data space, writes to new blocks fail: failed" "
p = lv('vgt', 'pe')
eq(p['verdict'], 'failed', 'pe verdict')
ok('out of data space' in p['verdict_reason'], 'reason: %r' % p['verdict_reason'])
ok('fail' in p['verdict_reason'], 'reason says writes fail: %r' % p['verdict_reason'])
eq(lv('vgt', 'pq')['verdict'], 'ok', 'pq still ok')
$(figures_check "lv('vgt', 'pe')" vgt-pe-tpool)
"
metrics_has 'storpulse_thin_pool_data_usage_ratio\{volume="[^"]+",vg="vgt",lv="pe"\} 1$' "pe data usage 1"
metrics_has 'storpulse_thin_pool_metadata_usage_ratio\{volume="[^"]+",vg="vgt",lv="pe"\} 0\.[0-9]' "pe metadata usage"
event_has 'has failed \(.*out of data space' "failed event naming the reason"

log "fill pool pq (queue_if_no_space): the writer hangs"
dd if=/dev/urandom of=/dev/vgt/tq bs=1M count=12 oflag=direct status=none 2>/dev/null &
ddpid=$!
wait_until 30 "vgt-pq-tpool out_of_data_space" status_shows vgt-pq-tpool out_of_data_space
dmsetup status vgt-pq-tpool
status_shows vgt-pq-tpool queue_if_no_space || fail "kernel: pq does not queue"
dm_check thin-full-queue "pool pq out of data space, queueing: failed, writers hang" "
p = lv('vgt', 'pq')
eq(p['verdict'], 'failed', 'pq verdict')
ok('queued' in p['verdict_reason'], 'reason says I/O is queued: %r' % p['verdict_reason'])
$(figures_check "lv('vgt', 'pq')" vgt-pq-tpool)
"
metrics_has 'storpulse_thin_pool_data_usage_ratio\{volume="[^"]+",vg="vgt",lv="pq"\} 1$' "pq data usage 1"
# release the writer: error mode ends the queue
run lvchange -q --errorwhenfull y vgt/pq
wait $ddpid 2>/dev/null || true
dm_daemon_stop
vgchange -an vgt >/dev/null 2>&1 || dmsetup remove_all >/dev/null 2>&1 || true
