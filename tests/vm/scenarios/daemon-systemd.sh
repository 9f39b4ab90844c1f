# SPDX-License-Identifier: MIT
# storpulsed under systemd as PID 1, from the units as built (paths pointed at the build tree):
# `systemctl start storpulsed` reaches READY with a STATUS= line; `systemctl start
# storpulse-probe@quick.service` asks the daemon and returns (bounded: the lost attempt of this
# scenario hung right there); the timer starts, is listed, stops; an md member failed, removed
# and re-added gives member-failed, degraded, member-removed, member-added, rebuild-started (or -resumed),
# rebuild-finished and recovered in the journal, by MESSAGE_ID, in that order; during that
# recovery (throttled for a few seconds) two scrapes of /metrics show md0's sync progress and
# completed bytes grow with sync_action="recover" at 1, promtool-clean, over the socket that
# storpulsed-http.socket passes (the config's Listen= is ignored, as logged); a suspended dm
# device gives probe-stalled while `storpulsectl status` still answers and the watchdog
# (WatchdogSec=5s for the test) does not trip, and its hung helper has dropped its capabilities
# and runs under no_new_privs and a seccomp filter, none of which killed a helper (the kernel
# log); `systemctl stop` is bounded.
# shellcheck disable=SC2016
source ../lib.sh
require_verb status
[[ "$(cat /proc/1/comm)" == systemd ]] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
builddir=$(cd "$(dirname "$STORPULSECTL")/.." && pwd)
srcunits=$(cd "$VMDIR/../../units" && pwd)
STORPULSED=$builddir/daemon/storpulsed
[[ -x $STORPULSED ]] || fail "no storpulsed next to $STORPULSECTL"

ID_STARTED=e74a827ee83e45cbb596dae03e49d6c8
ID_PROBE_FINISHED=52d1c022e9de40c4b2f57f62ec4f0d4d
ID_PROBE_STALLED=598e493a38f6414384b4384643133fb8

a=$(disk 1) b=$(disk 2)
modprobe -a md_mod raid1 dm_mod loop
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$a /dev/$b </dev/null
udevadm settle --timeout=30

# a dm device to suspend later, on a loop device over a tmpfs file
truncate -s 32M "$SCRATCH/susp.img"
loopdev=$(losetup -f --show "$SCRATCH/susp.img") || fail "losetup"
run dmsetup create susp --table "0 $(blockdev --getsz "$loopdev") linear $loopdev 0"
udevadm settle --timeout=30
susp=$(basename "$(readlink -f /dev/mapper/susp)")

# ---- the units, as meson configured them, pointed at the build tree ----------------------
mkdir -p /etc/storpulse /etc/systemd/system/storpulsed.service.d /usr/lib/systemd/catalog
for u in storpulsed.service storpulse-probe@.service; do
        sed -e "s|ExecStart=[^ ]*/storpulsed |ExecStart=$STORPULSED |" \
                -e "s|ExecStart=[^ ]*/storpulsectl |ExecStart=$STORPULSECTL |" \
                "$builddir/units/$u" >"/etc/systemd/system/$u" || fail "install $u"
done
cp "$srcunits/storpulsed.socket" "$srcunits/storpulsed-http.socket" "$srcunits/storpulse-probe@.timer" \
        /etc/systemd/system/
cp "$srcunits/storpulse.catalog" /usr/lib/systemd/catalog/
journalctl --update-catalog || fail "journalctl --update-catalog"
conf=$(sed -n 's|^ExecStart=.* --config \([^ ]*\).*|\1|p' /etc/systemd/system/storpulsed.service)
mkdir -p "$(dirname "$conf")"
cat >"$conf" <<EOF
[Schedule]
Builtin=no
[Volumes]
Name=md0 $susp
[Profile quick]
SequentialBytes=4M
RandomDuration=1s
[Profile stall]
SequentialBytes=0
RandomDuration=20s
Timeout=4s
[HTTP]
# ignored: storpulsed-http.socket passes the endpoint's socket (under the unit's
# RestrictAddressFamilies=, binding it here would fail and so would every scrape below)
Listen=127.0.0.1:9977
EOF
# the build tree is read-only in the guest, and so is ProtectSystem=strict's view of it
# PrivateTmp= would hide a build tree below /tmp (CI clones anywhere): bind it back in,
# read-only (systemd mounts the private /tmp first, then the deeper bind)
cat >/etc/systemd/system/storpulsed.service.d/test.conf <<EOF
[Service]
WatchdogSec=5s
BindReadOnlyPaths=$builddir
EOF
mkdir -p /etc/systemd/system/storpulse-probe@.service.d
cat >/etc/systemd/system/storpulse-probe@.service.d/test.conf <<EOF
[Service]
BindReadOnlyPaths=$builddir
EOF
run systemctl daemon-reload

