#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/fg-impact on md in the VM test bed (tests/vm, Debian's kernel under qemu TCG): boots one
# VM running the bench-fg-impact scenario (a RAID1 of three dm-delay members; run.py --device
# /dev/md0 inside the guest) and prints its table.
#   bench/fg-impact/vm.sh BUILDDIR [ROUNDS [SECONDS [RETRY_DELAY]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: vm.sh BUILDDIR [ROUNDS [SECONDS [RETRY_DELAY]]]}" && pwd)
rounds=${2:-3} seconds=${3:-8} retry=${4:-1s}
logdir=$build/meson-logs/bench-fg-impact
mkdir -p "$logdir"
rc=0
"$src/tests/vm/vm-test" --name fg-impact --logdir "$logdir" --ctl "$build/daemon/storpulsectl" \
        --timeout $((600 + rounds * seconds * 3 * 3)) --disks 3 --disk-size 256M \
        --env "BENCH_FG_ROUNDS=$rounds" --env "BENCH_FG_SECONDS=$seconds" \
        --env "BENCH_FG_RETRY=$retry" -- bench-fg-impact || rc=$?
sed -n '/^foreground:/,/^naive/p' "$logdir/vm-fg-impact/test.log" || true
grep "^# round" "$logdir/vm-fg-impact/test.log" || true
exit $rc
