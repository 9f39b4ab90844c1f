#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Detection benchmark on the VM test bed (tests/vm, Debian's kernel under qemu): storpulsed over
# a RAID1 of three dm-delay members, probed in accelerated rounds through its control socket
# (one `storpulsectl probe --profile bench` per round, no waiting for a schedule). A healthy
# phase of HEALTHY rounds (default 100) under a foreground fio workload of varying intensity on
# md0 (read-only; BENCH_FIO=0 in the environment for a quiet one) counts false alarms; then one
# member gets +20 ms per read
# and the rounds until `member-slow` and until a performance verdict on that layer are counted;
# then the delay is removed and the member must be normal again. In the same boot perf-faults
# (BENCH_FAULTS_HEALTHY healthy rounds, default 20) throttles md0 to 30% of its learned
# sequential throughput (cgroup v2 io.max rbps only; deeper where the healthy runs' noise hides
# 30%, see tests/vm/scenarios/perf-faults.sh), fails a member, and rebuilds it under a
# low sync_speed_max. Both assert the events in the guest's journal (MESSAGE_ID and fields).
#   bench/detection/run.sh BUILDDIR [HEALTHY [FAULTS_HEALTHY]]
# Prints the figures (from the guests' perf-figures) and the journal entry found for each fault
# (event, volume, member, layer), and exits non-zero if a scenario failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILDDIR [HEALTHY]}" && pwd)
healthy=${2:-100}
faults_healthy=${3:-20}
logdir=$build/meson-logs/bench-detection
mkdir -p "$logdir"
rc=0
"$src/tests/vm/vm-test" --name detection --logdir "$logdir" --ctl "$build/daemon/storpulsectl" \
        --timeout $((900 + (healthy + faults_healthy) * 12)) --disks 3 --disk-size 64M \
        --env "BENCH_HEALTHY=$healthy" --env "BENCH_FAULTS_HEALTHY=$faults_healthy" \
        --env "BENCH_FIO=${BENCH_FIO:-1}" --env "BENCH_BPS_ROUNDS=${BENCH_BPS_ROUNDS:-4}" \
        -- perf-fail-slow perf-faults || rc=$?
grep -E "healthy rounds|member \+20 ms|normal again|throttled|member failed|scenario perf|^journal" \
        "$logdir/vm-detection/test.log" || true
exit $rc
