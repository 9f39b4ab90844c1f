# SPDX-License-Identifier: MIT
# `storpulsectl watch` is event driven: started with a one-hour poll interval, it must still
# print the "started" event of a recovery within seconds of `mdadm --add`, and exit after
# --count 1 events.
# shellcheck disable=SC2016
source ../lib.sh
require_verb watch
md_raid1_missing_b
echo 2000 >/sys/block/md0/md/sync_speed_max
timeout 120 "$STORPULSECTL" watch --verbose --json --interval 3600 --count 1 >"$SCRATCH/watch.json" \
        2>"$SCRATCH/watch.err" &
pid=$!
sleep 3
kill -0 $pid 2>/dev/null || { cat "$SCRATCH/watch.err"; fail "storpulsectl watch exited before any event"; }
t0=$(date +%s.%N)
run mdadm /dev/md0 --add /dev/$b
wait $pid
rc=$?
dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
log "watch exited with $rc ${dt}s after mdadm --add"
cat "$SCRATCH/watch.json"
cat "$SCRATCH/watch.err"
((rc == 0)) || fail "storpulsectl watch exit status $rc (124: no event arrived within 120 s)"
checkfile "$SCRATCH/watch.json" "one 'started' recovery event for md0 (no poll interval involved)" "
ev = J if isinstance(V, list) else [V]
eq(len(ev), 1, 'number of events printed with --count 1')
e = ev[0]
eq(e['event'], 'started', 'event')
eq(e['array'], 'md0', 'array')
eq(e['operation'], 'recovery', 'operation')
# md can show 'recover' before any progress exists: null is a valid start
ok(e['progress'] is None or -0.001 <= e['progress'] <= 1, 'progress null or in [0, 1]')
"
grep -Eq 'md0: watching [0-9]+ attributes, [1-9][0-9]* event-driven, /proc/mdstat event-driven' \
        "$SCRATCH/watch.err" || fail "watch did not register md0's attributes for EPOLLPRI (see its stderr above)"
echo "  ok: md0's attributes and /proc/mdstat are watched event-driven"
md_wait_idle md0 120
