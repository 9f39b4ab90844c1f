# SPDX-License-Identifier: MIT
# A fail-slow md member: RAID1 of a dm-delay device and a plain disk. The delay is switched on
# at run time (suspend / reload / resume). md does not notice (the array stays clean and in
# sync, as storpulse must report it); a probe of the member shows the injected latency.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
require_verb probe
a=$(disk 1) b=$(disk 2)
sz=$(blockdev --getsz /dev/$a)
modprobe -a dm_delay md_mod raid1
run dmsetup create slow --table "0 $sz delay /dev/$a 0 0"
udevadm settle --timeout=30
slow=$(basename "$(readlink -f /dev/mapper/slow)")
run mdadm --create /dev/md2 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/mapper/slow /dev/$b </dev/null
udevadm settle --timeout=30
check dm-delay-stack "md2 on a dm-delay member: stack graph" "
m = vol('md2')
eq(sorted(m['members']), sorted(['$slow', '$b']), 'md2 members')
d = vol('$slow')
eq(d['kind'], 'dm', 'dm-delay device kind')
eq(d['dm']['target'], 'delay', 'dm target')
eq(d['members'], ['$a'], 'dm-delay members')
ok('md2' in d['holders'], 'dm-delay holders include md2')
"
log "slow the member down: 100 ms per read"
run dmsetup suspend slow
run dmsetup reload slow --table "0 $sz delay /dev/$a 0 100"
run dmsetup resume slow
dmsetup table slow
timeout 120 "$STORPULSECTL" probe --json --no-progress --seq-bytes=0 --rand-count=10 \
        --rand-queue-depth=1 --timeout=60s /dev/mapper/slow >"$SCRATCH/slow-probe.json"
echo "probe exit status $?"
cat "$SCRATCH/slow-probe.json"
checkfile "$SCRATCH/slow-probe.json" "probe of the slowed member: ok, every read >= 90 ms" "
eq(V['state'], 'ok', 'state')
eq(V['random']['ios'], 10, 'random reads')
ok(V['random']['latency_seconds']['min'] >= 0.09, 'min latency %r >= 0.09 s (dm-delay 100 ms)' % V['random']['latency_seconds']['min'])
"
md_dump md2
check dm-delay-md-unaware "md2 stays clean and in sync: md does not see slowness" "
m = vol('md2')
eq(m['state'], 'ok', 'state')
eq(m['degraded'], 0, 'degraded')
eq(m['member_states'].get('$slow'), 'in_sync', 'slow member state')
"
run dmsetup suspend slow
run dmsetup reload slow --table "0 $sz delay /dev/$a 0 0"
run dmsetup resume slow
