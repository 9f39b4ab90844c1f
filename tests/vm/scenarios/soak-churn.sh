# SPDX-License-Identifier: MIT
# Soak (issue 24; bench/robustness/soak, in no CI group): storpulsed, with its HTTP endpoint on
# loopback, for SOAK_SECONDS (default 3600) while block devices come and go around it:
#   - loop churn: a small file in a tmpfs attached to a loop device and detached, 10 times
#     every 5 s, by ioctl (vm-loop-churn, path in STORPULSE_VM_LOOP_CHURN: losetup costs two
#     processes a cycle, a second or more under TCG on a loaded host);
#   - md/dm churn, round after round: a RAID1 over two loop devices created with mdadm and
#     stopped, a dm-linear device over a loop device created and removed (losetup);
#   - a scraper: curl /metrics every second (timeout 5 s), every failure counted;
#   - a stable RAID1 of virtio disks 1 and 2 the whole time (a volume that never goes away);
#   - samples of storpulsed's RSS (VmRSS), open fds (/proc/PID/fd), threads and CPU time
#     (utime+stime of /proc/PID/stat) at the start, after SOAK_IDLE seconds (default 60) of
#     nothing (the idle CPU rate), every SOAK_SAMPLE seconds of churn (default: a twelfth of
#     the run, at least 10 s) and at the end, after the churn has stopped.
# At the end storpulsed must be alive and answer `storpulsectl status`, its log must hold no
# sanitizer report, assertion or fatal signal, and at least one round of each churn kind must
# have succeeded. Figures (not asserted): the samples table, churn and scrape counts, scrape
# latency; as "DIAG:" lines and in /vmout/result/soak/ (samples.tsv, scrapes.tsv, daemon.log).
# shellcheck shell=bash
source ../lib.sh
DAEMON=$(dirname "$STORPULSECTL")/storpulsed
[[ -x $DAEMON ]] || fail "no storpulsed beside $STORPULSECTL"
LOOPCHURN=${STORPULSE_VM_LOOP_CHURN:-}
[[ -x $LOOPCHURN ]] || fail "STORPULSE_VM_LOOP_CHURN: no vm-loop-churn (ninja -C BUILD tests/vm/vm-loop-churn)"
duration=${SOAK_SECONDS:-3600} idle=${SOAK_IDLE:-60}
every=${SOAK_SAMPLE:-$((duration / 12 > 10 ? duration / 12 : 10))}
sp=19979
W=$SCRATCH/soak
mkdir -p "$W/fs" "$W/run" "$W/state"
export STORPULSE_SOCKET=$W/run/control
out=/vmout/result/soak
mkdir -p "$out"
pids=()
keep() {
        ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
        wait 2>/dev/null
        cp "$W"/*.tsv "$W"/*.log "$W"/*.txt "$out"/ 2>/dev/null
}
trap keep EXIT
ip link set lo up
modprobe -a md_mod raid1 dm_mod loop || fail "md/dm/loop modules"
# udev's incremental assembly (mdadm --incremental on every linux_raid_member) would assemble
# the churn's stopped arrays again from their loop devices and hold them: masked in this boot
# (the guest's /etc is a tmpfs overlay)
: >/etc/udev/rules.d/64-md-raid-assembly.rules
udevadm control --reload
mount -t tmpfs -o size=128m soakfs "$W/fs" || fail "tmpfs"
for i in 0 1 2 3; do
        truncate -s 8M "$W/fs/f$i" || fail "truncate"
done

a=$(disk 1) b=$(disk 2)
run mdadm --create /dev/md9 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        "/dev/$a" "/dev/$b" </dev/null
udevadm settle --timeout=30

cat >"$W/sp.conf" <<EOF
[Schedule]
Builtin=no
[HTTP]
Enable=yes
Listen=127.0.0.1:$sp
EOF
"$DAEMON" -c "$W/sp.conf" --runtime-dir "$W/run" --state-dir "$W/state" >"$W/daemon.log" 2>&1 &
dpid=$!
pids+=("$dpid")
wait_until 600 "storpulsed answers on its socket" "$STORPULSECTL" status
wait_until 600 "md9 on storpulsed's /metrics" bash -c \
        "curl -sf http://127.0.0.1:$sp/metrics | grep -q 'volume=\"md9\"'"
hz=$(getconf CLK_TCK)

# sample LABEL: one line of figures of storpulsed (pid dpid) in samples.tsv
sample() {
        local rss thr fds st cpu
        rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$dpid/status") || fail "storpulsed (pid $dpid) is gone"
        thr=$(awk '/^Threads:/ { print $2 }' "/proc/$dpid/status")
        fds=$(find "/proc/$dpid/fd" -mindepth 1 -maxdepth 1 | wc -l)
        read -r -a st <"/proc/$dpid/stat"
        cpu=$(awk -v u="${st[13]}" -v s="${st[14]}" -v hz="$hz" 'BEGIN { printf "%.2f", (u + s) / hz }')
        printf '%s\t%d\t%d\t%d\t%d\t%s\n' "$1" $((EPOCHSECONDS - t0)) "$rss" "$fds" "$thr" "$cpu" \
                >>"$W/samples.tsv"
}
t0=$EPOCHSECONDS
printf 'when\tt_s\trss_kib\tfds\tthreads\tcpu_s\n' >"$W/samples.tsv"
sample start
# first SOAK_IDLE seconds (default 60) of nothing: the daemon's own CPU rate without churn
sleep "$idle"
sample idle
t1=$EPOCHSECONDS
end=$((t1 + duration))

# ---- the scraper: /metrics every second --------------------------------------------------------
# one curl for the whole run (--rate paces it; a process per scrape costs a second under TCG on a
# loaded host): a line "HTTP-CODE SECONDS" per scrape, 000 when it failed or took over 5 s
curl -s -o /dev/null -m 5 --rate 1/s -w '%{http_code} %{time_total}\n' \
        "http://127.0.0.1:$sp/metrics?n=[1-$duration]" >"$W/scrapes.tsv" 2>/dev/null &
scraper=$!
pids+=("$scraper")

# ---- the churn loop -------------------------------------------------------------------------
# try N CMD...: CMD until it succeeds, N tries 0.2 s apart (udev may hold a device for a moment)
try() {
        local n=$1 i
        shift
        for ((i = 0; i < n; i++)); do
                "$@" >>"$W/churn-errors.log" 2>&1 && return 0
                sleep 0.2
        done
        echo "FAILED: $*" >>"$W/churn-errors.log"
        return 1
}
loop_churn() {
        local ok=0 failed=0 r
        while ((EPOCHSECONDS < end)); do
                r=$("$LOOPCHURN" "$W/fs/f3" 10 2>>"$W/churn-errors.log") || r="0 10"
                ok=$((ok + ${r% *})) failed=$((failed + ${r#* }))
                echo "$ok $failed" >"$W/loop-count.txt"
                sleep 5
        done
}
churn() {
        local l=() i d dev round=0 loops=0 loopf=0 md=0 mdf=0 dm=0 dmf=0
        while ((EPOCHSECONDS < end)); do
                # what a failed round left behind (a stop or remove refused while udev still held
                # the device) goes first, so one refusal does not fail every later round
                for d in /sys/block/md*; do
                        [[ $d != */md9 && -e $d/md ]] && try 25 mdadm --stop "/dev/${d##*/}"
                done
                [[ -e /dev/mapper/soakdm ]] && try 25 dmsetup remove soakdm
                # two loop devices; a RAID1 over them created and stopped (md100 and md101 in turn:
                # a stopped array's node may linger a moment), then a dm-linear device over the
                # first (the 8 MiB file: 16384 sectors) created and removed; udev is let finish
                # with each new device before it is taken away (its blkid holds it open)
                l=()
                for i in 0 1; do
                        d=$(losetup --find --show "$W/fs/f$i" 2>>"$W/churn-errors.log") && l+=("$d")
                done
                dev=/dev/md$((100 + round % 2))
                round=$((round + 1))
                if ((${#l[@]} == 2)) && try 1 mdadm --create "$dev" --run --assume-clean --metadata=1.2 \
                        --level=1 --raid-devices=2 "${l[@]}" </dev/null &&
                        udevadm settle --timeout=30 && try 25 mdadm --stop "$dev"; then
                        md=$((md + 1))
                else
                        mdf=$((mdf + 1))
                fi
                if ((${#l[@]} > 0)) && try 1 dmsetup create soakdm --table "0 16384 linear ${l[0]} 0" &&
                        udevadm settle --timeout=30 && try 25 dmsetup remove soakdm; then
                        dm=$((dm + 1))
                else
                        dmf=$((dmf + 1))
                fi
                for d in "${l[@]}"; do
                        if try 5 losetup -d "$d"; then loops=$((loops + 1)); else loopf=$((loopf + 1)); fi
                done
                loopf=$((loopf + 2 - ${#l[@]}))
                echo "$loops $loopf $md $mdf $dm $dmf" >"$W/churn-count.txt"
        done
}
churn &
churner=$!
loop_churn &
loop_churner=$!
pids+=("$churner" "$loop_churner")
log "storpulsed (pid $dpid), churn and scrapes for $duration s, a sample every $every s"

next=$((t1 + every))
while ((EPOCHSECONDS < end)); do
        kill -0 "$dpid" 2>/dev/null || fail "storpulsed died: $(tail -n 20 "$W/daemon.log")"
        if ((EPOCHSECONDS >= next)); then
                sample "t+$((EPOCHSECONDS - t0))s"
                read -r c <"$W/churn-count.txt" 2>/dev/null
                read -r lc <"$W/loop-count.txt" 2>/dev/null
                log "sample $(tail -n 1 "$W/samples.tsv" | tr '\t' ' '), loop ioctl ok/fail: ${lc:-none yet}, losetup, md, dm ok/fail: ${c:-none yet}"
                next=$((next + every))
        fi
        sleep 1
done
wait "$churner" "$loop_churner"
kill "$scraper" 2>/dev/null
wait "$scraper"
pids=("$dpid")
sleep 5 # the last uevents handled
sample end

# ---- the verdict and the figures ------------------------------------------------------------
kill -0 "$dpid" 2>/dev/null || fail "storpulsed died: $(tail -n 20 "$W/daemon.log")"
"$STORPULSECTL" status >"$W/status.txt" 2>&1 || fail "storpulsectl status failed: $(cat "$W/status.txt")"
if grep -nE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|Assertion .* failed|SIGSEGV|SIGABRT|Segmentation fault|stack smashing|double free|corrupted' \
        "$W/daemon.log"; then
        fail "a crash report in storpulsed's log"
fi
read -r loops loopf md mdf dm dmf <"$W/churn-count.txt" || fail "the churn loop never finished a round"
read -r lio liof <"$W/loop-count.txt" || fail "the loop churn never finished a round"
ok=$(grep -c '^200 ' "$W/scrapes.tsv") bad=$(grep -vc '^200 ' "$W/scrapes.tsv")
lat=$(awk '$1 == 200 { print $2 }' "$W/scrapes.tsv" | sort -n | awk '{ v[NR] = $1 }
        END { if (NR) printf "median %.3f s, p99 %.3f s, max %.3f s", v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.99)], v[NR] }')
echo "--- storpulsed over $duration s of churn (guest clock):"
column -t "$W/samples.tsv"
diag() { echo "DIAG: $*"; }
diag "$(awk -F'\t' 'NR == 2 { r0 = $3; f0 = $4 } NR == 3 { t1 = $2; c1 = $6; ci = $6 - c0 } NR == 2 { t0 = $2; c0 = $6 } END {
        printf "start RSS %d KiB, %d fds; end (t+%ds) RSS %d KiB, %d fds, %d threads; CPU %.1f s idle (%.2f%% of %d s), %.1f s under churn (%.2f%% of %d s)",
                r0, f0, $2, $3, $4, $5, ci, 100 * ci / (t1 - t0), t1 - t0, $6 - c1, 100 * ($6 - c1) / ($2 - t1), $2 - t1 }' "$W/samples.tsv")"
diag "peak RSS $(awk -F'\t' 'NR > 1 && $3 > m { m = $3 } END { print m }' "$W/samples.tsv") KiB, most fds $(awk -F'\t' 'NR > 1 && $4 > m { m = $4 } END { print m }' "$W/samples.tsv") over $(($(wc -l <"$W/samples.tsv") - 1)) samples"
diag "churn: $((lio + loops)) loop attach/detach ($lio by ioctl, $loops by losetup under md/dm; $((liof + loopf)) failed), $md md create/stop ($mdf failed), $dm dm create/remove ($dmf failed)"
diag "scrapes: $ok answered, $bad failed; $lat"
((lio > 0 && loops > 0 && md > 0 && dm > 0)) || fail "a churn kind never succeeded (see churn-errors.log)"
exit 0
