#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# storpulsed on a loop device, with a private systemd-journald started by hand in a private mount
# namespace (this host has no systemd as PID 1): journal events asserted by MESSAGE_ID (ids from
# units/storpulse.catalog, written independently of the code), the control socket (status,
# probe, volumes, reload with a bad config kept), abuse of the socket (garbage, oversize, slow,
# a client that never reads), a volume appearing and vanishing, a probe whose helper goes silent
# (SIGSTOP stands in for a helper stuck on a hung device, which a loop device cannot be made to
# do here; the VM scenario uses a suspended dm device) -> stalled while the daemon keeps
# answering, SIGTERM during such a probe -> exit within a bound, and no journal at all.
#   daemon.sh STORPULSECTL STORPULSED [STORPULSE-PROBE]
set -u
if [ -z "${STORPULSE_IN_NS:-}" ]; then
        if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null ||
                [ ! -x /lib/systemd/systemd-journald ]; then
                echo "1..0 # SKIP needs root, unshare and /lib/systemd/systemd-journald"
                exit 0
        fi
        exec unshare --mount --propagation private env STORPULSE_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/probe-lib.sh"
DAEMON=${2:?usage: $0 STORPULSECTL STORPULSED [STORPULSE-PROBE]}
HELPER=${3:-$(dirname "$DAEMON")/storpulse-probe}
require_root_and_loop
make_scratch

# The daemon's probe helper is the real one behind a switch ($STORPULSE_PROBE_HELPER, which the
# daemon honours): after arm_silent, the next helper the daemon starts claims the arm (a rename:
# one helper only, and the new name carries its pid), becomes a session of its own as the real
# helper does first (setsid(1) keeps the pid of a process that leads no group; and no signal to
# the test's process group, such as the SIGHUP of an orphaned group with a stopped member, can
# reach it) and stops itself before its first answer, silent as a helper stuck in open() of a
# hung device; every other helper is the real one. So the test knows which process is silent,
# and that it went silent before it could finish: catching the real helper by polling within its
# 2 s probe missed it on a loaded host.
cat >"$SCRATCH/probe-helper" <<EOF
#!/bin/sh
if [ -e "$SCRATCH/silent.arm" ] && mv "$SCRATCH/silent.arm" "$SCRATCH/silent.\$\$" 2>/dev/null; then
        exec setsid sh -c 'kill -STOP \$\$; exit 1'
fi
exec "$HELPER" "\$@"
EOF
chmod +x "$SCRATCH/probe-helper"

ID_STARTED=e74a827ee83e45cbb596dae03e49d6c8
ID_STOPPING=31b7d00d9fec4b268f01cd77a1ac9559
ID_APPEARED=743d4bceef3e4a7ba74d5b3565679809
ID_VANISHED=57d7630e83fe4612aeb0810ba5305e29
ID_PROBE_FINISHED=52d1c022e9de40c4b2f57f62ec4f0d4d
ID_PROBE_STALLED=598e493a38f6414384b4384643133fb8
ID_RELOADED=2a58adfbb21545649b54af42ee3b50ff
ID_REJECTED=8ddff679ffa64273a66cace5932fdf21

# ---- a private journal ----------------------------------------------------------------------
mkdir -p /run/systemd/journal /run/log /var/log/journal
mount -t tmpfs tmpfs /run/systemd/journal && mount -t tmpfs tmpfs /run/log &&
        mount -t tmpfs tmpfs /var/log/journal
tap_ok $? "private mounts for the journal"
/lib/systemd/systemd-journald >"$SCRATCH/journald.log" 2>&1 &
JOURNALD=$!
for _ in $(seq 100); do
        [ -S /run/systemd/journal/socket ] && break
        sleep 0.05
done
tap_ok "$([ -S /run/systemd/journal/socket ]; echo $?)" "private journald listens"

