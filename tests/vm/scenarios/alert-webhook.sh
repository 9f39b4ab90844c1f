# SPDX-License-Identifier: MIT
# Alerts that arrive (issue 25 item 6): storpulsed watches md9 (not md0: stack-health, before it
# in the group, leaves a broken md0 behind), a RAID1 of virtio disks 1 and 2;
# Debian's Prometheus scrapes it every 1 s and evaluates every shipped rule file
# (contrib/prometheus/*rules.yml, never the *.test.yml) every 1 s; Debian's Alertmanager
# (group_wait and group_interval 1 s) routes every alert to a webhook receiver (python3
# http.server) that appends each POSTed body, with the time it arrived, to a file. All four on
# loopback in the guest.
#   mdadm --fail of a member: a firing StorpulseMemberFailed whose labels name md9 and the member
#     (state faulty), then a firing StorpulseVolumeDegraded for md9 (its `for: 1m` included);
#   mdadm --remove: StorpulseMemberFailed resolved (the faulty member has left the array);
#   --add of the wiped member, the recovery throttled with md9's own sync_speed_min/max to
#     400 KiB/s (64 MiB: about 160 s), storpulsed's [Detection] accelerated (RebuildMaxETA=20s,
#     RebuildSustain=5s, StatisticsInterval=1s, as perf-faults): a firing StorpulseRebuildSlow
#     for md9 (the shipped rule's `for: 1m` included) while the kernel still recovers; then the
#     rest of the recovery at 5000 KiB/s: StorpulseRebuildSlow and StorpulseVolumeDegraded
#     resolved, neither before the kernel logs "recovery done".
# Each delay is measured on the guest's clock from the kernel event to the arrival at the
# webhook: the kernel's own log line ("Disk failure on vdb", "recovery done"), placed on the
# clock by a marker written to /dev/kmsg just before the mdadm command, or, for --remove, which
# the kernel does not log, mdadm's return; for the throttled recovery, the kernel's "recovery of
# RAID array md9". They are printed as "DIAG:" lines that guest-suite
# copies into the TAP output. Nothing about the delays is
# asserted (speed is no test's business); the notifications and their labels are.
# Under STORPULSE_VM_SELFTEST_WRONG=1 Alertmanager posts to a port nobody listens on: the
# scenario must then fail for want of a notification.
# shellcheck shell=bash disable=SC2016
source ../lib.sh
DAEMON=$(dirname "$STORPULSECTL")/storpulsed
[[ -x $DAEMON ]] || fail "no storpulsed beside $STORPULSECTL"
command -v prometheus >/dev/null || fail "no prometheus (build-aux/install-deps.sh --test)"
command -v prometheus-alertmanager >/dev/null ||
        fail "no prometheus-alertmanager (build-aux/install-deps.sh --test)"
