# SPDX-License-Identifier: MIT
# Helpers of the dm verdict scenarios: storpulsed started beside the one-shot CLI, so each
# verdict is held in the CLI (`volumes --json`), the daemon's /api/v1/volumes, its /metrics
# and its event log at the same step. Every step prints the kernel's own status line first.
# shellcheck disable=SC2016

DM_PORT=9978

# dm_daemon_start: storpulsed with the HTTP endpoint on 127.0.0.1:$DM_PORT and a fast dm poll.
dm_daemon_start() {
        [[ ${STORPULSE_VM_KERNEL_ONLY:-0} == 1 ]] && return 0
        DAEMON=$(dirname "$STORPULSECTL")/storpulsed
        ip link set lo up # the script-mode guest brings up no network; /metrics is on loopback
        mkdir -p "$SCRATCH/run" "$SCRATCH/state"
        cat >"$SCRATCH/dm.conf" <<CONF
[Daemon]
DmRaidPollInterval=1s
[Schedule]
Builtin=no
[HTTP]
Listen=127.0.0.1:$DM_PORT
CONF
        "$DAEMON" -c "$SCRATCH/dm.conf" --runtime-dir "$SCRATCH/run" --state-dir "$SCRATCH/state" \
                >"$SCRATCH/daemon.log" 2>&1 &
        DM_DAEMON_PID=$!
        export STORPULSE_SOCKET=$SCRATCH/run/control
        trap 'dm_daemon_stop' EXIT
        wait_until 60 "control socket" test -S "$STORPULSE_SOCKET"
        wait_until 30 "HTTP endpoint" curl -sf -o /dev/null "http://127.0.0.1:$DM_PORT/metrics"
}

dm_daemon_stop() {
        [[ -n ${DM_DAEMON_PID:-} ]] || return 0
        kill "$DM_DAEMON_PID" 2>/dev/null
        wait "$DM_DAEMON_PID" 2>/dev/null
        DM_DAEMON_PID=
        echo "--- daemon log (last 30 lines)"
        tail -n 30 "$SCRATCH/daemon.log"
}

# api_volumes NAME: /api/v1/volumes as a JSON array in $SCRATCH/NAME.api.json, echo the path.
api_volumes() {
        local f=$SCRATCH/$1.api.json
        curl -sfS --max-time 10 "http://127.0.0.1:$DM_PORT/api/v1/volumes" |
                python3 -c 'import json, sys; d = json.load(sys.stdin); json.dump(d["volumes"] if isinstance(d, dict) else d, sys.stdout)' \
                        >"$f" || return 1
        echo "$f"
}

# dm_check NAME DESCRIPTION CODE: CODE on the CLI's snapshot, then on the daemon's API view
# (retried for up to 10 s: the daemon learns a status change at its next dm poll).
dm_check() {
        check "$1" "$2 (CLI)" "$3"
        [[ ${STORPULSE_VM_KERNEL_ONLY:-0} == 1 ]] && return 0
        local end=$(($(date +%s) + 10)) f
        while :; do
                f=$(api_volumes "$1") && python3 "$VMCHECK" "$f" "$2 (API)" "$3" >/dev/null 2>&1 && break
                if (($(date +%s) >= end)); then
                        python3 "$VMCHECK" "$f" "$2 (API)" "$3"
                        fail "$2 (API)"
                fi
                sleep 0.5
        done
        echo "  API agrees: $2"
}

# metrics_has REGEX DESCRIPTION: a /metrics line matches REGEX (retried for up to 10 s).
metrics_has() {
        [[ ${STORPULSE_VM_KERNEL_ONLY:-0} == 1 ]] && return 0
        local end=$(($(date +%s) + 10))
        until curl -sfS --max-time 10 "http://127.0.0.1:$DM_PORT/metrics" >"$SCRATCH/metrics" &&
                grep -Eq "$1" "$SCRATCH/metrics"; do
                if (($(date +%s) >= end)); then
                        grep -E 'storpulse_(volume_(health|problem)|thin|snapshot|multipath)' \
                                "$SCRATCH/metrics" | head -n 40
                        fail "/metrics: $2 (no line matching $1)"
                fi
                sleep 0.5
        done
        echo "  /metrics: $2: $(grep -E "$1" "$SCRATCH/metrics" | head -n 1)"
}