DPID=
cleanup_daemon() {
        [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
        kill "$JOURNALD" 2>/dev/null
        cleanup
}
trap cleanup_daemon EXIT

# jwait SECONDS MATCH...: wait until journalctl finds an entry matching all MATCHes (FIELD=VALUE);
# prints the newest as JSON.
jwait() {
        local s=$1 out
        shift
        for _ in $(seq $((s * 10))); do
                out=$(journalctl --no-pager -o json -n 1 "$@" 2>/dev/null)
                if [ -n "$out" ]; then
                        echo "$out"
                        return 0
                fi
                sleep 0.1
        done
        return 1
}

# control JSON: one request on the control socket, prints the reply lines
control() {
        python3 - "$SOCK" "$1" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
for line in s.makefile():
    print(line.rstrip())
    if json.loads(line).get("type") == "reply":
        break
EOF
}

img=$SCRATCH/disk.img
make_random_file "$img" 64
dev=$(attach_loop "$img")
tap_ok $? "loop device $dev"
name=${dev#/dev/}
extra=$(python3 -c 'import os; print(next(n for n in range(200, 250) if not os.path.exists(f"/dev/loop{n}") and not os.path.exists(f"/sys/block/loop{n}")))')

conf=$SCRATCH/storpulse.conf
hport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
write_good_conf() {
        cat >"$conf" <<EOF
[HTTP]
Listen=127.0.0.1:$hport
[Daemon]
LogLevel=debug
ShutdownTimeout=2s
RescanInterval=1h
[Schedule]
Builtin=no
[Volumes]
Name=$name loop$extra
Exclude=
[Profile quick]
SequentialBytes=8M
RandomDuration=1s
[Profile hang]
SequentialBytes=0
RandomDuration=2s
Timeout=4s
EOF
}
write_good_conf
# start_daemon RUNDIR STATEDIR LOG: storpulsed in the background (DPID), SOCK and STORPULSE_SOCKET
# set to its control socket, which it waits for (10 s at most)
start_daemon() {
        SOCK=$1/control
        export STORPULSE_SOCKET=$SOCK
        STORPULSE_PROBE_HELPER=$SCRATCH/probe-helper \
                "$DAEMON" --config "$conf" --runtime-dir "$1" --state-dir "$2" >"$3" 2>&1 &
        DPID=$!
        for _ in $(seq 100); do
                [ -S "$SOCK" ] && break
                sleep 0.1
        done
}
start_daemon "$SCRATCH/run" "$SCRATCH/state" "$SCRATCH/daemon.log"
tap_ok "$([ -S "$SOCK" ]; echo $?)" "control socket $SOCK"

out=$(jwait 10 MESSAGE_ID=$ID_STARTED SYSLOG_IDENTIFIER=storpulsed)
tap_ok $? "journal: started (MESSAGE_ID=$ID_STARTED)"

bounded 30 "$CTL" status >"$SCRATCH/status" 2>&1
tap_ok $? "storpulsectl status"
diag <"$SCRATCH/status"
check "status names the volumes" grep -q "volumes" "$SCRATCH/status"
# stdout on a full disk: the verb's name and ENOSPC (the name once pointed at a dead stack frame)
bounded 30 "$CTL" status --json >/dev/full 2>"$SCRATCH/err"
tap_ok $(($? == 0)) "status --json >/dev/full: exit != 0"
check "status --json >/dev/full: names the verb and ENOSPC" grep -qx \
        "storpulsectl status: failed to write to standard output: No space left on device" "$SCRATCH/err"

# A state save that cannot finish: a FIFO where the save's temp file goes blocks its open() in the
# kernel until a reader comes, as a write to a hung disk blocks. The loop must answer meanwhile.
stuck=$SCRATCH/state/probes.json.tmp.$DPID
mkfifo "$stuck"
bounded 60 "$CTL" probe --profile quick "$name" >"$SCRATCH/probe" 2>&1
rc=$?
diag <"$SCRATCH/probe"
tap_ok $rc "storpulsectl probe --profile quick $name (exit $rc)"
out=$(jwait 10 MESSAGE_ID=$ID_PROBE_FINISHED STORPULSE_VOLUME="$name" STORPULSE_PROFILE=quick)
tap_ok $? "journal: probe-finished for $name with STORPULSE_PROFILE=quick"
bounded 20 "$CTL" status >"$SCRATCH/status-stuck" 2>&1
tap_ok $? "status answers while the state save is stuck"
check "the save is still pending then (the FIFO has had no reader, no probes.json yet)" \
        test -p "$stuck" -a ! -e "$SCRATCH/state/probes.json"
timeout 20 cat "$stuck" >/dev/null # the disk answers

bounded 30 "$CTL" volumes --daemon --json >"$SCRATCH/vols" 2>&1
tap_ok $? "storpulsectl volumes --daemon --json"
check "the probe record counts one probe" python3 -c '
import json, sys
v = [x for x in json.load(open(sys.argv[1])) if x["name"] == sys.argv[2]][0]
sys.exit(0 if v["probe"]["runs"] == 1 and v["probe"]["last"]["result"] == "ok" else 1)' \
        "$SCRATCH/vols" "$name"
# one schema (docs/json.md): the daemon's outputs validate, names and 10-digit numbers
SCHEMA_CHECK="$(dirname "$0")/../check-json-schema.py"
check "volumes --daemon --json validates against the schema" \
        python3 "$SCHEMA_CHECK" daemon_volumes "$SCRATCH/vols"
bounded 30 "$CTL" status --json >"$SCRATCH/status.json" 2>&1
check "status --json validates against the schema" \
        python3 "$SCHEMA_CHECK" status "$SCRATCH/status.json"
bounded 30 "$CTL" report --json >"$SCRATCH/report.json" 2>&1
check "report --json validates against the schema" \
        python3 "$SCHEMA_CHECK" report "$SCRATCH/report.json"
# the journal's rates are IEC, as the README says: "NN.NMiB/s sequential"
check "journal: probe-finished gives the rate in MiB/s" \
        bash -c 'journalctl --no-pager -o cat MESSAGE_ID='$ID_PROBE_FINISHED' | grep -qE "[0-9.]+(K|M|G)iB/s sequential"'

# ---- issue 25: status, history, report of an unknown volume, a light run ------------------
bounded 30 "$CTL" status >"$SCRATCH/status-rich" 2>&1
diag <"$SCRATCH/status-rich"
check "status: the HTTP address" grep -qx "  HTTP: http://127.0.0.1:$hport" "$SCRATCH/status-rich"
check "status: the next probe (Builtin=no: none scheduled)" grep -qx "  next probe: none scheduled" "$SCRATCH/status-rich"
check "status: $name's last run (ok, quick)" grep -qE "^  $name +ok +quick +[0-9-]+ [0-9:]+ \(.* ago\)" "$SCRATCH/status-rich"
check "status --json validates with http_urls and last_runs" \
        python3 "$SCHEMA_CHECK" status "$SCRATCH/status.json"
check "status --json: http_urls and $name's last run" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
last = [x["last"] for x in j["last_runs"] if x["volume"] == sys.argv[2]]
sys.exit(0 if j["http_urls"] == ["http://127.0.0.1:" + sys.argv[3]] and last and last[0]["profile"] == "quick" else 1)' \
        "$SCRATCH/status.json" "$name" "$hport"
bounded 30 "$CTL" report nosuch >"$SCRATCH/rep-nosuch" 2>"$SCRATCH/err"
rc=$?
tap_ok $((rc != 2)) "report nosuch: exit 2 (got $rc)"
check "report nosuch: names the volume" grep -q "^storpulsectl report: storpulsed refused: no volume 'nosuch'" "$SCRATCH/err"
check "report nosuch: no 'No baselines learned yet.'" bash -c "! grep -q 'No baselines' '$SCRATCH/rep-nosuch'"
bounded 60 "$CTL" probe --profile light "$name" >"$SCRATCH/probe-light" 2>&1
tap_ok $? "storpulsectl probe --profile light $name"
diag <"$SCRATCH/probe-light"
check "probe --profile light: the sequential figure is -, not 0.0" grep -qE "^$name +ok +- MiB/s +[0-9]+ IOPS" "$SCRATCH/probe-light"
jwait 10 MESSAGE_ID=$ID_PROBE_FINISHED STORPULSE_VOLUME="$name" STORPULSE_PROFILE=light >"$SCRATCH/j-light"
tap_ok $? "journal: probe-finished of the light run"
check "journal: the light run names no sequential rate (the phase did not run)" \
        json_true "$SCRATCH/j-light" '"sequential" not in j["MESSAGE"] and "IOPS random" in j["MESSAGE"] and "STORPULSE_SEQ_BYTES_PER_SEC" not in j'
bounded 30 "$CTL" volumes --daemon >"$SCRATCH/vols-light" 2>&1
check "volumes --daemon: SEQ MiB/s of the light run is -" grep -qE "^$name .* ok +- +[0-9]+$" "$SCRATCH/vols-light"
bounded 30 "$CTL" history "$name" >"$SCRATCH/hist" 2>&1
tap_ok $? "storpulsectl history $name"
diag <"$SCRATCH/hist"
check "history: the quick runs, then the light one (no sequential figure), oldest first" python3 -c '
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith(sys.argv[2] + " ")]
prof = [r[3] for r in rows]
sys.exit(0 if prof[-1] == "light" and rows[-1][6] == "-" and "quick" in prof[:-1] and len(rows) >= 2 else 1)' \
        "$SCRATCH/hist" "$name"
bounded 30 "$CTL" history --json >"$SCRATCH/hist.json" 2>&1
check "history --json validates against the schema" python3 "$SCHEMA_CHECK" history "$SCRATCH/hist.json"
check "history --json: $name's samples end with the light run" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["volumes"][sys.argv[2]]["samples"]
sys.exit(0 if s[-1]["profile"] == "light" and "sequential" not in s[-1]["phases"] else 1)' "$SCRATCH/hist.json" "$name"
bounded 30 "$CTL" history nosuch >/dev/null 2>"$SCRATCH/err"
rc=$?
tap_ok $((rc != 2)) "history nosuch: exit 2 (got $rc)"
check "history nosuch: names the volume" grep -q "no volume 'nosuch'" "$SCRATCH/err"
bounded 30 "$CTL" report --json "$name" >"$SCRATCH/rep-light.json" 2>&1
check "report after the light run: quick's now is its own (last-learned), light's is the run" python3 -c '
import json, sys
v = {e["profile"]: e for e in json.load(open(sys.argv[1]))["volumes"]}
sys.exit(0 if v["light"]["now_source"] == "last-run" and v["quick"]["now_source"] == "last-learned" and v["quick"]["verdict"] is None else 1)' \
        "$SCRATCH/rep-light.json"


# ---- probe read errors are a problem until a clean probe ----------------------------------
# metric NAME{LABELS}: the sample's value in the daemon's /metrics (empty if absent)
metric() {
        curl -s "http://127.0.0.1:$hport/metrics" | awk -v k="$1" '$1 == k { print $2 }'
}
# the backing file cut to 1 MiB: the probe's reads past it fail with EIO (probe-truncate.sh)
truncate -s 1M "$img"
bounded 60 "$CTL" probe --profile quick "$name" >"$SCRATCH/probe-err" 2>&1
rc=$?
diag <"$SCRATCH/probe-err"
tap_ok $((rc != 3)) "probe of $name with its file cut to 1 MiB: exit 3, read errors (got $rc)"
bounded 30 "$CTL" status >"$SCRATCH/status-err" 2>&1
diag <"$SCRATCH/status-err"
check "status: 1 problem after the read errors" grep -q "volumes, 1 problem," "$SCRATCH/status-err"
check "status names $name and its read errors" \
        grep -Eq "^    $name +disk .*probe: read-errors until a clean probe" "$SCRATCH/status-err"
check "/metrics: storpulse_volume_problem of $name is 1" \
        test "$(metric "storpulse_volume_problem{volume=\"$name\"}")" = 1
check "/metrics: storpulse_probe_last_result of $name is error" \
        test "$(metric "storpulse_probe_last_result{volume=\"$name\",result=\"error\"}")" = 1
curl -s "http://127.0.0.1:$hport/api/v1/volumes/$name" >"$SCRATCH/api-err"
check "API: probe_problem read-errors" json_true "$SCRATCH/api-err" 'j["probe_problem"] == "read-errors"'
# a skipped or a second failing run does not clear it; a clean one does (holes read as zeros)
truncate -s 64M "$img"
bounded 60 "$CTL" probe --profile quick "$name" >/dev/null 2>&1
tap_ok $? "a clean probe of $name once the file has its size again"
bounded 30 "$CTL" status >"$SCRATCH/status-ok" 2>&1
check "status: 0 problems after the clean probe" grep -q "volumes, 0 problems," "$SCRATCH/status-ok"
check "/metrics: storpulse_volume_problem of $name back to 0" \
        test "$(metric "storpulse_volume_problem{volume=\"$name\"}")" = 0
# [HTTP] LatencyHistogram=: no histogram by default (the p99 gauge only), full after a reload below
buckets() {
        curl -s "http://127.0.0.1:$hport/metrics" |
                grep -c "^storpulse_probe_read_latency_seconds_bucket{volume=\"$name\",phase=\"random\","
}
check "/metrics: no latency buckets by default" test "$(buckets)" = 0
check "/metrics: the random phase's p99 gauge" \
        test -n "$(metric "storpulse_probe_read_latency_p99_seconds{volume=\"$name\",phase=\"random\"}")"

# ---- reload: a bad config is rejected and the old one kept --------------------------------
printf '[Daemon]\nLogLevel=debug\n\n[Probe]\nBudget=forever\n' >"$conf"
kill -HUP "$DPID"
out=$(jwait 10 MESSAGE_ID=$ID_REJECTED)
tap_ok $? "journal: config-rejected after SIGHUP with a bad file"
echo "$out" | grep -q "storpulse.conf:5: invalid time span 'forever'"
tap_ok $? "the rejection names FILE:LINE (storpulse.conf:5)"
control '{"command":"reload"}' >"$SCRATCH/reload"
check "control reload with the bad file: ok false" grep -q '"ok":false' "$SCRATCH/reload"
bounded 60 "$CTL" probe --profile hang --no-wait "$name" >/dev/null 2>&1
tap_ok $? "the old config is still in effect (its profile 'hang' exists)"
for _ in $(seq 100); do
        control '{"command":"status"}' | grep -q '"running":false' && break
        sleep 0.1
done
printf '[Daemon]\nLogLevel=debug\n[Detection]\nThroughputThreshold=40%%\nRebuildSustain=forever\n' >"$conf"
kill -HUP "$DPID"
jwait 10 MESSAGE_ID=$ID_REJECTED \
        "STORPULSE_CONFIG_ERROR=$conf:5: invalid time span 'forever' (use e.g. 30s, 500ms, 5min)" \
        >/dev/null
tap_ok $? "a bad [Detection] value is rejected with FILE:LINE"
write_good_conf
# the thresholds of the running monitor change on reload (perf_monitor_set_config)
printf '[Detection]\nThroughputThreshold=40%%\nBaselineWindow=16\nStatisticsInterval=5s\n' >>"$conf"
sed -i 's/^\[HTTP\]$/[HTTP]\nLatencyHistogram=full/' "$conf"
control '{"command":"reload"}' >"$SCRATCH/reload2"
check "control reload with a good file: ok true" grep -q '"ok":true' "$SCRATCH/reload2"
jwait 10 MESSAGE_ID=$ID_RELOADED >/dev/null
tap_ok $? "journal: config-reloaded"
check "/metrics after the reload with LatencyHistogram=full: 19 buckets" test "$(buckets)" = 19

bounded 10 "$DAEMON" --config "$SCRATCH/nope.conf" --runtime-dir "$SCRATCH/run2" \
        >"$SCRATCH/bad-start" 2>&1
rc=$?
tap_ok $((rc != 2)) "start with a missing --config file refused (exit $rc)"
printf '[Daemon]\nNoSuchKey=1\n' >"$SCRATCH/bad.conf"
bounded 10 "$DAEMON" --config "$SCRATCH/bad.conf" --runtime-dir "$SCRATCH/run2" \
        >"$SCRATCH/bad-start" 2>&1
rc=$?
diag <"$SCRATCH/bad-start"
tap_ok $((rc != 2)) "start with an unknown key refused (exit $rc)"
check "error says bad.conf:2" grep -q "bad.conf:2: unknown key 'NoSuchKey'" "$SCRATCH/bad-start"

# ---- a volume appears and vanishes (loop-control; no udevd here: the kernel's uevents tell) -
# RescanInterval=1h above: only a uevent can make these within the bound (without udevd, the
# kernel's: storpulsed listens to them itself)
events_from=kernel
[ -e /run/udev/control ] && events_from=udev
check "device events from the $events_from" grep -q "Device events from the $events_from" \
        "$SCRATCH/daemon.log"
loopctl() { # loopctl IOCTL N: LOOP_CTL_ADD (0x4C80) or LOOP_CTL_REMOVE (0x4C81) of loopN
        python3 -c 'import fcntl, os, sys; fd = os.open("/dev/loop-control", os.O_RDWR); fcntl.ioctl(fd, int(sys.argv[1], 0), int(sys.argv[2]))' "$1" "$2"
}
# jcount MATCH...: how many entries match (right now)
jcount() { journalctl --no-pager -o cat "$@" 2>/dev/null | wc -l; }
loopctl 0x4C80 "$extra"
tap_ok $? "loop$extra created"
# a loop device with nothing bound (size 0) is not a volume (the listings hide it): it appears
# when a file is bound, vanishes at `losetup -d` although its node stays, and its removal then
# raises nothing more
make_random_file "$SCRATCH/extra.img" 4
losetup "/dev/loop$extra" "$SCRATCH/extra.img"
tap_ok $? "file bound to loop$extra"
jwait 5 MESSAGE_ID=$ID_APPEARED STORPULSE_VOLUME="loop$extra" STORPULSE_KIND=disk >"$SCRATCH/appeared"
tap_ok $? "journal: volume-appeared loop$extra within 5 s"
check "volume-appeared loop$extra has the bound size (4 MiB, not the empty node's 0)" \
        json_true "$SCRATCH/appeared" "j['STORPULSE_SIZE_BYTES'] == '4194304'"
check "volume-appeared loop$extra names its layer (STORPULSE_LAYER=volume)" \
        json_true "$SCRATCH/appeared" "j.get('STORPULSE_LAYER') == 'volume'"
losetup -d "/dev/loop$extra"
tap_ok $? "loop$extra detached"
jwait 5 MESSAGE_ID=$ID_VANISHED STORPULSE_VOLUME="loop$extra" >/dev/null
tap_ok $? "journal: volume-vanished loop$extra within 5 s of losetup -d"
loopctl 0x4C81 "$extra"
tap_ok $? "loop$extra removed"
sleep 1
n_app=$(jcount MESSAGE_ID=$ID_APPEARED STORPULSE_VOLUME="loop$extra")
n_van=$(jcount MESSAGE_ID=$ID_VANISHED STORPULSE_VOLUME="loop$extra")
tap_ok $((n_app != 1 || n_van != 1)) "one volume-appeared and one volume-vanished for loop$extra (got $n_app and $n_van)"

# ---- abuse of the control socket ---------------------------------------------------------
python3 - "$SOCK" >"$SCRATCH/abuse" 2>&1 <<'EOF'
import json, socket, sys, threading, time
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX); s.settimeout(20); s.connect(path); return s
def reply(s):
    data = b""
    while not data.endswith(b"\n"):
        k = s.recv(65536)
        if not k:
            break
        data += k
    return data.decode()
