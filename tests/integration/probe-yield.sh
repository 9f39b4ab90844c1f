#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# storpulsed's probe yields to foreign I/O that starts in the middle of a slice (issue 9, "low
# impact"): on a loop device, a long sequential slice (64 MiB in 512-byte reads, seconds of
# work) is started, and once it has read a few MiB a foreground dd reads the device. The slice
# must be abandoned within a bound of bytes and time measured from the outside
# (/sys/block/loopN/stat minus dd's own reads), counted as skip reason "yielded", and leave no
# probe record behind. Before that, probes on the idle device (the same small reads, and the
# quick profile's 1 MiB QD4 reads) must not yield: the check at each progress report allows for
# the reads in flight.
#   probe-yield.sh STORPULSECTL STORPULSED
set -u
. "$(dirname "$0")/probe-lib.sh"
DAEMON=${2:?usage: $0 STORPULSECTL STORPULSED}
require_root_and_loop
make_scratch

BOUND_MIB=8 # the probe's reads after the foreground started, at most
BOUND_MS=2000 # from the foreground's start to the yield's log line, at most

random_loop 64
name=${dev#/dev/}
conf=$SCRATCH/storpulse.conf
cat >"$conf" <<EOF
[Daemon]
LogLevel=debug
ShutdownTimeout=2s
[Schedule]
Builtin=no
[Volumes]
Name=$name
Exclude=
[Probe]
RetryDelay=1h
RetryDelayMax=1h
MaxRetries=3
[Profile small]
SequentialBytes=8M
SequentialBlockSize=512
SequentialQueueDepth=1
RandomQueueDepth=0
RandomDeepQueueDepth=0
Timeout=60s
[Profile long]
SequentialBytes=64M
SequentialBlockSize=512
SequentialQueueDepth=1
RandomQueueDepth=0
RandomDeepQueueDepth=0
Timeout=300s
EOF
SOCK=$SCRATCH/run/control
export STORPULSE_SOCKET=$SOCK
DPID=
cleanup_daemon() {
        [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
        cleanup
}
trap cleanup_daemon EXIT
"$DAEMON" --config "$conf" --runtime-dir "$SCRATCH/run" --state-dir "$SCRATCH/state" \
        >"$SCRATCH/daemon.log" 2>&1 &
DPID=$!
for _ in $(seq 100); do
        [ -S "$SOCK" ] && break
        sleep 0.1
done
tap_ok $([ -S "$SOCK" ]; echo $?) "control socket $SOCK"

# record FIELD: the volume's probe record from the daemon, as python over `v`
record() {
        bounded 30 "$CTL" volumes --daemon --json >"$SCRATCH/vols" 2>&1 || return 1
        python3 -c '
import json, sys
v = [x for x in json.load(open(sys.argv[1])) if x["name"] == sys.argv[2]][0]["probe"]
r = eval(sys.argv[3])
print(r)
sys.exit(0 if r is not False else 1)' "$SCRATCH/vols" "$name" "$1"
}
read_sectors() { awk '{ print $3 }' "/sys/block/$name/stat"; }

# ---- idle device: no yield ------------------------------------------------------------------
for prof in small quick; do
        bounded 120 "$CTL" probe --profile "$prof" "$name" >"$SCRATCH/probe-$prof" 2>&1
        rc=$?
        diag <"$SCRATCH/probe-$prof"
        tap_ok $rc "probe --profile $prof on the idle device completes (exit $rc)"
done
out=$(record 'v["probes"] == 2 and v["skips"]["yielded"] == 0 and v["skips"]["foreign-io"] == 0')
tap_ok $? "2 probes recorded, no yield, no foreign-io ($out)"

# ---- a foreground starting mid-slice ----------------------------------------------------------
s0=$(read_sectors)
bounded 30 "$CTL" probe --profile long --no-wait "$name" >/dev/null 2>&1
tap_ok $? "probe --profile long --no-wait"
started=1
for _ in $(seq 300); do
        [ $(($(read_sectors) - s0)) -ge $((4 * 2048)) ] && break
        sleep 0.01
done
s1=$(read_sectors)
[ $((s1 - s0)) -ge $((4 * 2048)) ] || started=0
tap_ok $((started == 0)) "the long slice is under way ($(((s1 - s0) / 2048)) MiB read)"
t1=$(date +%s%N)
bounded 60 dd if="$dev" of=/dev/null bs=64k count=512 iflag=direct status=none &
DD=$!
t2=
for _ in $(seq 1000); do
        if grep -q "foreign I/O during slice 0 after" "$SCRATCH/daemon.log"; then
                t2=$(date +%s%N)
                break
        fi
        sleep 0.01
done
wait_bounded "$DD" "dd"
tap_ok $rc "foreground: dd read 32 MiB"
line=$(grep -m1 "foreign I/O during slice 0 after" "$SCRATCH/daemon.log")
tap_ok $([ -n "$t2" ]; echo $?) "the daemon yielded: ${line#*: }"
ms=$(((${t2:-$t1} - t1) / 1000000))
tap_ok $((ms > BOUND_MS)) "within $BOUND_MS ms of the foreground's start ($ms ms)"
sleep 1 # the killed helper's last reads complete
s2=$(read_sectors)
probe_after=$(((s2 - s1) * 512 - 32 * 1024 * 1024))
diag <<<"device reads since the foreground started: $(((s2 - s1) / 2048)) MiB, of them the probe's: $((probe_after / 1024)) KiB"
tap_ok $((probe_after > BOUND_MIB * 1024 * 1024)) \
        "the probe read at most $BOUND_MIB MiB after the foreground started ($((probe_after / 1024)) KiB)"
check "the slice was abandoned before it was done (< 64 MiB read)" \
        test $(((s2 - s0) * 512 - 32 * 1024 * 1024)) -lt $((48 * 1024 * 1024))
out=$(record 'v["skips"]["yielded"] == 1 and v["probes"] == 2 and v["probing"] is False')
tap_ok $? "counted as yielded, no probe record from the partial slice, not probing ($out)"

kill "$DPID"
wait_bounded "$DPID" "storpulsed"
tap_ok $rc "storpulsed exits on SIGTERM with a retry pending (exit $rc)"
DPID=
finish
