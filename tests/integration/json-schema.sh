#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One schema (docs/json.md): every JSON the command line prints without a daemon validates
# against tests/schema/storpulse.schema.json (names, types, units in the name, at most 10
# significant digits): `volumes --json` on every fixture tree, `probe --json` on a loop device
# and a file, `watch --json` on a fixture, `report --offline --json` on a hand-written state
# file with figures computed by hand (tests/fixtures/state-baselines/SOURCE). The daemon's
# outputs are validated in daemon.sh (control socket) and http-server.py (the API). The checker
# itself is shown to refuse the old names and a 17-digit number, so this test can fail.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
SCHEMA_CHECK="$(dirname "$0")/../check-json-schema.py"
python3 -c 'import jsonschema' 2>/dev/null ||
        { echo "Bail out! python3-jsonschema missing (build-aux/install-deps.sh --test)"; exit 1; }

# ---- the checker refuses what the schema forbids ---------------------------------------------
printf '[{"name":"md0","kind":"md","path":"/dev/md0","size_bytes":1,"state":"ok","kernel_state":null,"members":[],"holders":[],"read_only":false,"major_minor":"9:0","probe":{"probing":false}}]\n' \
        >"$SCRATCH/old.json"
python3 "$SCHEMA_CHECK" daemon_volumes "$SCRATCH/old.json" 2>"$SCRATCH/err"
tap_ok $((! $?)) "the checker refuses the old probe record (probing)"
printf '{"source":"daemon","volumes":[],"x":{"time_usec":1,"v":0.10000000000000001}}\n' \
        >"$SCRATCH/old2.json"
python3 "$SCHEMA_CHECK" report "$SCRATCH/old2.json" 2>"$SCRATCH/err"
tap_ok $((! $?)) "the checker refuses a *_usec key and a 17-digit number"
check "... and names both" bash -c "grep -q time_usec '$SCRATCH/err' && grep -q 0.10000000000000001 '$SCRATCH/err'"
printf '{"path":"/dev/x","size_bytes":1,"state":"ok","errors":0,"error_offsets":[],"cpu_seconds":0,"logical_block_size":512,"seconds":1,"sequential":null}\n' \
        >"$SCRATCH/old3.json"
python3 "$SCHEMA_CHECK" probe_line "$SCRATCH/old3.json" 2>"$SCRATCH/err"
tap_ok $((! $?)) "the checker refuses probe --json's old logical_block_size and seconds"
check "... and names both" bash -c "grep -q logical_block_size '$SCRATCH/err' && grep -q '\.seconds' '$SCRATCH/err'"
printf '{"time":"2026-12-06T08:00:25.034Z","array":"md0","event":"started","operation":"check","reason":"already-running","progress":0.0824,"percent":8,"speed_bytes_per_second":5505024,"eta_seconds":44.6,"duration_seconds":null,"mismatch_count":null,"severity":"info","message":"m"}\n' \
        >"$SCRATCH/old4.json"
python3 "$SCHEMA_CHECK" watch_line "$SCRATCH/old4.json" --lines 2>"$SCRATCH/err"
tap_ok $((! $?)) "the checker refuses watch --json's old text time"