results = {}
def flood(i):
    s = conn()
    try:
        for _ in range(200):
            s.sendall(b"garbage that is not json\n")
    except OSError:
        pass
    r = reply(s)
    results[i] = '"ok":false' in r and "malformed JSON" in r
ts = [threading.Thread(target=flood, args=(i,)) for i in range(2)]
[t.start() for t in ts]
[t.join() for t in ts]
print("flood", all(results.values()) and len(results) == 2)
s = conn()
try:
    s.sendall(b"{" + b" " * 10000 + b"\n")
except OSError:
    pass
print("oversize", "request too long" in reply(s))
# a client that asks for a stream and never reads, and one that never finishes its line
lazy = conn(); lazy.sendall(b'{"command":"volumes"}\n' * 50)
slow = conn(); slow.sendall(b'{"command":')
t0 = time.monotonic()
s = conn(); s.sendall(b'{"command":"status"}\n'); r = reply(s)
print("status-while-abused", '"ok":true' in r and time.monotonic() - t0 < 5)
r = reply(slow)
print("slow-closed", "timed out" in r or r == "")
EOF
diag <"$SCRATCH/abuse"
for what in flood oversize status-while-abused slow-closed; do
        check "control socket: $what" grep -q "^$what True" "$SCRATCH/abuse"
