# SPDX-License-Identifier: MIT
# Helpers of the learned-baseline scenarios (perf-fail-slow, perf-faults).
#   perf_raid1_of_delays: md0, a RAID1 of three dm-delay devices m1..m3 (delay 0) over virtio
#     disks 1..3; their kernel names in dm[]; DAEMON is the storpulsed beside $STORPULSECTL.
#   perf_start_daemon [ARGS...]: storpulsed -c $SCRATCH/sp.conf ARGS..., its log in
#     $SCRATCH/daemon.log, pid in dpid, STORPULSE_SOCKET exported once the socket is there;
#     $SCRATCH/rounds.log (where scenarios collect their rounds' output) emptied first.
#   perf_stop_daemon: stop it and wait for it, quietly if it is gone already (for EXIT traps:
#     a failed check must not leave its lock and socket to the next scenario of the boot).
#   events TYPE: how many TYPE events the daemon logged.
#   perf_journal: a journald for a script-mode guest (systemd-journald started by hand; it needs
#     the cgroup2 mount guest-init makes), proven to work by an entry written and read back,
#     so storpulsed sends its events with their fields; call before perf_start_daemon.
#   journal_has [--since @EPOCH] WHAT MATCH... [+ MATCH...]: wait up to 10 s for a journal
#     entry of storpulsed's event WHAT (its MESSAGE_ID from the table below and STORPULSE_EVENT=
#     WHAT, so a wrong table entry fails too) with every FIELD=VALUE of one group (journalctl's
#     `+` between groups means OR; every group carries the event's own matches).
#   journal_lacks [--since @EPOCH] WHAT MATCH... [+ MATCH...]: fail if such an entry exists now.
#   fg_load_start DEV / fg_load_stop: a read-only fio workload of varying intensity on DEV in
#     the background (5 s steps cycling idle, 50, 200, 500 IOPS of 4 KiB random reads and a
#     rate-limited 16 MiB/s sequential read), its pid in fg_pid; fg_load_stop ends it after the
#     current step.
perf_raid1_of_delays() {
        local i a sz
        require_verb report
        DAEMON=$(dirname "$STORPULSECTL")/storpulsed
        [[ -x $DAEMON ]] || fail "no storpulsed beside $STORPULSECTL"
        modprobe -a dm_delay md_mod raid1
        dm=()
        for i in 1 2 3; do
                a=$(disk $i)
                sz=$(blockdev --getsz /dev/$a)
                run dmsetup create m$i --table "0 $sz delay /dev/$a 0 0"
        done
        udevadm settle --timeout=30
        for i in 1 2 3; do
                dm+=("$(basename "$(readlink -f /dev/mapper/m$i)")")
        done
        run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=3 \
                /dev/mapper/m1 /dev/mapper/m2 /dev/mapper/m3 </dev/null
        udevadm settle --timeout=30
        mkdir -p "$SCRATCH/run" "$SCRATCH/state"
}

perf_start_daemon() {
        # $SCRATCH is shared by the scenarios of one boot: a scenario's rounds.log is its own
        : >"$SCRATCH/rounds.log"
        "$DAEMON" -c "$SCRATCH/sp.conf" "$@" --runtime-dir "$SCRATCH/run" \
                --state-dir "$SCRATCH/state" >"$SCRATCH/daemon.log" 2>&1 &
        dpid=$!
        export STORPULSE_SOCKET=$SCRATCH/run/control
        wait_until 60 "control socket" test -S "$STORPULSE_SOCKET"
}

perf_stop_daemon() {
        kill "$dpid" 2>/dev/null
        wait "$dpid" 2>/dev/null
}

events() { grep -c "\[$1\]" "$SCRATCH/daemon.log" || true; }

# perf_report_figures REPORT_JSON ROUNDS_LOG [PROFILE]: md0's read and write figures of
# `report --json` (now, baseline, ratio) as DIAG lines; fails when a read figure of both of the
# last two runs of ROUNDS_LOG (`probe --json` lines; the detector wants 2 runs for a verdict) is
# past the detector's line for a verdict (the defaults: below half of the baseline AND below
# baseline - 3 MAD) and below the lowest of the first HEALTHY_RUNS runs (the healthy phase): a
# TCG guest beside another VM reads 0.15-0.45 of its baseline in healthy runs too, so only a
# figure worse than any healthy run says the fault reached the reads. With WRITES_LOW=1 it also
# fails when no write figure is below half of its baseline. READ_METRICS: the read figures held
# to that (default: seq_bytes_per_second rand_iops); the others are printed only.
perf_report_figures() {
        python3 - "$1" "$2" "${3:-}" "${WRITES_LOW:-0}" "${HEALTHY_RUNS:-0}" \
                "${READ_METRICS:-seq_bytes_per_second rand_iops}" <<'PY'
import json, sys
doc, rounds, profile = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
writes_low, n_healthy = sys.argv[4] == "1", int(sys.argv[5])
held = sys.argv[6].split()
runs = []
for line in open(rounds):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if isinstance(o, dict) and o.get("result") and o.get("volume", "md0") == "md0":
        ph = o["result"].get("phases") or {}
        runs.append({"seq_bytes_per_second": (ph.get("sequential") or {}).get("bytes_per_second"),
                     "rand_iops": (ph.get("random") or {}).get("iops")})
for v in doc["volumes"]:
    if v["volume"] != "md0" or (profile and v.get("profile") not in (None, profile)):
        continue
    ok = True
    for m in ("seq_bytes_per_second", "rand_iops"):
        x = v["metrics"][m]
        mad = x["mad"] if x.get("mad") is not None else 0
        healthy = [r[m] for r in runs[:n_healthy] if r[m] is not None]
        line = min(0.5 * x["baseline"], x["baseline"] - 3 * mad, min(healthy, default=float("inf")))
        last = [r[m] for r in runs[-2:] if r[m] is not None]
        past = len(last) == 2 and all(f < line for f in last)
        print(f"DIAG: md0 read {m}: last runs {[round(f) for f in last]} baseline {x['baseline']:.0f} "
              f"(MAD {mad:.0f}), healthy lowest {min(healthy, default=None)}, "
              f"line {line:.0f}{': PAST in both' if past else ''}{'' if m in held else ' (not held)'}")
        ok = ok and not (past and m in held)
    low = []
    for m in ("write_bytes_per_second", "write_iops", "sync_latency_p99_seconds"):
        x = v["metrics"].get(m) or {}
        now, base = x.get("now"), x.get("baseline")
        ratio = now / base if now is not None and base else None
        print(f"DIAG: md0 {m}: now {now} baseline {base} ratio {ratio}")
        if ratio is not None and ratio < 0.5 and m != "sync_latency_p99_seconds":
            low.append(m)
    sys.exit(0 if ok and (low or not writes_low) else 1)
sys.exit(1)
PY
}

