# SPDX-License-Identifier: MIT
# Shared helpers for the probe integration tests (sourced). TAP output on stdout; diagnostics
# prefixed with "# ". Each test gets a scratch directory under /var/tmp (a disk filesystem, so
# O_DIRECT works) and, if it asks, a loop device over a file of real random data; both are
# removed on exit. Needs root (loop devices): otherwise the test is skipped, loudly.
set -u

CTL=${1:?usage: $0 PATH/TO/storpulsectl}
TAP_N=0
TAP_FAILED=0
SCRATCH=

tap_ok() { # tap_ok COND_EXIT_STATUS DESCRIPTION
        TAP_N=$((TAP_N + 1))
        if [ "$1" -eq 0 ]; then
                echo "ok $TAP_N - $2"
        else
                echo "not ok $TAP_N - $2"
                TAP_FAILED=$((TAP_FAILED + 1))
        fi
}
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
        local desc=$1
        shift
        "$@"
        tap_ok $? "$desc"
}
diag() { sed 's/^/# /'; }

# In CI (CI=true: root, loop devices and the test packages are installed there) a test that
# cannot run is a failure, never a skip that looks like a pass.
skip_all() {
        if [ "${CI:-}" = true ]; then
                echo "storpulse integration test cannot run under CI=true: $*" >&2
                echo "Bail out! CI=true but the test cannot run: $*"
                exit 1
        fi
        echo "storpulse integration test SKIPPED: $*" >&2
        echo "1..0 # SKIP $*"
        exit 0 # meson's TAP protocol reads the plan; 77 would count as an error there
}

finish() {
        echo "1..$TAP_N"
        [ "$TAP_N" -gt 0 ] && [ "$TAP_FAILED" -eq 0 ]
        exit $?
}

cleanup() {
        local dev back
        # attach_loop runs in $(...) subshells, so find our devices by their backing files.
        if [ -n "$SCRATCH" ]; then
                while read -r dev back; do
                        case "$back" in
                        "$SCRATCH"/*) losetup -d "$dev" 2>/dev/null ;;
                        esac
                done < <(losetup -l -n -O NAME,BACK-FILE 2>/dev/null)
                rm -rf "$SCRATCH"
        fi
}

require_root_and_loop() {
        [ "$(id -u)" -eq 0 ] || skip_all "needs root (loop devices)"
        command -v losetup >/dev/null || skip_all "losetup not installed"
        [ -e /dev/loop-control ] || modprobe loop 2>/dev/null
        [ -e /dev/loop-control ] || skip_all "no loop device support (/dev/loop-control)"
        command -v python3 >/dev/null || skip_all "python3 needed to read JSON"
        [ "$(stat -f -c %T /var/tmp)" != tmpfs ] || skip_all "/var/tmp is tmpfs: no O_DIRECT files for the scratch directory"
}

make_scratch() {
        SCRATCH=$(mktemp -d /var/tmp/storpulse-probe-test.XXXXXX) || exit 1
        trap cleanup EXIT
}

# make_random_file PATH MIB
make_random_file() {
        head -c "$(($2 * 1024 * 1024))" /dev/urandom >"$1" && sync "$1"
}

# attach_loop FILE [losetup options...]: prints the device
attach_loop() {
        local f=$1 dev
        shift
        dev=$(losetup -f --show "$@" "$f") || return 1
        udevadm settle 2>/dev/null
        echo "$dev"
}

# random_loop SIZE_MIB [WHAT]: a loop device over SIZE_MIB of random data in the scratch dir
# ($img the file, $dev the device), as one check "loop device $dev WHAT".
random_loop() {
        img=$SCRATCH/disk.img
        make_random_file "$img" "$1"
        dev=$(attach_loop "$img")
        tap_ok $? "loop device $dev${2:+ $2}"
}

# json_get FILE EXPR: evaluates a python expression over the first JSON object in FILE as `j`
json_get() {
        python3 -c 'import json,sys; j=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))' "$1" "$2"
}

# json_true FILE EXPR: succeeds when EXPR over the first JSON object is true
json_true() {
        python3 -c 'import json,sys; j=json.loads(open(sys.argv[1]).readline()); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# Exit status of a command that must never hang: it runs under `timeout`, 124 means it hung.
bounded() { # bounded SECONDS COMMAND...
        local s=$1
        shift
        timeout -k 5 "$s" "$@"
}

# wait_bounded PID WHAT: wait for the background PID, at most 60 s (a hang is a failure and is
# killed); its exit status is left in $rc.
wait_bounded() {
        local pid=$1
        for _ in $(seq 600); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
                tap_ok 1 "$2 ended within 60 s (it hung: killing it)"
                kill -9 "$pid"
        fi
        wait "$pid"
        rc=$?
}

# descendants PID: all processes below PID (a background shell function, `timeout`, the CLI, its
# probing child...).
descendants() {
        local c
        for c in $(pgrep -P "$1"); do
                echo "$c"
                descendants "$c"
        done
}

# wait_probe_open PID TARGET: wait (bounded, 30 s) until a process below PID (the probing child)
# has TARGET open, so a fault injected next really hits a running probe. Prints its pid.
wait_probe_open() {
        local pid=$1 target child fd
        target=$(readlink -f "$2")
        for _ in $(seq 600); do
                for child in $(descendants "$pid"); do
                        for fd in /proc/"$child"/fd/*; do
                                if [ "$(readlink "$fd" 2>/dev/null)" = "$target" ]; then
                                        echo "$child"
                                        return 0
                                fi
                        done
                done
                sleep 0.05
        done
        return 1
}

# result_field FILE KEY: KEY of the "result" of the volume line in a probe --json output (an
# object prints as its keys, sorted, space-separated)
result_field() {
        python3 -c 'import json, sys
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if isinstance(o, dict) and o.get("result"):
        v = o["result"].get(sys.argv[2])
        print(" ".join(sorted(v)) if isinstance(v, dict) else v)' "$1" "$2"
}
