# SPDX-License-Identifier: MIT
# A write cache turned off, on a real kernel (issue 26 item 2): a controller whose cache battery
# fails goes write-through and its writes drop by an order of magnitude while reads stay as they
# were. Here the write path of md0 (ext4 on a RAID1 of three dm-delay members, a [WriteProbe]
# directory on it, a profile with Write=yes, one `storpulsectl probe --profile wbench md0` per
# round, [Detection] MinSamples=4 as perf-write) is throttled to a tenth:
#   1. healthy rounds (BENCH_WRITE_HEALTHY, default 6), at most one verdict (a TCG guest's own
#      noise, as perf-fail-slow says).
#   2. the daemon (and so its probe helpers) in a cgroup v2 whose io.max on md0 (blk-throttle,
#      the kernel's own limit) is wbps and wiops = 0.1 x the learned write baselines (sequential
#      write bytes/s, random write IOPS), reads unlimited. Want `md0: performance degraded`
#      within 2 rounds, naming a write metric, in the journal with STORPULSE_VOLUME=md0; the
#      reads stay where they were (not, in both of the last two runs, below half the baseline,
#      3 MAD under it and every healthy run at once) and the write ratios show the throttle
#      (perf_report_figures).
# Under STORPULSE_VM_SELFTEST_WRONG=1 io.max stays unlimited: no verdict comes, the scenario fails.
# shellcheck disable=SC2016
source ../lib.sh
source ./perf-common.sh
HEALTHY=${BENCH_WRITE_HEALTHY:-6}
CG=/sys/fs/cgroup/storpulse-wthrottle
perf_raid1_of_delays
perf_journal
run mkfs.ext4 -q -F /dev/md0
mkdir -p /mnt/w
run mount /dev/md0 /mnt/w
cleanup() {
        echo "--- daemon log (last 40 lines)"
        tail -n 40 "$SCRATCH/daemon.log"
        [[ -d $CG ]] && echo "$(cat /sys/block/md0/dev) wbps=max wiops=max" >"$CG/io.max"
        kill "$dpid"
        wait "$dpid"
        rmdir "$CG" 2>/dev/null
        umount /mnt/w
}
trap cleanup EXIT
cat >"$SCRATCH/sp.conf" <<CONF
[Schedule]
Builtin=no
[Volumes]
Name=md0
[WriteProbe]
Directory=/mnt/w
Size=16M
[Profile wbench]
SequentialBytes=16M
SequentialBlockSize=256K
RandomDuration=0.5s
RandomDeepQueueDepth=0
Timeout=60s
Write=yes
[Detection]
BaselineWindow=16
MinSamples=4
StatisticsInterval=1s
LatencyFloor=500us
CONF
perf_start_daemon
round() {
        timeout 180 "$STORPULSECTL" probe --json --profile wbench md0 >"$SCRATCH/round.json" 2>&1 ||
                echo "round: probe exit $?"
        cat "$SCRATCH/round.json" >>"$SCRATCH/rounds.log"
}
# metric NAME FIELD: md0's report figure (now or baseline) of the wbench profile
metric() {
        "$STORPULSECTL" report --json md0 | python3 -c '
import json, sys
def walk(o):
    if isinstance(o, dict):
        if o.get("volume") == "md0" and o.get("profile") == "wbench" and "metrics" in o:
            yield o
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
for b in walk(json.load(sys.stdin)):
    print(int(b["metrics"][sys.argv[1]][sys.argv[2]] or 0))
    break
' "$1" "$2"
}

# ---- 1. healthy ---------------------------------------------------------------------------
for ((i = 1; i <= HEALTHY; i++)); do
        round
done
[[ -f /mnt/w/.storpulse-write-probe ]] || fail "no scratch file in /mnt/w"
healthy_verdicts=$(events performance-degraded)
echo "healthy: $HEALTHY rounds, $healthy_verdicts performance-degraded"
((healthy_verdicts <= 1)) || fail "$healthy_verdicts verdicts in the healthy rounds"
"$STORPULSECTL" report md0 || true
wbase=$(metric write_bytes_per_second baseline)
ibase=$(metric write_iops baseline)
[[ $wbase =~ ^[0-9]+$ && $ibase =~ ^[0-9]+$ ]] && ((wbase > 0 && ibase > 0)) ||
        fail "md0 write baselines: '$wbase' B/s, '$ibase' IOPS"

# ---- 2. the write path throttled to a tenth ---------------------------------------------------
mountpoint -q /sys/fs/cgroup || run mount -t cgroup2 none /sys/fs/cgroup
echo +io >/sys/fs/cgroup/cgroup.subtree_control || fail "no io controller in cgroup v2"
mkdir -p "$CG"
echo "$dpid" >"$CG/cgroup.procs" || fail "cannot move storpulsed"
mdnum=$(cat /sys/block/md0/dev)
limit=$((wbase / 10)) limit_iops=$((ibase / 10))
((limit_iops >= 1)) || limit_iops=1
[[ ${STORPULSE_VM_SELFTEST_WRONG:-0} == 1 ]] && limit=max limit_iops=max
log "md0 ($mdnum) writes throttled: wbps=$limit wiops=$limit_iops (10% of the baseline $wbase B/s, $ibase IOPS); reads unlimited"
echo "$mdnum wbps=$limit wiops=$limit_iops" >"$CG/io.max" || fail "io.max refused"
cat "$CG/io.max"
since=@$(date +%s)
before=$(events performance-degraded)
found=0
for r in 1 2 3; do
        round
        ((found == 0 && $(events performance-degraded) > before)) && found=$r && break
done
echo "DIAG: write path throttled to 10%: performance-degraded after $found rounds (0: not within 3)"
((found > 0 && found <= 2)) || fail "no performance-degraded within 2 rounds of the write throttle"
msg=$(grep "\[performance-degraded\]" "$SCRATCH/daemon.log" | tail -n 1)
echo "verdict after $found rounds: $msg"
[[ $msg == md0:* ]] || fail "the verdict is not md0's: $msg"
[[ $msg == *write* || $msg == *fdatasync* ]] || fail "the verdict names no write metric: $msg"
journal_has --since "$since" performance-degraded STORPULSE_VOLUME=md0
"$STORPULSECTL" report md0 || true
"$STORPULSECTL" report --json md0 >"$SCRATCH/report.json" || fail "report --json"
WRITES_LOW=1 HEALTHY_RUNS=$HEALTHY perf_report_figures "$SCRATCH/report.json" "$SCRATCH/rounds.log" wbench ||
        fail "md0's reads fell past the verdict line, or its writes did not fall"
echo "PASS: write path at 10% found in $found rounds, reads ok"