# ---- start: READY, STATUS -------------------------------------------------------------------
timeout 60 systemctl start storpulsed.socket storpulsed-http.socket storpulsed.service || {
        journalctl -u storpulsed --no-pager | tail -30
        fail "systemctl start storpulsed failed"
}
[[ "$(systemctl show -p ActiveState --value storpulsed)" == active ]] || {
        journalctl -u storpulsed --no-pager | tail -30
        fail "storpulsed not active"
}
status=$(systemctl show -p StatusText --value storpulsed)
log "StatusText: $status"
[[ $status == *volumes*problem* ]] || fail "no STATUS= line with volumes and problems: '$status'"
wait_until 10 "journal: started" bash -c "journalctl MESSAGE_ID=$ID_STARTED -o cat --no-pager | grep -q started"
mainpid=$(systemctl show -p MainPID --value storpulsed)

# ---- a probe run through the template service (bounded) ------------------------------------
t0=$(date +%s)
timeout 120 systemctl start storpulse-probe@quick.service
rc=$?
log "systemctl start storpulse-probe@quick.service: rc $rc after $(($(date +%s) - t0)) s"
if ((rc != 0)); then
        journalctl -u storpulse-probe@quick.service -u storpulsed --no-pager | tail -40
        fail "storpulse-probe@quick.service failed or hung (rc $rc, 124 = hung)"
fi
wait_until 10 "journal: probe-finished md0" bash -c \
        "journalctl MESSAGE_ID=$ID_PROBE_FINISHED STORPULSE_VOLUME=md0 -o cat --no-pager | grep -q ."
journalctl -x MESSAGE_ID=$ID_PROBE_FINISHED --no-pager | grep -q "read-only probe" ||
        fail "journalctl -x does not show the catalog text"

# ---- the timer -----------------------------------------------------------------------------
run systemctl start storpulse-probe@quick.timer
systemctl list-timers --all --no-pager | grep -q "storpulse-probe@quick.timer" ||
        fail "list-timers does not show storpulse-probe@quick.timer"
run systemctl stop storpulse-probe@quick.timer
[[ "$(systemctl is-active storpulse-probe@quick.timer)" != active ]] || fail "timer still active"

# ---- md: member failed, removed, re-added -> events in order ---------------------------------
run mdadm /dev/md0 --fail /dev/$b
wait_until 20 "degraded event" bash -c \
        "journalctl SYSLOG_IDENTIFIER=storpulsed STORPULSE_VOLUME=md0 STORPULSE_EVENT=degraded -o cat --no-pager | grep -q ."
run mdadm /dev/md0 --remove /dev/$b
wait_until 20 "member-removed event" bash -c \
        "journalctl STORPULSE_VOLUME=md0 STORPULSE_EVENT=member-removed -o cat --no-pager | grep -q ."