# event_has REGEX DESCRIPTION: the daemon's log (its journal lines on stderr) has an event line.
event_has() {
        [[ ${STORPULSE_VM_KERNEL_ONLY:-0} == 1 ]] && return 0
        local end=$(($(date +%s) + 10))
        until grep -Eq "$1" "$SCRATCH/daemon.log"; do
                (($(date +%s) < end)) || { tail -n 20 "$SCRATCH/daemon.log"; fail "event: $2 ($1)"; }
                sleep 0.5
        done
        echo "  event: $2: $(grep -E "$1" "$SCRATCH/daemon.log" | tail -n 1)"
}

# dm_name_of DMNAME: the kernel name ("dm-3") of /dev/mapper/DMNAME.
dm_name_of() {
        basename "$(readlink -f "/dev/mapper/$1")"
}

# status_shows DMNAME REGEX: `dmsetup status DMNAME` matches REGEX.
status_shows() {
        dmsetup status "$1" 2>/dev/null | grep -Eq "$2"
}

# figures_check VOLEXPR DMNAME: Python for dm_check: the dm.<target> figures of the volume
# VOLEXPR (e.g. "lv('vgt', 'pe')") against the kernel's `dmsetup status DMNAME` line, read now
# and parsed here by its documented format (thin-pool, snapshot, multipath, cache, writecache,
# integrity), not by storpulse.
figures_check() {
        local s
        s=$(dmsetup status "$2") || fail "dmsetup status $2"
        cat <<PY
import re
K = '''$s'''.split()
d = ($1)['dm']
def r(x):
    a, b = x.split('/')
    return int(a) / int(b)
def near(x, want, what):
    ok(isinstance(x, (int, float)) and abs(x - want) < 1e-9, '%s: %r, the kernel %r' % (what, x, want))
if K[2] == 'thin-pool' and K[3] in ('Fail', 'Error'):
    t = d['thin_pool']
    eq(t['failed'], True, 'failed (%s)' % K[3])
    eq(t['metadata_usage_ratio'], None, 'no metadata usage (%s)' % K[3])
    eq(t['data_usage_ratio'], None, 'no data usage (%s)' % K[3])
elif K[2] == 'thin-pool':
    t = d['thin_pool']
    near(t['metadata_usage_ratio'], r(K[4]), 'metadata usage (%s)' % K[4])
    near(t['data_usage_ratio'], r(K[5]), 'data usage (%s)' % K[5])
    eq(t['out_of_data_space'], K[7] == 'out_of_data_space', 'out_of_data_space (%s)' % K[7])
    eq(t['read_only'], K[7] == 'ro', 'read_only (%s)' % K[7])
    eq(t['queueing'], K[7] == 'out_of_data_space' and K[9] == 'queue_if_no_space', 'queueing')
    eq(t['needs_check'], K[10] == 'needs_check', 'needs_check (%s)' % K[10])
elif K[2] == 'snapshot':
    t = d['snapshot']
    if '/' in K[3]:
        near(t['usage_ratio'], r(K[3]), 'snapshot usage (%s)' % K[3])
    else:
        eq(t['usage_ratio'], None, 'no usage (%s)' % K[3])
    eq(t['invalid'], K[3] == 'Invalid', 'invalid (%s)' % K[3])
elif K[2] == 'multipath':
    t = d['multipath']
    st = [K[i + 1] for i in range(len(K) - 1) if re.fullmatch(r'\d+:\d+', K[i])]
    eq(t['paths'], len(st), 'paths (%s)' % st)
    eq(t['paths_failed'], st.count('F'), 'failed paths (%s)' % st)
elif K[2] == 'cache':
    # "Fail"/"Error", or ... <metadata mode rw|ro> <needs_check|->
    t = d['cache']
    eq(t['failed'], K[3] in ('Fail', 'Error'), 'failed (%s)' % K[3])
    if K[3] not in ('Fail', 'Error'):
        eq(t['read_only'], K[-2] == 'ro', 'read_only (%s)' % K[-2])
        eq(t['needs_check'], K[-1] == 'needs_check', 'needs_check (%s)' % K[-1])
elif K[2] == 'writecache':
    eq(d['writecache']['error'], int(K[3]), 'error indicator (%s)' % K[3])
elif K[2] == 'integrity':
    eq(d['integrity']['mismatches'], int(K[3]), 'mismatches (%s)' % K[3])
else:
    ok(False, 'no figures for %s' % K[2])
PY
}