sp=19977 prom=19090 am=19093 hook=19094
hook_url=http://127.0.0.1:$(wrong $hook 19095)/
W=$SCRATCH/alerts
mkdir -p "$W/prom" "$W/am" "$SCRATCH/run" "$SCRATCH/state"
rules=()
for f in "$VMDIR"/../../contrib/prometheus/*rules.yml; do
        [[ -f $f && $f != *.test.yml ]] && rules+=("$(realpath "$f")")
done
((${#rules[@]} > 0)) || fail "no rule files in contrib/prometheus"
pids=()
# on exit: the four stopped; their logs and the notifications kept in the run's result directory
keep() {
        kill "${pids[@]}" 2>/dev/null
        wait 2>/dev/null
        [[ -d /vmout/result ]] || return 0
        mkdir -p /vmout/result/alert-webhook
        cp "$W"/*.jsonl "$W"/*.log "$W"/*.yml "$SCRATCH/daemon.log" /vmout/result/alert-webhook/ 2>/dev/null
}
trap keep EXIT
ip link set lo up
modprobe -a md_mod raid1 || fail "md modules"

a=$(disk 1) b=$(disk 2)
run mdadm --create /dev/md9 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        "/dev/$a" "/dev/$b" </dev/null
udevadm settle --timeout=30

# ---- storpulsed, the webhook receiver, Alertmanager, Prometheus -----------------------------
cat >"$SCRATCH/sp.conf" <<EOF
[Schedule]
Builtin=no
[HTTP]
Enable=yes
Listen=127.0.0.1:$sp
[Detection]
StatisticsInterval=1s
RebuildSustain=5s
RebuildMaxETA=20s
EOF
"$DAEMON" -c "$SCRATCH/sp.conf" --runtime-dir "$SCRATCH/run" --state-dir "$SCRATCH/state" \
        >"$SCRATCH/daemon.log" 2>&1 &
pids+=($!)
metrics() { curl -sf "http://127.0.0.1:$sp/metrics" >"$W/metrics.txt"; }
has_metric() { metrics && grep -qxF "$1" "$W/metrics.txt"; }
wait_until 60 "md9 ok on storpulsed's /metrics" has_metric 'storpulse_volume_health{volume="md9",state="ok"} 1'

cat >"$W/hook.py" <<'EOF'
# Appends every POSTed JSON body as one line {"received": UNIX-SECONDS, "body": BODY}.
import http.server, json, sys, time
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        t = time.time()
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps({"received": t, "body": body}) + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()
EOF
: >"$W/hook.jsonl"
python3 "$W/hook.py" $hook "$W/hook.jsonl" 2>"$W/hook.err" &
pids+=($!)

cat >"$W/am.yml" <<EOF
route:
  receiver: hook
  group_by: ['...']
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: $hook_url
        send_resolved: true
EOF
amtool check-config "$W/am.yml" || fail "amtool rejects the Alertmanager configuration"
prometheus-alertmanager --config.file="$W/am.yml" --storage.path="$W/am" \
        --web.listen-address=127.0.0.1:$am --cluster.listen-address= >"$W/am.log" 2>&1 &
pids+=($!)

{
        echo "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}"
        echo "rule_files:"
        printf '  - %s\n' "${rules[@]}"
        echo "alerting: {alertmanagers: [{static_configs: [{targets: ['127.0.0.1:$am']}]}]}"
        echo "scrape_configs:"
        echo "  - {job_name: storpulse, static_configs: [{targets: ['127.0.0.1:$sp']}]}"
} >"$W/prom.yml"
cat "$W/prom.yml"
promtool check config "$W/prom.yml" || fail "promtool rejects the configuration or a shipped rule file"
prometheus --config.file="$W/prom.yml" --storage.tsdb.path="$W/prom" \
        --web.listen-address=127.0.0.1:$prom >"$W/prom.log" 2>&1 &
pids+=($!)

# query EXPR: Prometheus's instant query of EXPR has at least one sample
query() {
        curl -sf --get --data-urlencode "query=$1" "http://127.0.0.1:$prom/api/v1/query" |
                python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["data"]["result"] else 1)'
}
log "started storpulsed, the webhook receiver, Alertmanager and Prometheus"
wait_until 60 "webhook receiver" curl -s -o /dev/null "http://127.0.0.1:$hook/"
wait_until 90 "Alertmanager ready" curl -sf "http://127.0.0.1:$am/-/ready"
wait_until 90 "Prometheus ready" curl -sf "http://127.0.0.1:$prom/-/ready"
log "Alertmanager and Prometheus ready"
wait_until 60 "Prometheus scrapes md9 as ok" query 'storpulse_volume_health{job="storpulse",volume="md9",state="ok"} == 1'
wait_until 30 "Prometheus sends to Alertmanager" bash -c \
        "curl -sf http://127.0.0.1:$prom/api/v1/alertmanagers | grep -q '127.0.0.1:$am'"
n=$(curl -sf "http://127.0.0.1:$prom/api/v1/rules" | python3 -c 'import json, sys
print(sum(len(g["rules"]) for g in json.load(sys.stdin)["data"]["groups"]))')
log "Prometheus evaluates $n rules of ${#rules[@]} files: ${rules[*]##*/}"
((n > 0)) || fail "Prometheus loaded no rules"

# ---- waiting for notifications --------------------------------------------------------------
cat >"$W/match.py" <<'EOF'
# match.py FILE ALERTNAME STATUS SINCE UNTIL [LABEL=VALUE...]: print the arrival time of the
# first notification that arrived between SINCE and UNTIL (UNIX seconds, "inf": no end) holding
# an alert ALERTNAME with that status and labels; exit status 1 when there is none.
import json, sys
path, name, status, since, until = sys.argv[1:6]
want = dict(a.split("=", 1) for a in sys.argv[6:])
want["alertname"] = name
for line in open(path):
    n = json.loads(line)
    if not float(since) <= n["received"] < float(until):
        continue
    for a in n["body"].get("alerts", []):
        if a.get("status") == status and all(a["labels"].get(k) == v for k, v in want.items()):
            print("%.3f" % n["received"])
            sys.exit(0)