done

# ---- a silent probe helper: stalled, while the daemon answers -----------------------------
# arm_silent: the next probe helper the daemon starts goes silent (the switch at the top)
arm_silent() { : >"$SCRATCH/silent.arm"; }
# silent_helper: waits (bounded, 30 s) until a helper has claimed the arm and is stopped; prints
# its pid
silent_helper() {
        local f pid st
        for _ in $(seq 300); do
                for f in "$SCRATCH"/silent.[0-9]*; do
                        [ -e "$f" ] || continue
                        pid=${f##*.} st=
                        read -r _ _ st _ 2>/dev/null <"/proc/$pid/stat"
                        if [ "$st" = T ]; then
                                rm -f "$f"
                                echo "$pid"
                                return 0
                        fi
                done
                sleep 0.1
        done
        return 1
}
# logged TEXT: waits (bounded, 10 s) until the daemon's log has a line containing TEXT
logged() {
        for _ in $(seq 100); do
                grep -qF -- "$1" "$SCRATCH/daemon.log" && return 0
                sleep 0.1
        done
        return 1
}
arm_silent
"$CTL" probe --profile hang --json "$name" >"$SCRATCH/hang" 2>&1 &
cpid=$!
helper=$(silent_helper)
tap_ok $? "the probe's helper went silent (stopped, pid ${helper:-none})"
logged "$name: probing (hang, slice 1, helper ${helper:-none})"
tap_ok $? "the daemon names that process as the probe's helper"
bounded 10 "$CTL" status >"$SCRATCH/status-silent" 2>&1
rc=$?
[ "$rc" -eq 0 ] || diag <"$SCRATCH/status-silent"
tap_ok $rc "status answers while the helper is silent (exit $rc)"
for _ in $(seq 300); do
        kill -0 "$cpid" 2>/dev/null || break
        sleep 0.1
done
kill -0 "$cpid" 2>/dev/null && kill -9 "$cpid"
wait "$cpid"
rc=$?
tap_ok $((rc != 3)) "probe client ends with 3 (stalled) within 30 s (got $rc)"
grep '^{' "$SCRATCH/hang" >"$SCRATCH/hang.json" # stderr went to the same file
check "probe --profile --json lines (a stalled run) validate against the schema" \
        python3 "$SCHEMA_CHECK" run_stream_line "$SCRATCH/hang.json" --lines
jwait 10 MESSAGE_ID=$ID_PROBE_STALLED STORPULSE_VOLUME="$name" >"$SCRATCH/j-stalled"
tap_ok $? "journal: probe-stalled for $name"
check "probe-stalled: silent before its first report, so at no phase (not 'sequential phase at 0%')" \
        json_true "$SCRATCH/j-stalled" '"(no answer within 4.0s, before its first progress report)" in j["MESSAGE"]'
control '{"command":"status"}' >"$SCRATCH/st"
check "status lists $name as stalled" python3 -c '
import json, sys
j = json.loads(open(sys.argv[1]).readline()); sys.exit(0 if sys.argv[2] in j["stalled"] else 1)' \
        "$SCRATCH/st" "$name"
check "status counts the stalled $name as a problem" python3 -c '
import json, sys
j = json.loads(open(sys.argv[1]).readline())
p = [x for x in j["problem_volumes"] if x["name"] == sys.argv[2]]
sys.exit(0 if j["problems"] >= 1 and p and p[0]["probe_problem"] == "stalled" else 1)' \
        "$SCRATCH/st" "$name"
check "/metrics: the stalled $name is a problem" \
        test "$(metric "storpulse_volume_problem{volume=\"$name\"}")" = 1

# ---- SIGTERM while a helper is silent: bounded exit ---------------------------------------
arm_silent
"$CTL" probe --profile hang --json "$name" >"$SCRATCH/hang2" 2>&1 &
cpid=$!
helper=$(silent_helper)
tap_ok $? "the second probe's helper went silent (stopped, pid ${helper:-none})"
# a run queued behind the silent one is aborted before it starts, having taken no time
"$CTL" probe --profile quick "$name" >"$SCRATCH/queued" 2>&1 &
qpid=$!
queued() {
        bounded 10 "$CTL" status --json >"$SCRATCH/st-queued" 2>/dev/null &&
                python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["queued"] != 1)' \
                        "$SCRATCH/st-queued"
}
is_queued=1
for _ in $(seq 100); do
        queued && is_queued=0 && break
        sleep 0.1
