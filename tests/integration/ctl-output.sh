#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command line never lies about its own output: a write error on stdout (a full disk, a pipe
# whose reader is gone while SIGPIPE is ignored) is exit 5 with a message, for every verb and
# for --help; `help VERB` is the verb's --help; every error message reads "storpulsectl VERB:
# ..."; debug lines only with --verbose. Fixture trees and a regular file: no root needed.
. "$(dirname "$0")/probe-lib.sh"
command -v python3 >/dev/null || skip_all "python3 needed for the closed-pipe case"
[ "$(stat -f -c %T /var/tmp)" != tmpfs ] || skip_all "/var/tmp is tmpfs: no O_DIRECT file to probe"
make_scratch
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
file=$SCRATCH/data
head -c 4194304 /dev/urandom >"$file"

# closed_pipe CMD...: run CMD with stdout a pipe whose read end is closed, SIGPIPE ignored (as a
# daemon or python parent leaves it); prints the exit status, stderr goes to $SCRATCH/err.
closed_pipe() {
        python3 - "$@" 2>"$SCRATCH/err" <<'PY'
import os, signal, subprocess, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, restore_signals=False)
print(p.returncode)
PY
}

declare -a cases=(
        "--help"
        "--version"
        "help probe"
        "volumes --help"
        "volumes --no-controller-cli --root $FIX/md-raid1-recover"
        "volumes --json --no-controller-cli --root $FIX/md-raid1-recover"
        "probe --help"
        "probe --no-progress --seq-bytes 1M --rand-count 20 $file"
        "probe --json --no-progress --seq-bytes 1M --rand-count 20 $file"
        "watch --help"
        "watch --root $FIX/md-raid1-check --count 1 --timeout 20"
        "watch --json --root $FIX/md-raid1-check --count 1 --timeout 20"
        "status --help"
)
for c in "${cases[@]}"; do
        # shellcheck disable=SC2086 # word splitting wanted: the fixture paths have no spaces
        bounded 60 "$CTL" $c >/dev/full 2>"$SCRATCH/err"
        rc=$?
        tap_ok $((rc != 5)) "storpulsectl $c >/dev/full: exit 5 (got $rc)"
        check "storpulsectl $c >/dev/full: says so" \
                grep -q "failed to write to standard output: No space left on device" "$SCRATCH/err"
        # shellcheck disable=SC2086
        rc=$(closed_pipe timeout 60 "$CTL" $c)
        tap_ok $((rc != 5)) "storpulsectl $c | (closed, SIGPIPE ignored): exit 5 (got $rc)"
        check "storpulsectl $c | (closed): says so" \
                grep -q "failed to write to standard output: Broken pipe" "$SCRATCH/err"
done

# help VERB is the verb's --help
for v in volumes probe watch status; do
        check "help $v = $v --help" cmp -s <("$CTL" help "$v") <("$CTL" "$v" --help)
done
"$CTL" help nosuchverb >/dev/null 2>"$SCRATCH/err"
tap_ok $(($? != 1)) "help nosuchverb: exit 1"

# one prefix style
"$CTL" volumes --bogus >/dev/null 2>"$SCRATCH/err"
check "volumes: getopt's message has the prefix" grep -q "^storpulsectl volumes: unrecognized option '--bogus'" "$SCRATCH/err"
"$CTL" volumes --root /nonexistent >/dev/null 2>"$SCRATCH/err"
check "volumes: errors have the prefix" grep -q "^storpulsectl volumes: failed to open the scan root" "$SCRATCH/err"
"$CTL" probe --nope "$file" >/dev/null 2>"$SCRATCH/err"
check "probe: the prefix" grep -q "^storpulsectl probe: unknown option '--nope'" "$SCRATCH/err"
"$CTL" probe /nonexistent/x >/dev/null 2>"$SCRATCH/err"
check "probe: target errors have the prefix" grep -q "^storpulsectl probe: /nonexistent/x: cannot probe" "$SCRATCH/err"
"$CTL" watch --interval soon >/dev/null 2>"$SCRATCH/err"
check "watch: the prefix" grep -q "^storpulsectl watch: invalid --interval 'soon'" "$SCRATCH/err"
"$CTL" nosuchverb >/dev/null 2>"$SCRATCH/err"
check "unknown verb: storpulsectl: ..." grep -q "^storpulsectl: unknown verb 'nosuchverb'" "$SCRATCH/err"

