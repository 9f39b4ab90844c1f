# SPDX-License-Identifier: MIT
# md_lifecycle LEVEL NDISKS: one md array through its whole life on virtio disks 1..NDISKS, with
# what storpulsectl volumes --json reports asserted at each step:
#   initial sync (throttled) -> idle -> --fail a member (degraded) -> --remove -> --add with
#   sync_speed_max throttled (recover, progress strictly between 0 and 1, the member a spare)
#   -> idle again -> check (progress) -> aborted by writing idle -> stop.
# Every expectation is what the scenario just did to the kernel; the kernel's own sysfs value is
# waited for first, so a failure means storpulse disagrees with the kernel.
# shellcheck disable=SC2016  # the CODE arguments are Python, expanded there
md_lifecycle() {
        local level=$1 n=$2 md=md0 i devs=() names=()
        for ((i = 1; i <= n; i++)); do
                names+=("$(disk "$i")")
                devs+=("/dev/${names[-1]}")
        done
        local victim=${names[1]} initial_action=resync initial_degraded=0
        # mdadm builds a new RAID5 degraded plus a spare: "recover" with degraded=1 (pitfall 7).
        if [[ $level == raid5 ]]; then
                initial_action=recover
                initial_degraded=1
        fi
        local chunk=()
        [[ $level == raid1 ]] || chunk=(--chunk=64)

        log "create $level $md on ${names[*]} (resync throttled to 2 MB/s)"
        md_throttle 2000
        run mdadm --create /dev/$md --run --metadata=1.2 --level="$level" --raid-devices="$n" \
                "${chunk[@]}" "${devs[@]}" </dev/null
        wait_until 60 "$md initial $initial_action under way" md_sync_started $md
        md_is $md sync_action "$initial_action" || { md_dump $md; fail "$md: kernel shows $(md_attr $md sync_action), expected $initial_action"; }
        md_dump $md
        check "$level-initial" "$level initial $initial_action reported with progress" "
v = vol('$md')
eq(v['kind'], 'md', 'kind')
eq(v['level'], '$level', 'level')
eq(v['raid_disks'], $n, 'raid_disks')
eq(v['sync_action'], '$initial_action', 'sync_action')
inside(v['sync_progress'], 0, 1, 'sync_progress')
eq(v['degraded'], $initial_degraded, 'degraded')
ok(v['size_bytes'] > 0, 'size_bytes > 0')
for d in '${names[*]}'.split():
    ok(d in v['members'], d + ' listed in members')
"

        log "unthrottle, wait for idle"
        md_wait_idle $md 120
        md_dump $md
        check "$level-idle" "$level idle, clean, all members in sync" "
v = vol('$md')
eq(v['sync_action'], 'idle', 'sync_action')
eq(v['degraded'], 0, 'degraded')
eq(v['state'], 'ok', 'state (health)')
for d in '${names[*]}'.split():
    eq(v['member_states'].get(d), 'in_sync', 'member ' + d + ' state')
    eq(member(v, d)['errors'], 0, 'member ' + d + ' errors')
for d in '${names[*]}'.split():
    ok('$md' in vol(d)['holders'], d + ' holders include $md')
"

        log "fail $victim"
        run mdadm /dev/$md --fail /dev/$victim
        wait_until 20 "$md degraded" md_is $md degraded 1
        md_dump $md
        local want_degraded=1
        [[ $level == raid1 ]] && want_degraded=$(wrong 1 0)
        check "$level-degraded" "$level degraded after --fail $victim" "
v = vol('$md')
eq(v['degraded'], $want_degraded, 'degraded')
eq(v['state'], 'degraded', 'state (health)')
ok('faulty' in v['member_states'].get('$victim', ''), '$victim state contains faulty (got %r)' % v['member_states'].get('$victim'))
"

        log "remove $victim, re-add it with recovery throttled"
        run mdadm /dev/$md --remove /dev/$victim
        wait_until 20 "dev-$victim gone" test ! -e /sys/block/$md/md/dev-$victim
        check "$level-removed" "$level member $victim removed" "
v = vol('$md')
ok('$victim' not in v['member_states'], '$victim no longer a member (member_states %r)' % v['member_states'])
eq(v['degraded'], 1, 'degraded')
"
        run mdadm --zero-superblock /dev/$victim
        echo 2000 >/sys/block/$md/md/sync_speed_max
        run mdadm /dev/$md --add /dev/$victim
        wait_until 60 "$md recovery under way" md_sync_started $md
        md_is $md sync_action recover || { md_dump $md; fail "$md: kernel shows $(md_attr $md sync_action), expected recover"; }
        md_dump $md
        check "$level-recover" "$level recovering onto $victim, progress, member rebuilding" "
v = vol('$md')
eq(v['sync_action'], 'recover', 'sync_action')
inside(v['sync_progress'], 0, 1, 'sync_progress')
eq(v['degraded'], 1, 'degraded')
eq(v['member_states'].get('$victim'), 'rebuilding', '$victim state (a spare md gave a slot)')
ok(v['sync_speed_bytes_per_second'] is None or v['sync_speed_bytes_per_second'] > 0, 'sync speed positive or unknown')
eq(v['md']['sync_speed_max_kib_per_second'], 2000, 'md.sync_speed_max_kib_per_second')
eq(v['md']['sync_speed_max_source'], 'local', 'md.sync_speed_max_source')
"
        md_wait_idle $md 120
        check "$level-recovered" "$level recovered: not degraded" "
v = vol('$md')
eq(v['sync_action'], 'idle', 'sync_action')
eq(v['degraded'], 0, 'degraded')
eq(v['state'], 'ok', 'state')
eq(v['member_states'].get('$victim'), 'in_sync', '$victim state')
"

        log "check (scrub) throttled, then abort it"
        echo 2000 >/sys/block/$md/md/sync_speed_max
        echo check >/sys/block/$md/md/sync_action
        wait_until 60 "$md check under way" md_sync_started $md
        md_is $md sync_action check || fail "$md: kernel shows $(md_attr $md sync_action), expected check"
        check "$level-check" "$level check running with progress" "
v = vol('$md')
eq(v['sync_action'], 'check', 'sync_action')
inside(v['sync_progress'], 0, 1, 'sync_progress')
eq(v['degraded'], 0, 'degraded')
"
        echo idle >/sys/block/$md/md/sync_action
        wait_until 30 "$md check aborted" md_is $md sync_action idle
        check "$level-check-aborted" "$level check aborted: idle" "
v = vol('$md')
eq(v['sync_action'], 'idle', 'sync_action')
"
        md_unthrottle
        run mdadm --stop /dev/$md
        udevadm settle --timeout=30
        if [[ ! -e /sys/block/$md ]]; then
                check "$level-stopped" "$level stopped: gone from the inventory" "
ok(not has_vol('$md'), '$md no longer listed')
"
        fi
}