declare -A MSGID=(
        [performance-degraded]=14413b037e3d46bdb9ae2ec1a3e4e1f0
        [member-slow]=6ae76361e7974e0e8c3a268eecfb89c3
        [rebuild-slow]=22ca44a823eb428bafd65c7fb9e15123
        [member-failed]=d43c54c344c04928ae13e952f3edcf5c
)

# within SECONDS CMD...: 0 as soon as CMD succeeds, 1 after SECONDS (wait_until fails instead)
within() {
        local end=$(($(date +%s) + $1))
        shift
        until "$@" >/dev/null 2>&1; do
                (($(date +%s) < end)) || return 1
                sleep 0.2
        done
}

perf_journal() {
        local tag=storpulse-test-$$
        if [[ ! -S /run/systemd/journal/socket ]] || ! pidof systemd-journald >/dev/null; then
                [[ -s /etc/machine-id ]] || systemd-machine-id-setup >/dev/null 2>&1 || true
                rm -f /run/systemd/journal/socket
                mkdir -p /run/systemd/journal /run/log/journal
                /lib/systemd/systemd-journald >"$SCRATCH/journald.log" 2>&1 &
                wait_until 30 "journald socket" test -S /run/systemd/journal/socket
        fi
        echo "journal check" | systemd-cat -t "$tag" || fail "systemd-cat failed"
        if ! within 10 bash -c "journalctl -t $tag -o cat --no-pager | grep -q 'journal check'"; then
                cat "$SCRATCH/journald.log" 2>/dev/null
                fail "journald does not store entries (is cgroup2 mounted? $(mountpoint /sys/fs/cgroup))"
        fi
        echo "journald works: an entry written with systemd-cat was read back"
}

# journal_query [--since @EPOCH] WHAT MATCH... [+ MATCH...]: the matching entries, one per line
journal_query() {
        local since=() what args=() own
        if [[ $1 == --since ]]; then
                since=(--since "$2")
                shift 2
        fi
        what=$1
        shift
        [[ -n ${MSGID[$what]:-} ]] || fail "journal_query: no MESSAGE_ID for $what"
        own=("MESSAGE_ID=${MSGID[$what]}" "STORPULSE_EVENT=$what" SYSLOG_IDENTIFIER=storpulsed)
        args=("${own[@]}")
        for a in "$@"; do
                if [[ $a == + ]]; then
                        args+=(+ "${own[@]}")
                else
                        args+=("$a")
                fi
        done
        journalctl --no-pager -o cat "${since[@]}" "${args[@]}" 2>/dev/null
}

journal_found() { journal_query "$@" | grep -q .; }

journal_has() {
        if ! within 10 journal_found "$@"; then
                echo "--- the newest storpulsed journal entries"
                journalctl --no-pager -t storpulsed -n 8 -o verbose 2>/dev/null |
                        grep -E "MESSAGE=|MESSAGE_ID=|STORPULSE_(EVENT|VOLUME|MEMBER|LAYER)="
                fail "journal: no entry $*"
        fi
        echo "journal: $* found: $(journal_query "$@" | tail -n 1)"
}

journal_lacks() {
        local out
        out=$(journal_query "$@")
        [[ -z $out ]] || fail "journal: unexpected $*: $out"
        echo "journal: no $* (as expected)"
}

fg_load_start() {
        local dev=$1
        rm -f "$SCRATCH/fg.stop"
        (
                while [[ ! -e $SCRATCH/fg.stop ]]; do
                        for rate in 0 50 200 500 seq; do
                                [[ -e $SCRATCH/fg.stop ]] && break
                                case $rate in
                                0) sleep 5 ;;
                                seq) fio --readonly --name=fg --filename="$dev" --direct=1 \
                                        --rw=read --bs=256k --rate=16m --runtime=5 --time_based \
                                        --output=/dev/null >/dev/null 2>&1 ;;
                                *) fio --readonly --name=fg --filename="$dev" --direct=1 \
                                        --rw=randread --bs=4k --iodepth=1 --rate_iops="$rate" \
                                        --runtime=5 --time_based --output=/dev/null \
                                        >/dev/null 2>&1 ;;
                                esac
                        done
                done
        ) &
        fg_pid=$!
}

fg_load_stop() {
        [[ -n ${fg_pid:-} ]] || return 0
        touch "$SCRATCH/fg.stop" # the loop ends after its current step (<= 5 s)
        wait "$fg_pid" 2>/dev/null || true
        fg_pid=
}
