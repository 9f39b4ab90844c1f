# SPDX-License-Identifier: MIT
# A whole volume throttled: a configfs null_blk device limited to 10 MB/s (mbps); storpulse
# lists it and its sequential probe cannot exceed the limit.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
require_verb probe
run modprobe null_blk nr_devices=0
mountpoint -q /sys/kernel/config || run mount -t configfs configfs /sys/kernel/config
# 6.1 names the disk after the configfs directory (older kernels: nullb<index>).
cfg=/sys/kernel/config/nullb/nullb9
run mkdir $cfg
echo 128 >$cfg/size || fail "cannot set size"
echo 1 >$cfg/memory_backed || fail "cannot set memory_backed"
echo 10 >$cfg/mbps || fail "cannot set mbps"
echo 1 >$cfg/power || fail "cannot power on"
udevadm settle --timeout=30
nb=
for n in nullb9 "nullb$(cat $cfg/index)"; do
        [[ -b /dev/$n ]] && nb=$n && break
done
[[ -n $nb ]] || { ls /sys/block; fail "no null_blk disk appeared for $cfg"; }
check null-blk-listed "the throttled null_blk device is listed" "
v = vol('$nb')
eq(v['kind'], 'disk', 'kind')
eq(v['size_bytes'], 128 << 20, 'size_bytes')
"
timeout 120 "$STORPULSECTL" probe --json --no-progress --seq-bytes=16M --block-size=1M \
        --queue-depth=4 --rand-seconds=0 --timeout=60s /dev/$nb >"$SCRATCH/nullb-probe.json"
echo "probe exit status $?"
cat "$SCRATCH/nullb-probe.json"
checkfile "$SCRATCH/nullb-probe.json" "sequential probe of a 10 MB/s volume reads <= 12 MB/s" "
eq(V['state'], 'ok', 'state')
eq(V['sequential']['bytes'], 16 << 20, 'bytes read')
bps = V['sequential']['bytes_per_second']
ok(0 < bps <= 12e6, 'sequential %r B/s within the 10 MB/s limit' % bps)
"
