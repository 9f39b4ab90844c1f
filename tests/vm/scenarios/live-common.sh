# SPDX-License-Identifier: MIT
# Sourced by the live-differential scenarios, after ../lib.sh: starts storpulsed (debug log,
# no schedule, HTTP on 127.0.0.1:$port) with its pid in $dpid, and defines step NAME, which holds
# the daemon's live view against a fresh read 1 s after the last change (tests/vm/livediff.py)
# and on a difference prints the daemon's log since the step before and fails. The scenario
# sets its own EXIT trap (it must kill $dpid). LIVE_DAEMON_CONF: more lines for [Daemon].
# shellcheck shell=bash disable=SC2016
require_verb volumes
DAEMON=$(dirname "$STORPULSECTL")/storpulsed
[[ -x $DAEMON ]] || fail "no storpulsed beside $STORPULSECTL"
LIVEDIFF=$VMDIR/livediff.py
port=19977
mkdir -p "$SCRATCH/run" "$SCRATCH/state"
ip link set lo up 2>/dev/null || true
cat >"$SCRATCH/live.conf" <<EOF
[Daemon]
LogLevel=debug
${LIVE_DAEMON_CONF:-}
[Schedule]
Builtin=no
[HTTP]
Enable=yes
Listen=127.0.0.1:$port
EOF
"$DAEMON" -c "$SCRATCH/live.conf" --runtime-dir "$SCRATCH/run" --state-dir "$SCRATCH/state" \
        >"$SCRATCH/daemon.log" 2>&1 &
dpid=$!
export STORPULSE_SOCKET=$SCRATCH/run/control
wait_until 60 "control socket" test -S "$STORPULSE_SOCKET"
curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null ||
        { cat "$SCRATCH/daemon.log"; fail "no HTTP endpoint at 127.0.0.1:$port"; }

# step NAME: the daemon's view equals a fresh read, 1 s after the last change; on a difference
# the daemon's (debug) log since the step before
logmark=0
step() {
        log "step $1"
        python3 "$LIVEDIFF" --url "http://127.0.0.1:$port" --ctl "$STORPULSECTL" --step "$1" ||
                {
                        echo "--- daemon log since the step before"
                        tail -c +$((logmark + 1)) "$SCRATCH/daemon.log" | tail -n 200
                        fail "live view differs from a fresh read at step $1"
                }
        logmark=$(stat -c %s "$SCRATCH/daemon.log")
}

