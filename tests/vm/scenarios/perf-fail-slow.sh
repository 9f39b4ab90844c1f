# SPDX-License-Identifier: MIT
# Learned baselines end to end on a real kernel: storpulsed over a RAID1 of three dm-delay
# members (delay 0), probed through its control socket with a small profile (each
# `storpulsectl probe --profile bench` is one round: the array and its three members). After
# BENCH_HEALTHY healthy rounds one member gets +20 ms per read (dm-delay reload): within 2
# rounds the daemon must report that member slow (peer comparison) and a performance verdict on
# that layer (the member itself, or the array naming the member), with no member-slow event in
# the healthy phase (own-baseline verdicts there are counted, see below); the delay removed, the
# member is normal again within 3 judged rounds. The events are asserted in the journal too
# (MESSAGE_ID and the STORPULSE_VOLUME / STORPULSE_MEMBER / STORPULSE_LAYER fields; a journald
# started by hand in the script-mode guest). BENCH_FIO=1 runs the healthy phase under a foreground fio workload of
# varying intensity (bench/detection). md RAID1 balances reads away from the
# slow leg, so the array's own figures may stay normal: an array verdict is not required, but one
# that does not name the member fails. `storpulsectl report` shows now vs baseline. Figures go
# to $SCRATCH/perf-figures.
# shellcheck disable=SC2016
source ../lib.sh
source ./perf-common.sh
HEALTHY=${BENCH_HEALTHY:-12}
FIO=${BENCH_FIO:-0} # 1: the healthy phase under a foreground fio workload (bench/detection)
perf_raid1_of_delays
perf_journal
ip link set lo up # the script-mode guest brings up no network; /metrics is on loopback
# Under the foreground workload the probe's foreign-I/O threshold is off and a slice that finds
# I/O in flight is retried soon (0.1-0.5 s, 20 times; the default back-off would retry every
# slice for minutes), and utilization is sampled every 2 s so each run is judged with its load.
fg_conf=
((FIO)) && fg_conf=$'[Probe]\nForeignIOThreshold=1T\nRetryDelay=0.1s\nRetryDelayMax=0.5s\nMaxRetries=20\n[Detection]\nStatisticsInterval=2s'
cat >"$SCRATCH/sp.conf" <<CONF
$fg_conf
[Schedule]
Builtin=no
[Volumes]
Name=md0
[Profile bench]
SequentialBytes=4M
SequentialBlockSize=256K
RandomDuration=0.3s
RandomDeepQueueDepth=0
Timeout=30s
CONF
perf_start_daemon --listen 127.0.0.1:19977
trap perf_stop_daemon EXIT
# performance verdicts on the slow member's layer (the member, or an array naming it)
verdicts() {
        grep "\[performance-degraded\]" "$SCRATCH/daemon.log" |
                grep -cE "^$1: |member $1 is" || true
}
# standing VOLUME: its performance verdict is degraded on /metrics now. A verdict that host noise
# raised in the healthy phase and the fault keeps standing is what the admin sees as well: the
# member degraded (the false alarm itself is counted above, as a NOTE).
standing() {
        curl -sf http://127.0.0.1:19977/metrics |
                grep -qE "^storpulse_performance_state\{volume=\"$1\",state=\"degraded\"\} 1$"
}
round_failures=0
round() {
        timeout 120 "$STORPULSECTL" probe --profile bench md0 "${dm[@]}" >"$SCRATCH/round.out" 2>&1 &&
                return
        echo "round: probe exit $?"
        ((++round_failures <= 2)) && cat "$SCRATCH/round.out" && tail -n 8 "$SCRATCH/daemon.log"
        return 0
}
log "healthy phase: $HEALTHY rounds$( ((FIO)) && echo ", fio foreground load of varying intensity on md0")"
t_healthy=$SECONDS t_healthy_start=@$(date +%s)
((FIO)) && fg_load_start /dev/md0
for ((i = 1; i <= HEALTHY; i++)); do
        round