done
tap_ok $is_queued "a third probe is queued behind the silent one"
t0=$(date +%s%N)
kill -TERM "$DPID"
for _ in $(seq 150); do
        kill -0 "$DPID" 2>/dev/null || break
        sleep 0.1
done
t1=$(date +%s%N)
if kill -0 "$DPID" 2>/dev/null; then
        tap_ok 1 "storpulsed exits within 15 s of SIGTERM during a silent probe (hung: killing)"
        kill -9 "$DPID"
else
        tap_ok 0 "storpulsed exits within 15 s of SIGTERM during a silent probe ($(((t1 - t0) / 1000000)) ms)"
fi
wait "$DPID"
rc=$?
DPID=
tap_ok $rc "exit status 0 after SIGTERM (got $rc)"
wait "$cpid"
tap_ok $(($? != 2)) "the waiting client is told (exit 2: aborted)"
wait "$qpid"
tap_ok $(($? != 2)) "the queued run's client is told too (exit 2: aborted)"
check "the queued run is logged as aborted before it started, in 0.0s" \
        grep -qE "Probe run [0-9]+ \(quick\) aborted before it started: .* in 0\.0s$" "$SCRATCH/daemon.log"
jwait 5 MESSAGE_ID=$ID_STOPPING >/dev/null
tap_ok $? "journal: stopping"
check "the daemon collected the silent helper before it exited" \
        grep -qF "Probe helper ${helper:-none} collected" "$SCRATCH/daemon.log"
