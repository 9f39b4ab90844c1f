#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Targets that cannot be probed: each gives exit 2 and a message naming the path and the reason,
# and nothing is touched (the FIFO is never opened, so the probe cannot hang on it; files keep
# their content and mtime). Filesystems that refuse O_DIRECT or only emulate it (tmpfs): exit 2,
# a message about O_DIRECT, no fallback to cached reads.
. "$(dirname "$0")/probe-lib.sh"
require_root_and_loop
make_scratch

# expect_unusable DESCRIPTION PATTERN PATH [RUNNER...]
expect_unusable() {
        local desc=$1 pattern=$2 path=$3 rc
        shift 3
        bounded 30 "$@" "$CTL" probe --no-progress --seq-bytes 1M --rand-count 10 "$path" \
                >"$SCRATCH/out" 2>"$SCRATCH/err"
        rc=$?
        diag <"$SCRATCH/err"
        tap_ok $((rc != 2)) "$desc: exit 2 (got $rc)"
        check "$desc: message names the path" grep -qF "$path" "$SCRATCH/err"
        check "$desc: message gives the reason ($pattern)" grep -qiE "$pattern" "$SCRATCH/err"
        check "$desc: nothing on stdout" test ! -s "$SCRATCH/out"
        bounded 30 "$@" "$CTL" probe --json --no-progress --seq-bytes 1M --rand-count 10 "$path" \
                >"$SCRATCH/out.json" 2>/dev/null
        check "$desc: --json reports state unusable" json_true "$SCRATCH/out.json" \
                "j['state'] == 'unusable' and j['path'] == '$path' and len(j['error']) > 0"
}

expect_unusable "nonexistent" "does not exist" "$SCRATCH/no-such-device"
mkdir "$SCRATCH/dir"
expect_unusable "directory" "directory" "$SCRATCH/dir"
expect_unusable "character device" "character device" /dev/null

mkfifo "$SCRATCH/fifo"
expect_unusable "FIFO (must not hang)" "FIFO" "$SCRATCH/fifo"
check "FIFO: still a FIFO, untouched" test -p "$SCRATCH/fifo"

head -c 100 /dev/urandom >"$SCRATCH/tiny"
touch -d '2001-01-01 00:00:00' "$SCRATCH/tiny"
sum=$(sha256sum <"$SCRATCH/tiny")
expect_unusable "file smaller than one block" "smaller than one" "$SCRATCH/tiny"
check "small file: content unchanged" test "$(sha256sum <"$SCRATCH/tiny")" = "$sum"
check "small file: mtime unchanged" test "$(stat -c %Y "$SCRATCH/tiny")" = "$(date -d '2001-01-01 00:00:00' +%s)"

: >"$SCRATCH/empty"
expect_unusable "empty file" "smaller than one" "$SCRATCH/empty"

# Unreadable: root bypasses permissions, so probe as nobody.
make_random_file "$SCRATCH/secret" 1
chmod 0600 "$SCRATCH/secret"
chmod 0755 "$SCRATCH"
if command -v setpriv >/dev/null; then
        expect_unusable "unreadable file (as uid 65534)" "permission denied" "$SCRATCH/secret" \
                setpriv --reuid=65534 --regid=65534 --clear-groups
        dev=$(attach_loop "$SCRATCH/secret")
        expect_unusable "unreadable block device (as uid 65534)" "permission denied" "$dev" \
                setpriv --reuid=65534 --regid=65534 --clear-groups
else
        tap_ok 0 "unreadable # SKIP setpriv (util-linux) not installed"
fi

# tmpfs: a fresh mount, so no other test's files are involved.
mkdir "$SCRATCH/tmpfs"
if mount -t tmpfs -o size=16m storpulse-test "$SCRATCH/tmpfs"; then
        make_random_file "$SCRATCH/tmpfs/file" 4
        expect_unusable "file on tmpfs" "O_DIRECT" "$SCRATCH/tmpfs/file"
        umount "$SCRATCH/tmpfs"
else
        tap_ok 0 "tmpfs # SKIP cannot mount tmpfs"
fi

# Several targets: a good one does not hide a bad one, and the bad one does not stop the good.
make_random_file "$SCRATCH/good" 4
bounded 60 "$CTL" probe --json --no-progress --seq-bytes 1M --rand-count 10 \
        "$SCRATCH/no-such-device" "$SCRATCH/good" >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
tap_ok $((rc != 2)) "mixed targets: exit 2 (got $rc)"
check "mixed targets: the good one was still probed" \
        grep -q "\"path\":\"$SCRATCH/good\",\"state\":\"ok\"" "$SCRATCH/out"
finish
