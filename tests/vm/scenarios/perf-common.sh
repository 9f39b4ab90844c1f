# SPDX-License-Identifier: MIT
# Helpers of the learned-baseline scenarios (perf-fail-slow, perf-faults).
#   perf_raid1_of_delays: md0, a RAID1 of three dm-delay devices m1..m3 (delay 0) over virtio
#     disks 1..3; their kernel names in dm[]; DAEMON is the storpulsed beside $STORPULSECTL.
#   perf_start_daemon [ARGS...]: storpulsed -c $SCRATCH/sp.conf ARGS..., its log in
#     $SCRATCH/daemon.log, pid in dpid, STORPULSE_SOCKET exported once the socket is there.
#   events TYPE: how many TYPE events the daemon logged.
perf_raid1_of_delays() {
        local i a sz
        require_verb report
        DAEMON=$(dirname "$STORPULSECTL")/storpulsed
        [[ -x $DAEMON ]] || fail "no storpulsed beside $STORPULSECTL"
        modprobe -a dm_delay md_mod raid1
        dm=()
        for i in 1 2 3; do
                a=$(disk $i)
                sz=$(blockdev --getsz /dev/$a)
                run dmsetup create m$i --table "0 $sz delay /dev/$a 0 0"
        done
        udevadm settle --timeout=30
        for i in 1 2 3; do
                dm+=("$(basename "$(readlink -f /dev/mapper/m$i)")")
        done
        run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=3 \
                /dev/mapper/m1 /dev/mapper/m2 /dev/mapper/m3 </dev/null
        udevadm settle --timeout=30
        mkdir -p "$SCRATCH/run" "$SCRATCH/state"
}

perf_start_daemon() {
        "$DAEMON" -c "$SCRATCH/sp.conf" "$@" --runtime-dir "$SCRATCH/run" \
                --state-dir "$SCRATCH/state" >"$SCRATCH/daemon.log" 2>&1 &
        dpid=$!
        export STORPULSE_SOCKET=$SCRATCH/run/control
        wait_until 60 "control socket" test -S "$STORPULSE_SOCKET"
}

events() { grep -c "\[$1\]" "$SCRATCH/daemon.log" || true; }
