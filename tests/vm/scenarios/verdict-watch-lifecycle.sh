# SPDX-License-Identifier: MIT
# The whole life of one recovery as `storpulsectl watch` reports it: started, the progress marks
# in order, finished, and nothing else (no interruption); each event's progress lies within
# the kernel's mdstat progress read around it, and a volumes snapshot mid-way matches the
# kernel's figures of the same moment.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-common.sh
require_verb volumes
require_verb watch
md_raid1_missing_b
echo 4000 >/sys/block/md0/md/sync_speed_max
"$STORPULSECTL" watch --json --interval 3600 md0 >"$SCRATCH/life.json" 2>"$SCRATCH/life.err" &
wpid=$!
sleep 2
run mdadm /dev/md0 --add /dev/$b
wait_until 30 "recovery under way" md_sync_started md0
md_dump md0
sync_check life-mid "recovery mid-way: figures against the kernel's" md0
# the snapshot sync_check took (mdstat showed the recovery running before and after it): a
# second snapshot could come after the recovery's end on a loaded machine
checkfile "$SCRATCH/life-mid.json" "recovery: degraded until done, the new member a spare" "
v = vol('md0')
eq(v['verdict'], 'degraded', 'verdict (recovering through the snapshot)')
eq(v['sync_action'], 'recover', 'sync_action')
"
md_wait_idle md0 180
wait_until 10 "md0 degraded 0" md_is md0 degraded 0
sleep 2
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null
cat "$SCRATCH/life.json"
checkfile "$SCRATCH/life.json" "watch: started, progress marks in order, finished" "
ev = [e for e in (J if isinstance(J, list) else [J]) if e.get('array') == 'md0']
kinds = [e['event'] for e in ev]
eq(kinds[0], 'started', 'first event')
eq(kinds[-1], 'finished', 'last event')
ok(all(k in ('started', 'progress', 'finished') for k in kinds), 'only started/progress/finished: %r' % kinds)
marks = [e['percent'] for e in ev if e['event'] == 'progress']
ok(len(marks) >= 1, 'at least one progress mark (%r)' % marks)
eq(marks, sorted(marks), 'marks in order')
ok(all(m % 10 == 0 and 10 <= m <= 90 for m in marks), 'marks at multiples of 10')
for e in ev:
    eq(e['operation'], 'recovery', 'operation of ' + e['event'])
    if e['event'] == 'progress':
        inside(e['progress'], e['percent'] / 100 - 0.001, 1, 'progress at the %d%% mark' % e['percent'])
fin = ev[-1]
eq(fin['severity'], 'notice', 'a recovery finished is a notice')
"
check life-done "recovery done: ok" "
v = vol('md0')
eq(v['verdict'], 'ok', 'verdict')
eq(v['sync_progress'], None, 'no figure for an idle array')
eq(v['sync_eta_seconds'], None, 'no eta for an idle array')
"
mdadm --stop /dev/md0 >/dev/null 2>&1 || true
