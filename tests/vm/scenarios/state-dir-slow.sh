# SPDX-License-Identifier: MIT
# The event loop with its state directory on a device that takes 10 s per write (issue 24): ext4
# on a dm-delay device over virtio disk 3 that reads at once and delays every write by 10 s.
# storpulsed runs with that state directory, a watchdog (WATCHDOG_USEC=2 s) and NOTIFY_SOCKET
# pointed at a listener that records each notification's arrival. A probe of md0 (a RAID1 of
# disks 1 and 2) ends in a probes.json save, which waits about 10 s for its fsync; right after
# the probe, a member of md0 is failed. Asserted: the save really was slow (probes.json appears
# 8 s or more after the probe), the member-failed event reaches the journal within 1 s of the
# fail and before the save ends, `status` answers within 2 s meanwhile, and the watchdog is fed
# all along (no gap of 2 s between two WATCHDOG=1, which systemd would have answered with a
# kill). Figures printed: the event's delay, status's time, the save's time, the longest gap.
# shellcheck disable=SC2016
source ../lib.sh
source ./perf-common.sh
require_verb status
DAEMON=$(dirname "$STORPULSECTL")/storpulsed
[[ -x $DAEMON ]] || fail "no storpulsed beside $STORPULSECTL"
modprobe -a md_mod raid1 dm_mod dm_delay ext4 || fail "md/dm/ext4 modules"
a=$(disk 1) b=$(disk 2) c=$(disk 3)
STATE=$SCRATCH/slow/state
NOTIFY=$SCRATCH/notify.sock
lpid='' dpid='' sz=0
cleanup() {
        local rc=$?
        [[ -n $dpid ]] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
        [[ -n $lpid ]] && kill "$lpid" 2>/dev/null
        if ((rc != 0)) && [[ -s $SCRATCH/daemon.log ]]; then
                echo "--- storpulsed's log (last 40 lines)"
                tail -n 40 "$SCRATCH/daemon.log"
        fi
        # writes without delay before the unmount flushes the journal (else 10 s per step)
        if dmsetup status slowst >/dev/null 2>&1; then
                dmsetup load slowst --table "0 $sz delay /dev/$c 0 0" && dmsetup resume slowst
                umount "$SCRATCH/slow" 2>/dev/null
                dmsetup remove slowst 2>/dev/null
        fi
        mdadm --stop /dev/md0 >/dev/null 2>&1
}
trap cleanup EXIT

run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$a /dev/$b </dev/null
# the state directory: made on the bare disk, then mounted through a device whose writes wait
run mkfs.ext4 -q -F /dev/$c
sz=$(blockdev --getsz /dev/$c)
run dmsetup create slowst --table "0 $sz delay /dev/$c 0 0 /dev/$c 0 10000"
udevadm settle --timeout=30
mkdir -p "$SCRATCH/slow"
run mount -o noatime /dev/mapper/slowst "$SCRATCH/slow"
mkdir -p "$STATE" "$SCRATCH/run"

# the notification listener: "MONOTONIC-SECONDS MESSAGE" per datagram
rm -f "$NOTIFY"
python3 -u - "$NOTIFY" >"$SCRATCH/notify.log" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    d = s.recv(4096).decode(errors="replace").replace("\n", " ")
    print(f"{time.monotonic():.3f} {d}")
EOF
lpid=$!
wait_until 10 "notify listener" test -S "$NOTIFY"

perf_journal
cat >"$SCRATCH/sp.conf" <<EOF
[Daemon]
ShutdownTimeout=5s
[Schedule]
Builtin=no
[Profile tiny]
SequentialBytes=1M
RandomDuration=100ms
EOF
NOTIFY_SOCKET=$NOTIFY WATCHDOG_USEC=2000000 "$DAEMON" -c "$SCRATCH/sp.conf" \
        --runtime-dir "$SCRATCH/run" --state-dir "$STATE" >"$SCRATCH/daemon.log" 2>&1 &
dpid=$!
export STORPULSE_SOCKET=$SCRATCH/run/control
wait_until 60 "control socket" test -S "$STORPULSE_SOCKET"
sleep 3 # a few watchdog periods before the slow write
grep -q "READY=1" "$SCRATCH/notify.log" || { cat "$SCRATCH/notify.log"; fail "no READY=1"; }

# ---- a probe whose save waits for the device, and an md event meanwhile ----------------------
[[ ! -e $STATE/probes.json ]] || fail "probes.json before the first probe"
run timeout 60 "$STORPULSECTL" probe --profile tiny md0
t_probe=$EPOCHREALTIME
t_fail_us=$(date +%s%6N)
run mdadm /dev/md0 --fail /dev/$b
t0=$EPOCHREALTIME
timeout 2 "$STORPULSECTL" status >"$SCRATCH/status.out" 2>&1 || {
        cat "$SCRATCH/status.out"
        fail "status did not answer within 2 s while the save waits"
}
t_status=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
journal_has member-failed STORPULSE_VOLUME=md0 STORPULSE_MEMBER="$b"
t_event_us=$(journalctl --no-pager -o export MESSAGE_ID="${MSGID[member-failed]}" \
        STORPULSE_VOLUME=md0 | sed -n 's/^__REALTIME_TIMESTAMP=//p' | tail -n 1)
[[ -e $STATE/probes.json ]] && fail "probes.json already saved when the event was in the journal: the writes were not slow"
wait_until 150 "probes.json saved (each fsync waits for 10 s writes of data and journal)" test -s "$STATE/probes.json"
t_saved=$EPOCHREALTIME
python3 -m json.tool "$STATE/probes.json" >/dev/null || fail "probes.json is not whole JSON"
kill -0 "$dpid" || fail "storpulsed died"

# ---- figures and bounds -----------------------------------------------------------------------
save_s=$(awk -v a="$t_probe" -v b="$t_saved" 'BEGIN { printf "%.1f", b - a }')
event_s=$(awk -v a="$t_fail_us" -v b="$t_event_us" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
gap_s=$(awk '/WATCHDOG=1/ { if (last != "" && $1 - last > max) max = $1 - last; last = $1; n++ }
        END { printf "%.2f %d", max, n }' "$SCRATCH/notify.log")
echo "DIAG: probes.json saved ${save_s} s after the probe; member-failed in the journal ${event_s} s after the fail"
echo "DIAG: status answered in ${t_status} s; watchdog pings (longest gap in s, count): $gap_s"
awk -v s="$save_s" 'BEGIN { exit !(s >= 8) }' || fail "the save took ${save_s} s: the state directory was not slow"
awk -v e="$event_s" 'BEGIN { exit !(e >= 0 && e <= 1.0) }' ||
        fail "member-failed reached the journal ${event_s} s after the fail (bound: 1 s)"
read -r gap n <<<"$gap_s"
((n >= 10)) || { cat "$SCRATCH/notify.log"; fail "only $n watchdog pings"; }
awk -v g="$gap" 'BEGIN { exit !(g < 2.0) }' || fail "the watchdog went unfed for ${gap} s (WATCHDOG_USEC 2 s)"