run mdadm --zero-superblock /dev/$b
# issue 10: /metrics during a real rebuild shows progress moving. The recovery is throttled to
# 4 MB/s (64 MiB: 16 s; md notifies sync_completed every 1/16, about every second) only until
# two scrapes saw it move, then runs at full speed again.
echo 1 >/sys/block/md0/md/sync_speed_min || fail "sync_speed_min"
echo 4000 >/sys/block/md0/md/sync_speed_max || fail "sync_speed_max"
run mdadm /dev/md0 --add /dev/$b
wait_until 30 "md0 recovery under way" md_sync_started md0
scrape() { # scrape FILE: /metrics into FILE
        curl -sfS --max-time 10 -o "$1" http://127.0.0.1:9977/metrics
}
# md0_sync FILE: "ACTION_RECOVER PROGRESS COMPLETED_BYTES" of md0 in a scrape ('-' if absent)
md0_sync() {
        python3 - "$1" <<'PY'
import re, sys
v = {}
for l in open(sys.argv[1]):
    m = re.match(r'^(storpulse_sync_\w+)\{([^}]*)\} (\S+)$', l.strip())
    if m and 'volume="md0"' in m.group(2).split(','):
        lab = m.group(2)
        if m.group(1) == 'storpulse_sync_action':
            if 'action="recover"' in lab:
                v['recover'] = '%g' % float(m.group(3))
        else:
            v[m.group(1)] = m.group(3)
print(v.get('recover', '-'), v.get('storpulse_sync_progress_ratio', '-'),
      v.get('storpulse_sync_completed_bytes', '-'))
PY
}
scrape "$SCRATCH/metrics1" || fail "curl /metrics during the recovery"
journalctl -u storpulsed -o cat --no-pager | grep -q "systemd passed 1 socket(s) (storpulsed-http.socket), serving those; \[HTTP\] Listen= is ignored" ||
        fail "no notice that [HTTP] Listen= gives way to storpulsed-http.socket"
read -r rec1 prog1 done1 < <(md0_sync "$SCRATCH/metrics1")
log "scrape 1: recover=$rec1 progress=$prog1 completed_bytes=$done1 (kernel: $(md_attr md0 sync_completed))"
[[ $rec1 == 1 ]] || { grep 'md0' "$SCRATCH/metrics1" | grep sync; fail "storpulse_sync_action{action=\"recover\"} is '$rec1', not 1"; }
[[ $prog1 != - && $done1 != - ]] || fail "no sync progress/completed series for md0 during the recovery"
moved() {
        scrape "$SCRATCH/metrics2" || return 1
        read -r rec2 prog2 done2 < <(md0_sync "$SCRATCH/metrics2")
        python3 -c 'import sys; a = [float(x) for x in sys.argv[1:]]; sys.exit(0 if a[1] > a[0] and a[3] > a[2] else 1)' \
                "$prog1" "$prog2" "$done1" "$done2" 2>/dev/null
}
wait_until 12 "/metrics: md0 progress and completed bytes grow" moved
read -r rec2 prog2 done2 < <(md0_sync "$SCRATCH/metrics2")
log "scrape 2: recover=$rec2 progress=$prog2 completed_bytes=$done2 (kernel: $(md_attr md0 sync_completed))"
[[ $rec2 == 1 ]] || fail "second scrape: storpulse_sync_action{action=\"recover\"} is '$rec2', not 1"
if command -v promtool >/dev/null; then
        out=$(promtool check metrics <"$SCRATCH/metrics2" 2>&1) || fail "promtool check metrics: $out"
        [[ -z $out ]] || fail "promtool check metrics: $out"
else
        log "no promtool: the scrape's lint is skipped"
fi
echo system >/sys/block/md0/md/sync_speed_max
echo system >/sys/block/md0/md/sync_speed_min
wait_until 120 "recovered event" bash -c \
        "journalctl STORPULSE_VOLUME=md0 STORPULSE_EVENT=recovered -o cat --no-pager | grep -q ."
wait_until 30 "rebuild-finished event" bash -c \
        "journalctl STORPULSE_VOLUME=md0 STORPULSE_EVENT=rebuild-finished -o cat --no-pager | grep -q ."
journalctl SYSLOG_IDENTIFIER=storpulsed STORPULSE_VOLUME=md0 -o json --no-pager >"$SCRATCH/md0.json"
python3 - "$SCRATCH/md0.json" <<'EOF' || fail "md events not as expected"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
names = [e.get("STORPULSE_EVENT") for e in ev]
print("md0 events:", [(e.get("STORPULSE_EVENT"), e.get("STORPULSE_OPERATION")) for e in ev])
def first(name, after=-1):
    for i, n in enumerate(names):
        if i > after and n == name:
            return i
    sys.exit(f"no {name} after position {after}")
