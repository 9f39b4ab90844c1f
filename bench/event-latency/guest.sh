#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/event-latency, the guest side (systemd as PID 1, run by bench/event-latency/run through
# tests/vm/run-vm). A RAID1 md0 of virtio disks 1 and 2, watched at once by
#   - sysfs-watch.py: the kernel's sysfs notifications (EPOLLPRI wake-ups), the reference;
#   - storpulsed (a transient unit, journal logging): its events' journal entries;
#   - mdadm --monitor --program: the handler's time stamp per event;
# then BENCH_REPS times: `mdadm --fail` (wait for both monitors), --remove, --add (wait for the
# rebuild to start in both and to finish). Raw logs land in /vmout for the host's analysis.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../tests/vm/lib.sh"
STORPULSED=${BENCH_STORPULSED:?}
reps=${BENCH_REPS:-5}
out=/vmout

modprobe -a md_mod raid1 || fail "modprobe"
a=$(disk 1) b=$(disk 2)
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$a /dev/$b </dev/null
udevadm settle --timeout=30

# background helpers must not hold the guest script's stdout (guest-init tees it: the boot
# would not end), and go when the script ends, whatever way
pids=()
cleanup() {
        journalctl -u storpulsed-bench -o json --no-pager >"$out/journal.json" 2>/dev/null
        kill "${pids[@]}" 2>/dev/null
        systemctl stop storpulsed-bench 2>/dev/null
        return 0
}
trap cleanup EXIT
python3 "$here/sysfs-watch.py" md0 >"$out/sysfs.log" 2>"$out/sysfs.err" </dev/null &
pids+=($!)
wait_until 20 "sysfs watcher" grep -q watch-ready "$out/sysfs.log"

cat >"$SCRATCH/mdadm-handler" <<EOF2
#!/bin/sh
echo "\$(date +%s.%N) \$1 \$2 \$3" >>$out/mdadm.log
EOF2
chmod +x "$SCRATCH/mdadm-handler"
: >"$out/mdadm.log"
# an empty mdadm.conf: no MAILADDR (no sendmail fork next to the handler)
: >"$SCRATCH/mdadm.conf"
mdadm --monitor --config="$SCRATCH/mdadm.conf" --delay=60 --program="$SCRATCH/mdadm-handler" \
        /dev/md0 </dev/null >"$out/mdadm-monitor.out" 2>&1 &
pids+=($!)

mkdir -p /run/bench-sp /run/bench-sp-state
cat >"$SCRATCH/bench.conf" <<EOF2
[Schedule]
Builtin=no
[Volumes]
Name=md0
[HTTP]
Enable=no
EOF2
run systemd-run --unit=storpulsed-bench --property=Type=notify --property=NotifyAccess=main \
        "$STORPULSED" --config "$SCRATCH/bench.conf" --runtime-dir /run/bench-sp \
        --state-dir /run/bench-sp-state
sleep 2

ev() { # ev EVENT...: how many storpulsed journal entries with one of these STORPULSE_EVENTs
        local n=0 e
        for e in "$@"; do
                n=$((n + $(journalctl -u storpulsed-bench STORPULSE_EVENT="$e" -o cat --no-pager | wc -l)))
        done
        echo $n
}
md_ev() { grep -c " $1 " "$out/mdadm.log"; }
# ev_gt N EVENT...: more than N storpulsed entries of these events; md_ev_gt N EVENT: of mdadm's
ev_gt() { local n=$1; shift; (($(ev "$@") > n)); }
md_ev_gt() { (($(md_ev "$2") > $1)); }

: >"$out/commands.log"
for ((i = 1; i <= reps; i++)); do
        nf=$(ev member-failed) nmf=$(md_ev Fail)
        echo "$(date +%s.%N) $i fail" >>"$out/commands.log"
        mdadm /dev/md0 --fail /dev/$b >/dev/null 2>&1 || fail "mdadm --fail"
        wait_until 20 "storpulsed member-failed" ev_gt "$nf" member-failed
        wait_until 20 "mdadm Fail" md_ev_gt "$nmf" Fail
        sleep 1
        run mdadm /dev/md0 --remove /dev/$b
        run mdadm --zero-superblock /dev/$b
        # throttled (32 MiB at 4 MB/s: 8 s) so that mdadm's 'RebuildStarted' can see it run
        echo 1 >/sys/block/md0/md/sync_speed_min
        echo 4000 >/sys/block/md0/md/sync_speed_max
        sleep 1
        ns=$(ev rebuild-started rebuild-resumed) nms=$(md_ev RebuildStarted)
        echo "$(date +%s.%N) $i add" >>"$out/commands.log"
        mdadm /dev/md0 --add /dev/$b >/dev/null 2>&1 || fail "mdadm --add"
        wait_until 30 "storpulsed rebuild-started" ev_gt "$ns" rebuild-started rebuild-resumed
        wait_until 30 "mdadm RebuildStarted" md_ev_gt "$nms" RebuildStarted
        echo system >/sys/block/md0/md/sync_speed_max
        wait_until 120 "md0 idle" md_is md0 sync_action idle
        wait_until 30 "md0 clean" md_is md0 degraded 0
        sleep 2
        log "repetition $i done"
done
journalctl -u storpulsed-bench -o json --no-pager >"$out/journal.json"
exit 0
