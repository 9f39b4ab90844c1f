#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The timeout path. (0) Random runs longer than --timeout: a usage error (exit 1), not a stall.
# (1) A probe of unknown length (a read count) wants more time than --timeout allows: it ends as
# stalled with its partial results, exit 3, and says the timeout it was given. (2) The probing child goes silent (SIGSTOP stands in for a child
# stuck in D state on a hung device, which a loop device cannot be made to do here): the CLI
# kills it at the deadline, reports "stalled", exit 3. Only "does not hang" is asserted, through
# a generous bound, never a speed. (3) The child dies: exit 2 with a clear message.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

random_loop 64

# (0) Random runs that cannot fit in --timeout are a usage error, never a "stalled" disk.
bounded 60 "$CTL" probe --json --no-progress --seq-bytes 0 --rand-seconds 30 --timeout 1 "$dev" \
        >"$SCRATCH/out0" 2>"$SCRATCH/err0"
rc=$?
diag <"$SCRATCH/err0"
tap_ok $((rc != 1)) "--rand-seconds 30 --timeout 1: usage error, exit 1 (got $rc)"
check "it says why, naming --timeout" grep -q "storpulsectl probe: --timeout=1.0s cannot hold the random runs" "$SCRATCH/err0"
check "nothing reported as stalled" test ! -s "$SCRATCH/out0"

# (1) A probe whose length is not known in advance (a read count) ends at the deadline.
bounded 60 "$CTL" probe --json --no-progress --seq-bytes 0 --rand-queue-depth 1 \
        --rand-count 100000000 --timeout 1 "$dev" >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
diag <"$SCRATCH/err"
tap_ok $((rc != 3)) "probe longer than --timeout: exit 3 (got $rc; 124 = hung)"
check "state stalled" json_true "$SCRATCH/out" 'j["state"] == "stalled"'
check "partial results kept" json_true "$SCRATCH/out" 'j["random"]["ios"] > 0'
check "stderr says stalled, with the real timeout" grep -q "stalled: did not finish within --timeout=1.0s" "$SCRATCH/err"

"$CTL" probe --json --no-progress --seq-bytes 0 --rand-queue-depth 1 --rand-count 100000000 \
        --timeout 2 "$dev" >"$SCRATCH/out2" 2>"$SCRATCH/err2" &
pid=$!
child=$(wait_probe_open "$pid" "$dev")
tap_ok $? "probing child has $dev open (pid ${child:-none})"
[ -n "$child" ] && kill -STOP "$child"
wait_bounded "$pid" "the CLI (silent child)"
diag <"$SCRATCH/err2"
tap_ok $((rc != 3)) "silent child: exit 3 (got $rc)"
check "silent child: JSON state stalled" json_true "$SCRATCH/out2" \
        "j['state'] == 'stalled' and j['path'] == '$dev'"
check "silent child: stderr says it was killed" grep -q "killed" "$SCRATCH/err2"
check "silent child: the message shows the timeout given" grep -q -- "--timeout=2.0s" "$SCRATCH/err2"
sleep 0.5
check "silent child: no longer running" test ! -d "/proc/$child" -o "$(awk '{print $3}' "/proc/$child/stat" 2>/dev/null)" = Z

# (3) The child dies (SIGKILL, e.g. the OOM killer): a clean report, exit 2, no hang.
"$CTL" probe --no-progress --seq-bytes 0 --rand-seconds 30 "$dev" >/dev/null 2>"$SCRATCH/err3" &
pid=$!
child=$(wait_probe_open "$pid" "$dev")
[ -n "$child" ] && kill -KILL "$child"
wait_bounded "$pid" "the CLI (dead child)"
diag <"$SCRATCH/err3"
tap_ok $((rc != 2)) "dead child: exit 2 (got $rc)"
check "dead child: stderr says so" grep -q "died without a result" "$SCRATCH/err3"
finish