sys.exit(1)
EOF
# hook_wait TIMEOUT SINCE ALERTNAME STATUS LABEL=VALUE...: wait for that notification; its arrival
# time in hook_t. On a timeout: what Prometheus and Alertmanager hold and what the webhook got.
hook_wait() {
        local t=$1 since=$2 end=$(($(date +%s) + $1))
        shift 2
        until hook_t=$(python3 "$W/match.py" "$W/hook.jsonl" "$1" "$2" "$since" inf "${@:3}"); do
                if (($(date +%s) >= end)); then
                        echo "--- Prometheus alerts"
                        curl -s "http://127.0.0.1:$prom/api/v1/alerts"
                        echo
                        echo "--- Alertmanager alerts"
                        curl -s "http://127.0.0.1:$am/api/v2/alerts"
                        echo
                        echo "--- notifications at the webhook ($hook_url)"
                        cat "$W/hook.jsonl"
                        prom_history
                        echo "--- alertmanager log"
                        tail -n 20 "$W/am.log"
                        fail "no $2 notification of $1 {${*:3}} reached the webhook within ${t}s"
                fi
                sleep 0.1
        done
}
# prom_history: how md9's series, the scrapes and the alerts moved in Prometheus since t_fail
prom_history() {
        local e
        for e in 'storpulse_volume_health{volume="md9"} == 1' 'storpulse_array_member_state{volume="md9"} == 1' \
                'up{job="storpulse"}' 'scrape_duration_seconds{job="storpulse"} > 0.5' 'ALERTS{volume="md9"}'; do
                echo "--- Prometheus: $e (changes, 1 s steps)"
                curl -sf --get --data-urlencode "query=$e" --data-urlencode "start=${t_fail:-$(($(date +%s) - 300))}" \
                        --data-urlencode "end=$(date +%s)" --data-urlencode step=1 \
                        "http://127.0.0.1:$prom/api/v1/query_range" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    last = None
    for t, v in r["values"]:
        if v != last:
            print("  %.0f %s %s" % (t, v, r["metric"]))
        last = v
    print("  %.0f (last sample)" % r["values"][-1][0])'
        done
}
# kmark: a marker in the kernel log, and the time it was written (kmark_t)
kmark() {
        kmark_n=$((${kmark_n:-0} + 1))
        kmark_t=$EPOCHREALTIME
        echo "alert-webhook mark $kmark_n" >/dev/kmsg
}
# ktime REGEX: the time of the first kernel log line matching REGEX after the last kmark, from
# their distance in the kernel's timestamps; fails when there is no such line
ktime() {
        dmesg | awk -v re="$1" -v mark="alert-webhook mark $kmark_n" -v t0="$kmark_t" '
                { ts = substr($0, 2, index($0, "]") - 2) + 0 }
                !m && index($0, mark) { m = ts; next }
                m && $0 ~ re { printf "%.3f\n", t0 + ts - m; found = 1; exit }
                END { exit !found }'
}
delay() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
diag() {
        echo "DIAG: $*"
        summary+=("$*")
}
summary=()

python3 "$W/match.py" "$W/hook.jsonl" StorpulseMemberFailed firing 0 inf volume=md9 &&
        fail "StorpulseMemberFailed for md9 fired before any member failed"

# ---- a member fails ------------------------------------------------------------------------
kmark
t_fail=$kmark_t
run mdadm /dev/md9 --fail "/dev/$b"
k_fail=$(ktime "md9: Disk failure on $b") || fail "no 'Disk failure on $b' in the kernel log"
log "the kernel failed $b $(delay "$t_fail" "$k_fail") s after mdadm --fail started"
hook_wait 60 "$t_fail" StorpulseMemberFailed firing volume=md9 member="$b" state=faulty severity=critical
diag "StorpulseMemberFailed {volume=md9, member=$b} firing at the webhook $(delay "$k_fail" "$hook_t") s after the kernel failed $b"
has_metric "storpulse_array_member_state{volume=\"md9\",member=\"$b\",state=\"faulty\"} 1" ||
        fail "the alert fired but storpulsed's /metrics does not show $b faulty"
