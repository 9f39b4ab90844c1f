# SPDX-License-Identifier: MIT
# A dm device suspended while a probe runs: its I/O hangs in the kernel. The probe must end as
# "stalled" after its --timeout and the storpulsectl process must return (enforced by timeout),
# even though the probing child is stuck until the device is resumed. `volumes` must not hang on
# the suspended device either and must show it suspended.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
require_verb probe
a=$(disk 3)
sz=$(blockdev --getsz /dev/$a)
run dmsetup create susp --table "0 $sz linear /dev/$a 0"
udevadm settle --timeout=30
t0=$(date +%s)
timeout 90 "$STORPULSECTL" probe --json --no-progress --seq-bytes=0 --rand-seconds=8 \
        --rand-queue-depth=1 --timeout=10s /dev/mapper/susp >"$SCRATCH/susp-probe.json" &
pid=$!
sleep 3
run dmsetup suspend --nolockfs susp
wait $pid
rc=$?
t1=$(date +%s)
log "probe returned with exit status $rc after $((t1 - t0)) s (124 = killed by timeout: hung)"
((rc != 124)) || { dmsetup resume susp; fail "storpulsectl probe hung on a suspended device"; }
timeout 60 "$STORPULSECTL" volumes --json >"$SCRATCH/susp-volumes.json"
vrc=$?
cat "$SCRATCH/susp-probe.json"
((vrc == 0)) || { dmsetup resume susp; fail "storpulsectl volumes --json failed or hung (rc $vrc) with a suspended device"; }
checkfile "$SCRATCH/susp-volumes.json" "volumes lists the suspended dm device as suspended" "
v = vol('$(basename "$(readlink -f /dev/mapper/susp)")')
eq(v['dm']['suspended'], True, 'dm.suspended')
"
run dmsetup resume susp
eq_rc=$rc
checkfile "$SCRATCH/susp-probe.json" "the probe of the suspended device ended as stalled (exit 3)" "
eq(V['state'], 'stalled', 'state')
eq($eq_rc, 3, 'exit status')
"
