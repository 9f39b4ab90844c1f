#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# storpulsed's second look on a real loop device (over a file in /dev/shm, direct I/O): a probe
# result that reads bad against the learned baseline is measured again a few seconds later, and
# only the second result counts. The slowdown is real: the daemon (and the probe helpers it
# forks) in a cgroup-v1 blkio cgroup whose read throughput and IOPS limits on the loop device put
# both figures far below the baseline.
#  1. quiet rounds until the baseline is learned;
#  2. a slow moment: the daemon throttled for the first look only (moved back to the root cgroup
#     as soon as it says it measures again): the round is not bad, no verdict, the state ok;
#  2b. the second look cannot be taken (foreign I/O defers it until its retries are spent): the
#     first result counts, as one bad run, which is no verdict;
#  3. a slow device: throttled through both looks of every round: each round is measured again,
#     and the performance-degraded verdict comes after BadRuns=2 rounds, as without second look;
#  4. the throttle lifted: the verdict recovers (a good result needs no second look).
#   daemon-second-look.sh STORPULSECTL STORPULSED
set -u
if [ -z "${STORPULSE_IN_NS:-}" ]; then
        if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
                echo "1..0 # SKIP needs root and unshare"
                exit 0
        fi
        # a private mount namespace: no journal socket, so the daemon logs to stderr
        exec unshare --mount --propagation private env STORPULSE_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/probe-lib.sh"
DAEMON=${2:?usage: $0 STORPULSECTL STORPULSED}
require_root_and_loop
command -v fio >/dev/null || skip_all "fio not installed (build-aux/install-deps.sh --test)"
[ -w /sys/fs/cgroup/blkio ] || skip_all "no cgroup-v1 blkio hierarchy at /sys/fs/cgroup/blkio"
make_scratch
[ -d /run/systemd/journal ] && mount -t tmpfs tmpfs /run/systemd/journal

