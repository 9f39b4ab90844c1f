# SPDX-License-Identifier: MIT
# A device removed (PCI hot-unplug of its virtio controller) while a probe runs: the probe must
# end (I/O errors, not a hang) and the device must leave the inventory. The device comes back
# with a PCI rescan.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
require_verb probe
d=$(disk 4)
pci=$(readlink -f /sys/block/$d/device/..)
[[ -e $pci/remove ]] || fail "no PCI remove for $d ($pci)"
log "$d sits on PCI device $pci"
timeout 90 "$STORPULSECTL" probe --json --no-progress --seq-bytes=0 --rand-seconds=20 \
        --rand-queue-depth=1 --timeout=30s /dev/$d >"$SCRATCH/removed-probe.json" &
pid=$!
sleep 2
echo 1 >"$pci/remove"
wait $pid
rc=$?
log "probe exit status $rc"
cat "$SCRATCH/removed-probe.json"
((rc != 124)) || fail "storpulsectl probe hung on a removed device"
udevadm settle --timeout=30
checkfile "$SCRATCH/removed-probe.json" "the probe of a removed device ended with errors" "
ok(V['state'] in ('error', 'unusable'), 'state %r is error/unusable' % V['state'])
eq($rc, 3 if V['state'] == 'error' else 2, 'exit status')
"
check device-removed-gone "the removed device left the inventory" "
ok(not has_vol('$d'), '$d no longer listed')
"
echo 1 >/sys/bus/pci/rescan
udevadm settle --timeout=30
wait_until 30 "disk 4 back after a PCI rescan" test -e /dev/disk/by-id/virtio-vmdisk4