done
fg_load_stop
t_healthy=$((SECONDS - t_healthy))
# one "probe run not judged: REASON" line per run the monitor left out; a starved run also has
# the manager's line saying why (waited for a CPU, or the daemon's timer fired late)
unjudged=$(grep -c ": probe run not judged: " "$SCRATCH/daemon.log" || true)
unjudged_shared=$(grep -c ": probe run not judged: degraded alike" "$SCRATCH/daemon.log" || true)
unjudged_cpu=$(grep -c "waited for a CPU" "$SCRATCH/daemon.log" || true)
unjudged_stall=$(grep -c "timer fired late" "$SCRATCH/daemon.log" || true)
loaded_runs=$(grep -c "of the I/O during it someone else's" "$SCRATCH/daemon.log" || true)
# what the daemon saw before each false alarm (probe results, runs not judged)
grep -B12 "\[performance-degraded\]" "$SCRATCH/daemon.log" >"$SCRATCH/false-alarms.txt" || true
false_slow=$(events member-slow)
false_degraded=$(events performance-degraded)
false_alarms=$((false_slow + false_degraded))
log "slow member ${dm[1]}: +20 ms per read"
t_inject=@$(date +%s)
# a verdict of the healthy phase still standing: its journal entry is from before the injection
t_verdict=$t_inject
standing "${dm[1]}" && t_verdict=$t_healthy_start
sz=$(blockdev --getsz /dev/mapper/m2)
run dmsetup suspend m2
run dmsetup reload m2 --table "0 $sz delay $(dmsetup table m2 | awk '{print $4}') 0 20"
run dmsetup resume m2
slow_after=0 degraded_after=0 verdicts_before=$(verdicts "${dm[1]}")
injected_at=$(($(wc -l <"$SCRATCH/daemon.log") + 1))
# A round in which the daemon declined to judge a member's run (it logs "not judged": the host
# stalled through the probe, a TCG guest on shared cores does that) does not count: the peer
# rule needs every member's run of the round, so detection moves to the next judged round. A
# finding made in such a round counts that round (under heavy load every round can have one run
# not judged; the 200-round bench found the member after 2 rounds and read that as 0).
members_unjudged() { grep -cE "^(${dm[0]}|${dm[1]}|${dm[2]}): .*not judged" "$SCRATCH/daemon.log" || true; }
judged=0 unjudged_rounds=0 nj_last=$(members_unjudged)
for ((k = 1; k <= 5; k++)); do
        round
        nj=$(members_unjudged)
        if ((nj > nj_last)); then
                ((unjudged_rounds += 1))
                at=$((judged + 1)) # a finding in this round counts it, judged in full or not
        else
                ((judged += 1))
                at=$judged
        fi
        nj_last=$nj
        ((slow_after == 0 && $(events member-slow) > 0)) && slow_after=$at
        if ((degraded_after == 0)) &&
                { (($(verdicts "${dm[1]}") > verdicts_before)) || standing "${dm[1]}"; }; then
                degraded_after=$at
        fi
done
# The same verdicts on /metrics, as Prometheus scrapes them (the snapshot is rebuilt on publish)
curl -sf http://127.0.0.1:19977/metrics >"$SCRATCH/metrics.txt" || fail "no /metrics from storpulsed"
if command -v promtool >/dev/null; then
        promtool check metrics <"$SCRATCH/metrics.txt" || fail "promtool check metrics complains"
fi
grep -E "^storpulse_member_slow\{.*member=\"${dm[1]}\".*\} 1$" "$SCRATCH/metrics.txt" ||
        fail "/metrics has no storpulse_member_slow 1 for ${dm[1]}"
grep -E "^storpulse_baseline_read_bytes_per_second\{.*volume=\"md0\".*\} [0-9.e+]+$" \
        "$SCRATCH/metrics.txt" || fail "/metrics has no learned baseline for md0"
grep -E "^storpulse_performance_state\{.*volume=\"md0\"" "$SCRATCH/metrics.txt" ||
        fail "/metrics has no storpulse_performance_state for md0"