# ---- volumes --json on every fixture tree ----------------------------------------------------
for d in "$FIX"/*/; do
        [ -d "$d/sys" ] || continue
        n=$(basename "$d")
        "$CTL" volumes --json --no-controller-cli --root "$d" >"$SCRATCH/v.json" 2>/dev/null ||
                { tap_ok 1 "volumes --json --root $n"; continue; }
        check "volumes --json on $n validates" python3 "$SCHEMA_CHECK" volumes "$SCRATCH/v.json"
done

# ---- volumes --json: the dm judges' figures (dm.<target>) -------------------------------------
# No fixture tree holds a thin pool, snapshot or multipath device: each VM-captured status line
# of tests/fixtures/parsers/dm (with its table) stands in for the striped LV's of a copy of
# lvm-striped. The figures validate, and the full queueing pool's are the kernel's own
# (128/128 data blocks: 1; 112/1024 metadata blocks: 0.109375; out_of_data_space,
# queue_if_no_space).
for st in thin-pool-full-queue:thin-pool thin-pool-empty:thin-pool snapshot-used:snapshot \
        snapshot-invalid:snapshot multipath-one-failed:multipath-queue \
        multipath-all-failed:multipath-noqueue; do
        s=${st%%:*} t=${st#*:}
        rm -rf "$SCRATCH/dmtree"
        cp -a "$FIX/lvm-striped" "$SCRATCH/dmtree"
        cp "$FIX/parsers/dm/$s.status" "$SCRATCH/dmtree/dm/vg0-st.status"
        cp "$FIX/parsers/dm/$t.table" "$SCRATCH/dmtree/dm/vg0-st.table"
        "$CTL" volumes --json --no-controller-cli --root "$SCRATCH/dmtree" >"$SCRATCH/dm-$s.json" \
                2>/dev/null || { tap_ok 1 "volumes --json with $s"; continue; }
        check "volumes --json with $s validates" \
                python3 "$SCHEMA_CHECK" volumes "$SCRATCH/dm-$s.json"
done
check "thin pool out of data space: the kernel's figures in dm.thin_pool" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))[0]
want = {"data_usage_ratio": 1, "metadata_usage_ratio": 0.109375, "out_of_data_space": True,
        "queueing": True, "failed": False, "read_only": False, "needs_check": False}
got = v["dm"].get("thin_pool")
print(v["state"], got, file=sys.stderr)
sys.exit(0 if got == want and v["state"] == "failed" else 1)' "$SCRATCH/dm-thin-pool-full-queue.json"
check "multipath with both paths F: dm.multipath 2 paths, 2 failed, not queueing" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))[0]["dm"].get("multipath")
print(g, file=sys.stderr)
sys.exit(0 if g == {"paths": 2, "paths_failed": 2, "queueing": False} else 1)' \
        "$SCRATCH/dm-multipath-all-failed.json"

# ---- probe --json: a loop device and a file --------------------------------------------------
random_loop 16 "to probe"
bounded 120 "$CTL" probe --json --no-progress --seq-bytes 4M --rand-count 50 "$dev" "$img" \
        >"$SCRATCH/p.json" 2>"$SCRATCH/err"
tap_ok $? "probe --json $dev $img"
check "probe --json lines validate" python3 "$SCHEMA_CHECK" probe_line "$SCRATCH/p.json" --lines

# ---- watch --json ----------------------------------------------------------------------------
bounded 30 "$CTL" watch --json --root "$FIX/md-raid1-check" --count 1 --timeout 20 \
        >"$SCRATCH/w.json" 2>/dev/null
check "watch --json lines validate" python3 "$SCHEMA_CHECK" watch_line "$SCRATCH/w.json" --lines

# ---- report --offline --json: schema and hand-computed figures -------------------------------
bounded 30 "$CTL" report --offline --state-dir "$FIX/state-baselines" --json >"$SCRATCH/r.json"
tap_ok $? "report --offline --json"
check "report --json validates" python3 "$SCHEMA_CHECK" report "$SCRATCH/r.json"
check "report --json: figures in bytes/s and seconds (by hand, SOURCE)" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["volumes"][0]
m = e["metrics"]
want = {("seq_bytes_per_second", "baseline"): 157286400.3, ("rand_iops", "baseline"): 1100,
        ("latency_p50_seconds", "baseline"): 0.0003, ("latency_p99_seconds", "baseline"): 0.0015,
        ("latency_p50_seconds", "now"): 0.00035, ("latency_p99_seconds", "now"): 0.0016,
        ("latency_max_seconds", "baseline"): 0.009, ("await_seconds", "baseline"): 0.00025,
        ("cpu_seconds_per_run", "baseline"): 0.012345}
bad = [(k, m[k[0]][k[1]], v) for k, v in want.items() if m[k[0]][k[1]] != v]
bad += [] if e["since_timestamp_seconds"] == 1764979200 else [("since", e["since_timestamp_seconds"])]
bad += [] if e["rebuild_timestamp_seconds"] is None else [("rebuild", e["rebuild_timestamp_seconds"])]
print(bad, file=sys.stderr)
sys.exit(1 if bad else 0)' "$SCRATCH/r.json"
check "report --json prints 157286400.3, not 17 digits" grep -q '"baseline": 157286400.3,' "$SCRATCH/r.json"
bounded 30 "$CTL" report --offline --state-dir "$FIX/state-baselines" >"$SCRATCH/r.txt"
diag <"$SCRATCH/r.txt"
check "report table: IEC rates, SEQ MiB/s 150.0 (157286400.3 / 1048576)" \
        bash -c "grep -q 'SEQ MiB/s' '$SCRATCH/r.txt' && grep -qE '^  baseline +150\.0 ' '$SCRATCH/r.txt'"
finish