[ -n "$helper" ] && ! kill -0 "$helper" 2>/dev/null
tap_ok $? "the silent helper did not outlive the daemon"
diag <"$SCRATCH/daemon.log"

# ---- the state file: written at exit, restored at start, a read-only state dir tolerated ---
check "probes.json written with the probe record of $name" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["version"] == 1 and j["volumes"][sys.argv[2]]["probes"] >= 1 else 1)' \
        "$SCRATCH/state/probes.json" "$name"
ro=$SCRATCH/state-ro
mkdir -p "$ro" && cp "$SCRATCH/state/probes.json" "$ro/" &&
        mount --bind "$ro" "$ro" && mount -o remount,bind,ro "$ro"
tap_ok $? "read-only state directory $ro"
start_daemon "$SCRATCH/run4" "$ro" "$SCRATCH/daemon-ro.log"
bounded 30 "$CTL" volumes --daemon --json >"$SCRATCH/vols2" 2>&1
check "the probe record was restored from the state file" python3 -c '
import json, sys
v = [x for x in json.load(open(sys.argv[1])) if x["name"] == sys.argv[2]][0]
want = json.load(open(sys.argv[3]))["volumes"][sys.argv[2]]
sys.exit(0 if v["probe"]["runs"] == want["probes"] and v["probe"]["last"] else 1)' \
        "$SCRATCH/vols2" "$name" "$ro/probes.json"