DPID='' CG=/sys/fs/cgroup/blkio/storpulse-second-look-$$ IMG=''
to_root() { # every process of the throttled cgroup back to the root one
        [ -d "$CG" ] || return 0
        while read -r p; do echo "$p" >/sys/fs/cgroup/blkio/cgroup.procs; done <"$CG/cgroup.procs"
}
cleanup_all() {
        [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
        to_root 2>/dev/null
        [ -d "$CG" ] && rmdir "$CG"
        cleanup
        [ -n "$IMG" ] && rm -f "$IMG"
}
trap cleanup_all EXIT

IMG=$(mktemp /dev/shm/storpulse-second-look.XXXXXX)
make_random_file "$IMG" 64
dev=$(attach_loop "$IMG" --read-only --direct-io=on)
tap_ok $? "loop device $dev over /dev/shm (read-only, direct I/O)"
name=${dev#/dev/}
read -r majmin <"/sys/block/$name/dev"
mkdir "$CG" && echo "$majmin $((8 << 20))" >"$CG/blkio.throttle.read_bps_device" &&
        echo "$majmin 100" >"$CG/blkio.throttle.read_iops_device"
tap_ok $? "blkio cgroup $CG: reads of $name limited to 8 MiB/s and 100 IOPS"

conf=$SCRATCH/storpulse.conf
cat >"$conf" <<EOF
[Daemon]
LogLevel=debug
ShutdownTimeout=2s
RescanInterval=1h
[Schedule]
Builtin=no
[Volumes]
Name=$name
Exclude=
[Probe]
RetryDelay=1s
RetryDelayMax=1s
MaxRetries=2
[Profile t]
SequentialBytes=16M
SequentialBlockSize=256K
RandomDuration=0.3s
RandomDeepQueueDepth=0
Timeout=30s
[Detection]
MinSamples=4
BadRuns=2
GoodRuns=2
EOF
SOCK=$SCRATCH/run/control
export STORPULSE_SOCKET=$SOCK
"$DAEMON" --config "$conf" --runtime-dir "$SCRATCH/run" --state-dir "$SCRATCH/state" \
        >"$SCRATCH/daemon.log" 2>&1 &
DPID=$!
for _ in $(seq 100); do
        [ -S "$SOCK" ] && break
        sleep 0.1
done
tap_ok "$([ -S "$SOCK" ]; echo $?)" "daemon's control socket"

round() { bounded 120 "$CTL" probe --profile t "$name" >>"$SCRATCH/rounds.log" 2>&1; }
count() { grep -c "^$name: $1" "$SCRATCH/daemon.log"; }
looks() { count "probe (t) slow, .*: measured again in 5 s before it counts"; }
verdicts() { count "performance degraded:"; }
unjudged() { count "probe run not judged"; }
report() { # report KEY: of the volume's baseline, from storpulsectl report
        "$CTL" report --json "$name" 2>/dev/null | python3 -c '
import json, sys
v = (json.load(sys.stdin)["volumes"] or [{}])[0]
print(v.get(sys.argv[1]) if v.get(sys.argv[1]) is not None else "learning")' "$1"
}

# first_look_throttled: a round started in the background (rpid) with the daemon throttled until
# it says it measures again; l0: the second looks before it
first_look_throttled() {
        l0=$(looks)
        echo "$DPID" >"$CG/cgroup.procs"
        round &
        rpid=$!
        for _ in $(seq 600); do
                [ "$(looks)" -gt "$l0" ] && break
                sleep 0.1
        done
        to_root
}

# 1. quiet rounds until MinSamples=4 judged ones have learned the baseline (on a busy host a
#    probe that waited for a CPU for a quarter of its time is not judged: more rounds)
for _ in $(seq 30); do
        [ "$(report verdict)" = ok ] && break
        round
done
check "quiet: the baseline is learned ($(report learned_runs) runs, $(unjudged) not judged)" \
        test "$(report verdict)" = ok

# 2. a slow moment: throttled for the first look only (on a loaded host a healthy round may
#    have been measured again already: counts from here)
first_look_throttled
wait "$rpid"
check "slow moment: the throttled result was measured again" test "$(looks)" -eq $((l0 + 1))
grep "measured again" "$SCRATCH/daemon.log" | diag
check "slow moment: no verdict ($(verdicts))" test "$(verdicts)" -eq 0
check "slow moment: the volume is ok ($(report verdict))" test "$(report verdict)" = ok
# 2b. the second look cannot be taken (fio reads the device from the first look's end on, and
#     the back-off defers the second look until its retries are spent): the first result counts
first_look_throttled
fio --name=fg --filename="$dev" --readonly --direct=1 --ioengine=libaio --rw=randread --bs=4k \
        --iodepth=4 --time_based --runtime=20 --output=/dev/null >/dev/null 2>&1 &
fpid=$!
wait "$rpid"
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
check "no second look possible: the first result counts" \
        grep -q "^$name: probe not measured again (retries): the first result counts" \
        "$SCRATCH/daemon.log"
u0=$(unjudged)
for _ in $(seq 10); do
        round
        [ "$(unjudged)" -eq "$u0" ] && break
        u0=$(unjudged)
done
check "no second look possible: one bad run is no verdict ($(verdicts), $(report verdict))" \
        test "$(verdicts)" -eq 0 -a "$(report verdict)" = ok

# 3. a slow device: both looks throttled in every round; rounds whose probe waited for a CPU
#    (a busy host) are not judged and do not count
l0=$(looks)
echo "$DPID" >"$CG/cgroup.procs"
n=0 u0=$(unjudged)
while [ "$(verdicts)" -eq 0 ] && [ $n -lt 12 ]; do
        round
        n=$((n + 1))
done
to_root
judged=$((n - ($(unjudged) - u0)))
check "slow device: performance-degraded after $judged judged rounds of $n (BadRuns=2)" \
        test "$(verdicts)" -eq 1 -a "$judged" -le 2
check "slow device: each bad round was measured again ($(($(looks) - l0)) second looks)" \
        test $(($(looks) - l0)) -ge 2
grep "performance degraded" "$SCRATCH/daemon.log" | diag

# 4. the throttle lifted: recovered (GoodRuns=2 judged rounds; on a loaded host most rounds may
#    wait for a CPU and not be judged), no second look needed
before=$(looks)
for _ in $(seq 40); do
        [ "$(count "performance recovered")" -ge 1 ] && break
        round
done
check "recovered after the throttle was lifted" test "$(count "performance recovered")" -ge 1
check "no second look while a verdict stands or runs are good" test "$(looks)" -eq "$before"

kill "$DPID" && wait "$DPID"
tap_ok $? "daemon exits cleanly"
DPID=''
grep -E "measured again|performance|first result" "$SCRATCH/daemon.log" | diag
finish
