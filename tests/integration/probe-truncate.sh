#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The loop device's backing file is truncated while a probe runs: reads past the new end fail
# with EIO. The probe reports them (exit 3, state error, errors > 0, the offsets, each inside
# the device and past the truncation point), stops issuing after too many errors, and neither
# crashes nor hangs.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

random_loop 128

bounded 90 "$CTL" probe --json --no-progress --seq-bytes 0 --rand-seconds 5 --timeout 60 "$dev" \
        >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
child=$(wait_probe_open "$pid" "$dev")
tap_ok $? "the probe has $dev open (child ${child:-none})"
sleep 1
truncate -s 1M "$img"
tap_ok $? "backing file truncated to 1 MiB while the probe runs"
wait "$pid"
rc=$?
diag <"$SCRATCH/err"
tap_ok $((rc != 3)) "exit 3 (got $rc; 124 would mean it hung)"
check "state error" json_true "$SCRATCH/out" 'j["state"] == "error"'
check "errors > 0" json_true "$SCRATCH/out" 'j["errors"] > 0'
check "error offsets kept, all EIO" json_true "$SCRATCH/out" \
        'len(j["error_offsets"]) > 0 and all(e["error"] == "Input/output error" for e in j["error_offsets"])'
check "error offsets inside the device, past the new end" json_true "$SCRATCH/out" \
        'all((1 << 20) <= e["offset"] < (128 << 20) and e["offset"] % 4096 == 0 for e in j["error_offsets"])'
check "reads before the truncation were measured" json_true "$SCRATCH/out" 'j["random"]["ios"] > 0'
check "stderr names the device and the offsets" grep -q "$dev: [0-9]* I/O errors: offset" "$SCRATCH/err"
check "each offset also as a 512-byte sector, as dmesg and mdadm print them" \
        grep -qE "offset [0-9]+ \(sector [0-9]+, Input/output error\)" "$SCRATCH/err"
check "JSON sectors are offset / 512" json_true "$SCRATCH/out" \
        'all(e["sector"] * 512 == e["offset"] for e in j["error_offsets"])'
check "offsets beyond the 16 kept: counted, and said as 'and N more'" json_true "$SCRATCH/out" \
        'j["error_offsets_omitted"] == j["errors"] - len(j["error_offsets"])'
# every read past 1 MiB of 128 MiB fails: far more than the 16 offsets kept
check "more errors than offsets kept" json_true "$SCRATCH/out" 'j["error_offsets_omitted"] > 0'
check "stderr: 'and N more'" grep -qE "and [0-9]+ more$" "$SCRATCH/err"
check "no sanitizer report" test -z "$(grep -E 'AddressSanitizer|runtime error' "$SCRATCH/err")"
finish
