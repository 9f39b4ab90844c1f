#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# storpulsed's write slice on ext4 over a loop device: the volume holding a [WriteProbe]
# Directory= (found through the mount table) is probed by reading the device and, with a Write=yes
# profile, by writing the scratch file in that directory; the result carries the write phases
# beside the read ones, /metrics has the write families (and none of the read families is
# polluted by them), and the kernel counted the writes on that device. A profile without Write=
# writes nothing. A planted file under the scratch name keeps the read figures and is left alone.
# With MinSamples=1 the write baseline is on /metrics after one run. Opt-out: a directory taken out
# of Directory= has its scratch file removed, at a reload and at a start with the key gone (the
# record in the state directory), while a foreign file and a symlink under the name are left
# alone (and the symlink's target, a scratch file of ours, stays).
#   daemon-write.sh STORPULSECTL STORPULSED
set -u
if [ -z "${STORPULSE_IN_NS:-}" ]; then
        if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
                echo "1..0 # SKIP needs root and unshare"
                exit 0
        fi
        # a private mount namespace: the test's mount stays here, no journal socket
        exec unshare --mount --propagation private env STORPULSE_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/probe-lib.sh"
DAEMON=${2:?usage: $0 STORPULSECTL STORPULSED}
require_root_and_loop
command -v mkfs.ext4 >/dev/null || skip_all "mkfs.ext4 not installed (e2fsprogs)"
make_scratch
[ -d /run/systemd/journal ] && mount -t tmpfs tmpfs /run/systemd/journal

