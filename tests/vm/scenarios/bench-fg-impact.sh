# SPDX-License-Identifier: MIT
# Foreground impact on md in the VM test bed (bench/fg-impact/vm.sh; not run by CI): a RAID1 of
# three dm-delay members (delay 0), and bench/fg-impact/run.py --device /dev/md0 there: a steady
# fio randread on md0 alone, with storpulsed on an accelerated built-in schedule probing md0, and
# with a naive fio probe doing the same reads, in rotating order. Figures to $SCRATCH/perf-figures.
source ../lib.sh
source ./perf-common.sh
perf_raid1_of_delays
build=$(cd "$(dirname "$STORPULSECTL")/.." && pwd)
python3 ../../../bench/fg-impact/run.py --build "$build" --device /dev/md0 \
        --rounds "${BENCH_FG_ROUNDS:-3}" --seconds "${BENCH_FG_SECONDS:-8}" \
        --retry-delay "${BENCH_FG_RETRY:-1s}" | tee "$SCRATCH/perf-figures" ||
        fail "bench/fg-impact/run.py failed"