bounded 60 "$CTL" probe --profile quick "$name" >/dev/null 2>&1
tap_ok $? "probing works with a read-only state directory"
check "the failed save is logged" grep -q "Failed to save the probe records" "$SCRATCH/daemon-ro.log"
bounded 20 "$CTL" status >"$SCRATCH/status-ro" 2>&1
check "status says the state is not saved" grep -q "state not saved: Read-only file system" \
        "$SCRATCH/status-ro"
bounded 20 "$CTL" baseline reset "$name" >"$SCRATCH/reset-ro" 2>&1
tap_ok $(($? == 0)) "baseline reset refused when it cannot be saved"
check "and says why" grep -q "cannot be saved.*a reset would not survive a restart" "$SCRATCH/reset-ro"
kill -TERM "$DPID"
wait "$DPID"
tap_ok $? "clean exit with a read-only state directory"
DPID=
umount "$ro"

# ---- a full state directory: the saves fail, the old files stay whole, no temp file is left ---
full=$SCRATCH/state-full
mkdir -p "$full" && mount -t tmpfs -o size=256k tmpfs "$full" &&
        cp "$SCRATCH/state/probes.json" "$full/" &&
        { dd if=/dev/zero of="$full/filler" bs=4k 2>/dev/null || true; }
tap_ok $? "state directory $full, a 256 KiB tmpfs filled up"
sum_before=$(sha256sum <"$full/probes.json")
start_daemon "$SCRATCH/run5" "$full" "$SCRATCH/daemon-full.log"
bounded 60 "$CTL" probe --profile quick "$name" >/dev/null 2>&1
tap_ok $? "probing works with a full state directory"
kill -TERM "$DPID"
wait "$DPID"
tap_ok $? "clean exit with a full state directory"
DPID=
diag <"$SCRATCH/daemon-full.log"
check "the failed save says the disk is full" \
        grep -q "Failed to save the probe records.*No space left on device" "$SCRATCH/daemon-full.log"
