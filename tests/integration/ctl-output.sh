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
finish
