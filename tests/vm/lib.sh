# SPDX-License-Identifier: MIT
# lib.sh: helpers for the VM scenario scripts (sourced inside the guest, bash).
# Every helper either succeeds or calls `fail`, which ends the scenario with exit status 1.
# Environment (from meson through run-vm --env):
#   STORPULSECTL               the freshly built storpulsectl
#   STORPULSE_VM_SELFTEST_WRONG=1  flips one expectation (md-raid1) to prove the suite can fail
#   STORPULSE_VM_KERNEL_ONLY=1 development aid: drive the kernel side only; storpulsectl is not
#                              required and its assertions are logged, not enforced; every
#                              scenario is then reported as SKIP, never as passed

VMDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VMCHECK=$VMDIR/vmcheck.py
SCRATCH=${SCRATCH:-/run/vmtest}
mkdir -p "$SCRATCH"

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

log() {
        echo "--- [$(cut -d' ' -f1 /proc/uptime)s] $*"
}

# run CMD...: echo and run a command; its failure fails the scenario.
run() {
        local t0=$EPOCHREALTIME rc=0
        "$@" || rc=$?
        echo "+ $* ($(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s)"
        ((rc == 0)) || fail "command failed (rc $rc): $*"
}

# disk K: the kernel name of virtio disk K (serial vmdiskK), e.g. "vdb".
disk() {
        local l
        l=$(readlink -f "/dev/disk/by-id/virtio-vmdisk$1") || fail "no virtio disk $1"
        [[ -b $l ]] || fail "virtio disk $1 ($l) is not a block device"
        basename "$l"
}

# wait_until TIMEOUT DESCRIPTION CMD...: poll CMD every 0.2 s until it succeeds.
wait_until() {
        local t=$1 desc=$2
        shift 2
        local end=$(($(date +%s) + t))
        while ! "$@" >/dev/null 2>&1; do
                (($(date +%s) < end)) || fail "timed out after ${t}s waiting for: $desc"
                sleep 0.2
        done
}

md_attr() { # md_attr md0 sync_action
        cat "/sys/block/$1/md/$2"
}

md_is() { # md_is md0 sync_action recover
        [[ "$(md_attr "$1" "$2")" == "$3" ]]
}

# md_sync_started mdX: sync_completed shows a numerator > 0 (it moves in 1/16 steps).
md_sync_started() {
        local c
        c=$(md_attr "$1" sync_completed)
        [[ $c =~ ^([0-9]+)\ /\ ([0-9]+)$ ]] && ((BASH_REMATCH[1] > 0 && BASH_REMATCH[1] < BASH_REMATCH[2]))
}

md_throttle() { # md_throttle KiB/s  (system-wide limit; min is lowered with it)
        modprobe -a md_mod raid0 raid1 raid456 raid10 || fail "cannot load the md modules"
        echo 1 >/proc/sys/dev/raid/speed_limit_min || fail "cannot set speed_limit_min"
        echo "$1" >/proc/sys/dev/raid/speed_limit_max || fail "cannot set speed_limit_max"
}

md_unthrottle() {
        echo 1000 >/proc/sys/dev/raid/speed_limit_min
        echo 2000000 >/proc/sys/dev/raid/speed_limit_max
        local md
        for md in /sys/block/md*/md; do
                [[ -e $md/sync_speed_max ]] && echo system >"$md/sync_speed_max"
        done
        return 0
}

md_wait_idle() { # md_wait_idle md0 [timeout]
        md_unthrottle
        wait_until "${2:-120}" "$1 sync_action idle" md_is "$1" sync_action idle
}

md_raid1_missing_b() { # md0: a RAID1 of disks 1 and 2 ($a, $b), b failed, removed, wiped: --add ready
        a=$(disk 1) b=$(disk 2)
        modprobe -a md_mod raid1
        run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
                /dev/$a /dev/$b </dev/null
        udevadm settle --timeout=30
        run mdadm /dev/md0 --fail /dev/$b
        run mdadm /dev/md0 --remove /dev/$b
        run mdadm --zero-superblock /dev/$b
}

