# SPDX-License-Identifier: MIT
# Health through the stack and md arrays that never start, with storpulsed on the real kernel.
# (1) md1, a RAID1 of two virtio disks, stopped, one member wiped, the other handed to
# `mdadm -I`: md keeps it inactive with one member ("not enough to start"). Past AssembleTimeout=
# (5 s here) the daemon reports it not assembled: verdict not-assembled, state failed, a
# not-assembled event in the journal, and failed in /metrics.
# (2) An LV on md0, a RAID0 of two scsi_debug disks; one disk is pulled and the LV written, so
# md0 breaks (array_state `broken`, data lost). The LV's own dm table is still fine, but it has
# lost its data: the API says state ok, effective_state failed, cause md0 (md); /metrics says the
# same; the journal has a problem-below event naming md0; `status` lists it; and the shipped
# alert StorpulseVolumeFailedBelow fires on the series scraped from the daemon (promtool test
# rules with those values as input).
# shellcheck disable=SC2016
source ../lib.sh
source ./lvm-common.sh
source ./perf-common.sh
require_verb status
DAEMON=$(dirname "$STORPULSECTL")/storpulsed
[[ -x $DAEMON ]] || fail "no storpulsed beside $STORPULSECTL"
MSGID[not-assembled]=a23d99ec1b59410ca831f8a8b04e4d25
MSGID[problem-below]=b29ca939fbc845ff8f56c5f606b61840
RULES=$VMDIR/../../contrib/prometheus/storpulse-rules.yml
ip link set lo up # /metrics on loopback
modprobe -a md_mod raid0 raid1 dm_mod || fail "md/dm modules"

# ---- (1) md1 inactive with one of its two members ------------------------------------------
c=$(disk 1) d=$(disk 2)
run mdadm --create /dev/md1 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$c /dev/$d </dev/null
udevadm settle --timeout=30
udevadm control --stop-exec-queue # no udev mdadm -I while the members change
run mdadm --stop /dev/md1
run mdadm --zero-superblock /dev/$d
udevadm control --start-exec-queue
udevadm settle --timeout=30
[[ -e /sys/block/md1/md ]] || mdadm -I /dev/$c || true
udevadm settle --timeout=30
cat /proc/mdstat
inact=$(awk '/ : inactive / { print $1; exit }' /proc/mdstat)
[[ -n $inact ]] || fail "no inactive array after mdadm -I /dev/$c"
log "kernel: $inact array_state $(md_attr "$inact" array_state), members: $(ls -d /sys/block/$inact/md/dev-* | xargs -n1 basename)"

# ---- (2) an LV on md0, a RAID0 of two scsi_debug disks -------------------------------------
run modprobe scsi_debug dev_size_mb=32 add_host=2 num_tgts=1 max_luns=1 per_host_store=1 delay=0
udevadm settle --timeout=30
sds=()
for m in /sys/block/sd*/device/model; do
        [[ -e $m && "$(cat "$m")" == scsi_debug* ]] && sds+=("$(basename "$(dirname "$(dirname "$m")")")")
