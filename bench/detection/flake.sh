#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Flake rate of the vm-perf group beside another VM (issue 26: "the vm-perf group passes 10 runs
# in a row beside another VM"). A neighbour VM (the same test bed, 2 vCPUs) runs a CPU-bound loop
# and a read loop over its own disk for the whole bench, as a second CI job or a busy
# virtualisation host would; meanwhile the vm-perf group (perf-fail-slow, perf-faults,
# perf-write, perf-write-cache: the same scenarios, rounds and timeout as CI's vm-perf in
# tests/vm/meson.build) is run RUNS times, one boot after another.
#   bench/detection/flake.sh BUILDDIR [RUNS]      (root; BENCH_NEIGHBOUR=0: no neighbour VM)
# Prints one line per run (result, wall time, the scenarios' figures: healthy-phase false alarms,
# rounds to detection, rounds to normal) and the pass count; exits non-zero if a run failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: flake.sh BUILDDIR [RUNS]}" && pwd)
runs=${2:-10}
logdir=$build/meson-logs/bench-flake
rm -rf "$logdir"
mkdir -p "$logdir"

neighbour_pid=
stop_neighbour() {
        [[ -n $neighbour_pid ]] || return 0
        touch "$logdir/neighbour.stop"
        # the guest may not see the file through its 9p overlay: the VM's session goes after 30 s
        for ((w = 0; w < 30; w++)); do
                kill -0 "$neighbour_pid" 2>/dev/null || break
                sleep 1
        done
        kill -- -"$neighbour_pid" 2>/dev/null
        wait "$neighbour_pid" 2>/dev/null || true
        neighbour_pid=
}
trap stop_neighbour EXIT
if [[ ${BENCH_NEIGHBOUR:-1} == 1 ]]; then
        # The guest sees the host's / read-only and /tmp: it stops when the stop file appears.
        cat >"$logdir/neighbour.sh" <<EOF
#!/bin/sh
( while [ ! -e $logdir/neighbour.stop ]; do :; done ) &
while [ ! -e $logdir/neighbour.stop ]; do
        dd if=/dev/vda of=/dev/null bs=64k iflag=direct 2>/dev/null
done
wait
EOF
        chmod +x "$logdir/neighbour.sh"
        setsid "$src/tests/vm/run-vm" --disks 1 --disk-size 256M --timeout $((runs * 1400 + 600)) \
                --out "$logdir/neighbour" "$logdir/neighbour.sh" >"$logdir/neighbour.log" 2>&1 &
        neighbour_pid=$!
        sleep 20 # let it boot before the first run
fi

passed=0
for ((i = 1; i <= runs; i++)); do
        t0=$SECONDS
        rc=0
        "$src/tests/vm/vm-test" --name "perf-$i" --logdir "$logdir" \
                --ctl "$build/daemon/storpulsectl" --timeout 1350 --disks 3 --disk-size 64M \
                -- perf-fail-slow perf-faults perf-write perf-write-cache >"$logdir/run-$i.log" 2>&1 || rc=$?
        ((rc == 0)) && passed=$((passed + 1))
        figures=$(grep -hE "^(healthy rounds|member \+20 ms|member normal again|volume throttled|PASS: write)" \
                "$logdir/vm-perf-$i/test.log" 2>/dev/null | tr '\n' ' ')
        printf 'run %2d: %-4s %4ds  %s\n' "$i" "$( ((rc == 0)) && echo ok || echo FAIL)" \
                $((SECONDS - t0)) "$figures"
        ((rc == 0)) || grep -hE "^(not ok|FAIL|fail:)|: fail" "$logdir/vm-perf-$i/test.log" 2>/dev/null | head -5
done
stop_neighbour
echo "vm-perf: $passed of $runs runs passed$([[ ${BENCH_NEIGHBOUR:-1} == 1 ]] && echo ' beside a neighbour VM')"
((passed == runs))