DPID=''
cleanup_all() {
        [ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
        umount "$SCRATCH/mnt" 2>/dev/null
        cleanup
}
trap cleanup_all EXIT

truncate -s 256M "$SCRATCH/fs.img"
mkfs.ext4 -q -F "$SCRATCH/fs.img"
dev=$(attach_loop "$SCRATCH/fs.img" --direct-io=on)
name=${dev#/dev/}
mkdir "$SCRATCH/mnt"
check "ext4 on $dev mounted" mount "$dev" "$SCRATCH/mnt"
mkdir "$SCRATCH/mnt/data" "$SCRATCH/mnt/planted" "$SCRATCH/mnt/link"

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
MaxRetries=3
[WriteProbe]
Directory=$SCRATCH/mnt/data
Size=16M
[Profile writer]
SequentialBytes=16M
RandomDuration=500ms
Write=yes
[Profile reader]
SequentialBytes=16M
RandomDuration=500ms
[Detection]
MinSamples=1
[HTTP]
Enable=no
EOF
SOCK=$SCRATCH/run/control
export STORPULSE_SOCKET=$SOCK
start_daemon() { # start_daemon LOG
        "$DAEMON" --config "$conf" --runtime-dir "$SCRATCH/run" --state-dir "$SCRATCH/state" \
                --listen 127.0.0.1:0 >"$1" 2>&1 &
        DPID=$!
        for _ in $(seq 100); do
                [ -S "$SOCK" ] && break
                sleep 0.1
        done
        tap_ok "$([ -S "$SOCK" ]; echo $?)" "daemon's control socket"
}
start_daemon "$SCRATCH/daemon.log"
# wait_for COMMAND...: true once COMMAND succeeds, within 10 s
wait_for() {
        for _ in $(seq 100); do
                "$@" && return 0
                sleep 0.1
        done
        return 1
}
reload() { # reload DIR...: [WriteProbe] Directory= set to DIR..., in this order
        sed -i '/^Directory=/d' "$conf"
        local d i
        for ((i = $#; i > 0; i--)); do # each goes right below the header: the last first
                d=${!i}
                sed -i "/^\[WriteProbe\]/a Directory=$d" "$conf"
        done
        kill -HUP "$DPID"
        sleep 1
}
f_data=$SCRATCH/mnt/data/.storpulse-write-probe

writes() { awk '{ print $7 + 0 }' "/sys/block/$name/stat"; }
phases() { result_field "$1" phases; } # the phase names of the volume's result, sorted

w0=$(writes)
bounded 120 "$CTL" probe --json --profile reader "$name" >"$SCRATCH/reader.json" 2>&1
tap_ok $? "reader profile: probe ran"
check "reader profile: read phases only ($(phases "$SCRATCH/reader.json"))" \
        test "$(phases "$SCRATCH/reader.json")" = "random sequential"
check "reader profile: no scratch file" test ! -e "$SCRATCH/mnt/data/.storpulse-write-probe"

bounded 120 "$CTL" probe --json --profile writer "$name" >"$SCRATCH/writer.json" 2>&1
tap_ok $? "writer profile: probe ran"
diag <"$SCRATCH/writer.json"
check "writer profile: read and write phases ($(phases "$SCRATCH/writer.json"))" \
        test "$(phases "$SCRATCH/writer.json")" = "random sequential write_random write_sequential write_sync"
check "writer profile: the scratch file is there, 16 MiB + 4 KiB" \
        test "$(stat -c %s "$SCRATCH/mnt/data/.storpulse-write-probe")" = $(((16 << 20) + 4096))
w1=$(writes)
check "the kernel counted >= 16 MiB written on $dev ($(((w1 - w0) / 2048)) MiB)" \
        test $((w1 - w0)) -ge $(((16 << 20) / 512))

"$CTL" status --json >/dev/null 2>&1
port=$(grep -oE '127\.0\.0\.1:[0-9]+' "$SCRATCH/daemon.log" | head -1)
if [ -n "$port" ] && command -v curl >/dev/null; then
        # The write baseline is learnt when the round ends (the publish after the run), unless
        # the host was too busy to judge the run (its CPU wait, analysis/host-stall): then the
        # next writer run, up to 5.
        for try in 1 2 3 4 5; do
                wait_for bash -c "curl -s 'http://$port/metrics' >'$SCRATCH/metrics' &&
                        grep -q '^storpulse_baseline_write_bytes_per_second' '$SCRATCH/metrics'" &&
                        break
                diag <<<"writer run $try not learnt: $(grep -c 'host stalled\|not judged' "$SCRATCH/daemon.log") busy-host lines in the log; another run"
                bounded 120 "$CTL" probe --json --profile writer "$name" >/dev/null 2>&1
        done
        for f in storpulse_probe_write_bytes_per_second storpulse_probe_write_iops \
                storpulse_probe_write_latency_p99_seconds; do
                check "/metrics: $f of $name" grep -q "^$f{volume=\"$name\"" "$SCRATCH/metrics"
        done
        check "/metrics: phase sync in the write families" \
                grep -q "^storpulse_probe_write_latency_p99_seconds{volume=\"$name\",phase=\"sync\"}" "$SCRATCH/metrics"
        check "/metrics: no write phase in the read families" \
                bash -c "! grep -E '^storpulse_probe_read_[a-z_0-9]+\{.*phase=\"write' '$SCRATCH/metrics'"
        for s in 'storpulse_baseline_write_bytes_per_second{volume="'$name'",phase="sequential"}' \
                'storpulse_baseline_write_iops{volume="'$name'",phase="random"}' \
                'storpulse_baseline_write_latency_p99_seconds{volume="'$name'",phase="random"}' \
                'storpulse_baseline_write_latency_p99_seconds{volume="'$name'",phase="sync"}'; do
                check "/metrics: $s > 0" awk -v s="$s" '$1 == s && $2 > 0 { f = 1 } END { exit !f }' \
                        "$SCRATCH/metrics"
        done
        check "/metrics: the write baseline has 4 series, the read baseline no write phase" \
                bash -c "[ \$(grep -c '^storpulse_baseline_write_' '$SCRATCH/metrics') -eq 4 ] &&
                        ! grep -E '^storpulse_baseline_read_[a-z_0-9]+\{.*phase=\"(write|sync)' '$SCRATCH/metrics'"
        diag <<<"series of $name on /metrics (reader + writer run, write baseline learnt): $(grep -c "volume=\"$name\"" "$SCRATCH/metrics"), of them write: $(grep -cE "^storpulse_(probe|baseline)_write_.*volume=\"$name\"|metric=\"(write|sync)_" "$SCRATCH/metrics")"
        if command -v promtool >/dev/null; then
                check "promtool check metrics" bash -c "promtool check metrics <'$SCRATCH/metrics'"
        fi
else
        diag <<<"no HTTP address in the log or no curl: /metrics not checked"
fi

# A foreign file under the scratch name: the write slice is refused, the reads stand. The reload
# takes mnt/data out of Directory=: its scratch file goes.
echo "not ours" >"$SCRATCH/mnt/planted/.storpulse-write-probe"
reload "$SCRATCH/mnt/planted"
bounded 120 "$CTL" probe --json --profile writer "$name" >"$SCRATCH/planted.json" 2>&1
tap_ok $? "planted: probe ran"
check "planted: read phases only ($(phases "$SCRATCH/planted.json"))" \
        test "$(phases "$SCRATCH/planted.json")" = "random sequential"
check "planted: the foreign file is unchanged" \
        test "$(cat "$SCRATCH/mnt/planted/.storpulse-write-probe")" = "not ours"
check "planted: the daemon says why" grep -q "no write probe in $SCRATCH/mnt/planted" "$SCRATCH/daemon.log"
check "opt-out by reload: the scratch file of mnt/data is removed" wait_for test ! -e "$f_data"
check "opt-out by reload: the journal says so" \
        grep -q "removed its scratch file $f_data" "$SCRATCH/daemon.log"

# A symlink under the scratch name pointing at a scratch file of ours: never followed. mnt/link
# comes first in Directory= (a volume's write slice takes the first), mnt/data stays configured.
# (mnt/planted left at the first reload here: its foreign file is said to be not ours.)
reload "$SCRATCH/mnt/data"
bounded 120 "$CTL" probe --json --profile writer "$name" >"$SCRATCH/again.json" 2>&1
tap_ok $? "back to mnt/data: probe ran"
check "back to mnt/data: the scratch file is made again" test -f "$f_data"
check "opt-out of mnt/planted: the daemon says its file is not ours" \
        grep -q "$SCRATCH/mnt/planted is no longer a Directory=: .* not a scratch file of ours" \
        "$SCRATCH/daemon.log"
check "opt-out of mnt/planted: the foreign file is unchanged" \
        test "$(cat "$SCRATCH/mnt/planted/.storpulse-write-probe")" = "not ours"
ln -s ../data/.storpulse-write-probe "$SCRATCH/mnt/link/.storpulse-write-probe"
reload "$SCRATCH/mnt/link" "$SCRATCH/mnt/data"
bounded 120 "$CTL" probe --json --profile writer "$name" >"$SCRATCH/link.json" 2>&1
tap_ok $? "symlink: probe ran"
check "symlink: read phases only ($(phases "$SCRATCH/link.json"))" \
        test "$(phases "$SCRATCH/link.json")" = "random sequential"
reload "$SCRATCH/mnt/data"
check "opt-out of mnt/link: the daemon says its file is not ours" wait_for \
        grep -q "$SCRATCH/mnt/link is no longer a Directory=: .* not a scratch file of ours" \
        "$SCRATCH/daemon.log"
check "opt-out of mnt/link: the symlink is left alone" test -L "$SCRATCH/mnt/link/.storpulse-write-probe"
check "opt-out of mnt/link: its target, the file of mnt/data, stays" test -f "$f_data"

# Opt-out while stopped: the key removed, the daemon started again: the record in the state
# directory says which directories had a write slice; mnt/data's file goes, the foreign file in
# mnt/planted stays.
kill -TERM "$DPID"
wait "$DPID"
DPID=''
recorded() { # recorded DIR: DIR is in the state directory's record of write probe directories
        python3 -c 'import json,sys; sys.exit(sys.argv[2] not in json.load(open(sys.argv[1]))["directories"])' \
                "$SCRATCH/state/write-probe.json" "$1"
}
check "the state directory records mnt/data" recorded "$SCRATCH/mnt/data"
check "mnt/planted and mnt/link, whose removal was tried, are not recorded" \
        bash -c "! grep -qE 'mnt/(planted|link)' '$SCRATCH/state/write-probe.json'"
sed -i '/^Directory=/d' "$conf"
start_daemon "$SCRATCH/daemon2.log"
check "opt-out at start: the scratch file of mnt/data is removed" wait_for test ! -e "$f_data"
check "opt-out at start: the journal says so" \
        wait_for grep -q "removed its scratch file $f_data" "$SCRATCH/daemon2.log"
check "opt-out at start: the foreign file in mnt/planted is unchanged" \
        test "$(cat "$SCRATCH/mnt/planted/.storpulse-write-probe")" = "not ours"
check "opt-out at start: mnt/data is forgotten" \
        wait_for bash -c "! grep -q 'mnt/data' '$SCRATCH/state/write-probe.json'"
diag <<<"write-probe.json: $(cat "$SCRATCH/state/write-probe.json")"

# A removal that hangs (a helper that never answers, as one stuck in an unlink on a hung
# filesystem would be): the daemon answers meanwhile, kills it at its deadline, keeps the
# directory recorded, and the next start removes the file.
reload "$SCRATCH/mnt/data"
bounded 120 "$CTL" probe --json --profile writer "$name" >"$SCRATCH/hang.json" 2>&1
check "hung removal: a scratch file to remove" test -f "$f_data"
kill -TERM "$DPID"
wait "$DPID"
sed -i '/^Directory=/d' "$conf"
printf '#!/bin/sh\nexec sleep 120\n' >"$SCRATCH/hanging-helper"
chmod +x "$SCRATCH/hanging-helper"
STORPULSE_PROBE_HELPER=$SCRATCH/hanging-helper start_daemon "$SCRATCH/daemon3.log"
bounded 5 "$CTL" status >/dev/null 2>&1
tap_ok $? "hung removal: the daemon answers status meanwhile"
check "hung removal: the file is still there" test -f "$f_data"
for _ in $(seq 200); do
        grep -q "could not be removed" "$SCRATCH/daemon3.log" && break
        sleep 0.1
done
check "hung removal: given up at the deadline, to be tried again" \
        grep -q "$SCRATCH/mnt/data is no longer a Directory=, but its scratch file could not be removed (the filesystem did not answer within 10 s): tried again" \
        "$SCRATCH/daemon3.log"
check "hung removal: mnt/data stays recorded" recorded "$SCRATCH/mnt/data"
kill -TERM "$DPID"
wait "$DPID"
start_daemon "$SCRATCH/daemon4.log"
check "hung removal: the next start removes the file" wait_for test ! -e "$f_data"
finish