# the transitions this daemon derives itself, in the order they happened
f = first("member-failed")
d = first("degraded", f)
r = first("member-removed", d)
a = first("member-added", r)
# md's recovery onto the re-added disk: the tracker may call it started or resumed (it saw a
# recovery begin and stop when the member failed)
rb = min(i for i, n in enumerate(names) if i > a and n in ("rebuild-started", "rebuild-resumed"))
fin = first("rebuild-finished", rb)
first("spare-active", a)
first("recovered", rb)
for e in ev:
    if len(e.get("MESSAGE_ID", "")) != 32 or e.get("STORPULSE_KIND") != "md":
        sys.exit(f"event without MESSAGE_ID or STORPULSE_KIND=md: {e.get('STORPULSE_EVENT')}")
if ev[f].get("STORPULSE_MEMBER") is None:
    sys.exit("member-failed lacks STORPULSE_MEMBER")
if names.count("degraded") != 1 or names.count("recovered") != 1:
    sys.exit("degraded/recovered raised more than once")
if names.count("rebuild-progress") > 9:
    sys.exit("more than nine progress events for one recovery")
EOF

# ---- a suspended device: stalled, status answers, watchdog quiet ----------------------------
timeout 90 "$STORPULSECTL" probe --profile stall "$susp" >"$SCRATCH/stall.out" 2>&1 &
cpid=$!
sleep 1
run dmsetup suspend --nolockfs susp
timeout 20 "$STORPULSECTL" status >"$SCRATCH/status.out" 2>&1 || {
        dmsetup resume susp
        fail "storpulsectl status did not answer during the hung probe"
}
# the hung helper under the unit: every capability dropped (the bounding set stays the unit's
# CAP_SYS_ADMIN: without CAP_SETPCAP it cannot be emptied), no_new_privs, a seccomp filter
helper=$(pgrep -P "$mainpid" -x storpulse-probe | head -1)
[[ -n $helper ]] || { dmsetup resume susp; fail "no storpulse-probe child of storpulsed"; }
grep -E '^(Uid|Cap|NoNewPrivs|Seccomp)' "/proc/$helper/status" | sed 's/^/helper: /'
for f in CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 \
        CapAmb:0000000000000000 CapBnd:0000000000200000 NoNewPrivs:1 Seccomp:2; do
        grep -qE "^${f%%:*}:[[:space:]]+${f#*:}$" "/proc/$helper/status" ||
                { dmsetup resume susp; fail "helper under the unit: not ${f%%:*} ${f#*:}"; }
done
wait $cpid
rc=$?
log "probe of the suspended device: exit $rc"
((rc == 3)) || { dmsetup resume susp; cat "$SCRATCH/stall.out"; fail "probe did not end stalled (rc $rc)"; }
wait_until 10 "journal: probe-stalled" bash -c \
        "journalctl MESSAGE_ID=$ID_PROBE_STALLED STORPULSE_VOLUME=$susp -o cat --no-pager | grep -q ."
timeout 20 "$STORPULSECTL" status --json >"$SCRATCH/status.json" || { dmsetup resume susp; fail "status --json"; }
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if sys.argv[2] in j["stalled"] else 1)' \
        "$SCRATCH/status.json" "$susp" || { dmsetup resume susp; fail "status does not list $susp as stalled"; }
sleep 8 # > WatchdogSec while the helper hangs in the kernel
[[ "$(systemctl show -p MainPID --value storpulsed)" == "$mainpid" ]] || {
        dmsetup resume susp
        fail "storpulsed was restarted (watchdog?)"
}
[[ "$(systemctl show -p NRestarts --value storpulsed)" == 0 ]] || { dmsetup resume susp; fail "NRestarts != 0"; }
run dmsetup resume susp
# no helper was killed by its seccomp filter (the kernel logs each kill as audit type=1326)
! dmesg | grep "type=1326" || fail "a seccomp kill in the kernel log"

# ---- stop, bounded ---------------------------------------------------------------------------
t0=$(date +%s)
run timeout 60 systemctl stop storpulsed.service storpulsed.socket storpulsed-http.socket
log "stopped in $(($(date +%s) - t0)) s"
[[ "$(systemctl show -p Result --value storpulsed)" == success ]] ||
        fail "storpulsed did not stop cleanly: $(systemctl show -p Result --value storpulsed)"
run dmsetup remove susp
run losetup -d "$loopdev"