hook_wait 150 "$t_fail" StorpulseVolumeDegraded firing volume=md9 state=degraded
diag "StorpulseVolumeDegraded {volume=md9} (for: 1m) firing at the webhook $(delay "$k_fail" "$hook_t") s after the kernel failed $b"

# ---- the member leaves, comes back, the array recovers -------------------------------------
t=$EPOCHREALTIME
run mdadm /dev/md9 --remove "/dev/$b"
t_remove=$EPOCHREALTIME
hook_wait 60 "$t" StorpulseMemberFailed resolved volume=md9 member="$b"
diag "StorpulseMemberFailed {volume=md9, member=$b} resolved at the webhook $(delay "$t_remove" "$hook_t") s after mdadm --remove returned"
run mdadm --zero-superblock "/dev/$b"
# md9's own limits (they win over the system's); min = max, so the kernel neither speeds up nor
# waits for idle I/O
echo 400 >/sys/block/md9/md/sync_speed_min || fail "sync_speed_min refused"
echo 400 >/sys/block/md9/md/sync_speed_max || fail "sync_speed_max refused"
kmark
t_add=$kmark_t
run mdadm /dev/md9 --add "/dev/$b"
wait_until 30 "md9 recovering" md_is md9 sync_action recover
k_rec=$(ktime "md: recovery of RAID array md9") || fail "no 'recovery of RAID array md9' in the kernel log"
log "the kernel started md9's recovery (400 KiB/s) $(delay "$t_add" "$k_rec") s after mdadm --add started"
hook_wait 150 "$t_add" StorpulseRebuildSlow firing volume=md9 severity=warning
md_is md9 sync_action recover || fail "StorpulseRebuildSlow arrived only after md9's recovery ended"
diag "StorpulseRebuildSlow {volume=md9} (for: 1m) firing at the webhook $(delay "$k_rec" "$hook_t") s after the kernel started the recovery throttled to 400 KiB/s (sync_completed $(md_attr md9 sync_completed | tr -d ' '))"
grep "\[rebuild-slow\]" "$SCRATCH/daemon.log" || fail "the alert fired but storpulsed logged no rebuild-slow event"
# the rest at 5000 KiB/s: a few seconds, long enough to catch a resolve before the end
echo 5000 >/sys/block/md9/md/sync_speed_max
echo 5000 >/sys/block/md9/md/sync_speed_min
t_fast=$EPOCHREALTIME
# wait until the kernel shows md9 whole (sysfs read with bash's own `read`, no fork, every 0.05 s)
for ((;;)); do
        read -r deg </sys/block/md9/md/degraded
        read -r act </sys/block/md9/md/sync_action
        [[ $deg == 0 && $act == idle ]] && break
        ((EPOCHSECONDS < ${t_add%.*} + 120)) || { md_dump md9; fail "md9 did not recover in 120 s"; }
        sleep 0.05
done
t_whole=$EPOCHREALTIME
k_whole=$(ktime "md: md9: recovery done") || fail "no 'md9: recovery done' in the kernel log"
log "md9 whole again $(delay "$t_add" "$k_whole") s after mdadm --add (kernel log; sysfs polled: $(delay "$t_add" "$t_whole") s)"
log "md9 recovered the rest $(delay "$t_fast" "$k_whole") s after its limits went to 5000 KiB/s"
md_unthrottle
for alert in StorpulseVolumeDegraded StorpulseRebuildSlow; do
        if t=$(python3 "$W/match.py" "$W/hook.jsonl" $alert resolved "$t_fail" "$k_whole" volume=md9); then
                cat "$W/hook.jsonl"
                prom_history
                fail "$alert resolved at $t, $(delay "$t_add" "$t") s after mdadm --add, while md9 was still recovering"
        fi
done
hook_wait 60 "$k_whole" StorpulseVolumeDegraded resolved volume=md9 state=degraded
diag "StorpulseVolumeDegraded {volume=md9} resolved at the webhook $(delay "$k_whole" "$hook_t") s after the kernel's recovery done"
hook_wait 60 "$k_whole" StorpulseRebuildSlow resolved volume=md9
diag "StorpulseRebuildSlow {volume=md9} resolved at the webhook $(delay "$k_whole" "$hook_t") s after the kernel's recovery done"

echo "--- summary: kernel event to webhook, Prometheus scrape and evaluation every 1 s, Alertmanager group_wait/group_interval 1 s"
printf '    %s\n' "${summary[@]}"
mdadm --stop /dev/md9 >/dev/null 2>&1 || true
exit 0
