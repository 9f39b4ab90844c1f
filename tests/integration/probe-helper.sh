#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The probing process is the storpulse-probe helper, and it inherits nothing of the CLI: not the
# fds the CLI was given (7 and 8 here, without O_CLOEXEC), not the signals a background job of
# a shell has ignored (SIGINT, SIGQUIT), not a blocked mask. Its stdin and stdout are /dev/null,
# its stderr is the CLI's, fd 3 its socket; the rest is what it opened itself (the target, the
# AIO context, its own /proc/PID/task/PID/schedstat, opened before its privileges are dropped). A
# missing helper is a clear error, not a hang.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

random_loop 64

"$CTL" probe --no-progress --seq-bytes 0 --rand-seconds 5 --timeout 60 "$dev" \
        >/dev/null 2>"$SCRATCH/err" 7</dev/null 8>"$SCRATCH/fd8" &
pid=$!
child=$(wait_probe_open "$pid" "$dev")
tap_ok $? "probing child has $dev open (pid ${child:-none})"
if [ -n "$child" ]; then
        exe=$(readlink "/proc/$child/exe")
        tap_ok "$([[ $exe == */storpulse-probe ]]; echo $?)" "the probing child is storpulse-probe ($exe)"
        ctl=$(pgrep -P "$pid" -x storpulsectl || echo "$pid")
        ls -l "/proc/$child/fd" | diag
        fdlist=$(cd "/proc/$child/fd" && ls | sort -n | tr '\n' ' ')
        tap_ok "$([ ! -e "/proc/$child/fd/7" ] && [ ! -e "/proc/$child/fd/8" ]; echo $?)" \
                "the CLI's fds 7 and 8 are not inherited (child fds: $fdlist)"
        tap_ok "$([ "$(readlink "/proc/$child/fd/0")" = /dev/null ] && [ "$(readlink "/proc/$child/fd/1")" = /dev/null ]; echo $?)" \
                "stdin and stdout are /dev/null"
        tap_ok "$([ "$(readlink "/proc/$child/fd/2")" = "$(readlink "/proc/$ctl/fd/2")" ]; echo $?)" \
                "stderr is the CLI's"
        tap_ok "$([[ $(readlink "/proc/$child/fd/3") == socket:* ]]; echo $?)" "fd 3 is its socket"
        other=0
        for n in $fdlist; do
                fd=/proc/$child/fd/$n
                ((n <= 3)) && continue
                t=$(readlink "$fd")
                # fd 4: /sys, passed on purpose (a regular file's block-size fallback reads it,
                # never the working directory)
                ((n == 4)) && [ "$t" = /sys ] && continue
                [ "$t" = "$(readlink -f "$dev")" ] || [[ $t == anon_inode:* ]] ||
                        [ "$t" = "/proc/$child/task/$child/schedstat" ] || other=1
        done
        tap_ok $other "every other fd is the target, its AIO context, its schedstat or /sys"
        tap_ok "$([ "$(readlink "/proc/$child/fd/4")" = /sys ]; echo $?)" \
                "fd 4 is /sys (the sysfs root for the block-size fallback, not the cwd)"
        diag < <(grep -E '^Sig(Blk|Ign)' "/proc/$ctl/status" | sed 's/^/CLI /')
        diag < <(grep -E '^Sig(Blk|Ign)' "/proc/$child/status" | sed 's/^/helper /')
        tap_ok "$(grep -q '^SigIgn:[[:space:]]*0*$' "/proc/$child/status"; echo $?)" \
                "no signal ignored in the helper"
        tap_ok "$(grep -q '^SigBlk:[[:space:]]*0*$' "/proc/$child/status"; echo $?)" \
                "no signal blocked in the helper"
fi
wait "$pid"
rc=$?
diag <"$SCRATCH/err"
tap_ok $((rc != 0)) "the probe ran to its end: exit 0 (got $rc)"

STORPULSE_PROBE_HELPER=/nonexistent/storpulse-probe bounded 60 "$CTL" probe --no-progress \
        --seq-bytes 0 --rand-count 10 "$dev" >/dev/null 2>"$SCRATCH/err2"
rc=$?
diag <"$SCRATCH/err2"
tap_ok $((rc != 2)) "missing helper: exit 2 (got $rc; 124 = hung)"
check "missing helper: stderr says the probe could not start" grep -q "cannot start probe" "$SCRATCH/err2"
finish
