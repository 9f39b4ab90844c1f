# SPDX-License-Identifier: MIT
# scsi_debug as the hardware-RAID controller stand-in: a disk on a SCSI host whose proc_name is
# scsi_debug is a controller volume only when STORPULSE_CONTROLLER_TEST=1 is set; without it,
# a plain disk. Then the "controller" is slowed (scsi_debug delay, in jiffies) and a probe sees it.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
require_verb probe
run modprobe scsi_debug dev_size_mb=32 num_tgts=1 max_luns=1 delay=0
udevadm settle --timeout=30
sd=
for m in /sys/block/sd*/device/model; do
        [[ -e $m && "$(cat "$m")" == scsi_debug* ]] && sd=$(basename "$(dirname "$(dirname "$m")")")
done
[[ -n $sd ]] || fail "no scsi_debug disk appeared"
host=$(basename "$(readlink -f /sys/block/$sd/device)" | cut -d: -f1)
log "scsi_debug disk $sd on host$host, proc_name $(cat /sys/class/scsi_host/host$host/proc_name)"
check controller-on "scsi_debug disk is a controller volume under STORPULSE_CONTROLLER_TEST=1" "
v = vol('$sd')
eq(v['kind'], 'controller', 'kind')
eq(v['driver'], 'scsi_debug', 'driver (scsi host proc_name)')
eq(v['scsi_host'], 'host$host', 'scsi_host')
eq(v['size_bytes'], 32 << 20, 'size_bytes')
"
env -u STORPULSE_CONTROLLER_TEST "$STORPULSECTL" volumes --json >"$SCRATCH/controller-off.json" ||
        fail "storpulsectl volumes --json failed"
checkfile "$SCRATCH/controller-off.json" "without STORPULSE_CONTROLLER_TEST the scsi_debug disk is a plain disk" "
v = vol('$sd')
eq(v['kind'], 'disk', 'kind')
"
log "slow the controller: 25 jiffies (100 ms at HZ=250) per command"
echo 0 >/sys/bus/pseudo/drivers/scsi_debug/ndelay
echo 25 >/sys/bus/pseudo/drivers/scsi_debug/delay
timeout 120 "$STORPULSECTL" probe --json --no-progress --seq-bytes=0 --rand-count=10 \
        --rand-queue-depth=1 --timeout=60s /dev/$sd >"$SCRATCH/controller-probe.json"
echo "probe exit status $?"
cat "$SCRATCH/controller-probe.json"
checkfile "$SCRATCH/controller-probe.json" "probe of the slowed controller volume: ok, every read >= 80 ms" "
eq(V['state'], 'ok', 'state')
eq(V['random']['ios'], 10, 'random reads')
ok(V['random']['latency_seconds']['min'] >= 0.08, 'min latency %r >= 0.08 s (scsi_debug delay 100 ms)' % V['random']['latency_seconds']['min'])
"
echo 0 >/sys/bus/pseudo/drivers/scsi_debug/delay
