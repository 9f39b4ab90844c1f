# SPDX-License-Identifier: MIT
# mdadm --replace on a RAID1 with a write-mostly member, through to its end: md keeps degraded
# at 0 (want_replacement on the old member, a replacement being rebuilt), then marks the old one
# faulty on purpose. storpulse: ok and replacing during it, the old disk "replaced" at the end,
# never degraded or failed; watch reports a replace (started, finished), never "interrupted".
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-common.sh
require_verb volumes
require_verb watch
a=$(disk 1) b=$(disk 2) c=$(disk 3)
modprobe -a md_mod raid1
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$a --write-mostly /dev/$b </dev/null
udevadm settle --timeout=30
run mdadm /dev/md0 --add /dev/$c
udevadm settle --timeout=30
"$STORPULSECTL" watch --json --interval 3600 md0 >"$SCRATCH/replace-watch.json" \
        2>"$SCRATCH/replace-watch.err" &
wpid=$!
sleep 2
echo 3000 >/sys/block/md0/md/sync_speed_max
run mdadm /dev/md0 --replace /dev/$a --with /dev/$c
wait_until 30 "replace under way" md_sync_started md0
md_dump md0
[[ "$(md_attr md0 degraded)" == 0 ]] || fail "kernel: degraded $(md_attr md0 degraded) during a replace"
sync_check replace-running "replace running: figures against the kernel's" md0
# the snapshot sync_check took, with the replace running through it (mdstat before and after)
checkfile "$SCRATCH/replace-running.json" "replace running: ok, replacing, degraded 0" "
v = vol('md0')
eq(v['degraded'], 0, 'degraded (kernel 0)')
eq(v['verdict'], 'ok', 'verdict')
eq(v['state'], 'ok', 'state')
eq(v['replacing'], True, 'replacing')
ok('want_replacement' in v['member_states']['$a'], '$a want_replacement')
ok('replacement' in v['member_states']['$c'], '$c replacement')
ok('write_mostly' in v['member_states']['$b'], '$b write_mostly')
"
# the kernel's own sequence at the end (every distinct reading, builtins only, 2 ms apart), the
# source of tests/unit/test-rebuild-observe.c's replay of this replace
trace_end() {
        local md=/sys/block/md0/md x prev='' line key f n=0 fd
        exec {fd}<> <(:)
        while ((n++ < 20000)); do
                line='' key=''
                for f in sync_action sync_completed sync_speed dev-$a/state dev-$a/slot \
                        dev-$c/state dev-$c/slot; do
                        x=gone
                        [[ -e $md/$f ]] && read -r x <"$md/$f"
                        line+="$f=$x "
                        [[ $f == sync_speed ]] && { [[ $x == none ]] && key+="speed-none " || key+="speed "; }
                        [[ $f != sync_speed ]] && key+="$f=$x "
                done
                while read -r x; do
                        [[ $x == *recovery* ]] && line+="mdstat:${x#*]}" && key+="mdstat-line"
                done </proc/mdstat
                [[ $key != "$prev" ]] && echo "  trace: $line" && prev=$key
                [[ $key == *"sync_action=idle"*"dev-$a/slot=none"* ]] && break
                read -r -t 0.002 -u "$fd" _ || true
        done
}
trace_end >"$SCRATCH/replace-trace" 2>&1 &
tpid=$!
md_wait_idle md0 120
wait_until 30 "$a marked faulty by md" grep -q faulty /sys/block/md0/md/dev-$a/state
wait $tpid 2>/dev/null
cat "$SCRATCH/replace-trace"
md_dump md0
check replace-done "replace done: $a replaced (not failed), $c in sync, array ok" "
v = vol('md0')
eq(v['degraded'], 0, 'degraded')
eq(v['verdict'], 'ok', 'verdict')
eq(v['state'], 'ok', 'state')
eq(v['member_states']['$a'], 'replaced', '$a shown as replaced')
eq(v['member_states']['$c'], 'in_sync', '$c in sync')
eq(v['replacing'], False, 'no longer replacing')
"
sleep 2
kill $wpid 2>/dev/null
wait $wpid 2>/dev/null
cat "$SCRATCH/replace-watch.json"
checkfile "$SCRATCH/replace-watch.json" "watch: one replace, started then finished (info), no interruption" "
ev = [e for e in (J if isinstance(J, list) else [J]) if e.get('array') == 'md0']
kinds = [(e['event'], e['operation']) for e in ev]
ok(('started', 'replace') in kinds, 'started replace in %r' % kinds)
ok(('finished', 'replace') in kinds, 'finished replace in %r' % kinds)
ok(not any(e['event'] == 'interrupted' for e in ev), 'no interrupted event')
ok(not any(e['operation'] == 'recovery' for e in ev), 'never called a recovery')
fin = [e for e in ev if e['event'] == 'finished'][0]
eq(fin['severity'], 'info', 'finished severity')
"
mdadm --stop /dev/md0 >/dev/null 2>&1 || true
