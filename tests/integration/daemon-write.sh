#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# storpulsed's write slice on ext4 over a loop device: the volume holding a [WriteProbe]
# Directory= (found through the mount table) is probed by reading the device and, with a Write=yes
# profile, by writing the scratch file in that directory; the result carries the write phases
# beside the read ones, /metrics has the write families (and none of the read families is
# polluted by them), and the kernel counted the writes on that device. A profile without Write=
# writes nothing. A planted file under the scratch name keeps the read figures and is left alone.
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
mkdir "$SCRATCH/mnt/data" "$SCRATCH/mnt/planted"

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
[HTTP]
Enable=no
EOF
SOCK=$SCRATCH/run/control
export STORPULSE_SOCKET=$SOCK
"$DAEMON" --config "$conf" --runtime-dir "$SCRATCH/run" --state-dir "$SCRATCH/state" \
        --listen 127.0.0.1:0 >"$SCRATCH/daemon.log" 2>&1 &
DPID=$!
for _ in $(seq 100); do
        [ -S "$SOCK" ] && break
        sleep 0.1
done
tap_ok "$([ -S "$SOCK" ]; echo $?)" "daemon's control socket"

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
        curl -s "http://$port/metrics" >"$SCRATCH/metrics"
        for f in storpulse_probe_write_bytes_per_second storpulse_probe_write_iops \
                storpulse_probe_write_latency_p99_seconds; do
                check "/metrics: $f of $name" grep -q "^$f{volume=\"$name\"" "$SCRATCH/metrics"
        done
        check "/metrics: phase sync in the write families" \
                grep -q "^storpulse_probe_write_latency_p99_seconds{volume=\"$name\",phase=\"sync\"}" "$SCRATCH/metrics"
        check "/metrics: no write phase in the read families" \
                bash -c "! grep -E '^storpulse_probe_read_[a-z_0-9]+\{.*phase=\"write' '$SCRATCH/metrics'"
        if command -v promtool >/dev/null; then
                check "promtool check metrics" bash -c "promtool check metrics <'$SCRATCH/metrics'"
        fi
else
        diag <<<"no HTTP address in the log or no curl: /metrics not checked"
fi

# A foreign file under the scratch name: the write slice is refused, the reads stand.
sed -i "s|^Directory=.*|Directory=$SCRATCH/mnt/planted|" "$conf"
echo "not ours" >"$SCRATCH/mnt/planted/.storpulse-write-probe"
kill -HUP "$DPID"
sleep 1
bounded 120 "$CTL" probe --json --profile writer "$name" >"$SCRATCH/planted.json" 2>&1
tap_ok $? "planted: probe ran"
check "planted: read phases only ($(phases "$SCRATCH/planted.json"))" \
        test "$(phases "$SCRATCH/planted.json")" = "random sequential"
check "planted: the foreign file is unchanged" \
        test "$(cat "$SCRATCH/mnt/planted/.storpulse-write-probe")" = "not ours"
check "planted: the daemon says why" grep -q "no write probe in $SCRATCH/mnt/planted" "$SCRATCH/daemon.log"
finish