done
((${#sds[@]} == 2)) || fail "expected two scsi_debug disks, got ${sds[*]}"
a=${sds[0]} b=${sds[1]}
run mdadm --create /dev/md0 --run --metadata=1.2 --level=0 --raid-devices=2 --chunk=64 \
        /dev/$a /dev/$b </dev/null
udevadm settle --timeout=30
run pvcreate -qq /dev/md0
run vgcreate -qq vgst /dev/md0
run lvcreate -qq --monitor n -y -L 16M -n data vgst
udevadm settle --timeout=30
data=$(kname /dev/vgst/data)

# ---- the daemon ---------------------------------------------------------------------------
perf_journal
mkdir -p "$SCRATCH/run" "$SCRATCH/state"
cat >"$SCRATCH/sp.conf" <<EOF
[Daemon]
RescanInterval=2s
AssembleTimeout=5s
[Schedule]
Builtin=no
EOF
perf_start_daemon --listen 127.0.0.1:19977
api() { curl -sf "http://127.0.0.1:19977/api/v1/volumes/$1" >"$SCRATCH/$1.api.json"; }
# api_is NAME PYTHON-EXPR: the API object of NAME (j) satisfies EXPR
api_is() { api "$1" && python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$SCRATCH/$1.api.json" "$2"; }
metrics() { curl -sf http://127.0.0.1:19977/metrics >"$SCRATCH/metrics.txt"; }
has_metric() { metrics && grep -qxF "$1" "$SCRATCH/metrics.txt"; }

wait_until 60 "$data effective ok before the pull" api_is "$data" 'j["effective_state"] == "ok"'

# (1): not assembled after AssembleTimeout=
journal_has not-assembled STORPULSE_VOLUME="$inact" STORPULSE_MEMBERS=1
wait_until 20 "$inact not-assembled in the API" api_is "$inact" \
        'j["verdict"] == "not-assembled" and j["state"] == "failed"'
cat "$SCRATCH/$inact.api.json"
wait_until 10 "$inact failed in /metrics" has_metric "storpulse_volume_health{volume=\"$inact\",state=\"failed\"} 1"
ok_inactive=$(md_attr "$inact" array_state)
[[ $ok_inactive == inactive ]] || fail "the kernel no longer shows $inact inactive ($ok_inactive)"

# (2): md0 breaks under the LV
log "pull $b (scsi_debug delete), then write the LV"
echo 1 >/sys/block/$b/device/delete
dd if=/dev/urandom of=/dev/vgst/data bs=64k count=64 oflag=direct status=none 2>/dev/null || true
udevadm settle --timeout=30
md_dump md0 || true
wait_until 30 "$data effective failed in the API" api_is "$data" \
        'j["effective_state"] == "failed" and j["effective_cause"]["volume"] == "md0"'
cat "$SCRATCH/$data.api.json"
api_is "$data" 'j["state"] == "ok" and j["effective_cause"]["kind"] == "md" and j["effective_cause"]["state"] == "failed"' ||
        fail "$data: own state ok, cause md0 (md, failed)"
api_is md0 'j["state"] == "failed" and j["effective_cause"] is None' || fail "md0 failed itself"
wait_until 10 "/metrics: $data effectively failed" has_metric \
        "storpulse_volume_effective_health{volume=\"$data\",state=\"failed\"} 1"
has_metric "storpulse_volume_effective_cause_info{volume=\"$data\",cause=\"md0\",layer=\"md\"} 1" ||
        fail "/metrics: no cause md0 (md) for $data"
has_metric "storpulse_volume_health{volume=\"$data\",state=\"ok\"} 1" ||
        fail "/metrics: $data keeps its own health ok"
journal_has problem-below STORPULSE_VOLUME="$data" STORPULSE_CAUSE=md0 STORPULSE_CAUSE_KIND=md \
        STORPULSE_EFFECTIVE_STATE=failed
ctl status >"$SCRATCH/status.txt" || fail "storpulsectl status exited $?"
cat "$SCRATCH/status.txt"
grep -Eq "^    $data +lvm ok.*failed because of md0 below it \(md failed\)" "$SCRATCH/status.txt" ||
        fail "status does not say $data failed because of md0"

# the shipped alert fires on what the daemon serves: the scraped samples as promtool's input
python3 - "$SCRATCH/metrics.txt" "$RULES" "$data" >"$SCRATCH/alert.test.yml" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
print("rule_files: [%s]" % sys.argv[2])
print("evaluation_interval: 1m")
print("tests:\n  - interval: 1m\n    input_series:")
for l in lines:
    m = re.match(r'^(storpulse_volume_(?:health|effective_health|effective_cause_info))\{(.*)\} (\S+)$', l)
    if m:
        print("      - series: '%s{instance=\"vm\",job=\"storpulse\",%s}'" % (m.group(1), m.group(2)))
        print("        values: '%sx3'" % m.group(3))
print("    alert_rule_test:\n      - eval_time: 2m\n        alertname: StorpulseVolumeFailedBelow")
print("        exp_alerts:\n          - exp_labels: {severity: critical, instance: vm, job: storpulse, "
      "volume: %s, state: failed, cause: md0, layer: md}" % sys.argv[3])
print("            exp_annotations: {summary: \"%s on vm has lost its data: md0 (md) below it has failed\"}" % sys.argv[3])
EOF
promtool test rules "$SCRATCH/alert.test.yml" || { cat "$SCRATCH/alert.test.yml"; fail "StorpulseVolumeFailedBelow does not fire on the daemon's series"; }
log "StorpulseVolumeFailedBelow fires for $data on the scraped series"

perf_stop_daemon
vgchange -an vgst >/dev/null 2>&1 || true
mdadm --stop /dev/md0 >/dev/null 2>&1 || true
mdadm --stop "/dev/$inact" >/dev/null 2>&1 || true
exit 0