md_dump() {
        echo "--- /proc/mdstat"
        cat /proc/mdstat
        local f
        for f in array_state degraded sync_action sync_completed sync_speed; do
                printf '%s/%s = %s\n' "$1" "$f" "$(md_attr "$1" "$f" 2>&1)"
        done
        for f in /sys/block/"$1"/md/dev-*; do
                printf '%s state=%s slot=%s\n' "${f##*/}" "$(cat "$f/state")" "$(cat "$f/slot")"
        done
}

md_stop_all() {
        local m
        for m in /dev/md[0-9]*; do
                [[ -b $m ]] && mdadm --stop "$m" >/dev/null 2>&1
        done
        return 0
}

# wipe_disks K...: zero md superblocks and the first MiB of virtio disks K...
wipe_disks() {
        local k d
        for k in "$@"; do
                d=/dev/$(disk "$k")
                mdadm --zero-superblock "$d" >/dev/null 2>&1 || true
                wipefs -aq "$d" >/dev/null 2>&1 || true
                dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct status=none || true
        done
        udevadm settle --timeout=30
}

# ctl ARGS...: run storpulsectl; a missing binary or unknown verb fails loudly.
ctl() {
        [[ -n ${STORPULSECTL:-} && -x $STORPULSECTL ]] ||
                fail "STORPULSECTL not set or not executable (${STORPULSECTL:-unset})"
        "$STORPULSECTL" "$@"
}

# require_verb VERB: fail the scenario when storpulsectl does not (yet) have VERB.
require_verb() {
        [[ ${STORPULSE_VM_KERNEL_ONLY:-0} == 1 ]] && return 0
        local out rc
        out=$(ctl "$1" --help 2>&1)
        rc=$?
        if ((rc != 0)) || [[ $out == *"unknown verb"* ]]; then
                fail "storpulsectl has no working '$1' verb yet (rc $rc: ${out:0:200})"
        fi
}

# volumes NAME: run `storpulsectl volumes --json` into $SCRATCH/NAME.json, echo the path.
volumes() {
        local f=$SCRATCH/$1.json rc
        STORPULSE_CONTROLLER_TEST=1 ctl volumes --json >"$f" 2>"$SCRATCH/$1.err"
        rc=$?
        if ((rc != 0)); then
                cat "$SCRATCH/$1.err" >&2
                fail "storpulsectl volumes --json exited $rc"
        fi
        echo "$f"
}

# check NAME DESCRIPTION CODE: snapshot volumes as NAME and assert CODE (see vmcheck.py).
check() {
        local f
        if [[ ${STORPULSE_VM_KERNEL_ONLY:-0} == 1 ]]; then
                f=$(volumes "$1") && python3 "$VMCHECK" "$f" "$2" "$3" ||
                        echo "  (kernel-only run: not enforced: $2)"
                return 0
        fi
        f=$(volumes "$1") || exit 1
        python3 "$VMCHECK" "$f" "$2" "$3" || fail "$2"
}

# checkfile FILE DESCRIPTION CODE: assert CODE on an existing JSON (lines) file.
checkfile() {
        python3 "$VMCHECK" "$1" "$2" "$3" || fail "$2"
}

# wrong VALUE_RIGHT VALUE_WRONG: the expectation to use; the wrong one under the selftest.
wrong() {
        if [[ ${STORPULSE_VM_SELFTEST_WRONG:-0} == 1 ]]; then
                echo "$2"
        else
                echo "$1"
        fi
}

# sums OUTFILE DEV...: sha256 of each device (whole device, O_RDONLY reads).
sums() {
        local out=$1
        shift
        : >"$out"
        local d
        for d in "$@"; do
                printf '%s %s\n' "$(sha256sum <"$d" | cut -d' ' -f1)" "$d" >>"$out"
        done
}

# writes_each DEV...: one "name writes-completed" line per DEV.
writes_each() {
        local d f
        for d in "$@"; do
                d=$(basename "$(readlink -f "$d")")
                read -r _ _ _ _ f _ <"/sys/block/$d/stat" || fail "no stat for $d"
                echo "$d $f"
        done
}

# writes DEV...: the sum of "writes completed" (field 5 of /sys/block/X/stat) over DEVs.
writes() {
        local d n=0 f
        for d in "$@"; do
                d=$(basename "$(readlink -f "$d")")
                read -r _ _ _ _ f _ <"/sys/block/$d/stat" || fail "no stat for $d"
                n=$((n + f))
        done
        echo "$n"
}