check "the old probes.json is unchanged" test "$(sha256sum <"$full/probes.json")" = "$sum_before"
check "no temporary file is left behind" \
        test "$(find "$full" -mindepth 1 ! -name probes.json ! -name filler | wc -l)" = 0
umount "$full"

# ---- damaged state is kept aside, a newer one left alone, stale temp files removed -------------
dmg=$SCRATCH/state-damaged
mkdir -p "$dmg"
printf '{"version":1,"volu' >"$dmg/probes.json"          # truncated by a dying disk
printf 'an older damaged copy\n' >"$dmg/probes.json.corrupt" # kept from an earlier start
printf 'half a save\n' >"$dmg/probes.json.tmp.99999"         # of a daemon killed mid-save
timeout -s TERM 3 "$DAEMON" --config "$conf" --runtime-dir "$SCRATCH/run6" --state-dir "$dmg" \
        >"$SCRATCH/daemon-dmg.log" 2>&1
diag <"$SCRATCH/daemon-dmg.log"
check "a damaged probes.json is kept aside as .corrupt.1" \
        test "$(cat "$dmg/probes.json.corrupt.1")" = '{"version":1,"volu'
check "the older .corrupt is not overwritten" \
        test "$(cat "$dmg/probes.json.corrupt")" = "an older damaged copy"
check "and the log says where" grep -q "kept as $dmg/probes.json.corrupt.1" "$SCRATCH/daemon-dmg.log"
check "the stale temp file is removed" test ! -e "$dmg/probes.json.tmp.99999"
newer='{"version":9,"volumes":{},"from":"a newer storpulse"}'
printf '%s' "$newer" >"$dmg/probes.json"
timeout -s TERM 3 "$DAEMON" --config "$conf" --runtime-dir "$SCRATCH/run7" --state-dir "$dmg" \
        >"$SCRATCH/daemon-newer.log" 2>&1
check "a newer version's probes.json is left as it is" test "$(cat "$dmg/probes.json")" = "$newer"
check "and the log says so" grep -q "newer version: left as it is" "$SCRATCH/daemon-newer.log"

# ---- no journal at all: events on stderr --------------------------------------------------
kill "$JOURNALD"
wait "$JOURNALD" 2>/dev/null
umount /run/systemd/journal
timeout -s TERM 3 "$DAEMON" --config "$conf" --runtime-dir "$SCRATCH/run3" \
        --state-dir "$SCRATCH/state" >"$SCRATCH/nojournal" 2>&1
check "without journald, events go to stderr" grep -q "\[started\]" "$SCRATCH/nojournal"

finish