# debug lines only with --verbose (before or after the verb)
bounded 30 "$CTL" watch --root "$FIX/md-raid1-check" --count 1 >/dev/null 2>"$SCRATCH/err"
check "watch without --verbose: no debug line" test -z "$(grep watching "$SCRATCH/err")"
bounded 30 "$CTL" --verbose watch --root "$FIX/md-raid1-check" --count 1 >/dev/null 2>"$SCRATCH/err"
check "storpulsectl --verbose watch: debug lines" grep -q "^storpulsectl watch: md0: watching" "$SCRATCH/err"
bounded 30 "$CTL" watch --verbose --root "$FIX/md-raid1-check" --count 1 >/dev/null 2>"$SCRATCH/err"
check "watch --verbose: debug lines" grep -q "^storpulsectl watch: md0: watching" "$SCRATCH/err"
bounded 30 "$CTL" watch --root "$FIX/md-raid1-check" --count 1 /dev/md0 >"$SCRATCH/out" 2>"$SCRATCH/err"
tap_ok $? "watch /dev/md0 (fixture root): exit 0"
check "watch /dev/md0 reports md0" grep -q " md0 started check" "$SCRATCH/out"

# ---- every option a verb accepts is in its --help (issue 25: `help volumes` lacked --daemon,
# `help probe` lacked --profile) -------------------------------------------------------------
# Candidates: every long option name of daemon/ctl/*.c's tables. A verb accepts OPT when
# `VERB --OPT --zz-no-such-option` does not call --OPT itself unknown (a flag is taken and the
# bogus option then ends the run; a value option takes the bogus word as its value and fails
# on it, or fails to reach a daemon: STORPULSE_SOCKET points nowhere).
SRC=$(cd "$(dirname "$0")/../../daemon/ctl" && pwd)
mapfile -t cands < <(grep -ohE '\{ *"[a-z][a-z0-9-]*", *(no_argument|required_argument|NULL|"[A-Z]+")' "$SRC"/*.c |
        sed -E 's/^\{ *"([a-z0-9-]+)".*/\1/' | sort -u)
tap_ok $((${#cands[@]} < 15)) "${#cands[@]} candidate options read from daemon/ctl/*.c"
declare -a modes=("volumes" "volumes --daemon" "probe" "probe --profile=quick" "watch" "status"
        "report" "baseline" "history")
for mode in "${modes[@]}"; do
        # shellcheck disable=SC2086 # the mode's words
        help=$("$CTL" $mode --help 2>/dev/null)
        missing=
        for opt in "${cands[@]}"; do
                # shellcheck disable=SC2086
                STORPULSE_SOCKET=$SCRATCH/nowhere timeout 10 "$CTL" $mode "--$opt" --zz-no-such-option \
                        </dev/null >/dev/null 2>"$SCRATCH/opt-err"
                grep -qE "(unrecognized|unknown) option '--$opt('|=)" "$SCRATCH/opt-err" && continue
                grep -qE -- "--$opt([^a-z0-9-]|$)" <<<"$help" || missing="$missing --$opt"
        done
        tap_ok $((${#missing} > 0)) "'$mode --help' names every option '$mode' accepts (missing:${missing:- none})"
done
check "help volumes names --daemon" grep -q -- "--daemon" <("$CTL" help volumes)
check "help probe names --profile" grep -q -- "--profile" <("$CTL" help probe)

# ---- why the daemon cannot be reached: "is it running?" only when nothing listens ----------
STORPULSE_SOCKET=$SCRATCH/nowhere "$CTL" status >/dev/null 2>"$SCRATCH/err"
rc=$?
tap_ok $((rc != 2)) "status, no socket: exit 2 (got $rc)"
check "status, no socket (ENOENT): 'is it running?'" grep -q "No such file or directory (is it running?" "$SCRATCH/err"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$SCRATCH/dead.sock"
"$CTL" history --socket "$SCRATCH/dead.sock" >/dev/null 2>"$SCRATCH/err"
check "history, a socket nobody listens on (ECONNREFUSED): 'is it running?'" grep -q "Connection refused (is it running?" "$SCRATCH/err"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        mkdir -m 0755 "$SCRATCH/priv" && cp "$CTL" "$SCRATCH/priv/storpulsectl" && chmod 0755 "$SCRATCH" "$SCRATCH/priv"
        python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600); s.listen(1)
time.sleep(20)' "$SCRATCH/priv/control" &
        lpid=$!
        for _ in $(seq 50); do [ -S "$SCRATCH/priv/control" ] && break; sleep 0.1; done
        setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/priv/storpulsectl" status \
                --socket "$SCRATCH/priv/control" >/dev/null 2>"$SCRATCH/err"
        rc=$?
        kill "$lpid" 2>/dev/null
        diag <"$SCRATCH/err"
        tap_ok $((rc != 2)) "status as nobody on a root-only socket: exit 2 (got $rc)"
        check "EACCES: says who may connect (ControlGroup=), not 'is it running?'" \
                bash -c "grep -q 'Permission denied (the control socket admits root and the groups of \[Daemon\] ControlGroup=' '$SCRATCH/err' && ! grep -q 'is it running' '$SCRATCH/err'"
else
        TAP_N=$((TAP_N + 1))
        echo "ok $TAP_N - # SKIP the EACCES case needs root and setpriv"
fi

# ---- report: units that show the figure, unknown figures as -, unknown volumes are errors ----
mkdir -p "$SCRATCH/state-fast"
cat >"$SCRATCH/state-fast/baselines.json" <<'EOF'
{ "format": "storpulse-baselines", "version": 1, "baselines": [
  { "identity": "light|serial:nvme1", "name": "nvme0n1", "window": 8, "generation": 1,
    "learned_runs": 3, "since_realtime_usec": 1764979200000000,
    "updated_realtime_usec": 1764982800000000, "rebuild_realtime_usec": 0,
    "values": { "rand_iops": [ 250000, 260000, 255000 ],
                "lat_p50_ns": [ 3700, 3600, 3800 ],
                "lat_p99_ns": [ 12000, 11000, 13000 ] } } ] }
EOF
bounded 30 "$CTL" report --offline --state-dir "$SCRATCH/state-fast" >"$SCRATCH/r.txt" 2>&1
tap_ok $? "report --offline on an NVMe-like light baseline"
diag <"$SCRATCH/r.txt"
# by hand: median of 3700, 3600, 3800 ns = 3.7 us; p99 median 12 us; newest 3.8 us / 13 us;
# no sequential phase and no CPU figure: "-"
check "report: p50 3.7 us reads 3.7us (baseline), 3.8us (now), not 0.00" \
        bash -c "grep -qE '^  baseline +- +255000 +3\.7us +12\.0us +- +- ' '$SCRATCH/r.txt' &&
                 grep -qE '^  now +- +255000 +3\.8us +13\.0us +- +- ' '$SCRATCH/r.txt'"
bounded 30 "$CTL" report --offline --state-dir "$SCRATCH/state-fast" nosuch >"$SCRATCH/r2.txt" 2>"$SCRATCH/err"
rc=$?
tap_ok $((rc != 2)) "report --offline nosuch: exit 2 (got $rc)"
check "report --offline nosuch: names the volume" grep -q "^storpulsectl report: nosuch: no baseline in $SCRATCH/state-fast/baselines.json" "$SCRATCH/err"
check "report --offline nosuch: no 'No baselines learned yet.'" bash -c "! grep -q 'No baselines' '$SCRATCH/r2.txt'"
finish