run dmsetup suspend m2
run dmsetup reload m2 --table "0 $sz delay $(dmsetup table m2 | awk '{print $4}') 0 0"
run dmsetup resume m2
# the healed member must be normal again within 3 judged rounds (issue 26: its peer verdict
# stayed on a stale await streak); rounds with a member run not judged do not count, up to 8
normal_before=$(events member-normal) normal_after=0 judged=0 nj_last=$(members_unjudged)
for ((k = 1; k <= 8 && normal_after == 0 && judged < 3; k++)); do
        round
        nj=$(members_unjudged)
        at=$((judged + 1))
        ((nj > nj_last)) || ((judged += 1))
        nj_last=$nj
        ((normal_after == 0 && $(events member-normal) > normal_before)) && normal_after=$at
done
"$STORPULSECTL" report | tee "$SCRATCH/report.txt"
kill "$dpid"
wait "$dpid"
grep -E "\[(member-slow|member-normal|performance-degraded|performance-recovered)\]" "$SCRATCH/daemon.log"
{
        echo "healthy rounds: $HEALTHY (fio load: $FIO, ${t_healthy}s), false alarms: $false_alarms ($false_slow member-slow, $false_degraded performance-degraded), runs not judged: $unjudged ($unjudged_shared degraded alike, $unjudged_stall host stall, $unjudged_cpu waiting for a CPU), runs with foreground I/O during the probe: $loaded_runs"
        echo "member +20 ms: member-slow after $slow_after judged rounds, performance-degraded after $degraded_after judged rounds ($unjudged_rounds of 5 rounds with a member run not judged)"
        echo "member normal again after $normal_after judged rounds ($(events member-normal) member-normal), array recovered: $(events performance-recovered)"
} | tee "$SCRATCH/perf-figures"
# The peer rule must not alarm: members share whatever noise the machine has. Own-baseline
# verdicts are counted, not enforced here: a TCG guest on shared cores has host-starvation
# stalls (throughput at 2% of baseline for a run or two) that no healthy disk shows.
((false_slow == 0)) || fail "$false_slow member-slow events in the healthy phase"
if ((false_degraded > 0)); then
        echo "NOTE: $false_degraded performance-degraded events in the healthy phase (host noise); before each:"
        cat "$SCRATCH/false-alarms.txt"
fi
if ((slow_after < 1 || slow_after > 2)); then
        echo "daemon log from the injection on:"
        tail -n "+$injected_at" "$SCRATCH/daemon.log" | head -n 120
        fail "member-slow after $slow_after judged rounds (want 1..2)"
fi
grep -q "\[member-slow\]" "$SCRATCH/daemon.log" && grep "\[member-slow\]" "$SCRATCH/daemon.log" |
        grep -q "member ${dm[1]} slow" || fail "member-slow does not name ${dm[1]}"
((degraded_after >= 1 && degraded_after <= 2)) || fail "performance-degraded after $degraded_after judged rounds (want 1..2)"
grep "\[performance-degraded\]" "$SCRATCH/daemon.log" |
        grep -qE "^${dm[1]}: performance degraded|member ${dm[1]} is the slow one" ||
        fail "no performance verdict on the layer of ${dm[1]}"
if tail -n "+$injected_at" "$SCRATCH/daemon.log" | grep "\[performance-degraded\]" |
        grep "^md0: " | grep -vq "member ${dm[1]}"; then
        echo "daemon log from the injection on:"
        tail -n "+$injected_at" "$SCRATCH/daemon.log" | head -n 120
        fail "md0 judged degraded during the fault without naming the slow member"
fi
((normal_after >= 1 && normal_after <= 3)) ||
        fail "member-normal after $normal_after judged rounds once the delay was removed (want 1..3)"
# the journal has them with their fields: the array and the member, the member's own verdict
journal_has --since "$t_inject" member-slow STORPULSE_VOLUME=md0 "STORPULSE_MEMBER=${dm[1]}" \
        STORPULSE_LAYER=member
journal_has --since "$t_verdict" performance-degraded "STORPULSE_VOLUME=${dm[1]}" + \
        STORPULSE_VOLUME=md0 "STORPULSE_MEMBER=${dm[1]}" STORPULSE_LAYER=member
# and never a healthy member
journal_lacks member-slow "STORPULSE_MEMBER=${dm[0]}" + "STORPULSE_MEMBER=${dm[2]}"
grep -q "baseline" "$SCRATCH/report.txt" || fail "report has no baseline row"
