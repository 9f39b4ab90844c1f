#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `storpulsectl probe --json` on a loop device over real random data and on the regular file
# itself: one JSON object per target and line, the documented fields, sane numbers (rates > 0,
# no errors, percentiles ordered), exit 0; the human table names every target.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

random_loop 128 "over 128 MiB of random data"

out=$SCRATCH/out.json
bounded 120 "$CTL" probe --json --no-progress --seq-bytes 32M --rand-seconds 1 "$dev" "$img" \
        >"$out" 2>"$SCRATCH/err"
rc=$?
tap_ok $((rc != 0)) "probe --json exits 0 (got $rc)"
diag <"$SCRATCH/err"
check "two JSON objects, one per line" test "$(wc -l <"$out")" -eq 2

for line in 1 2; do
        sed -n "${line}p" "$out" >"$SCRATCH/one.json"
        path=$(json_get "$SCRATCH/one.json" 'j["path"]')
        check "$path: state ok" json_true "$SCRATCH/one.json" 'j["state"] == "ok"'
        check "$path: sequential.bytes_per_second > 0" \
                json_true "$SCRATCH/one.json" 'j["sequential"]["bytes_per_second"] > 0'
        check "$path: sequential read 32 MiB" \
                json_true "$SCRATCH/one.json" 'j["sequential"]["bytes"] == 32 << 20'
        check "$path: random.iops > 0" json_true "$SCRATCH/one.json" 'j["random"]["iops"] > 0'
        check "$path: random_deep.iops > 0 at QD32" json_true "$SCRATCH/one.json" \
                'j["random_deep"]["iops"] > 0 and j["random_deep"]["queue_depth"] == 32'
        check "$path: random QD1 4 KiB" json_true "$SCRATCH/one.json" \
                'j["random"]["queue_depth"] == 1 and j["random"]["block_size_bytes"] == 4096'
        check "$path: errors 0" json_true "$SCRATCH/one.json" \
                'j["errors"] == 0 and j["error_offsets"] == []'
        check "$path: percentiles ordered, > 0" json_true "$SCRATCH/one.json" \
                '[j["random"]["latency_seconds"][k] for k in ("p50", "p90", "p99", "p999", "max")] == sorted(j["random"]["latency_seconds"][k] for k in ("p50", "p90", "p99", "p999", "max")) and j["random"]["latency_seconds"]["p50"] > 0'
        check "$path: cpu_seconds present and >= 0" \
                json_true "$SCRATCH/one.json" 'j["cpu_seconds"] >= 0 and j["cpu_percent"] >= 0 and 0 <= j["cpu_wait_seconds"] <= j["duration_seconds"]'
        check "$path: size_bytes 128 MiB" json_true "$SCRATCH/one.json" 'j["size_bytes"] == 128 << 20'
        check "$path: logical_block_size_bytes plausible" \
                json_true "$SCRATCH/one.json" 'j["logical_block_size_bytes"] in (512, 1024, 2048, 4096)'
done
check "first object is the loop device" json_true "$out" "j['path'] == '$dev' and j['kind'] == 'block'"

bounded 120 "$CTL" probe --no-progress --seq-bytes 8M --rand-count 500 "$dev" "$img" \
        >"$SCRATCH/table" 2>&1
rc=$?
diag <"$SCRATCH/table"
tap_ok $((rc != 0)) "table output exits 0"
check "table has a header" grep -q "SEQ MiB/s" "$SCRATCH/table"
check "table names the loop device" grep -q "^$dev " "$SCRATCH/table"
check "table names the file" grep -q "^$img" "$SCRATCH/table"
check "no progress line when stderr is not a terminal" test -z "$(grep -c $'\r' "$SCRATCH/table" | grep -v '^0$')"
finish
