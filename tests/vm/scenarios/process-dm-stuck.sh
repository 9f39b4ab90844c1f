# SPDX-License-Identifier: MIT
# Children in real uninterruptible sleep: readers of a suspended dm device. (1) basic/process
# (vm-process-stuck, a C program on the library): 20 O_DIRECT readers are SIGKILLed, stay
# tracked and listed while the device is suspended (SIGKILL cannot end a sleep in I/O), and are
# all reaped after `dmsetup resume`. (2) storpulsectl probe of the suspended device: the probe is
# reported stalled, the CLI does not hang at exit on its stuck child but names it as left
# behind, and that child is gone once the device is resumed (init reaps it).
# shellcheck disable=SC2016
source ../lib.sh
require_verb probe
helper=${STORPULSE_VM_PROCESS_STUCK:-$(dirname "$STORPULSECTL")/../tests/vm/vm-process-stuck}
[[ -x $helper ]] || fail "vm-process-stuck not built ($helper)"
a=$(disk 1)
sz=$(blockdev --getsz /dev/$a)
run dmsetup create stuck --table "0 $sz linear /dev/$a 0"
udevadm settle --timeout=30
run dmsetup suspend --nolockfs stuck

timeout 300 "$helper" /dev/mapper/stuck 20 "$(command -v dmsetup)" resume stuck \
        >"$SCRATCH/stuck.tap"
rc=$?
cat "$SCRATCH/stuck.tap"
dmsetup resume stuck 2>/dev/null
((rc != 124)) || fail "vm-process-stuck hung"
grep -q '^not ok' "$SCRATCH/stuck.tap" && fail "vm-process-stuck: a check failed"
((rc == 0)) || fail "vm-process-stuck exit status $rc"
grep -q '^ok .* all collected once the device was resumed' "$SCRATCH/stuck.tap" ||
        fail "vm-process-stuck did not get to the end"

run dmsetup suspend --nolockfs stuck
timeout 90 "$STORPULSECTL" probe --json --no-progress --seq-bytes=0 --rand-count=100 \
        --rand-queue-depth=1 --timeout=3s /dev/mapper/stuck >"$SCRATCH/probe.json" \
        2>"$SCRATCH/probe.err"
prc=$?
cat "$SCRATCH/probe.json" "$SCRATCH/probe.err"
((prc != 124)) || { dmsetup resume stuck; fail "storpulsectl probe hung on its stuck child"; }
left=$(sed -n 's/.*left behind.*: pid \([0-9]*\) .*/\1/p' "$SCRATCH/probe.err")
log "probe exit status $prc, child left behind: ${left:-none}"
[[ -n $left && -d /proc/$left ]] || { dmsetup resume stuck; fail "the probe's stuck child was not reported as left behind"; }
state=$(awk '{print $3}' "/proc/$left/stat")
log "left-behind child $left is in state $state"
[[ $state == D ]] || { dmsetup resume stuck; fail "the left-behind child is not in D state ($state)"; }
run dmsetup resume stuck
wait_until 60 "the left-behind child $left to go away after resume" test ! -d "/proc/$left"
checkfile "$SCRATCH/probe.json" "the probe of the suspended device ended as stalled (exit 3)" "
eq(V['state'], 'stalled', 'state')
eq($prc, 3, 'exit status')
"
log "ok: stuck children tracked, left behind without a hang, reaped after resume"
